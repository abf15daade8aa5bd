"""Connect Four written by hand with bitboards, as a speed baseline for
bench/bench_small_games.py and an independent engine for tests/test_small_games.py (it shares
no code with ruleforge).

Each player's discs are one integer. Column k (0..6, the rules' column k + 1) uses bits
7k..7k+5, bottom up; bit 7k+6 stays empty, so that a line cannot run from the top of one
column into the bottom of the next. Four in a line is found with shifts: by 1 (vertical), 7
(horizontal), 6 and 8 (the diagonals). A move is a column number; the legal moves are the
columns that are not full, in increasing order, the order in which games/connect_four.rules
lists its actions, so the same random choices play the same game.
"""

from __future__ import annotations

import random

COLUMNS = 7
ROWS = 6
BOTTOM = tuple(7 * k for k in range(COLUMNS))  # the bit of each column's lowest cell
TOP = tuple(7 * k + ROWS for k in range(COLUMNS))  # one past each column's highest cell


def connected(discs: int) -> bool:
    """Four of these discs in a line, in any of the four directions."""
    for shift in (1, 7, 6, 8):
        pairs = discs & (discs >> shift)
        if pairs & (pairs >> (2 * shift)):
            return True
    return False


class Game:
    """One game, move by move: for replaying another engine's moves and comparing."""

    __slots__ = ("discs", "heights", "mover", "winner", "played")

    def __init__(self) -> None:
        self.discs = [0, 0]  # seat 0 plays Red, seat 1 Yellow
        self.heights = list(BOTTOM)  # the bit the next disc of each column takes
        self.mover = 0
        self.winner: int | None = None
        self.played = 0

    @property
    def over(self) -> bool:
        return self.winner is not None or self.played == COLUMNS * ROWS

    def legal_moves(self) -> list[int]:
        """The columns that are not full, in increasing order; none once the game is over."""
        if self.over:
            return []
        return [k for k in range(COLUMNS) if self.heights[k] < TOP[k]]

    def play(self, column: int) -> None:
        if self.over or self.heights[column] >= TOP[column]:
            raise ValueError(f"column {column} is not a legal move")
        self.discs[self.mover] |= 1 << self.heights[column]
        self.heights[column] += 1
        self.played += 1
        if connected(self.discs[self.mover]):
            self.winner = self.mover
        else:
            self.mover = 1 - self.mover

    def cell(self, row: int, column: int) -> int | None:
        """The seat whose disc is at the rules' (row, column), 1-based, row 1 on top; None if empty."""
        bit = 1 << (7 * (column - 1) + ROWS - row)
        return 0 if self.discs[0] & bit else 1 if self.discs[1] & bit else None


def play_random_game(rng: random.Random) -> int | None:
    """One complete game of uniformly random moves: the winner's seat (0 or 1), None for a draw.

    The same choices as Game with `rng.randrange(len(legal_moves()))` at every move (the open
    columns are kept in increasing order), written flat for speed.
    """
    discs = [0, 0]
    heights = list(BOTTOM)
    open_columns = list(range(COLUMNS))
    randrange = rng.randrange
    seat = 0
    for _ in range(COLUMNS * ROWS):
        column = open_columns[randrange(len(open_columns))]
        height = heights[column]
        mine = discs[seat] | (1 << height)
        discs[seat] = mine
        heights[column] = height + 1
        if height + 1 == TOP[column]:
            open_columns.remove(column)
        for shift in (1, 7, 6, 8):
            pairs = mine & (mine >> shift)
            if pairs & (pairs >> (2 * shift)):
                return seat
        seat = 1 - seat
    return None
