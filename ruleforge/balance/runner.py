"""Playing a batch of games for the statistics, in this process or in N worker processes.

The unit of work is `play_chunk(batch, games)`: a picklable `Batch` and a list of (index, seed)
pairs in, one outcome per game out. A backend only maps it over chunks and hands the outcomes
back in seed order, so every backend gives the same records for the same seeds and agents:
here, one process or a multiprocessing pool; a Ray backend would be `ray.remote(play_chunk)`
mapped over the same chunks.
"""

from __future__ import annotations

import multiprocessing
import signal
from collections.abc import Iterator
from typing import Any

import attrs

from .. import limits
from ..agents import agent_names, make_agents
from ..diagnostics import GameError
from ..engine import Game
from ..rules import Rules, load
from .records import Watch, game_record, trigger_names

Outcome = tuple[str, dict[str, Any]]  # ("record", GameRecord) or ("failed", {"game", "seed", "error"})

_RULES: dict[str, Rules] = {}  # rules loaded in this process, by path: a worker loads each once


@attrs.frozen
class Batch:
    """What every game of a batch shares. Plain data, so that it pickles to a worker process:
    rules are loaded again there from the path (compiled rules hold generated functions)."""

    path: str
    players: int
    options: dict[str, Any]
    agents: str  # one name per seat, comma-separated
    limits: dict[str, int] = attrs.Factory(dict)  # limits to put in force (decisions_per_game, ...)


def remember(path: str, rules: Rules) -> None:
    """Use `rules`, already loaded, for `path` in this process (and in forked workers)."""
    _RULES[path] = rules


def rules_for(path: str) -> Rules:
    if path not in _RULES:
        _RULES[path] = load(path)
    return _RULES[path]


def play_game(rules: Rules, players: int, seed: int, options: dict[str, Any], agents: str) -> tuple[Game, Watch]:
    """One game to its end, watched; GameError if it fails or passes the decisions limit."""
    from ..cli.common import too_many_decisions

    program = rules.program(players, options, count_triggers=True)
    fired = program.namespace["FIRED"]  # this process's count of each trigger's firings
    fired[:] = [0] * len(fired)
    game = Game(program, seed)
    seats = make_agents(agents, players, seed)
    watch = Watch()
    limit = limits.LIMITS.decisions_per_game  # read per game: `--max-decisions` raises it
    while not game.is_over:
        if watch.decisions >= limit:
            raise GameError(too_many_decisions(watch.decisions))
        legal = game.legal_actions()
        before = fired[:] if fired else None
        action = seats[game.current_player].choose(game)  # type: ignore[index]
        if before is not None and before != fired:  # an agent's look-ahead fired them, not the game
            fired[:] = before
        watch.decide(game, legal, action)
        game.apply(action)
    watch.fired = list(fired)
    return game, watch


def play_chunk(batch: Batch, games: list[tuple[int, int]]) -> list[Outcome]:
    """Play games given as (index from 1, seed): one outcome each, in the order given."""
    rules = rules_for(batch.path)
    names = agent_names(batch.agents, batch.players)
    triggers = trigger_names(rules.model)
    out: list[Outcome] = []
    with limits.raised(**batch.limits):
        for index, seed in games:
            try:
                game, watch = play_game(rules, batch.players, seed, batch.options, batch.agents)
                out.append(("record", game_record(game, watch, index, seed, names, triggers)))
            except GameError as err:
                out.append(("failed", {"game": index, "seed": seed, "error": str(err)}))
    return out


def chunk_size(games: int, jobs: int) -> int:
    """Chunks small enough to share the work out evenly and show progress, large enough that
    sending them costs little."""
    return max(1, min(100, games // (jobs * 8)))


def outcomes(batch: Batch, first_seed: int, games: int, jobs: int = 1) -> Iterator[Outcome]:
    """Each game's outcome in seed order (game i has seed first_seed + i − 1), played in `jobs`
    processes. Close the iterator (or let Ctrl-C through) to stop the workers."""
    pairs = [(i + 1, first_seed + i) for i in range(games)]
    if jobs <= 1:
        for pair in pairs:
            yield from play_chunk(batch, [pair])
        return
    size = chunk_size(games, jobs)
    chunks = [pairs[i:i + size] for i in range(0, games, size)]
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    pool = context.Pool(jobs, initializer=_ignore_interrupts)
    try:
        for results in pool.imap(_play_chunk_args, [(batch, chunk) for chunk in chunks]):
            yield from results
        pool.close()
    finally:
        pool.terminate()
        pool.join()


def _play_chunk_args(args: tuple[Batch, list[tuple[int, int]]]) -> list[Outcome]:
    return play_chunk(*args)


def _ignore_interrupts() -> None:
    """Workers leave Ctrl-C to the parent, which stops them and summarises what was finished."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
