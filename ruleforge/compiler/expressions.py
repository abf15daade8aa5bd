"""Expressions to Python expression trees, with the rewrites for speed (docs/design.md)."""

from __future__ import annotations

import ast as py
import math
from collections.abc import Callable

from .. import ast, runtime
from ..diagnostics import Diagnostic, RulesError
from ..limits import LIMITS, describe
from ..model import Type
from . import invariants
from . import pytree as t
from .occupied import never_none, over_nonempty, skip_empty
from .program import Env
from .rewrites import (
    as_list,
    cell_index,
    count_names,
    count_vs_zero,
    extreme,
    fixed_range,
    fold_int,
    is_span,
    none_or_some,
    zone_count_vs_zero,
)

UNROLLED = ("count", "any", "every", "sum")  # generators written out term by term when short
MAX_UNROLLED = 10
MAX_UNROLLED_NODES = 130  # syntax nodes of the item and condition copied per value
EMPTY = {"count": 0, "sum": 0, "any": False, "every": True}  # each of UNROLLED over no items


class ExpressionCompiler:
    """The expressions' part of `Compiler`."""

    # --- expressions --------------------------------------------------------------------------
    def iterable(self, e: ast.Expr, env: Env) -> t.Code:
        """cx_iter for a generator's source, where Python forbids assignment expressions."""
        self.in_iterable += 1
        try:
            return self.cx_iter(e, env)
        finally:
            self.in_iterable -= 1

    def cx_iter(self, e: ast.Expr, env: Env) -> t.Code:
        """Code for iterating over a zone (its contents), a grid (every cell's) or a list."""
        kind = self.ck.types.get(e)
        code = self.cx(e, env)
        if kind is not None and kind.kind == "zone":
            return t.sub("Z", code)
        if kind is not None and kind.kind == "grid":
            rows, cols = self.grid_size[kind.name]
            return t.call("grid_items", "Z", code, rows * cols)
        return code

    def loop_source(self, e: ast.Expr, env: Env) -> t.Code:
        """What a loop or an action's parameter goes through: a range `a..b` there is bounded by
        its own limit (the rounds of a loop, the choices of a decision), checked by the caller."""
        if isinstance(e, ast.Range):
            return t.call("range", self.cx(e.low, env), t.binop(self.cx(e.high, env), "+", t.const(1)))
        return self.cx_iter(e, env)

    def grid_of(self, e: ast.Expr) -> tuple[int, int]:
        kind = self.ck.types.get(e)
        return self.grid_size[kind.name] if kind is not None and kind.kind == "grid" else (1, 1)

    def cx_text(self, s: ast.StrLit, env: Env) -> t.Code:
        pieces = [t.const(part) if isinstance(part, str) else self.show(self.ck.types.get(part), self.cx(part, env))
                  for part in s.parts]
        text = t.add(*pieces) if pieces else t.const("")
        texts = [part for part in s.parts if not isinstance(part, str)
                 and getattr(self.ck.types.get(part), "kind", "") == "text"]
        if texts and may_grow(text):
            return t.call(t.attr("rt", "bounded_text"), text)  # a text kept in a variable may double each turn
        return text

    def template(self, s: ast.StrLit, env: Env) -> tuple[list, list[t.Code]]:
        """A log line: the text parts and the code of the values, rendered later."""
        parts, values = [], []
        for part in s.parts:
            if isinstance(part, str):
                parts.append(part)
            else:
                kind = self.ck.types.get(part)
                if kind is not None and kind.kind == "comp" and self.live_kinds:
                    parts.append(("text",))  # as the component reads now, not when the log is read
                    values.append(self.show(kind, self.cx(part, env)))
                    continue
                parts.append((kind.kind if kind else "any",))
                values.append(self.cx(part, env))
        return parts, values

    def show(self, kind: Type | None, code: t.Code, elem: bool = False) -> t.Code:
        """Code that renders a value for people: players as P1.., components by label."""
        if kind is not None and elem:
            kind = _element(kind)
        name = kind.kind if kind is not None else "any"
        if name == "comp":
            if self.live_kinds:  # some label reads properties: rendered from the state
                return t.call("shown_label", "st", code, "LBL", "LIVE")
            if self.code_may_be_none(code):  # the top of an empty zone shows as none
                return self.guarded(t.name("LBL"), code, "none", spare_entry=False)
            return t.sub("LBL", code)
        if name == "player":
            if self.code_may_be_none(code):  # an unset player variable shows as none
                return t.call("show_player", code)
            return t.binop(t.const("P"), "+", t.call("str", t.binop(code, "+", t.const(1))))
        if name == "flag":
            return t.ifexp(code, t.const("yes"), t.const("no"))
        if name == "zone":
            return t.call("show", code) if self.code_may_be_none(code) else t.sub("ZKEY", code)
        if gives_text(code):
            return code  # already a text: show() would give it back as it is
        return t.call("show", code)

    def cx(self, e: ast.Expr, env: Env) -> t.Code:
        if isinstance(e, ast.IntLit):
            return t.const(e.value)
        if isinstance(e, ast.StrLit):
            return self.cx_text(e, env)
        if isinstance(e, ast.Name):
            return self.cx_name(e, env)
        if isinstance(e, ast.Attr):
            return self.attribute(e, env)
        if isinstance(e, ast.Index):
            return t.operands(t.call("item_at", self.cx(e.obj, env), self.cx(e.index, env)), "[]", e.obj.pos, e.pos)
        if isinstance(e, ast.Call):
            return self.cx_call(e, env)
        if isinstance(e, ast.GenCall):
            return self.cx_gen(e, env)
        if isinstance(e, ast.Players):
            return t.name("PLAYERS") if e.start is None else t.sub("ROT", self.cx(e.start, env))
        if isinstance(e, ast.ListLit):
            return t.list_(self.cx(i, env) for i in e.items)
        if isinstance(e, ast.Table):
            return self.cx_table(e, env)
        if isinstance(e, ast.IfExpr):
            return t.ifexp(self.cx_test(e.cond, env), self.cx(e.then, env), self.cx(e.other, env))
        if isinstance(e, ast.BoolOp):
            return t.boolop(e.op, self.cx(e.left, env), self.cx(e.right, env))
        if isinstance(e, ast.Not):
            return t.not_(self.cx(e.operand, env))
        if isinstance(e, ast.Compare):
            return self.cx_compare(e, env)
        if isinstance(e, ast.Range):
            return self.cx_range(e, env)
        if isinstance(e, ast.BinOp):
            return self.cx_binop(e, env)
        if isinstance(e, ast.Neg):
            return t.operands(t.neg(self.cx(e.operand, env)), "-", e.operand.pos)
        raise AssertionError(e)  # pragma: no cover

    def cx_name(self, e: ast.Name, env: Env) -> t.Code:
        res = self.ck.res.get(e)
        kind = res[0] if res else "local"
        if kind == "local":
            return env.names[e.ident]
        if kind == "const":
            return t.const({"true": True, "false": False, "none": None, "player_count": self.n}[e.ident])
        if kind == "var":
            return t.sub("V", self.var_base[e.ident])
        if kind == "option":
            return t.sub(t.attr("st", "opt"), self.option_index[e.ident])
        if kind == "zone":
            return t.const(self.zone_base[e.ident])
        if kind == "def":
            if not self.worth_inlining(e.ident):
                return t.call(f"d_{e.ident}", "st")
            return self.cx(self.m.defs[e.ident].body, Env())
        if kind == "enum":
            return t.const(e.ident)
        if kind == "end_flag":
            return t.sub("V", self.end_base + (e.ident == "finished"))
        raise AssertionError(res)  # pragma: no cover

    def cx_range(self, e: ast.Range, env: Env) -> t.Code:
        """`a..b`: its size checked now when both ends are numbers, else when it is made."""
        low, high = self.cx(e.low, env), self.cx(e.high, env)
        first, last = fold_int(low), fold_int(high)
        if first is None or last is None:
            least, most = self.bound(low, lowest=True), self.bound(high, lowest=False)
            if least is not None and most is not None and most - least + 1 <= LIMITS.range_values:
                # ends worked out while playing but surely close (a window on a grid): no check
                return t.call("range", low, t.binop(high, "+", t.const(1)))
            return t.call(t.attr("rt", "span"), low, high)
        if last - first + 1 > LIMITS.range_values:
            raise RulesError([Diagnostic(e.pos, f"this range has {last - first + 1:,} values, too many to go "
                                         f"through ({describe('range_values')})")], self.ck.sources)
        return t.call("range", low, t.binop(high, "+", t.const(1)))

    def bound(self, node: t.Code, lowest: bool) -> int | None:
        """A number the code's value is surely at least (`lowest`) or at most, when one is known:
        a literal, a grid position (`ROW[c]`), `max` or `min` of a list holding one, sums of those."""
        value = fold_int(node)
        if value is not None:
            return value
        if isinstance(node, py.Subscript) and isinstance(node.value, py.Name) and node.value.id in ("ROW", "COL"):
            sizes = [z.row if node.value.id == "ROW" else z.column for z in self.zones if z.row is not None]
            return (1 if lowest else max(sizes)) if sizes else None
        if isinstance(node, py.BinOp) and isinstance(node.op, (py.Add, py.Sub)):
            left = self.bound(node.left, lowest)
            right = self.bound(node.right, lowest if isinstance(node.op, py.Add) else not lowest)
            if left is None or right is None:
                return None
            return left + right if isinstance(node.op, py.Add) else left - right
        if (t.calls(node, "max") and lowest or t.calls(node, "min") and not lowest) and node.args:
            items = node.args[0].elts if len(node.args) == 1 and isinstance(node.args[0], py.List) else node.args
            known = [b for b in (self.bound(x, lowest) for x in items) if b is not None]
            return (max(known) if lowest else min(known)) if known else None
        return None

    def range_bounds(self, source: t.Code) -> tuple[int, int] | None:
        """The least and greatest value of `range(a, b)` when bounds of both ends are known
        (`max([1, ...])..min([rows(G), ...])`, a window on a grid): what a generator's
        variable over it holds, so a cell's row or column from it needs no range check."""
        if t.calls(source, "range") and len(source.args) == 2 and not source.keywords:
            low, high = self.bound(source.args[0], lowest=True), self.bound(source.args[1], lowest=False)
            if low is not None and high is not None and low < high:
                return low, high - 1
        return None

    def cx_table(self, e: ast.Table, env: Env) -> t.Code:
        subject = self.cx(e.subject, env)
        exact = [en for en in e.entries if en.key is not None and not en.at_least]
        least = sorted((en for en in e.entries if en.at_least), key=lambda en: -en.key)
        other = [en for en in e.entries if en.key is None]
        out = self.cx(other[0].value, env) if other else t.call(t.attr("rt", "no_entry"), t.clone(subject))
        known = t.int_value(subject)
        if isinstance(subject, py.Constant) and known is not None and known >= 0:  # e.g. on player_count: now
            for en in exact:
                if known == en.key:
                    return self.cx(en.value, env)
            for en in least:
                if known >= en.key:
                    return self.cx(en.value, env)
            if not other:
                raise RulesError([Diagnostic(e.pos, f"this table has no entry for {known}",
                                             "add that key, a 'k+' key or 'else'")], self.ck.sources)
            return out
        # each value compiled once: a value may hold a table of its own
        codes = [self.cx(en.value, env) for en in exact + least]
        if not t.is_simple(subject) and all(t.is_constant(v) for v in codes) and (not other or t.is_constant(out)):
            # a step table of constants: one lookup, the subject computed once
            self.tables.append(({en.key: literal(c) for en, c in zip(exact, codes)},
                                tuple((en.key, literal(c)) for en, c in zip(least, codes[len(exact):])),
                                literal(out) if other else runtime.NO_ENTRY))
            return t.call("table_lookup", t.sub("TBL", len(self.tables) - 1), subject)
        for en, value in reversed(list(zip(exact + least, codes))):
            out = t.ifexp(t.compare(t.clone(subject), ">=" if en.at_least else "==", t.const(en.key)), value, out)
        return out

    def cx_compare(self, e: ast.Compare, env: Env) -> t.Code:
        found = count_vs_zero(e, self.m.defs)
        listed = self.listed_count_vs_zero(e, env) if found is None else None
        if found is not None or listed is not None:  # count(...) > 0 and the like: stop at the first one found
            gen, negate = found if found is not None else listed[:2]
            true = ast.Name(gen.pos, "true")
            self.ck.res[true] = ("const", "true")
            code = self.cx(ast.GenCall(gen.pos, "any", true, gen.var, gen.source, gen.cond, None, gen.more),
                           listed[2] if listed is not None else env if gen is e.left else Env())
            return t.not_(code) if negate else code
        if e.op == "is":
            return self.cx_is(e, env)
        if e.op == "in":
            return t.compare(self.cx(e.left, env), "in", self.cx_iter(e.right, env))
        code = t.compare(self.cx(e.left, env), e.op, self.cx(e.right, env))
        return t.operands(code, e.op, e.left.pos, e.right.pos) if e.op not in ("==", "!=") else code

    def cx_is(self, e: ast.Compare, env: Env) -> t.Code:
        res = self.ck.res.get(e)
        x = self.cx(e.left, env)
        if res and res[0] == "kind_test":
            # `none is K` is false; x is evaluated once (it may draw by chance)
            if t.is_simple(x):
                return t.and_(t.compare(x, "is not", t.const(None)),
                              t.compare(t.sub("KIND", t.clone(x)), "==", t.const(res[1])))
            return t.compare(t.sub("KINDS", x), "==", t.const(res[1]))  # x evaluated once: KINDS maps none too
        value = self.cx(e.right, env)
        props = self.uniform_counts_props()
        if props is not None and t.is_simple(value) and not t.draws(x) and (t.is_simple(x) or not self.in_iterable):
            # inline when every kind counts as the same properties; x is computed once
            first = x
            if not t.is_simple(x):
                name = f"_k{next(self.fresh)}"
                first, x = t.named(name, x), t.name(name)
            tests = [t.compare(t.clone(value), "in", t.sub("CS", t.clone(x)))]
            tests += [t.compare(t.sub(t.sub("P", k), t.clone(x)), "==", t.clone(value)) for k in props]
            return t.and_(t.compare(first, "is not", t.const(None)), t.or_(*tests))
        return t.call("counts_as_value", "P", x, value, "CS", "CP")

    def cx_binop(self, e: ast.BinOp, env: Env) -> t.Code:
        if self.ck.res.get(e, ("",))[0] == "join":
            left, right = (as_list(self.cx_iter(x, env)) for x in (e.left, e.right))
            if unbounded_list(left) or unbounded_list(right):  # a list kept in a variable may double each turn
                return t.call(t.attr("rt", "joined"), left, right)
            return t.binop(left, "+", right)  # a new list: neither side is changed
        left, right = self.cx(e.left, env), self.cx(e.right, env)
        if e.op != "*":
            return t.operands(t.binop(left, e.op, right), e.op, e.left.pos, e.right.pos)
        if not t.is_constant(right) and not t.is_simple(right) and not t.is_simple(left) \
                and not t.draws(right) and not self.in_iterable and t.depth(left) <= 100:
            # a count times something costly: when the count is 0, skip the rest
            m = f"_m{next(self.fresh)}"
            return t.ifexp(t.not_(t.named(m, left)), t.const(0), product(t.name(m), right, grows=may_grow(left)))
        return t.operands(product(left, right), "*", e.left.pos, e.right.pos)

    def listed_count_vs_zero(self, e: ast.Compare, env: Env) -> tuple[ast.GenCall, bool, Env] | None:
        """`count(f(a)) > 0` (and the like) where def f lists a generator, `list(x for ...)`:
        that generator, whether negated, and the names for f's body (it is pasted here)."""
        call = e.left
        if not (isinstance(call, ast.Call) and call.func == "count" and len(call.args) == 1
                and isinstance(e.right, ast.IntLit) and self.ck.res.get(call, ("",))[0] == "aggregate"):
            return None
        inner = call.args[0]
        if not (isinstance(inner, ast.Call) and self.ck.res.get(inner, ("",))[0] == "def"):
            return None
        body = self.m.defs[inner.func].body
        if not (isinstance(body, ast.GenCall) and body.func == "list"):
            return None
        negated = none_or_some(e.op, e.right.value)
        names = self.inlined(inner, env) if negated is not None else None
        return None if names is None else (body, negated, names)

    def inlined(self, e: ast.Call, env: Env, codes: list[t.Code] | None = None) -> Env | None:
        """The names for a def's body pasted at a call, or None when it is better called:
        an argument that is not a plain name or constant must be used at most once. The
        parameters stand for the arguments' code and keep the arguments' own (possibly
        narrower) types."""
        d = self.m.defs[e.func]
        if not self.worth_inlining(e.func):
            return None
        if codes is None:
            codes = [self.cx(a, env) for a in e.args]
        name_uses = count_names(d.body)
        if not all(t.is_simple(c) or name_uses.get(p.name, 0) <= 1 for p, c in zip(d.params, codes)):
            return None
        types = {p.name: self.type_in(a, env) for p, a in zip(d.params, e.args)}
        inner = Env({p.name: c for p, c in zip(d.params, codes)}, types={k: v for k, v in types.items() if v})
        # a parameter given a local that may hold none (a `let` of a top) is read with care
        inner.nullable = {p.name for p, a, c in zip(d.params, e.args, codes) if self.may_be_none(a, c, env)}
        for p, a in zip(d.params, e.args):  # a local known to lie in bounds is still there
            if isinstance(a, ast.Name) and a.ident in env.bounds and self.ck.res.get(a, ("local",))[0] == "local":
                inner.bounds[p.name] = env.bounds[a.ident]
        return inner

    def type_in(self, e: ast.Expr, env: Env) -> Type | None:
        if isinstance(e, ast.Name) and e.ident in env.types:
            return env.types[e.ident]
        return self.ck.types.get(e)

    def within(self, e: ast.Expr, code: t.Code, size: int, axis: str, env: Env) -> bool:
        """Whether a row or column number is surely in 1..size: a number, or the row or
        column of a cell of a grid no larger along that axis."""
        value = t.int_value(code)
        if value is not None:
            return 1 <= value <= size
        if isinstance(e, ast.Name) and e.ident in env.bounds and self.ck.res.get(e, ("local",))[0] == "local":
            low, high = env.bounds[e.ident]
            return 1 <= low and high <= size
        if isinstance(e, ast.Call) and e.func == axis and self.ck.res.get(e, ("",))[0] == "builtin":
            kind = self.type_in(e.args[0], env)
            if kind is not None and kind.kind == "zone" and kind.name in self.grid_size:
                rows, cols = self.grid_size[kind.name]
                return (rows if axis == "row" else cols) <= size
        return False

    def cx_test(self, e: ast.Expr, env: Env) -> t.Code:
        """Code for `e` where only its truth counts (a condition): `count(z) > 0` becomes
        the zone's list itself, `count(z) == 0` its negation, with no call to `len`."""
        if isinstance(e, ast.BoolOp):
            return t.boolop(e.op, self.cx_test(e.left, env), self.cx_test(e.right, env))
        if isinstance(e, ast.Not):
            return t.not_(self.cx_test(e.operand, env))
        if isinstance(e, ast.Name) and self.ck.res.get(e, ("",))[0] == "def" and self.worth_inlining(e.ident):
            return self.cx_test(self.m.defs[e.ident].body, Env())
        if isinstance(e, ast.Call) and self.ck.res.get(e, ("",))[0] == "def":
            codes = [self.cx(a, env) for a in e.args]
            inner = self.inlined(e, env, codes)
            if inner is not None:
                return self.cx_test(self.m.defs[e.func].body, inner)
            return t.call(f"d_{e.func}", "st", *codes)
        if isinstance(e, ast.Compare):
            found = zone_count_vs_zero(e, self.ck)
            if found is not None:
                zone, negate = found
                code = self.cx_iter(zone, env)
                return t.not_(code) if negate else code
        return self.cx(e, env)

    def small_domain(self, src: t.Code) -> list[t.Code] | None:
        """The values a generator's variable takes, as code, when there are few of them and
        they are known now (a grid's cells, a number range, the players)."""
        if isinstance(src, py.Name) and src.id == "PLAYERS":
            return [t.const(p) for p in range(self.n)]
        domain = fixed_range(src)
        if domain is None:
            return None
        first, count = domain
        if count > MAX_UNROLLED:
            return None
        value = t.int_value(first)
        if value is not None:
            return [t.const(value + i) for i in range(count)]
        return [t.binop(t.clone(first), "+", t.const(i)) if i else t.clone(first) for i in range(count)]

    def unrolled(self, f: str, var: str, values: list[t.Code], item: t.Code, cond: t.Code | None) -> t.Code:
        """count/any/every/sum over a few known values, written out term by term: no
        generator to create and resume, and position tables read now."""
        def at(code: t.Code, value: t.Code) -> t.Code:
            return _Unroll(var, value, self.position_table).visit(t.clone(code))

        if not values:
            return t.const(EMPTY[f])
        conds = [at(cond, v) for v in values] if cond is not None else None
        items = [at(item, v) for v in values]
        if f == "count":
            if conds is None:
                return t.const(len(values))
            return t.add(*(t.ifexp(c, t.const(1), t.const(0)) for c in conds))
        if f == "sum":
            terms = items if conds is None else [t.ifexp(c, i, t.const(0)) for i, c in zip(items, conds)]
            return t.add(*terms)
        if f == "any":
            is_true = isinstance(item, py.Constant) and item.value is True
            terms = items if conds is None else conds if is_true else \
                [t.and_(c, i) for i, c in zip(items, conds)]
            return t.not_(t.not_(t.or_(*terms)))
        terms = items if conds is None else [t.or_(t.not_(c), i) for i, c in zip(items, conds)]
        return t.not_(t.not_(t.and_(*terms)))

    def position_table(self, name: str) -> tuple:
        field = {"ROW": "row", "COL": "column", "ZOWNER": "owner"}[name]
        return tuple(getattr(z, field) for z in self.zones)

    def cx_call(self, e: ast.Call, env: Env) -> t.Code:
        res = self.ck.res.get(e)
        kind = res[0] if res else None
        args = e.args
        if kind == "var_p":
            return t.sub("V", t.binop(t.const(self.var_base[e.func]), "+", self.cx(args[0], env)))
        if kind == "zone_p":
            rows, cols = self.grid_size.get(e.func, (1, 1))
            player = self.cx(args[0], env)
            if rows * cols != 1:
                player = t.binop(player, "*", t.const(rows * cols))
            return t.binop(t.const(self.zone_base[e.func]), "+", player)
        if kind == "def":
            codes = [self.cx(a, env) for a in args]  # once each: an argument may be a call of its own
            inner = self.inlined(e, env, codes)
            if inner is not None:  # a def is a pure expression, so substitution is exact
                return self.cx(self.m.defs[e.func].body, inner)
            return t.call(f"d_{e.func}", "st", *codes)
        if kind == "aggregate":
            return self.cx_aggregate(e, env)
        if kind == "builtin":
            return self.cx_builtin(e, env)
        raise AssertionError(e)  # pragma: no cover

    def cx_aggregate(self, e: ast.Call, env: Env) -> t.Code:
        args = e.args
        first_type = self.ck.types.get(args[0])
        if e.func == "count" and first_type is not None and first_type.kind == "grid":
            rows, cols = self.grid_size[first_type.name]
            first = self.cx(args[0], env)
            cells = py.Slice(first, t.binop(t.clone(first), "+", t.const(rows * cols)), None)
            return t.call("sum", t.call("map", "len", t.sub("Z", cells)))
        coll = self.cx_iter(args[0], env)
        f = e.func
        if f in ("first", "last") and isinstance(coll, py.Name) and coll.id == "PLAYERS":
            return t.const(0 if f == "first" else self.n - 1)  # the seats, in order: known here
        simple: dict[str, Callable[[], t.Code]] = {
            "count": lambda: t.call("len", coll), "sum": lambda: t.call("sum", coll),
            "min": lambda: extreme("min", coll), "max": lambda: extreme("max", coll),
            "any": lambda: t.call("any", coll), "every": lambda: t.call("all", coll),
            "first": lambda: t.call("_first", coll),
            "last": lambda: t.sub(t.or_(coll, t.name("NOTHING")), t.const(-1)),
            "distinct": lambda: t.call("len", t.call("set", coll)), "list": lambda: t.call("list", coll),
        }
        return simple[f]()

    def cx_builtin(self, e: ast.Call, env: Env) -> t.Code:
        args = e.args
        f = e.func
        if f == "random":
            return t.call("rand_choice", "st", self.cx_iter(args[0], env))
        a = [self.cx(x, env) for x in args]
        if f == "next":
            return t.binop(t.binop(a[0], "+", t.const(1)), "%", t.const(self.n))
        if f == "prev":
            return t.binop(t.binop(a[0], "-", t.const(1)), "%", t.const(self.n))
        if f == "abs":
            return t.call("abs", a[0])
        if f == "index":
            return t.call("index_in_zone", "st", a[0])
        if f == "zone_of":
            return t.sub(t.attr("st", "w"), a[0])
        first_type = self.ck.types.get(args[0])
        first_kind = first_type.kind if first_type is not None else "any"
        where = t.sub(t.attr("st", "w"), a[0]) if first_kind == "comp" else a[0]
        if f == "cell":
            rows, cols = self.grid_of(args[0])
            if all(t.is_cheap(x) for x in a[1:]):  # inline: positions are looked up everywhere
                checks = [t.chain(t.const(1), ("<=", t.clone(code)), ("<=", t.const(size))) for code, arg, size, axis
                          in ((a[1], args[1], rows, "row"), (a[2], args[2], cols, "column"))
                          if not self.within(arg, code, size, axis, env)]
                index = cell_index(a[0], a[1], a[2], cols)
                return t.ifexp(t.and_(*checks), index, t.const(None)) if checks else index
            return t.call("cell_at", a[0], a[1], a[2], rows, cols)
        if f == "cells":
            rows, cols = self.grid_of(args[0])
            return t.call("range", a[0], t.binop(t.clone(a[0]), "+", t.const(rows * cols)))
        if f == "row":
            return t.sub("ROW", where)
        if f == "column":
            return t.sub("COL", where)
        if f == "adjacent":
            return t.sub("ADJ", where)
        if f == "top_of":
            return t.sub(t.or_(t.sub("Z", a[0]), t.name("NOTHING")), t.const(-1))  # `or`: an empty zone
        if f == "counted_as":
            return t.call("counted_as", "P", a[0], "CS", "CP")
        if f == "capacity":
            return t.sub("CAP", a[0])
        if f == "room":
            zone = getattr(self.ck.types.get(args[0]), "name", "")
            caps = {z.capacity for z in self.zones if z.name == zone}
            if len(caps) == 1 and None not in caps:  # a known zone: its capacity is a constant
                return t.binop(t.const(caps.pop()), "-", t.call("len", t.sub("Z", a[0])))
            return t.call("room", "Z", "CAP", a[0])
        if f == "owner":
            return t.sub("OWNER" if first_kind == "comp" else "ZOWNER", a[0])
        if f == "opposite":
            return t.sub("OPPOSITE", a[0])
        if f == "neighbour":  # the cell beyond that side (none at the edge, off a grid, or for no side)
            return t.call("neighbour_of", "NEAR", where, a[1])
        if f in ("rows", "columns"):
            return t.const(self.grid_of(args[0])[f == "columns"])
        if f in ("span_rows", "span_columns"):
            rows, cols = self.grid_of(args[0])
            extra = a[1] if len(a) > 1 else t.const(None)
            axis = "ROW" if f == "span_rows" else "COL"
            cells = rows * cols
            return t.call("span_with", t.call("extent", "Z", a[0], cells, axis), extra, t.clone(a[0]), cells, axis)
        raise AssertionError(e)  # pragma: no cover

    def cx_gen(self, e: ast.GenCall, env: Env) -> t.Code:
        inner = env.child()
        var = f"g_{e.var}_{next(self.fresh)}"
        src = self.iterable(e.source, env)
        inner.bind(e.var, var, self.range_bounds(src))
        cond = self.cx_test(e.cond, inner) if e.cond is not None else None
        generators = [t.comp(var, src, [cond] if cond is not None else [])]
        bound = [var]
        box = None
        sizes = [fixed_range(src)]
        for more_var, more_src, more_cond in e.more:
            code = self.iterable(more_src, inner)
            sizes.append(fixed_range(code))
            bounds = self.range_bounds(code)
            if invariant_source(code, bound):
                # a later clause's source that reads no earlier clause's variable (a range of
                # columns worked out from a scan of the grid, say) is listed once, the first
                # time it is reached, not once per value of the clauses before it
                if box is None:
                    box = f"_h{next(self.fresh)}"
                    generators.insert(0, t.comp(box, t.tuple_([py.Dict([], [])])))
                key = len(bound)
                code = t.ifexp(t.compare(t.const(key), "in", t.name(box)), t.sub(box, key),
                               t.call("keep", box, key, code))
            inner = inner.child()
            name = f"g_{more_var}_{next(self.fresh)}"
            inner.bind(more_var, name, bounds)
            ifs = [self.cx_test(more_cond, inner)] if more_cond is not None else []
            generators.append(t.comp(name, code, ifs))
            bound.append(name)
        if len(sizes) > 1 and all(size is not None for size in sizes) \
                and math.prod(count for _, count in sizes) > LIMITS.range_values:
            raise RulesError([Diagnostic(e.pos, f"this generator goes through {math.prod(c for _, c in sizes):,} "
                                         f"values, too many ({describe('range_values')})")], self.ck.sources)
        generators = [never_none(skip_empty(g)) for g in generators]  # see compiler/occupied.py
        f = e.func
        # any/every only weigh each item's truth: `count(y) > 0` needs no len() there
        item = self.cx_test(e.item, inner) if f in ("any", "every") else self.cx(e.item, inner)
        if not e.more and f in UNROLLED and t.size(item) + (t.size(cond) if cond is not None else 0) \
                <= MAX_UNROLLED_NODES:
            # (a long item is not copied: generators inside generators would grow exponentially)
            values = self.small_domain(src)
            if values is not None:
                return self.unrolled(f, var, values, item, cond)
        code = self.gen_code(e, f, var, inner, src, cond, generators, item)
        if not e.more and f in UNROLLED and _one_zone(src):
            # over one zone's contents, often empty (spots, a discard): no generator then
            return t.ifexp(t.clone(src), code, t.const(EMPTY[f]))
        return code

    def gen_code(self, e: ast.GenCall, f: str, var: str, inner: Env, src: t.Code, cond: t.Code | None,
                 generators: list[py.comprehension], item: t.Code) -> t.Code:
        """The Python for an aggregate over a generator whose parts are compiled."""
        walked = over_nonempty(f, item, generators)
        if walked is not None:
            return walked
        if f == "count":
            return t.call("len", t.listcomp(t.const(0), generators))
        if f == "groups":
            kind = self.ck.types.get(e.item, None)
            where = t.attr("st", "w") if kind and kind.kind == "comp" else t.const(None)
            return t.call("groups", t.listcomp(item, generators), where, "ADJ", "GROUPS")
        if f == "longest_paths":
            pairs = t.listcomp(t.tuple_([item, self.cx(e.key, inner)]), generators)
            return t.call("longest_paths", pairs, "NEAR", "PATHS")
        if f == "sum":
            return t.call("sum", t.genexp(item, generators))
        if f in ("min", "max"):
            return t.call(f, t.genexp(item, generators), default=t.const(0))
        if f == "any":
            if not e.more and cond is None and isinstance(item, py.Subscript) and isinstance(item.value, py.Name) \
                    and item.value.id == "Z" and isinstance(item.slice, py.Name) and item.slice.id == var:
                return t.call("any", t.call("map", t.attr("Z", "__getitem__"), src))  # no generator frame
            return t.call("any", t.genexp(item, generators))
        if f == "every":
            return t.call("all", t.genexp(item, generators))
        if f == "first":
            return t.call("next", t.genexp(item, generators), t.const(None))
        if f == "last":
            if not e.more and long_sequence(src):
                # the last one found from the end: the items before it are not looked at
                backwards = skip_empty(t.comp(var, t.call("reversed", src), [cond] if cond is not None else []))
                return t.call("next", t.genexp(item, [backwards]), t.const(None))
            return t.sub(t.or_(t.listcomp(item, generators), t.name("NOTHING")), t.const(-1))
        if f == "distinct":
            return t.call("len", t.setcomp(item, generators))
        if f == "list":
            return t.listcomp(item, generators)
        if f == "sorted":  # stable: items with equal keys keep the order of the source
            return t.call("sorted_by_key", t.listcomp(t.tuple_([self.cx(e.key, inner), item]), generators))
        if f in ("argmax", "argmin"):
            key = self.cx(e.key, inner)
            fn = "max" if f == "argmax" else "min"
            if not e.more and isinstance(item, py.Name) and item.id == var:
                items = t.listcomp(t.name(var), generators) if cond is not None else src
                return t.call(fn, items, key=t.lambda_([var], key), default=t.const(None))
            # the first item with the best key: (key, position) pairs decide, the item is kept
            pairs = t.listcomp(t.tuple_([key, item]), generators)
            return t.call("arg_best", pairs, t.const(fn == "max"))
        raise AssertionError(f)  # pragma: no cover


class _Unroll(py.NodeTransformer):
    """One value of an unrolled generator put in for its variable, and what that decides now:
    grid positions of a known cell, comparisons of known numbers."""

    def __init__(self, var: str, value: t.Code, tables: Callable[[str], tuple]):
        self.var = var
        self.value = value
        self.tables = tables

    def visit_Name(self, node: py.Name) -> py.AST:
        return t.clone(self.value) if node.id == self.var and isinstance(node.ctx, py.Load) else node

    def visit_Subscript(self, node: py.Subscript) -> py.AST:
        self.generic_visit(node)
        index = t.int_value(node.slice)
        if isinstance(node.value, py.Name) and node.value.id in ("ROW", "COL", "ZOWNER") and index is not None \
                and isinstance(node.ctx, py.Load):
            return t.const(self.tables(node.value.id)[index])
        return node

    def visit_Compare(self, node: py.Compare) -> py.AST:
        self.generic_visit(node)
        values = [t.int_value(x) for x in (node.left, *node.comparators)]
        if all(v is not None for v in values) and all(isinstance(op, (py.Lt, py.LtE)) for op in node.ops):
            # a range check on numbers now known (`1 <= 3 <= 4`) is decided now
            return t.const(all(a < b if isinstance(op, py.Lt) else a <= b
                               for a, op, b in zip(values, node.ops, values[1:])))
        return node


def may_grow(node: t.Code) -> bool:
    """Whether code reads what the rules keep and may make larger at each turn (a variable, a
    property, a persistent local or a def that may read them), rather than only the fixed parts
    of the game (zones hold at most every component, literals are as written)."""
    for n in py.walk(node):
        if isinstance(n, py.Subscript) and isinstance(n.value, py.Name) and n.value.id in ("V", "P", "L"):
            return True
        if isinstance(n, py.Name) and n.id.startswith(("v_", "b_")):
            return True
        if isinstance(n, py.Call) and isinstance(n.func, py.Name) and n.func.id.startswith("d_"):
            return True
    return False


def unbounded_list(node: t.Code) -> bool:
    """Whether code for a list may be longer than the game's fixed parts allow: a list kept in a
    variable or a property (joined with itself each turn it doubles), or one a def gives. A list
    of a zone's contents, a grid's, the players, a range or a generator over those is bounded."""
    if isinstance(node, (py.ListComp, py.GeneratorExp, py.SetComp)):
        return any(unbounded_list(g.iter) for g in node.generators)
    if isinstance(node, py.Subscript) and isinstance(node.value, py.Name):
        return node.value.id not in ("Z", "ADJ", "ROT")
    if isinstance(node, py.Name):
        return node.id != "PLAYERS"
    if isinstance(node, py.List):
        return False
    if isinstance(node, py.IfExp):
        return unbounded_list(node.body) or unbounded_list(node.orelse)
    if isinstance(node, py.Call) and isinstance(node.func, py.Attribute) and node.func.attr in ("joined", "span"):
        return False  # checked where it is made
    if isinstance(node, py.Call) and isinstance(node.func, py.Name):
        if node.func.id in ("grid_items", "range"):
            return False
        if node.func.id in ("list", "reversed"):  # as long as what they go through
            return any(unbounded_list(a) for a in node.args)
    return True


def product(left: t.Code, right: t.Code, grows: bool | None = None) -> t.Code:
    """`left * right`; a product of two numbers the rules keep is checked for size (a number
    squared each turn doubles its digits each time), a multiple of a literal, a count or any
    number worked out afresh from the game's fixed parts is not (it grows slowly, if at all).
    `grows` says whether the left side may grow, when its code is a name standing for it."""
    left_grows = may_grow(left) if grows is None else grows
    if t.int_value(left) is not None or t.int_value(right) is not None or not left_grows or not may_grow(right):
        return t.binop(left, "*", right)
    return t.call(t.attr("rt", "times"), left, right)


def literal(node: t.Code):
    """The value of a literal's code (see pytree.is_constant)."""
    value = t.int_value(node)
    return value if value is not None else node.value


def gives_text(node: py.expr) -> bool:
    """Whether Python code surely gives a str (a literal, a label, a join with a text...)."""
    if isinstance(node, py.Constant):
        return isinstance(node.value, str)
    if isinstance(node, py.BinOp) and isinstance(node.op, py.Add):
        return gives_text(node.left) or gives_text(node.right)  # str + x is a str or fails
    if isinstance(node, py.IfExp):
        return gives_text(node.body) and gives_text(node.orelse)
    if isinstance(node, py.Call):
        return isinstance(node.func, py.Name) and node.func.id in ("show", "str", "shown_label")
    if isinstance(node, py.Subscript):
        return isinstance(node.value, py.Name) and node.value.id == "LBL"
    return False


def long_sequence(node: t.Code) -> bool:
    """Whether code surely gives a sequence (which `reversed` goes through) that is worth
    searching from its end: a range of numbers or cells, every component on a grid (a short
    list, a cell's stack, is cheaper to list whole than to search with a generator)."""
    return t.calls(node, "range") or t.calls(node, "grid_items") or is_span(node)


def _one_zone(node: t.Code) -> bool:
    """`Z[k]`: one zone's contents (its index read without a lookup of its own)."""
    return isinstance(node, py.Subscript) and isinstance(node.value, py.Name) and node.value.id == "Z" \
        and not any(isinstance(n, py.Subscript) for n in py.walk(node.slice))


def invariant_source(code: t.Code, bound: list[str]) -> bool:
    """Whether a generator clause's source is worth listing once for all values of the clauses
    before it: it reads none of their variables and costs a call or a scan to work out."""
    if t.names_in(code) & set(bound):
        return False
    return invariants.costly_part(code)


def _element(kind: Type) -> Type:
    if kind.kind == "list" and kind.element is not None:
        return kind.element
    if kind.kind == "zone":
        return Type("comp")
    return kind

