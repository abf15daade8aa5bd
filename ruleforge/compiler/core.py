"""The compiler's driver: its state, blocks, and the passes in order."""

from __future__ import annotations

import ast as py
import functools
import gc
import itertools
from collections.abc import Iterator
from contextlib import contextmanager

import attrs

from .. import ast, runtime
from ..checker import Checker
from ..diagnostics import Diagnostic, RulesError
from ..model import ANY, Type
from . import pytree as t
from .actions import ActionCompiler
from .expressions import ExpressionCompiler
from .flow import FlowCompiler
from .folding import fold_constants
from .layout import LayoutCompiler
from .nones import NoneSafeAttributes
from .program import ActionInfo, Env, Program
from .rewrites import (
    STATE_ALIASES,
    fuse_blocks,
    fused_prologues,
    group_by_first,
    prologue,
    read_arguments,
    reads_state,
    state_aliases,
)
from .scoring import ScoringCompiler
from .statements import StatementCompiler

PASS = "pass"
MAX_INLINED_NODES = 600  # syntax nodes of a def's body (with the defs it pastes in), at most, to paste it


class Compiler(LayoutCompiler, StatementCompiler, ActionCompiler, ScoringCompiler, ExpressionCompiler,
               NoneSafeAttributes, FlowCompiler):
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
        self._label_ns: dict | None = None
        self._labels_made: dict[tuple, str] = {}  # (kind, attribute values) -> label
        self._setup_ns: dict | None = None
        self.precomputed: list[py.FunctionDef] = []  # functions listing the state-free legal arguments
        self.precomputed_aid: list[int] = []  # the action each of them lists
        self.trigger_stack: list[ast.TriggerDecl] = []  # triggers being inlined, to refuse cycles
        self.grouped: set[int] = set()  # precomputed lists grouped by their first argument
        self.action_tables: dict[int, list[list]] = {}  # action -> its arguments' values, for ACT_<aid>
        self.lazy_tables: set[int] = set()  # actions whose ACT_<aid> is filled a row at a time
        self.options = options
        self.blocks: list[list[py.stmt]] = []
        self.cur: int = -1
        self.out: list[py.stmt] = []  # where emit() puts the next statement
        self.fresh = itertools.count()
        self.n_locals = 0
        self.statements_compiled = 0  # see count_statement: the code made is bounded
        self.def_sizes: dict[str, int] = {}  # see inlined_size
        self.memo: dict = {}
        self.line_map: dict[int, ast.Pos] = {}
        self.operand_map: dict[tuple[int, int], tuple] = {}  # (line, column) -> an operation's operands
        self.decision_pos: dict[int, ast.Pos] = {}  # resume block -> the decision's statement
        self.decision_prompt: dict[int, str] = {}  # resume block -> the decision's prompt, if it has one
        self.slot_types: list[Type] = []  # per persistent local: what it holds ("resume": a block)
        self.slot_scope: dict[int, tuple[int, int]] = {}  # local -> blocks [first, end) where it is set
        self.where: ast.Pos | None = None  # the rule being compiled, for what Python refuses
        self.log_templates: list = []
        # the generator back end's bookkeeping (compiler/flow.py): the numbers the block machine
        # gave each statement, in order; while the generators are compiled, the ones left to take
        self.site_numbers: dict[int, list[int]] = {}
        self.direct_numbers: dict[int, dict[int, list[int]]] = {}  # per act_N: its log statements' numbers
        self.compiling_direct: int | None = None  # the action whose act_N is being compiled
        self.replayed_sites: dict[int, list[int]] | None = None
        self.inlining: dict[int, list[int]] | None = None  # an act_N's numbers, while its effects are pasted in
        self.live_kinds: set[str] = set()  # kinds whose label reads properties (compile_live_labels)

    # --- blocks -----------------------------------------------------------------------
    def new_block(self) -> int:
        self.blocks.append([])
        return len(self.blocks) - 1

    def scoped(self, slots: list[t.Code], first: int) -> None:
        """The locals `slots` are set whenever the flow stands in blocks [first, now): a
        restored state standing there must hold a value in each."""
        for code in slots:
            if t.is_slot(code):
                self.slot_scope[code.slice.value] = (first, len(self.blocks))

    def start(self, b: int) -> None:
        self.cur = b
        self.out = self.blocks[b]

    def emit(self, stmt: py.stmt, pos: ast.Pos | None = None) -> py.stmt:
        """Put a statement where the compiler stands, made for the rule at `pos`."""
        self.out.append(t.at(stmt, pos))
        return stmt

    @contextmanager
    def into(self, body: list[py.stmt]) -> Iterator[None]:
        """Emit into `body` (a compound statement's) for a while."""
        saved = self.out
        self.out = body
        try:
            yield
        finally:
            self.out = saved

    def slot(self, kind: Type = ANY) -> t.Code:
        """A new persistent local `L[k]`; its kind lets a restored state be checked."""
        self.n_locals += 1
        self.slot_types.append(kind)
        return t.sub("L", self.n_locals - 1)

    # --- compile all -------------------------------------------------------------------
    def compile(self) -> Program | None:
        try:
            with collector_paused():
                return self.compile_all()
        except (SyntaxError, RecursionError, MemoryError) as err:  # rules nested deeper than Python copes with
            raise RulesError([self.too_complex(err)], self.ck.sources) from None

    def compile_all(self) -> Program | None:
        self.comp_attrs = []
        self.layout()
        self.build_components()
        self.live_src = self.compile_live_labels()
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
        self.emit(t.pass_())
        flow = self.m.flow
        end = self.compile_body(flow.body, Env(), entry) if flow else entry
        self.start(end)
        self.emit(t.assign(t.attr("st", "over"), t.const(True)))
        self.emit(t.ret(-2))
        self.direct_src: list[py.FunctionDef] = []
        self.reentrant = self.reentrant_actions()
        self.entries: list[tuple[int, list[py.stmt]]] = []  # (action id, entry function's first statements)
        for info in self.actions[1:]:
            self.compile_action(info)
        legal_src = [self.compile_legal(info) for info in self.actions]
        legal_src += [self.compile_point_legal(i, opts) for i, opts in enumerate(self.points)]
        label_src = [self.compile_action_label(info) for info in self.actions]
        label_src += [self.compile_public_label(info) for info in self.actions
                      if info.decl is not None and info.decl.secret]
        label_src += [self.compile_visibility(i, cond) for i, cond in enumerate(self.vis_conds)]
        label_src += [f for i, inv in enumerate(self.m.invariants) for f in self.compile_invariant(i, inv)]
        label_src += [self.compile_measure(i, m) for i, m in enumerate(self.m.measures.values())]
        label_src += list(self.live_src.values())
        score_src = [self.compile_scoring(s) for s in self.m.scorings.values()]
        rank_src = self.compile_ranking()
        module = self.assemble(legal_src, label_src, score_src, rank_src)
        code = self.python(module)
        if self.check_only:  # every setup value and table was worked out, Python took the code
            return None
        return self.link(module, code, label_src)

    def python(self, module: py.Module):
        """Python's own compile() of the generated module's tree; what it refuses (code nested
        deeper than it allows) is reported at the rules line that made that code."""
        try:
            return compile(module, "<ruleforge:rules>", "exec")
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

    def assemble(self, legal_src, label_src, score_src, rank_src) -> py.Module:
        """The generated module's tree; fills the line map (generated line -> rules position)."""
        parts: list[py.stmt] = list(self.defs_src)
        bodies = [body if body and isinstance(body[-1], py.Return)
                  else body + [t.raise_(t.call("AssertionError", t.const("fell off the end of a block")))]
                  for body in self.blocks]
        # entry functions ride along as extra blocks, so fusion pastes their first block in
        fused = fuse_blocks(bodies + [head for _, head in self.entries])
        heads = fused_prologues(bodies, fused[:len(bodies)], *STATE_ALIASES)
        for i, ((body, _), head) in enumerate(zip(fused, heads)):
            parts.append(t.function(f"b{i}", ["st"], head + body))
        for (aid, head), (body, _) in zip(self.entries, fused[len(bodies):]):
            info = self.actions[aid]
            params = [f"a_{q.name}" for q in info.decl.params]
            slots = {info.me_slot: "me", **dict(zip(info.param_slots, params))}
            body = t.clone(body)  # its own: reading the arguments changes expressions that blocks share
            body = body[:len(head) - 1] + read_arguments(body[len(head) - 1:], slots)
            parts.append(t.function(f"enter_{aid}", ["st", "me", *params], prologue(body, *STATE_ALIASES) + body))
        parts += legal_src + label_src + score_src + self.direct_src + self.precomputed + rank_src
        module = fold_constants(py.Module(parts, []))
        self.line_map.update(t.number_lines(module, self.operand_map))
        return module

    def link(self, module: py.Module, code, label_src) -> Program:
        """Run the compiled module and gather its functions and tables into a Program."""
        ns = self.base_namespace()
        ns["LBL"] = self.comp_label
        ns["ZKEY"] = [z.key for z in self.zones]  # a zone in a text: `hand(P1)`, `board(P1)[2,3]`
        ns["LOGT"] = self.log_templates
        ns["LIVE"] = live = []  # filled once the module has made the label functions
        ns["PRE"] = pre = []
        ns["FIRED"] = [0] * len(self.m.triggers)
        for aid, choices in self.action_tables.items():
            if aid in self.lazy_tables:
                ns[f"ACT_{aid}"] = rows = dict.fromkeys(choices[0])
                ns[f"ACT_ROW_{aid}"] = functools.partial(runtime.ready_when_listed, rows, aid, choices)
            else:
                ns[f"ACT_{aid}"] = runtime.ready_actions(aid, choices)
        exec(code, ns)  # noqa: S102 - a tree the compiler built; texts of the rules are constants in it
        live.extend(ns[self.live_src[kind].name] if kind in self.live_src else None for kind in self.comp_kind)
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
            players=self.n, model=self.m, module=module, namespace=ns, blocks=blocks,
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
            operand_map=self.operand_map,
            option_names=self.option_names, option_values=self.option_values, compiler=self,
            public_label_funcs=[ns.get(f"public_label_{i}") for i in range(len(self.actions))],
            state_labels=[any(reads_state(s) for s in label_src[i].body[len(state_aliases()):])
                          for i in range(len(self.actions))],
            vis_funcs=[ns[f"visible_{i}"] for i in range(len(self.vis_conds))],
            invariants=[(inv.pos, inv.player is not None, ns[f"invariant_{i}"], ns[f"invariant_text_{i}"])
                        for i, inv in enumerate(self.m.invariants)],
            measures=[(m.label, m.pos, ns[f"measure_{i}"]) for i, m in enumerate(self.m.measures.values())],
            action_params=[self.param_kinds(info) for info in self.actions],
            decision_pos=self.decision_pos, decision_prompt=self.decision_prompt,
            plain_actions=len(self.action_tables) < len(self.actions),
            slot_types=self.slot_types, slot_scope=self.slot_scope,
            live_labels=live if self.live_src else [],
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
            kind = self.ck.types.get(q.domain)
            if kind is not None and kind.kind == "list" and kind.element is not None:
                kind = kind.element
            elif kind is not None and kind.kind in ("zone", "grid"):
                kind = Type("comp")
            kinds.append((q.name, kind.kind if kind is not None else "any"))
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
        key = (kind, tuple((name, repr(value)) for name, value in attrs_.items()))
        label = self._labels_made.get(key)
        if label is None:
            label = self._labels_made[key] = self._make_label(kind, attrs_)
        return label

    def compile_live_labels(self) -> dict[str, py.FunctionDef]:
        """Per kind whose label reads changeable properties: a function `(st, c) -> text`
        that renders it from the state when it is shown. Labels of attributes only are
        worked out once, when the game is built (`component_label`); no rule pays for these."""
        out = {}
        for i, (kind, info) in enumerate(self.m.kinds.items()):
            if info.decl.label is None:
                continue
            env = Env({name: t.sub(f"A_{name}", "c") for name in info.attrs})
            for p in info.props:
                env.names[p] = t.sub(t.sub("P", self.prop_index[p]), "c")
            self.where = info.decl.label.pos
            code = self.cx_text(info.decl.label, env)
            if reads_state(code):
                self.live_kinds.add(kind)
                out[kind] = t.function(f"kind_label_{i}", ["st", "c"], state_aliases() + [t.ret(code)])
        return out

    def _make_label(self, kind: str, attrs_: dict) -> str:
        info = self.m.kinds[kind]
        if info.decl.label is None:
            shown = ", ".join(f"{k}: {runtime.show(v)}" for k, v in attrs_.items() if v not in (None, False))
            return f"{kind}({shown})" if shown else kind
        env = Env({name: t.literal_code(value) for name, value in attrs_.items()})
        for p in info.props:  # a label that reads them is named as it reads at the start
            default = info.props[p].default if kind in self.live_kinds else None
            env.names[p] = t.literal_code(self.eval_const(default)) if default is not None else t.const(None)
        code = self.cx_text(info.decl.label, env)
        if self._label_ns is None:
            self._label_ns = self.base_namespace()
        return eval(t.compile_expression(code), self._label_ns)  # noqa: S307 - a tree the compiler built

    # --- defs -------------------------------------------------------------------------------
    def worth_inlining(self, name: str) -> bool:
        """A def is pasted where it is called unless its code would be large: defs each calling
        the one before twice would otherwise double the code at each step."""
        return self.inlined_size(name) <= MAX_INLINED_NODES

    def inlined_size(self, name: str) -> int:
        """The nodes of a def's body with the defs it calls pasted in where they would be."""
        if name not in self.def_sizes:
            self.def_sizes[name] = MAX_INLINED_NODES + 1  # (defs cannot call themselves; be safe)
            self.def_sizes[name] = self._expanded_size(self.m.defs[name].body)
        return self.def_sizes[name]

    def _expanded_size(self, e) -> int:
        size = 0
        todo = [e]
        while todo:
            x = todo.pop()
            size += 1
            if isinstance(x, (ast.Name, ast.Call)) and self.ck.res.get(x, ("",))[0] == "def":
                callee = x.ident if isinstance(x, ast.Name) else x.func
                size += self.inlined_size(callee) if self.worth_inlining(callee) else 1
            for field in attrs.fields(type(x)):
                value = getattr(x, field.name)
                for item in value if isinstance(value, tuple) else (value,):
                    if isinstance(item, (ast.Expr, ast.TableEntry)):
                        todo.append(item)
                    elif isinstance(item, tuple):
                        todo.extend(y for y in item if isinstance(y, ast.Expr))
        return size

    def compile_def(self, d: ast.DefDecl) -> py.FunctionDef:
        self.where = d.pos
        env = Env({p.name: f"a_{p.name}" for p in d.params})
        env.nullable = {p.name for p in d.params if self.ck.resolve_type(p.type).kind == "comp"}  # any caller's value
        body = self.cx(d.body, env)
        return t.function(f"d_{d.name}", ["st", *(f"a_{p.name}" for p in d.params)],
                          state_aliases() + [t.ret(body)])


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector off while a program is compiled: the compiler makes some
    hundred thousand nodes, none in a cycle, and the collector would walk every live one again
    and again (a quarter of the time). Its limits on code made bound the memory this leaves
    to the collector, which runs again as soon as compiling ends."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


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


def _zero(kind: Type):
    return {"int": 0, "flag": False, "text": ""}.get(kind.kind)
