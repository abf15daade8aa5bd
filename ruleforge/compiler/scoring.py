"""Scorings, the ranking and `best` choices."""

from __future__ import annotations

from .. import ast
from ..codegen import (
    hoist_grid_reads,
    narrow_by_attribute,
)
from .program import Env


def keeps_choices(s: ast.ScoringDecl) -> bool:
    """Whether scoring `s` chooses a value `into` a variable (then applying it keeps it)."""
    return any(isinstance(item, ast.BestValue) and item.into is not None for item in s.items)


class ScoringCompiler:
    """The scorings' part of `Compiler`."""

    # --- scoring ----------------------------------------------------------------------------
    def scoring_slots(self, name: str) -> tuple[int, int]:
        return self.scoring_index[name]

    def compile_scoring(self, s: ast.ScoringDecl) -> str:
        env = Env({s.player: "p"})
        count = sum(1 for item in s.items if isinstance(item, ast.ScoreItem))
        # `keep`: applied by `score ... into`, the values chosen `into` a variable stay there
        keep = ", keep=False" if keeps_choices(s) else ""
        lines = [f"def score_{s.name}(st, p{keep}):", "    Z = st.z; V = st.v; P = st.p",
                 f"    out = [0] * {count}", "    t = 0"]
        self.emit_score_items(list(s.items), 0, env, lines, 1)
        lines.append("    return out, t")
        return narrow_by_attribute(hoist_grid_reads(lines))

    def emit_score_items(self, items: list, index: int, env: Env, lines: list[str], depth: int) -> None:
        """Items in order; a `best` choice wraps the items after it in a search over its options."""
        pad = "    " * depth
        for pos, item in enumerate(items):
            self.where = item.pos
            tag = self.tag(item.pos)
            if isinstance(item, ast.BestChoice):
                self.emit_best(item, items[pos + 1:], index, env, lines, depth)
                return
            if isinstance(item, ast.BestValue):
                self.emit_best_value(item, items[pos + 1:], index, env, lines, depth)
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

    def emit_best(self, b: ast.BestChoice, rest: list, index: int, env: Env, lines: list[str],
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

    def emit_best_value(self, b: ast.BestValue, rest: list, index: int, env: Env, lines: list[str],
                        depth: int) -> None:
        """Try each value of the source for the name; keep the best total (then the best
        ranking key, the first among equals).

        While a value is tried it stands in the `into` variable too, so that a ranking which
        reads the variable weighs it; the variable is restored afterwards unless `keep`.
        """
        pad = "    " * depth
        k = next(self.fresh)
        inner = env.child()
        var = f"g_{b.var}_{k}"
        inner.names[b.var] = var
        lines.append(f"{pad}opts{k} = list({self.cx_iter(b.source, env)}) or [None]" + self.tag(b.pos))
        slot = f"V[{self.var_base[b.into]} + p]" if b.into is not None else None
        if slot:
            lines.append(f"{pad}saved{k} = {slot}")
        lines.append(f"{pad}base{k} = (list(out), t)")
        lines.append(f"{pad}best{k} = None")
        lines.append(f"{pad}many{k} = len(opts{k}) > 1")
        lines.append(f"{pad}for {var} in opts{k}:")
        if slot:
            lines.append(f"{pad}    {slot} = {var}")
        lines.append(f"{pad}    out = list(base{k}[0]); t = base{k}[1]")
        self.emit_score_items(rest, index, inner, lines, depth + 1)
        lines.append(f"{pad}    key{k} = (t, rank_key(st, p)) if many{k} else (t,)")
        lines.append(f"{pad}    if best{k} is None or key{k} > best{k}[2]:")
        lines.append(f"{pad}        best{k} = (out, t, key{k}, {var})")
        if slot:
            lines.append(f"{pad}{slot} = best{k}[3] if keep else saved{k}")
        lines.append(f"{pad}out, t = best{k}[0], best{k}[1]")

    def compile_ranking(self) -> str:
        r = self.m.ranking
        lines = ["def rank_key(st, p):", "    Z = st.z; V = st.v; P = st.p"]
        if r is None:
            targets = self.m.score_targets
            keys = " + ".join(f"V[{self.var_base[t]} + p]" for t in targets) or "0"
            lines.append(f"    return ({keys},)")
        else:
            env = Env({r.player: "p"})
            lines.append("    return (" + "".join(f"{self.cx(k, env)}, " for k in r.keys) + ")")
        return "\n".join(lines) + "\nNITEMS = " + str(len(self.items))

