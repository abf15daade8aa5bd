"""Expressions to Python expressions, with the rewrites for speed (docs/design.md)."""

from __future__ import annotations

import ast as pyast
import re

from .. import ast, invariants
from ..codegen import (
    CHEAP,
    CONSTANT,
    SIMPLE,
    as_list,
    cell_index,
    count_names,
    count_vs_zero,
    fixed_range,
    none_or_some,
    zone_count_vs_zero,
)
from ..diagnostics import Diagnostic, RulesError
from ..model import Type
from .program import Env

UNROLLED = ("count", "any", "every", "sum")  # generators written out term by term when short
MAX_UNROLLED = 10
MAX_UNROLLED_CODE = 400  # characters of the item and condition copied per value


class ExpressionCompiler:
    """The expressions' part of `Compiler`."""

    # --- expressions --------------------------------------------------------------------------
    def iterable(self, e: ast.Expr, env: Env) -> str:
        """cx_iter for a generator's source, where Python forbids assignment expressions."""
        self.in_iterable += 1
        try:
            return self.cx_iter(e, env)
        finally:
            self.in_iterable -= 1

    def cx_iter(self, e: ast.Expr, env: Env) -> str:
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

    def cx_text(self, s: ast.StrLit, env: Env) -> str:
        pieces = []
        for part in s.parts:
            if isinstance(part, str):
                pieces.append(repr(part))
            else:
                pieces.append(self.show(self.ck.types.get(part), self.cx(part, env)))
        return " + ".join(pieces) if pieces else "''"

    def template(self, s: ast.StrLit, env: Env) -> tuple[list, str]:
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
        if gives_text(pyast.parse(code, mode="eval").body):
            return code  # already a text: show() would give it back as it is
        return f"show({code})"

    def cx(self, e: ast.Expr, env: Env) -> str:
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
                return self.cx(self.m.defs[e.ident].body, Env())
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
            listed = self.listed_count_vs_zero(e, env) if found is None else None
            if found is not None or listed is not None:  # count(...) > 0 and the like: stop at the first one found
                gen, negate = found if found is not None else listed[:2]
                true = ast.Name(gen.pos, "true")
                self.ck.res[true] = ("const", "true")
                code = self.cx(ast.GenCall(gen.pos, "any", true, gen.var, gen.source, gen.cond, None, gen.more),
                               listed[2] if listed is not None else env if gen is e.left else Env())
                return f"(not {code})" if negate else code
            if e.op == "is":
                res = self.ck.res.get(e)
                x = self.cx(e.left, env)
                if res and res[0] == "kind_test":
                    # `none is K` is false; x is evaluated once (it may draw by chance)
                    if SIMPLE.match(x):
                        return f"({x} is not None and KIND[{x}] == {res[1]!r})"
                    return f"(KINDS[{x}] == {res[1]!r})"  # x evaluated once: KINDS maps none too
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

    def inlined(self, e: ast.Call, env: Env, codes: list[str] | None = None) -> Env | None:
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
        return Env({p.name: c for p, c in zip(d.params, codes)}, types={k: t for k, t in types.items() if t})

    def type_in(self, e: ast.Expr, env: Env) -> Type | None:
        if isinstance(e, ast.Name) and e.ident in env.types:
            return env.types[e.ident]
        return self.ck.types.get(e)

    def within(self, e: ast.Expr, code: str, size: int, axis: str, env: Env) -> bool:
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

    def cx_test(self, e: ast.Expr, env: Env) -> str:
        """Code for `e` where only its truth counts (a condition): `count(z) > 0` becomes
        the zone's list itself, `count(z) == 0` its negation, with no call to `len`."""
        if isinstance(e, ast.BoolOp):
            return f"({self.cx_test(e.left, env)} {e.op} {self.cx_test(e.right, env)})"
        if isinstance(e, ast.Not):
            return f"(not {self.cx_test(e.operand, env)})"
        if isinstance(e, ast.Name) and self.ck.res.get(e, ("",))[0] == "def":
            return self.cx_test(self.m.defs[e.ident].body, Env())
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

    def cx_call(self, e: ast.Call, env: Env) -> str:
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
                "first": f"_first({coll})", "last": f"({coll} or NOTHING)[-1]", "distinct": f"len(set({coll}))",
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
                return f"(Z[{a[0]}] or NOTHING)[-1]"  # no call: `or` stands in for an empty zone
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
            if f == "opposite":
                return f"OPPOSITE[{a[0]}]"
            if f in ("rows", "columns"):
                return str(self.grid_of(args[0])[f == "columns"])
            if f in ("span_rows", "span_columns"):
                rows, cols = self.grid_of(args[0])
                extra = a[1] if len(a) > 1 else "None"
                axis = "ROW" if f == "span_rows" else "COL"
                size = rows * cols
                return f"span_with(extent(Z, {a[0]}, {size}, {axis}), {extra}, {a[0]}, {size}, {axis})"
        raise AssertionError(e)  # pragma: no cover

    def cx_gen(self, e: ast.GenCall, env: Env) -> str:
        inner = env.child()
        var = f"g_{e.var}_{next(self.fresh)}"
        inner.names[e.var] = var
        src = self.iterable(e.source, env)
        cond = f" if {self.cx_test(e.cond, inner)}" if e.cond is not None else ""
        loops = f"for {var} in {src}{cond}"
        bound = [var]
        box = None
        for more_var, more_src, more_cond in e.more:
            code = self.iterable(more_src, inner)
            if invariant_source(code, bound):
                # a later clause's source that reads no earlier clause's variable (a range of
                # columns worked out from a scan of the grid, say) is listed once, the first
                # time it is reached, not once per value of the clauses before it
                if box is None:
                    box = f"_h{next(self.fresh)}"
                    loops = f"for {box} in ({{}},) {loops}"
                key = len(bound)
                code = f"({box}[{key}] if {key} in {box} else keep({box}, {key}, {code}))"
            inner = inner.child()
            name = f"g_{more_var}_{next(self.fresh)}"
            inner.names[more_var] = name
            loops += f" for {name} in {code}"
            bound.append(name)
            if more_cond is not None:
                loops += f" if {self.cx_test(more_cond, inner)}"
        f = e.func
        # any/every only weigh each item's truth: `count(y) > 0` needs no len() there
        item = self.cx_test(e.item, inner) if f in ("any", "every") else self.cx(e.item, inner)
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

    def gen_code(self, e: ast.GenCall, f: str, var: str, inner: Env, src: str, cond: str, loops: str,
                 item: str) -> str:
        """The Python for an aggregate over a generator whose parts are compiled."""
        gen = f"{item} {loops}"
        if f == "count":
            return f"len([0 {loops}])"
        if f == "groups":
            where = "st.w" if self.ck.types.get(e.item, None) and self.ck.types[e.item].kind == "comp" else "None"
            return f"groups([{gen}], {where}, ADJ, GROUPS)"
        if f == "longest_paths":
            return f"longest_paths([({item}, {self.cx(e.key, inner)}) {loops}], NEAR, PATHS)"
        if f == "sum":
            return f"sum({gen})"
        if f in ("min", "max"):
            return f"{f}(({gen}), default=0)"
        if f == "any":
            if not e.more and not cond and item == f"Z[{var}]":
                return f"any(map(Z.__getitem__, {src}))"  # some zone not empty: no generator frame
            return f"any({gen})"
        if f == "every":
            return f"all({gen})"
        if f == "first":
            return f"next(({gen}), None)"
        if f == "last":
            if not e.more and long_sequence(src):
                # the last one found from the end: the items before it are not looked at
                return f"next(({item} for {var} in reversed({src}){cond}), None)"
            return f"([{gen}] or NOTHING)[-1]"
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


def gives_text(node: pyast.expr) -> bool:
    """Whether Python code surely gives a str (a literal, a label, a join with a text...)."""
    if isinstance(node, pyast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, pyast.BinOp) and isinstance(node.op, pyast.Add):
        return gives_text(node.left) or gives_text(node.right)  # str + x is a str or fails
    if isinstance(node, pyast.IfExp):
        return gives_text(node.body) and gives_text(node.orelse)
    if isinstance(node, pyast.Call):
        return isinstance(node.func, pyast.Name) and node.func.id in ("show", "str")
    if isinstance(node, pyast.Subscript):
        return isinstance(node.value, pyast.Name) and node.value.id == "LBL"
    return False


def long_sequence(code: str) -> bool:
    """Whether code surely gives a sequence (which `reversed` goes through) that is worth
    searching from its end: a range of numbers or cells, every component on a grid (a short
    list, a cell's stack, is cheaper to list whole than to search with a generator)."""
    node = pyast.parse(code, mode="eval").body
    return isinstance(node, pyast.Call) and isinstance(node.func, pyast.Name) \
        and node.func.id in ("range", "grid_items")


def invariant_source(code: str, bound: list[str]) -> bool:
    """Whether a generator clause's source is worth listing once for all values of the clauses
    before it: it reads none of their variables and costs a call or a scan to work out."""
    if any(re.search(rf"\b{name}\b", code) for name in bound):
        return False
    return invariants.costly_part(code)


def _element(t: Type) -> Type:
    if t.kind == "list" and t.element is not None:
        return t.element
    if t.kind == "zone":
        return Type("comp")
    return t
