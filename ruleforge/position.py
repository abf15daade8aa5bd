"""Positions written by hand: the contents of some zones by label, plus properties and
variables. A position becomes a game whose flow stands where setup left it, ready to be
scored; components the position asks for beyond the game's own set are added."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from . import runtime
from .diagnostics import GameError
from .engine import Game
from .state_io import BIGGEST, value_problem

if TYPE_CHECKING:
    from .rules import Rules

POSITION_FORMAT = "ruleforge-position/1"


def _fail(where: str, what: str) -> GameError:
    return GameError(f"position: {where}: {what}")


def _zone_keys(game: Game) -> dict[str, list[int]]:
    """Zone key as written in views ('hand(P1)', 'territory(P2)') -> its zone indexes."""
    out: dict[str, list[int]] = {}
    for zi, info in enumerate(game.program.zones):
        key = info.name if info.owner is None else f"{info.name}(P{info.owner + 1})"
        out.setdefault(key, []).append(zi)
    return out


def _layout(game: Game, key: str, value: Any, zones: list[int]) -> list[tuple[int, list[str]]]:
    """(zone index, labels bottom first) for every zone instance the entry fills."""
    infos = [game.program.zones[zi] for zi in zones]
    if infos[0].row is None:
        if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
            raise _fail(key, "a zone's contents are a list of labels, bottom first")
        return [(zones[0], list(value))]
    rows = max(i.row for i in infos)
    cols = max(i.column for i in infos)
    if not isinstance(value, list) or len(value) != rows or not all(isinstance(r, list) and len(r) == cols
                                                                    for r in value):
        raise _fail(key, f"a grid is {rows} rows of {cols} cells")
    out = []
    for zi, info in zip(zones, infos):
        cell = value[info.row - 1][info.column - 1]
        if cell is None:
            labels: list[str] = []
        elif isinstance(cell, str):
            labels = [cell]
        elif isinstance(cell, list) and all(isinstance(x, str) for x in cell):
            labels = list(cell)
        else:
            raise _fail(f"{key} row {info.row} column {info.column}", "a cell is a label, a list of labels or null")
        out.append((zi, labels))
    return out


def build_position(rules: Rules, data: Any) -> Game:
    if not isinstance(data, dict) or data.get("format") != POSITION_FORMAT:
        raise GameError(f"not a position (expected \"format\": \"{POSITION_FORMAT}\")")
    unknown = sorted(set(data) - {"format", "players", "seed", "zones", "props", "vars"})
    if unknown:
        raise _fail(unknown[0], "unknown key (a position has format, players, seed, zones, props and vars)")
    players = data.get("players")
    if not isinstance(players, int) or isinstance(players, bool) or abs(players) > BIGGEST:
        raise _fail("players", "must be a number")  # out of the game's range: new_game says so
    zones_data = data.get("zones", {})
    if not isinstance(zones_data, dict):
        raise _fail("zones", "must be an object of zone key -> contents")
    seed = data.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool) or abs(seed) > BIGGEST:
        raise _fail("seed", "must be a whole number of at most 64 bits")
    probe = rules.new_game(players, seed=seed)
    keys = _zone_keys(probe)
    fills: list[tuple[int, list[str]]] = []
    for key, value in zones_data.items():
        if key not in keys:
            raise _fail(key, f"no such zone; zones are {', '.join(sorted(keys))}")
        fills.extend(_layout(probe, key, value, keys[key]))
    # Components beyond the game's own set become extras of a program compiled for them.
    wanted = Counter(label for _, labels in fills for label in labels)
    have = Counter(probe.program.comp_label)
    for label in wanted:
        if label not in have:
            raise _fail(label, "no component has this label")
    extras = tuple(sorted((Counter(wanted) - have).elements()))
    game = Game(rules.program(players, None, extras), seed)
    _place(game, fills)
    _set_props(game, data.get("props", {}))
    _set_vars(game, data.get("vars", {}))
    game._refresh_legal()
    return game


def _place(game: Game, fills: list[tuple[int, list[str]]]) -> None:
    st = game.state
    prog = game.program
    filled = {zi for zi, _ in fills}
    # Empty the zones the position describes: their components go back where they started.
    for zi in filled:
        for c in list(st.z[zi]):
            home = prog.comp_start[c] if prog.comp_start[c] not in filled else _spare_zone(prog, filled)
            runtime.move(st, c, home)
    used: set[int] = set()
    by_label: dict[str, list[int]] = {}
    for c, label in enumerate(prog.comp_label):
        by_label.setdefault(label, []).append(c)
    for zi, labels in fills:
        for label in labels:
            candidates = [c for c in by_label[label] if c not in used]
            # prefer components not in a described zone, then the lowest id
            candidates.sort(key=lambda c: (st.w[c] in filled, c))
            c = candidates[0]
            used.add(c)
            runtime.move(st, c, zi)


def _spare_zone(prog, filled: set[int]) -> int:
    for zi in range(len(prog.zones)):
        if zi not in filled:
            return zi
    raise GameError("position: every zone is described; nowhere is left for the other components")


def _cell_component(game: Game, key: str) -> int:
    for zi, info in enumerate(game.program.zones):
        if info.key == key:
            if not game.state.z[zi]:
                raise _fail(key, "is empty: no component to set a property on")
            return game.state.z[zi][-1]
    raise _fail(key, "no such zone or cell")


def _value(game: Game, value: Any) -> Any:
    if isinstance(value, str) and value.startswith("P") and value[1:].isdigit():
        return int(value[1:]) - 1
    return value


def _set_props(game: Game, props: Any) -> None:
    if not isinstance(props, dict):
        raise _fail("props", "must be an object of cell key -> {property: value}")
    for key, values in props.items():
        c = _cell_component(game, key)
        if not isinstance(values, dict):
            raise _fail(key, "properties are an object of name -> value")
        for name, value in values.items():
            if name not in game.program.props:
                raise _fail(key, f"no changeable property named '{name}'")
            value = _value(game, value)
            _check_value(game, f"{key} {name}", game.program.compiler.m.attr_types[name][0], value)
            game.set_prop(c, name, value)


def _set_vars(game: Game, variables: Any) -> None:
    if not isinstance(variables, dict):
        raise _fail("vars", "must be an object of variable -> value")
    model = game.program.compiler.m
    for key, value in variables.items():
        name, owner = key, None
        if key.endswith(")") and "(P" in key:
            name, seat = key[:-1].split("(P", 1)
            if not seat.isdigit() or not 1 <= int(seat) <= game.players:
                raise _fail(f"vars: {key}", f"no seat P{seat} in a {game.players}-player game")
            owner = int(seat) - 1
        decl = model.vars.get(name)
        if decl is None:
            raise _fail(f"vars: {key}", "no such variable")
        if decl.per_player != (owner is not None):
            raise _fail(f"vars: {key}", f"write {name}(P1)..{name}(P{game.players}) for a per-player variable"
                        if decl.per_player else f"'{name}' is shared: write it without a seat")
        value = _value(game, value)
        kind = game.program.compiler.ck.resolve_type(decl.type)
        if value is None and kind.kind in ("int", "flag", "text"):
            raise _fail(f"vars: {key}", f"a {kind} variable always has a value: it cannot be null")
        _check_value(game, f"vars: {key}", kind, value)
        game.set_var(name, value, owner)


def _check_value(game: Game, where: str, kind: Any, value: Any) -> None:
    """A written value must fit its declared type (an enum member, a number, a flag, a seat)."""
    if value is None:  # none: unset, as before the rules give a value
        return
    k = kind.kind
    ok = True
    if k == "enum":
        members = [member for member, _pos in game.program.compiler.m.enums[kind.name].members]
        ok = value in members
        if not ok:
            raise _fail(where, f"{value!r} is not one of {', '.join(members)}")
    elif k == "int":
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif k == "flag":
        ok = isinstance(value, bool)
    elif k == "text":
        ok = isinstance(value, str)
    elif k == "player":
        ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value < game.players
    else:  # a component, a zone, a list: as a saved state holds it
        ok = value_problem(game.program, kind, value) is None
    if ok and k == "int":
        ok = value_problem(game.program, kind, value) is None  # not too large
    if not ok:
        hint = " (write P1, P2, ...)" if k == "player" else ""
        raise _fail(where, f"{value!r} does not fit its type, {kind}{hint}")
