"""Sizes a rules file declares — grids, capacities, components, zones, players — checked
against the limits before anything is allocated.

A size written as a number is checked by the checker, so that `ruleforge check` lists it
with every other error; a size worked out from the player count or an option is checked
by the compiler, once per player count, before it builds that game's zones and
components. Both ask the functions here, so both say the same thing. Each returns the
problem as a Diagnostic, or None when the size is fine.
"""

from __future__ import annotations

from . import ast
from .diagnostics import Diagnostic
from .limits import LIMITS, describe


def _over(pos: ast.Pos, what: str, limit: str) -> Diagnostic:
    return Diagnostic(pos, f"{what} ({describe(limit)})")


def players_problem(d: ast.PlayersDecl) -> Diagnostic | None:
    """A game for more players than ruleforge sets up (each count is compiled and checked)."""
    if d.high > LIMITS.players:
        return _over(d.pos, f"a game for up to {d.high:,} players is more than ruleforge sets up", "players")
    return None


def grid_problem(z: ast.ZoneDecl, rows: int, cols: int, note: str = "") -> Diagnostic | None:
    """A grid needs a row and a column, and no more cells than the limit."""
    for value, expr, axis in ((rows, z.size[0], "row"), (cols, z.size[1], "column")):
        if value < 1:
            return Diagnostic(expr.pos, f"grid '{z.name}' needs at least one {axis}, not {value}{note}")
    if rows * cols > LIMITS.grid_cells:
        first, last = z.size[0].pos, z.size[1].pos
        span = ast.Pos(first.file, first.line, first.column, last.end_line, last.end_column)
        return _over(span, f"grid '{z.name}' would have {rows:,} by {cols:,} = {rows * cols:,} cells{note}, "
                     "too many for one grid", "grid_cells")
    return None


def capacity_problem(z: ast.ZoneDecl, capacity: int, note: str = "") -> Diagnostic | None:
    """`size N` on a pile, hand or row: N components at most, so not fewer than none."""
    if capacity < 0:
        return Diagnostic(z.size[0].pos, f"zone '{z.name}' cannot hold fewer than no components "
                          f"(size {capacity}{note})")
    return None


def zones_problem(z: ast.ZoneDecl, total: int, players: int) -> Diagnostic | None:
    """All the zones of a game, counted up to and with `z` (every grid cell is one)."""
    if total > LIMITS.zones:
        where = f" with {players} players" if z.per_player else ""
        return _over(z.pos, f"zone '{z.name}' brings the game's zones to {total:,}{where} "
                     "(every grid cell is one), too many for one game", "zones")
    return None


def components_problem(e: ast.ComponentEntry, made: int, total: int, players: int | None = None,
                       note: str = "") -> Diagnostic | None:
    """The components one entry makes (`made`), and all of the game's up to it (`total`)."""
    if total <= LIMITS.components:
        return None
    what = f"{made:,} components{note}"
    if e.each_player and players:
        what = f"{made:,} components ({made // players:,} for each of {players} players)"
    others = f", {total:,} in all" if total != made else ""
    return _over(e.pos, f"this entry makes {what}{others}, too many for one game", "components")


def constant(e: ast.Expr | None) -> int | None:
    """The value of a size written as a number (`-3` included), else None."""
    if isinstance(e, ast.IntLit):
        return e.value
    if isinstance(e, ast.Neg) and isinstance(e.operand, ast.IntLit):
        return -e.operand.value
    return None


def constant_count(e: ast.ComponentEntry) -> int | None:
    """How many components an entry written with numbers only makes (None: it depends on
    the player count, an option or a condition, or is made for each player)."""
    if e.each_player or e.cond is not None:
        return None
    count = 1 if e.copies is None else constant(e.copies)
    if count is None:
        return None
    count = max(0, count)
    for _name, value, _pos in e.args:
        if isinstance(value, ast.Range):
            low, high = constant(value.low), constant(value.high)
            if low is None or high is None:
                return None
            count *= max(0, high - low + 1)
        elif constant(value) is None and not isinstance(value, (ast.StrLit, ast.ListLit)):
            return None  # a name may stand for a range (a def): the compiler counts it
    return count
