"""How much of a view a picture draws: a fixed amount of work, whatever the zones hold.

A view is as large as a rules file makes it (a pile of 10,000 cards, grids of 10,000 cells,
200,000 zones), and `ruleforge view` draws every step of a game from several seats: drawn whole,
a game with one pile of 10,000 cards took minutes and hundreds of megabytes. So a picture draws
at most:

- the top `PILE_SHOWN` components of a pile; the ones under them are counted, "+9,900 more";
- the `UNDER_SHOWN` highest components under a cell's top one; the others counted, "+12";
- `GRID_SHOWN` rows and columns of a grid, from its first used row and column;
- `VIEW_DRAWN` zones, cells and components in all, in the order they are drawn (the table, the
  viewer's own, the other seats'): when the rest would go past it, a pile is drawn with fewer
  components and a grid with fewer rows, and the zones after that are only counted, per group.

Every game of `games/` stays far inside these (its largest pile holds 95 components, its largest
view about 400 zones, cells and components), so its pictures are drawn whole.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .layout import Board, Group, Pile, arrange

PILE_SHOWN = 100    # components drawn of one pile: its top ones
UNDER_SHOWN = 8     # components drawn small under the top one of a cell (fit in the cell's top three rows of three)
GRID_SHOWN = 50     # rows, and columns, drawn of one grid
VIEW_DRAWN = 2_000  # zones, cells and components drawn of one view, all groups together


def held(item: Pile | Board) -> int:
    """How many components a pile or a grid holds, seen or hidden."""
    if isinstance(item, Board):
        return sum(held(cell) for cell in item.cells.values())
    return item.hidden if item.content is None else len(item.content)


def _cell_cost(cell: Pile | None) -> int:
    """A cell's drawing: the cell, its top component, the small ones under it (a hidden one: a back)."""
    if cell is None:
        return 1
    if cell.content is None:
        return 2 if cell.hidden else 1
    return 1 + min(len(cell.content), 1 + UNDER_SHOWN)


def _fit_board(board: Board, left: int) -> int:
    """Cut the grid to `GRID_SHOWN` rows and columns and to the rows `left` pays for; its cost
    (0 when not even one row fits: the grid is left out)."""
    board.row_span = board.row_span[:GRID_SHOWN]
    board.column_span = board.column_span[:GRID_SHOWN]
    for cell in board.cells.values():
        if cell.content:
            cell.start = max(0, len(cell.content) - 1 - UNDER_SHOWN)
    cost, rows = 1, 0  # its name
    for r in board.row_span:
        row = sum(_cell_cost(board.cells.get((r, k))) for k in board.column_span)
        if cost + row > left:
            break
        cost, rows = cost + row, rows + 1
    board.row_span = board.row_span[:rows]
    return cost if rows else 0


def _fit_pile(pile: Pile, left: int) -> int:
    """Draw the top components of the pile that `left` pays for, at most `PILE_SHOWN`; its cost."""
    if pile.content is None:
        return 2 if left >= 2 else 0  # its name and its back
    drawn = max(0, min(len(pile.content), PILE_SHOWN, left - 1))
    pile.start = len(pile.content) - drawn
    return 1 + drawn


def fit(groups: list[Group]) -> None:
    """Cut every pile and grid of `groups` to what a picture draws, in drawing order; the items
    no budget is left for move to their group's `undrawn` count."""
    left = VIEW_DRAWN
    for group in groups:
        kept: list[Pile | Board] = []
        for item in group.items:
            cost = 0
            if left > 0:
                cost = _fit_board(item, left) if isinstance(item, Board) else _fit_pile(item, left)
            if cost == 0:
                group.undrawn += 1
                group.undrawn_components += held(item)
                continue
            left -= cost
            kept.append(item)
        group.items = kept


def arranged(view: dict[str, Any], targets: Iterable[str] = ()) -> list[Group]:
    """The view's groups as `layout.arrange` sorts them, cut to what a picture draws."""
    groups = arrange(view, targets)
    fit(groups)
    return groups


def undrawn_text(group: Group) -> str:
    """What the zones of a group past the budget hold, as a picture says it."""
    zones = f"{group.undrawn:,} more zone{'s' if group.undrawn != 1 else ''}"
    held = group.undrawn_components
    return f"{zones} not drawn ({held:,} component{'s' if held != 1 else ''})"
