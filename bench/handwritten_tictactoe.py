"""Tic-Tac-Toe written by hand, as a speed baseline for bench/bench_small_games.py and an
independent engine for tests/test_small_games.py (it shares no code with ruleforge).

The board is a flat list of 9 cells, row by row (cell = 3 * (row - 1) + (column - 1) for the
rules' 1-based rows and columns); 0 is empty, 1 an X (the first player's), 2 an O. A move is
a cell number. The legal moves are the empty cells in increasing order, the order in which
games/tictactoe.rules lists its actions, so the same random choices play the same game.
"""

from __future__ import annotations

import random

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
# For each cell the lines through it: after a move only those can have been completed.
LINES_THROUGH = tuple(tuple(line for line in LINES if cell in line) for cell in range(9))


class Game:
    """One game, move by move: for replaying another engine's moves and comparing."""

    __slots__ = ("board", "mover", "winner", "marks")

    def __init__(self) -> None:
        self.board = [0] * 9
        self.mover = 0  # seat to move: 0 plays X, 1 plays O
        self.winner: int | None = None
        self.marks = 0

    @property
    def over(self) -> bool:
        return self.winner is not None or self.marks == 9

    def legal_moves(self) -> list[int]:
        """The empty cells, in increasing order; none once the game is over."""
        if self.over:
            return []
        return [cell for cell in range(9) if self.board[cell] == 0]

    def play(self, cell: int) -> None:
        if self.over or self.board[cell]:
            raise ValueError(f"cell {cell} is not a legal move")
        mark = self.mover + 1
        board = self.board
        board[cell] = mark
        self.marks += 1
        for a, b, c in LINES_THROUGH[cell]:
            if board[a] == mark and board[b] == mark and board[c] == mark:
                self.winner = self.mover
                return
        self.mover = 1 - self.mover


def play_random_game(rng: random.Random) -> int | None:
    """One complete game of uniformly random moves: the winner's seat (0 or 1), None for a draw.

    The same choices as Game with `rng.randrange(len(legal_moves()))` at every move (the empty
    cells are kept in increasing order), written flat for speed.
    """
    board = [0] * 9
    empty = list(range(9))
    randrange = rng.randrange
    mark = 1
    for left in range(9, 0, -1):
        cell = empty.pop(randrange(left))
        board[cell] = mark
        for a, b, c in LINES_THROUGH[cell]:
            if board[a] == mark and board[b] == mark and board[c] == mark:
                return mark - 1
        mark = 3 - mark
    return None
