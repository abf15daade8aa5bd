"""Benchmark: random playouts per second of Tic-Tac-Toe and Connect Four, through ruleforge's
public API and through hand-written engines, next to Ludii's published figures.

A playout is one complete random game from the start position: every move is chosen uniformly
among the legal ones until the game ends. Through ruleforge that is `rules.new_game` then
`acts = g.legal_actions(); g.apply(acts[rng.randrange(len(acts))])` until `g.is_over`; the
hand-written engines (bench/handwritten_tictactoe.py, bench/handwritten_connect_four.py) play
`play_random_game(rng)`. One thread; CPU time of this process; the runs interleaved, the best
counts. Ludii's figures are the ones it publishes from its own machine: shown for scale, never
measured here. See bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

# The shared helpers sit next to this file (also when run as `python -m bench.bench_small_games`).
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (  # noqa: E402
    CLOCKS,
    ROOT,
    BenchError,
    Runner,
    clock,
    env_info,
    interleave,
    load_module,
    positive,
    print_table,
    run_engine_api,
    set_clock,
    summarize,
)

import ruleforge  # noqa: E402

# name: (title, rules file, hand-written module, playouts per timed run by default)
GAMES: dict[str, tuple[str, str, str, int]] = {
    "tictactoe": ("Tic-Tac-Toe", "games/tictactoe.rules", "handwritten_tictactoe", 10000),
    "connect_four": ("Connect Four", "games/connect_four.rules", "handwritten_connect_four", 3000),
}

# Ludii's published single-thread random playouts per second (its own machine; not measured here).
LUDII_PUBLISHED = {"tictactoe": 131_855, "connect_four": 28_279}

PLAYOUT = "one complete random game from the start position (making the game included)"


def cpu_name() -> str:
    """The processor's model name from /proc/cpuinfo, or what the platform module knows."""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            if line.lower().startswith(("model name", "hardware", "cpu model")):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def run_handwritten(hw: ModuleType, games: int, seed: int) -> tuple[float, int]:
    """`games` random playouts of a hand-written engine; moves are not counted there."""
    rng = random.Random(seed)
    play = hw.play_random_game
    start = clock()
    for _ in range(games):
        play(rng)
    return clock() - start, 0


def measure(games: dict[str, int], repeat: int, seed: int) -> dict[str, Any]:
    """Both games, both engines, interleaved `repeat` times; the best run of each counts."""
    runners: dict[str, Runner] = {}
    for name, (_, path, module, _) in GAMES.items():
        rules = ruleforge.load(ROOT / path)
        rules.program(2)  # compile once, before any timing
        hw = load_module(ROOT / "bench" / f"{module}.py", module)
        n = games[name]
        runners[f"{name}/engine_api"] = lambda rules=rules, n=n: run_engine_api(rules, 2, n, seed)
        runners[f"{name}/handwritten"] = lambda hw=hw, n=n: run_handwritten(hw, n, seed)
    runs, decisions = interleave(runners, repeat)
    out: dict[str, Any] = {}
    for name in GAMES:
        n = games[name]
        entry = {kind: summarize(runs[f"{name}/{kind}"], n, decisions[f"{name}/{kind}"])
                 for kind in ("engine_api", "handwritten")}
        for figures in entry.values():
            figures["playouts_per_s"] = figures.pop("games_per_s")
        entry["ratio"] = entry["engine_api"]["playouts_per_s"] / entry["handwritten"]["playouts_per_s"]
        entry["ludii_published"] = LUDII_PUBLISHED[name]
        out[name] = entry
    return out


def rows(result: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(measure, value, note) rows of the table."""
    c = result["config"]
    out = []
    for name, (title, path, module, _) in GAMES.items():
        g = result["games"][name]
        api, hand = g["engine_api"], g["handwritten"]
        runs = f"{c['games'][name]} playouts a run, best of {c['repeat']}, {c['clock']} time"
        out += [
            (f"{title}: ruleforge, public API (playouts/s)", f"{api['playouts_per_s']:,.0f}",
             f"{runs}; {path}; {api['decisions_per_game']:.1f} moves a playout, "
             f"{api['us_per_decision']:.1f} us a move"),
            (f"{title}: hand-written (playouts/s)", f"{hand['playouts_per_s']:,.0f}", f"bench/{module}.py"),
            (f"{title}: ratio ruleforge / hand-written", f"{g['ratio']:.3f}x", "measured here, same process"),
            (f"{title}: Ludii (playouts/s)", f"{g['ludii_published']:,}",
             "Ludii's published figure, from its own machine: not measured here"),
        ]
    return out


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=positive, default=None,
                        help="playouts per timed run, for both games (default 10000 Tic-Tac-Toe, 3000 Connect Four)")
    parser.add_argument("--repeat", type=positive, default=5, help="interleaved runs; the best counts (default 5)")
    parser.add_argument("--seed", type=int, default=0,
                        help="playout i of a ruleforge run uses game seed seed+i; the moves come from "
                             "random.Random(seed) (default 0)")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu",
                        help="CPU time of this process (default; steadier on a busy machine) or wall time")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of a table")
    return parser.parse_args(argv)


def run(args: argparse.Namespace) -> dict[str, Any]:
    games = {name: args.games or default for name, (_, _, _, default) in GAMES.items()}
    return {
        "config": {"games": games, "repeat": args.repeat, "seed": args.seed, "clock": args.clock, "threads": 1,
                   "playout": PLAYOUT},
        "env": {**env_info(), "cpu": cpu_name()},
        "games": measure(games, args.repeat, args.seed),
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    set_clock(args.clock)
    try:
        result = run(args)
    except (ruleforge.RulesError, ruleforge.GameError, BenchError) as err:
        text = err.render() if isinstance(err, ruleforge.RulesError) else str(err)
        print(f"bench_small_games: {text}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    env = result["env"]
    print_table(f"Random playouts per second (Python {env['python']}, {env['machine']})", rows(result))
    print(f"A playout is {PLAYOUT}. Machine: {env['cpu']} ({env['platform']}); 1 thread.")
    print("Ludii's figures are those it publishes for its own machine, single thread; they were not measured here.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
