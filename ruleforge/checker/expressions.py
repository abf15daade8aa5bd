"""Checking expressions: names, calls, generators and aggregates, each typed and recorded
for the compiler."""

from __future__ import annotations

from .. import ast
from ..model import (
    ANY,
    COMP,
    FLAG,
    INT,
    NONE,
    PLAYER,
    TEXT,
    ZONE,
    Type,
    compatible,
    element_of,
    list_of,
)
from .names import AGGREGATES, CONSTANTS, END_FLAGS, FUNCTIONS, Scope

SIDE = Type("enum", "side")
# aggregates that need `by`, and what their key is
KEYED = {"argmax": "key", "argmin": "key", "sorted": "key", "longest_paths": "segments"}


class ExpressionChecks:
    """The expressions' part of `Checker`."""

    # --- expressions ------------------------------------------------------------------
    def expect(self, e: ast.Expr, scope: Scope, want: Type, what: str) -> Type:
        got = self.expr(e, scope)
        if not compatible(want, got):
            self.error(e.pos, f"{what} must be {want}, not {got}")
        return got

    def check_string(self, s: ast.StrLit, scope: Scope) -> None:
        for part in s.parts:
            if isinstance(part, ast.Expr):
                self.expr(part, scope)

    def expr(self, e: ast.Expr, scope: Scope) -> Type:
        t = self._expr(e, scope)
        self.types[e] = t
        return t

    def _expr(self, e: ast.Expr, scope: Scope) -> Type:
        m = self.model
        if isinstance(e, ast.IntLit):
            return INT
        if isinstance(e, ast.StrLit):
            self.check_string(e, scope)
            return TEXT
        if isinstance(e, ast.Name):
            return self.name(e, scope)
        if isinstance(e, ast.Attr):
            obj = self.expr(e.obj, scope)
            if obj.kind not in ("comp", "any"):
                self.error(e.pos, f"only components have attributes; this is {obj}")
                return ANY
            if obj.kind == "comp" and obj.name:
                info = m.kinds[obj.name]
                if e.attr not in info.attrs and e.attr not in info.props:
                    self.error(e.pos, f"kind '{obj.name}' has no attribute '{e.attr}'",
                               self.suggest(e.attr, list(info.attrs) + list(info.props)))
                    return ANY
            at = m.attr_types.get(e.attr)
            if at is None:
                self.error(e.pos, f"no kind has an attribute '{e.attr}'", self.suggest(e.attr, m.attr_types))
                return ANY
            self.res[e] = ("prop" if at[1] else "attr", e.attr)
            return at[0]
        if isinstance(e, ast.Index):
            return self.index(e, scope)
        if isinstance(e, ast.Call):
            return self.call(e, scope)
        if isinstance(e, ast.GenCall):
            return self.gen_call(e, scope)
        if isinstance(e, ast.Players):
            if e.start is not None:
                self.expect(e.start, scope, PLAYER, "the first player")
            return list_of(PLAYER)
        if isinstance(e, ast.ListLit):
            ts = [self.expr(i, scope) for i in e.items]
            for item, t in zip(e.items[1:], ts[1:]):
                if not compatible(ts[0], t) and not compatible(t, ts[0]) or t.kind != ts[0].kind:
                    if ANY not in (t, ts[0]) and NONE not in (t, ts[0]):
                        self.error(item.pos, f"a list holds one type: this is {t}, the first is {ts[0]}")
            return list_of(ts[0] if ts else ANY)
        if isinstance(e, ast.Table):
            self.expect(e.subject, scope, INT, "a table's subject")
            ts = [self.expr(en.value, scope) for en in e.entries]
            keys = [en.key for en in e.entries if en.key is not None]
            if len(keys) != len(set(keys)):
                self.error(e.pos, "a table has the same key twice")
            return ts[0] if ts else ANY
        if isinstance(e, ast.IfExpr):
            self.expect(e.cond, scope, FLAG, "a condition")
            a = self.expr(e.then, scope)
            b = self.expr(e.other, scope)
            if not compatible(a, b) and not compatible(b, a):
                if {a.kind, b.kind} <= {"int", "text"}:
                    return TEXT
                self.error(e.pos, f"the two branches differ: {a} and {b}")
            return a if a != NONE else b
        if isinstance(e, ast.BoolOp):
            self.expect(e.left, scope, FLAG, f"the left side of '{e.op}'")
            self.expect(e.right, scope, FLAG, f"the right side of '{e.op}'")
            return FLAG
        if isinstance(e, ast.Not):
            self.expect(e.operand, scope, FLAG, "the operand of 'not'")
            return FLAG
        if isinstance(e, ast.Compare):
            a = self.expr(e.left, scope)
            if e.op == "is" and isinstance(e.right, ast.Name) and e.right.ident in m.kinds:
                b = ANY
            else:
                b = self.expr(e.right, scope)
            if e.op == "is":
                if not compatible(COMP, a):
                    self.error(e.left.pos, f"'is' tests a component, not {a}")
                if isinstance(e.right, ast.Name) and e.right.ident in m.kinds:
                    self.types[e.right] = ANY
                    self.res[e.right] = ("kind", e.right.ident)
                    self.res[e] = ("kind_test", e.right.ident)
                    return FLAG
                want = self.counts_as_enum()
                if want == ANY:
                    self.error(e.pos, "'is' needs a kind name, or a kind that declares 'counts as'")
                elif not compatible(want, b):
                    self.error(e.right.pos, f"'is' tests what a component counts as ({want}), not {b}")
                self.res[e] = ("counts_as", None)
                return FLAG
            if e.op == "in":
                el = element_of(b)
                if el is None:
                    self.error(e.right.pos, f"'in' needs a zone or a list on its right, not {b}")
                elif not compatible(el, a):
                    self.error(e.pos, f"cannot look for {a} in {b}")
            elif e.op in ("==", "!="):
                if not compatible(a, b) and not compatible(b, a):
                    self.error(e.pos, f"cannot compare {a} with {b}")
            else:
                for side, t in ((e.left, a), (e.right, b)):
                    if not compatible(INT, t):
                        self.error(side.pos, f"'{e.op}' compares numbers, not {t}")
            return FLAG
        if isinstance(e, ast.Range):
            self.expect(e.low, scope, INT, "a range's start")
            self.expect(e.high, scope, INT, "a range's end")
            return list_of(INT)
        if isinstance(e, ast.BinOp):
            a = self.expr(e.left, scope)
            b = self.expr(e.right, scope)
            if e.op == "+" and {a.kind, b.kind} & {"list", "zone", "grid"}:
                # joining collections: lists, or the contents of zones and grids
                ea, eb = element_of(a), element_of(b)
                if ea is None or eb is None or not (compatible(ea, eb) or compatible(eb, ea)):
                    self.error(e.pos, f"'+' joins two collections of one type, not {a} and {b}")
                    return ANY
                self.res[e] = ("join", None)
                return list_of(ea if ea != ANY else eb)
            for side, t in ((e.left, a), (e.right, b)):
                if not compatible(INT, t):
                    self.error(side.pos, f"{'the left' if side is e.left else 'the right'} side of "
                               f"'{e.op}' must be int, not {t}")
            return INT
        if isinstance(e, ast.Neg):
            self.expect(e.operand, scope, INT, "the operand of '-'")
            return INT
        self.error(e.pos, f"unsupported expression {type(e).__name__}")  # pragma: no cover
        return ANY

    def index(self, e: ast.Index, scope: Scope) -> Type:
        """`xs[i]`: a list's item, counted from 0 as `index(c)` counts."""
        obj = self.expr(e.obj, scope)
        self.expect(e.index, scope, INT, "a list index")
        if obj.kind == "list":
            return obj.element or ANY
        if obj.kind in ("any", "none"):
            return ANY
        hint = None
        if obj.kind in ("zone", "grid"):
            hint = "a zone is not a list: take its items with list(c for c in Z), or use top_of, first or last"
        elif obj.kind == "text":
            hint = "a text has no items to index"
        self.error(e.obj.pos, f"only lists can be indexed with [...]; this is {obj}", hint)
        return ANY

    def setup_error(self, e: ast.Expr, what: str, scope: Scope) -> bool:
        if scope.setup:
            self.error(e.pos, f"{what} cannot be read when the game is set up",
                       "setup values may use numbers, options, player_count, enums and defs of those")
        return scope.setup

    def name(self, e: ast.Name, scope: Scope) -> Type:
        m = self.model
        n = e.ident
        if n in m.vars and n not in scope.locals and self.setup_error(e, f"variable '{n}'", scope):
            return ANY
        if n in m.zones and n not in scope.locals and self.setup_error(e, f"zone '{n}'", scope):
            return ANY
        if n in scope.locals:
            self.res[e] = ("local", n)
            return scope.locals[n]
        if n == "me":
            self.error(e.pos, "'me' exists only inside an action or a turn")
            return ANY
        if n in CONSTANTS:
            self.res[e] = ("const", n)
            return CONSTANTS[n]
        if n in END_FLAGS and n not in m.vars:
            if not m.end_rules:
                self.error(e.pos, f"'{n}' is kept only for games with an 'end when' rule")
                return ANY
            self.res[e] = ("end_flag", n)
            return END_FLAGS[n]
        if n in m.vars:
            v = m.vars[n]
            if v.per_player:
                self.error(e.pos, f"'{n}' is per player", f"write '{n}(p)' for one player's value")
                return ANY
            self.res[e] = ("var", v)
            return self.resolve_type(v.type)
        if n in m.options:
            self.res[e] = ("option", m.options[n])
            return self.resolve_type(m.options[n].type)
        if n in m.zones:
            z = m.zones[n]
            if z.per_player:
                self.error(e.pos, f"zone '{n}' is per player", f"write '{n}(p)' for one player's zone")
                return ANY
            self.res[e] = ("zone", z)
            return Type("grid" if z.shape == "grid" else "zone", z.name)
        if n in m.defs:
            d = m.defs[n]
            if d.params:
                self.error(e.pos, f"'{n}' takes {len(d.params)} argument(s)",
                           f"call it as {n}({', '.join(p.name for p in d.params)})")
                return ANY
            self.res[e] = ("def", d)
            return self.def_type(n)
        if n in m.members:
            self.res[e] = ("enum", n)
            return Type("enum", m.members[n])
        if n in m.kinds:
            self.error(e.pos, f"'{n}' is a kind, not a value", f"test a component's kind with 'x is {n}'")
            return ANY
        candidates = lambda: set(scope.locals) | set(CONSTANTS) | m.all_names()  # noqa: E731
        self.error(e.pos, f"unknown name '{n}'", self.suggest(n, candidates))
        return ANY

    def call(self, e: ast.Call, scope: Scope) -> Type:
        m = self.model
        f = e.func
        args = e.args
        if (f in m.vars or f in m.zones) and self.setup_error(e, f"'{f}'", scope):
            return ANY
        if f in m.vars or f in m.zones:
            decl = m.vars.get(f) or m.zones[f]
            if not decl.per_player:
                self.error(e.pos, f"'{f}' is shared, not per player", f"write '{f}' without '(...)'")
                return ANY
            if len(args) != 1:
                self.error(e.pos, f"'{f}(p)' takes exactly one player")
                return ANY
            self.expect(args[0], scope, PLAYER, "a player")
            if f in m.vars:
                self.res[e] = ("var_p", decl)
                return self.resolve_type(decl.type)
            self.res[e] = ("zone_p", decl)
            return Type("grid" if decl.shape == "grid" else "zone", decl.name)
        if f in m.defs:
            d = m.defs[f]
            if len(args) != len(d.params):
                self.error(e.pos, f"'{f}' takes {len(d.params)} argument(s), {len(args)} given")
            for p, a in zip(d.params, args):
                self.expect(a, scope, self.resolve_type(p.type), f"argument '{p.name}' of '{f}'")
            self.res[e] = ("def", d)
            return self.def_type(f)
        if f in AGGREGATES:
            if len(args) != 1:
                self.error(e.pos, f"'{f}' takes one collection, or a generator '{f}(x for x in ...)'")
                return ANY
            if f in KEYED:
                self.error(e.pos, f"'{f}' needs 'by': {f}(x for x in ... by {KEYED[f]})")
                return ANY
            t = self.expr(args[0], scope)
            el = element_of(t)
            if el is None:
                self.error(args[0].pos, f"'{f}' needs a zone or a list, not {t}")
                el = ANY
            self.res[e] = ("aggregate", f)
            return self._aggregate_type(e, f, el, el)
        if f in FUNCTIONS:
            lo, hi = FUNCTIONS[f]
            if not lo <= len(args) <= hi:
                self.error(e.pos, f"'{f}' takes {lo} argument(s), {len(args)} given")
                return ANY
            ts = [self.expr(a, scope) for a in args]
            self.res[e] = ("builtin", f)
            if f in ("next", "prev"):
                if not compatible(PLAYER, ts[0]):
                    self.error(args[0].pos, f"'{f}' needs a player, not {ts[0]}")
                return PLAYER
            if f == "random":
                if scope.pure:
                    self.error(e.pos, "'random' draws by chance and may only be used in effects",
                               "compute it in a flow, phase or action statement")
                el = element_of(ts[0])
                if el is None:
                    self.error(args[0].pos, f"'random' picks from a zone or a list, not {ts[0]}")
                    return ANY
                return el
            if f == "abs":
                return INT
            if f == "index":
                return INT
            if f == "zone_of":
                return ZONE
            return self.grid_function(e, f, ts)
        candidates = lambda: (set(m.defs) | AGGREGATES | set(FUNCTIONS)  # noqa: E731
                              | {n for n, v in m.vars.items() if v.per_player}
                              | {n for n, z in m.zones.items() if z.per_player})
        self.error(e.pos, f"unknown function '{f}'", self.suggest(f, candidates))
        for a in args:
            self.expr(a, scope)
        return ANY

    def grid_function(self, e: ast.Call, f: str, ts: list[Type]) -> Type:
        """cell, cells, row, column, adjacent, neighbour, top_of, owner: positions on grids and zones."""
        def need(i: int, kinds: tuple[str, ...], what: str) -> None:
            if ts[i].kind not in kinds + ("any",):
                self.error(e.args[i].pos, f"'{f}' needs {what}, not {ts[i]}")

        if f == "cell":
            need(0, ("grid",), "a grid zone")
            need(1, ("int",), "a row number")
            need(2, ("int",), "a column number")
            return Type("zone", ts[0].name)
        if f == "cells":
            need(0, ("grid",), "a grid zone")
            return list_of(Type("zone", ts[0].name))
        if f in ("row", "column"):
            need(0, ("zone", "comp"), "a cell or a component on a grid")
            return INT
        if f == "adjacent":
            need(0, ("zone", "comp"), "a cell or a component on a grid")
            return list_of(Type("zone", ts[0].name if ts[0].kind == "zone" else ""))
        if f == "top_of":
            need(0, ("zone",), "a zone or a cell")
            return COMP
        if f == "owner":
            need(0, ("zone", "comp", "grid"), "a component or a zone")
            return PLAYER
        if f == "counted_as":
            need(0, ("comp",), "a component")
            return list_of(self.counts_as_enum())
        if f in ("room", "capacity"):
            need(0, ("zone",), "a zone")
            return INT
        if f == "opposite":
            if not compatible(SIDE, ts[0]):
                self.error(e.args[0].pos, f"'opposite' needs a side, not {ts[0]}")
            return SIDE
        if f == "neighbour":
            need(0, ("zone", "comp"), "a cell or a component on a grid")
            if not compatible(SIDE, ts[1]):
                self.error(e.args[1].pos, f"'neighbour' needs a side, not {ts[1]}")
            return Type("zone", ts[0].name if ts[0].kind == "zone" else "")
        if f in ("rows", "columns", "span_rows", "span_columns"):
            need(0, ("grid",), "a grid zone")
            if len(ts) > 1:
                need(1, ("zone",), "a cell of that grid")
            return INT
        return ANY  # pragma: no cover - every built-in is handled above

    def gen_call(self, e: ast.GenCall, scope: Scope) -> Type:
        if e.func not in AGGREGATES:
            self.error(e.pos, f"'{e.func}' is not an aggregate",
                       self.suggest(e.func, AGGREGATES) or f"use one of {', '.join(sorted(AGGREGATES))}")
        el = self.loop_element(e.source, scope)
        inner = scope.child()
        inner.locals[e.var] = el
        if e.cond is not None:
            self.expect(e.cond, inner, FLAG, "a filter")
        for var, source, cond in e.more:  # further clauses, nested in order
            sub = self.loop_element(source, inner)
            inner = inner.child()
            inner.locals[var] = sub
            if cond is not None:
                self.expect(cond, inner, FLAG, "a filter")
        item = self.expr(e.item, inner)
        if e.func == "groups" and item.kind not in ("zone", "comp", "any"):
            self.error(e.item.pos, f"'groups' joins cells or components on a grid, not {item}")
        if e.func == "longest_paths" and item.kind not in ("zone", "any"):
            self.error(e.item.pos, f"'longest_paths' goes through cells of a grid, not {item}")
        if e.key is not None:
            if e.func not in KEYED:
                self.error(e.key.pos, f"'by' belongs to argmax, argmin, sorted and longest_paths, not '{e.func}'")
            elif e.func == "longest_paths":
                self.expect(e.key, inner, list_of(list_of(SIDE)), "a cell's segments")
            else:
                self.expect(e.key, inner, INT, "a sort key")
        elif e.func in KEYED:
            self.error(e.pos, f"'{e.func}' needs 'by': {e.func}(x for x in ... by {KEYED[e.func]})")
        return self._aggregate_type(e, e.func, item, el)

    def loop_element(self, source: ast.Expr, scope: Scope) -> Type:
        """The type of what a loop over `source` yields (an error if it yields nothing)."""
        t = self.expr(source, scope)
        el = element_of(t)
        if el is None:
            self.error(source.pos, f"cannot loop over {t}")
            return ANY
        return el

    def _aggregate_type(self, e: ast.Expr, f: str, item: Type, el: Type) -> Type:
        if f in ("count", "distinct"):
            return INT
        if f in ("sum", "min", "max"):
            if not compatible(INT, item):
                self.error(e.pos, f"'{f}' adds up numbers, not {item}")
            return INT
        if f in ("any", "every"):
            if not compatible(FLAG, item):
                self.error(e.pos, f"'{f}' needs a condition per item, not {item}")
            return FLAG
        if f in ("first", "last"):
            return item
        if f in ("argmax", "argmin"):
            return item
        if f in ("list", "sorted"):
            return list_of(item)
        if f in ("groups", "longest_paths"):
            return list_of(list_of(item))
        return ANY


