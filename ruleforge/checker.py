"""Names, types and arity: finds every error in a rules file at once.

The checker also records, for every expression, its type and what each name refers to;
the compiler reads those records instead of resolving names a second time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import attrs

from . import ast, sizes
from .diagnostics import Diagnostic, did_you_mean
from .model import (
    ANY,
    COMP,
    FLAG,
    INT,
    NONE,
    PLAYER,
    TEXT,
    ZONE,
    KindInfo,
    Model,
    Type,
    compatible,
    element_of,
    list_of,
)
from .nesting import too_deep_for_python

# Built-in functions over a collection or a generator `f(x for x in source if cond)`.
AGGREGATES = {"count", "sum", "min", "max", "any", "every", "first", "last", "argmax", "argmin",
              "distinct", "list", "groups"}
# Built-in functions with plain arguments: name -> (min args, max args).
FUNCTIONS = {"next": (1, 1), "prev": (1, 1), "random": (1, 1), "abs": (1, 1), "index": (1, 1),
             "zone_of": (1, 1), "cell": (3, 3), "cells": (1, 1), "row": (1, 1), "column": (1, 1),
             "adjacent": (1, 1), "top_of": (1, 1), "owner": (1, 1), "counted_as": (1, 1),
             "room": (1, 1), "capacity": (1, 1)}
CONSTANTS = {"true": FLAG, "false": FLAG, "player_count": INT, "none": NONE}
# Kept by the engine for `end when` rules: an end was triggered / the last turn is over.
END_FLAGS = {"ending": FLAG, "finished": FLAG}
# Names compared by "did you mean" hints in one check, all hints together (under a second).
SUGGEST_BUDGET = 300_000
ZONE_SHAPES = {"pile", "hand", "row", "grid"}
DECLARATION_WORDS = {"game", "players", "extends", "option", "enum", "kind", "zone", "var", "def",
                     "components", "phase", "flow", "action", "when", "scoring", "ranking", "remove", "replace"}


@attrs.define
class Scope:
    """What a statement or expression may see: locals and whether `me` exists."""

    locals: dict[str, Type] = attrs.Factory(dict)
    has_me: bool = False
    in_action: str | None = None
    in_turn: bool = False
    pure: bool = False  # inside def/require/label/scoring: no chance, no effects
    setup: bool = False  # computed once when a game is set up: no state to read yet

    def child(self, **changes) -> Scope:
        return attrs.evolve(self, locals=dict(self.locals), **changes)


SETUP = Scope(pure=True, setup=True)


class Checker:
    def __init__(self, decls: list[ast.Decl], sources: dict[str, str] | None = None):
        self.decls = decls
        self.sources = sources or {}
        self.model = Model()
        self.errors: list[Diagnostic] = []
        self._reported: dict[Diagnostic, int] = {}  # each diagnostic's index in `errors`
        self._suggest_budget = SUGGEST_BUDGET
        self.types: dict[ast.Expr, Type] = {}
        self.res: dict[object, tuple] = {}
        self.def_types: dict[str, Type] = {}
        self._def_stack: list[str] = []
        self._player_var_writes: list[tuple[str, ast.Pos]] = []
        self._phases_checked: set[str] = set()  # phases checked at a call (in the caller's scope)
        self._phase_stack: list[str] = []
        self._phase_cycle = False

    def error(self, pos: ast.Pos, message: str, hint: str | None = None) -> None:
        diag = Diagnostic(pos, message, hint)
        # A type resolved at each use is reported once. The index is checked against the list
        # (a caller may cut `errors` back) so that the test costs O(1), not a scan of the list.
        i = self._reported.get(diag)
        if i is not None and i < len(self.errors) and self.errors[i] == diag:
            return
        self._reported[diag] = len(self.errors)
        self.errors.append(diag)

    def suggest(self, name: str, candidates: Iterable[str] | Callable[[], Iterable[str]]) -> str | None:
        """A 'did you mean' hint, within a budget of names compared for the whole check: a file
        with thousands of unknown names against thousands of declared ones would otherwise take
        time in their product. `candidates` may be a function, so that once the budget is spent
        they are not even gathered."""
        if self._suggest_budget <= 0:
            return None
        pool = list(candidates() if callable(candidates) else candidates)
        self._suggest_budget -= len(pool)
        return did_you_mean(name, pool)

    # --- collecting declarations ---------------------------------------------------
    def run(self) -> Model:
        self.collect()
        self.check_kinds()
        self.check_zones_vars()
        self.check_components()
        for d in self.model.defs.values():
            self.def_type(d.name)
        for a in self.model.actions.values():
            self.check_action(a)
        for s in self.model.scorings.values():
            self.check_scoring(s)
        for t in self.model.triggers:
            self.check_trigger(t)
        # Phases are inlined where they are called, so each call is checked in its caller's
        # scope (a phase called inside a turn may use `me` and `choose`); one never called is
        # checked on its own.
        self.check_phase_cycles()
        if self.model.flow is None:
            self.error(ast.Pos(self._main_file(), 1, 1), "the rules have no 'flow' block",
                       "add 'flow { ... }' saying how a game runs")
        else:
            self.check_block(self.model.flow.body, Scope())
        for p in self.model.phases.values():
            if p.name not in self._phases_checked:
                self._phases_checked.add(p.name)
                self.check_block(p.body, Scope())
        if self.model.ranking is not None:
            r = self.model.ranking
            scope = Scope(locals={r.player: PLAYER}, pure=True)
            for k in r.keys:
                self.expect(k, scope, INT, "a ranking key")
        for rule in self.model.end_rules:
            scope = Scope(has_me=True, pure=True)
            scope.locals["me"] = PLAYER
            self.expect(rule.cond, scope, FLAG, "an end condition")
            if rule.last is not None:
                self.expect(rule.last, scope, PLAYER, "whose turn is the last")
        for target, pos in self._player_var_writes:
            if target in self.model.score_targets:
                self.error(pos, f"'{target}' is kept by 'score ... into {target}'; changing it directly "
                           "would make the breakdown disagree with the total",
                           "add the points as an item of a scoring block instead")
        return self.model

    def _main_file(self) -> str:
        return self.decls[0].pos.file if self.decls else "<rules>"

    def collect(self) -> None:
        m = self.model
        seen: dict[str, ast.Pos] = {}
        for d in self.decls:
            name = getattr(d, "name", None)
            if name is not None and not isinstance(d, ast.RemoveDecl):
                if name in seen:
                    self.error(d.pos, f"'{name}' is declared twice", f"the first is at line {seen[name].line}")
                    continue
                if name in CONSTANTS or name in AGGREGATES or name in FUNCTIONS or name == "me":
                    self.error(d.pos, f"'{name}' is a built-in name and cannot be declared")
                    continue
                seen[name] = d.pos
            if isinstance(d, ast.GameDecl):
                m.title = d.title
            elif isinstance(d, ast.PlayersDecl):
                if d.low < 1 or d.high < d.low:
                    self.error(d.pos, f"bad player range {d.low}..{d.high}")
                self.report(sizes.players_problem(d))
                m.players = (d.low, d.high)
            elif isinstance(d, ast.EnumDecl):
                m.enums[d.name] = d
                for member, pos in d.members:
                    if member in m.members:
                        self.error(pos, f"enum member '{member}' is already a member of {m.members[member]}")
                    m.members[member] = d.name
            elif isinstance(d, ast.KindDecl):
                info = KindInfo(d, {}, {})
                for a in d.attrs:
                    (info.props if a.mutable else info.attrs)[a.name] = a
                m.kinds[d.name] = info
            elif isinstance(d, ast.ZoneDecl):
                m.zones[d.name] = d
            elif isinstance(d, ast.VarDecl):
                m.vars[d.name] = d
            elif isinstance(d, ast.OptionDecl):
                m.options[d.name] = d
            elif isinstance(d, ast.DefDecl):
                m.defs[d.name] = d
            elif isinstance(d, ast.PhaseDecl):
                m.phases[d.name] = d
            elif isinstance(d, ast.ActionDecl):
                if d.name == "pass":
                    self.error(d.pos, "'pass' is built in: it is the action of doing nothing")
                m.actions[d.name] = d
            elif isinstance(d, ast.ScoringDecl):
                m.scorings[d.name] = d
            elif isinstance(d, ast.TriggerDecl):
                m.triggers.append(d)
            elif isinstance(d, ast.ComponentsDecl):
                m.components.extend(d.entries)
            elif isinstance(d, ast.FlowDecl):
                m.flow = d
            elif isinstance(d, ast.RankingDecl):
                m.ranking = d
            elif isinstance(d, ast.EndDecl):
                m.end_rules.append(d)
            elif isinstance(d, (ast.RemoveDecl, ast.ReplaceDecl)):
                self.error(d.pos, "'remove' and 'replace' only make sense in a file that 'extends' another")

    def resolve_type(self, t: ast.TypeRef) -> Type:
        if t.name == "list":
            return list_of(self.resolve_type(t.element)) if t.element else list_of(ANY)
        simple = {"int": INT, "flag": FLAG, "text": TEXT, "player": PLAYER, "zone": ZONE}
        if t.name in simple:
            return simple[t.name]
        if t.name in self.model.enums:
            return Type("enum", t.name)
        if t.name in self.model.kinds:
            return Type("comp", t.name)
        known = list(simple) + list(self.model.enums) + list(self.model.kinds)
        self.error(t.pos, f"unknown type '{t.name}'", self.suggest(t.name, known))
        return ANY

    def check_kinds(self) -> None:
        m = self.model
        for info in m.kinds.values():
            for a in list(info.attrs.values()) + list(info.props.values()):
                t = self.resolve_type(a.type)
                prev = m.attr_types.get(a.name)
                if prev is not None and (prev[0] != t or prev[1] != a.mutable):
                    self.error(a.pos, f"attribute '{a.name}' has another type or mutability in another kind",
                               "attributes of the same name must agree across kinds")
                m.attr_types[a.name] = (t, a.mutable)
                if a.default is not None:
                    self.expect(a.default, SETUP, t, f"the default of '{a.name}'")
            enums = set()
            for name, pos in info.decl.counts_as:
                a = info.attrs.get(name) or info.props.get(name)
                t = m.attr_types.get(name, (ANY, False))[0] if a is not None else None
                if t is None:
                    self.error(pos, f"kind '{info.decl.name}' has no attribute '{name}'",
                               self.suggest(name, list(info.attrs) + list(info.props)))
                    continue
                base = t.element if t.kind == "list" and t.element else t
                if base.kind != "enum":
                    self.error(pos, f"'counts as' names enum attributes; '{name}' is {t}")
                elif t.kind == "list" and a.mutable:
                    self.error(pos, f"'counts as' takes a list attribute but not a list property: '{name}'")
                else:
                    enums.add(base.name)
            if len(enums) > 1:
                self.error(info.decl.pos, f"'counts as' of kind '{info.decl.name}' mixes enums: "
                           f"{', '.join(sorted(enums))}")
            if info.decl.label is not None:
                scope = Scope(locals={n: m.attr_types[n][0] for n in list(info.attrs) + list(info.props)},
                              pure=True)
                self.check_string(info.decl.label, scope)

    def check_zones_vars(self) -> None:
        for z in self.model.zones.values():
            if z.shape not in ZONE_SHAPES:
                self.error(z.pos, f"unknown zone shape '{z.shape}'",
                           self.suggest(z.shape, ZONE_SHAPES) or f"use one of {', '.join(sorted(ZONE_SHAPES))}")
            for s in z.size or ():
                self.expect(s, SETUP, INT, "a zone size")
            if z.shape == "grid" and (z.size is None or len(z.size) != 2):
                self.error(z.pos, f"grid zone '{z.name}' needs its size", "write ', size ROWS by COLUMNS'")
            if z.shape != "grid" and z.size is not None and len(z.size) != 1:
                self.error(z.pos, f"'size R by C' is for grids; a {z.shape} takes 'size N' (its capacity)")
            self.check_constant_size(z)
            for _vis, row, cond in z.rules:
                if row is not None and z.shape != "grid":
                    self.error(z.pos, f"'visible ... in row' needs a grid zone; '{z.name}' is a {z.shape}")
                if cond is not None:
                    self.expect(cond, Scope(pure=True), FLAG, "a visibility condition")
        for v in self.model.vars.values():
            t = self.resolve_type(v.type)
            if v.default is not None:
                self.expect(v.default, SETUP, t, f"the initial value of '{v.name}'")
        for o in self.model.options.values():
            t = self.resolve_type(o.type)
            self.expect(o.default, SETUP, t, f"the default of option '{o.name}'")

    def check_constant_size(self, z: ast.ZoneDecl) -> None:
        """A size written as a number is checked now (a computed one, per player count, by
        the compiler)."""
        values = [sizes.constant(x) for x in z.size or ()]
        if None in values or z.shape not in ZONE_SHAPES:
            return
        if z.shape == "grid" and len(values) == 2:
            self.report(sizes.grid_problem(z, *values))
        elif z.shape != "grid" and len(values) == 1:
            self.report(sizes.capacity_problem(z, values[0]))

    def report(self, problem: Diagnostic | None) -> None:
        if problem is not None:
            self.error(problem.pos, problem.message, problem.hint)

    def check_components(self) -> None:
        m = self.model
        total = 0
        for e in m.components:
            made = sizes.constant_count(e)
            if made is not None:  # (the compiler counts the others, per player count)
                total += made
                self.report(sizes.components_problem(e, made, total))
            info = m.kinds.get(e.kind)
            if info is None:
                self.error(e.pos, f"unknown kind '{e.kind}'", self.suggest(e.kind, m.kinds))
            if e.copies is not None:
                self.expect(e.copies, SETUP, INT, "a number of copies")
            if e.cond is not None:
                self.expect(e.cond, SETUP, FLAG, "a condition")
            zone = m.zones.get(e.zone)
            if zone is not None and zone.shape == "grid":
                self.error(e.zone_pos, f"components start in a pile or hand, not on grid '{e.zone}'",
                           "move them onto cells in the flow: move c to cell(grid, row, column)")
            if zone is None:
                self.error(e.zone_pos, f"unknown zone '{e.zone}'", self.suggest(e.zone, m.zones))
            elif zone.per_player != e.each_player:
                if zone.per_player:
                    self.error(e.zone_pos, f"zone '{e.zone}' is per player",
                               f"write 'in {e.zone} of each player'")
                else:
                    self.error(e.zone_pos, f"zone '{e.zone}' is shared, not per player")
            given = set()
            for name, value, pos in e.args:
                given.add(name)
                if info is None:
                    continue
                a = info.attrs.get(name) or info.props.get(name)
                if a is None:
                    self.error(pos, f"kind '{e.kind}' has no attribute '{name}'",
                               self.suggest(name, list(info.attrs) + list(info.props)))
                    continue
                want = m.attr_types[name][0]
                got = self.expr(value, SETUP)
                if isinstance(value, ast.Range):
                    got = INT
                if not compatible(want, got):
                    self.error(value.pos, f"attribute '{name}' is {want}, not {got}")
            if info is not None:
                for a in info.attrs.values():
                    if a.name not in given and a.default is None and a.type.name not in ("flag",):
                        self.error(e.pos, f"'{e.kind}' needs a value for '{a.name}'",
                                   f"give '{a.name}: ...' or a default in kind {e.kind}")

    # --- defs ------------------------------------------------------------------------
    def def_type(self, name: str) -> Type:
        if name in self.def_types:
            return self.def_types[name]
        d = self.model.defs[name]
        if name in self._def_stack:
            self.error(d.pos, f"'{name}' is defined in terms of itself")
            return ANY
        self._def_stack.append(name)
        scope = Scope(pure=True)
        for p in d.params:
            scope.locals[p.name] = self.resolve_type(p.type)
        t = self.expr(d.body, scope)
        self._def_stack.pop()
        self.def_types[name] = t
        return t

    # --- actions, phases, scoring ---------------------------------------------------------
    def check_action(self, a: ast.ActionDecl) -> None:
        scope = Scope(has_me=True, in_action=a.name)
        scope.locals["me"] = PLAYER
        for p in a.params:
            t = self.expr(p.domain, scope.child(pure=True))
            el = element_of(t)
            if el is None:
                self.error(p.domain.pos, f"a parameter's choices must be a zone or a list, not {t}")
                el = ANY
            scope.locals[p.name] = el
        if a.label is not None:
            self.check_string(a.label, scope.child(pure=True))
        if a.public_label is not None:
            self.check_string(a.public_label, scope.child(pure=True))
        seen_effect = False
        for s in a.body:
            if isinstance(s, ast.Require):
                if seen_effect:
                    self.error(s.pos, "'require' must come before the action's effects",
                               "move it to the top of the action")
                self.expect(s.cond, scope.child(pure=True), FLAG, "a requirement")
            else:
                seen_effect = True
                self.stmt(s, scope)

    def check_trigger(self, t: ast.TriggerDecl) -> None:
        for name in (t.zone, t.other):
            if name is not None and name not in self.model.zones:
                self.error(t.pos, f"unknown zone '{name}'", self.suggest(name, self.model.zones))
        scope = Scope(has_me=True)
        scope.locals["me"] = PLAYER
        scope.locals["it"] = COMP
        self.check_block(t.body, scope)

    def check_scoring(self, s: ast.ScoringDecl) -> None:
        scope = Scope(locals={s.player: PLAYER}, pure=True)
        labels = set()
        for item in s.items:
            if isinstance(item, ast.BestChoice):
                self.check_best(item, scope)
                continue
            if item.label in labels:
                self.error(item.pos, f"scoring item '{item.label}' appears twice in '{s.name}'")
            labels.add(item.label)
            if item.value is not None:
                self.expect(item.value, scope, INT, "points")
            if item.cond is not None:
                self.expect(item.cond, scope, FLAG, "a condition")

    def check_best(self, b: ast.BestChoice, scope: Scope) -> None:
        src = self.expr(b.source, scope)
        el = element_of(src)
        if el is None or el.kind not in ("comp", "any"):
            self.error(b.source.pos, f"'best' chooses for components; this gives {src}")
        inner = scope.child()
        inner.locals[b.source_var] = COMP if el is None else el
        if b.var != b.source_var:
            self.error(b.pos, f"'best {b.var}.{b.prop}' must name the loop's component '{b.source_var}'")
        if b.cond is not None:
            self.expect(b.cond, inner, FLAG, "a filter")
        at = self.model.attr_types.get(b.prop)
        if at is None or not at[1]:
            self.error(b.pos, f"'{b.prop}' is not a changeable property", "declare it with 'var' in the kind")
            return
        opts = self.expr(b.options, inner)
        oel = element_of(opts)
        if oel is None or not compatible(at[0], oel):
            self.error(b.options.pos, f"the options for '{b.prop}' must be a list of {at[0]}, not {opts}")

    def counts_as_enum(self) -> Type:
        """The enum that `is` and counted_as() test: the one every `counts as` uses."""
        for info in self.model.kinds.values():
            for name in info.decl.counts_as:
                t = self.model.attr_types.get(name[0] if isinstance(name, tuple) else name)
                if t is not None:
                    return t[0].element if t[0].kind == "list" and t[0].element else t[0]
        return ANY

    def check_phase_cycles(self) -> None:
        def calls(body, out):
            for s in body:
                if isinstance(s, ast.CallPhase):
                    out.append(s.name)
                for sub in _sub_blocks(s):
                    calls(sub, out)
            return out

        graph = {n: calls(p.body, []) for n, p in self.model.phases.items()}
        state: dict[str, int] = {}

        def visit(n: str) -> None:
            state[n] = 1
            for m in graph.get(n, []):
                if state.get(m) == 1:
                    self._phase_cycle = True
                    self.error(self.model.phases[n].pos, f"phase '{n}' calls itself through '{m}'",
                               "use a loop instead of recursion")
                elif m in graph and not state.get(m):
                    visit(m)
            state[n] = 2

        for n in graph:
            if not state.get(n):
                visit(n)

    # --- statements --------------------------------------------------------------------
    def check_block(self, body: tuple, scope: Scope) -> None:
        inner = scope.child()
        for s in body:
            self.stmt(s, inner)

    def stmt(self, s: ast.Stmt, scope: Scope) -> None:
        m = self.model
        if isinstance(s, ast.Let):
            t = self.expr(s.value, scope)
            scope.locals[s.name] = t
        elif isinstance(s, ast.Assign):
            self.assign(s, scope)
        elif isinstance(s, ast.Move):
            if s.top is not None:
                self.expect(s.top, scope, INT, "a number of components")
                self.expect(s.what, scope, ZONE, "the zone to move from")
            else:
                t = self.expr(s.what, scope)
                if t.kind not in ("comp", "zone", "list", "any"):
                    self.error(s.what.pos, f"can only move a component, a zone's contents or a list, not {t}")
            self.expect(s.dest, scope, ZONE, "the destination")
        elif isinstance(s, ast.Deal):
            self.expect(s.count, scope, INT, "a number of cards")
            self.expect(s.source, scope, ZONE, "the zone to deal from")
            z = m.zones.get(s.zone)
            if z is None:
                self.error(s.pos, f"unknown zone '{s.zone}'", self.suggest(s.zone, m.zones))
            elif not z.per_player:
                self.error(s.pos, f"'deal' needs a per-player zone; '{s.zone}' is shared")
        elif isinstance(s, ast.Shuffle):
            self.expect(s.zone, scope, ZONE, "the zone to shuffle")
        elif isinstance(s, ast.Swap):
            a = self.expr(s.left, scope)
            b = self.expr(s.right, scope)
            if not ((a.kind in ("zone", "any") and b.kind in ("zone", "any"))
                    or (a.kind in ("comp", "any") and b.kind in ("comp", "any"))):
                self.error(s.pos, f"'swap' exchanges two zones' contents or two components, not {a} and {b}")
        elif isinstance(s, ast.Reveal):
            t = self.expr(s.what, scope)
            if t.kind not in ("zone", "comp", "any"):
                self.error(s.what.pos, f"can only reveal a zone or a component, not {t}")
            self.expect(s.to, scope, PLAYER, "the player who sees it")
        elif isinstance(s, ast.If):
            for cond, body in s.branches:
                self.expect(cond, scope, FLAG, "a condition")
                self.check_block(body, scope)
            self.check_block(s.otherwise, scope)
        elif isinstance(s, ast.For):
            inner = scope.child()
            inner.locals[s.var] = self.loop_element(s.source, scope)
            self.check_block(s.body, inner)
        elif isinstance(s, ast.Repeat):
            self.expect(s.times, scope, INT, "a number of times")
            self.check_block(s.body, scope)
        elif isinstance(s, ast.RepeatUntil):
            inner = scope.child()
            for x in s.body:
                self.stmt(x, inner)
            self.expect(s.cond, inner, FLAG, "a condition")
        elif isinstance(s, ast.While):
            self.expect(s.cond, scope, FLAG, "a condition")
            self.check_block(s.body, scope)
        elif isinstance(s, ast.Turn):
            self.expect(s.player, scope, PLAYER, "whose turn it is")
            inner = scope.child(has_me=True, in_turn=True)
            inner.locals["me"] = PLAYER
            self.check_block(s.body, inner)
        elif isinstance(s, ast.Choose):
            if not scope.has_me:
                self.error(s.pos, "'choose' needs a player", "use it inside a 'turn' or an action")
            for name, pos in zip(s.actions, s.action_pos):
                if name != "pass" and name not in m.actions:
                    self.error(pos, f"unknown action '{name}'", self.suggest(name, list(m.actions) + ["pass"]))
        elif isinstance(s, ast.ScoreStmt):
            if s.scoring not in m.scorings:
                self.error(s.pos, f"unknown scoring '{s.scoring}'", self.suggest(s.scoring, m.scorings))
            v = m.vars.get(s.into)
            if v is None or not v.per_player or self.resolve_type(v.type) != INT:
                self.error(s.pos, f"'score ... into' needs a per-player int var; '{s.into}' is not one",
                           self.suggest(s.into, lambda: [n for n, d in m.vars.items() if d.per_player and n != s.into]))
            elif s.into not in m.score_targets:
                m.score_targets.append(s.into)
        elif isinstance(s, ast.Log):
            self.check_string(s.text, scope)
        elif isinstance(s, ast.Require):
            self.error(s.pos, "'require' belongs at the top of an action")
        elif isinstance(s, ast.EndGame):
            pass
        elif isinstance(s, ast.CallPhase):
            if s.name not in m.phases:
                hint = self.suggest(s.name, m.phases)
                if s.name in DECLARATION_WORDS:
                    hint = f"'{s.name}' starts a declaration: declarations belong at the top level, not in a block"
                if s.name in m.actions:
                    hint = f"'{s.name}' is an action: offer it with 'turn p: {s.name}' or 'choose: {s.name}'"
                self.error(s.pos, f"unknown phase '{s.name}'", hint)
            elif s.name not in self._phase_stack and not self._phase_cycle:
                self._phases_checked.add(s.name)
                self._phase_stack.append(s.name)
                self.check_block(m.phases[s.name].body, scope)
                self._phase_stack.pop()
        else:  # pragma: no cover - the parser builds no other statement
            self.error(s.pos, f"unsupported statement {type(s).__name__}")

    def assign(self, s: ast.Assign, scope: Scope) -> None:
        m = self.model
        target = s.target
        value_t = self.expr(s.value, scope)
        want: Type = ANY
        if isinstance(target, ast.Name):
            v = m.vars.get(target.ident)
            if target.ident in scope.locals:
                want = scope.locals[target.ident]
                self.res[target] = ("local", target.ident)
            elif v is None:
                self.error(target.pos, f"unknown variable '{target.ident}'", self.suggest(target.ident, m.vars))
            elif v.per_player:
                self.error(target.pos, f"'{target.ident}' is per player", f"write '{target.ident}(p) {s.op} ...'")
            else:
                want = self.resolve_type(v.type)
                self.res[target] = ("var", v)
        elif isinstance(target, ast.Call):
            v = m.vars.get(target.func)
            if v is None or not v.per_player:
                self.error(target.pos, f"'{target.func}' is not a per-player variable",
                           self.suggest(target.func, lambda: [n for n, d in m.vars.items() if d.per_player]))
            else:
                want = self.resolve_type(v.type)
                self.res[target] = ("var_p", v)
                self._player_var_writes.append((target.func, target.pos))
            self.expect(target.args[0], scope, PLAYER, "a player")
        elif isinstance(target, ast.Attr):
            self.expr(target.obj, scope)
            at = m.attr_types.get(target.attr)
            if at is None or not at[1]:
                hint = "declare it with 'var' in the kind to make it changeable" if at else None
                self.error(target.pos, f"'{target.attr}' is not a changeable property", hint)
            else:
                want = at[0]
        if s.op != "=" and want not in (INT, ANY):
            self.error(s.pos, f"'{s.op}' needs a number, not {want}")
        if not compatible(want, value_t):
            self.error(s.value.pos, f"expected {want}, got {value_t}")

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
            if f in ("argmax", "argmin"):
                self.error(e.pos, f"'{f}' needs 'by': {f}(x for x in ... by key)")
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
        """cell, cells, row, column, adjacent, top_of, owner: positions on grids and zones."""
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
        if e.key is not None:
            if e.func not in ("argmax", "argmin"):
                self.error(e.key.pos, f"'by' belongs to argmax and argmin, not '{e.func}'")
            self.expect(e.key, inner, INT, "a sort key")
        elif e.func in ("argmax", "argmin"):
            self.error(e.pos, f"'{e.func}' needs 'by': {e.func}(x for x in ... by key)")
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
        if f == "list":
            return list_of(item)
        if f == "groups":
            return list_of(list_of(item))
        return ANY


def _sub_blocks(s: ast.Stmt) -> list[tuple]:
    if isinstance(s, ast.If):
        return [b for _, b in s.branches] + [s.otherwise]
    if isinstance(s, (ast.For, ast.Repeat, ast.While, ast.Turn)):
        return [s.body]
    if isinstance(s, ast.RepeatUntil):
        return [s.body]
    return []


def sub_blocks(s: ast.Stmt) -> list[tuple]:
    """The statement blocks nested directly inside a statement."""
    return _sub_blocks(s)


def check(decls: list[ast.Decl], sources: dict[str, str] | None = None) -> Checker:
    checker = Checker(decls, sources)
    try:
        checker.run()
    except RecursionError:  # nesting within raised limits, but beyond this Python's stack
        checker.errors.append(too_deep_for_python(checker._main_file()))
    return checker
