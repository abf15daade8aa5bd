"""Checking declarations: the game's players, kinds, zones, variables, components, defs,
actions, triggers, scorings and phase calls."""

from __future__ import annotations

from .. import ast, sizes
from ..diagnostics import Diagnostic
from ..limits import LIMITS, describe
from ..model import (
    ANY,
    COMP,
    FLAG,
    INT,
    PLAYER,
    TEXT,
    ZONE,
    KindInfo,
    Type,
    compatible,
    element_of,
    list_of,
)
from .names import AGGREGATES, BUILTIN_ENUMS, CONSTANTS, FUNCTIONS, SETUP, ZONE_SHAPES, Scope
from .statements import sub_blocks


class DeclarationChecks:
    """The declarations' part of `Checker`."""

    def collect(self) -> None:
        m = self.model
        seen: dict[str, ast.Decl] = {}
        for name, members in BUILTIN_ENUMS.items():
            built_in = ast.Pos("<built-in>", 0, 0)
            m.enums[name] = ast.EnumDecl(built_in, name, tuple((member, built_in) for member in members))
            m.members.update(dict.fromkeys(members, name))
        for d in self.decls:
            name = getattr(d, "name", None)
            if name is not None and not isinstance(d, ast.RemoveDecl):
                if name in seen:
                    first = seen[name]
                    kinds = (_decl_word(first), _decl_word(d))
                    if kinds[0] == kinds[1]:
                        self.error(d.pos, f"'{name}' is declared twice", f"the first is at line {first.pos.line}")
                    else:  # a name is one thing: uses of the dropped one are not reported again
                        self.error(d.pos, f"'{name}' is declared twice: as a {kinds[0]} (line {first.pos.line}) "
                                   f"and as a{'n' if kinds[1][0] in 'aeiou' else ''} {kinds[1]}",
                                   f"a name is declared once: rename the {kinds[0]} or the {kinds[1]}")
                    self.declared_twice.add(name)
                    continue
                type_name = isinstance(d, (ast.EnumDecl, ast.KindDecl)) and name in BUILTIN_ENUMS
                if name in CONSTANTS or name in AGGREGATES or name in FUNCTIONS or type_name or name == "me":
                    self.error(d.pos, f"'{name}' is a built-in name and cannot be declared")
                    continue
                seen[name] = d
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
                        built_in = " (built in)" if m.members[member] in BUILTIN_ENUMS else ""
                        self.error(pos, f"enum member '{member}' is already a member of "
                                        f"{m.members[member]}{built_in}")
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
            elif isinstance(d, ast.InvariantDecl):
                m.invariants.append(d)
            elif isinstance(d, ast.MeasureDecl):
                if d.label in m.measures:
                    self.error(d.pos, f"measure '{d.label}' is declared twice",
                               f"the first is at line {m.measures[d.label].pos.line}")
                else:
                    m.measures[d.label] = d
            elif isinstance(d, ast.DisplayDecl):
                self.collect_display(d)
            elif isinstance(d, ast.ColourDecl):
                self.collect_colour(d)
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
            if v.visible == "owner" and not v.per_player:
                self.error(v.pos, f"'{v.name}' is shared: only a per-player variable has an owner",
                           f"declare it 'var {v.name} per player: ...' or make it 'visible nobody'")
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
        for s in self.statements(a.body):
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
            if isinstance(item, ast.BestValue):
                self.check_best_value(item, scope)
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

    def check_best_value(self, b: ast.BestValue, scope: Scope) -> None:
        """`best NAME in S (into v)`: NAME is one of S's items for the items after it."""
        m = self.model
        el = element_of(self.expr(b.source, scope))
        if el is None:
            self.error(b.source.pos, f"'best {b.var}' chooses one item of a list or a zone, "
                                     f"not {self.types[b.source]}")
            el = ANY
        if b.var in scope.locals or b.var in m.all_names() or b.var in CONSTANTS:
            self.error(b.pos, f"'{b.var}' is already a name here", "choose another name for the chosen value")
        scope.locals[b.var] = el
        if b.into is None:
            return
        v = m.vars.get(b.into)
        if v is None or not v.per_player:
            what = "is shared" if v is not None else "is not a variable"
            self.error(b.pos, f"'into {b.into}': '{b.into}' {what}",
                       "the chosen value is kept per player: declare 'var NAME per player: ...'")
            return
        t = self.resolve_type(v.type)
        if not compatible(t, el):
            self.error(b.pos, f"'into {b.into}' keeps {el}, but '{b.into}' holds {t}")

    def counts_as_enum(self) -> Type:
        """The enum that `is` and counted_as() test: the one every `counts as` uses."""
        for info in self.model.kinds.values():
            for name in info.decl.counts_as:
                t = self.model.attr_types.get(name[0] if isinstance(name, tuple) else name)
                if t is not None:
                    return t[0].element if t[0].kind == "list" and t[0].element else t[0]
        return ANY

    def check_phase_cycles(self) -> None:
        """Refuse a phase that calls itself, or phases calling phases deeper than
        `LIMITS.phase_depth`: both would recurse without end, or past Python's recursion
        limit, where each call is checked and compiled inside its caller."""

        def calls(body, out):
            for s in body:
                if isinstance(s, ast.CallPhase):
                    out.append(s)
                for sub in sub_blocks(s):
                    calls(sub, out)
            return out

        graph = {n: calls(p.body, []) for n, p in self.model.phases.items()}
        state: dict[str, int] = {}  # 1: on the path being walked, 2: done
        height: dict[str, int] = {}  # the most phases nested from this one down, itself included
        for start in graph:
            if state.get(start):
                continue
            # depth first with a stack of its own: a chain of thousands of phases calling the
            # next must be reported, not run out of Python's recursion depth here
            state[start] = 1
            stack = [(start, iter(graph[start]))]
            while stack:
                n, callees = stack[-1]
                call = next(callees, None)
                if call is None:
                    state[n] = 2
                    height[n] = 1 + max((height.get(c.name, 0) for c in graph[n]), default=0)
                    stack.pop()
                elif state.get(call.name) == 1:
                    self._no_inline_phases = True
                    self.error(self.model.phases[n].pos, f"phase '{n}' calls itself through '{call.name}'",
                               "use a loop instead of recursion")
                elif call.name in graph and not state.get(call.name):
                    state[call.name] = 1
                    stack.append((call.name, iter(graph[call.name])))
        if not self._no_inline_phases:
            self._check_phase_depth(graph, height)

    def _check_phase_depth(self, graph: dict[str, list], height: dict[str, int]) -> None:
        """Report the call where the longest chain of phases passes the limit."""
        limit = LIMITS.phase_depth
        name = max(height, key=height.__getitem__, default=None)
        if name is None or height[name] <= limit:
            return
        for _ in range(limit - 1):  # down the longest chain to the last phase within the limit
            name = max(graph[name], key=lambda c: height.get(c.name, 0)).name
        call = max(graph[name], key=lambda c: height.get(c.name, 0))
        self._no_inline_phases = True
        self.error(call.pos, f"phases nested too deep: '{call.name}' is called inside {limit} phases, "
                             f"each called by the one before ({describe('phase_depth')})",
                   "call the phases one after another from their caller instead of each calling the next")


def _decl_word(d: ast.Decl) -> str:
    """What a declaration declares, as its keyword says it: `def`, `action`, `zone`, ..."""
    return {"DefDecl": "def", "ActionDecl": "action", "PhaseDecl": "phase", "VarDecl": "var", "ZoneDecl": "zone",
            "KindDecl": "kind", "EnumDecl": "enum", "OptionDecl": "option", "ScoringDecl": "scoring",
            "MeasureDecl": "measure"}.get(type(d).__name__, "declaration")
