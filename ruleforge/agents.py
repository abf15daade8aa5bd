"""Players that choose actions: seeded random, one-step greedy, and a human at a prompt.

Agents see a game only through the public Game API. Each automatic agent owns its own
generator, so a game's outcome depends only on the game seed and the agent seeds: the random
agent draws with the game's generator (`chance.Stream`, xoshiro256**), so that any engine that
plays ruleforge's rules makes the very same random choices; the greedy and search agents draw
their look-ahead from a `random.Random`.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import random
import re
import sys
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any, Protocol

from . import chance
from .diagnostics import GameError
from .engine import Action, Game
from .human import AgentAbort, HumanAgent
from .inert import inert
from .limits import LIMITS, describe, number_within
from .screen import render_view
from .standing import Key, Standing, lead

__all__ = ["AGENT_NAMES", "Agent", "AgentAbort", "DesignerAgent", "GreedyAgent", "HumanAgent", "RandomAgent",
           "UntrustedAgent", "agent_name", "agent_names", "agent_seed", "make_agent", "make_agents",
           "recorded_agent", "render_view", "shown"]


class Agent(Protocol):
    """Anything that picks one of the legal actions of the player to act. A designer's agent
    class is made as `Class(seed=n)` and must be fair: it may read what `game.view(player)`
    shows and the legal actions, not the hidden zones (see docs/api.md#agents)."""

    def choose(self, game: Game) -> Action: ...


def agent_seed(seed: int, seat: int) -> int:
    """A seat's agent seed, derived from the game seed so that seats never share a stream."""
    data = hashlib.sha256(f"ruleforge-agent:{seed}:{seat}".encode()).digest()
    return int.from_bytes(data[:8], "big")


class RandomAgent:
    """Uniform over the legal actions: the cheap baseline for simulations. It takes action
    `below(len(actions))` of its own xoshiro256** stream seeded with `seed` (`chance.Stream`),
    as a native engine's random playout does; with `generator` the legacy one (to replay a game
    made with it) it takes `random.Random(seed).randrange(len(actions))`, as it did then."""

    name = "random"

    def __init__(self, seed: int = 0, generator: str = chance.GENERATOR):
        self.rng = chance.Stream(seed) if generator == chance.XOSHIRO else _LegacyStream(seed)

    def choose(self, game: Game) -> Action:
        # the engine's own list, read only: `legal_actions()` copies it and makes an `Action` of
        # every plain pair, which a playout that takes one of them need not pay for
        actions = game._legal
        return actions[self.rng.below(len(actions))]


class _LegacyStream(random.Random):
    """LEGACY: the random agent's choices before xoshiro256** (`randrange` of a Mersenne
    Twister), kept to replay the games made with the legacy generator (see chance.py)."""

    def below(self, n: int) -> int:
        return self.randrange(n)


class GreedyAgent:
    """Takes the action that most raises its standing (`ruleforge.standing`): its ranking key,
    compared as the rules rank players (a ranking of "fewest points" wants fewer), with what the
    final scorings would give it if the game ended now, worked out on a determinized copy
    (`Game.determinize`), so it never reads what its player may not see. When every action ties,
    as every card of a trick does in a game that scores at a round's end, a few random playouts
    from each (24 in all, of at most 12 of them), up to the next change of a ranking key or 8
    decisions a player, tell them apart by its lead over the best other player. Still tied: its
    own rng picks, so it is cheap, seeded and never stuck."""

    name = "greedy"
    playouts = 24  # split among the tied actions looked at, at least 2 each
    widest = 12   # tied actions looked at, at most (a sample of them when there are more)

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)
        self._standing: Standing | None = None

    def standing(self, game: Game) -> Standing:
        """The judge of this game's positions, made once per program."""
        if self._standing is None or self._standing.program is not game.program:
            self._standing = Standing(game)
        return self._standing

    def choose(self, game: Game) -> Action:
        actions = game.legal_actions()
        if len(actions) == 1:
            return actions[0]
        me = game.current_player
        assert me is not None, "choose() called on a finished game"
        judge = self.standing(game)
        base = game.determinize(me, self.rng)
        best: list[Action] = []
        best_value: Key | None = None
        for action in actions:
            trial = base.clone()
            if action in trial._legal:
                trial._apply_unchecked(action)
            value = judge.of(trial, me)
            if best_value is None or value > best_value:
                best, best_value = [action], value
            elif value == best_value:
                best.append(action)
        if len(best) == len(actions):  # its standing tells no action apart: look further
            rng = self.rng
            sample = best if len(best) <= self.widest else rng.sample(best, self.widest)
            best = self._playouts(game, me, sample, judge)
        return best[self.rng.randrange(len(best))]

    def _playouts(self, game: Game, me: int, tied: list[Action], judge: Standing) -> list[Action]:
        """The tied actions whose random playouts end best on average by the player's lead
        (`lead`), each playout on a fresh determinization and up to the next change of any
        player's ranking key (or 8 decisions a player)."""
        rng = self.rng
        horizon = 8 * game.players
        each = max(2, self.playouts // len(tied))
        sums: list[float] = []
        for action in tied:
            total = 0.0
            for _ in range(each):
                trial = game.determinize(me, rng)
                if action in trial._legal:
                    trial._apply_unchecked(action)
                start = trial.ranking_keys()
                for _ in range(horizon):
                    if trial.state.over or trial.ranking_keys() != start:
                        break
                    legal = trial._legal
                    trial._apply_unchecked(legal[rng.randrange(len(legal))])
                marks = judge.all(trial)
                total += lead(marks[me], marks[:me] + marks[me + 1:])
            sums.append(total)
        top = max(sums)
        return [a for a, m in zip(tied, sums) if m == top]


AGENT_NAMES = ("random", "greedy", "human", "mcts")
DEFAULT_BUDGET = 200  # `mcts` alone: iterations per decision


def agent_name(name: str) -> str:
    """One agent name as the rest of ruleforge keeps it, checked: a built-in name in lower case,
    `mcts:N` with its budget, or a designer's `module:Class` / `path/to/file.py:Class` as typed
    (its class is imported now, so that a bad one fails before any game starts). For names the
    user typed (`--agents`); a name read from a file goes through `recorded_agent` first."""
    name = name.strip()
    low = name.lower()
    if low in AGENT_NAMES:
        return low
    head, sep, tail = low.partition(":")
    if head == "mcts" and sep:
        return f"mcts:{_budget(name, tail.strip())}"
    if ":" in name:
        designer_class(name)
        return name
    raise GameError(f"unknown agent '{shown(name) or '(empty)'}' (agents: random, greedy, human, mcts:N, "
                    "or module:Class for your own)")


def _budget(name: str, digits: str) -> int:
    """The N of `mcts:N`, at least 1 and at most the `search_iterations` limit (a search that
    would never end is refused, however many digits it is written with)."""
    if not re.fullmatch(r"[0-9]+", digits) or not digits.strip("0"):
        raise GameError(f"agent '{shown(name)}': the budget after 'mcts:' must be a whole number of iterations "
                        "of at least 1 (mcts:500)")
    most = LIMITS.search_iterations
    budget = number_within(digits, most)
    if budget is None:
        raise GameError(f"agent '{shown(name)}': a search of more than {most:,} iterations a decision "
                        f"({describe('search_iterations')})")
    return budget


def shown(text: str, most: int = 40) -> str:
    """A name read from a file as a message may show it: at most `most` characters, a control
    character written as its escape (so that it cannot act on the terminal)."""
    return inert(text if len(text) <= most else text[:most - 3] + "...")


class UntrustedAgent(GameError):
    """A file (a log, a recorded playthrough) names an agent of code: only `--agents` may."""


def recorded_agent(name: str, trusted: Collection[str] = ()) -> str:
    """An agent name read from a file, which a stranger may have written: a built-in agent,
    `mcts:N` within the `search_iterations` limit, or a designer's agent only when `trusted`
    (the names given with `--agents`) holds it; so no file can make ruleforge import code.
    UntrustedAgent for a designer's agent not trusted, GameError for any other bad name."""
    name = name.strip()
    head, sep, _ = name.partition(":")
    if sep and head.lower() != "mcts" and name not in trusted:
        raise UntrustedAgent(f"agent '{shown(name, 200)}' is code of your own, which ruleforge imports only "
                             "when --agents names it")
    return agent_name(name)


_CLASSES: dict[str, type] = {}


def designer_class(name: str) -> type:
    """The class of a designer's agent `module:Class` or `path/to/file.py:Class`, imported once
    per process; a module that will not import, a missing class or one without `choose` is a
    GameError of one line."""
    if name in _CLASSES:
        return _CLASSES[name]
    where, _, cls_name = name.rpartition(":")
    if not where or not cls_name.isidentifier():
        raise GameError(f"agent '{name}': give it as module:Class or path/to/file.py:Class")
    try:
        if where.endswith(".py"):
            path = Path(where)
            if not path.is_file():
                raise GameError(f"agent '{name}': no file '{where}'")
            spec = importlib.util.spec_from_file_location(f"ruleforge_agent_{len(_CLASSES)}_{path.stem}", path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module  # as an import does: dataclasses and pickling look it up
            spec.loader.exec_module(module)
        else:
            module = importlib.import_module(where)
    except GameError:
        raise
    except Exception as err:  # anything the designer's module raises while it is imported
        raise GameError(f"agent '{name}': cannot import '{where}': {type(err).__name__}: {err}") from None
    cls = getattr(module, cls_name, None)
    if cls is None:
        raise GameError(f"agent '{name}': '{where}' has no '{cls_name}'")
    if not isinstance(cls, type) or not callable(getattr(cls, "choose", None)):
        raise GameError(f"agent '{name}': '{cls_name}' is not a class with a choose(game) method")
    _CLASSES[name] = cls
    return cls


def agent_names(spec: str, players: int) -> list[str]:
    """One agent name per seat from 'human,random': a shorter list fills the remaining seats
    with its last name (so one name is every seat's); more names than seats is an error."""
    names = [agent_name(n) for n in spec.split(",")]
    if len(names) > players:
        raise GameError(f"{len(names)} agents given for {players} players: give at most one name per seat")
    return names + [names[-1]] * (players - len(names))


class DesignerAgent:
    """A designer's agent at a seat: a failure inside it, or an answer that is not a legal
    action, is a GameError naming the agent, not a traceback."""

    def __init__(self, name: str, inner: Any):
        self.name = name
        self.inner = inner

    def choose(self, game: Game) -> Action:
        try:
            action = self.inner.choose(game)
        except GameError:
            raise
        except Exception as err:
            raise GameError(f"agent '{self.name}' failed: {type(err).__name__}: {err}") from None
        if action not in game._legal:
            raise GameError(f"agent '{self.name}' chose {action!r}, which is not a legal action")
        return action


def make_agent(name: str, seed: int, input_fn: Callable[[str], str] = input,
               output_fn: Callable[[str], Any] = print, generator: str = chance.GENERATOR) -> Agent:
    """The agent of one checked name (see `agent_name`), seeded with `seed`; a random agent
    draws with `generator` (the game's: the legacy one replays a game made with it)."""
    if name == "human":
        return HumanAgent(input_fn, output_fn)
    if name == "greedy":
        return GreedyAgent(seed)
    if name == "random":
        return RandomAgent(seed, generator)
    if name == "mcts" or name.startswith("mcts:"):
        from .search import MCTSAgent

        return MCTSAgent(seed, _budget(name, name.partition(":")[2]) if ":" in name else DEFAULT_BUDGET)
    try:
        inner = designer_class(name)(seed=seed)
    except GameError:
        raise
    except Exception as err:
        raise GameError(f"agent '{name}' cannot be made: {type(err).__name__}: {err}") from None
    return DesignerAgent(name, inner)


def make_agents(spec: str, players: int, seed: int, input_fn: Callable[[str], str] = input,
                output_fn: Callable[[str], Any] = print, generator: str = chance.GENERATOR) -> list[Agent]:
    """Agents from 'human,random,greedy' (see `agent_names`); automatic ones seeded per seat,
    random ones drawing with `generator` (the game's)."""
    return [make_agent(name, agent_seed(seed, seat), input_fn, output_fn, generator)
            for seat, name in enumerate(agent_names(spec, players))]
