"""Scorings, the ranking and `best` choices."""

from __future__ import annotations

import ast as py

from .. import ast
from . import pytree as t
from .program import Env
from .rewrites import hoist_grid_reads, narrow_by_attribute, state_aliases


def keeps_choices(s: ast.ScoringDecl) -> bool:
    """Whether scoring `s` chooses a value `into` a variable (then applying it keeps it)."""
    return any(isinstance(item, ast.BestValue) and item.into is not None for item in s.items)


class ScoringCompiler:
    """The scorings' part of `Compiler`."""

    # --- scoring ----------------------------------------------------------------------------
    def scoring_slots(self, name: str) -> tuple[int, int]:
        return self.scoring_index[name]

    def compile_scoring(self, s: ast.ScoringDecl) -> py.FunctionDef:
        env = Env({s.player: "p"})
        count = sum(1 for item in s.items if isinstance(item, ast.ScoreItem))
        # `keep`: applied by `score ... into`, the values chosen `into` a variable stay there
        defaults = {"keep": False} if keeps_choices(s) else {}
        aliases = state_aliases()
        body = aliases + [t.assign("out", t.binop(t.list_([t.const(0)]), "*", t.const(count))),
                          t.assign("t", t.const(0))]
        self.emit_score_items(list(s.items), 0, env, body)
        body.append(t.ret(t.tuple_(["out", "t"])))
        body = narrow_by_attribute(hoist_grid_reads(body, len(aliases)))
        return t.function(f"score_{s.name}", ["st", "p", *defaults], body, defaults)

    def emit_score_items(self, items: list, index: int, env: Env, lines: list[py.stmt]) -> None:
        """Items in order; a `best` choice wraps the items after it in a search over its options."""
        for pos, item in enumerate(items):
            self.where = item.pos
            if isinstance(item, ast.BestChoice):
                self.emit_best(item, items[pos + 1:], index, env, lines)
                return
            if isinstance(item, ast.BestValue):
                self.emit_best_value(item, items[pos + 1:], index, env, lines)
                return
            cond = self.cx_test(item.cond, env) if item.cond is not None else t.const(True)
            i = index
            index += 1
            if item.mode == "points":
                lines.append(t.at(t.assign("x", self.cx(item.value, env)), item.pos))
                lines += _counted(i)
            elif item.mode == "double":
                lines.append(t.at(t.if_(cond, [t.assign(t.sub("out", i), "t"), t.augassign("t", "+", t.name("t"))]),
                                  item.pos))
            elif item.mode == "zero":
                lines.append(t.at(t.if_(cond, [t.assign(t.sub("out", i), t.neg(t.name("t"))),
                                               t.assign("t", t.const(0))]), item.pos))
            else:
                x = t.binop(t.binop(t.name("t"), "*", self.cx(item.value, env)), "-", t.name("t"))
                lines.append(t.at(t.if_(cond, [t.assign("x", x), *_counted(i)]), item.pos))

    def emit_best(self, b: ast.BestChoice, rest: list, index: int, env: Env, lines: list[py.stmt]) -> None:
        """Try every combination of the chosen property's options; keep the best total.

        The first combination wins ties. Properties are restored afterwards: scoring
        never changes the state.
        """
        k = next(self.fresh)
        inner = env.child()
        var = f"g_{b.source_var}_{k}"
        inner.bind(b.source_var, t.name(var))
        prop = self.prop_index[b.prop]
        sel, opts, saved, base, best, many, combo, v = (f"{x}{k}" for x in
                                                        ("sel", "opts", "saved", "base", "best", "many", "combo", "v"))

        def value_of(c: str) -> t.Code:
            return t.sub(t.sub("P", prop), c)

        ifs = [self.cx_test(b.cond, inner)] if b.cond is not None else []
        lines.append(t.at(t.assign(sel, t.listcomp(t.name(var), [t.comp(var, self.iterable(b.source, env), ifs)])),
                          b.pos))
        choices = t.or_(t.call("list", self.cx_iter(b.options, inner)), t.list_([value_of(var)]))
        lines.append(t.assign(opts, t.listcomp(choices, [t.comp(var, t.name(sel))])))
        lines.append(t.assign(saved, t.listcomp(value_of(var), [t.comp(var, t.name(sel))])))
        lines.append(t.assign(base, t.tuple_([t.call("list", "out"), "t"])))
        lines.append(t.assign(best, t.const(None)))
        lines.append(t.assign(many, t.call("any", t.genexp(t.compare(t.call("len", "o"), ">", t.const(1)),
                                                             [t.comp("o", t.name(opts))]))))
        body = [t.for_(t.tuple_([var, v]), t.call("zip", sel, combo), [t.assign(value_of(var), v)]), *_restart(base)]
        self.emit_score_items(rest, index, env, body)
        # the best for the player: the highest total, then the game's ranking (e.g. a tie-breaker)
        # (the ranking is only consulted when there is more than one combination to weigh)
        body += _keep_best(k, best, [])
        lines.append(t.for_(combo, t.call("product", t.starred(t.name(opts))), body))
        lines.append(t.for_(t.tuple_([var, v]), t.call("zip", sel, saved), [t.assign(value_of(var), v)]))
        lines.append(t.assign(t.tuple_(["out", "t"]), t.tuple_([t.sub(best, 0), t.sub(best, 1)])))

    def emit_best_value(self, b: ast.BestValue, rest: list, index: int, env: Env, lines: list[py.stmt]) -> None:
        """Try each value of the source for the name; keep the best total (then the best
        ranking key, the first among equals).

        While a value is tried it stands in the `into` variable too, so that a ranking which
        reads the variable weighs it; the variable is restored afterwards unless `keep`.
        """
        k = next(self.fresh)
        inner = env.child()
        var = f"g_{b.var}_{k}"
        inner.bind(b.var, t.name(var))
        opts, saved, base, best = (f"{x}{k}" for x in ("opts", "saved", "base", "best"))
        choices = t.or_(t.call("list", self.cx_iter(b.source, env)), t.list_([t.const(None)]))
        lines.append(t.at(t.assign(opts, choices), b.pos))

        def slot() -> t.Code | None:
            return t.sub("V", t.binop(t.const(self.var_base[b.into]), "+", t.name("p"))) if b.into is not None \
                else None

        if b.into is not None:
            lines.append(t.assign(saved, slot()))
        lines.append(t.assign(base, t.tuple_([t.call("list", "out"), "t"])))
        lines.append(t.assign(best, t.const(None)))
        lines.append(t.assign(f"many{k}", t.compare(t.call("len", opts), ">", t.const(1))))
        body = [t.assign(slot(), var)] if b.into is not None else []
        body += _restart(base)
        self.emit_score_items(rest, index, inner, body)
        body += _keep_best(k, best, [t.name(var)])
        lines.append(t.for_(var, t.name(opts), body))
        if b.into is not None:
            lines.append(t.assign(slot(), t.ifexp(t.name("keep"), t.sub(best, 3), t.name(saved))))
        lines.append(t.assign(t.tuple_(["out", "t"]), t.tuple_([t.sub(best, 0), t.sub(best, 1)])))

    def compile_ranking(self) -> list[py.stmt]:
        r = self.m.ranking
        if r is None:
            targets = self.m.score_targets
            total = t.add(*(t.sub("V", t.binop(t.const(self.var_base[x]), "+", t.name("p"))) for x in targets)) \
                if targets else t.const(0)
            keys = [total]
        else:
            env = Env({r.player: "p"})
            keys = [self.cx(k, env) for k in r.keys]
        rank = t.function("rank_key", ["st", "p"], state_aliases() + [t.ret(t.tuple_(keys))])
        return [rank, t.assign("NITEMS", t.const(len(self.items)))]


def _counted(i: int) -> list[py.stmt]:
    """`out[i] = x; t += x`: an item's points into the breakdown and the total."""
    return [t.assign(t.sub("out", i), "x"), t.augassign("t", "+", t.name("x"))]


def _restart(base: str) -> list[py.stmt]:
    """`out = list(base[0]); t = base[1]`: the items before a choice, as they were."""
    return [t.assign("out", t.call("list", t.sub(base, 0))), t.assign("t", t.sub(base, 1))]


def _keep_best(k: int, best: str, extra: list[t.Code]) -> list[py.stmt]:
    """The total tried, kept when it beats the best so far (the ranking breaks a tie when
    there was more than one option)."""
    key = f"key{k}"
    weighed = t.ifexp(t.name(f"many{k}"), t.tuple_(["t", t.call("rank_key", "st", "p")]), t.tuple_(["t"]))
    better = t.or_(t.compare(t.name(best), "is", t.const(None)), t.compare(t.name(key), ">", t.sub(best, 2)))
    return [t.assign(key, weighed), t.if_(better, [t.assign(best, t.tuple_(["out", "t", key, *extra]))])]
