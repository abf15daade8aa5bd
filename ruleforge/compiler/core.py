"""The compiler's driver: its state, blocks, and the passes in order."""

from __future__ import annotations

import itertools

from .. import ast, runtime
from ..checker import Checker
from ..codegen import (
    fuse_blocks,
    group_by_first,
    prologue,
    read_arguments,
    reads_state,
)
from ..diagnostics import Diagnostic, RulesError
from ..model import ANY, Type
from .actions import ActionCompiler
from .expressions import ExpressionCompiler
from .layout import LayoutCompiler
from .program import ActionInfo, Env, Program
from .scoring import ScoringCompiler
from .statements import StatementCompiler

PASS = "pass"


class Compiler(LayoutCompiler, StatementCompiler, ActionCompiler, ScoringCompiler, ExpressionCompiler):
    """Compiles checked rules for one player count and options; each part of the language
    has its own module, this class joins them and runs the passes (`compile_all`)."""

    def __init__(self, checker: Checker, players: int, options: dict, extras: tuple[str, ...] = (),
                 count_triggers: bool = False):
        self.ck = checker
        self.count_triggers = count_triggers  # count each trigger's firings in FIRED (statistics)
        self.m = checker.model
        self.n = players
        self.extras = extras
        self.check_only = False
        self.in_iterable = 0  # > 0 while compiling a generator's source: no `:=` allowed there
        self.tables: list[tuple] = []  # constant step tables, looked up by table_lookup
        self.points: list[tuple[int, ...]] = []  # the action sets that decisions offer
        self.files: list[str] = []  # rules files named by position tags
        self._label_ns: dict | None = None
        self._labels_made: dict[tuple, str] = {}  # (kind, attribute values) -> label
        self._setup_ns: dict | None = None
        self.precomputed: list[str] = []  # functions listing the state-free legal arguments
        self.precomputed_aid: list[int] = []  # the action each of them lists
        self.trigger_stack: list[ast.TriggerDecl] = []  # triggers being inlined, to refuse cycles
        self.grouped: set[int] = set()  # precomputed lists grouped by their first argument
        self.options = options
        self.blocks: list[list[str]] = []
        self.cur: int = -1
        self.indent = 1
        self.fresh = itertools.count()
        self.helpers: list[str] = []
        self.n_locals = 0
        self.memo: dict = {}
        self.line_map: dict[int, ast.Pos] = {}
        self.decision_pos: dict[int, ast.Pos] = {}  # resume block -> the decision's statement
        self.slot_types: list[Type] = []  # per persistent local: what it holds ("resume": a block)
        self.slot_scope: dict[int, tuple[int, int]] = {}  # local -> blocks [first, end) where it is set
        self.where: ast.Pos | None = None  # the rule being compiled, for what Python refuses
        self.log_templates: list = []

    # --- blocks -----------------------------------------------------------------------
    def tag(self, pos: ast.Pos) -> str:
        """A comment naming a rule's file, line and column, for runtime errors."""
        if pos.file not in self.files:
            self.files.append(pos.file)
        return f"  # @{self.files.index(pos.file)}:{pos.line}:{pos.column}"

    def new_block(self) -> int:
        self.blocks.append([])
        return len(self.blocks) - 1

    def scoped(self, slots: list[str], first: int) -> None:
        """The locals `slots` are set whenever the flow stands in blocks [first, now): a
        restored state standing there must hold a value in each."""
        for code in slots:
            if code.startswith("L["):
                self.slot_scope[int(code[2:-1])] = (first, len(self.blocks))

    def start(self, b: int) -> None:
        self.cur = b
        self.indent = 1

    def emit(self, line: str, pos: ast.Pos | None = None) -> None:
        text = "    " * self.indent + line
        if pos is not None:
            text += self.tag(pos)
        self.blocks[self.cur].append(text)

    def slot(self, kind: Type = ANY) -> str:
        """A new persistent local `L[k]`; its kind lets a restored state be checked."""
        self.n_locals += 1
        self.slot_types.append(kind)
        return f"L[{self.n_locals - 1}]"

    # --- compile all -------------------------------------------------------------------
    def compile(self) -> Program | None:
        try:
            return self.compile_all()
        except (SyntaxError, RecursionError, MemoryError) as err:  # rules nested deeper than Python copes with
            raise RulesError([self.too_complex(err)], self.ck.sources) from None

    def compile_all(self) -> Program | None:
        self.comp_attrs = []
        self.layout()
        self.build_components()
        self.comp_label = [self.component_label(c) for c in range(len(self.comp_kind))]
        for label in self.extras:
            template = self.comp_label.index(label)
            self.comp_kind.append(self.comp_kind[template])
            self.comp_attrs.append(dict(self.comp_attrs[template]))
            self.comp_owner.append(self.comp_owner[template])
            self.comp_start.append(self.comp_start[template])
            self.comp_label.append(label)
        self.defs_src = [self.compile_def(d) for d in self.m.defs.values()]
        # actions: index 0 is the built-in pass
        self.actions = [ActionInfo(PASS, None)]
        self.action_ids = {PASS: 0}
        for a in self.m.actions.values():
            self.action_ids[a.name] = len(self.actions)
            self.actions.append(ActionInfo(a.name, a, limits=[(lim.times, lim.scope) for lim in a.limits]))
        entry = self.new_block()
        self.start(entry)
        self.emit("pass")
        flow = self.m.flow
        end = self.compile_body(flow.body, Env(), entry) if flow else entry
        self.start(end)
        self.emit("st.over = True")
        self.emit("return -2")
        self.direct_src: list[str] = []
        self.reentrant = self.reentrant_actions()
        self.entries: list[tuple[int, list[str]]] = []  # (action id, entry function's first lines)
        for info in self.actions[1:]:
            self.compile_action(info)
        legal_src = [self.compile_legal(info) for info in self.actions]
        legal_src += [self.compile_point_legal(i, opts) for i, opts in enumerate(self.points)]
        label_src = [self.compile_action_label(info) for info in self.actions]
        label_src += [self.compile_public_label(info) for info in self.actions
                      if info.decl is not None and info.decl.secret]
        label_src += [self.compile_visibility(i, cond) for i, cond in enumerate(self.vis_conds)]
        label_src += [self.compile_invariant(i, inv) for i, inv in enumerate(self.m.invariants)]
        label_src += [self.compile_measure(i, m) for i, m in enumerate(self.m.measures.values())]
        score_src = [self.compile_scoring(s) for s in self.m.scorings.values()]
        rank_src = self.compile_ranking()
        source = self.assemble(legal_src, label_src, score_src, rank_src)
        code = self.python(source)
        if self.check_only:  # every setup value and table was worked out, Python took the code
            return None
        return self.link(source, code, label_src)

    def python(self, source: str):
        """Python's own compile() of the generated module; what it refuses (code nested
        deeper than it allows) is reported at the rules line that made that code."""
        try:
            return compile(source, f"<ruleforge:{self.m.title}>", "exec")
        except SyntaxError as err:
            self.where = self.line_map.get(err.lineno or 0, self.where)
            raise RulesError([self.too_complex(err)], self.ck.sources) from None
        except (RecursionError, MemoryError) as err:
            raise RulesError([self.too_complex(err)], self.ck.sources) from None

    def too_complex(self, err: BaseException) -> Diagnostic:
        """What Python refused in the generated code, said in the rules' terms."""
        detail = err.msg if isinstance(err, SyntaxError) else type(err).__name__
        pos = self.where or ast.Pos(self.ck.main_file(), 0, 0)
        if "statically nested blocks" in str(detail):
            return Diagnostic(pos, "loops nest deeper here than the generated Python allows (20, counting "
                              "the loops of the phases called and the triggers fired inside)",
                              "move the inner work into an action, or into phases called one after another")
        return Diagnostic(pos, f"this is nested too deeply for the generated Python ({detail})",
                          "split it: give a part a name with 'let' or 'def'")

    def assemble(self, legal_src, label_src, score_src, rank_src) -> str:
        """The generated module's text; fills the line map (generated line -> rules position)."""
        parts = ["# generated by ruleforge; do not edit"]
        parts += self.helpers
        parts += self.defs_src
        bodies = [body if body and body[-1].strip().startswith("return")
                  else body + ["    raise AssertionError('fell off the end of a block')"]
                  for body in self.blocks]
        # entry functions ride along as extra blocks, so fusion pastes their first block in
        fused = fuse_blocks(bodies + [head for _, head in self.entries])
        for i, body in enumerate(fused[:len(bodies)]):
            parts.append(f"def b{i}(st):")
            parts.extend(prologue(body, ("Z", "st.z"), ("V", "st.v"), ("L", "st.l"), ("P", "st.p")))
            parts.extend(body)
        for (aid, head), body in zip(self.entries, fused[len(bodies):]):
            info = self.actions[aid]
            params = "".join(f", a_{q.name}" for q in info.decl.params)
            parts.append(f"def enter_{aid}(st, me{params}):")
            body = body[:len(head) - 1] + read_arguments(
                body[len(head) - 1:], {info.me_slot: "me", **{slot: f"a_{q.name}" for slot, q
                                                             in zip(info.param_slots, info.decl.params)}})
            parts.extend(prologue(body, ("Z", "st.z"), ("V", "st.v"), ("L", "st.l"), ("P", "st.p")))
            parts.extend(body)
        parts += legal_src + label_src + score_src + self.direct_src + self.precomputed + [rank_src]
        source = "\n".join(parts) + "\n"
        last: ast.Pos | None = None
        for lineno, line in enumerate(source.splitlines(), 1):
            if line.startswith("def "):
                last = None  # a line inherits the position of the nearest tagged line above it
            if "  # @" in line:
                f, ln, col = line.rsplit("  # @", 1)[1].split(":")
                last = ast.Pos(self.files[int(f)], int(ln), int(col))
            if last is not None:
                self.line_map[lineno] = last
        return source

    def link(self, source: str, code, label_src) -> Program:
        """Run the compiled module and gather its functions and tables into a Program."""
        ns = self.base_namespace()
        ns["LBL"] = self.comp_label
        ns["LOGT"] = self.log_templates
        ns["PRE"] = pre = []
        ns["FIRED"] = [0] * len(self.m.triggers)
        exec(code, ns)  # noqa: S102 - our own generated code
        for k in range(len(self.precomputed)):
            try:
                per_player = [ns[f"pre_{k}"](me) for me in range(self.n)]
            except runtime.TooManyChoices:
                raise self.too_many_choices(self.precomputed_aid[k]) from None
            if k in self.grouped:  # [(first argument, [its actions]), ...], in order
                per_player = [group_by_first(actions) for actions in per_player]
            pre.append(per_player)
        blocks = [ns[f"b{i}"] for i in range(len(self.blocks))]
        var_init = self.initial_vars(ns)
        prop_init = []
        for p in self.props:
            default = None
            for info in self.m.kinds.values():
                d = info.props.get(p)
                if d is not None and d.default is not None:
                    default = self.eval_const(d.default)
            prop_init.append(default)
        program = Program(
            players=self.n, model=self.m, source=source, namespace=ns, blocks=blocks,
            zones=self.zones, zone_base=self.zone_base, var_base=self.var_base, var_names=self.var_names,
            var_kinds=self.var_kinds, var_shown=self.var_shown,
            props=self.props, comp_kind=self.comp_kind, comp_label=self.comp_label,
            comp_start=self.comp_start, actions=self.actions, action_ids=self.action_ids,
            legal_funcs=[ns[f"legal_{i}"] for i in range(len(self.actions))],
            point_legal={opts: ns[f"legal_point_{i}"] for i, opts in enumerate(self.points)},
            label_funcs=[ns[f"label_{i}"] for i in range(len(self.actions))],
            items=self.items, scorings=self.scoring_index,
            score_funcs={name: ns[f"score_{name}"] for name in self.m.scorings},
            log_templates=self.log_templates, var_init=var_init, prop_init=prop_init,
            n_locals=self.n_locals, rank_func=ns["rank_key"], line_map=self.line_map,
            option_names=self.option_names, option_values=self.option_values, compiler=self,
            public_label_funcs=[ns.get(f"public_label_{i}") for i in range(len(self.actions))],
            state_labels=[reads_state(label_src[i].split("\n", 2)[-1]) for i in range(len(self.actions))],
            vis_funcs=[ns[f"visible_{i}"] for i in range(len(self.vis_conds))],
            invariants=[(inv.pos, inv.player is not None, ns[f"invariant_{i}"], ns[f"invariant_text_{i}"])
                        for i, inv in enumerate(self.m.invariants)],
            measures=[(m.label, m.pos, ns[f"measure_{i}"]) for i, m in enumerate(self.m.measures.values())],
            action_params=[self.param_kinds(info) for info in self.actions],
            decision_pos=self.decision_pos, slot_types=self.slot_types, slot_scope=self.slot_scope,
        )
        program.apply_records = [
            (program.state_labels[aid], ns.get(f"act_{aid}") or ns.get(f"enter_{aid}") or _stay,
             tuple(self.actions[aid].limits)) for aid in range(len(self.actions))]
        return program

    def param_kinds(self, info: ActionInfo) -> tuple[tuple[str, str], ...]:
        """What each parameter of an action takes, so that a value can be shown to people
        (a component by label, a cell by its place) without reading the generated code."""
        if info.decl is None:
            return ()
        kinds = []
        for q in info.decl.params:
            t = self.ck.types.get(q.domain)
            if t is not None and t.kind == "list" and t.element is not None:
                t = t.element
            elif t is not None and t.kind in ("zone", "grid"):
                t = Type("comp")
            kinds.append((q.name, t.kind if t is not None else "any"))
        return tuple(kinds)

    def initial_vars(self, ns: dict) -> list:
        out = []
        for v in self.m.vars.values():
            value = self.eval_const(v.default) if v.default is not None else _zero(self.ck.resolve_type(v.type))
            out.extend([value] * (self.n if v.per_player else 1))
        if self.m.end_rules:
            out.extend([False, False, None])  # ending, finished, whose turn is the last
        return out

    # --- component labels ----------------------------------------------------------------
    def component_label(self, c: int) -> str:
        """A component's label, worked out once per kind and attribute values: `N of Kind(...)`
        makes N alike, and a large deck would otherwise compile its label N times."""
        kind = self.comp_kind[c]
        attrs_ = self.comp_attrs[c]
        env_names = {name: repr(value) for name, value in attrs_.items()}
        key = (kind, tuple(env_names.items()))
        label = self._labels_made.get(key)
        if label is None:
            label = self._labels_made[key] = self._make_label(kind, attrs_, env_names)
        return label

    def _make_label(self, kind: str, attrs_: dict, env_names: dict[str, str]) -> str:
        info = self.m.kinds[kind]
        if info.decl.label is None:
            shown = ", ".join(f"{k}: {runtime.show(v)}" for k, v in attrs_.items() if v not in (None, False))
            return f"{kind}({shown})" if shown else kind
        env = Env(dict(env_names))
        for p in info.props:
            env.names[p] = "None"
        code = self.cx_text(info.decl.label, env)
        if self._label_ns is None:
            self._label_ns = self.base_namespace()
        return eval(code, self._label_ns)  # noqa: S307

    # --- defs -------------------------------------------------------------------------------
    def compile_def(self, d: ast.DefDecl) -> str:
        self.where = d.pos
        env = Env({p.name: f"a_{p.name}" for p in d.params})
        params = "".join(f", a_{p.name}" for p in d.params)
        body = self.cx(d.body, env)
        return f"def d_{d.name}(st{params}):\n    Z = st.z; V = st.v; P = st.p\n    return {body}"



def compile_program(checker: Checker, players: int, options: dict | None = None,
                    extras: tuple[str, ...] = (), count_triggers: bool = False) -> Program:
    """Compile for a player count. `extras` are labels of components to add beyond the
    game's own set (copies of the first component with that label): hand-built positions
    may hold more of a card than the box does. With `count_triggers`, each firing of trigger
    i adds 1 to `program.namespace["FIRED"][i]` (for statistics; otherwise no code is added)."""
    program = Compiler(checker, players, options or {}, extras, count_triggers).compile()
    assert program is not None
    return program


def check_setup(checker: Checker, players: int) -> None:
    """Everything compiling for a player count can find wrong (setup values, tables that
    miss the count), without building the program: raises RulesError."""
    compiler = Compiler(checker, players, {})
    compiler.check_only = True
    compiler.compile()


__all__ = ["Program", "check_setup", "compile_program"]


def _stay(st, me) -> int:
    """Applying `pass`: the game goes on where it was."""
    return st.pc


def _zero(t: Type):
    return {"int": 0, "flag": False, "text": ""}.get(t.kind)
