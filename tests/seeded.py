"""Seeded random games in the tests stop at a decision limit far above the longest real game,
so that rules that never end (a round counter that never advances) fail at once, naming the
seed, instead of running on to the engine's own limit of 100,000 decisions."""

from __future__ import annotations

from collections.abc import Iterator

from ruleforge import Game

# The longest of 1,000 random games (a seeded random choice at every decision), per game and
# player count: Naishi 50; Legends 63; Hagakure 219, 224, 245 (3, 4, 5 players); Nakasendo
# 241, 331, 377 (2, 3, 4); its wide variant, over 200 games, 260, 360, 395.
MAX_DECISIONS = 3000


def decisions(game: Game, seed: int, limit: int = MAX_DECISIONS) -> Iterator[int]:
    """1, 2, ... while the game goes on; past `limit` decisions, a failure naming the seed."""
    for step in range(1, limit + 1):
        if game.is_over:
            return
        yield step
    raise AssertionError(f"{game.players} players, seed {seed}: no end after {limit:,} decisions "
                         "(the longest random game of these rules takes under 400): does the game ever end?")
