"""What the native search (c/rf_search.c) needs of a lowered game, lowered with it.

The search of `ruleforge.search` reads three things of a game besides playing it:

- what each player saw (`State.seen`, written by `reveal`), to keep in place the hidden
  components a player knows when it determinizes. The C state keeps, per player and component,
  a bit per zone it was shown in (`st->seen`), which is all `determinize.known_components` asks
  of it: was the component shown to the player in the zone it is in now;
- the standing (`ruleforge.standing.Standing.of`): the final scorings' points added for the look
  to the variables they score into, the ranking key read, the variables put back
  (`rf_standing`, made of the lowered scorings and `rf_rank`);
- the legal actions listed again after a determinization moved hidden components
  (`Game._refresh_legal`: the lister of the decision the flow waits at, `rf_relist`).

Whatever of these cannot be lowered exactly leaves `RF_SEARCH_READY` 0, and the search of such
rules runs in Python.
"""

from __future__ import annotations

import ast as py

from ..declared import final_targets
from . import ctree as c
from .common import ST, NotLowered, call, st_field
from .scope import Scope

SEEN_BYTES = 1 << 16  # the most the state spends on what players saw (more: the search runs in Python)


class SearchLowering:
    """A mixin of `Lowering`: the parts of the unit that the native search calls."""

    program: object
    defined: dict[str, py.FunctionDef]
    n_zones: int

    def plan_seen(self) -> None:
        """Whether the state keeps what each player saw: only for rules that `reveal` a zone, and
        only while it stays small (SEEN_BYTES)."""
        reveals = any(isinstance(n, py.Call) and isinstance(n.func, py.Name) and n.func.id == "reveal_zone"
                      for f in self.defined.values() for n in py.walk(f))
        words = (self.n_zones + 63) // 64
        size = self.program.players * len(self.program.comp_kind) * words * 8
        self.seen_kept = reveals and size <= SEEN_BYTES
        self.search_ready = not reveals or self.seen_kept
        self.seen_dims = (self.program.players, len(self.program.comp_kind), words) if self.seen_kept else (1, 1, 1)
        self.relists: list[tuple[int, str | None]] = []
        self.last_lister: str | None = None

    def seen_defines(self) -> list[c.Define]:
        p, n, w = self.seen_dims
        return [c.Define("RF_SEEN_P", p), c.Define("RF_SEEN_C", n), c.Define("RF_SEEN_W", w),
                c.Define("RF_SEEN_KEPT", int(self.seen_kept)), c.Define("RF_SEARCH_READY", int(self.search_ready))]

    def reveal(self, node: py.Call) -> list[c.Stmt]:
        """`reveal_zone(st, zi, player)`: the zone's components marked as seen there by the player
        (kept only for the search; nothing else of a native game reads it)."""
        if not self.seen_kept or len(node.args) != 3 or node.keywords:
            return []
        zi, player = (self.scalar(a) for a in node.args[1:])
        return [c.Do(call("rf_reveal_zone", ST, zi, player))]

    def listed_at(self, point: int) -> None:
        """A decision of the flow waits at resume point `point`: note the lister it called, if it is
        the one the reference engine would call again there (`point_legal[st.options]`)."""
        options = getattr(self.scope, "options", None)
        lister = self.last_lister
        expected = self.program.point_legal.get(options) if options is not None else None
        if lister is None or expected is None or expected.__name__ != lister:
            lister = None
        self.relists.append((point, lister))
        self.last_lister = None

    def search_functions(self) -> list[c.Function]:
        """`rf_standing` and `rf_relist` (lowered before the functions they call are)."""
        return [self.lower_standing(), self.lower_relist()]

    def lower_standing(self) -> c.Function:
        """`rf_standing(st, player, key)`: `Standing.of` (ruleforge/standing.py). While the game
        runs, each final scoring's points are added to its variable, the key is read, and the
        variables are put back; a game over is judged by its key alone."""
        prog = self.program
        player, key, items = c.Name("player"), c.Name("key"), c.Name("items")
        self.scope = Scope(self, {"player": player})
        finals = []
        for name, into in final_targets(prog.model):
            func = prog.score_funcs[name].__name__
            called = py.Call(py.Name(func, py.Load()), [py.Name("st", py.Load()), py.Name("player", py.Load())], [])
            try:  # `func(st, player)`, as Standing.of calls it: its defaults (`keep=False`) filled in
                finals.append((self.want(func), prog.var_base[into], self.call_args(func, called)))
            except NotLowered:
                self.search_ready = False
        rank = c.Do(c.Call("rf_rank", (ST, player, key)))
        body: list[c.Stmt] = list(self.declarations(self.scope))
        if not finals:
            return c.Function("rf_standing", (("State *", "st"), ("int64_t", "player"), ("int64_t *", "key")), "void",
                              (*body, rank))
        body += [c.Decl("int64_t", "items", size="NITEMS_MAX"), c.If(st_field("over"), (rank, c.Return()))]
        points = []
        for k, (func, base, args) in enumerate(finals):
            name = f"s{k}"
            points.append(c.Name(name))
            slot = c.Index(st_field("v"), c.Binary("+", c.Int(base), player))
            body += [c.Decl("int64_t", name, c.Call(func, (ST, *args, items))),
                     c.Assign(slot, call("rf_add", ST, slot, c.Name(name)))]
        body.append(rank)
        for (_func, base, _args), got in zip(finals, points):
            body.append(c.Assign(c.Index(st_field("v"), c.Binary("+", c.Int(base), player)), got, "-="))
        return c.Function("rf_standing", (("State *", "st"), ("int64_t", "player"), ("int64_t *", "key")), "void",
                          tuple(body))

    def lower_relist(self) -> c.Function:
        """`rf_relist(st)`: the legal actions of the decision the flow waits at, listed again for
        its chooser (`Game._refresh_legal`); a decision whose lister is not known traps."""
        cases: list[c.Stmt] = []
        for point, lister in self.relists:
            if lister is None:
                continue
            cases += [c.Case(point), c.Assign(st_field("nlegal"), c.Int(0)),
                      c.Do(c.Call(self.functions[lister], (ST, st_field("chooser")))), c.Return()]
        trap = c.Do(call("rf_trap", ST, c.Name("RF_TRAP_UNREACHABLE")))
        return c.Function("rf_relist", (("State *", "st"),), "void",
                          (c.Switch(st_field("resume"), tuple(cases)), trap))
