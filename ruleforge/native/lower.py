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

from ..limits import LIMITS
from ..runtime import Action
from . import ctree as c
from .expressions import ST, NotLowered, Scope, call, safe_name, st_field
from .statements import StatementLowering

MAX_LEGAL_DEFAULT = 4096  # legal actions a decision may offer natively (more: the reference engine)


@attrs.frozen
class Lowered:
    """A game's C unit and what reading a native game back needs."""

    unit: c.Unit
    catalogue: tuple[Action, ...]  # the id of a legal action in C -> the program's Action
    texts: dict[str, int]
    n_rank: int


class FlowScope(Scope):
    """The flow's names: every local lives in the state (`st->loc[k]`), since the flow stops at
    each decision and goes on later, perhaps in a copy of the state."""

    def place_for(self, name: str) -> c.Expr:
        return self.slot()

    def slot(self) -> c.Expr:
        k = self.lowering.n_loc
        self.lowering.n_loc += 1
        return c.Index(st_field("loc"), c.Int(k))


class Lowering(StatementLowering):
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
        self.resume_points: Iterator[int] = itertools.count(1)
        self.catalogue: dict[tuple, int] = {}
        self.catalogue_actions: list[Action] = []
        self.n_args = 0
        self.pre_tables: dict[int, tuple[c.Name, c.Name]] = {}
        self.defined: dict[str, py.FunctionDef] = {}

    # --- entry ---------------------------------------------------------------------------------
    def lower(self) -> Lowered:
        program = self.program
        gate(program)
        flow_module = program.compiler.compile_generators()
        for module in (program.module, flow_module):
            for f in module.body:
                if isinstance(f, py.FunctionDef):
                    self.defined[f.name] = f
        generators = [n for n in self.defined if n.startswith("flow_") and n != "flow_main"]
        if generators:
            raise NotLowered("actions that decide inside their effect (a generator of their own)")
        self.build_catalogue()
        flow = self.lower_flow(self.defined["flow_main"])
        rank = self.lower_rank(self.defined["rank_key"])
        done: dict[str, c.Function] = {}
        while self.todo:
            name = self.todo.pop()
            if name not in done:
                done[name] = self.lower_function(name)
        parts = [*self.sizes(), c.Include("rf_runtime.h"), *self.catalogue_tables(), *self.table_parts,
                 *self.initial_tables(), *self.prototypes(done), *done.values(), flow, rank,
                 c.Include("rf_module.c")]
        return Lowered(c.Unit(tuple(parts)), tuple(self.catalogue_actions), dict(self.texts), self.n_rank)

    def want(self, name: str) -> str:
        """The C name of a generated function the code being lowered calls (lowered later)."""
        if name not in self.defined:
            raise NotLowered(f"the function {safe_name(name)}")
        if name not in self.functions:
            self.functions[name] = f"fn{len(self.functions)}"
            self.todo.append(name)
        return self.functions[name]

    # --- the layout ----------------------------------------------------------------------------
    def sizes(self) -> list[c.Define]:
        p = self.program
        n_items = max(1, len(p.items))
        return [c.Define("NZ", self.n_zones), c.Define("NC", len(p.comp_kind)),
                c.Define("ZCAP", max(1, len(p.comp_kind))), c.Define("NV", max(1, len(p.var_init))),
                c.Define("NPROP", max(1, len(p.props))), c.Define("NB", max(1, p.players * len(p.items))),
                c.Define("NLOC", max(1, self.n_loc)), c.Define("MAXLEGAL", MAX_LEGAL_DEFAULT),
                c.Define("NPLAYERS", p.players), c.Define("NITEMS_MAX", n_items),
                c.Define("NONE_SLOT", len(p.comp_kind)), c.Define("NRANK", max(1, self.n_rank)),
                c.Define("NACTIONS", max(1, len(self.catalogue_actions))), c.Define("NARGS", max(1, self.n_args)),
                c.Define("NSCORE_BASES", len(p.model.score_targets)),
                c.Define("RF_SKIPS_LIMIT", LIMITS.skips_in_a_row),
                c.Define("RF_DECISIONS_LIMIT", LIMITS.decisions_per_game),
                c.Define("RF_BLOCKS_LIMIT", LIMITS.blocks_without_decision)]

    def initial_tables(self) -> list[c.Table]:
        p = self.program
        props = [self.value(init) for init in p.prop_init] or [0]
        bases = tuple(p.var_base[t] for t in p.model.score_targets)
        return [c.Table("INIT_W", tuple(p.comp_start) or (0,), "int32_t"),
                c.Table("SCORE_BASES", bases or (0,), "int32_t"),
                c.Table("INIT_V", tuple(self.value(v) for v in p.var_init) or (0,)),
                c.Table("INIT_P", tuple(props))]

    def table(self, name: str) -> tuple[c.Name, int]:
        """A constant list of the namespace (an attribute per component, a cell's row...)."""
        if name not in self.tables:
            values = tuple(self.value(v) for v in self.ns[name])
            cname = f"TBL{len(self.tables)}"
            self.table_parts.append(c.Table(cname, values))
            self.tables[name] = (c.Name(cname), len(values))
        return self.tables[name]

    # --- actions -------------------------------------------------------------------------------
    def build_catalogue(self) -> None:
        """Every action a lister can offer, numbered: the precomputed lists (`PRE`)."""
        program = self.program
        if program.compiler.grouped:
            raise NotLowered("legal actions grouped by their first argument")
        if program.compiler.lazy_tables:
            raise NotLowered("actions with too many argument values to list at once")
        if any(info.limits for info in program.actions):
            raise NotLowered("actions with a limit of uses")
        for lists in self.ns["PRE"]:
            for per_player in lists:
                for action in per_player:
                    self.catalogued(action)

    def catalogued(self, action: Action) -> int:
        key = action
        if key not in self.catalogue:
            self.catalogue[key] = len(self.catalogue_actions)
            self.catalogue_actions.append(action)
            self.n_args = max(self.n_args, len(action[1]))
        return self.catalogue[key]

    def catalogue_tables(self) -> list[c.Table]:
        acts = self.catalogue_actions
        parts = [c.Table("ACT_AID", tuple(a[0] for a in acts) or (0,))]
        for k in range(max(1, self.n_args)):
            parts.append(c.Table(f"ACT_ARG{k}", tuple(self.value(a[1][k]) if k < len(a[1]) else c.INT64_MIN
                                                      for a in acts) or (0,)))
        return parts

    def pre_table(self, k: int) -> tuple[c.Name, c.Name]:
        """`PRE[k]`: per player, the actions a state-free lister goes through, as catalogue ids."""
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
        params = [a.arg for a in f.args.args]
        if f.args.vararg or f.args.kwarg or f.args.defaults or params[:1] != ["st"]:
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

    def prototypes(self, done: dict[str, c.Function]) -> list:
        """C needs a function declared before it is called; the emitter writes definitions only,
        so the functions are ordered callees first (the generated defs call only earlier ones)."""
        order: list[str] = []
        seen: set[str] = set()

        def visit(name: str) -> None:
            if name in seen:
                return
            seen.add(name)
            for callee in _callees(done[name]):
                if callee in done_by_cname:
                    visit(done_by_cname[callee])
            order.append(name)

        done_by_cname = {self.functions[n]: n for n in done}
        for name in list(done):
            visit(name)
        reordered = {name: done[name] for name in order}
        done.clear()
        done.update(reordered)
        return []


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
