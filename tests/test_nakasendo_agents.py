"""Agents on Nakasendo: the greedy agent (its total plus what the final scoring would give it
now) is not worse than random play; over 200 two-player games it should win most."""

from __future__ import annotations

from pathlib import Path

import ruleforge
from ruleforge.agents import GreedyAgent, RandomAgent

NAKASENDO = Path(__file__).parents[1] / "games" / "nakasendo.rules"


def test_greedy_is_not_worse_than_random_over_200_games() -> None:
    rules = ruleforge.load(NAKASENDO)
    greedy_points = random_points = greedy_wins = 0
    games = 200
    for seed in range(games):
        seat = seed % 2  # greedy sits first in half of the games
        agents = [GreedyAgent(seed) if p == seat else RandomAgent(seed) for p in range(2)]
        game = rules.new_game(2, seed=seed)
        while not game.is_over:
            game.apply(agents[game.current_player].choose(game))
        scores = game.scores()
        greedy_points += scores[seat]["total"]
        random_points += scores[1 - seat]["total"]
        greedy_wins += game.winners() == [seat]
    assert greedy_points > random_points
    assert greedy_wins > games // 2
