"""Agents on Nakasendo: the greedy agent (its ranking key with what the final scoring would give
it now, with short playouts where that tells no action apart) is not worse than random play: over
60 two-player games it wins nearly all (30 of 30 in bench/README.md's measure)."""

from __future__ import annotations

from pathlib import Path

from seeded import decisions

import ruleforge
from ruleforge.agents import GreedyAgent, RandomAgent

NAKASENDO = Path(__file__).parents[1] / "games" / "nakasendo.rules"


def test_greedy_beats_random_over_60_games() -> None:
    rules = ruleforge.load(NAKASENDO)
    greedy_points = random_points = greedy_wins = 0
    games = 60
    for seed in range(games):
        seat = seed % 2  # greedy sits first in half of the games
        agents = [GreedyAgent(seed) if p == seat else RandomAgent(seed) for p in range(2)]
        game = rules.new_game(2, seed=seed)
        for _ in decisions(game, seed):
            game.apply(agents[game.current_player].choose(game))
        scores = game.scores()
        greedy_points += scores[seat]["total"]
        random_points += scores[1 - seat]["total"]
        greedy_wins += game.winners() == [seat]
    assert greedy_points > random_points
    assert greedy_wins >= 0.8 * games  # a Wilson interval of 48/60 starts at 68%: well above fair
