"""Move counts (perft) of ruleforge against the hand-written engines in bench/: a table of both
engines' counts at depth 1 to 3 (2 where heavy), each row the same or DIFFERENT.

    python bench/perft_crosscheck.py                  # every game with a hand-written engine
    python bench/perft_crosscheck.py tictactoe connect_four --depth 3

Two kinds of hand-written engine:

- Tic-Tac-Toe and Connect Four have a move-by-move `Game` (legal_moves, play) and no chance:
  counted as ruleforge counts, a copy per move, and the comparison is exact.
- Hagakure, Naishi and Nakasendo only play whole games, drawing each decision from the random
  generator they are given (`rng.randrange(n)` or `rng.choice(options)` over its n options). They
  are counted by replay: a `Scripted` generator answers the first k decisions from a script and
  stops the game at the next one, which tells its n. Their chance (shuffles, the first player)
  is Python's `random`, which cannot be matched to ruleforge's seeded generator; so each engine
  is counted on several of its own seeds (`DEALS`). Where the hand-written counts are the same
  on every seed (the column `deal` says `no effect`), they are compared with ruleforge's at
  seed 0. Where the deal changes them (Nakasendo: the market's tiles), the deals are told apart
  by their depth-1 count, and the row compares, for every depth-1 count both engines met, the
  deeper counts: `the same` says how many such classes of deal agreed; no class in common is
  `not comparable`.

Naishi's hand-written engine splits a turn into decisions two ways (`policy`); its `engine`
policy is the one games/naishi.rules follows, so that is the one counted.

Exits 1 if any comparable row differs.
"""

from __future__ import annotations

import argparse
import copy
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
for folder in (ROOT, BENCH):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

import handwritten_connect_four  # noqa: E402
import handwritten_hagakure  # noqa: E402
import handwritten_naishi  # noqa: E402
import handwritten_nakasendo  # noqa: E402
import handwritten_tictactoe  # noqa: E402

import ruleforge  # noqa: E402
from ruleforge.perft import counts  # noqa: E402

DEALS = range(10)  # the seeds each engine is counted on where chance cannot be matched


# --- engines with a move-by-move game ------------------------------------------------------------


def stepwise_counts(game: Any, depth: int) -> list[int]:
    """Counts at depth 1..depth of a `Game` with `legal_moves()` and `play(move)`, a copy per move."""
    found = [0] * depth

    def walk(g: Any, level: int) -> None:
        moves = g.legal_moves()
        found[level] += len(moves)
        if level + 1 == depth:
            return
        for move in moves:
            child = copy.copy(g)
            for name in type(g).__slots__:
                value = getattr(g, name)
                if isinstance(value, list):
                    setattr(child, name, list(value))
            child.play(move)
            walk(child, level + 1)

    if depth:
        walk(game, 0)
    return found


# --- engines that play whole games from a generator ------------------------------------------------


class Reached(Exception):
    """The game came to the decision after the script: it offers `n` options."""

    def __init__(self, n: int):
        super().__init__(n)
        self.n = n


class Scripted(random.Random):
    """Chance from a seeded generator, decisions from a script. `shuffle` and `sample` are
    chance (they draw through `_randbelow`, untouched here); `randrange` and `choice` are
    decisions, but for the first `chance_calls` of them, which the engine makes at setup (the
    first player, a scoring token) and which are chance too."""

    def __init__(self, seed: int, script: list[int], chance_calls: int):
        super().__init__(seed)
        self.script, self.taken, self.chance_left = script, 0, chance_calls

    def _decide(self, n: int) -> int:
        if self.taken == len(self.script):
            raise Reached(n)
        pick = self.script[self.taken]
        self.taken += 1
        return pick

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:  # type: ignore[override]
        if self.chance_left:
            self.chance_left -= 1
            return super().randrange(start, stop, step)
        low, high = (0, start) if stop is None else (start, stop)
        assert step == 1, "a decision is drawn as randrange(n)"
        return low + self._decide(high - low)

    def choice(self, seq: Any) -> Any:
        if self.chance_left:
            self.chance_left -= 1
            return super().choice(seq)
        return seq[self._decide(len(seq))]


def replayed_counts(play: Callable[[random.Random], Any], seed: int, chance_calls: int, depth: int) -> list[int]:
    """Counts at depth 1..depth of an engine that plays a whole game from a generator: each
    prefix of decisions replayed from the start, stopped at the next decision."""
    found = [0] * depth

    def options_after(script: list[int]) -> int:
        try:
            play(Scripted(seed, script, chance_calls))
        except Reached as reached:
            return reached.n
        return 0  # the game ended within the script

    def walk(script: list[int]) -> None:
        n = options_after(script)
        found[len(script)] += n
        if len(script) + 1 < depth:
            for pick in range(n):
                walk([*script, pick])

    if depth:
        walk([])
    return found


# --- the games ------------------------------------------------------------------------------------


def hagakure(players: int) -> tuple[Callable[[random.Random], Any], int]:
    return (lambda rng: handwritten_hagakure.play_game(players, rng)), 1  # the dealer


def nakasendo(players: int) -> tuple[Callable[[random.Random], Any], int]:
    return (lambda rng: handwritten_nakasendo.play_random_game(players, rng)), 2  # composition, first player


def naishi(policy: str) -> Callable[[int], tuple[Callable[[random.Random], Any], int]]:
    return lambda players: ((lambda rng: handwritten_naishi.play_game(rng, policy=policy)), 1)  # first player


STEPWISE = {"tictactoe": handwritten_tictactoe.Game, "connect_four": handwritten_connect_four.Game}
REPLAYED: dict[str, tuple[str, Callable[[int], tuple[Callable[[random.Random], Any], int]], range, int]] = {
    # name: (rules file, engine, player counts, deepest depth)
    "hagakure": ("hagakure", hagakure, range(3, 6), 3),
    "naishi": ("naishi", naishi(handwritten_naishi.ENGINE), range(2, 3), 3),
    "nakasendo": ("nakasendo", nakasendo, range(2, 5), 2),
}


def rules_counts(name: str, players: int, depth: int, seed: int = 0) -> list[int]:
    return counts(ruleforge.load(ROOT / "games" / f"{name}.rules").new_game(players, seed), depth)


def compare(name: str, depth: int | None) -> list[tuple[str, int, list[int], list[int], str, str]]:
    """Rows (game, players, ruleforge's counts, the hand-written ones, deal, verdict)."""
    rows = []
    if name in STEPWISE:
        deepest = depth or 3
        ours = rules_counts(name, 2, deepest)
        theirs = stepwise_counts(STEPWISE[name](), deepest)
        rows.append((name, 2, ours, theirs, "no chance", "the same" if ours == theirs else "DIFFERENT"))
        return rows
    rules_name, engine, player_counts, default_depth = REPLAYED[name]
    deepest = depth or default_depth
    for players in player_counts:
        ours = rules_counts(rules_name, players, deepest)
        play, chance_calls = engine(players)
        seen = [replayed_counts(play, seed, chance_calls, deepest) for seed in DEALS]
        if all(s == seen[0] for s in seen):
            rows.append((name, players, ours, seen[0], "no effect", "the same" if ours == seen[0] else "DIFFERENT"))
            continue
        rows.append((name, players, ours, seen[0], "changes them", by_deal(rules_name, players, deepest, seen)))
    return rows


def by_deal(rules_name: str, players: int, depth: int, theirs: list[list[int]]) -> str:
    """The verdict where the deal changes the counts: deals grouped by their depth-1 count, the
    deeper counts compared within each group both engines met."""
    ours = [rules_counts(rules_name, players, depth, seed) for seed in DEALS]
    mine = {c[0]: c for c in ours}
    other = {c[0]: c for c in theirs}
    if any(len({tuple(c) for c in group if c[0] == first}) > 1 for group in (ours, theirs) for first in mine):
        return "not comparable (one depth-1 count, several deeper ones)"
    common = sorted(set(mine) & set(other))
    if not common:
        return "not comparable (no deal class in common)"
    if any(mine[first] != other[first] for first in common):
        return "DIFFERENT in the deals of depth-1 count " + ", ".join(
            str(first) for first in common if mine[first] != other[first])
    return f"the same ({len(common)} classes of deal)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    every = ", ".join([*STEPWISE, *REPLAYED])
    parser.add_argument("games", nargs="*", help=f"games to count (default: all of {every})")
    parser.add_argument("--depth", type=int, default=None, help="the deepest depth (default: 3, Nakasendo 2)")
    args = parser.parse_args(argv)
    names = args.games or [*STEPWISE, *REPLAYED]
    unknown = [n for n in names if n not in STEPWISE and n not in REPLAYED]
    if unknown:
        parser.error(f"no hand-written engine for {', '.join(unknown)}")
    print(f"{'game':20} {'players':>7}  {'ruleforge':28} {'hand-written':28} {'deal':13} verdict")
    differ = False
    for name in names:
        start = time.perf_counter()
        for game, players, ours, theirs, deal, verdict in compare(name, args.depth):
            print(f"{game:20} {players:>7}  {_shown(ours):28} {_shown(theirs):28} {deal:13} {verdict}", flush=True)
            differ = differ or verdict.startswith("DIFFERENT")
        print(f"{'':20} {'':>7}  ({time.perf_counter() - start:.1f} s)", flush=True)
    return 1 if differ else 0


def _shown(found: list[int]) -> str:
    return ", ".join(f"{c:,}" for c in found)


if __name__ == "__main__":
    sys.exit(main())
