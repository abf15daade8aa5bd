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
import contextlib
import itertools
import multiprocessing
import os
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs

from .. import chance, limits
from ..agents import RandomAgent, agent_names, agent_seed, make_agents
from ..compiler import Program
from ..diagnostics import GameError
from ..engine import Game
from ..flowplay import FlowGame, new_flow_game
from ..rules import Rules, load
from .records import Watch, game_record, names_of

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
    engine: str = "reference"  # "native" or "auto": random games counted in C, searches run in C, where they can


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


@attrs.frozen
class Setup:
    """What the games of a batch share in one process, worked out once rather than per game:
    the compiled program, each seat's agent name, whether every seat is a plain random agent."""

    program: Program
    agents: str  # as the batch gives them: `make_agents` reads them per game for other agents
    names: list[str]  # one checked name per seat
    all_random: bool
    limits: dict[str, int]  # the batch's limits, put in force while its games play
    triggers: list[str]  # the program's triggers by name, for the records
    searching: list[int] = attrs.Factory(list)  # the seats whose search runs in C (`searching_natively`)


def setup_for(batch: Batch) -> Setup:
    """The setup of a batch's games in this process (its rules loaded once per process)."""
    setup = setup_of(rules_for(batch.path, batch.sources), batch.players, batch.options, batch.agents,
                     batch.limits)
    if batch.engine == "reference":
        return setup
    return attrs.evolve(setup, searching=searching_natively(setup.program, setup.names))


def searching_natively(program: Program, names: list[str]) -> list[int]:
    """The seats of a search agent (`mcts:N`) whose search can run in C on these rules (the
    native engine builds, and no zone hidden from the seat opens in play): their games keep a
    native copy, on which those seats search (ruleforge/native/search.py)."""
    from ..native.engine import NativeRefused, native_engine
    from ..native.search import can_search

    seats = [seat for seat, name in enumerate(names) if name.split(":")[0] == "mcts"]
    if not seats:
        return []
    try:
        engine = native_engine(program)
    except NativeRefused:
        return []
    return [seat for seat in seats if can_search(program, engine, seat)]


def setup_of(rules: Rules, players: int, options: dict[str, Any], agents: str,
             limits_in_force: dict[str, int] | None = None) -> Setup:
    """The setup of games of loaded rules: `play_game(setup_of(...), seed)` plays one as a
    batch of `simulate` plays it."""
    names = agent_names(agents, players)
    program = rules.program(players, options, count_triggers=True)
    return Setup(program, agents, names, all(name == "random" for name in names), limits_in_force or {},
                 names_of(program).triggers)


def play_game(setup: Setup, seed: int) -> tuple[Game, Watch]:
    """One game to its end, watched; GameError if it fails or passes the decisions limit."""
    program = setup.program
    fired = program.namespace["FIRED"]  # this process's count of each trigger's firings
    if fired:
        fired[:] = [0] * len(fired)
    game = new_flow_game(program, seed)
    watch = Watch()
    limit = limits.LIMITS.decisions_per_game  # read per game: `--max-decisions` raises it
    if setup.all_random and RandomAgent.choose is _RANDOM_CHOICE:
        streams = [chance.seed_words(agent_seed(seed, seat)) for seat in range(program.players)]
        play_randomly(game, streams, watch, limit)  # each seat's as `RandomAgent(agent_seed(seed, seat))` seeds it
        watch.fired = list(fired)
        return game, watch
    seats = make_agents(setup.agents, program.players, seed)
    mirror = _native_copy(program, seed) if setup.searching else None
    while not game.is_over:
        if watch.decisions >= limit:
            raise _too_long(watch.decisions)
        legal = game._legal  # read only, and replaced (never changed) by apply: no copy needed
        before = fired[:] if fired else None
        mover = game.current_player
        action = seats[mover].choose(mirror if mover in setup.searching else game)  # type: ignore[index]
        if before is not None and before != fired:  # an agent's look-ahead fired them, not the game
            fired[:] = before
        watch.decide(game, legal, action)
        game.apply(action)
        if mirror is not None:
            mirror.apply(action)
    watch.fired = list(fired)
    return game, watch


def _native_copy(program: Program, seed: int) -> Game:
    """The same game on the native engine, which the seats that search in C search on; the game
    itself, on the reference engine, is the one watched and recorded."""
    from ..native.engine import native_engine
    from ..native.game import NativeGame

    return NativeGame(program, seed, native_engine(program))  # type: ignore[return-value]


_RANDOM_CHOICE = RandomAgent.choose  # what play_randomly draws as; a choose put in its place is honoured


def play_randomly(game: Game, streams: list[tuple], watch: Watch, limit: int) -> None:
    """`play_game`'s loop when every seat is a random agent: the same draws from the same
    generators (each seat's xoshiro256** words, `chance.below` over the legal actions, as
    `RandomAgent.choose` draws), and what `Watch.decide` counts, counted here in locals and in
    lists by action id. A random agent looks at nothing ahead, so no trigger fires outside the
    game and nothing hands the game to the block machine."""
    state = game._st if isinstance(game, FlowGame) else game.state
    below = chance.below
    actions = len(game.program.actions)
    taken, legal_in = [0] * actions, [0] * actions
    first = state.chooser if not state.over else None
    last, turns, branching_sum, branching_max = None, 0, 0, 0
    apply = game._apply_unchecked
    for decisions in range(limit):  # noqa: B007 - the count is read after the loop
        if state.over:
            break
        me = state.chooser
        if me != last:
            turns += 1
            last = me
        legal = game._legal
        count = len(legal)
        k, streams[me] = below(streams[me], count)
        action = legal[k]
        branching_sum += count
        if count > branching_max:
            branching_max = count
        aid = action[0]
        taken[aid] += 1
        options = state.options
        if count == 1 or len(options) == 1:  # one action legal, or all of one kind: the one taken
            legal_in[aid] += 1
        elif len(options) == 2:  # a decision lists one action's arguments after the other's
            low, high = legal[0][0], legal[-1][0]
            legal_in[low] += 1
            if high != low:
                legal_in[high] += 1
        else:
            for a in {a[0] for a in legal}:
                legal_in[a] += 1
        apply(action)
    else:
        decisions = limit
        if not state.over:
            raise _too_long(decisions)
    watch.first, watch.last, watch.decisions, watch.turns = first, last, decisions, turns
    watch.branching_sum, watch.branching_max = branching_sum, branching_max
    watch.taken = {aid: n for aid, n in enumerate(taken) if n}
    watch.legal = {aid: n for aid, n in enumerate(legal_in) if n}


def _too_long(decisions: int) -> GameError:
    from ..cli.common import too_many_decisions  # the message `play` gives too (cli imports the runner)

    return GameError(too_many_decisions(decisions))


def play_chunk(batch: Batch, games: list[tuple[int, int]]) -> list[Outcome]:
    """Play games given as (index from 1, seed): one outcome each, in the order given."""
    return play_seeds(setup_for(batch), games)


def play_seeds(setup: Setup, games: list[tuple[int, int]]) -> list[Outcome]:
    """`play_chunk` with the batch's setup made already (`--jobs 1` makes it once, then plays
    its games one at a time)."""
    out: list[Outcome] = []
    with _in_force(setup.limits):
        for index, seed in games:
            try:
                game, watch = play_game(setup, seed)
                out.append(("record", game_record(game, watch, index, seed, setup.names, setup.triggers)))
            except GameError as err:
                out.append(("failed", {"game": index, "seed": seed, "error": str(err)}))
    return out


def _in_force(wanted: dict[str, int]) -> contextlib.AbstractContextManager:
    """`limits.raised(**wanted)`, or nothing to do while they are in force already: `--jobs 1`
    plays a chunk of one game at a time, in the process that put them in force."""
    if all(getattr(limits.LIMITS, name, None) == value for name, value in wanted.items()):
        return contextlib.nullcontext()
    return limits.raised(**wanted)


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
        setup = setup_for(batch)
        for i in range(games):
            yield from play_seeds(setup, [(i + 1, first_seed + i)])
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
