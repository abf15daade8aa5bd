"""Move counts ("perft", as chess engines call them): how many decision sequences of a given
length a game allows from where it stands. A rules change that was not meant to change what can
be played leaves every count alone; one that was shows up as a count that moved, which is why
the counts are kept beside the rules as regression data (docs/testing.md, "Move counts").

What is counted, the convention of chess's perft:

- a sequence is `depth` decisions in a row, each one of the legal actions of its decision (a
  decision no one can act at is skipped by the engine and counts nothing; each chooser's pick
  of a `turn together` is a decision of its own);
- depth 0 counts 1 (the empty sequence), finished game or not;
- a finished game offers no decision: a game that ends before `depth` decisions are taken ends
  no sequence of length `depth` and counts 0 there, as a mate before the depth does in chess.

Chance is fixed by the game's seed: each child is `game.clone()` with one action applied, and a
clone carries the state's random generator (`State.rng`, a number), so a copy draws what the
original would have drawn after that action. The counts are therefore a function of the rules,
the players, the seed and the options, the same on every run and machine.

Speed: the walk reads the engine's own legal list (`game._legal`, which `legal_actions()`
copies; never changed here) and applies with `_apply_unchecked`, as the random agent does; at
the last level it counts `len(legal)` without applying anything ("bulk counting"), so the
leaves, by far the most numerous nodes, cost nothing.
"""

from __future__ import annotations

from .diagnostics import GameError
from .engine import Game

__all__ = ["MAX_DEPTH", "counts", "divide", "perft"]

# The deepest the command line and a counts file walk. A count grows about as the number of moves
# to the power of the depth: depth 3 of the largest game here takes a tenth of a second, depth 6
# hours. The Python functions take any depth: a caller who asks for more means it.
MAX_DEPTH = 6


def perft(game: Game, depth: int) -> int:
    """The number of decision sequences of exactly `depth` decisions from `game`'s position
    (depth 0: 1; a game over before `depth` decisions: 0). `game` itself is not changed."""
    _check_depth(depth)
    if depth == 0:
        return 1
    return _leaves(game, depth)


def counts(game: Game, depth: int) -> list[int]:
    """`[perft(game, 1), ..., perft(game, depth)]` in one walk: each level's count is the sum of
    the legal lists' lengths one level up, so the walk to `depth` gives every shallower count
    for nothing."""
    _check_depth(depth)
    found = [0] * depth
    if depth:
        _tally(game, 0, depth, found)
    return found


def divide(game: Game, depth: int) -> list[tuple[str, int]]:
    """Each first decision's label (as `legal_labels()` gives them, in its order) and the
    number of sequences of `depth` decisions that start with it: the counts sum to
    `perft(game, depth)`, and a count that moved points at the first move whose subtree
    changed. `depth` must be at least 1 (depth 0 has no first decision)."""
    _check_depth(depth)
    if depth < 1:
        raise GameError("divide needs a depth of at least 1: depth 0 has no first decision")
    labels = game.legal_labels()
    return [(label, _after(game, action, depth - 1)) for label, action in zip(labels, list(game._legal))]


def _check_depth(depth: int) -> None:
    if type(depth) is not int or depth < 0:
        raise GameError(f"the depth must be a whole number of 0 or more, not {depth!r}")


def _after(game: Game, action: tuple, depth: int) -> int:
    """Sequences of `depth` decisions after `action` is taken in a copy of `game`."""
    child = game.clone()
    child._apply_unchecked(action)
    return 1 if depth == 0 else _leaves(child, depth)


def _leaves(game: Game, depth: int) -> int:
    """perft for depth >= 1: the hot recursion, kept flat (the engine's list, read only)."""
    legal = game._legal  # empty once the game is over
    if depth == 1:
        return len(legal)
    total = 0
    below = depth - 1
    for action in legal:
        child = game.clone()
        child._apply_unchecked(action)
        total += _leaves(child, below)
    return total


def _tally(game: Game, level: int, depth: int, found: list[int]) -> None:
    """Add the decisions of `game` (at `level`, 0 the root) to `found[level]` and walk on."""
    legal = game._legal
    found[level] += len(legal)
    level += 1
    if level == depth:
        return
    for action in legal:
        child = game.clone()
        child._apply_unchecked(action)
        _tally(child, level, depth, found)
