"""A rules file as a PettingZoo AEC environment (docs/rl.md).

The engine asks one seat at a time, even at a `turn together` (it collects the choosers'
picks one after another, each hidden from the others), which is exactly PettingZoo's
agent-environment cycle: `agent_selection` is the seat the engine asks. An agent acts a piece
at a time (`ruleforge.rl.encoding.PieceChooser`), so it may be selected several times in a row
for one decision; its observation's last part says which pieces it has chosen so far.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv

from ..rules import Rules
from .encoding import INT_RANGE, PieceChooser, Table, final_rewards

# Bounds of the observation Box: counts and ints of views stay far inside, and float32 holds
# every integer up to 2**24 exactly.
BOUND = float(2 ** 24)


def _rules(rules: Rules | str | os.PathLike[str]) -> Rules:
    if isinstance(rules, Rules):
        return rules
    import ruleforge

    return ruleforge.load(rules)


class RulesEnv(AECEnv):
    """Agents `P1`..`Pn`; a Discrete action space of pieces; observations
    `{"observation": Box, "action_mask": Box(0, 1, int8)}`.

    Rewards: at the end +1 to each winner and -1 to every other seat (0 to all when every seat
    shares the win); with `score_rewards` also, after every applied action, each seat's change
    of total score. `max_decisions` truncates a game after that many applied actions."""

    metadata = {"render_modes": ["ansi", "human"], "name": "ruleforge_v0", "is_parallelizable": False}

    def __init__(self, rules: Rules | str | os.PathLike[str], players: int = 2,
                 options: Mapping[str, Any] | None = None, seed: int = 0, score_rewards: bool = False,
                 max_decisions: int | None = None, render_mode: str | None = None,
                 int_range: tuple[int, int] = INT_RANGE):
        super().__init__()
        self.table = Table(_rules(rules), players, options, int_range)
        self.possible_agents = [f"P{k + 1}" for k in range(players)]
        self.agents = list(self.possible_agents)
        self.seed = seed
        self.episodes = 0
        self.score_rewards = score_rewards
        self.max_decisions = max_decisions
        self.render_mode = render_mode
        box = spaces.Box(-BOUND, BOUND, shape=(self.table.size,), dtype=np.float32)
        mask = spaces.Box(0, 1, shape=(self.table.pieces.size,), dtype=np.int8)
        self._observation_spaces = {a: spaces.Dict({"observation": box, "action_mask": mask})
                                    for a in self.possible_agents}
        self._action_spaces = {a: spaces.Discrete(self.table.pieces.size) for a in self.possible_agents}
        self.piece_names = self.table.pieces.names

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_spaces[agent]

    def _seat(self, agent: str) -> int:
        return self.possible_agents.index(agent)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat(agent)
        return {"observation": self.table.observation(seat), "action_mask": self.table.mask(seat)}

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game: of seed `seed` when given (later resets count on from it), else the next seed."""
        if seed is not None:
            self.seed, self.episodes = seed, 0
        self.table.start(self.seed + self.episodes)
        self.episodes += 1
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._totals = self._game_totals()
        self._select()

    def _game_totals(self) -> list[float]:
        return [float(t) for t in self.table.game.totals()] if self.score_rewards else []

    def _select(self) -> None:
        seat = self.table.to_act
        if seat is not None:
            self.agent_selection = self.possible_agents[seat]
        elif self.agents:
            self.agent_selection = self.agents[0]

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if action is None:
            raise ValueError(f"{agent} is to act: None is only for agents whose game has ended")
        applied = self.table.choose(int(action))
        if applied:
            game = self.table.game
            if self.score_rewards:
                totals = self._game_totals()
                for k, a in enumerate(self.possible_agents):
                    self.rewards[a] += totals[k] - self._totals[k]
                self._totals = totals
            if game.is_over:
                for a, r in zip(self.possible_agents, final_rewards(game)):
                    self.rewards[a] += r
                self.terminations = dict.fromkeys(self.agents, True)
            elif self.max_decisions is not None and self.table.decisions >= self.max_decisions:
                self.truncations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        self._select()
        if self.render_mode == "human":
            print(self.render())

    def render(self) -> str | None:
        """The text `play` shows of the acting seat's view (P1's once the game is over)."""
        if self.render_mode is None:
            return None
        from ..screen import render_view

        seat = self.table.to_act or 0
        return "\n".join(render_view(self.table.game.view(seat), width=100))

    def close(self) -> None:
        pass

    def legal_labels(self) -> list[str]:
        """The labels of the legal actions the acting seat's pieces so far still allow."""
        chooser = self.table.chooser
        if chooser is None:
            return []
        n = len(chooser.chosen)
        game = self.table.game
        return [game.label(a) for a, k in zip(chooser.actions, chooser.keys) if list(k[:n]) == chooser.chosen]


def env(rules: Rules | str | os.PathLike[str], players: int = 2, options: Mapping[str, Any] | None = None,
        seed: int = 0, score_rewards: bool = False, max_decisions: int | None = None,
        render_mode: str | None = None, int_range: tuple[int, int] = INT_RANGE) -> RulesEnv:
    """The AEC environment of a rules file (a path or a loaded `Rules`) for `players` seats."""
    return RulesEnv(rules, players, options, seed, score_rewards, max_decisions, render_mode, int_range)


class ParallelRulesEnv(ParallelEnv):
    """The parallel interface: at a `turn together` every chooser picks its pieces at the same
    time; at any other decision only the seat to act does (the others' masks are zeros and
    their actions are ignored). Observations, rewards and truncation as in `RulesEnv`.

    The engine takes a together decision's choices one after another, each from the same state;
    to offer every chooser its pieces at once, each later chooser's legal actions are read
    from a copy of the game in which the earlier choosers took any legal action (what they
    take changes nothing of it). The game itself changes only once all have chosen, so no
    chooser's view shows another's choice. A piece the mask does not allow is ignored (PettingZoo's
    parallel seed test steps with pieces drawn without the mask)."""

    metadata = {"render_modes": ["ansi"], "name": "ruleforge_parallel_v0"}

    def __init__(self, rules: Rules | str | os.PathLike[str], players: int = 2,
                 options: Mapping[str, Any] | None = None, seed: int = 0, score_rewards: bool = False,
                 max_decisions: int | None = None, render_mode: str | None = None,
                 int_range: tuple[int, int] = INT_RANGE):
        aec = RulesEnv(rules, players, options, seed, score_rewards, max_decisions, render_mode, int_range)
        self.table = aec.table
        self.possible_agents = list(aec.possible_agents)
        self.agents = list(self.possible_agents)
        self._observation_spaces = aec._observation_spaces
        self._action_spaces = aec._action_spaces
        self.piece_names = aec.piece_names
        self.seed = seed
        self.episodes = 0
        self.score_rewards = score_rewards
        self.max_decisions = max_decisions
        self.render_mode = render_mode
        self.choosers: dict[int, PieceChooser] = {}

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_spaces[agent]

    def _open(self) -> dict[int, PieceChooser]:
        """The choosers of the decision at hand, each with its pieces."""
        game = self.table.game
        if game.is_over:
            return {}
        seat = game.current_player
        together = game.view(seat).get("together")
        if not together:
            return {seat: PieceChooser(self.table.pieces, game)}
        waiting = len(together["choosers"]) - len(together["chosen"])
        copy, out = game.clone(), {}
        while len(out) < waiting and not copy.is_over and copy.current_player not in out:
            out[copy.current_player] = PieceChooser(self.table.pieces, copy)
            if len(out) < waiting:
                copy.apply(copy.legal_actions()[0])
        return out

    def _observe(self, seat: int) -> dict[str, np.ndarray]:
        table = self.table
        out = np.zeros(table.size, dtype=np.float32)
        out[:table.encoding.size] = table.encoding.encode(table.game.view(seat, properties=True))
        chooser = self.choosers.get(seat)
        mask = np.zeros(table.pieces.size, dtype=np.int8)
        if chooser is not None and chooser.action is None:
            out[table.encoding.size:] = chooser.chosen_vector()
            mask = chooser.mask()
        return {"observation": out, "action_mask": mask}

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        return {a: self._observe(k) for k, a in enumerate(self.possible_agents) if a in self.agents}

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """A new game, seeded as `RulesEnv.reset` seeds it."""
        if seed is not None:
            self.seed, self.episodes = seed, 0
        self.table.start(self.seed + self.episodes)
        self.episodes += 1
        self.agents = list(self.possible_agents)
        self._totals = [float(t) for t in self.table.game.totals()] if self.score_rewards else []
        self.choosers = self._open()
        return self._observations(), {a: {} for a in self.agents}

    def step(self, actions: Mapping[str, int]) -> tuple[dict, dict, dict, dict, dict]:
        """Each chooser's piece; one its mask does not allow (or none) is ignored, said in its
        info as `"ignored": True`, and the chooser is asked again."""
        game = self.table.game
        ignored = set()
        for seat, chooser in self.choosers.items():
            agent = self.possible_agents[seat]
            if chooser.action is None:
                piece = actions.get(agent)
                if piece is None or int(piece) not in chooser.allowed:
                    ignored.add(agent)
                    continue
                chooser.choose(int(piece))
        rewards = dict.fromkeys(self.agents, 0.0)
        ended = cut = False
        if self.choosers and all(c.action is not None for c in self.choosers.values()):
            while not game.is_over and game.current_player in self.choosers:
                chooser = self.choosers.pop(game.current_player)
                game.apply(chooser.action)
                self.table.decisions += 1
            if self.score_rewards:
                totals = [float(t) for t in game.totals()]
                for k, a in enumerate(self.possible_agents):
                    rewards[a] += totals[k] - self._totals[k]
                self._totals = totals
            if game.is_over:
                ended = True
                for a, r in zip(self.possible_agents, final_rewards(game)):
                    rewards[a] += r
            elif self.max_decisions is not None and self.table.decisions >= self.max_decisions:
                cut = True
            self.choosers = {} if ended or cut else self._open()
        observations = self._observations()
        terminations = dict.fromkeys(self.agents, ended)
        truncations = dict.fromkeys(self.agents, cut)
        infos = {a: ({"ignored": True} if a in ignored else {}) for a in self.agents}
        if ended or cut:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        from ..screen import render_view

        seat = min(self.choosers) if self.choosers else 0
        return "\n".join(render_view(self.table.game.view(seat), width=100))

    def close(self) -> None:
        pass


def parallel_env(rules: Rules | str | os.PathLike[str], players: int = 2, options: Mapping[str, Any] | None = None,
                 seed: int = 0, score_rewards: bool = False, max_decisions: int | None = None,
                 render_mode: str | None = None, int_range: tuple[int, int] = INT_RANGE) -> ParallelRulesEnv:
    """The parallel environment of a rules file: the choosers of a `turn together` act at once."""
    return ParallelRulesEnv(rules, players, options, seed, score_rewards, max_decisions, render_mode, int_range)
