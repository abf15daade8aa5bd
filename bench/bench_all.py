"""Every game against its hand-written engine, in one run and one table.

    python bench/bench_all.py                 # every game and player count, best of 3
    python bench/bench_all.py --scale 0.2     # a quick look (fewer games per run)
    python bench/bench_all.py --json          # the same figures as one JSON document
    python bench/bench_all.py --compiled      # and the compiled build (ruleforge[compiled]; builds once)

Per game and player count, four measures of random playouts (every decision uniformly at
random among the legal actions, from a new game to its end), interleaved and best of
`--repeat`, in CPU time of this one process:

- hand-written: `bench/handwritten_<game>.py`'s `play_random_game`, the baseline;
- public API: `rules.new_game`, then `acts = game.legal_actions(); game.apply(acts[k])` to the
  end, the loop of the README (on the generator back end, where the rules compile there);
- simulate: what `ruleforge simulate` does per game with all its statistics (its runner's
  `play_chunk`: one random agent per seat, the decisions watched, the game's record made);
- block machine: the public API loop on a `Game` made directly (the back end that copies,
  saves and replays), for reference;
- API loop alone: the same loop over a game that does no work at all (it takes each seeded
  game's number of decisions and offers as many actions as the engine did on average). It is
  what the loop's own calls and random draws cost, so its ratio is the ceiling of the public
  API's ratio: no engine, however fast, can pass it;
- compiled (with `--compiled`): the public API loop on `rules.new_game(..., compiled=True)`,
  the generated code built as a C extension with Cython (docs/api.md); its modules are built
  before the clock starts (the first run, once per game and player count) and cached.

Each ratio is the engine's games/s over the hand-written engine's: higher is better, 1.0 is
parity, and the target (issue 20) is 1.0 for the public API and simulate, and 1.3 for the
compiled build (its own column: whether it is met is not the exit status). A game with no
hand-written engine (Naishi with Legends) is measured beside the others, without a ratio.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from _common import (  # noqa: E402
    BenchError,
    clock,
    env_info,
    interleave,
    load_module,
    positive,
    run_engine_api,
    set_clock,
    summarize,
)

import ruleforge  # noqa: E402
from ruleforge.balance.runner import Batch, play_chunk  # noqa: E402
from ruleforge.engine import Game  # noqa: E402

TARGET = 1.0  # the public API and simulate against the hand-written engine
COMPILED_TARGET = 1.3  # the compiled build against the hand-written engine


def _hand(module: str, call: Callable[[Any, int, random.Random], Any]) -> Callable[[int], Callable]:
    """A hand-written engine's random game, as `play(rng)` for a player count."""
    def for_players(players: int) -> Callable[[random.Random], Any]:
        hw = load_module(ROOT / "bench" / f"{module}.py", module)
        return lambda rng: call(hw, players, rng)
    return for_players


# name, rules file, player counts, the hand-written engine (None: measured beside), games per run
CASES: list[tuple[str, str, tuple[int, ...], Callable | None, int]] = [
    ("Hagakure", "hagakure", (3, 4, 5), _hand("handwritten_hagakure", lambda hw, n, rng: hw.play_random_game(n, rng)),
     200),
    ("Naishi", "naishi", (2,), _hand("handwritten_naishi", lambda hw, n, rng: hw.play_random_game(rng, "engine")),
     300),
    ("Naishi with Legends", "naishi_legends", (2,), None, 200),
    ("Nakasendo", "nakasendo", (2, 3, 4),
     _hand("handwritten_nakasendo", lambda hw, n, rng: hw.play_random_game(n, rng)), 30),
    ("Tic-Tac-Toe", "tictactoe", (2,), _hand("handwritten_tictactoe", lambda hw, n, rng: hw.play_random_game(rng)),
     3000),
    ("Connect Four", "connect_four", (2,), _hand("handwritten_connect_four",
                                                 lambda hw, n, rng: hw.play_random_game(rng)), 1000),
]


def run_hand(play: Callable[[random.Random], Any], games: int, seed: int) -> tuple[float, int]:
    rng = random.Random(seed)
    start = clock()
    for _ in range(games):
        play(rng)
    return clock() - start, 0


def run_simulate(path: str, players: int, games: int, seed: int) -> tuple[float, int]:
    batch = Batch(path, players, {}, ",".join(["random"] * players))
    seeds = [(i + 1, seed + i) for i in range(games)]
    start = clock()
    outcomes = play_chunk(batch, seeds)
    took = clock() - start
    if any(kind != "record" for kind, _ in outcomes):
        raise BenchError(f"{path}: a simulated game failed")
    return took, 0


class IdleGame:
    """A game that does no work: `decisions` decisions of `acts` each, through the public API's
    calls. Timing the README's loop over it measures the loop alone."""

    __slots__ = ("left", "acts")

    def __init__(self, decisions: int, acts: list) -> None:
        self.left = decisions
        self.acts = acts

    @property
    def is_over(self) -> bool:
        return self.left == 0

    def legal_actions(self) -> list:
        return self.acts

    def apply(self, action: Any) -> None:
        self.left -= 1


def idle_games(rules: ruleforge.Rules, players: int, games: int, seed: int) -> Callable[[int], IdleGame]:
    """`new_game(seed)` for the loop alone: each seeded game's decisions, counted in an untimed
    random game on the engine, with as many actions as the engine offered on average."""
    rng = random.Random(seed)
    per_game, offered = {}, 0
    for i in range(games):
        g = rules.new_game(players, seed=seed + i)
        decisions = 0
        while not g.is_over:
            acts = g.legal_actions()
            offered += len(acts)
            g.apply(acts[rng.randrange(len(acts))])
            decisions += 1
        per_game[seed + i] = decisions
    acts = [(0, (k,)) for k in range(max(1, round(offered / max(1, sum(per_game.values())))))]
    return lambda s: IdleGame(per_game[s], acts)


def compiled_ready(rules: ruleforge.Rules, players: int, seed: int) -> float | None:
    """Build (or import) the compiled build before the clock starts: the seconds it took (wall
    time; a module already built is only imported), or None, said, when it cannot be built."""
    from ruleforge.compiled import CompiledBuildWarning

    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CompiledBuildWarning)
        rules.new_game(players, seed, compiled=True)
    took = time.perf_counter() - start
    for warning in caught:
        print(f"bench_all: {warning.message}", file=sys.stderr)
    return took if rules.program(players, compiled=True).native is not None else None


def measure(case: tuple, players: int, scale: float, repeat: int, seed: int,
            compiled: bool = False) -> dict[str, Any]:
    name, stem, _counts, hand, games = case
    games = max(1, round(games * scale))
    path = str(ROOT / "games" / f"{stem}.rules")
    rules = ruleforge.load(path)
    rules.new_game(players, seed)  # compile both back ends before the clock starts
    program = rules.program(players)
    run_simulate(path, players, 1, seed)
    idle = idle_games(rules, players, games, seed)
    runners: dict[str, Callable[[], tuple[float, int]]] = {
        "public_api": lambda: run_engine_api(rules, players, games, seed),
        "simulate": lambda: run_simulate(path, players, games, seed),
        "block_machine": lambda: run_engine_api(rules, players, games, seed, lambda s: Game(program, s)),
        "api_loop_alone": lambda: run_engine_api(rules, players, games, seed, idle),
    }
    built = compiled_ready(rules, players, seed) if compiled else None
    if built is not None:
        runners["compiled"] = lambda: run_engine_api(rules, players, games, seed,
                                                     lambda s: rules.new_game(players, s, compiled=True))
    if hand is not None:
        play = hand(players)
        runners = {"hand_written": lambda: run_hand(play, games, seed), **runners}
    runs, decisions = interleave(runners, repeat)
    entry: dict[str, Any] = {"game": name, "players": players, "games_per_run": games}
    for measure_name, times in runs.items():
        entry[measure_name] = summarize(times, games, decisions.get(measure_name, 0))
    if hand is not None:
        base = entry["hand_written"]["games_per_s"]
        for measure_name in ("public_api", "simulate", "block_machine", "api_loop_alone", "compiled"):
            if measure_name in entry:
                entry[measure_name]["ratio"] = entry[measure_name]["games_per_s"] / base
    if "compiled" in entry:
        entry["compiled"]["over_public_api"] = entry["compiled"]["games_per_s"] / entry["public_api"]["games_per_s"]
        entry["compiled"]["build_or_import_s"] = built
    return entry


def table(results: list[dict[str, Any]]) -> list[str]:
    compiled = any("compiled" in r for r in results)
    head = ("game", "players", "hand-written", "public API", "simulate", "block machine", "API loop alone",
            f"target {TARGET:.1f}x")
    if compiled:
        head += ("compiled (x public API)", f"target {COMPILED_TARGET:.1f}x")
    rows = [head]
    def cell(r: dict[str, Any], measure_name: str) -> str:
        m = r[measure_name]
        ratio = f" ({m['ratio']:.2f}x)" if "ratio" in m else ""
        return f"{m['games_per_s']:,.0f}/s{ratio}"

    for r in results:
        hand = f"{r['hand_written']['games_per_s']:,.0f}/s" if "hand_written" in r else "none (measured beside)"
        if "hand_written" in r:
            met = min(r["public_api"]["ratio"], r["simulate"]["ratio"]) >= TARGET
            verdict = "met" if met else "BELOW TARGET"
        else:
            verdict = "-"
        row = (r["game"], str(r["players"]), hand, cell(r, "public_api"), cell(r, "simulate"),
               cell(r, "block_machine"), cell(r, "api_loop_alone"), verdict)
        if compiled:
            row += compiled_cells(r)
        rows.append(row)
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    return ["  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))) for row in rows]


def compiled_cells(r: dict[str, Any]) -> tuple[str, str]:
    """The compiled build's games/s, its ratio and its gain over the public API; its verdict."""
    m = r.get("compiled")
    if m is None:
        return "not built", "-"
    ratio = f" ({m['ratio']:.2f}x)" if "ratio" in m else ""
    verdict = "-" if "ratio" not in m else "met" if m["ratio"] >= COMPILED_TARGET else "below"
    return f"{m['games_per_s']:,.0f}/s{ratio} x{m['over_public_api']:.2f}", verdict


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="games per run, as a share of the defaults")
    parser.add_argument("--repeat", type=positive, default=3, help="timed runs per measure; the best counts")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", action="append", default=[], help="a game's file name (hagakure, ...): just these")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--compiled", action="store_true",
                        help="also measure the compiled build (needs ruleforge[compiled] and a C compiler)")
    args = parser.parse_args(argv)
    if not args.scale > 0:
        parser.error("--scale must be above 0")
    set_clock(args.clock)
    cases = [c for c in CASES if not args.only or c[1] in args.only]
    if not cases:
        parser.error(f"--only: no such game (choose from {', '.join(c[1] for c in CASES)})")
    results = []
    try:
        for case in cases:
            for players in case[2]:
                results.append(measure(case, players, args.scale, args.repeat, args.seed, args.compiled))
                if not args.json:
                    print(f"  measured {case[0]}, {players} players", file=sys.stderr, flush=True)
    except BenchError as err:
        print(f"bench_all: {err}", file=sys.stderr)
        return 2
    missed = any("hand_written" in r and min(r["public_api"]["ratio"], r["simulate"]["ratio"]) < TARGET
                 for r in results)
    if args.json:
        print(json.dumps({"config": {"scale": args.scale, "repeat": args.repeat, "seed": args.seed,
                                     "clock": args.clock, "threads": 1, **env_info()},
                          "target": TARGET, "compiled_target": COMPILED_TARGET, "results": results}, indent=2))
    else:
        print(f"Random playouts, games/s ({args.clock} time, 1 thread, best of {args.repeat}; "
              f"ratio = engine / hand-written)")
        print("\n".join(table(results)))
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    sys.exit(main())
