"""Checked rules to generated Python: one module per player count, compiled once.

Expressions become Python expressions; statements become small functions ("blocks"),
each returning the index of the next block. A decision point ends a block, so the
whole position of a running game is an index and a few lists: nothing walks the
syntax tree while a game runs, and a state clones and saves as plain data.
Generated lines carry `# file:line` comments, so a runtime error can name its rule.
"""

from __future__ import annotations

import ast as pyast
import itertools
import math
import re

import attrs

from . import ast, runtime, sizes
from .checker import Checker, sub_blocks
from .codegen import (
    CHEAP,
    CONSTANT,
    SIMPLE,
    as_list,
    cell_index,
    conjuncts,
    count_names,
    count_vs_zero,
    fixed_range,
    fuse_blocks,
    group_by_first,
    hoist_grid_reads,
    narrow_by_attribute,
    nest_guards,
    placement,
    prologue,
    read_arguments,
    reads_state,
    stateless,
    uses,
    zone_count_vs_zero,
)
from .diagnostics import Diagnostic, RulesError
from .limits import LIMITS, describe
from .model import ANY, INT, PLAYER, ZONE, Model, Type, element_of, list_of

PASS = "pass"
UNROLLED = ("count", "any", "every", "sum")  # generators written out term by term when short
MAX_UNROLLED = 10
MAX_UNROLLED_CODE = 400  # characters of the item and condition copied per value


@attrs.define
class ZoneInfo:
    """One zone instance: a shared zone, one player's zone, or one cell of a grid."""

    name: str
    owner: int | None
    visibility: str
    shape: str
    row: int | None = None  # 1-based, for a grid's cells
    column: int | None = None
    rules: tuple = ()  # (visibility, index of its condition function or None)
    capacity: int | None = None  # `size N` on a pile, hand or row: at most N components

    @property
    def key(self) -> str:
        text = self.name if self.owner is None else f"{self.name}(P{self.owner + 1})"
        return text if self.row is None else f"{text}[{self.row},{self.column}]"


@attrs.define
class ActionInfo:
    name: str
    decl: ast.ActionDecl | None
    me_slot: int = -1
    param_slots: list = attrs.Factory(list)
    entry: int = -1
    limits: list = attrs.Factory(list)  # [(times, scope)]
    slot_end: int = -1
    ret_slot: int = -1  # where a run that cannot meet itself keeps its return block (else: a frame)


@attrs.define
class Program:
    """A compiled game for one player count: generated functions and layout tables."""

    players: int
    model: Model
    source: str
    namespace: dict
    blocks: list
    zones: list[ZoneInfo]
    zone_base: dict[str, int]
    var_base: dict[str, int]
    var_names: list[tuple[str, int | None]]
    var_kinds: list[str]
    props: list[str]
    comp_kind: list[str]
    comp_label: list[str]
    comp_start: list[int]
    actions: list[ActionInfo]
    action_ids: dict[str, int]
    legal_funcs: list
    point_legal: dict  # action set offered by a decision -> its legal actions, in one function
    label_funcs: list
    items: list[tuple[str, str]]  # (scoring, item label)
    scorings: dict[str, tuple[int, int]]  # name -> (first item index, count)
    score_funcs: dict[str, object]
    log_templates: list
    var_init: list
    prop_init: list
    n_locals: int
    rank_func: object
    line_map: dict[int, ast.Pos]
    option_names: list[str]
    option_values: list
    compiler: object = None
    public_label_funcs: list = attrs.Factory(list)  # per action: what others see, if secret
    vis_funcs: list = attrs.Factory(list)  # conditions of `visible ... if cond`
    initial: object = None  # the state before the flow starts, made by the engine on first use
    state_labels: list = attrs.Factory(list)  # per action: its label reads the state (log it as text)
    # per action, what applying it needs, in one tuple (the engine's hot path unpacks it):
    # (label reads the state, its entry function `enter(st, me, *args) -> next block`, limits)
    apply_records: list = attrs.Factory(list)
    decision_pos: dict = attrs.Factory(dict)  # block resuming after a decision -> its choose/turn statement
    slot_types: list = attrs.Factory(list)  # per persistent local (`st.l`): the type of what it holds
    slot_scope: dict = attrs.Factory(dict)  # local -> the blocks [first, end) where it always holds a value


class _Env:
    """Local names visible to generated code, and how to reach each one."""

    def __init__(self, names: dict | None = None, me: str | None = None, types: dict | None = None):
        self.names = dict(names or {})
        self.me = me
        self.types = dict(types or {})  # an inlined def's parameters: the arguments' own types

    def child(self) -> _Env:
        return _Env(self.names, self.me, self.types)


class Compiler:
    def __init__(self, checker: Checker, players: int, options: dict, extras: tuple[str, ...] = ()):
        self.ck = checker
        self.m = checker.model
        self.n = players
        self.extras = extras
        self.check_only = False
        self.in_iterable = 0  # > 0 while compiling a generator's source: no `:=` allowed there
        self.tables: list[tuple] = []  # constant step tables, looked up by table_lookup
        self.points: list[tuple[int, ...]] = []  # the action sets that decisions offer
        self.files: list[str] = []  # rules files named by position tags
        self._label_ns: dict | None = None
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

    # --- layout ---------------------------------------------------------------------
    def layout(self) -> None:
        m, n = self.m, self.n
        self.zones: list[ZoneInfo] = []
        self.zone_base: dict[str, int] = {}
        self.grid_size: dict[str, tuple[int, int]] = {}
        self.vis_conds: list[ast.Expr] = []
        self._setup_state = _SetupState([])
        for z in m.zones.values():
            self.zone_base[z.name] = len(self.zones)
            owners = range(n) if z.per_player else [None]
            rules = []
            for vis, row, cond in z.rules:
                rules.append((vis, row, None if cond is None else len(self.vis_conds)))
                if cond is not None:
                    self.vis_conds.append(cond)
            if z.shape == "grid":
                rows, cols = self.grid_dimensions(z)
                self.grid_size[z.name] = (rows, cols)
                self.count_zones(z, rows * cols * len(owners))
                for o in owners:
                    for r in range(1, rows + 1):
                        for k in range(1, cols + 1):
                            mine = tuple((v, c) for v, row, c in rules if row is None or row == r)
                            self.zones.append(ZoneInfo(z.name, o, z.visibility, "cell", r, k, mine))
            else:
                mine = tuple((v, c) for v, _row, c in rules)
                capacity = self.capacity(z)
                self.count_zones(z, len(owners))
                for o in owners:
                    self.zones.append(ZoneInfo(z.name, o, z.visibility, z.shape, rules=mine, capacity=capacity))
        self.var_base: dict[str, int] = {}
        self.var_names: list = []
        self.var_kinds: list[str] = []
        for v in m.vars.values():
            self.var_base[v.name] = len(self.var_names)
            kind = self.ck.resolve_type(v.type).kind
            for o in (range(n) if v.per_player else [None]):
                self.var_names.append((v.name, o))
                self.var_kinds.append(kind)
        if m.end_rules:  # the flags `end when` rules keep, after the declared variables
            self.end_base = len(self.var_names)
            self.var_names += [("ending", None), ("finished", None), ("last turn", None)]
            self.var_kinds += ["flag", "flag", "player"]
        self.props = [name for name, (t, mut) in m.attr_types.items() if mut]
        self.prop_index = {p: i for i, p in enumerate(self.props)}
        self.items: list[tuple[str, str]] = []
        self.scoring_index: dict[str, tuple[int, int]] = {}
        for s in m.scorings.values():
            points = [item for item in s.items if isinstance(item, ast.ScoreItem)]
            self.scoring_index[s.name] = (len(self.items), len(points))
            self.items.extend((s.name, item.label) for item in points)
        self.option_names = list(m.options)
        self.option_index = {o: i for i, o in enumerate(self.option_names)}
        self._setup_state = _SetupState([])
        values = []
        for name, decl in m.options.items():
            values.append(self.options[name] if name in self.options else self.eval_const(decl.default))
        self.option_values = values
        self._setup_state = _SetupState(values)

    # --- sizes, checked before anything is allocated -------------------------------------
    def refuse(self, problem: Diagnostic | None) -> None:
        if problem is not None:
            raise RulesError([problem], self.ck.sources)

    def grid_dimensions(self, z: ast.ZoneDecl) -> tuple[int, int]:
        """A grid's rows and columns for this player count, within the limits."""
        rows, cols = (int(self.eval_const(x)) for x in z.size)
        self.refuse(sizes.grid_problem(z, rows, cols, self.with_players(*z.size)))
        return rows, cols

    def capacity(self, z: ast.ZoneDecl) -> int | None:
        """The `size N` of a pile, hand or row: how many components it may hold."""
        if not z.size:
            return None
        capacity = int(self.eval_const(z.size[0]))
        self.refuse(sizes.capacity_problem(z, capacity, self.with_players(z.size[0])))
        return capacity

    def count_zones(self, z: ast.ZoneDecl, more: int) -> None:
        self.refuse(sizes.zones_problem(z, len(self.zones) + more, self.n))

    def count_components(self, e: ast.ComponentEntry, more: int) -> None:
        note = self.with_players(e.copies, *(v for _, v, _ in e.args))
        self.refuse(sizes.components_problem(e, more, len(self.comp_kind) + more, self.n, note))

    def with_players(self, *exprs: ast.Expr | None) -> str:
        """`` with 5 players`` when a size depends on the player count (or an option)."""
        return f" with {self.n} players" if any(e is not None and self.varies(e) for e in exprs) else ""

    def varies(self, e: ast.Expr) -> bool:
        """Whether a setup-time expression may read the player count or an option."""
        if isinstance(e, ast.Name):
            kind = self.ck.res.get(e, ("",))[0]
            return e.ident == "player_count" or kind in ("option", "def")
        return isinstance(e, ast.Call) or any(self.varies(x) for x in _children(e))

    def eval_const(self, e: ast.Expr, extra: dict | None = None):
        """Evaluate a setup-time expression (player count, options, literals)."""
        code = self.cx(e, _Env())
        if self._setup_ns is None or self._setup_ns["st"] is not self._setup_state:
            # setup values read no zones or components, so one namespace serves them all
            self._setup_ns = {"st": self._setup_state, **self.base_namespace()}
        ns = dict(self._setup_ns, **extra) if extra else self._setup_ns
        try:
            return eval(code, ns)  # noqa: S307 - our own generated code
        except Exception as err:  # e.g. a var read during setup, or a table with no entry
            message = f"cannot work this out when the game is set up ({self.n} players): {err}"
            raise RulesError([Diagnostic(e.pos, message)], self.ck.sources) from None

    def build_components(self) -> None:
        """Instantiate the component list for this player count, in declaration order."""
        m = self.m
        self.comp_kind: list[str] = []
        self.comp_attrs: list[dict] = []
        self.comp_start: list[int] = []
        self.comp_owner: list[int | None] = []
        for e in m.components:
            if e.cond is not None and not self.eval_const(e.cond):
                continue
            copies = self.eval_const(e.copies) if e.copies is not None else 1
            info = m.kinds[e.kind]
            names = [name for name, _, _ in e.args]
            values = [self.eval_const(value) for _, value, _ in e.args]
            # a range's length from its ends: len() of one longer than a machine word fails
            combinations = math.prod(max(0, v.stop - v.start) if isinstance(v, range) else 1 for v in values)
            self.count_components(e, max(0, copies) * combinations * (self.n if e.each_player else 1))
            choices = [list(v) if isinstance(v, range) else [v] for v in values]
            defaults = {}
            for attr in info.decl.attrs:
                if attr.default is not None:
                    defaults[attr.name] = self.eval_const(attr.default)
                else:
                    defaults[attr.name] = False if self.m.attr_types[attr.name][0].kind == "flag" else None
            owners = range(self.n) if e.each_player else [0]
            for owner in owners:
                for combo in itertools.product(*choices):
                    for _ in range(copies):
                        values = dict(defaults)
                        values.update(zip(names, combo))
                        self.comp_kind.append(e.kind)
                        self.comp_attrs.append(values)
                        self.comp_owner.append(owner if e.each_player else None)
                        self.comp_start.append(self.zone_base[e.zone] + owner)

    def base_namespace(self) -> dict:
        ns = {
            "rt": runtime, "LIMITS": LIMITS, "move": runtime.move, "move_all": runtime.move_all,
            "move_list": runtime.move_list, "move_top": runtime.move_top, "deal": runtime.deal,
            "shuffle": runtime.shuffle, "rand_choice": runtime.rand_choice,
            "swap_zones": runtime.swap_zones, "swap_components": runtime.swap_components,
            "reveal_zone": runtime.reveal_zone, "reveal_component": runtime.reveal_component,
            "index_in_zone": runtime.index_in_zone, "show": runtime.show,
            "_last": runtime.last, "_first": runtime.first,
            "pop_frame": runtime.pop_frame, "split_by": runtime.split_by, "counts_as_value": runtime.counts_as_value,
            "counted_as": runtime.counted_as,
            "grid_items": runtime.grid_items, "cell_at": runtime.cell_at, "groups": runtime.groups,
            "arg_best": runtime.arg_best, "product": itertools.product,
            "table_lookup": runtime.table_lookup, "TBL": self.tables, "ONCE": (0,),
            "GROUPS": {},  # connected groups already worked out, by the cells they cover
            "KIND": tuple(getattr(self, "comp_kind", ())),
            "CS": self.counts_static(), "CP": self.counts_props(),
            "ROW": tuple(z.row for z in getattr(self, "zones", ())),
            "COL": tuple(z.column for z in getattr(self, "zones", ())),
            "ADJ": self.adjacency(),
            "ZOWNER": tuple(z.owner for z in getattr(self, "zones", ())),
            "ZNAME": tuple(z.name for z in getattr(self, "zones", ())),
            "ZKEY": tuple(z.key for z in getattr(self, "zones", ())),  # for messages: hand(P1)
            "CAP": tuple(z.capacity for z in getattr(self, "zones", ())), "room": runtime.room,
            "OWNER": tuple(getattr(self, "comp_owner", ())),
            "PLAYERS": tuple(range(self.n)),
            "ROT": tuple(tuple((s + i) % self.n for i in range(self.n)) for s in range(self.n)),
        }
        for attr_name in self.m.attr_types:
            ns[f"A_{attr_name}"] = [a.get(attr_name) for a in getattr(self, "comp_attrs", [])]
        return ns

    def counts_static(self) -> tuple:
        """Per component: the values its kind's `counts as` attributes hold (lists flattened)."""
        out = []
        for kind, values in zip(getattr(self, "comp_kind", ()), getattr(self, "comp_attrs", ())):
            found: list = []
            for name, _pos in self.m.kinds[kind].decl.counts_as:
                if name in values:
                    v = values[name]
                    for x in (v if isinstance(v, (list, tuple, range)) else [v]):
                        if x is not None and x not in found:
                            found.append(x)
            out.append(tuple(found))
        return tuple(out)

    def counts_props(self) -> tuple:
        """Per component: the indexes of the changeable properties its kind counts as."""
        index = {name: i for i, name in enumerate(getattr(self, "props", ()))}
        return tuple(tuple(index[name] for name, _pos in self.m.kinds[kind].decl.counts_as if name in index)
                     for kind in getattr(self, "comp_kind", ()))

    def uniform_counts_props(self) -> tuple | None:
        """The properties `is` must look at, if they are the same for every component."""
        union = sorted({k for props in self.counts_props() for k in props})
        for kind, props in zip(getattr(self, "comp_kind", ()), self.counts_props()):
            declared = self.m.kinds[kind].props
            if any(k not in props and self.props[k] in declared for k in union):
                return None  # a kind has the property without counting as it
        return tuple(union)

    def adjacency(self) -> tuple:
        """For each zone index: the orthogonally adjacent cells of the same grid instance."""
        zones = getattr(self, "zones", ())
        index = {(z.name, z.owner, z.row, z.column): i for i, z in enumerate(zones) if z.row is not None}
        out = []
        for z in zones:
            if z.row is None:
                out.append(())
                continue
            near = []
            for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0)):
                j = index.get((z.name, z.owner, z.row + dr, z.column + dc))
                if j is not None:
                    near.append(j)
            out.append(tuple(near))
        return tuple(out)

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
        end = self.compile_body(flow.body, _Env(), entry) if flow else entry
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
        pos = self.where or ast.Pos(self.ck.decls[0].pos.file if self.ck.decls else "<rules>", 0, 0)
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
            var_kinds=self.var_kinds,
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
            decision_pos=self.decision_pos, slot_types=self.slot_types, slot_scope=self.slot_scope,
        )
        program.apply_records = [
            (program.state_labels[aid], ns.get(f"act_{aid}") or ns.get(f"enter_{aid}") or _stay,
             tuple(self.actions[aid].limits)) for aid in range(len(self.actions))]
        return program

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
        kind = self.comp_kind[c]
        info = self.m.kinds[kind]
        attrs_ = self.comp_attrs[c]
        if info.decl.label is None:
            shown = ", ".join(f"{k}: {v}" for k, v in attrs_.items() if v not in (None, False))
            return f"{kind}({shown})" if shown else kind
        env = _Env({name: repr(value) for name, value in attrs_.items()})
        for p in info.props:
            env.names[p] = "None"
        code = self.cx_text(info.decl.label, env)
        if self._label_ns is None:
            self._label_ns = self.base_namespace()
        return eval(code, self._label_ns)  # noqa: S307

    # --- defs -------------------------------------------------------------------------------
    def compile_def(self, d: ast.DefDecl) -> str:
        self.where = d.pos
        env = _Env({p.name: f"a_{p.name}" for p in d.params})
        params = "".join(f", a_{p.name}" for p in d.params)
        body = self.cx(d.body, env)
        return f"def d_{d.name}(st{params}):\n    Z = st.z; V = st.v; P = st.p\n    return {body}"

    # --- which statements may stop for a decision ------------------------------------------------
    def suspends(self, stmts) -> bool:
        return any(self.stmt_suspends(s) for s in stmts)

    def stmt_suspends(self, s: ast.Stmt) -> bool:
        """Whether a statement may stop for a decision (so it must be split into blocks)."""
        if isinstance(s, (ast.Choose, ast.EndGame)):
            return True
        if isinstance(s, ast.CallPhase):
            if s.name not in self.memo:
                self.memo[s.name] = False
                self.memo[s.name] = self.suspends(self.m.phases[s.name].body)
            return self.memo[s.name]
        if isinstance(s, ast.Move):
            return any(self.trigger_suspends(t) for t in self.triggers_for(s))
        return any(self.suspends(b) for b in sub_blocks(s))

    def trigger_suspends(self, t: ast.TriggerDecl) -> bool:
        key = ("trigger", id(t))
        if key not in self.memo:
            self.memo[key] = False  # a trigger's own moves may fire it again: assume not, then look
            self.memo[key] = self.suspends(t.body)
        return self.memo[key]

    def triggers_for(self, s: ast.Move) -> list[ast.TriggerDecl]:
        """The triggers a move may fire, as far as the destination's zone is known statically."""
        if not self.m.triggers:
            return []
        dest = self.ck.types.get(s.dest)
        known = dest.name if dest is not None and dest.kind == "zone" else ""
        # Moving a zone's contents (or its top N), the source zone is known too.
        what = self.ck.types.get(s.what)
        source = what.name if what is not None and what.kind in ("zone", "grid") else ""
        out = []
        for t in self.m.triggers:
            if t.event == "enter" and known and known != t.zone:
                continue
            if t.event == "enter" and t.other and source and source != t.other:
                continue
            if t.event == "leave" and source and source != t.zone:
                continue
            if t.event == "leave" and t.other and known and known != t.other:
                continue
            out.append(t)
        return out

    def trigger_condition(self, t: ast.TriggerDecl, src: str, dst: str) -> str:
        here, there = (dst, src) if t.event == "enter" else (src, dst)
        cond = f"ZNAME[{here}] == {t.zone!r} and {src} != {dst}"
        if t.other:
            cond += f" and ZNAME[{there}] == {t.other!r}"
        return cond

    def trigger_env(self, t: ast.TriggerDecl, env: _Env, it: str, src: str, dst: str) -> _Env:
        """`it` is the moved component; `me` the owner of the zone concerned (or the mover)."""
        inner = _Env({}, env.me)
        inner.names["it"] = it
        if self.m.zones[t.zone].per_player:
            inner.names["me"] = f"ZOWNER[{dst if t.event == 'enter' else src}]"
        else:
            inner.names["me"] = env.me or "None"
        inner.me = inner.names["me"]
        return inner

    def compile_triggered_move(self, s: ast.Move, env: _Env, triggers: list, persistent: bool) -> None:
        """A move that may fire triggers: one component at a time, each trigger right after it."""
        for t in triggers:
            if t in self.trigger_stack:
                raise RulesError([Diagnostic(t.pos, "this trigger may fire itself through its own moves",
                                             "narrow it with 'from' / 'into', or move to a zone it does not watch")],
                                 self.ck.sources)
        self.trigger_stack.extend(triggers)
        try:
            self._compile_triggered_move(s, env, triggers)
        finally:
            del self.trigger_stack[-len(triggers):]

    def _compile_triggered_move(self, s: ast.Move, env: _Env, triggers: list) -> None:
        e = self.emit
        kind = self.ck.types[s.what].kind
        suspending = any(self.trigger_suspends(t) for t in triggers)
        if (kind != "comp" or s.top is not None) and suspending:
            raise RulesError([Diagnostic(s.pos, "a move of several components fired a trigger that makes a "
                                         "decision", "move the components one at a time")], self.ck.sources)
        bottom = ", True" if s.at_bottom else ""
        if kind != "comp" or s.top is not None:  # several components, no decision: a plain loop
            k = next(self.fresh)
            # the top N, top first; `max` so that N = 0 (or less) moves nothing, as move_top does
            items = (f"Z[{self.cx(s.what, env)}][::-1][:max(0, {self.cx(s.top, env)})]" if s.top is not None
                     else f"list({self.cx_iter(s.what, env)})")
            if s.at_bottom and s.top is None:
                items += "[::-1]"  # one at a time under the pile: the last first keeps the group's order
            e(f"_d{k} = {self.cx(s.dest, env)}", s.pos)
            e(f"for _c{k} in {items}:")
            self.indent += 1
            e(f"_s{k} = st.w[_c{k}]")
            e(f"move(st, _c{k}, _d{k}{bottom})")
            self.check_capacity(s.dest, f"_d{k}")
            for t in triggers:
                e(f"if {self.trigger_condition(t, f'_s{k}', f'_d{k}')}:")
                self.plain_block(t.body, self.trigger_env(t, env, f"_c{k}", f"_s{k}", f"_d{k}"))
            self.indent -= 1
            return
        c, src, dst = (self.slot(Type("comp")), self.slot(ZONE), self.slot(ZONE)) if suspending else \
            tuple(f"_{x}{next(self.fresh)}" for x in "csd")
        e(f"{c} = {self.cx(s.what, env)}; {dst} = {self.cx(s.dest, env)}; {src} = st.w[{c}]", s.pos)
        e(f"move(st, {c}, {dst}{bottom})")
        self.check_capacity(s.dest, dst)
        for t in triggers:
            cond = self.trigger_condition(t, src, dst)
            inner = self.trigger_env(t, env, c, src, dst)
            if not self.trigger_suspends(t):
                e(f"if {cond}:", t.pos)
                self.plain_block(t.body, inner)
                continue
            body, after = self.new_block(), self.new_block()
            e(f"if {cond}:", t.pos)
            e(f"    return {body}")
            e(f"return {after}")
            end = self.compile_body(t.body, inner, body)
            self.start(end)
            self.emit(f"return {after}")
            self.start(after)

    # --- statements ---------------------------------------------------------------------------
    def compile_body(self, stmts, env: _Env, block: int, new_scope: bool = True) -> int:
        """Emit stmts starting in `block`; return the block where control continues."""
        env = env.child() if new_scope else env
        suspending = self.suspends(stmts)
        self.start(block)
        for s in stmts:
            block = self.compile_stmt(s, env, suspending)
        return self.cur

    def compile_stmt(self, s: ast.Stmt, env: _Env, in_suspending: bool) -> int:
        if self.stmt_suspends(s):
            self.compile_suspending(s, env)
        else:
            self.compile_plain(s, env, in_suspending)
        return self.cur

    def local(self, name: str, env: _Env, persistent: bool, kind: Type | None = None) -> str:
        code = self.slot(kind or ANY) if persistent else f"v_{name}_{next(self.fresh)}"
        env.names[name] = code
        return code

    def compile_plain(self, s: ast.Stmt, env: _Env, persistent: bool) -> None:
        """A statement with no decision inside: plain Python in the current block."""
        self.where = s.pos
        e = self.emit
        if isinstance(s, ast.Let):
            value = self.cx(s.value, env)
            target = self.local(s.name, env, persistent, self.ck.types.get(s.value))
            e(f"{target} = {value}", s.pos)
        elif isinstance(s, ast.Assign):
            e(f"{self.target(s.target, env)} {s.op} {self.cx(s.value, env)}", s.pos)
        elif isinstance(s, ast.Move) and self.triggers_for(s):
            self.compile_triggered_move(s, env, self.triggers_for(s), persistent)
        elif isinstance(s, ast.Move):
            bottom = ", True" if s.at_bottom else ""
            dest = self.cx(s.dest, env)
            if s.top is not None:
                top = self.cx(s.top, env)
                if top == "1" and not s.at_bottom:  # inline: the commonest case, one card off a pile
                    e(f"_z = Z[{self.cx(s.what, env)}]", s.pos)
                    e("if _z:")
                    e(f"    _c = _z.pop(); _d = {dest}; Z[_d].append(_c); st.w[_c] = _d")
                else:
                    e(f"move_top(st, {top}, {self.cx(s.what, env)}, {dest}{bottom})", s.pos)
            else:
                kind = self.ck.types[s.what].kind
                what = self.cx(s.what, env)
                if kind == "zone":
                    e(f"move_all(st, {what}, {dest}{bottom})", s.pos)
                elif kind == "list":
                    e(f"move_list(st, {what}, {dest}{bottom})", s.pos)
                elif s.at_bottom:
                    e(f"move(st, {what}, {dest}, True)", s.pos)
                else:  # inline: moving one component is the commonest effect of all
                    e(f"_c = {what}; _d = {dest}; W = st.w", s.pos)
                    e("Z[W[_c]].remove(_c); Z[_d].append(_c); W[_c] = _d")
            self.check_capacity(s.dest, dest)
        elif isinstance(s, ast.Deal):
            base = self.zone_base[s.zone]
            e(f"deal(st, {self.cx(s.count, env)}, {self.cx(s.source, env)}, {base}, {self.n})", s.pos)
            caps = {z.capacity for z in self.zones if z.name == s.zone}
            if caps != {None}:  # each player's zone may not hold more than its size
                e(f"for _zi in range({base}, {base + self.n}):")
                self.indent += 1
                self.emit_capacity_check("_zi", caps)
                self.indent -= 1
        elif isinstance(s, ast.Shuffle):
            e(f"shuffle(st, {self.cx(s.zone, env)})", s.pos)
        elif isinstance(s, ast.Swap):
            zones = self.ck.types[s.left].kind == "zone"
            left, right = self.cx(s.left, env), self.cx(s.right, env)
            e(f"{'swap_zones' if zones else 'swap_components'}(st, {left}, {right})", s.pos)
            if zones:  # whole contents trade places: each side must fit the other's zone
                self.check_capacity(s.left, left)
                self.check_capacity(s.right, right)
        elif isinstance(s, ast.Reveal):
            fn = "reveal_zone" if self.ck.types[s.what].kind == "zone" else "reveal_component"
            e(f"{fn}(st, {self.cx(s.what, env)}, {self.cx(s.to, env)})", s.pos)
        elif isinstance(s, ast.If):
            for i, (cond, body) in enumerate(s.branches):
                e(f"{'if' if i == 0 else 'elif'} {self.cx_test(cond, env)}:", cond.pos)
                self.plain_block(body, env)
            if s.otherwise:
                e("else:")
                self.plain_block(s.otherwise, env)
        elif isinstance(s, ast.For):
            inner = env.child()
            var = self.local(s.var, inner, False)
            source = self.cx_iter(s.source, env)
            src_type = self.ck.types.get(s.source)
            if src_type is not None and src_type.kind in ("zone", "any"):
                source = f"list({source})"  # the body may move components out of the zone
            e(f"for {var} in {source}:", s.pos)
            self.plain_block(s.body, inner)
        elif isinstance(s, ast.Repeat):
            e(f"for _ in range({self.cx(s.times, env)}):", s.pos)
            self.plain_block(s.body, env)
        elif isinstance(s, ast.While):
            # bounded, so that a loop with no decision that never ends is an error, not a hang
            e("for _ in range(LIMITS.blocks_without_decision):", s.pos)
            e(f"    if not ({self.cx_test(s.cond, env)}):")
            e("        break")
            self.plain_block(s.body, env)
            e("else:")
            e("    raise rt.EndlessLoop()", s.pos)
        elif isinstance(s, ast.RepeatUntil):
            e("for _ in range(LIMITS.blocks_without_decision):", s.pos)
            self.indent += 1
            inner = env.child()
            for x in s.body:
                self.compile_plain(x, inner, False)
            e(f"if {self.cx_test(s.cond, inner)}:")
            e("    break")
            self.indent -= 1
            e("else:")
            e("    raise rt.EndlessLoop()", s.pos)
        elif isinstance(s, ast.Turn):
            inner = self.enter_turn(s, env)
            for x in s.body:
                self.compile_plain(x, inner, True)
            self.end_of_turn(inner)
        elif isinstance(s, ast.ScoreStmt):
            first, count = self.scoring_slots(s.scoring)
            base = self.var_base[s.into]
            e("_tot = []", s.pos)
            e(f"for _p in range({self.n}):")
            e(f"    _items, _t = score_{s.scoring}(st, _p)")
            e(f"    V[{base} + _p] += _t")
            e("    _tot.append(_t)")
            e("    B = st.b; _o = _p * NITEMS")
            for j in range(count):
                e(f"    B[_o + {first + j}] += _items[{j}]")
            e(f"st.log.append(('score', {list(self.m.scorings).index(s.scoring)}, tuple(_tot)))")
        elif isinstance(s, ast.Log):
            tid = len(self.log_templates)
            parts, values = self.template(s.text, env)
            self.log_templates.append(parts)
            e(f"st.log.append(('say', {tid}, ({values})))", s.pos)
        elif isinstance(s, ast.CallPhase):
            inner = env.child()
            for x in self.m.phases[s.name].body:
                self.compile_plain(x, inner, persistent)
        else:  # pragma: no cover
            raise AssertionError(f"unexpected plain statement {s}")

    def plain_block(self, body, env: _Env) -> None:
        self.indent += 1
        inner = env.child()
        if not body:
            self.emit("pass")
        for x in body:
            self.compile_plain(x, inner, False)
        self.indent -= 1

    def check_capacity(self, dest: ast.Expr, code: str) -> None:
        """After a move: a zone with a capacity (`size N`) may not hold more."""
        if not self.may_be_limited(dest):
            return
        t = self.ck.types.get(dest)
        self.emit_capacity_check(code, {z.capacity for z in self.zones if t is not None and z.name == t.name})

    def emit_capacity_check(self, code: str, caps: set) -> None:
        """The check itself; `caps` are the capacities the zone may have (a constant if one)."""
        if len(caps) == 1 and None not in caps:  # a known zone: its capacity is a constant
            cap = caps.pop()
            self.emit(f"if len(Z[{code}]) > {cap}:")
            self.emit(f"    raise RuntimeError('zone ' + ZKEY[{code}] + ' holds at most {cap}')")
        else:
            self.emit(f"if CAP[{code}] is not None and len(Z[{code}]) > CAP[{code}]:")
            self.emit(f"    raise RuntimeError('zone ' + ZKEY[{code}] + ' holds at most ' + str(CAP[{code}]))")

    def may_be_limited(self, dest: ast.Expr) -> bool:
        """Whether a move's destination may have a capacity to check (unknown zones may)."""
        t = self.ck.types.get(dest)
        name = t.name if t is not None and t.kind == "zone" else ""
        limited = {z.name for z in self.zones if z.capacity is not None}
        return bool(limited) and (not name or name in limited)

    def end_of_turn(self, env: _Env) -> None:
        """`end when` rules, checked as each turn is over (`me` is the player whose turn it was).

        The first rule found true starts the ending; without `then after turn of P` the game
        is finished at once, with it when P's turn is over (at once if this was P's turn).
        """
        rules = self.m.end_rules
        if not rules:
            return
        e = self.emit
        ending, finished, last = (f"V[{self.end_base + i}]" for i in range(3))
        me = env.me
        e(f"if not {ending}:")
        for i, rule in enumerate(rules):
            e(f"    {'if' if i == 0 else 'elif'} {self.cx_test(rule.cond, env)}:", rule.pos)
            e(f"        {ending} = True")
            if rule.last is None:
                e(f"        {finished} = True")
            else:
                e(f"        {last} = {self.cx(rule.last, env)}")
                e(f"        if {last} == {me}:")
                e(f"            {finished} = True")
        e(f"elif not {finished} and {last} == {me}:")
        e(f"    {finished} = True")

    def enter_turn(self, s: ast.Turn, env: _Env) -> _Env:
        """A new turn (per-turn limits restart) whose player is `me` in the body."""
        self.emit("st.turn += 1", s.pos)
        inner = env.child()
        me = self.slot(PLAYER)
        inner.me = me
        inner.names["me"] = me
        self.emit(f"{me} = {self.cx(s.player, env)}")
        return inner

    def compile_suspending(self, s: ast.Stmt, env: _Env) -> None:
        """A statement containing a decision: control flow through blocks."""
        self.where = s.pos
        e = self.emit
        if isinstance(s, ast.Choose):
            ids = tuple(self.action_ids[a] for a in s.actions)
            if ids not in self.points:
                self.points.append(ids)
            nxt = self.new_block()
            self.decision_pos[nxt] = s.pos
            e(f"st.chooser = {env.me}", s.pos)
            e(f"st.options = {ids!r}")
            e(f"st.pc = {nxt}")
            e("return -1")
            self.start(nxt)
        elif isinstance(s, ast.EndGame):
            e("st.over = True", s.pos)
            e("return -2")
            self.start(self.new_block())
        elif isinstance(s, ast.CallPhase):
            phase = self.m.phases[s.name]
            nxt = self.new_block()
            e(f"return {nxt}", s.pos)
            end = self.compile_body(phase.body, env, nxt)
            self.start(end)
        elif isinstance(s, ast.Turn):
            inner = self.enter_turn(s, env)
            body = self.new_block()
            e(f"return {body}")
            end = self.compile_body(s.body, inner, body)
            self.scoped([inner.me], body)
            self.start(end)
            self.end_of_turn(inner)
        elif isinstance(s, ast.If):
            targets = []
            for i, (cond, body) in enumerate(s.branches):
                b = self.new_block()
                targets.append((b, body))
                e(f"{'if' if i == 0 else 'elif'} {self.cx_test(cond, env)}:", cond.pos)
                e(f"    return {b}")
            other = self.new_block()
            targets.append((other, s.otherwise))
            e(f"return {other}")
            after = self.new_block()
            for b, body in targets:
                end = self.compile_body(body, env, b)
                self.start(end)
                self.emit(f"return {after}")
            self.start(after)
        elif isinstance(s, (ast.For, ast.Repeat, ast.While, ast.RepeatUntil)):
            self.compile_loop(s, env)
        elif isinstance(s, ast.Move):
            self.compile_triggered_move(s, env, self.triggers_for(s), True)
        else:  # pragma: no cover
            raise AssertionError(f"unexpected suspending statement {s}")

    def compile_loop(self, s: ast.Stmt, env: _Env) -> None:
        e = self.emit
        head = self.new_block()
        after = self.new_block()
        body = self.new_block()
        inner = env.child()
        if isinstance(s, ast.For):
            items, idx = self.slot(list_of(ANY)), self.slot(INT)
            e(f"{items} = list({self.cx_iter(s.source, env)})", s.pos)
            e(f"{idx} = 0")
            e(f"return {head}")
            var = self.local(s.var, inner, True, element_of(self.ck.types.get(s.source) or ANY))
            self.start(head)
            e(f"if {idx} < len({items}):")
            e(f"    {var} = {items}[{idx}]")
            e(f"    {idx} += 1")
            e(f"    return {body}")
            e(f"return {after}")
            stmts = s.body
        elif isinstance(s, ast.Repeat):
            left = self.slot(INT)
            e(f"{left} = {self.cx(s.times, env)}", s.pos)
            e(f"return {head}")
            self.start(head)
            e(f"if {left} > 0:")
            e(f"    {left} -= 1")
            e(f"    return {body}")
            e(f"return {after}")
            stmts = s.body
        elif isinstance(s, ast.While):
            e(f"return {head}", s.pos)
            self.start(head)
            e(f"if {self.cx_test(s.cond, env)}:")
            e(f"    return {body}")
            e(f"return {after}")
            stmts = s.body
        else:  # RepeatUntil: the condition sees the body's locals
            e(f"return {body}", s.pos)
            end = self.compile_body(s.body, inner, body, new_scope=False)
            self.start(end)
            e(f"if {self.cx_test(s.cond, inner)}:", s.cond.pos)
            e(f"    return {after}")
            e(f"return {body}")
            self.start(after)
            return
        end = self.compile_body(stmts, inner, body)
        self.scoped([items, idx] if isinstance(s, ast.For) else [left] if isinstance(s, ast.Repeat) else [],
                    head)
        self.start(end)
        e(f"return {head}")
        self.start(after)

    def target(self, t: ast.Expr, env: _Env) -> str:
        res = self.ck.res.get(t)
        if isinstance(t, ast.Name):
            if res and res[0] == "local":
                return env.names[t.ident]
            return f"V[{self.var_base[t.ident]}]"
        if isinstance(t, ast.Call):
            return f"V[{self.var_base[t.func]} + {self.cx(t.args[0], env)}]"
        if isinstance(t, ast.Attr):
            return f"P[{self.prop_index[t.attr]}][{self.cx(t.obj, env)}]"
        raise AssertionError(t)  # pragma: no cover

    # --- actions ----------------------------------------------------------------------------
    def compile_action(self, info: ActionInfo) -> None:
        d = info.decl
        self.where = d.pos
        env = _Env()
        info.me_slot = self.n_locals
        me = self.slot(PLAYER)
        env.me = me
        env.names["me"] = me
        for p in d.params:
            info.param_slots.append(self.n_locals)
            env.names[p.name] = self.slot(element_of(self.ck.types.get(p.domain) or ANY) or ANY)
        info.entry = self.new_block()
        effects = [s for s in d.body if not isinstance(s, ast.Require)]
        end = self.compile_body(effects, env, info.entry)
        self.scoped([me, *(env.names[p.name] for p in d.params)], info.entry)
        info.slot_end = self.n_locals  # [me_slot, slot_end): saved across a nested call of itself
        if d.name not in self.reentrant:
            info.ret_slot = self.n_locals
            self.slot(Type("resume"))
        self.start(end)
        self.emit("return pop_frame(st)" if info.ret_slot < 0 else f"return L[{info.ret_slot}]")
        if not self.suspends(effects):
            self.direct_src.append(self.compile_direct(info, effects))
        else:
            self.entries.append((self.action_ids[d.name], self.entry_head(info)))

    def entry_head(self, info: ActionInfo) -> list[str]:
        """The start of `enter_N(st, me, *args)`: where to return (a frame when the action
        may run inside itself, else one slot), `me` and the arguments into their slots, then
        on to the action's first block (which fusion pastes in)."""
        lines = []
        if info.ret_slot < 0:
            lines.append(f"    st.stack.append((st.pc, {info.me_slot}, L[{info.me_slot}:{info.slot_end}]))")
        else:
            lines.append(f"    L[{info.ret_slot}] = st.pc")
        lines.append(f"    L[{info.me_slot}] = me")
        for slot, q in zip(info.param_slots, info.decl.params):
            lines.append(f"    L[{slot}] = a_{q.name}")
        lines.append(f"    return {info.entry}")
        return lines

    def reentrant_actions(self) -> set[str]:
        """Actions that may be offered again while they run (inside their own effect, or
        inside an action offered there): only these need a frame to keep their slots."""
        offered = {name: self.offered(a.body, set()) for name, a in self.m.actions.items()}
        out = set()
        for name, first in offered.items():
            seen: set[str] = set()
            todo = list(first)
            while todo:
                x = todo.pop()
                if x not in seen and x in offered:
                    seen.add(x)
                    todo.extend(offered[x])
            if name in seen:
                out.add(name)
        return out

    def offered(self, stmts, visiting: set) -> set[str]:
        """The actions that choose statements in these statements (and in the phases they
        call and the triggers their moves fire) may offer."""
        out: set[str] = set()
        for s in stmts:
            if isinstance(s, ast.Choose):
                out.update(s.actions)
            elif isinstance(s, ast.CallPhase) and s.name not in visiting:
                visiting.add(s.name)
                out |= self.offered(self.m.phases[s.name].body, visiting)
            elif isinstance(s, ast.Move):
                for t in self.triggers_for(s):
                    if id(t) not in visiting:
                        visiting.add(id(t))
                        out |= self.offered(t.body, visiting)
            for block in sub_blocks(s):
                out |= self.offered(block, visiting)
        return out

    def compile_direct(self, info: ActionInfo, effects: list) -> str:
        """An action with no decision inside, as one plain function: `act_N(st, me, *args)`.

        It returns where the game goes on, so applying it needs no call stack.
        """
        aid = self.action_ids[info.name]
        env = _Env({"me": "me", **{q.name: f"a_{q.name}" for q in info.decl.params}}, me="me")
        params = "".join(f", a_{q.name}" for q in info.decl.params)
        saved = (self.blocks, self.cur, self.indent)
        self.blocks, self.cur, self.indent = [[]], 0, 1
        for s in effects:
            self.compile_plain(s, env, False)
        body = self.blocks[0]
        self.blocks, self.cur, self.indent = saved
        aliases = prologue(body, ("Z", "st.z"), ("V", "st.v"), ("P", "st.p"))
        return "\n".join([f"def act_{aid}(st, me{params}):", *aliases, *body, "    return st.pc"])

    def compile_legal(self, info: ActionInfo) -> str:
        aid = self.action_ids[info.name]
        lines = [f"def legal_{aid}(st, me, out):", "    Z = st.z; V = st.v; P = st.p"]
        return "\n".join(lines + self.legal_lines(info, "return"))

    def compile_point_legal(self, index: int, options: tuple[int, ...]) -> str:
        """All the legal actions of one decision point, in one function: a call per action saved.

        Each action's part runs inside a one-pass loop, so a failed requirement `break`s
        out of that action only.
        """
        lines = [f"def legal_point_{index}(st, me, out):", "    Z = st.z; V = st.v; P = st.p"]
        for aid in options:
            body = nest_guards(self.legal_lines(self.actions[aid], "break"), "break")
            if any(line.strip() == "break" for line in body):
                lines.append("    for _once in ONCE:")
                lines.extend("    " + line for line in body)
            else:
                lines.extend(body)
        return "\n".join(lines)

    def legal_lines(self, info: ActionInfo, terminal: str) -> list[str]:
        """The body of a legal-action enumeration; `terminal` leaves it when nothing is legal."""
        aid = self.action_ids[info.name]
        lines: list[str] = []
        if info.decl is None:
            return [f"    out.append(({aid}, ()))"]
        self.where = info.decl.pos
        for times, scope in info.limits:
            key = "st.turn" if scope == "turn" else "-1 - me"
            lines.append(f"    if st.used.get(({aid}, {key}), 0) >= {times}:")
            lines.append(f"        {terminal}")
        params = info.decl.params
        env = _Env({"me": "me", **{q.name: f"a_{q.name}" for q in params}}, me="me")
        variables = [f"a_{q.name}" for q in params]
        conds = []
        for r in (s.cond for s in info.decl.body if isinstance(s, ast.Require)):
            self.where = r.pos
            conds += [(cond, self.tag(r.pos)) for cond in conjuncts(self.cx_test(r, env))]
        domains = [self.cx_iter(q.domain, env) for q in params]
        fixed = [c for c in conds if stateless(c[0]) and uses(pyast.parse(c[0], mode="eval"), variables)]
        if params and all(stateless(d) for d in domains):
            return lines + self.precomputed_legal(aid, variables, domains, fixed,
                                                  [c for c in conds if c not in fixed], terminal)
        # Each condition is tested in the outermost loop where all it reads is bound,
        # so a condition on the first parameter prunes before the second is enumerated.
        placed: dict[int, list[str]] = {}
        hoists = itertools.count()
        for cond, tag in conds:
            if True:
                depth, hoisted, rest = placement(cond, variables)
                if hoisted is not None:
                    name = f"h{aid}_{next(hoists)}"
                    placed.setdefault(hoisted[0], []).append(f"{name} = {hoisted[1]}{tag}")
                    rest = f"{name} or {rest}"
                placed.setdefault(depth, []).append(f"if not ({rest}):{tag}")
        for depth in range(len(params) + 1):
            indent = "    " * (depth + 1)
            if depth:
                q = params[depth - 1]
                domain = self.cx_iter(q.domain, env)
                head = "    " * depth + f"for a_{q.name} in "
                if isinstance(q.domain, ast.Range):  # `a..b` worked out while playing: it may be huge
                    lines.append(f"{head}rt.bounded_choices({domain}):{self.tag(q.pos)}")
                else:  # zones, cells, players: bounded by the sizes of the game
                    lines.append(f"{head}{domain}:")
            for line in placed.get(depth, []):
                lines.append(indent + line)
                if line.startswith("if not"):
                    lines.append(indent + "    " + ("continue" if depth else terminal))
        args = "(" + "".join(f"{v}, " for v in variables) + ")"
        lines.append("    " * (len(params) + 1) + f"out.append(({aid}, {args}))")
        return lines

    def too_many_choices(self, aid: int) -> RulesError:
        decl = self.actions[aid].decl
        return RulesError([Diagnostic(decl.pos, f"action '{decl.name}' has more than {LIMITS.choices:,} choices "
                                      f"of its arguments to try ({describe('choices')})",
                                      "narrow its parameters' domains")], self.ck.sources)

    def precomputed_legal(self, aid: int, variables: list[str], domains: list[str], fixed: list,
                          dynamic: list, terminal: str) -> list[str]:
        """Parameters whose domains and some conditions do not depend on the state (pairs of
        cells in one row, say) are enumerated once per player when the rules are compiled;
        only the conditions that read the state are tested while the game runs."""
        k = len(self.precomputed)
        pre = [f"def pre_{k}(me):", "    out = []", "    tried = 0"]
        depth = 1
        for var, dom in zip(variables, domains):
            pre.append("    " * depth + f"for {var} in {dom}:")
            depth += 1
            # every value tried counts, so that domains too large to list are refused, not listed
            pre.append("    " * depth + "tried += 1")
            pre.append("    " * depth + "if tried > LIMITS.choices:")
            pre.append("    " * depth + "    raise rt.TooManyChoices()")
            for cond, _tag in fixed:
                if uses(pyast.parse(cond, mode="eval"), variables) == depth - 1:
                    pre.append("    " * depth + f"if not ({cond}):")
                    pre.append("    " * depth + "    continue")
        pre.append("    " * depth + f"out.append(({aid}, (" + "".join(f"{v}, " for v in variables) + ")))")
        pre.append("    return out")
        self.precomputed.append("\n".join(pre))
        self.precomputed_aid.append(aid)
        lines = []
        for cond, tag in dynamic:  # conditions without parameters first: leave early
            if not uses(pyast.parse(cond, mode="eval"), variables):
                lines.append(f"    if not ({cond}):{tag}")
                lines.append(f"        {terminal}")
        inner = [(c, t) for c, t in dynamic if uses(pyast.parse(c, mode="eval"), variables)]
        if not inner:
            lines.append(f"    out.extend(PRE[{k}][me])")
            return lines
        first = [(c, t) for c, t in inner if uses(pyast.parse(c, mode="eval"), variables) == 1]
        if first and len(variables) > 1:
            # conditions on the first parameter alone: test them once per value, not per action
            self.grouped.add(k)
            lines.append(f"    for {variables[0]}, actions in PRE[{k}][me]:")
            for cond, tag in first:
                lines.append(f"        if not ({cond}):{tag}")
                lines.append("            continue")
            rest = [(c, t) for c, t in inner if (c, t) not in first]
            if not rest:
                lines.append("        out.extend(actions)")
                return lines
            lines.append("        for action in actions:")
            lines.append("            " + ", ".join(variables) + ", = action[1]")
            for cond, tag in rest:
                lines.append(f"            if not ({cond}):{tag}")
                lines.append("                continue")
            lines.append("            out.append(action)")
            return lines
        lines.append(f"    for action in PRE[{k}][me]:")
        lines.append("        " + ", ".join(variables) + ", = action[1]")
        for cond, tag in inner:
            lines.append(f"        if not ({cond}):{tag}")
            lines.append("            continue")
        lines.append("        out.append(action)")
        return lines

    def compile_public_label(self, info: ActionInfo) -> str:
        """What the other players see of a secret action (its own public label, or a default)."""
        aid = self.action_ids[info.name]
        d = info.decl
        lines = [f"def public_label_{aid}(st, me, args):", "    Z = st.z; V = st.v; P = st.p"]
        env = _Env({"me": "me", **{q.name: f"args[{i}]" for i, q in enumerate(d.params)}}, me="me")
        text = self.cx_text(d.public_label, env) if d.public_label is not None else repr("acts in secret")
        lines.append(f"    return {text}")
        return "\n".join(lines)

    def compile_visibility(self, index: int, cond: ast.Expr) -> str:
        self.where = cond.pos
        return f"def visible_{index}(st):\n    Z = st.z; V = st.v; P = st.p\n    return {self.cx(cond, _Env())}"

    def compile_action_label(self, info: ActionInfo) -> str:
        aid = self.action_ids[info.name]
        lines = [f"def label_{aid}(st, me, args):", "    Z = st.z; V = st.v; P = st.p"]
        d = info.decl
        if d is None:
            lines.append("    return 'pass'")
            return "\n".join(lines)
        env = _Env({"me": "me"}, me="me")
        for i, p in enumerate(d.params):
            env.names[p.name] = f"args[{i}]"
        if d.label is not None:
            lines.append(f"    return {self.cx_text(d.label, env)}")
        else:
            shown = " + ' ' + ".join(self.show(self.ck.types.get(p.domain), f"args[{i}]", elem=True)
                                      for i, p in enumerate(d.params))
            lines.append(f"    return {d.name!r}" + (f" + ' ' + {shown}" if shown else ""))
        return "\n".join(lines)

    # --- scoring ----------------------------------------------------------------------------
    def scoring_slots(self, name: str) -> tuple[int, int]:
        return self.scoring_index[name]

    def compile_scoring(self, s: ast.ScoringDecl) -> str:
        env = _Env({s.player: "p"})
        count = sum(1 for item in s.items if isinstance(item, ast.ScoreItem))
        lines = [f"def score_{s.name}(st, p):", "    Z = st.z; V = st.v; P = st.p",
                 f"    out = [0] * {count}", "    t = 0"]
        self.emit_score_items(list(s.items), 0, env, lines, 1)
        lines.append("    return out, t")
        return narrow_by_attribute(hoist_grid_reads(lines))

    def emit_score_items(self, items: list, index: int, env: _Env, lines: list[str], depth: int) -> None:
        """Items in order; a `best` choice wraps the items after it in a search over its options."""
        pad = "    " * depth
        for pos, item in enumerate(items):
            self.where = item.pos
            tag = self.tag(item.pos)
            if isinstance(item, ast.BestChoice):
                self.emit_best(item, items[pos + 1:], index, env, lines, depth)
                return
            cond = self.cx_test(item.cond, env) if item.cond is not None else "True"
            i = index
            index += 1
            if item.mode == "points":
                lines.append(f"{pad}x = {self.cx(item.value, env)}{tag}")
                lines.append(f"{pad}out[{i}] = x; t += x")
            elif item.mode == "double":
                lines.append(f"{pad}if {cond}:{tag}")
                lines.append(f"{pad}    out[{i}] = t; t += t")
            elif item.mode == "zero":
                lines.append(f"{pad}if {cond}:{tag}")
                lines.append(f"{pad}    out[{i}] = -t; t = 0")
            else:
                lines.append(f"{pad}if {cond}:{tag}")
                lines.append(f"{pad}    x = t * ({self.cx(item.value, env)}) - t")
                lines.append(f"{pad}    out[{i}] = x; t += x")

    def emit_best(self, b: ast.BestChoice, rest: list, index: int, env: _Env, lines: list[str],
                  depth: int) -> None:
        """Try every combination of the chosen property's options; keep the best total.

        The first combination wins ties. Properties are restored afterwards: scoring
        never changes the state.
        """
        pad = "    " * depth
        k = next(self.fresh)
        inner = env.child()
        var = f"g_{b.source_var}_{k}"
        inner.names[b.source_var] = var
        prop = self.prop_index[b.prop]
        cond = f" if {self.cx_test(b.cond, inner)}" if b.cond is not None else ""
        lines.append(f"{pad}sel{k} = [{var} for {var} in {self.iterable(b.source, env)}{cond}]"
                     + self.tag(b.pos))
        lines.append(f"{pad}opts{k} = [list({self.cx_iter(b.options, inner)}) or [P[{prop}][{var}]] "
                     f"for {var} in sel{k}]")
        lines.append(f"{pad}saved{k} = [P[{prop}][{var}] for {var} in sel{k}]")
        lines.append(f"{pad}base{k} = (list(out), t)")
        lines.append(f"{pad}best{k} = None")
        lines.append(f"{pad}many{k} = any(len(o) > 1 for o in opts{k})")
        lines.append(f"{pad}for combo{k} in product(*opts{k}):")
        lines.append(f"{pad}    for {var}, v{k} in zip(sel{k}, combo{k}):")
        lines.append(f"{pad}        P[{prop}][{var}] = v{k}")
        lines.append(f"{pad}    out = list(base{k}[0]); t = base{k}[1]")
        self.emit_score_items(rest, index, env, lines, depth + 1)
        # the best for the player: the highest total, then the game's ranking (e.g. a tie-breaker)
        # (the ranking is only consulted when there is more than one combination to weigh)
        lines.append(f"{pad}    key{k} = (t, rank_key(st, p)) if many{k} else (t,)")
        lines.append(f"{pad}    if best{k} is None or key{k} > best{k}[2]:")
        lines.append(f"{pad}        best{k} = (out, t, key{k})")
        lines.append(f"{pad}for {var}, v{k} in zip(sel{k}, saved{k}):")
        lines.append(f"{pad}    P[{prop}][{var}] = v{k}")
        lines.append(f"{pad}out, t = best{k}[0], best{k}[1]")

    def compile_ranking(self) -> str:
        r = self.m.ranking
        lines = ["def rank_key(st, p):", "    Z = st.z; V = st.v; P = st.p"]
        if r is None:
            targets = self.m.score_targets
            keys = " + ".join(f"V[{self.var_base[t]} + p]" for t in targets) or "0"
            lines.append(f"    return ({keys},)")
        else:
            env = _Env({r.player: "p"})
            lines.append("    return (" + "".join(f"{self.cx(k, env)}, " for k in r.keys) + ")")
        return "\n".join(lines) + "\nNITEMS = " + str(len(self.items))

    # --- expressions --------------------------------------------------------------------------
    def iterable(self, e: ast.Expr, env: _Env) -> str:
        """cx_iter for a generator's source, where Python forbids assignment expressions."""
        self.in_iterable += 1
        try:
            return self.cx_iter(e, env)
        finally:
            self.in_iterable -= 1

    def cx_iter(self, e: ast.Expr, env: _Env) -> str:
        """Code for iterating over a zone (its contents), a grid (every cell's) or a list."""
        t = self.ck.types.get(e)
        code = self.cx(e, env)
        if t is not None and t.kind == "zone":
            return f"Z[{code}]"
        if t is not None and t.kind == "grid":
            rows, cols = self.grid_size[t.name]
            return f"grid_items(Z, {code}, {rows * cols})"
        return code

    def grid_of(self, e: ast.Expr) -> tuple[int, int]:
        t = self.ck.types.get(e)
        return self.grid_size[t.name] if t is not None and t.kind == "grid" else (1, 1)

    def cx_text(self, s: ast.StrLit, env: _Env) -> str:
        pieces = []
        for part in s.parts:
            if isinstance(part, str):
                pieces.append(repr(part))
            else:
                pieces.append(self.show(self.ck.types.get(part), self.cx(part, env)))
        return " + ".join(pieces) if pieces else "''"

    def template(self, s: ast.StrLit, env: _Env) -> tuple[list, str]:
        """A log line: the text parts and the code of the values, rendered later."""
        parts, values = [], []
        for part in s.parts:
            if isinstance(part, str):
                parts.append(part)
            else:
                t = self.ck.types.get(part)
                parts.append((t.kind if t else "any",))
                values.append(self.cx(part, env))
        return parts, "".join(f"{v}, " for v in values)

    def show(self, t: Type | None, code: str, elem: bool = False) -> str:
        """Code that renders a value for people: players as P1.., components by label."""
        if t is not None and elem:
            t = _element(t)
        kind = t.kind if t is not None else "any"
        if kind == "comp":
            return f"LBL[{code}]"
        if kind == "player":
            return f"('P' + str({code} + 1))"
        if kind == "flag":
            return f"('yes' if {code} else 'no')"
        return f"show({code})"

    def cx(self, e: ast.Expr, env: _Env) -> str:
        ck = self.ck
        if isinstance(e, ast.IntLit):
            return str(e.value)
        if isinstance(e, ast.StrLit):
            return self.cx_text(e, env)
        if isinstance(e, ast.Name):
            res = ck.res.get(e)
            kind = res[0] if res else "local"
            if kind == "local":
                return env.names[e.ident]
            if kind == "const":
                return {"true": "True", "false": "False", "none": "None", "player_count": str(self.n)}[e.ident]
            if kind == "var":
                return f"V[{self.var_base[e.ident]}]"
            if kind == "option":
                return f"st.opt[{self.option_index[e.ident]}]"
            if kind == "zone":
                return str(self.zone_base[e.ident])
            if kind == "def":
                return self.cx(self.m.defs[e.ident].body, _Env())
            if kind == "enum":
                return repr(e.ident)
            if kind == "end_flag":
                return f"V[{self.end_base + (e.ident == 'finished')}]"
            raise AssertionError(res)  # pragma: no cover
        if isinstance(e, ast.Attr):
            obj = self.cx(e.obj, env)
            if e.attr in self.prop_index:
                return f"P[{self.prop_index[e.attr]}][{obj}]"
            return f"A_{e.attr}[{obj}]"
        if isinstance(e, ast.Call):
            return self.cx_call(e, env)
        if isinstance(e, ast.GenCall):
            return self.cx_gen(e, env)
        if isinstance(e, ast.Players):
            if e.start is None:
                return "PLAYERS"
            return f"ROT[{self.cx(e.start, env)}]"
        if isinstance(e, ast.ListLit):
            return "[" + ", ".join(self.cx(i, env) for i in e.items) + "]"
        if isinstance(e, ast.Table):
            subject = self.cx(e.subject, env)
            exact = [en for en in e.entries if en.key is not None and not en.at_least]
            least = sorted((en for en in e.entries if en.at_least), key=lambda en: -en.key)
            other = [en for en in e.entries if en.key is None]
            out = self.cx(other[0].value, env) if other else "None"
            if subject.isdigit():  # e.g. a table on player_count: decide it now
                value = int(subject)
                for en in exact:
                    if value == en.key:
                        return self.cx(en.value, env)
                for en in least:
                    if value >= en.key:
                        return self.cx(en.value, env)
                if not other:
                    raise RulesError([Diagnostic(e.pos, f"this table has no entry for {value}",
                                                 "add that key, a 'k+' key or 'else'")], self.ck.sources)
                return out
            # each value compiled once: a value may hold a table of its own
            codes = [self.cx(en.value, env) for en in exact + least]
            if not SIMPLE.match(subject) and all(CONSTANT.match(v) for v in codes + [out]):
                # a step table of constants: one lookup, the subject computed once
                self.tables.append(({en.key: eval(code) for en, code in zip(exact, codes)},  # noqa: S307
                                    tuple((en.key, eval(code)) for en, code in zip(least, codes[len(exact):])),  # noqa: S307
                                    eval(out)))  # noqa: S307
                return f"table_lookup(TBL[{len(self.tables) - 1}], {subject})"
            chain = "".join(f"{code} if {subject} {'>=' if en.at_least else '=='} {en.key} else "
                            for en, code in zip(exact + least, codes))
            return f"({chain}{out})"
        if isinstance(e, ast.IfExpr):
            return f"({self.cx(e.then, env)} if {self.cx_test(e.cond, env)} else {self.cx(e.other, env)})"
        if isinstance(e, ast.BoolOp):
            return f"({self.cx(e.left, env)} {e.op} {self.cx(e.right, env)})"
        if isinstance(e, ast.Not):
            return f"(not {self.cx(e.operand, env)})"
        if isinstance(e, ast.Compare):
            found = count_vs_zero(e, self.m.defs)
            if found is not None:  # count(...) > 0 and the like: stop at the first one found
                gen, negate = found
                true = ast.Name(gen.pos, "true")
                self.ck.res[true] = ("const", "true")
                code = self.cx(ast.GenCall(gen.pos, "any", true, gen.var, gen.source, gen.cond, None, gen.more),
                               env if gen is e.left else _Env())
                return f"(not {code})" if negate else code
            if e.op == "is":
                res = self.ck.res.get(e)
                x = self.cx(e.left, env)
                if res and res[0] == "kind_test":
                    # `none is K` is false; x is evaluated once (it may draw by chance)
                    if SIMPLE.match(x):
                        return f"({x} is not None and KIND[{x}] == {res[1]!r})"
                    return f"(lambda _k: _k is not None and KIND[_k] == {res[1]!r})({x})"
                value = self.cx(e.right, env)
                props = self.uniform_counts_props()
                if props is not None and SIMPLE.match(value) and "rand_" not in x \
                        and (SIMPLE.match(x) or not self.in_iterable):
                    # inline when every kind counts as the same properties; x is computed once
                    first = x
                    if not SIMPLE.match(x):
                        name = f"_k{next(self.fresh)}"
                        first, x = f"({name} := {x})", name
                    tests = "".join(f" or P[{k}][{x}] == {value}" for k in props)
                    return f"({first} is not None and ({value} in CS[{x}]{tests}))"
                return f"counts_as_value(P, {x}, {value}, CS, CP)"
            if e.op == "in":
                return f"({self.cx(e.left, env)} in {self.cx_iter(e.right, env)})"
            return f"({self.cx(e.left, env)} {e.op} {self.cx(e.right, env)})"
        if isinstance(e, ast.Range):
            return f"range({self.cx(e.low, env)}, {self.cx(e.high, env)} + 1)"
        if isinstance(e, ast.BinOp):
            if self.ck.res.get(e, ("",))[0] == "join":
                left, right = (as_list(self.cx_iter(x, env)) for x in (e.left, e.right))
                return f"({left} + {right})"  # a new list: neither side is changed
            left, right = self.cx(e.left, env), self.cx(e.right, env)
            if e.op == "*" and not CONSTANT.match(right) and not SIMPLE.match(right) \
                    and not SIMPLE.match(left) and "rand_" not in right and not self.in_iterable \
                    and left.count("(") <= 50:  # (it nests the left side twice: not on deep code)
                # a count times something costly: when the count is 0, skip the rest
                m = f"_m{next(self.fresh)}"
                return f"(0 if not ({m} := {left}) else {m} * {right})"
            return f"({left} {e.op} {right})"
        if isinstance(e, ast.Neg):
            return f"(-{self.cx(e.operand, env)})"
        raise AssertionError(e)  # pragma: no cover

    def inlined(self, e: ast.Call, env: _Env, codes: list[str] | None = None) -> _Env | None:
        """The names for a def's body pasted at a call, or None when it is better called:
        an argument that is not a plain name or constant must be used at most once. The
        parameters stand for the arguments' code and keep the arguments' own (possibly
        narrower) types."""
        d = self.m.defs[e.func]
        if codes is None:
            codes = [self.cx(a, env) for a in e.args]
        name_uses = count_names(d.body)
        if not all(SIMPLE.match(c) or name_uses.get(p.name, 0) <= 1 for p, c in zip(d.params, codes)):
            return None
        types = {p.name: self.type_in(a, env) for p, a in zip(d.params, e.args)}
        return _Env({p.name: c for p, c in zip(d.params, codes)}, types={k: t for k, t in types.items() if t})

    def type_in(self, e: ast.Expr, env: _Env) -> Type | None:
        if isinstance(e, ast.Name) and e.ident in env.types:
            return env.types[e.ident]
        return self.ck.types.get(e)

    def within(self, e: ast.Expr, code: str, size: int, axis: str, env: _Env) -> bool:
        """Whether a row or column number is surely in 1..size: a number, or the row or
        column of a cell of a grid no larger along that axis."""
        if code.isdigit():
            return 1 <= int(code) <= size
        if isinstance(e, ast.Call) and e.func == axis and self.ck.res.get(e, ("",))[0] == "builtin":
            t = self.type_in(e.args[0], env)
            if t is not None and t.kind == "zone" and t.name in self.grid_size:
                rows, cols = self.grid_size[t.name]
                return (rows if axis == "row" else cols) <= size
        return False

    def cx_test(self, e: ast.Expr, env: _Env) -> str:
        """Code for `e` where only its truth counts (a condition): `count(z) > 0` becomes
        the zone's list itself, `count(z) == 0` its negation, with no call to `len`."""
        if isinstance(e, ast.BoolOp):
            return f"({self.cx_test(e.left, env)} {e.op} {self.cx_test(e.right, env)})"
        if isinstance(e, ast.Not):
            return f"(not {self.cx_test(e.operand, env)})"
        if isinstance(e, ast.Name) and self.ck.res.get(e, ("",))[0] == "def":
            return self.cx_test(self.m.defs[e.ident].body, _Env())
        if isinstance(e, ast.Call) and self.ck.res.get(e, ("",))[0] == "def":
            codes = [self.cx(a, env) for a in e.args]
            inner = self.inlined(e, env, codes)
            if inner is not None:
                return self.cx_test(self.m.defs[e.func].body, inner)
            return f"d_{e.func}(st" + "".join(", " + code for code in codes) + ")"
        if isinstance(e, ast.Compare):
            found = zone_count_vs_zero(e, self.ck)
            if found is not None:
                zone, negate = found
                code = self.cx_iter(zone, env)
                return f"(not {code})" if negate else code
        return self.cx(e, env)

    def small_domain(self, src: str) -> list[str] | None:
        """The values a generator's variable takes, as code, when there are few of them and
        they are known now (a grid's cells, a number range, the players)."""
        if src == "PLAYERS":
            return [str(p) for p in range(self.n)]
        domain = fixed_range(src)
        if domain is None:
            return None
        first, size = domain
        if size > MAX_UNROLLED:
            return None
        if first.lstrip("-").isdigit():
            return [str(int(first) + i) for i in range(size)]
        return [f"({first} + {i})" if i else first for i in range(size)]

    def unrolled(self, f: str, var: str, values: list[str], item: str, cond: str | None) -> str:
        """count/any/every/sum over a few known values, written out term by term: no
        generator to create and resume, and position tables read now."""
        def at(code: str, value: str) -> str:
            code = re.sub(rf"\b{var}\b", value, code)
            code = re.sub(r"\b(ROW|COL|ZOWNER)\[(\d+)\]",
                          lambda m: repr(self.position_table(m.group(1))[int(m.group(2))]), code)
            # a range check on numbers now known (`1 <= 3 <= 4`) is decided now
            return re.sub(r"(?<=if |nd )1 <= (-?\d+) <= (\d+)(?= else| and)",
                          lambda m: str(1 <= int(m.group(1)) <= int(m.group(2))), code)

        if not values:
            return {"count": "0", "sum": "0", "any": "False", "every": "True"}[f]
        conds = [at(cond, v) for v in values] if cond else None
        items = [at(item, v) for v in values]
        if f == "count":
            if conds is None:
                return str(len(values))
            return "(" + " + ".join(f"(1 if {c} else 0)" for c in conds) + ")"
        if f == "sum":
            terms = items if conds is None else [f"({i} if {c} else 0)" for i, c in zip(items, conds)]
            return "(" + " + ".join(terms) + ")"
        if f == "any":
            terms = items if conds is None else conds if item == "True" else \
                [f"({c} and {i})" for i, c in zip(items, conds)]
            return "(not not (" + " or ".join(terms) + "))"
        terms = items if conds is None else [f"(not ({c}) or {i})" for i, c in zip(items, conds)]
        return "(not not (" + " and ".join(terms) + "))"

    def position_table(self, name: str) -> tuple:
        attr = {"ROW": "row", "COL": "column", "ZOWNER": "owner"}[name]
        return tuple(getattr(z, attr) for z in self.zones)

    def cx_call(self, e: ast.Call, env: _Env) -> str:
        res = self.ck.res.get(e)
        kind = res[0] if res else None
        args = e.args
        if kind == "var_p":
            return f"V[{self.var_base[e.func]} + {self.cx(args[0], env)}]"
        if kind == "zone_p":
            rows, cols = self.grid_size.get(e.func, (1, 1))
            scale = f" * {rows * cols}" if rows * cols != 1 else ""
            return f"({self.zone_base[e.func]} + {self.cx(args[0], env)}{scale})"
        if kind == "def":
            codes = [self.cx(a, env) for a in args]  # once each: an argument may be a call of its own
            inner = self.inlined(e, env, codes)
            if inner is not None:  # a def is a pure expression, so substitution is exact
                return self.cx(self.m.defs[e.func].body, inner)
            return f"d_{e.func}(st" + "".join(", " + code for code in codes) + ")"
        if kind == "aggregate":
            t0 = self.ck.types.get(args[0])
            if e.func == "count" and t0 is not None and t0.kind == "grid":
                rows, cols = self.grid_size[t0.name]
                first = self.cx(args[0], env)
                return f"sum(map(len, Z[{first}:{first} + {rows * cols}]))"
            coll = self.cx_iter(args[0], env)
            f = e.func
            return {
                "count": f"len({coll})", "sum": f"sum({coll})", "min": f"min({coll}, default=0)",
                "max": f"max({coll}, default=0)", "any": f"any({coll})", "every": f"all({coll})",
                "first": f"_first({coll})", "last": f"_last({coll})", "distinct": f"len(set({coll}))",
                "list": f"list({coll})",
            }[f]
        if kind == "builtin":
            a = [self.cx(x, env) for x in args]
            f = e.func
            if f == "next":
                return f"(({a[0]} + 1) % {self.n})"
            if f == "prev":
                return f"(({a[0]} - 1) % {self.n})"
            if f == "random":
                return f"rand_choice(st, {self.cx_iter(args[0], env)})"
            if f == "abs":
                return f"abs({a[0]})"
            if f == "index":
                return f"index_in_zone(st, {a[0]})"
            if f == "zone_of":
                return f"st.w[{a[0]}]"
            kind0 = self.ck.types.get(args[0])
            kind0 = kind0.kind if kind0 is not None else "any"
            where = f"st.w[{a[0]}]" if kind0 == "comp" else a[0]
            if f == "cell":
                rows, cols = self.grid_of(args[0])
                if all(CHEAP.match(x) for x in a[1:]):  # inline: positions are looked up everywhere
                    checks = [f"1 <= {code} <= {size}" for code, arg, size, axis
                              in ((a[1], args[1], rows, "row"), (a[2], args[2], cols, "column"))
                              if not self.within(arg, code, size, axis, env)]
                    index = cell_index(a[0], a[1], a[2], cols)
                    return f"({index} if {' and '.join(checks)} else None)" if checks else f"({index})"
                return f"cell_at({a[0]}, {a[1]}, {a[2]}, {rows}, {cols})"
            if f == "cells":
                rows, cols = self.grid_of(args[0])
                return f"range({a[0]}, {a[0]} + {rows * cols})"
            if f == "row":
                return f"ROW[{where}]"
            if f == "column":
                return f"COL[{where}]"
            if f == "adjacent":
                return f"ADJ[{where}]"
            if f == "top_of":
                return f"_last(Z[{a[0]}])"
            if f == "counted_as":
                return f"counted_as(P, {a[0]}, CS, CP)"
            if f == "capacity":
                return f"CAP[{a[0]}]"
            if f == "room":
                caps = {z.capacity for z in self.zones if z.name == getattr(self.ck.types.get(args[0]), "name", "")}
                if len(caps) == 1 and None not in caps:  # a known zone: its capacity is a constant
                    return f"({caps.pop()} - len(Z[{a[0]}]))"
                return f"room(Z, CAP, {a[0]})"
            if f == "owner":
                return f"OWNER[{a[0]}]" if kind0 == "comp" else f"ZOWNER[{a[0]}]"
        raise AssertionError(e)  # pragma: no cover

    def cx_gen(self, e: ast.GenCall, env: _Env) -> str:
        inner = env.child()
        var = f"g_{e.var}_{next(self.fresh)}"
        inner.names[e.var] = var
        src = self.iterable(e.source, env)
        cond = f" if {self.cx_test(e.cond, inner)}" if e.cond is not None else ""
        loops = f"for {var} in {src}{cond}"
        for more_var, more_src, more_cond in e.more:
            code = self.iterable(more_src, inner)
            inner = inner.child()
            name = f"g_{more_var}_{next(self.fresh)}"
            inner.names[more_var] = name
            loops += f" for {name} in {code}"
            if more_cond is not None:
                loops += f" if {self.cx_test(more_cond, inner)}"
        item = self.cx(e.item, inner)
        f = e.func
        if not e.more and f in UNROLLED and len(item) + len(cond) <= MAX_UNROLLED_CODE:
            # (a long item is not copied: generators inside generators would grow exponentially)
            values = self.small_domain(src)
            if values is not None:
                return self.unrolled(f, var, values, item, cond[4:] if cond else None)
        code = self.gen_code(e, f, var, inner, src, cond, loops, item)
        if not e.more and f in UNROLLED and re.fullmatch(r"Z\[[^\[\]]+\]", src):
            # over one zone's contents, often empty (spots, a discard): no generator then
            empty = {"count": "0", "sum": "0", "any": "False", "every": "True"}[f]
            return f"({code} if {src} else {empty})"
        return code

    def gen_code(self, e: ast.GenCall, f: str, var: str, inner: _Env, src: str, cond: str, loops: str,
                 item: str) -> str:
        """The Python for an aggregate over a generator whose parts are compiled."""
        gen = f"{item} {loops}"
        if f == "count":
            return f"len([0 {loops}])"
        if f == "groups":
            where = "st.w" if self.ck.types.get(e.item, None) and self.ck.types[e.item].kind == "comp" else "None"
            return f"groups([{gen}], {where}, ADJ, GROUPS)"
        if f == "sum":
            return f"sum({gen})"
        if f in ("min", "max"):
            return f"{f}(({gen}), default=0)"
        if f == "any":
            return f"any({gen})"
        if f == "every":
            return f"all({gen})"
        if f == "first":
            return f"next(({gen}), None)"
        if f == "last":
            return f"_last([{gen}])"
        if f == "distinct":
            return f"len({{{gen}}})"
        if f == "list":
            return f"[{gen}]"
        if f in ("argmax", "argmin"):
            key = self.cx(e.key, inner)
            fn = "max" if f == "argmax" else "min"
            if not e.more and item == var:
                items = f"[{var} {loops}]" if cond else src
                return f"{fn}({items}, key=lambda {var}: {key}, default=None)"
            # the first item with the best key: (key, position) pairs decide, the item is kept
            pairs = f"[(({key}), {item}) {loops}]"
            return f"arg_best({pairs}, {fn == 'max'})"
        raise AssertionError(f)  # pragma: no cover


def _stay(st, me) -> int:
    """Applying `pass`: the game goes on where it was."""
    return st.pc


class _SetupState:
    """Stands in for the state while setup-time expressions are evaluated."""

    def __init__(self, opt):
        self.opt = opt


def _children(e: ast.Expr) -> list[ast.Expr]:
    out: list[ast.Expr] = []
    for f in attrs.fields(type(e)):
        value = getattr(e, f.name)
        for item in value if isinstance(value, tuple) else (value,):
            if isinstance(item, ast.Expr):
                out.append(item)
            elif isinstance(item, ast.TableEntry):
                out.append(item.value)
    return out


def _element(t: Type) -> Type:
    if t.kind == "list" and t.element is not None:
        return t.element
    if t.kind == "zone":
        return Type("comp")
    return t


def _zero(t: Type):
    return {"int": 0, "flag": False, "text": ""}.get(t.kind)


def compile_program(checker: Checker, players: int, options: dict | None = None,
                    extras: tuple[str, ...] = ()) -> Program:
    """Compile for a player count. `extras` are labels of components to add beyond the
    game's own set (copies of the first component with that label): hand-built positions
    may hold more of a card than the box does."""
    program = Compiler(checker, players, options or {}, extras).compile()
    assert program is not None
    return program


def check_setup(checker: Checker, players: int) -> None:
    """Everything compiling for a player count can find wrong (setup values, tables that
    miss the count), without building the program: raises RulesError."""
    compiler = Compiler(checker, players, {})
    compiler.check_only = True
    compiler.compile()


__all__ = ["Program", "check_setup", "compile_program"]
