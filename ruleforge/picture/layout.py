"""A view's zones sorted for drawing: piles and grids, grouped as the table and each player.

Works from the view dict alone, recognising grid cells and per-player zones by their keys
exactly as the terminal screen does (`ruleforge.screen`), so the HTML page and the SVG
document draw the same arrangement: the shared zones first, then the viewer's own, then the
other players' in seat order. A mostly empty grid is trimmed to what lies on it with a margin
of one cell, but a cell an action may target is always kept.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..screen import CELL_KEY, PLAYER_KEY, shown_span


@dataclass
class Pile:
    """A plain zone: its view key, its name without the seat, and what the view says of it."""

    key: str
    name: str
    content: list[Any] | None  # labels bottom first, as the view lists them; None when hidden
    hidden: int = 0  # how many lie there, when hidden
    props: list[Any] = field(default_factory=list)  # the view's properties of each, when it lists them all
    start: int = 0  # the lowest component drawn: those under it are only counted (`budget`)

    def label(self, index: int) -> str:
        """The label of component `index` (the view's lists are kept as they are, and only the
        components drawn are read: a pile of 10,000 costs nothing more than one of 100)."""
        assert self.content is not None
        return str(self.content[index])

    def props_of(self, index: int) -> dict[str, Any]:
        """The properties the view lists of component `index`."""
        found = self.props[index] if index < len(self.props) else None
        return found if isinstance(found, dict) else {}


@dataclass
class Board:
    """A grid: its key (`board(P1)`), its name, its size, its cells and the part drawn."""

    key: str
    name: str
    rows: int
    columns: int
    cells: dict[tuple[int, int], Pile]
    row_span: range = range(0)
    column_span: range = range(0)

    @property
    def trimmed(self) -> bool:
        return len(self.row_span) < self.rows or len(self.column_span) < self.columns


@dataclass
class Group:
    """The zones of one player (`player` "P2"), or of the table (`player` None)."""

    player: str | None
    items: list[Pile | Board] = field(default_factory=list)
    undrawn: int = 0  # zones not drawn, past the budget of a picture (`budget`)
    undrawn_components: int = 0  # the components they hold


def count_of(value: Any) -> int:
    """A hidden zone's size as a view gives it; anything but a whole number counts as 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def pile_for(key: str, name: str, content: Any, props: Any) -> Pile:
    if isinstance(content, list):
        return Pile(key, name, content, 0, props if isinstance(props, list) and len(props) == len(content) else [])
    hidden = content.get("hidden") if isinstance(content, dict) else 0
    return Pile(key, name, None, count_of(hidden))


def seat_number(player: str) -> int:
    return int(player[1:]) if player[1:].isdigit() else 0


def arrange(view: dict[str, Any], targets: Iterable[str] = ()) -> list[Group]:
    """The view's zones as groups (table, viewer, others), each pile or grid in the view's order."""
    targets = set(targets)
    props = view.get("properties") or {}
    groups: dict[str | None, Group] = {None: Group(None)}
    boards: dict[str, Board] = {}
    zones = view.get("zones") or {}
    for key, content in zones.items():
        key = str(key)
        cell = CELL_KEY.match(key)
        owner_key = cell["grid"] if cell else key
        owner = PLAYER_KEY.match(owner_key)
        player = owner["player"] if owner else None
        name = owner["name"] if owner else owner_key
        group = groups.setdefault(player, Group(player))
        if cell:
            board = boards.get(owner_key)
            if board is None:
                board = boards[owner_key] = Board(owner_key, name, 0, 0, {})
                group.items.append(board)
            row, column = int(cell["row"]), int(cell["column"])
            board.cells[row, column] = pile_for(key, name, content, props.get(key))
            board.rows, board.columns = max(board.rows, row), max(board.columns, column)
        else:
            group.items.append(pile_for(key, name, content, props.get(key)))
    for board in boards.values():
        used = [place for place, pile in board.cells.items()
                if pile.content or pile.hidden or pile.key in targets]
        trim = bool(used) and len(used) * 2 < board.rows * board.columns
        board.row_span = shown_span([r for r, _ in used], board.rows, trim)
        board.column_span = shown_span([k for _, k in used], board.columns, trim)
    viewer = view.get("viewer")
    players = sorted((p for p in groups if p is not None), key=lambda p: (p != viewer, seat_number(p)))
    out = [groups[None]] if groups[None].items else []
    return out + [groups[p] for p in players]


def targets_of(game: Any) -> set[str]:
    """The zones and cells the legal actions name (as view keys): kept when a grid is trimmed,
    so that a page can offer every cell a player may click."""
    keys: set[str] = set()
    zone_keys = set(game.view(None)["zones"]) if game.legal_actions() else set()
    for action in game.legal_actions():
        for _name, value in game.action_parts(action).params:
            if value in zone_keys:
                keys.add(value)
    return keys
