"""Playing a batch of games for the statistics, in this process or in N worker processes.

The unit of work is `play_chunk(batch, games)`: a picklable `Batch` and a list of (index, seed)
pairs in, one outcome per game out. A backend only maps it over chunks and hands the outcomes
back in seed order, so every backend gives the same records for the same seeds and agents:
one process, a multiprocessing pool (`--jobs N`), or a Ray cluster (`--ray [ADDRESS]`, the
same chunks mapped with `ray.remote(play_chunk)`; the rules' text travels with the batch, so
the machines of a cluster need no copy of the files).
"""

from __future__ import annotations

import collections
import itertools
import multiprocessing
import os
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs

from .. import limits
from ..agents import RandomAgent, agent_names, make_agents
from ..diagnostics import GameError
from ..engine import Game
from ..flowplay import FlowGame, new_flow_game
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
    sources: dict[str, str] = attrs.Factory(dict)  # absolute path -> text: the files, for other machines


def remember(path: str, rules: Rules) -> None:
    """Use `rules`, already loaded, for `path` in this process (and in forked workers)."""
    _RULES[path] = rules


def rules_for(path: str, sources: dict[str, str] | None = None) -> Rules:
    """The rules of `path`, loaded once per process; on a machine without the files, from the
    `sources` the batch carries, written under a folder of their own at the same absolute paths
    (so a variant's `extends` finds its base as it did where the batch was made)."""
    if path not in _RULES:
        if sources and not Path(path).is_file():
            root = Path(tempfile.mkdtemp(prefix="ruleforge-rules-"))
            for name, text in sources.items():
                copy = root / Path(name).relative_to(Path(name).anchor)
                copy.parent.mkdir(parents=True, exist_ok=True)
                copy.write_text(text, encoding="utf-8")
            _RULES[path] = load(root / Path(path).relative_to(Path(path).anchor))
        else:
            _RULES[path] = load(path)
    return _RULES[path]


def carried_sources(rules: Rules) -> tuple[str, dict[str, str]]:
    """The main file's absolute path and every file's text by absolute path: what a batch
    carries to machines that do not share this one's files."""
    files = rules.files
    texts = {str(Path(name).resolve()): text for name, text in rules.sources.items()}
    return str(files[0].resolve()), texts


def play_game(rules: Rules, players: int, seed: int, options: dict[str, Any], agents: str) -> tuple[Game, Watch]:
    """One game to its end, watched; GameError if it fails or passes the decisions limit."""
    from ..cli.common import too_many_decisions

    program = rules.program(players, options, count_triggers=True)
    fired = program.namespace["FIRED"]  # this process's count of each trigger's firings
    fired[:] = [0] * len(fired)
    game = new_flow_game(program, seed)
    seats = make_agents(agents, players, seed)
    watch = Watch()
    limit = limits.LIMITS.decisions_per_game  # read per game: `--max-decisions` raises it
    if all(type(seat) is RandomAgent for seat in seats) and RandomAgent.choose is _RANDOM_CHOICE:
        play_randomly(game, [seat.rng for seat in seats], watch, limit)  # type: ignore[attr-defined]
        watch.fired = list(fired)
        return game, watch
    while not game.is_over:
        if watch.decisions >= limit:
            raise GameError(too_many_decisions(watch.decisions))
        legal = game._legal  # read only, and replaced (never changed) by apply: no copy needed
        before = fired[:] if fired else None
        action = seats[game.current_player].choose(game)  # type: ignore[index]
        if before is not None and before != fired:  # an agent's look-ahead fired them, not the game
            fired[:] = before
        watch.decide(game, legal, action)
        game.apply(action)
    watch.fired = list(fired)
    return game, watch


_RANDOM_CHOICE = RandomAgent.choose  # what play_randomly draws as; a choose put in its place is honoured


def play_randomly(game: Game, rngs: list, watch: Watch, limit: int) -> None:
    """`play_game`'s loop when every seat is a random agent: the same draws from the same
    generators (each seat's `rng.randrange` over the legal actions, as `RandomAgent.choose`),
    and what `Watch.decide` counts, counted here in locals. A random agent looks at nothing
    ahead, so no trigger fires outside the game and nothing hands the game to the block machine."""
    from ..cli.common import too_many_decisions

    state = game._st if isinstance(game, FlowGame) else game.state
    draws = [rng.randrange for rng in rngs]
    taken, legal_in = watch.taken, watch.legal
    first = state.chooser if not state.over else None
    last, decisions, turns, branching_sum, branching_max = None, 0, 0, 0, 0
    apply = game._apply_unchecked
    while not state.over:
        if decisions >= limit:
            raise GameError(too_many_decisions(decisions))
        me = state.chooser
        if me != last:
            turns += 1
            last = me
        legal = game._legal
        count = len(legal)
        action = legal[draws[me](count)]
        decisions += 1
        branching_sum += count
        if count > branching_max:
            branching_max = count
        aid = action[0]
        taken[aid] = taken.get(aid, 0) + 1
        if count == 1:
            legal_in[aid] = legal_in.get(aid, 0) + 1
        else:  # a decision lists its actions' legal arguments one action after another, in order
            options = state.options
            if len(options) == 1:
                names = options
            elif len(options) == 2:
                low, high = legal[0][0], legal[-1][0]
                names = (low,) if low == high else (low, high)
            else:
                names = {a[0] for a in legal}
            for a in names:
                legal_in[a] = legal_in.get(a, 0) + 1
        apply(action)
    watch.first, watch.last, watch.decisions, watch.turns = first, last, decisions, turns
    watch.branching_sum, watch.branching_max = branching_sum, branching_max


def play_chunk(batch: Batch, games: list[tuple[int, int]]) -> list[Outcome]:
    """Play games given as (index from 1, seed): one outcome each, in the order given."""
    rules = rules_for(batch.path, batch.sources)
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


def cores() -> int:
    """The cores this process may run on (its affinity where the system tells it)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def chunk_size(games: int, jobs: int) -> int:
    """Chunks small enough to share the work out evenly and show progress, large enough that
    sending them costs little."""
    return max(1, min(100, games // (jobs * 8)))


def outcomes(batch: Batch, first_seed: int, games: int, jobs: int = 1, ray: str | None = None) -> Iterator[Outcome]:
    """Each game's outcome in seed order (game i has seed first_seed + i − 1), played in `jobs`
    processes, or on a Ray cluster (`ray`: its address; "" starts one on this machine). Close
    the iterator (or let Ctrl-C through) to stop the workers.

    The seeds are made as they are played, never listed whole: a batch of billions of games
    (stopped with Ctrl-C) takes no more memory than one of a hundred."""
    if ray is not None:
        if not batch.sources:  # the machines of a cluster get the files' text, not their paths
            main, texts = carried_sources(rules_for(batch.path))
            batch = attrs.evolve(batch, path=main, sources=texts)
        yield from _ray_outcomes(batch, first_seed, games, ray)
        return
    if jobs <= 1:
        for i in range(games):
            yield from play_chunk(batch, [(i + 1, first_seed + i)])
        return
    size = chunk_size(games, jobs)
    count = -(-games // size)
    chunks = _chunks(first_seed, games, size)
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    pool = context.Pool(min(jobs, count), initializer=_ignore_interrupts)  # no process without a chunk
    window = jobs * 16  # chunks handed to the pool at a time: its feeder would otherwise take them all
    try:
        while True:
            handed = [(batch, chunk) for chunk in itertools.islice(chunks, window)]
            if not handed:
                break
            for results in pool.imap(_play_chunk_args, handed):
                yield from results
        pool.close()
    finally:
        pool.terminate()
        pool.join()


def _chunks(first_seed: int, games: int, size: int) -> Iterator[list[tuple[int, int]]]:
    """The (index, seed) pairs of the batch in chunks of `size`, made as they are asked for."""
    return ([(i + 1, first_seed + i) for i in range(start, min(start + size, games))]
            for start in range(0, games, size))


def _play_chunk_args(args: tuple[Batch, list[tuple[int, int]]]) -> list[Outcome]:
    return play_chunk(*args)


def _ignore_interrupts() -> None:
    """Workers leave Ctrl-C to the parent, which stops them and summarises what was finished."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _ray_outcomes(batch: Batch, first_seed: int, games: int, address: str) -> Iterator[Outcome]:
    """The chunks played as Ray tasks, their outcomes read back in seed order. A few chunks per
    worker are in flight at a time, each next one sent as the oldest is read: neither the tasks
    nor their results pile up in the cluster's object store, however many games."""
    try:
        import ray
    except ImportError:
        raise GameError("--ray needs Ray: pip install 'ruleforge[ray]'") from None
    started = not ray.is_initialized()
    if started:
        _check_reachable(address)
        try:
            ray.init(address=address or None, include_dashboard=False, log_to_driver=False,
                     configure_logging=False)
        except (ConnectionError, RuntimeError, ValueError) as err:
            raise GameError(f"cannot reach the Ray cluster at '{address}': {err}") from None
    try:
        workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
        chunks = _chunks(first_seed, games, chunk_size(games, workers))
        play = ray.remote(play_chunk)
        shared = ray.put(batch)  # sent to the object store once, not with every chunk
        tasks = collections.deque(play.remote(shared, chunk) for chunk in itertools.islice(chunks, workers * 4))
        while tasks:
            results = ray.get(tasks.popleft())
            tasks.extend(play.remote(shared, chunk) for chunk in itertools.islice(chunks, 1))
            yield from results
    finally:
        if started:
            ray.shutdown()


def _check_reachable(address: str) -> None:
    """A cluster address that answers nothing fails at once: Ray itself would retry for minutes."""
    import socket

    where = address.removeprefix("ray://")
    host, _, port = where.rpartition(":")
    if not host or not port.isdigit():
        return  # "" (a local instance), "auto": Ray finds them itself
    try:
        with socket.create_connection((host, int(port)), timeout=3):
            pass
    except OSError as err:
        raise GameError(f"cannot reach the Ray cluster at '{address}': {err.strerror or err}") from None
