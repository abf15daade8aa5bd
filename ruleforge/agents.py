"""Players that choose actions: seeded random, one-step greedy, and a human at a prompt.

Agents see a game only through the public Game API. Each automatic agent owns its own
`random.Random`, so a game's outcome depends only on the game seed and the agent seeds.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from typing import Any, Protocol

from .diagnostics import GameError
from .engine import Action, Game
from .human import AgentAbort, HumanAgent
from .screen import render_view

__all__ = ["AGENT_NAMES", "Agent", "AgentAbort", "GreedyAgent", "HumanAgent", "RandomAgent", "agent_names",
           "agent_seed", "make_agents", "render_view"]


class Agent(Protocol):
    """Anything that picks one of the legal actions of the player to act."""

    def choose(self, game: Game) -> Action: ...


def agent_seed(seed: int, seat: int) -> int:
    """A seat's agent seed, derived from the game seed so that seats never share a stream."""
    data = hashlib.sha256(f"ruleforge-agent:{seed}:{seat}".encode()).digest()
    return int.from_bytes(data[:8], "big")


class RandomAgent:
    """Uniform over the legal actions: the cheap baseline for simulations."""

    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def choose(self, game: Game) -> Action:
        actions = game.legal_actions()
        return actions[self.rng.randrange(len(actions))]


def standing(game: Game, player: int, finals: list[str]) -> int:
    """A player's total so far plus, while the game is not over, what the final scorings
    `finals` would add now: what a one-step greedy player maximises."""
    total = game.totals()[player]
    if finals and not game.is_over:
        funcs = game.program.score_funcs
        try:
            total += sum(funcs[name](game.state, player)[1] for name in finals)
        except Exception as err:
            raise game._runtime_error(err) from None
    return total


class GreedyAgent:
    """Takes the action that most raises its standing: its total so far plus what the final
    scorings would give it if the game ended now (games without `final` scorings: the total
    alone). Ties are broken by its own rng, so it is cheap, seeded and never stuck."""

    name = "greedy"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def choose(self, game: Game) -> Action:
        actions = game.legal_actions()
        if len(actions) == 1:
            return actions[0]
        me = game.current_player
        assert me is not None, "choose() called on a finished game"
        finals = [name for name, decl in game.program.model.scorings.items() if decl.final]
        best: list[Action] = []
        best_value: int | None = None
        for action in actions:
            trial = game.clone()
            trial.apply(action)
            value = standing(trial, me, finals)
            if best_value is None or value > best_value:
                best, best_value = [action], value
            elif value == best_value:
                best.append(action)
        return best[self.rng.randrange(len(best))]


AGENT_NAMES = ("random", "greedy", "human")


def agent_names(spec: str, players: int) -> list[str]:
    """One agent name per seat from 'human,random': a shorter list fills the remaining seats
    with its last name (so one name is every seat's); more names than seats is an error."""
    names = [n.strip().lower() for n in spec.split(",")]
    for name in names:
        if name not in AGENT_NAMES:
            shown = name or "(empty)"
            raise GameError(f"unknown agent '{shown}' (agents: {', '.join(AGENT_NAMES)})")
    if len(names) > players:
        raise GameError(f"{len(names)} agents given for {players} players: give at most one name per seat")
    return names + [names[-1]] * (players - len(names))


def make_agents(spec: str, players: int, seed: int,
                input_fn: Callable[[str], str] = input, output_fn: Callable[[str], Any] = print) -> list[Agent]:
    """Agents from 'human,random,greedy' (see `agent_names`); automatic ones seeded per seat."""
    agents: list[Agent] = []
    for seat, name in enumerate(agent_names(spec, players)):
        if name == "human":
            agents.append(HumanAgent(input_fn, output_fn))
        elif name == "greedy":
            agents.append(GreedyAgent(agent_seed(seed, seat)))
        else:
            agents.append(RandomAgent(agent_seed(seed, seat)))
    return agents
