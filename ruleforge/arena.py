"""Head-to-head matches between agents, with the win rate's interval: how a designer (and the
bench) shows that one agent is stronger than another, and how skill grows with search.

One seat plays the agent under test, the others the opponent; the seat rotates from game to
game, so a seat's advantage counts alike for every agent. A shared win counts 1/k.
"""

from __future__ import annotations

import math
import time
from typing import Any

import attrs

from .agents import agent_names, make_agents
from .rules import Rules


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a rate (95% by default): unlike the normal approximation
    it stays inside [0, 1] and is fair for rates near 0 or 1 and for few games."""
    if games <= 0:
        return (0.0, 1.0)
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@attrs.frozen
class Match:
    """The outcome of `head_to_head`: the agent's share of wins and its 95% interval; `fair`
    is what an agent no better than its opponents would win (1 / players)."""

    agent: str
    opponent: str
    players: int
    games: int
    wins: float
    decisions: int = 0      # decisions the agent took among two or more legal actions
    seconds: float = 0.0    # CPU time the agent spent choosing them

    @property
    def per_second(self) -> float | None:
        """The agent's decisions per second of its own CPU time."""
        return self.decisions / self.seconds if self.seconds > 0 else None

    @property
    def rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.games)

    @property
    def fair(self) -> float:
        return 1 / self.players

    def to_json(self) -> dict[str, Any]:
        lo, hi = self.interval
        return {"agent": self.agent, "opponent": self.opponent, "players": self.players, "games": self.games,
                "wins": round(self.wins, 6), "rate": self.rate, "low": lo, "high": hi, "fair": self.fair,
                "decisions": self.decisions, "decisions_per_second": self.per_second}


def head_to_head(rules: Rules, players: int, agent: str, opponent: str, games: int, seed: int = 0,
                 options: dict[str, Any] | None = None) -> Match:
    """`games` games of `agent` in one seat (seat `i % players` in game `i`) against
    `opponent` in every other seat; game `i` uses seed `seed + i`."""
    agent_names(agent, 1)  # a bad name fails before any game is played
    agent_names(opponent, 1)
    wins = 0.0
    decisions = 0
    seconds = 0.0
    for i in range(games):
        hero = i % players
        spec = ",".join(agent if p == hero else opponent for p in range(players))
        game = rules.new_game(players, seed + i, options)
        seats = make_agents(spec, players, seed + i)
        while not game.is_over:
            seat = game.current_player
            assert seat is not None
            if seat == hero and len(game._legal) > 1:
                start = time.process_time()
                action = seats[seat].choose(game)
                seconds += time.process_time() - start
                decisions += 1
            else:
                action = seats[seat].choose(game)
            game.apply(action)
        winners = game.winners()
        if hero in winners:
            wins += 1 / len(winners)
    return Match(agent, opponent, players, games, wins, decisions, seconds)


def skill_trace(rules: Rules, players: int, budgets: list[int], games: int, seed: int = 0,
                options: dict[str, Any] | None = None, baseline: str = "random") -> list[Match]:
    """Whether more search wins more: `mcts:B` against `baseline` for each budget, then each
    budget against the one before it (a stronger agent should win more than 1 / players)."""
    out = [head_to_head(rules, players, f"mcts:{b}", baseline, games, seed, options) for b in budgets]
    for weak, strong in zip(budgets, budgets[1:]):
        out.append(head_to_head(rules, players, f"mcts:{strong}", f"mcts:{weak}", games, seed, options))
    return out
