"""A compiled game lowered to one C unit: the native engine's source.

The input is what the compiler made for the generator back end (its trees, `compile_generators`)
and the program's tables. The output is a `ctree.Unit`: the game's sizes, its constant tables
(numbers only: texts become ids, components, zones and actions their indexes), the functions the
flow reaches (defs, listers of legal actions, scorings, the ranking) and the flow itself as one
resumable function, `rf_flow`, which runs to the next decision and returns how many legal actions
it offers (0 once the game is over). `Lowered` keeps what Python needs to read a native game
back: the action catalogue (id -> the program's `Action`) and the ids of texts.
"""

from __future__ import annotations

import ast as py
import itertools
from collections.abc import Iterator

import attrs

from .. import geometry
from ..flowplay import direct_actions
from ..limits import LIMITS
from ..runtime import Action
from . import ctree as c
from .choice_keys import ChoiceKeyLowering, LabelTemplate
from .common import ST, TEXT_BASE, NotLowered, call, safe_name, st_field
from .scope import Scope
from .search_lowering import SearchLowering
from .statements import StatementLowering

MAX_LEGAL_DEFAULT = 4096  # legal actions a decision may offer natively (more: the reference engine)


_ABSENT = object()  # no argument value at this place of a block of actions


@attrs.frozen
class Lowered:
    """A game's C unit and what reading a native game back needs."""

    unit: c.Unit
    catalogue: tuple[Action, ...]  # the id of a legal action in C -> the program's Action
    texts: dict[str, int]
    n_rank: int
    blocks: dict[int, tuple[int, list[int], list[list]]]  # first id -> (action, spans, values per place)
    label_templates: dict[int, LabelTemplate]  # per action whose label reads the state (choice_keys.py)
    choice_keys_refused: str | None  # why simulate cannot count the choices in C, if it cannot


class FlowScope(Scope):
    """The flow's names: every local lives in the state (`st->loc[k]`), since the flow stops at
    each decision and goes on later, perhaps in a copy of the state."""

    def place_for(self, name: str) -> c.Expr:
        return self.slot()

    def slot(self) -> c.Expr:
        k = self.lowering.n_loc
        self.lowering.n_loc += 1
        return c.Index(st_field("loc"), c.Int(k))

    def buffer(self, persistent: bool = False) -> tuple[c.Expr, c.Expr]:
        if not persistent:
            return super().buffer()
        k = self.lowering.n_lists
        self.lowering.n_lists += 1
        return c.Index(st_field("lists"), c.Int(k)), c.Index(st_field("listn"), c.Int(k))


class Lowering(StatementLowering, SearchLowering, ChoiceKeyLowering):
    """Lowers one program; `lower()` is the entry."""

    def __init__(self, program):
        self.program = program
        self.ns = program.namespace
        self.n_zones = len(program.zones)
        self.n_vars = max(1, len(program.var_init))
        self.n_items = max(1, len(program.items))
        self.n_breakdown = max(1, program.players * len(program.items))
        self.counter = itertools.count()
        self.texts: dict[str, int] = {}
        self.tables: dict[str, tuple[c.Name, int]] = {}
        self.table_parts: list[c.Table] = []
        self.functions: dict[str, str] = {}  # Python function -> its C name
        self.todo: list[str] = []
        self.n_loc = 0
        self.n_lists = 0
        self.rows_tables: dict = {}  # a constant's name (or a literal's values) -> (row offsets, items)
        self.act_tables: dict[tuple, tuple] = {}
        self.act_table_ids: dict[str, int] = {}
        self.near_table: c.Name | None = None
        self.opt_table: c.Name | None = None
        self.dict_tables: dict[str, tuple[c.Name, int, int]] = {}
        self.resume_points: Iterator[int] = itertools.count(1)
        self.catalogue: dict[tuple, int] = {}
        self.catalogue_actions: list[Action] = []
        self.n_args = 0
        self.pre_tables: dict[int, tuple[c.Name, c.Name]] = {}
        self.grouped_tables: dict[int, tuple] = {}
        self.lazy_blocks: dict[int, tuple] = {}
        self.defined: dict[str, py.FunctionDef] = {}
        self.inlining: list[tuple[str, str]] = []  # generators being pasted in: (name, their end's label)

    # --- entry ---------------------------------------------------------------------------------
    def lower(self) -> Lowered:
        program = self.program
        gate(program)
        flow_module = program.compiler.compile_generators()
        for module in (program.module, flow_module):
            for f in module.body:
                if isinstance(f, py.FunctionDef):
                    self.defined[f.name] = f
        self.direct_actions = direct_actions(program)
        self.plan_seen()
        self.number_texts(program.namespace, self.defined.values())
        self.build_catalogue()
        flow = self.lower_flow(self.defined["flow_main"])
        self.functions["rank_key"] = "rf_rank"  # a scoring's best choice weighs the ranking too
        self.todo.append("rank_key")
        measures = self.lower_measures()
        searching = self.search_functions()
        holes = self.choice_holes()
        done: dict[str, c.Function] = {}
        while self.todo:
            name = self.todo.pop()
            if name not in done:
                done[name] = self.lower_function(name)
        parts = [*self.sizes(), c.Include("rf_runtime.h"), *self.catalogue_tables(), c.Include("rf_actions.h"),
                 *self.table_parts, *self.initial_tables(), *self.callees_first(done), flow,
                 measures, *searching, holes, c.Include("rf_module.c")]
        blocks = {first: (aid, spans, values) for aid, (first, _, spans, _, values) in self.lazy_blocks.items()}
        return Lowered(c.Unit(tuple(parts)), tuple(self.catalogue_actions), dict(self.texts), self.n_rank, blocks,
                       self.label_templates, self.choice_keys_refused)

    def want(self, name: str) -> str:
        """The C name of a generated function the code being lowered calls (lowered later)."""
        if name not in self.defined:
            raise NotLowered(f"the function {safe_name(name)}")
        if name not in self.functions:
            self.functions[name] = f"fn{len(self.functions)}"
            self.todo.append(name)
        return self.functions[name]

    def number_texts(self, namespace: dict, functions) -> None:
        """Every text the program holds, numbered in Python's order of texts, so that comparing
        two ids orders them as Python orders the texts (a sort by a text key, say)."""
        found: set[str] = set(geometry.SIDE_INDEX)
        todo: list = [v for k, v in namespace.items() if not k.startswith("__") and not callable(v)]
        seen: set[int] = set()
        while todo:
            x = todo.pop()
            if isinstance(x, str):
                found.add(x)
            elif isinstance(x, (list, tuple, set, frozenset)) and id(x) not in seen:
                seen.add(id(x))
                todo.extend(x)
            elif isinstance(x, dict) and id(x) not in seen:
                seen.add(id(x))
                todo.extend(x.keys())
                todo.extend(x.values())
        for f in functions:
            found.update(n.value for n in py.walk(f) if isinstance(n, py.Constant) and isinstance(n.value, str))
        for k, text in enumerate(sorted(found)):
            self.texts[text] = TEXT_BASE + k

    # --- the layout ----------------------------------------------------------------------------
    def sizes(self) -> list[c.Define]:
        p = self.program
        n_items = max(1, len(p.items))
        return [c.Define("NZ", self.n_zones), c.Define("NC", len(p.comp_kind)),
                c.Define("ZCAP", max(1, len(p.comp_kind))), c.Define("NV", max(1, len(p.var_init))),
                c.Define("NPROP", max(1, len(p.props))), c.Define("NB", max(1, p.players * len(p.items))),
                c.Define("NLOC", max(1, self.n_loc)), c.Define("MAXLEGAL", self.max_legal()),
                c.Define("NLISTS", max(1, self.n_lists)),
                c.Define("NVLIST", max(1, len(self.list_vars()))), c.Define("LISTCAP", self.list_capacity()),
                c.Define("PATHCAP", 16 * self.list_capacity()),
                c.Define("NPLAYERS", p.players), c.Define("NITEMS_MAX", n_items),
                c.Define("NONE_SLOT", len(p.comp_kind)), c.Define("NRANK", max(1, self.n_rank)),
                c.Define("NKEY", max(1, self.n_rank) + 1),
                c.Define("NACTIONS", max(1, len(self.catalogue_actions))), c.Define("NARGS", max(1, self.n_args)),
                c.Define("NSCORE_BASES", len(p.model.score_targets)),
                c.Define("NACTIONS_DECLARED", len(p.actions)), c.Define("NITEMS_DECLARED", len(p.items)),
                c.Define("NGROUPS", len(self.item_groups())), c.Define("NMEASURES", len(p.measures)),
                c.Define("NFIRED", len(self.ns["FIRED"])),
                c.Define("RF_EMPTY_TEXT", self.texts.get("", c.INT64_MIN)),
                c.Define("RF_SKIPS_LIMIT", LIMITS.skips_in_a_row),
                c.Define("RF_DECISIONS_LIMIT", LIMITS.decisions_per_game),
                c.Define("RF_BLOCKS_LIMIT", LIMITS.blocks_without_decision), *self.seen_defines(),
                *self.choice_defines()]

    def initial_tables(self) -> list[c.Table]:
        p = self.program
        props = [self.value(init) for init in p.prop_init] or [0]
        bases = tuple(p.var_base[t] for t in p.model.score_targets)
        groups = self.item_groups()
        return [c.Table("INIT_W", tuple(p.comp_start) or (0,), "int32_t"),
                c.Table("SCORE_BASES", bases or (0,), "int32_t"),
                c.Table("LIMIT_TURN", tuple(sum(scope == "turn" for _, scope in a.limits) for a in p.actions)),
                c.Table("LIMIT_GAME", tuple(sum(scope != "turn" for _, scope in a.limits) for a in p.actions)),
                c.Table("ITEM_GROUP", tuple(groups[label] for _, label in p.items) or (0,), "int32_t"),
                c.Table("INIT_V", tuple(self.initial_var(v, kind) for v, kind in zip(p.var_init, p.var_kinds))
                        or (0,)),
                self.vlist_table_part(),
                c.Table("INIT_P", tuple(props))]

    def list_vars(self) -> list[int]:
        """The variables that hold a list (`var x: list of ...`)."""
        return [i for i, kind in enumerate(self.program.var_kinds) if kind == "list"]

    def initial_var(self, value, kind: str) -> int:
        """A variable's starting value: a list variable holds its length (its items start empty)."""
        if kind == "list":
            if value is None:
                return c.INT64_MIN
            if value != []:
                raise NotLowered("a list variable that starts with items")
            return 0
        return self.value(value)

    def vlist_table(self) -> c.Name:
        """`VLIST_SLOT`: per variable, the place of its items in `st->vl` (-1: one value)."""
        return c.Name("VLIST_SLOT")

    def vlist_table_part(self) -> c.Table:
        slots = [-1] * max(1, len(self.program.var_init))
        for k, i in enumerate(self.list_vars()):
            slots[i] = k
        return c.Table("VLIST_SLOT", tuple(slots))

    def table(self, name: str) -> tuple[c.Name, int]:
        """A constant list of the namespace (an attribute per component, a cell's row...)."""
        if name not in self.tables:
            values = tuple(self.value(v) for v in self.ns[name])
            cname = f"TBL{len(self.tables)}"
            self.table_parts.append(c.Table(cname, values))
            self.tables[name] = (c.Name(cname), len(values))
        return self.tables[name]

    def dict_table(self, name: str) -> tuple[c.Name, int, int]:
        """A constant dict of the namespace keyed by whole numbers (and perhaps none), as pairs
        (present, value) over the keys' span, none's pair last: (table, lowest key, span)."""
        if name not in self.dict_tables:
            table = self.ns[name]
            if not all(k is None or type(k) in (int, str) for k in table):
                raise NotLowered("a table keyed by something other than numbers and texts")
            keys = [self.value(k) for k in table if k is not None]  # a text: its id
            low = min(keys, default=0)
            span = max(keys, default=-1) - low + 1
            if span > 1 << 20:
                raise NotLowered("a table too sparse to lay out")
            values = [0] * (2 * (span + 1))
            for k, v in table.items():
                at = span if k is None else self.value(k) - low
                values[2 * at], values[2 * at + 1] = 1, self.value(v)
            cname = c.Name(f"DICT{len(self.dict_tables)}")
            self.table_parts.append(c.Table(cname.name, tuple(values)))
            self.dict_tables[name] = (cname, low, span)
        return self.dict_tables[name]

    def options_table(self) -> c.Name:
        """The game's options (`st.opt`), which the rules read and never change."""
        if self.opt_table is None:
            values = tuple(self.value(v) for v in self.program.option_values) or (0,)
            self.table_parts.append(c.Table("OPT_T", values))
            self.opt_table = c.Name("OPT_T")
        return self.opt_table

    def neighbour_table(self) -> c.Name:
        """`NEAR`: per zone its neighbour on each side (none at an edge), then 1 if it is a
        grid's cell and 0 if not."""
        if self.near_table is None:
            sides = len(geometry.SIDE_INDEX)
            values: list[int] = []
            for cells in self.ns["NEAR"]:
                row = [c.INT64_MIN] * sides if cells is None else [self.value(x) for x in cells]
                values += [*row, int(cells is not None)]
            self.table_parts.append(c.Table("NEAR_T", tuple(values) or (0,)))
            self.near_table = c.Name("NEAR_T")
        return self.near_table

    def max_legal(self) -> int:
        """The most legal actions a decision can offer: every listed action at most (a list of
        actions numbered by their arguments may be longer: up to MAX_LEGAL_DEFAULT, then a trap)."""
        if self.lazy_blocks:
            return MAX_LEGAL_DEFAULT
        return max(1, min(MAX_LEGAL_DEFAULT, len(self.catalogue_actions)))

    def list_capacity(self) -> int:
        """The most items a list of the flow may hold: any list of components, zones or players
        fits (a longer one, from a range, say, traps and plays on the reference engine)."""
        p = self.program
        return max(64, len(p.comp_kind), self.n_zones, p.players) + 1

    def rows_table(self, name, rows) -> tuple[c.Name, c.Name]:
        """A constant sequence of sequences as (row offsets, items)."""
        if name not in self.rows_tables:
            offsets = [0]
            items: list[int] = []
            for row in rows:
                items.extend(self.value(v) for v in row)
                offsets.append(len(items))
            n = len(self.rows_tables)
            off, its = f"ROWS{n}_AT", f"ROWS{n}_ITEMS"
            self.table_parts += [c.Table(off, tuple(offsets)), c.Table(its, tuple(items) or (0,))]
            self.rows_tables[name] = (c.Name(off), c.Name(its))
        return self.rows_tables[name]

    def action_table(self, name: str, depth: int) -> tuple[c.Name, list[int], list[int], list[bool]]:
        """`ACT_<aid>` (nested dicts by argument value) as one dense table of catalogue ids
        (-1: no such action), with each argument's lowest value and span."""
        key = (name, depth)
        if key not in self.act_tables:
            levels: list[set] = [set() for _ in range(depth)]
            entries: list[tuple[tuple, object]] = []

            def walk(table, path: tuple) -> None:
                if len(path) == depth:
                    entries.append((path, table))
                    return
                if not isinstance(table, dict):
                    raise NotLowered("a ready-made action table of another shape")
                for value, inner in table.items():
                    levels[len(path)].add(self.value(value))
                    walk(inner, (*path, self.value(value)))

            walk(self.ns[name], ())
            none = c.INT64_MIN  # a none argument (a parameter that may be left out) takes the last place
            dense = [sorted(v for v in level if v != none) for level in levels]
            lows = [values[0] if values else 0 for values in dense]
            spans = [(values[-1] - values[0] + 1 if values else 0) + (none in level)
                     for values, level in zip(dense, levels)]
            size = 1
            for span in spans:
                size *= max(1, span)
            if size > 1 << 20:
                raise NotLowered("a ready-made action table too sparse to lay out")
            ids = [-1] * size
            for path, action in entries:
                if not isinstance(action, Action):
                    raise NotLowered("a ready-made action table of another shape")
                at = 0
                for value, low, span in zip(path, lows, spans):
                    at = at * span + (span - 1 if value == none else value - low)
                ids[at] = self.catalogued(action)
            self.act_table_ids[name] = len(self.act_tables)
            cname = c.Name(f"ACTT{len(self.act_tables)}")
            self.table_parts.append(c.Table(cname.name, tuple(ids)))
            self.act_tables[key] = (cname, lows, spans, [none in level for level in levels])
        return self.act_tables[key]

    # --- actions -------------------------------------------------------------------------------
    def build_catalogue(self) -> None:
        """Every action a lister can offer, numbered: the precomputed lists (`PRE`)."""
        program = self.program
        if len(program.compiler.lazy_tables) > 60:
            raise NotLowered("more actions with too many argument values than the native engine numbers")
        self.n_args = max((len(info.decl.params) for info in program.actions if info.decl is not None), default=0)
        for k, lists in enumerate(self.ns["PRE"]):
            for per_player in lists:
                for item in per_player:
                    if k in program.compiler.grouped:
                        for action in item[1]:
                            self.catalogued(action)
                    else:
                        self.catalogued(item)

    def catalogued(self, action: Action) -> int:
        key = action
        if key not in self.catalogue:
            self.catalogue[key] = len(self.catalogue_actions)
            self.catalogue_actions.append(action)
            self.n_args = max(self.n_args, len(action[1]))
        return self.catalogue[key]

    def lazy_block(self, aid: int) -> tuple[int, list[int], list[int], list[bool], list[list]]:
        """An action with too many argument values to list at once: its actions numbered by their
        arguments from (k + 1) << 24, k its block (first id, lowest values, spans, none's places,
        the Python value at each place, per argument), so that no table of them is made."""
        if aid not in self.lazy_blocks:
            choices = self.program.compiler.action_tables[aid]
            lows, spans, nones, values = [], [], [], []
            for level in choices:
                numbers = sorted({self.value(v) for v in level} - {c.INT64_MIN})
                low = numbers[0] if numbers else 0
                span = (numbers[-1] - low + 1 if numbers else 0) + (None in level)
                at: list = [_ABSENT] * span
                for v in level:
                    at[span - 1 if v is None else self.value(v) - low] = v
                lows.append(low)
                spans.append(span)
                nones.append(None in level)
                values.append(at)
            size = 1
            for span in spans:
                size *= max(1, span)
            if size >= 1 << 24:
                raise NotLowered("an action with more combinations of arguments than the native engine numbers")
            self.n_args = max(self.n_args, len(choices))
            first = (len(self.lazy_blocks) + 1) << 24
            self.lazy_blocks[aid] = (first, lows, spans, nones, values)
        return self.lazy_blocks[aid]

    def catalogue_tables(self) -> list[c.Table | c.Define]:
        """The catalogue in C: each listed action's id in the program and arguments, and the
        blocks of actions numbered by their arguments (rf_actions.h reads both)."""
        acts = self.catalogue_actions
        if len(acts) >= 1 << 24:
            raise NotLowered("more ready-made actions than the native engine numbers")
        n_args = max(1, self.n_args)
        args = [self.value(a[1][k]) if k < len(a[1]) else c.INT64_MIN for a in acts for k in range(n_args)]
        blocks = sorted(self.lazy_blocks.items(), key=lambda item: item[1][0])
        lazy_aid = [aid for aid, _ in blocks]
        pad = [0] * n_args
        lows = [x for _, b in blocks for x in (b[1] + pad)[:n_args]]
        spans = [x for _, b in blocks for x in (b[2] + pad)[:n_args]]
        nones = [int(x) for _, b in blocks for x in (b[3] + [False] * n_args)[:n_args]]
        depth = [len(b[1]) for _, b in blocks]
        return [c.Table("ACT_AID", tuple(a[0] for a in acts) or (0,)), c.Table("ACT_ARGS", tuple(args) or (0,)),
                c.Table("LAZY_AID", tuple(lazy_aid) or (0,)), c.Table("LAZY_DEPTH", tuple(depth) or (0,)),
                c.Table("LAZY_LOW", tuple(lows) or (0,)), c.Table("LAZY_SPAN", tuple(spans) or (1,)),
                c.Table("LAZY_NONE", tuple(nones) or (0,)), c.Define("NCATALOGUE", max(1, len(acts))),
                c.Define("NLAZY", len(blocks))]

    def grouped_table(self, k: int) -> tuple[c.Name, c.Name, c.Name, c.Name]:
        """`PRE[k]` grouped by first argument: per player its groups (offsets), each group's
        first argument, where its actions start, and the actions' catalogue ids."""
        if k not in self.program.compiler.grouped:
            raise NotLowered("legal actions taken as groups that are not grouped")
        if k not in self.grouped_tables:
            at, firsts, starts, ids = [0], [], [0], []
            for per_player in self.ns["PRE"][k]:
                for first, actions in per_player:
                    firsts.append(self.value(first))
                    ids.extend(self.catalogued(a) for a in actions)
                    starts.append(len(ids))
                at.append(len(firsts))
            n = len(self.grouped_tables)
            names = [f"GRP{n}_AT", f"GRP{n}_FIRST", f"GRP{n}_START", f"GRP{n}_IDS"]
            for name, values in zip(names, (at, firsts, starts, ids)):
                self.table_parts.append(c.Table(name, tuple(values) or (0,)))
            self.grouped_tables[k] = tuple(c.Name(name) for name in names)
        return self.grouped_tables[k]

    def pre_table(self, k: int) -> tuple[c.Name, c.Name]:
        """`PRE[k]`: per player, the actions a state-free lister goes through, as catalogue ids."""
        if k in self.program.compiler.grouped:
            raise NotLowered("grouped legal actions gone through one by one")
        if k not in self.pre_tables:
            lists = self.ns["PRE"][k]
            offsets = [0]
            items: list[int] = []
            for per_player in lists:
                items.extend(self.catalogued(a) for a in per_player)
                offsets.append(len(items))
            n = len(self.pre_tables)
            off, its = f"PRE{n}_AT", f"PRE{n}_IDS"
            self.table_parts += [c.Table(off, tuple(offsets)), c.Table(its, tuple(items) or (0,))]
            self.pre_tables[k] = (c.Name(off), c.Name(its))
        return self.pre_tables[k]

    # --- functions -----------------------------------------------------------------------------
    def lower_function(self, name: str) -> c.Function:
        f = self.defined[name]
        if name == "rank_key":
            return self.lower_rank(f)
        params = [a.arg for a in f.args.args]
        if f.args.vararg or f.args.kwarg or params[:1] != ["st"] or not all(
                isinstance(d, py.Constant) for d in f.args.defaults):
            raise NotLowered(f"the signature of {safe_name(name)}")
        self.scope = scope = Scope(self, {})
        c_params: list[tuple[str, str]] = [("State *", "st")]
        returns = "int64_t"
        for p in params[1:]:
            if p == "out" and name.startswith("legal_"):
                scope.legal_out = True
                returns = "void"
                continue
            cname = f"p{next(self.counter)}"
            scope.names[p] = c.Name(cname)
            c_params.append(("int64_t", cname))
        if name.startswith("score_"):
            scope.arrays["out"] = (c.Name("items"), self.n_items)
            c_params.append(("int64_t *", "items"))
            body = self.body(f.body[:-1]) + self.score_return(f.body[-1])
        else:
            body = self.body(f.body)
        return c.Function(self.functions[name], tuple(c_params), returns, self.declarations(scope) + body)

    def score_return(self, last: py.stmt) -> tuple[c.Stmt, ...]:
        """`return (out, t)`: the items are in the caller's array; the total is returned."""
        if not (isinstance(last, py.Return) and isinstance(last.value, py.Tuple) and len(last.value.elts) == 2):
            raise NotLowered("a scoring that does not end as scorings do")
        return (c.Return(self.scalar(last.value.elts[1])),)

    def lower_rank(self, f: py.FunctionDef) -> c.Function:
        """`rank_key(st, p)` -> a tuple: written into `key`."""
        self.scope = scope = Scope(self, {"p": c.Name("player")})
        *head, last = f.body
        if not (isinstance(last, py.Return) and isinstance(last.value, py.Tuple)):
            raise NotLowered("a ranking that is not a tuple")
        body = self.body(head)
        parts = [c.Assign(c.Index(c.Name("key"), c.Int(i)), self.scalar(e)) for i, e in enumerate(last.value.elts)]
        self.n_rank = len(parts)
        return c.Function("rf_rank", (("State *", "st"), ("int64_t", "player"), ("int64_t *", "key")), "void",
                          self.declarations(scope) + body + tuple(parts))

    def item_groups(self) -> dict[str, int]:
        """The breakdown's items by label, numbered as a breakdown first names them (two
        scorings may give points under one label: the label's points are their sum)."""
        return {label: i for i, label in enumerate(dict.fromkeys(label for _, label in self.program.items))}

    def lower_measures(self) -> c.Function:
        """`rf_measure_all(st, out)`: every `measure` of the rules, in the order declared."""
        self.scope = Scope(self, {})
        body = [c.Assign(c.Index(c.Name("out"), c.Int(i)), c.Call(self.want(f"measure_{i}"), (ST,)))
                for i in range(len(self.program.measures))]
        return c.Function("rf_measure_all", (("State *", "st"), ("int64_t *", "out")), "void", tuple(body))

    def lower_flow(self, f: py.FunctionDef) -> c.Function:
        """The generator `flow_main` as a resumable function (a `switch` on `st->resume`)."""
        self.scope = scope = FlowScope(self, {})
        scope.in_flow = True
        body = self.body(f.body)
        ending = (c.Assign(st_field("over"), c.Int(1)), c.Assign(st_field("nlegal"), c.Int(0)),
                  c.Assign(st_field("resume"), c.Int(-1)), c.Return(c.Int(0)))
        switch = c.Switch(st_field("resume"), (c.Case(0), *body))
        return c.Function("rf_flow", (("State *", "st"),), "int32_t",
                          (*self.declarations(scope), c.If(st_field("over"), (c.Return(c.Int(0)),)), switch, *ending))

    def returned(self, value: py.expr | None) -> list[c.Stmt]:
        if self.inlining:  # the end of an action's effect pasted into the flow
            if value is not None:
                raise NotLowered("an action's effect returning a value")
            return [c.Goto(self.inlining[-1][1])]
        if self.scope.in_flow:
            if value is not None:
                raise NotLowered("the flow returning a value")
            return [c.Assign(st_field("over"), c.Int(1)), c.Assign(st_field("nlegal"), c.Int(0)),
                    c.Assign(st_field("resume"), c.Int(-1)), c.Return(c.Int(0))]
        return super().returned(value)

    @staticmethod
    def declarations(scope: Scope) -> tuple[c.Stmt, ...]:
        out: list[c.Stmt] = [c.Decl("int64_t", name, c.Int(0)) for name in scope.declared]
        out += [c.Decl("int64_t", name, size=size) for name, size in scope.array_decls]
        return tuple(out)

    def callees_first(self, done: dict[str, c.Function]) -> list[c.Function]:
        """The functions ordered so that each comes after those it calls: C needs a function
        declared before it is called, and the emitter writes definitions only (the generated
        defs call only defs made before them, so there is no cycle)."""
        by_cname = {self.functions[name]: name for name in done}
        order: list[str] = []
        seen: set[str] = set()

        def visit(name: str) -> None:
            if name in seen:
                return
            seen.add(name)
            for callee in _callees(done[name]):
                if callee in by_cname:
                    visit(by_cname[callee])
            order.append(name)

        for name in done:
            visit(name)
        return [done[name] for name in order]


def _callees(f: c.Function) -> Iterator[str]:
    todo: list = list(f.body)
    while todo:
        x = todo.pop()
        if isinstance(x, c.Call):
            yield x.func
        if attrs.has(type(x)):
            for field in attrs.fields(type(x)):
                value = getattr(x, field.name)
                if isinstance(value, tuple):
                    todo.extend(value)
                elif attrs.has(type(value)):
                    todo.append(value)


def gate(program) -> None:
    """What keeps a program off the native engine before anything is lowered."""
    if program.compiler is None:
        raise NotLowered("a program without its compiler's records")
    if getattr(program, "flow", None) is None:
        raise NotLowered("rules that play on the block machine only (turn together)")


def lower(program) -> Lowered:
    """The program's C unit; NotLowered names the first thing the native engine cannot run."""
    return Lowering(program).lower()


__all__ = ["Lowered", "NotLowered", "lower", "call", "ST"]
