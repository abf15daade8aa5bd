"""Running a compiled game: whose turn, legal actions, apply, clone, views, scores, save."""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any, NamedTuple

from . import chance, inspection, rule_errors, runtime, simultaneous
from .ast import Pos
from .compiler import Program
from .compiler.pytree import compile_expression
from .diagnostics import GameError
from .inspection import ComponentInfo, Decision
from .limits import LIMITS
from .rule_errors import where as _where
from .runtime import Action, State

STATE_FORMAT = "ruleforge-state/2"
STATE_FORMATS = ("ruleforge-state/1", STATE_FORMAT)
"""The saved states `Rules.load_game` reads. Version 2 names the generator (`generator`, its state
`rng` four numbers for xoshiro256**); version 1, which has no `generator`, plays on with the legacy
one (its `rng` one number)."""


class ActionParts(NamedTuple):
    """An action as people read it in pieces: the action's name and each parameter's value
    (`("x", "grid(P1)[3,4]")`), so that a chooser can offer one piece at a time."""

    name: str
    params: tuple[tuple[str, str], ...]


def player_name(p: int | None) -> str:
    return "nobody" if p is None else f"P{p + 1}"


class Game:
    """One game in progress. Create it with `Rules.new_game`; everything else is here.

    Its chance comes from the generator it was started with (`generator`, one of
    `chance.GENERATORS`: xoshiro256** unless a file made with the legacy one is replayed), whose
    state is `state.rng`; the state alone tells which it is (`chance.generator_of`: four words in a
    tuple, or the legacy int), so a clone, a saved game and a determinization keep it."""

    __slots__ = ("program", "state", "seed", "_legal", "_labels", "_placed", "_log_text")

    def __init__(self, program: Program, seed: int, state: State | None = None,
                 generator: str = chance.GENERATOR):
        self.program = program
        self.seed = seed
        self._labels: list[str] | None = None
        self._placed: set[int] = set()  # components placed by `put`, for building positions
        self._log_text: tuple[list, list[str], Any] | None = None  # see _log_json
        if state is None:
            self.state = self._initial_state(seed, generator)
            self._legal: list[Action] = []
            self._advance()
        else:
            self.state = state
            self._legal = []
            self._refresh_legal()

    # --- setup -----------------------------------------------------------------------
    @property
    def generator(self) -> str:
        """The name of the generator the game draws its chance from (see `chance`)."""
        return chance.generator_of(self.state.rng)

    def _initial_state(self, seed: int, generator: str) -> State:
        """The components where they start, variables at their initial values: built once
        per program, then copied (a list copy is cheaper than building every list again); the
        generator seeded from `seed`."""
        prog = self.program
        if prog.initial is None:
            prog.initial = self._build_initial_state()
        st = prog.initial.clone()
        st.rng = chance.initial(seed, generator)
        return st

    def _build_initial_state(self) -> State:
        prog = self.program
        st = State()
        st.z = [[] for _ in prog.zones]
        for c, zi in enumerate(prog.comp_start):
            st.z[zi].append(c)
        st.w = list(prog.comp_start)
        st.f = [-1] * len(prog.comp_start)
        st.v = list(prog.var_init)
        st.p = [[init] * len(prog.comp_kind) for init in prog.prop_init]
        st.l = [None] * prog.n_locals
        st.b = [0] * (prog.players * len(prog.items))
        st.pc = 0
        st.stack = []
        st.rng = 0
        st.turn = 0
        st.used = {}
        st.seen = [[] for _ in range(prog.players)]
        st.log = []
        st.chooser = None
        st.options = ()
        st.over = False
        st.opt = list(prog.option_values)
        st.steps = 0
        st.sim = None
        return st

    # --- running ---------------------------------------------------------------------
    def _advance(self, pc: int | None = None, skipped: int = 0) -> None:
        """Run the rules from `pc` to the next decision that offers a choice, or to the end.

        A decision with no legal action is skipped and logged (documented behaviour); `skipped`
        decisions were skipped just before. This is the hot loop of every game: keep it flat.
        """
        st = self.state
        prog = self.program
        blocks = prog.blocks
        point_legal = prog.point_legal
        if pc is None:
            pc = st.pc
        self._labels = None
        while True:
            try:
                for _ in range(LIMITS.blocks_without_decision):
                    if pc < 0:  # -1: a decision is waiting (one of a `turn together`'s choosers)
                        break
                    pc = blocks[pc](st)
                else:
                    raise self._endless_loop(pc)
                if st.over:
                    self._legal = []
                    return
                out: list = []
                me = st.chooser
                point_legal[st.options](st, me, out)
            except GameError:
                raise
            except Exception as err:  # a rule failed at run time: name the rule
                raise self._runtime_error(err) from None
            if out:
                self._legal = out
                return
            st.log.append(("skip", me))
            skipped += 1
            if skipped >= LIMITS.skips_in_a_row:
                raise self._no_one_can_act(skipped)
            pc = st.pc if st.sim is None else simultaneous.next_chooser(self)

    # --- errors that name a rule (ruleforge/rule_errors.py) ----------------------------------
    def _runtime_error(self, err: Exception, fallback: Pos | None = None) -> GameError:
        return rule_errors.runtime_error(self.program, err, fallback)

    def _no_one_can_act(self, skipped: int) -> GameError:
        return rule_errors.no_one_can_act(self.program.decision_pos.get(self.state.pc), skipped)

    def _endless_loop(self, pc: int) -> GameError:
        return rule_errors.endless_loop(rule_errors.block_pos(self.program, self.state, pc))

    def _too_many_decisions(self) -> GameError:
        return rule_errors.too_many_decisions(self.program.decision_pos.get(self.state.pc))

    def _refresh_legal(self) -> None:
        """Recompute the legal actions at the current decision (after the state was edited)."""
        st = self.state
        self._labels = None
        if st.over:
            self._legal = []
            return
        out: list = []
        try:
            point = self.program.point_legal.get(st.options)
            if point is not None:
                point(st, st.chooser, out)
            else:  # a decision no choose statement makes (a hand-edited state)
                for aid in st.options:
                    self.program.legal_funcs[aid](st, st.chooser, out)
        except Exception as err:
            raise self._runtime_error(err, self.program.decision_pos.get(st.pc)) from None
        self._legal = out

    # --- queries ---------------------------------------------------------------------
    @property
    def players(self) -> int:
        return self.program.players

    @property
    def is_over(self) -> bool:
        return self.state.over

    @property
    def current_player(self) -> int | None:
        return None if self.state.over else self.state.chooser

    def legal_actions(self) -> list[Action]:
        """The legal actions, as `Action`s.

        The generated code lists most as the program's ready-made `Action`s; an action with
        too many combinations of arguments to keep them is listed as its plain `(aid, args)`
        pair, which the playouts of search use as it is, and becomes an `Action` here (kept,
        so that `apply` finds it by identity)."""
        legal = self._legal
        if self.program.plain_actions:
            legal = self._legal = [a if a.__class__ is Action else Action(a) for a in legal]
        return list(legal)

    def decision(self) -> Decision | None:
        """The decision at hand: who decides, at which `choose`/`turn` statement, among which
        action names, with its prompt (None once the game is over)."""
        return inspection.decision(self)

    def component_info(self, component: int) -> ComponentInfo:
        """A component's kind, label, attributes, properties and place (reads the full state)."""
        return inspection.component_info(self, component)

    def components(self, zone: str | None = None, owner: int | None = None, row: int | None = None,
                   column: int | None = None) -> list[int]:
        """Component ids: all, or those in a zone (of a seat, at a grid's cell), bottom first."""
        return inspection.components(self, zone, owner, row, column)

    def label(self, action: Action | tuple) -> str:
        aid, args = action
        try:
            return self.program.label_funcs[aid](self.state, self.state.chooser, args)
        except Exception as err:  # a label's text failed: name its rule
            raise self._runtime_error(err) from None

    def action_parts(self, action: Action | tuple) -> ActionParts:
        """The action's name and its arguments as text: components by label, seats as P1,
        cells and zones by their view key, flags as true/false."""
        aid, args = action
        prog = self.program
        kinds = prog.action_params[aid]
        return ActionParts(prog.actions[aid].name,
                           tuple((name, self.show_value(kind, value)) for (name, kind), value in zip(kinds, args)))

    def show_value(self, kind: str, value: Any) -> str:
        """A value of a given kind (comp, zone, player, flag, ...) as people read it."""
        if value is None:
            return "none"
        if kind == "comp" and isinstance(value, int):
            return self.program.shown_label(self.state, value)
        if kind == "zone" and isinstance(value, int):
            return self.program.zones[value].key
        if kind == "player" and isinstance(value, int):
            return player_name(value)
        if kind == "flag":
            return "true" if value else "false"
        if isinstance(value, (list, tuple)):
            return "[" + ", ".join(self.show_value("any", v) for v in value) + "]"
        return str(value)

    def legal_labels(self) -> list[str]:
        """Readable labels of the legal actions, made unique with '#2', '#3' where alike."""
        if self._labels is None:
            raw = [self.label(a) for a in self._legal]
            seen: dict[str, int] = {}
            out = []
            for text in raw:
                seen[text] = seen.get(text, 0) + 1
                out.append(text if seen[text] == 1 else f"{text} #{seen[text]}")
            self._labels = out
        return self._labels

    # --- acting ----------------------------------------------------------------------
    def skip_empty_decision(self) -> bool:
        """Go on past a decision that offers nothing, as play does (logged as a skip). A
        position may stand at one (its zones were rewritten after setup reached it); True if
        the game went on."""
        if self.state.over or self._legal:
            return False
        self.state.log.append(("skip", self.state.chooser))
        self._advance(None if self.state.sim is None else simultaneous.next_chooser(self), skipped=1)
        return True

    def apply(self, action: Action | tuple | str) -> None:
        """Apply a legal action (or its label). An illegal one raises GameError, changing nothing."""
        if action in self._legal:  # the usual case: an action from legal_actions(), found by identity
            self._apply_unchecked(action)
            return
        if self.state.over:
            raise GameError("the game is over: no action can be applied")
        if isinstance(action, str):
            labels = self.legal_labels()
            if action not in labels:
                raise GameError(f"'{action}' is not a legal action for {player_name(self.state.chooser)}; "
                                f"legal: {', '.join(labels)}")
            action = self._legal[labels.index(action)]
        else:
            action = as_action(action)
            if action not in self._legal:  # an action from legal_actions() is found by identity
                raise GameError(f"{action!r} is not a legal action for {player_name(self.state.chooser)}")
        self._apply_unchecked(action)

    def _apply_unchecked(self, action: tuple) -> None:
        """Apply an action known to be legal (agents and search use this directly)."""
        st = self.state
        if st.sim is not None:  # a choice of a `turn together`: kept until all are in
            simultaneous.choose(self, action)
            return
        if st.steps >= LIMITS.decisions_per_game:
            raise self._too_many_decisions()
        enter = record_action(self.program, st, action)
        aid, args = action
        me = st.chooser
        prog = self.program
        # The loop of _advance, repeated here: this is the hottest path of every
        # simulation and search, and a call less per action is measurable.
        blocks = prog.blocks
        try:
            # the action's entry function runs its first block and says where to go on
            pc = enter(st, me, *args)
            for _ in range(LIMITS.blocks_without_decision):
                if pc < 0:
                    break
                pc = blocks[pc](st)
            else:
                raise self._endless_loop(pc)
            self._labels = None
            if st.over:
                self._legal = []
                return
            out: list = []
            prog.point_legal[st.options](st, st.chooser, out)
        except GameError:
            raise
        except Exception as err:
            raise self._runtime_error(err) from None
        if out:
            self._legal = out
        else:
            st.log.append(("skip", st.chooser))
            self._advance(st.pc if st.sim is None else simultaneous.next_chooser(self), 1)

    def clone(self) -> Game:
        g = Game.__new__(Game)
        g.program = self.program
        g.seed = self.seed
        g.state = self.state.clone()
        g._legal = self._legal
        g._labels = self._labels
        g._placed = set()
        g._log_text = None
        return g

    def determinize(self, player: int, rng: random.Random) -> Game:
        """A copy in which what `player` cannot see (hidden zones' contents, chance to come) is
        drawn again at random: what a fair search plays forward (see determinize.py)."""
        from .determinize import determinize

        return determinize(self, player, rng)

    # --- scores ----------------------------------------------------------------------
    def scores(self) -> list[dict[str, Any]]:
        """Per player: total, itemised breakdown (label -> points) and ranking key."""
        try:
            return self._scores()
        except Exception as err:  # the ranking failed: name its rule
            raise self._runtime_error(err) from None

    def invariant_problems(self) -> list[str]:
        """Each `invariant` of the rules this state breaks, as its message and its rule's place
        (per player for `invariant ... for p`); empty when it breaks none."""
        out = []
        for pos, per_player, test, message in self.program.invariants:
            for p in range(self.players) if per_player else [None]:
                try:
                    if not test(self.state, p):
                        out.append(f"{message(self.state, p)} (invariant at {_where(pos)})")
                except Exception as err:
                    raise self._runtime_error(err, pos) from None
        return out

    def measures(self) -> dict[str, int]:
        """Each `measure` of the rules, worked out on this state (the statistics read them at
        the end of a game), by name in the order declared."""
        out = {}
        for name, pos, value in self.program.measures:
            try:
                out[name] = value(self.state)
            except Exception as err:
                raise self._runtime_error(err, pos) from None
        return out

    def totals(self) -> list[int]:
        """Each player's total so far (the sum of the variables `score ... into` adds to), by
        seat: what `scores()` gives as "total", without working out the ranking."""
        prog = self.program
        v = self.state.v
        bases = [prog.var_base[t] for t in prog.model.score_targets]
        return [sum(v[b + p] for b in bases) for p in range(prog.players)]

    def _scores(self) -> list[dict[str, Any]]:
        prog = self.program
        st = self.state
        n_items = len(prog.items)
        out = []
        for p in range(prog.players):
            total = sum(st.v[prog.var_base[t] + p] for t in prog.model.score_targets)
            items: dict[str, int] = {}
            for i, (_scoring, label) in enumerate(prog.items):
                items[label] = items.get(label, 0) + st.b[p * n_items + i]
            out.append({"player": p, "total": total, "breakdown": items,
                        "rank": list(prog.rank_func(st, p))})
        return out

    def ranking_keys(self) -> list[tuple[int, ...]]:
        """Each player's ranking key now, by seat: the `ranking`'s expressions (the sum of the
        score vars without one), compared as tuples, higher is better; what `winners()` and
        agents judge by."""
        try:
            return [tuple(self.program.rank_func(self.state, p)) for p in range(self.players)]
        except Exception as err:
            raise self._runtime_error(err) from None

    def winners(self) -> list[int]:
        """Every player with the best ranking key (several: a shared win)."""
        keys = self.ranking_keys()
        best = max(keys)
        return [p for p, k in enumerate(keys) if k == best]

    def preview_scoring(self, name: str) -> list[dict[str, int]]:
        """What scoring `name` would give each player now, item by item, without applying it."""
        prog = self.program
        if name not in prog.score_funcs:
            raise GameError(f"no scoring named '{name}'; there are: {', '.join(prog.score_funcs)}")
        first, count = prog.scorings[name]
        labels = [label for _, label in prog.items[first:first + count]]
        out = []
        for p in range(prog.players):
            try:
                items, total = prog.score_funcs[name](self.state, p)
            except Exception as err:
                raise self._runtime_error(err) from None
            row = dict(zip(labels, items))
            row["total"] = total
            out.append(row)
        return out

    def scoring_choices(self, name: str) -> list[dict[str, Any]]:
        """What scoring `name` would choose now with `best ... into v`, for each player, by
        variable and shown as views show it (seats, labels, cell keys): what `score name
        into ...` would keep. Nothing is changed; empty dicts when it chooses nothing."""
        from .ast import BestValue

        prog = self.program
        if name not in prog.score_funcs:
            raise GameError(f"no scoring named '{name}'; there are: {', '.join(prog.score_funcs)}")
        intos = [item.into for item in prog.model.scorings[name].items
                 if isinstance(item, BestValue) and item.into is not None]
        if not intos:
            return [{} for _ in range(prog.players)]
        trial = self.clone()
        out = []
        for p in range(prog.players):
            try:
                prog.score_funcs[name](trial.state, p, True)
            except Exception as err:
                raise self._runtime_error(err) from None
            slots = {v: prog.var_base[v] + p for v in intos}
            out.append({v: trial._shown(trial.state.v[i], prog.var_shown[i][1]) for v, i in slots.items()})
        return out

    # --- views -------------------------------------------------------------------------
    def zone_visible_to(self, zi: int, player: int | None) -> bool:
        """The zone's visibility, widened by any `visible ... (in row r) (if cond)` that holds."""
        info = self.program.zones[zi]
        if _grants(info.visibility, info.owner, player):
            return True
        conds = self.program.vis_funcs
        try:
            return any(_grants(vis, info.owner, player) and (cond is None or conds[cond](self.state))
                       for vis, cond in info.rules)
        except Exception as err:  # a `visible ... if` condition failed
            raise self._runtime_error(err) from None

    def view(self, player: int | None, properties: bool = False) -> dict[str, Any]:
        """What `player` may see (None: a spectator). Hidden zones show only their size.

        With `properties`, the changeable properties set away from their initial value are
        listed too, for a screen that draws each component with its state."""
        prog = self.program
        st = self.state
        labels = prog.comp_label
        if prog.live_labels:  # some labels read properties: each as it reads now
            labels = [prog.shown_label(st, c) for c in range(len(labels))]
        zones: dict[str, Any] = {}
        for zi, info in enumerate(prog.zones):
            key = info.key
            if self.zone_visible_to(zi, player):
                zones[key] = [labels[c] for c in st.z[zi]]
            else:
                zones[key] = {"hidden": len(st.z[zi])}
        variables: dict[str, Any] = {}
        for i, (name, owner) in enumerate(prog.var_names):
            visible, kind = prog.var_shown[i]
            if visible == "nobody" or visible == "owner" and owner != player:
                continue
            key = name if owner is None else f"{name}({player_name(owner)})"
            variables[key] = self._shown(st.v[i], kind)
        seen = []
        if player is not None:
            for zi, comps in st.seen[player]:
                what = "a component" if zi < 0 else self._zone_key(zi)
                seen.append({"zone": what, "contents": [labels[c] for c in comps]})
        view = {
            "game": prog.model.title, "viewer": player_name(player) if player is not None else "spectator",
            "to_act": player_name(self.current_player) if not st.over else None,
            "over": st.over, "zones": zones, "vars": variables, "seen": seen,
        }
        if st.sim is not None:
            view["together"] = simultaneous.shown(self, player)
        if player is not None and player == self.current_player:
            view["legal"] = self.legal_labels()
            prompt = prog.decision_prompt.get(st.pc)
            if prompt is not None:  # a text of the rules naming the decision, for the one who decides
                view["prompt"] = prompt
        if properties:
            view["properties"] = self._set_properties(zones)
        return view

    def _shown(self, value: Any, kind: str) -> Any:
        """A variable's value as views show it: seats as P1, components by label, zones and
        cells by key, inside lists too (`kind` is what the innermost values are)."""
        if isinstance(value, (list, tuple)):
            return [self._shown(x, kind) for x in value]
        if isinstance(value, bool) or not isinstance(value, int):
            return _plain(value)
        return self.show_value(kind, value) if kind in ("player", "comp", "zone") else value

    def _set_properties(self, zones: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
        """Per visible zone with any, the set properties of each of its components, in the
        zone's order (an empty dict for a component with none)."""
        prog = self.program
        st = self.state
        kinds = prog.model.kinds
        types = prog.model.attr_types
        out: dict[str, list[dict[str, Any]]] = {}
        for zi, info in enumerate(prog.zones):
            if not isinstance(zones[info.key], list) or not st.z[zi]:
                continue
            rows = []
            for c in st.z[zi]:
                own = kinds[prog.comp_kind[c]].props if prog.comp_kind[c] in kinds else {}
                shown = {}
                for k, name in enumerate(prog.props):
                    value = st.p[k][c]
                    if name in own and value != prog.prop_init[k]:
                        kind = types[name][0].kind if name in types else "any"
                        shown[name] = value if kind in ("int", "flag") else self.show_value(kind, value)
                rows.append(shown)
            if any(rows):
                out[info.key] = rows
        return out

    def _zone_key(self, zi: int) -> str:
        return self.program.zones[zi].key

    # --- building positions by hand --------------------------------------------------------
    def zone_index(self, name: str, owner: int | None = None, row: int | None = None,
                   column: int | None = None) -> int:
        """The index of zone `name` (of seat `owner` for a per-player zone; a grid's cell
        by 1-based `row` and `column`)."""
        prog = self.program
        if name not in prog.zone_base:
            raise GameError(f"no zone named '{name}'; zones: {', '.join(prog.zone_base)}")
        first = prog.zones[prog.zone_base[name]]
        per_player = first.owner is not None
        if per_player != (owner is not None):
            raise GameError(f"zone '{name}' is {'per player: give an owner' if per_player else 'shared: no owner'}")
        if owner is not None and not 0 <= owner < self.players:
            raise GameError(f"no seat {owner} in a {self.players}-player game")
        is_grid = first.row is not None
        if is_grid != (row is not None and column is not None):
            raise GameError(f"zone '{name}' is {'a grid: give a row and a column' if is_grid else 'not a grid'}")
        for zi in range(prog.zone_base[name], len(prog.zones)):
            info = prog.zones[zi]
            if info.name != name:
                break
            if info.owner == owner and info.row == row and info.column == column:
                return zi
        raise GameError(f"grid '{name}' has no cell at row {row}, column {column}")

    def find(self, label: str) -> list[int]:
        """Ids of the components with this label, in id order."""
        return [c for c, text in enumerate(self.program.comp_label) if text == label]

    def component(self, label: str, index: int = 0) -> int:
        found = self.find(label)
        if len(found) <= index:
            raise GameError(f"no component labelled '{label}'" + (f" (#{index + 1})" if index else ""))
        return found[index]

    def put(self, component: int | str, zone: str, owner: int | None = None, bottom: bool = False,
            row: int | None = None, column: int | None = None) -> int:
        """Move a component (id or label; a label takes the first such component not already
        in the target zone) to a zone or a grid's cell, on top unless `bottom`. Returns its id."""
        zi = self.zone_index(zone, owner, row, column)
        if isinstance(component, str):
            # never take back a component placed by an earlier put: positions are built piece by piece
            candidates = [c for c in self.find(component) if self.state.w[c] != zi and c not in self._placed]
            if not candidates:
                raise GameError(f"no component labelled '{component}' left to place in {zone}")
            component = candidates[0]
        self._placed.add(component)
        runtime.move(self.state, component, zi, bottom)
        self._refresh_legal()
        return component

    def set_var(self, name: str, value: Any, owner: int | None = None) -> None:
        prog = self.program
        if name not in prog.var_base:
            raise GameError(f"no variable named '{name}'")
        self.state.v[prog.var_base[name] + (owner or 0)] = value
        self._refresh_legal()

    def set_prop(self, component: int, name: str, value: Any) -> None:
        if name not in self.program.props:
            raise GameError(f"no changeable property named '{name}'")
        self.state.p[self.program.props.index(name)][component] = value
        self._refresh_legal()

    def evaluate(self, text: str, **bindings: Any) -> Any:
        """Evaluate an expression of the rules language against this state.

        `bindings` name extra values (seats, component ids, numbers) the expression may use.
        """
        return self._evaluate(text, bindings)[0]

    def evaluate_shown(self, text: str, **bindings: Any) -> Any:
        """`evaluate`, with the value as views show it (seats as P1, components by label,
        zones and cells by key, inside lists too): what a scoring example compares."""
        value, t = self._evaluate(text, bindings)
        while t.kind == "list" and t.element is not None:
            t = t.element
        return self._shown(value, t.kind)

    def _evaluate(self, text: str, bindings: dict[str, Any]) -> tuple[Any, Any]:
        from . import ast as syntax
        from .checker import Scope
        from .compiler import Env
        from .diagnostics import RulesError
        from .model import ANY
        from .parser import parse_expression

        compiler = self.program.compiler
        checker = compiler.ck
        errors: list = []
        node = parse_expression(text, "<expression>", 0, 0, errors)
        mark = len(checker.errors)
        t = checker.expr(node, Scope(locals={k: ANY for k in bindings}, pure=True))
        errors.extend(checker.errors[mark:])
        del checker.errors[mark:]
        if errors:
            raise RulesError(errors, {"<expression>": text})
        assert isinstance(node, syntax.Expr)
        code = compile_expression(compiler.cx(node, Env({k: f"b_{k}" for k in bindings})))
        ns = dict(self.program.namespace)
        ns.update({f"b_{k}": v for k, v in bindings.items()})
        st = self.state
        ns.update(st=st, Z=st.z, V=st.v, P=st.p, L=st.l)
        try:
            return eval(code, ns), t  # noqa: S307 - a tree compiled from a checked expression
        except Exception as err:
            raise GameError(f"cannot evaluate {text!r}: {type(err).__name__}: {err}") from None

    # --- the log -------------------------------------------------------------------------
    def log_lines(self, start: int = 0, viewer: int | None = None) -> list[str]:
        """The event log as readable lines; for a `viewer`, secret actions of the others
        show only their public label."""
        prog = self.program
        out = []
        for entry in self.state.log[start:]:
            kind = entry[0]
            if kind == "act":
                me, aid, args = entry[1:4]
                secret = viewer is not None and viewer != me and prog.public_label_funcs[aid] is not None
                if len(entry) > 4:  # rendered when it was played
                    text = entry[5] if secret else entry[4]
                else:
                    text = self._log_label(aid, me, args, secret)
                out.append(f"{player_name(me)}: {text}")
            elif kind == "say":
                out.append(render_template(prog, entry[1], entry[2]))
            elif kind == "score":
                name = list(prog.scorings)[entry[1]]
                pts = ", ".join(f"{player_name(p)} {t:+d}" for p, t in enumerate(entry[2]))
                out.append(f"scoring {name}: {pts}")
            elif kind == "skip":
                out.append(f"{player_name(entry[1])} has no legal action and is skipped")
            elif kind == "chose":
                out.append(f"{player_name(entry[1])} has chosen")
        return out

    def _log_label(self, aid: int, me: int, args: tuple, secret: bool) -> str:
        prog = self.program
        label = prog.public_label_funcs[aid] if secret else prog.label_funcs[aid]
        try:
            return label(self.state, me, args)
        except Exception as err:
            raise self._runtime_error(err) from None

    def action_history(self) -> list[tuple[int, int, tuple]]:
        return [(e[1], e[2], e[3]) for e in self.state.log if e[0] == "act"]  # (player, action, args)

    # --- saving ----------------------------------------------------------------------------
    def digest(self) -> str:
        """A short hash of the whole state: equal states, equal digests.

        The same bytes as `json.dumps(state, sort_keys=True)` are hashed, but the log, which
        grows all game long, is serialised once per entry (`_log_json`), so that a digest after
        every decision costs time in proportion to the state, not to the game so far."""
        state = self._state_json(with_log=False)
        head = _dumps({k: v for k, v in state.items() if k < "log"})
        tail = _dumps({k: v for k, v in state.items() if k > "log"})
        data = f'{head[:-1]},"log":{self._log_json()},{tail[1:]}'
        return hashlib.sha256(data.encode()).hexdigest()[:16]

    def _log_json(self) -> str:
        """The log as JSON, its entries' texts kept from one call to the next: the log only
        grows (entries are tuples), so only new entries are serialised."""
        log = self.state.log
        cached = self._log_text
        if cached is None or cached[0] is not log or len(cached[1]) > len(log) or \
                (cached[1] and cached[2] is not log[len(cached[1]) - 1]):
            cached = self._log_text = (log, [], None)
        texts = cached[1]
        for entry in log[len(texts):]:
            texts.append(_dumps(_plain(list(entry)), sort_keys=False))
        if log:
            self._log_text = (log, texts, log[-1])
        return "[" + ",".join(texts) + "]"

    def _state_json(self, with_log: bool = True) -> dict[str, Any]:
        st = self.state
        data = {
            "z": st.z, "v": [_plain(x) for x in st.v], "p": st.p, "l": [_plain(x) for x in st.l], "b": st.b,
            "pc": st.pc, "stack": [_plain(list(f)) for f in st.stack], "rng": st.rng, "turn": st.turn,
            "used": [[k[0], k[1], v] for k, v in sorted(st.used.items())],
            "seen": st.seen, "chooser": st.chooser,
            "options": list(st.options), "over": st.over, "opt": st.opt, "steps": st.steps,
        }
        if st.sim is not None:  # a `turn together` under way (absent otherwise: digests stay as they were)
            data["sim"] = st.sim
        if with_log:
            data["log"] = [_plain(list(e)) for e in st.log]
        return data

    def to_json(self) -> dict[str, Any]:
        """The game as a JSON-able document of its own: playing on leaves it as it was saved
        (`digest` serialises the live lists directly, with no copy)."""
        return {
            "format": STATE_FORMAT, "game": self.program.model.title, "players": self.players,
            "seed": self.seed, "generator": self.generator,
            "options": dict(zip(self.program.option_names, self.program.option_values)),
            "state": {key: _plain(value) for key, value in self._state_json().items()},
        }


def record_action(prog: Program, st: State, action: tuple):
    """Log an action about to be applied, count the decision and the action's uses against
    its limits; its entry function, which applies it."""
    aid, args = action
    me = st.chooser
    logged_label, enter, limits = prog.apply_records[aid]
    if logged_label:  # a label that reads the state is rendered now, for the log
        public = prog.public_label_funcs[aid]
        st.log.append(("act", me, aid, args, prog.label_funcs[aid](st, me, args),
                       public(st, me, args) if public is not None else None))
    else:
        st.log.append(("act", me, aid, args))
    st.steps += 1
    if limits:
        for _times, scope in limits:
            key = (aid, st.turn if scope == "turn" else -1 - me)
            st.used[key] = st.used.get(key, 0) + 1
    return enter


def as_action(action: Any) -> tuple:
    """An action given as (aid, args) in any sequences (a list from JSON, say) as a tuple."""
    try:
        aid, args = action
        return (aid, tuple(args))
    except (TypeError, ValueError):
        raise GameError(f"{action!r} is not an action: give a label or an (action, arguments) pair") from None


def _grants(visibility: str, owner: int | None, player: int | None) -> bool:
    if visibility == "everyone":
        return True
    return visibility == "owner" and player is not None and owner == player


def render_template(prog: Program, tid: int, values: tuple) -> str:
    parts = prog.log_templates[tid]
    it = iter(values)
    out = []
    for part in parts:
        if isinstance(part, str):
            out.append(part)
        else:
            value = next(it, None)
            kind = part[0]
            if kind == "player" and isinstance(value, int):
                out.append(player_name(value))
            elif kind == "comp" and isinstance(value, int):
                out.append(prog.comp_label[value])
            elif kind == "zone" and isinstance(value, int):
                out.append(prog.zones[value].key)
            elif kind == "flag" and value is not None:
                out.append("yes" if value else "no")  # as labels and the docs write a flag
            else:
                out.append(runtime.show(value))  # none, not Python's None
    return "".join(out)


def _dumps(data: Any, sort_keys: bool = True) -> str:
    """Compact sorted JSON for the digest. A number past Python's decimal conversion limit
    (`sys.get_int_max_str_digits()`, 4,300 digits), which the rules may compute, goes in as
    `{"hex": "0x..."}`: the digest of every state can be taken (a log keeps its steps), and
    is the same as before for every state that JSON can hold."""
    try:
        return json.dumps(data, sort_keys=sort_keys, separators=(",", ":"))
    except ValueError:
        return json.dumps(_hexed(data), sort_keys=sort_keys, separators=(",", ":"))


def _hexed(x: Any) -> Any:
    if isinstance(x, int) and not isinstance(x, bool):
        try:
            str(x)
        except ValueError:
            return {"hex": hex(x)}
        return x
    if isinstance(x, dict):
        return {k: _hexed(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_hexed(v) for v in x]
    return x


def _plain(x: Any) -> Any:
    if isinstance(x, (list, tuple)):
        return [_plain(i) for i in x]
    if isinstance(x, range):
        return list(x)
    return x
