"""A rules file as an OpenSpiel game, written in Python and registered with pyspiel (docs/rl.md).

The engine draws its chance from one generator seeded when a game starts, and cannot list the
outcomes of a shuffle or a draw with their probabilities, so OpenSpiel's explicit chance nodes
cannot stand for them. Chance is SAMPLED inside the game from its seed instead: with `seeds=1`
(the default) every game of the registered name plays from the game parameter `seed`
(`pyspiel.load_game(name, {"seed": 7})`), and OpenSpiel sees no chance node; with `seeds=K` the
only explicit chance node is the first, which draws the seed among `seed .. seed+K-1`, equally
likely, so that sampling algorithms see K different deals. After that a state is fixed by its
action history, which is how a state is saved and restored.

Moves are the pieces of `ruleforge.rl.encoding.Pieces`, one per OpenSpiel action: a seat moves
several times in a row for one decision of the rules.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

from ..limits import LIMITS
from ..rules import Rules
from .encoding import INT_RANGE, Table, final_rewards, make_codec

# Registered names -> (rules, players, options, codec, seeds, max_decisions): what a pickled
# state needs to be rebuilt in this process.
_REGISTERED: dict[str, tuple[Rules, int, dict | None, Any, int, int | None]] = {}


def _restore_table(name: str, seed: int | None, moves: list[int]) -> Table:
    rules, players, options, codec, _, _ = _REGISTERED[name]
    table = _NamedTable(name, rules, players, options, codec=codec)
    if seed is None:
        return table
    table.start(seed)
    for piece in moves:
        table.choose(piece)
    return table


class _NamedTable(Table):
    """A Table that pickles as its registered name, seed and history (the program cannot be pickled)."""

    def __init__(self, name: str, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.name = name
        self.seed = 0

    def start(self, seed: int) -> None:
        self.seed = seed
        super().start(seed)

    def __reduce__(self) -> tuple:
        return (_restore_table, (self.name, None if self.game is None else self.seed, list(self.moves)))


class RulesState(pyspiel.State):
    """A game of the rules, played a piece at a time."""

    def __init__(self, game: RulesGame):
        super().__init__(game)
        *_, seeds, max_decisions = _REGISTERED[game.name]
        self._table = copy.deepcopy(game.prototype(seeds <= 1))
        self._base = game.seed
        self._seeds = seeds
        self._max_decisions = max_decisions
        self._truncated = False

    @property
    def table(self) -> _NamedTable:
        return self._table

    def current_player(self) -> int:
        if self._table.game is None:
            return pyspiel.PlayerId.CHANCE
        if self._table.game.is_over or self._truncated:
            return pyspiel.PlayerId.TERMINAL
        return self._table.game.current_player

    def _legal_actions(self, player: int) -> list[int]:
        return self._table.legal() if player == self.current_player() else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(k, 1.0 / self._seeds) for k in range(self._seeds)]

    def _apply_action(self, action: int) -> None:
        if self._table.game is None:
            self._table.start(self._base + int(action))
            return
        if self._table.choose(int(action)) and self._max_decisions is not None:
            self._truncated = self._table.decisions >= self._max_decisions and not self._table.game.is_over

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"seed {self._base + action}"
        return self._table.pieces.names[action]

    def is_terminal(self) -> bool:
        return self.current_player() == pyspiel.PlayerId.TERMINAL

    def returns(self) -> list[float]:
        """+1 to each winner, -1 to the others, 0 to all on a win every seat shares (or a truncation)."""
        game = self._table.game
        if game is None or not game.is_over:
            return [0.0] * self._table.players
        return final_rewards(game)

    def __str__(self) -> str:
        game = self._table.game
        if game is None:
            return "chance: the seed"
        return json.dumps(game.view(None), sort_keys=True, default=str)


class RulesObserver:
    """Observation and information state of one seat, from its view (never the hidden state).

    The tensor is the seat's view encoded plus the pieces it has chosen so far (the same as the
    PettingZoo observation), for the observation and the information state alike. The strings
    are the view as JSON; the information state's string adds the log as the seat reads it
    (every action, a secret one by its public label, and what it was shown), so that it recalls
    the whole game (perfect recall) as OpenSpiel's algorithms expect."""

    def __init__(self, size: int, perfect_recall: bool):
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}
        self.perfect_recall = perfect_recall

    def set_from(self, state: RulesState, player: int) -> None:
        table = state.table
        if table.game is None:
            self.tensor.fill(0)
        else:
            self.tensor[:] = table.observation(player)

    def string_from(self, state: RulesState, player: int) -> str:
        table = state.table
        if table.game is None:
            return f"P{player + 1}: before the deal"
        chooser = table.chooser
        chosen = [table.pieces.names[p] for p in chooser.chosen] if chooser and player == table.to_act else []
        now = json.dumps(table.game.view(player, properties=True), sort_keys=True, default=str) + f" chosen={chosen}"
        if not self.perfect_recall:
            return now
        return "\n".join(table.game.log_lines(viewer=player)) + "\n" + now


class RulesGame(pyspiel.Game):
    """One registered rules file, player count and options."""

    def __init__(self, game_type: pyspiel.GameType, info: pyspiel.GameInfo, name: str,
                 params: Mapping[str, Any] | None):
        params = dict(params or {})
        super().__init__(game_type, info, params)
        self.name = name
        self.seed = int(params.get("seed", 0))
        self._prototypes: dict[bool, _NamedTable] = {}

    def prototype(self, started: bool) -> _NamedTable:
        """The table every new state copies (a new game takes a while to set up): started from
        the seed, or waiting for the chance node to draw it."""
        if started not in self._prototypes:
            rules, players, options, codec, _, _ = _REGISTERED[self.name]
            table = _NamedTable(self.name, rules, players, options, codec=codec)
            if started:
                table.start(self.seed)
            self._prototypes[started] = table
        return self._prototypes[started]

    def new_initial_state(self) -> RulesState:
        return RulesState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> RulesObserver:
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        _, _, _, codec, _, _ = _REGISTERED[self.name]
        encoding, pieces = codec
        perfect = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return RulesObserver(encoding.size + pieces.depth * pieces.size, perfect)


def register(rules: Rules | str | os.PathLike[str], players: int, options: Mapping[str, Any] | None = None,
             name: str | None = None, seeds: int = 1, max_decisions: int | None = None,
             int_range: tuple[int, int] = INT_RANGE) -> str:
    """Register a rules file as a pyspiel game for `players` seats; returns its short name
    (`ruleforge_<file>_<n>p` unless `name` is given), for `pyspiel.load_game(name, {"seed": s})`.

    `seeds`: 1 samples all chance from the game parameter `seed`; K > 1 draws the seed at an
    explicit first chance node among K. `max_decisions` ends a game after that many actions of
    the rules, as a draw (returns 0), for games too long to explore."""
    import ruleforge

    path = None if isinstance(rules, Rules) else Path(rules)
    loaded = rules if isinstance(rules, Rules) else ruleforge.load(rules)
    if name is None:
        stem = path.stem if path is not None else "".join(c if c.isalnum() else "_" for c in loaded.title.lower())
        name = f"ruleforge_{stem}_{players}p"
    opts = dict(options) if options else None
    codec = make_codec(loaded, players, opts, int_range)
    _REGISTERED[name] = (loaded, players, opts, codec, max(1, seeds), max_decisions)
    encoding, pieces = codec
    longest = (max_decisions or LIMITS.decisions_per_game) * pieces.depth + (1 if seeds > 1 else 0)
    two = players == 2
    game_type = pyspiel.GameType(
        short_name=name,
        long_name=f"{loaded.title} ({players} players, ruleforge)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=(pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC if seeds > 1
                     else pyspiel.GameType.ChanceMode.DETERMINISTIC),
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM if two else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=players,
        min_num_players=players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"seed": 0},
    )
    info = pyspiel.GameInfo(
        num_distinct_actions=pieces.size,
        max_chance_outcomes=max(1, seeds) if seeds > 1 else 0,
        num_players=players,
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=0.0 if two else None,
        max_game_length=longest,
    )
    def __init__(self: RulesGame, params: Mapping[str, Any] | None = None) -> None:
        RulesGame.__init__(self, game_type, info, name, params)

    # pyspiel keeps what it registers until the interpreter ends: a class, as its own games
    # register (a closure there aborts Python at exit)
    pyspiel.register_game(game_type, type(f"RulesGame_{name}", (RulesGame,), {"__init__": __init__}))
    return name
