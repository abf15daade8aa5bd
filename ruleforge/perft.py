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
clone carries the state's random generator (`State.rng`, its words), so a copy draws what the
original would have drawn after that action. The counts are therefore a function of the rules,
the players, the seed (for its generator, ruleforge/chance.py) and the options, the same on
every run and machine.

Speed: the walk reads the engine's own legal list (`game._legal`, which `legal_actions()`
copies; never changed here) and applies with `_apply_unchecked`, as the random agent does; at
the last level it counts `len(legal)` without applying anything ("bulk counting"), so the
leaves, by far the most numerous nodes, cost nothing.

Amount: a depth bounds nothing by itself (depth 5 of a game of 300 choices a decision is 2.4
trillion sequences), so every walk spends a `Budget` of positions, the limit
`counted_positions`: each legal action of a position the walk reaches is a position reached one
decision deeper, whether the walk applies it or counts it in bulk. What a walk may reach is
therefore the sum of its counts at every depth, the same on every machine whatever the walk's
order, and a walk that would pass it stops with `TooManyPositions` at the legal list that
passes it, before it goes deeper.
"""

from __future__ import annotations

from .diagnostics import GameError
from .engine import Game
from .limits import LIMITS, describe

__all__ = ["MAX_DEPTH", "Budget", "TooManyPositions", "counts", "divide", "perft"]

# The deepest the command line and a counts file walk. A count grows about as the number of moves
# to the power of the depth: depth 3 of the largest game here takes a tenth of a second, depth 6
# would take hours, and stops at the limit `counted_positions` instead. The Python functions take
# any depth: a caller who asks for more means it (within the same limit).
MAX_DEPTH = 6


class TooManyPositions(GameError):
    """A count would reach more positions than its budget allows: it stopped there."""


class Budget:
    """The positions one or more counts may still reach together, `counted_positions` when
    made. One budget per count is the usual; the entries of one counts file share one, so that a
    file of a thousand entries cannot take a thousand times as long as one
    (ruleforge/testing/perft_files.py). `earlier` is what the counts before the current one
    spent (each count marks where it begins), which the message then tells apart; `earlier_are`
    names those counts in it."""

    __slots__ = ("allowed", "earlier", "earlier_are", "left", "why")

    def __init__(self, allowed: int | None = None, earlier_are: str = "the counts before this one"):
        self.allowed = LIMITS.counted_positions if allowed is None else allowed
        self.why = describe("counted_positions") if allowed is None else "the budget the count was given"
        self.left = self.allowed
        self.earlier = 0
        self.earlier_are = earlier_are

    @property
    def spent(self) -> int:
        return self.allowed - self.left

    def start(self) -> None:
        """A new count begins here: what was spent so far was spent by the counts before it;
        TooManyPositions if they spent it all."""
        self.earlier = self.spent
        if self.left < 0:
            raise TooManyPositions(f"not counted: {self.earlier_are} visited more than the {self.allowed:,} "
                                   f"positions they may visit together ({self.why})")

    def exceeded(self) -> TooManyPositions:
        """The error of a walk that has just passed the budget."""
        shared = f", {self.earlier:,} of them by {self.earlier_are}" if self.earlier else ""
        return TooManyPositions(f"counting visited more than {self.allowed:,} positions{shared} ({self.why})")


def perft(game: Game, depth: int, budget: Budget | None = None) -> int:
    """The number of decision sequences of exactly `depth` decisions from `game`'s position
    (depth 0: 1; a game over before `depth` decisions: 0). `game` itself is not changed.
    TooManyPositions when the walk would reach more positions than `budget` (by default a
    fresh one of `counted_positions`)."""
    _check_depth(depth)
    if depth == 0:
        return 1
    budget = _started(budget)
    native = _natively(game, depth, budget)
    if native is not None:
        return native[-1]
    return _leaves(game, depth, budget)


def counts(game: Game, depth: int, budget: Budget | None = None) -> list[int]:
    """`[perft(game, 1), ..., perft(game, depth)]` in one walk: each level's count is the sum of
    the legal lists' lengths one level up, so the walk to `depth` gives every shallower count
    for nothing. The counts' sum is what the walk spends of `budget`."""
    _check_depth(depth)
    found = [0] * depth
    if depth:
        budget = _started(budget)
        native = _natively(game, depth, budget)
        if native is not None:
            return native
        _tally(game, 0, depth, found, budget)
    return found


def _natively(game: Game, depth: int, budget: Budget) -> list[int] | None:
    """The counts walked in C on a game of the native engine (ruleforge/native/), spending of
    `budget` what the walk here would; None for any other game, or a walk the native engine
    hands back (the reference walk then counts)."""
    walk = getattr(game, "native_counts", None)
    if walk is None:
        return None
    done = walk(depth, budget.left)
    if done is None:
        return None
    found, budget.left = done
    if budget.left < 0:
        raise budget.exceeded()
    return found


def divide(game: Game, depth: int, budget: Budget | None = None) -> list[tuple[str, int]]:
    """Each first decision's label (as `legal_labels()` gives them, in its order) and the
    number of sequences of `depth` decisions that start with it: the counts sum to
    `perft(game, depth)`, and a count that moved points at the first move whose subtree
    changed. `depth` must be at least 1 (depth 0 has no first decision). The walk is perft's:
    it spends of `budget` what `perft` would."""
    _check_depth(depth)
    if depth < 1:
        raise GameError("divide needs a depth of at least 1: depth 0 has no first decision")
    budget = _started(budget)
    legal = list(game._legal)
    _spend(budget, len(legal))
    labels = game.legal_labels()
    return [(label, _after(game, action, depth - 1, budget)) for label, action in zip(labels, legal)]


def _check_depth(depth: int) -> None:
    if type(depth) is not int or depth < 0:
        raise GameError(f"the depth must be a whole number of 0 or more, not {depth!r}")


def _started(budget: Budget | None) -> Budget:
    if budget is None:
        return Budget()
    budget.start()
    return budget


def _spend(budget: Budget, positions: int) -> None:
    budget.left -= positions
    if budget.left < 0:
        raise budget.exceeded()


def _after(game: Game, action: tuple, depth: int, budget: Budget) -> int:
    """Sequences of `depth` decisions after `action` is taken in a copy of `game`."""
    child = game.clone()
    child._apply_unchecked(action)
    return 1 if depth == 0 else _leaves(child, depth, budget)


def _leaves(game: Game, depth: int, budget: Budget) -> int:
    """perft for depth >= 1: the hot recursion, kept flat (the engine's list, read only)."""
    legal = game._legal  # empty once the game is over
    budget.left -= len(legal)  # each one a position reached, applied below or counted in bulk
    if budget.left < 0:
        raise budget.exceeded()
    if depth == 1:
        return len(legal)
    total = 0
    below = depth - 1
    for action in legal:
        child = game.clone()
        child._apply_unchecked(action)
        total += _leaves(child, below, budget)
    return total


def _tally(game: Game, level: int, depth: int, found: list[int], budget: Budget) -> None:
    """Add the decisions of `game` (at `level`, 0 the root) to `found[level]` and walk on."""
    legal = game._legal
    budget.left -= len(legal)
    if budget.left < 0:
        raise budget.exceeded()
    found[level] += len(legal)
    level += 1
    if level == depth:
        return
    for action in legal:
        child = game.clone()
        child._apply_unchecked(action)
        _tally(child, level, depth, found, budget)
