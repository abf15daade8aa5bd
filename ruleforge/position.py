"""Positions written by hand: the contents of some zones by label, plus properties and
variables. A position becomes a game whose flow stands where setup left it, ready to be
scored; components the position asks for beyond the game's own set are added. Its setup and
the chance to come are drawn from `seed` by `generator` (none: the legacy generator, which the
positions written before the generator was named were made with; see ruleforge/chance.py)."""

from __future__ import annotations

import difflib
from collections import Counter
from typing import TYPE_CHECKING, Any

import attrs

from . import chance
from .diagnostics import GameError
from .engine import Game
from .limits import LIMITS, describe
from .state_io import BIGGEST, value_problem

if TYPE_CHECKING:
    from .rules import Rules

POSITION_FORMAT = "ruleforge-position/1"
ENTRY_FORMS = 'a label or {"label": "...", "property": value}'
PART_FORM = 'a grid given in part is {"at": [row, column], "rows": [[...], ...]}'


@attrs.frozen
class Entry:
    """One component as the position writes it: its label, the properties to give it, and
    where it is written (so that every mistake names its place)."""

    label: str
    props: dict[str, Any]
    where: str


def _fail(where: str, what: str) -> GameError:
    return GameError(f"position: {where}: {what}")


def _zone_keys(game: Game) -> dict[str, list[int]]:
    """Zone key as written in views ('hand(P1)', 'board(P2)') -> its zone indexes."""
    out: dict[str, list[int]] = {}
    for zi, info in enumerate(game.program.zones):
        key = info.name if info.owner is None else f"{info.name}(P{info.owner + 1})"
        out.setdefault(key, []).append(zi)
    return out


def _entry(where: str, item: Any) -> Entry:
    """A label, or an object of a label and properties: the same component either way."""
    if isinstance(item, str):
        return Entry(item, {}, where)
    if isinstance(item, dict):
        label = item.get("label")
        if not isinstance(label, str):
            raise _fail(where, f'a component written as an object needs its "label": {ENTRY_FORMS}')
        return Entry(label, {k: v for k, v in item.items() if k != "label"}, where)
    raise _fail(where, f"a component is {ENTRY_FORMS}, not {item!r:.40}")


def _cell_entries(where: str, cell: Any) -> list[Entry]:
    """A cell's stack, bottom first; an entry of a stack is named by its place in it (#1 the bottom)."""
    if cell is None:
        return []
    if isinstance(cell, (str, dict)):
        return [_entry(where, cell)]
    if isinstance(cell, list):
        return [_entry(f"{where} #{k}", item) for k, item in enumerate(cell, 1)]
    raise _fail(where, f"a cell is {ENTRY_FORMS}, a list of them (a stack, bottom first) or null")


def _full_grid(key: str, value: Any, rows: int, cols: int) -> list[list[Any]]:
    """A grid's cells, row by row: written whole, or in part from a top-left cell."""
    if isinstance(value, dict):
        return _grid_in_part(key, value, rows, cols)
    shape = f"a grid is {rows} rows of {cols} cells (or {{\"at\": [row, column], \"rows\": ...}} for a part)"
    if not isinstance(value, list):
        raise _fail(key, shape)
    if len(value) != rows:
        raise _fail(key, f"{shape}; this one has {len(value)} row{'' if len(value) == 1 else 's'}")
    for r, row in enumerate(value, 1):
        if not isinstance(row, list) or len(row) != cols:
            has = f"{len(row)} cells" if isinstance(row, list) else "no list of cells"
            raise _fail(key, f"{shape}; its row {r} has {has}")
    return value


def _grid_in_part(key: str, value: dict, rows: int, cols: int) -> list[list[Any]]:
    """The given rows placed with their top-left cell at `at`; every other cell empty."""
    at, given = value.get("at"), value.get("rows")
    if set(value) != {"at", "rows"}:
        raise _fail(key, PART_FORM)
    if not (isinstance(at, list) and len(at) == 2 and all(isinstance(x, int) and not isinstance(x, bool)
                                                           for x in at)):
        raise _fail(key, f"'at' is [row, column], 1-based, not {at!r:.40}")
    r0, c0 = at
    if not (1 <= r0 <= rows and 1 <= c0 <= cols):
        raise _fail(key, f"[{r0},{c0}] is off the grid; it has {rows} rows of {cols} cells, from [1,1]")
    if not isinstance(given, list) or not all(isinstance(row, list) for row in given):
        raise _fail(key, f"'rows' is a list of rows, each a list of cells ({PART_FORM})")
    if r0 + len(given) - 1 > rows:
        raise _fail(key, f"rows from [{r0},{c0}] reach row {r0 + len(given) - 1}; the grid has {rows} rows")
    out: list[list[Any]] = [[None] * cols for _ in range(rows)]
    for i, row in enumerate(given):
        if c0 + len(row) - 1 > cols:
            raise _fail(key, f"row {r0 + i} from [{r0},{c0}] reaches column {c0 + len(row) - 1}; "
                             f"the grid has {cols} columns")
        out[r0 + i - 1][c0 - 1:c0 - 1 + len(row)] = row
    return out


def _layout(game: Game, key: str, value: Any, zones: list[int]) -> list[tuple[int, list[Entry]]]:
    """(zone index, entries bottom first) for every zone instance the entry fills."""
    infos = [game.program.zones[zi] for zi in zones]
    if infos[0].row is None:
        if not isinstance(value, list):
            raise _fail(key, f"a zone's contents are a list, bottom first, of which each is {ENTRY_FORMS}")
        return [(zones[0], [_entry(f"{key} #{k}", item) for k, item in enumerate(value, 1)])]
    rows = max(i.row for i in infos)
    cols = max(i.column for i in infos)
    grid = _full_grid(key, value, rows, cols)
    return [(zi, _cell_entries(info.key, grid[info.row - 1][info.column - 1])) for zi, info in zip(zones, infos)]


def _unknown_label(entry: Entry, labels: list[str]) -> GameError:
    close = difflib.get_close_matches(entry.label, labels, n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    return _fail(f"{entry.where} '{entry.label}'", f"no component has this label{hint}")


def build_position(rules: Rules, data: Any) -> Game:
    if not isinstance(data, dict) or data.get("format") != POSITION_FORMAT:
        raise GameError(f"not a position (expected \"format\": \"{POSITION_FORMAT}\")")
    unknown = sorted(set(data) - {"format", "players", "seed", "generator", "zones", "props", "vars"})
    if unknown:
        raise _fail(unknown[0], "unknown key (a position has format, players, seed, generator, zones, props and vars)")
    players = data.get("players")
    if not isinstance(players, int) or isinstance(players, bool) or abs(players) > BIGGEST:
        raise _fail("players", "must be a number")  # out of the game's range: new_game says so
    zones_data = data.get("zones", {})
    if not isinstance(zones_data, dict):
        raise _fail("zones", "must be an object of zone key -> contents")
    seed = data.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool) or abs(seed) > BIGGEST:
        raise _fail("seed", "must be a whole number of at most 64 bits")
    generator = data.get("generator", chance.LEGACY)
    if generator not in chance.GENERATORS:
        known = " or ".join(f'"{name}"' for name in chance.GENERATORS)
        raise _fail("generator", f"must be {known} (none: the legacy \"{chance.LEGACY}\")")
    probe = rules.new_game(players, seed=seed, generator=generator)
    keys = _zone_keys(probe)
    fills: list[tuple[int, list[Entry]]] = []
    for key, value in zones_data.items():
        if key not in keys:
            raise _fail(key, f"no such zone; zones are {', '.join(sorted(keys))}")
        fills.extend(_layout(probe, key, value, keys[key]))
    # Components beyond the game's own set become extras of a program compiled for them.
    have = Counter(probe.program.comp_label)
    for entry in (e for _, entries in fills for e in entries):
        if entry.label not in have:
            raise _unknown_label(entry, sorted(have))
    wanted = Counter(e.label for _, entries in fills for e in entries)
    extra = sum((wanted - have).values())
    own = len(probe.program.comp_label)
    if own + extra > LIMITS.components:  # refused before a program is compiled for them
        raise GameError(f"position: it asks for {extra:,} components beyond the game's own {own:,}: more than "
                        f"a game may have ({describe('components')})")
    extras = tuple(sorted((wanted - have).elements()))
    game = Game(rules.program(players, None, extras), seed, generator=generator)
    for c, entry in _place(game, fills):
        _set_component_props(game, c, entry.props, entry.where)
    game.state.f = [-1] * len(game.state.w)  # a position written by hand knows no moves
    _set_props(game, data.get("props", {}))
    _set_vars(game, data.get("vars", {}))
    problems = game.invariant_problems()
    if problems:  # a layout the game can never reach: say which rule it breaks
        raise GameError(f"position: {problems[0]}")
    game._refresh_legal()
    return game


def _place(game: Game, fills: list[tuple[int, list[Entry]]]) -> list[tuple[int, Entry]]:
    """Empty the described zones, then fill them: (component, its entry) for every one placed.
    Each zone's list is rebuilt once, not edited a component at a time, so that a position of
    thousands of components is placed in time in proportion to them."""
    st = game.state
    prog = game.program
    filled = {zi for zi, _ in fills}
    # Empty the zones the position describes: their components go back where they started.
    spare: int | None = None
    for zi in filled:
        for c in st.z[zi]:
            home = prog.comp_start[c]
            if home in filled:
                spare = _spare_zone(prog, filled) if spare is None else spare
                home = spare
            st.z[home].append(c)
            st.w[c], st.f[c] = home, zi
        st.z[zi] = []
    # Each entry takes the lowest free component of its label (none is in a described zone now).
    by_label: dict[str, list[int]] = {}
    for c, label in enumerate(prog.comp_label):
        by_label.setdefault(label, []).append(c)
    free = {label: iter(comps) for label, comps in by_label.items()}
    chosen = [(zi, next(free[entry.label]), entry) for zi, entries in fills for entry in entries]
    taken = {c for _, c, _ in chosen}
    for src in {st.w[c] for c in taken}:
        st.z[src] = [c for c in st.z[src] if c not in taken]
    for zi, c, _ in chosen:
        st.z[zi].append(c)
        st.w[c], st.f[c] = zi, st.w[c]
    return [(c, entry) for _, c, entry in chosen]


def _spare_zone(prog, filled: set[int]) -> int:
    """Where components of described zones go when their own start is described too: a zone
    nobody sees, else any plain zone, a grid's cell only as a last resort (it would show)."""
    free = [zi for zi in range(len(prog.zones)) if zi not in filled]
    if not free:
        raise GameError("position: every zone is described; nowhere is left for the other components")
    return min(free, key=lambda zi: (prog.zones[zi].row is not None, prog.zones[zi].visibility != "nobody", zi))


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


def _set_component_props(game: Game, c: int, values: dict[str, Any], where: str) -> None:
    """Give component `c` the properties written for it: each one its kind declares `var`,
    with a value of the declared type."""
    model = game.program.compiler.m
    kind = model.kinds[game.program.comp_kind[c]]
    for name, value in values.items():
        if name not in kind.props:
            known = ", ".join(kind.props) or f"none (a {kind.decl.name} has no changeable property)"
            fixed = " (it is fixed by the rules)" if name in kind.attrs else ""
            raise _fail(f"{where} '{name}'", f"no property of this name{fixed}; properties: {known}")
        value = _value(game, value)
        decl = kind.props[name]
        kind_of_value = model.attr_types[name][0]
        if value is None and (decl.default is not None or kind_of_value.kind == "flag"):
            # the rules start it with a value: null would reach them as no number at all
            raise _fail(f"{where} {name}", f"cannot be null: every {kind.decl.name} has a value for it")
        _check_value(game, f"{where} {name}", kind_of_value, value)
        game.set_prop(c, name, value)


def _set_props(game: Game, props: Any) -> None:
    if not isinstance(props, dict):
        raise _fail("props", "must be an object of cell key -> {property: value}")
    for key, values in props.items():
        c = _cell_component(game, key)
        if not isinstance(values, dict):
            raise _fail(key, "properties are an object of name -> value")
        _set_component_props(game, c, values, key)


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
