"""Benchmark: Hagakure through ruleforge against a hand-written plain-Python Hagakure.

Measures random full games per second through the engine (public API path and the
internal fast path), the same for bench/handwritten_hagakure.py in the same process,
their ratio, the wall time of `ruleforge check`, in-process load/check/compile times,
and the cost of one clone / apply / legal_actions on a mid-game state.
See bench/README.md for what each figure means and the targets.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

# The shared helpers sit next to this file (also when run as `python -m bench.bench_hagakure`).
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (  # noqa: E402
    CLOCKS,
    ROOT,
    BenchError,
    check_rows,
    clock,
    env_info,
    interleave,
    load_module,
    measure_check_cli,
    non_negative,
    per_call_us,
    positive,
    profile_fast_path,
    run_engine_api,
    run_engine_fast,
    set_clock,
    summarize,
    verdict,
)
from _common import print_table as print_rows  # noqa: E402

import ruleforge  # noqa: E402

RULES_PATH = ROOT / "games" / "hagakure.rules"
HANDWRITTEN_PATH = ROOT / "bench" / "handwritten_hagakure.py"

RATIO_TARGET = 0.3  # engine / hand-written, public API path (parity is the goal)
CHECK_TARGET_S = 0.3  # wall time of `ruleforge check games/hagakure.rules`


# --- loading the two implementations -------------------------------------------------------


def load_handwritten(path: Path = HANDWRITTEN_PATH) -> ModuleType:
    """Import the hand-written baseline by path (it is not a package module)."""
    return load_module(path, "handwritten_hagakure")


# --- whole random games -------------------------------------------------------------------


def run_handwritten(hw: ModuleType, players: int, games: int, seed: int) -> tuple[float, int]:
    """Random games of the hand-written implementation; decisions are counted apart."""
    rng = random.Random(seed)
    play = hw.play_random_game
    start = clock()
    for _ in range(games):
        play(players, rng)
    return clock() - start, 0


def handwritten_decisions(hw: ModuleType, players: int, games: int, seed: int) -> int:
    """Decisions the timed hand-written games take, counted in an untimed replay.

    `play_random_game(players, rng)` is `play_game(players, rng).scores`: the same rng gives
    the same games.
    """
    rng = random.Random(seed)
    return sum(hw.play_game(players, rng).decisions for _ in range(games))


def measure_games(rules: ruleforge.Rules, hw: ModuleType, players: int, games: int, seed: int,
                  repeat: int) -> dict[str, Any]:
    """Best of `repeat` interleaved runs (engine API, engine fast, hand-written, again...)."""
    runners: dict[str, Callable[[], tuple[float, int]]] = {
        "engine_api": lambda: run_engine_api(rules, players, games, seed),
        "engine_fast": lambda: run_engine_fast(rules, players, games, seed),
        "handwritten": lambda: run_handwritten(hw, players, games, seed),
    }
    runs, decisions = interleave(runners, repeat)
    decisions["handwritten"] = handwritten_decisions(hw, players, games, seed)
    out: dict[str, Any] = {name: summarize(times, games, decisions[name]) for name, times in runs.items()}
    hand = out["handwritten"]["games_per_s"]
    out["ratio_api"] = out["engine_api"]["games_per_s"] / hand
    out["ratio_fast"] = out["engine_fast"]["games_per_s"] / hand
    return out


# --- load / check / compile ---------------------------------------------------------------


def measure_inprocess_load(path: Path, players: int, repeat: int = 5) -> dict[str, Any]:
    """Cold (first in this process) and warm (best of `repeat`) load+check and compile times.

    Must run before anything else loads rules: the cold figure includes making the parser
    (building its tables, or reading them from Lark's cache), which is done once per process.
    """
    start = clock()
    rules = ruleforge.load(path)
    mid = clock()
    rules.program(players)
    end = clock()
    cold = {"load_check_s": mid - start, "compile_s": end - mid, "total_s": end - start}
    loads, compiles, parses = [], [], []
    from ruleforge.loader import load_source  # internal: parse only, to split load from check

    for _ in range(repeat):
        t0 = clock()
        load_source(path)
        t1 = clock()
        fresh = ruleforge.load(path)
        t2 = clock()
        fresh.program(players)
        t3 = clock()
        parses.append(t1 - t0)
        loads.append(t2 - t1)
        compiles.append(t3 - t2)
    warm = {"parse_s": min(parses), "load_check_s": min(loads), "compile_s": min(compiles),
            "total_s": min(loads) + min(compiles)}
    return {"cold": cold, "warm": warm}


# --- single operations on a mid-game state ---------------------------------------------------


def mid_game(rules: ruleforge.Rules, players: int, seed: int) -> ruleforge.Game:
    """Halfway through seed `seed`'s random game, at a card play that does not end the trick.

    A trick-ending play also scores the trick (and maybe the round); stopping short of it
    keeps `apply` to its common case: move one card, hand the turn on.
    """
    rng = random.Random(seed)
    g = rules.new_game(players, seed=seed)
    picks = []
    while not g.is_over:
        k = rng.randrange(len(g.legal_actions()))
        picks.append(k)
        g.apply(g.legal_actions()[k])
    g = rules.new_game(players, seed=seed)
    for k in picks[: len(picks) // 2]:
        g.apply(g.legal_actions()[k])
    prog = g.program
    play = prog.action_ids["play"]
    trick = prog.zone_base["trick"]
    while not g.is_over:
        acts = g.legal_actions()
        if acts[0][0] == play and len(g.state.z[trick]) < players - 1:
            return g
        g.apply(acts[0])
    raise BenchError("no mid-game card play found (did the rules change?)")


def per_apply_us(game: ruleforge.Game, action: Any, unchecked: bool, count: int = 2000, repeat: int = 7) -> float:
    """Best per-call time of applying `action` to `count` fresh clones of `game`, in microseconds.

    apply changes the state, so every call needs its own clone; the clones are made
    before the clock starts, so the figure is apply alone, not apply minus clone.
    """
    best = float("inf")
    gc_was_on = gc.isenabled()
    for _ in range(repeat):
        clones = [game.clone() for _ in range(count)]
        calls = [c._apply_unchecked if unchecked else c.apply for c in clones]
        gc.disable()  # as timeit does
        try:
            start = clock()
            for call in calls:
                call(action)
            best = min(best, clock() - start)
        finally:
            if gc_was_on:
                gc.enable()
    return best / count * 1e6


def measure_ops(rules: ruleforge.Rules, players: int, seed: int) -> dict[str, Any]:
    """clone, apply (public and unchecked) and legal actions on one mid-game state."""
    g = mid_game(rules, players, seed)
    action = g.legal_actions()[0]
    return {
        "state": f"seed {seed}, decision {len(g.action_history())}, {g.label(action)!r} by P{g.current_player + 1}",
        "clone_us": per_call_us(g.clone),
        "apply_us": per_apply_us(g, action, unchecked=False),
        "apply_unchecked_us": per_apply_us(g, tuple(action), unchecked=True),
        "legal_actions_us": per_call_us(g.legal_actions),
        "refresh_legal_us": per_call_us(g._refresh_legal),
        "log_entries": len(g.state.log),
    }


# --- output -------------------------------------------------------------------------------


def rows(result: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(measure, value, note) rows for the text and rich tables."""
    g = result["games"]
    c = result["config"]
    ld = result["load"]
    ck = result["check_cli"]
    ops = result["ops"]
    api, fast, hand = g["engine_api"], g["engine_fast"], g["handwritten"]
    n = f"{c['players']}p, {c['games']} games, best of {c['repeat']}, {c['clock']} time"
    out = [
        ("engine, public API (games/s)", f"{api['games_per_s']:.1f}",
         f"{n}; legal_actions() + apply(); {api['us_per_decision']:.1f} us/decision"),
        ("engine, fast path (games/s)", f"{fast['games_per_s']:.1f}",
         f"g._legal + g._apply_unchecked(); {fast['us_per_decision']:.1f} us/decision"),
        ("hand-written (games/s)", f"{hand['games_per_s']:.1f}",
         f"bench/handwritten_hagakure.py; {hand['us_per_decision']:.1f} us/decision"),
        ("ratio engine/hand, public API", f"{g['ratio_api']:.3f}x",
         f"target >= {RATIO_TARGET}x: {verdict(g['ratio_api'] >= RATIO_TARGET)} (parity is the goal)"),
        ("ratio engine/hand, fast path", f"{g['ratio_fast']:.3f}x", "for reference"),
        ("decisions per game (engine)", f"{api['decisions_per_game']:.1f}", "mean over the games run"),
        ("decisions per game (hand-written)", f"{hand['decisions_per_game']:.1f}",
         "the same decisions as the rules: should match the engine's"),
    ]
    out += check_rows(ck, f"target < {CHECK_TARGET_S} s: {verdict(ck['best_s'] < CHECK_TARGET_S)}")
    out += [
        ("load+check, cold (ms)", f"{ld['cold']['load_check_s'] * 1e3:.1f}",
         "first ruleforge.load in the process: makes the parser (built, or read from its cache)"),
        ("compile, cold (ms)", f"{ld['cold']['compile_s'] * 1e3:.1f}", f"rules.program({c['players']}), first time"),
        ("parse, warm (ms)", f"{ld['warm']['parse_s'] * 1e3:.1f}", "loader.load_source, parser already built"),
        ("load+check, warm (ms)", f"{ld['warm']['load_check_s'] * 1e3:.1f}", "ruleforge.load, best of 5"),
        ("compile, warm (ms)", f"{ld['warm']['compile_s'] * 1e3:.1f}", "rules.program on a fresh Rules, best of 5"),
        ("clone() (us)", f"{ops['clone_us']:.2f}", f"mid-game: {ops['state']}"),
        ("apply() (us)", f"{ops['apply_us']:.2f}", "public, validated; runs the rules to the next decision"),
        ("_apply_unchecked() (us)", f"{ops['apply_unchecked_us']:.2f}", "fast path: no validation"),
        ("legal_actions() (us)", f"{ops['legal_actions_us']:.2f}", "public call: a copy of the cached legal list"),
        ("_refresh_legal() (us)", f"{ops['refresh_legal_us']:.2f}", "recomputes the legal actions from the state"),
    ]
    return out


def print_table(result: dict[str, Any]) -> None:
    """A rich table when rich is available, plain aligned text otherwise."""
    env = result["env"]
    print_rows(f"Hagakure benchmark (Python {env['python']}, {env['machine']})", rows(result))


# --- main -----------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=5, help="player count (default 5)")
    parser.add_argument("--games", type=positive, default=500, help="games per timed run (default 500)")
    parser.add_argument("--repeat", type=positive, default=3, help="interleaved runs; the best counts (default 3)")
    parser.add_argument("--seed", type=int, default=0, help="first game seed; game i uses seed+i (default 0)")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu",
                        help="in-process timings in CPU time of this process (default; steadier on a "
                             "busy machine) or wall time; `check` is always wall time")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of a table")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--profile", type=non_negative, metavar="GAMES", default=0,
                        help="also cProfile the fast path over GAMES games and print the top functions")
    return parser.parse_args(argv)


def run(args: argparse.Namespace) -> dict[str, Any]:
    load = measure_inprocess_load(RULES_PATH, args.players)  # first: the cold figure needs a fresh process
    rules = ruleforge.load(RULES_PATH)
    rules.program(args.players)  # compile once, before any timing
    hw = load_handwritten()
    if args.players not in hw.SETUPS:
        raise BenchError(f"the hand-written baseline plays {min(hw.SETUPS)} to {max(hw.SETUPS)} players, "
                         f"not {args.players}")
    games = measure_games(rules, hw, args.players, args.games, args.seed, args.repeat)
    return {
        "config": {"players": args.players, "games": args.games, "repeat": args.repeat, "seed": args.seed,
                   "clock": args.clock,
                   "rules": str(RULES_PATH.relative_to(ROOT))},
        "env": env_info(),
        "games": games,
        "check_cli": measure_check_cli(str(RULES_PATH.relative_to(ROOT))),
        "load": load,
        "ops": measure_ops(rules, args.players, args.seed),
        "targets": {"ratio_api_min": RATIO_TARGET, "check_max_s": CHECK_TARGET_S},
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    set_clock(args.clock)
    try:
        result = run(args)
        profile = profile_fast_path(ruleforge.load(RULES_PATH), args.players, args.profile, args.seed, 30) \
            if args.profile else None
    except (ruleforge.RulesError, ruleforge.GameError, BenchError) as err:
        text = err.render() if isinstance(err, ruleforge.RulesError) else str(err)
        print(f"bench_hagakure: {text}", file=sys.stderr)
        return 2
    met = (result["games"]["ratio_api"] >= RATIO_TARGET and result["check_cli"]["best_s"] < CHECK_TARGET_S)
    result["targets"]["met"] = met
    if args.json:
        if profile:
            result["profile"] = profile
        print(json.dumps(result, indent=2))
    else:
        print_table(result)
        if profile:
            print(profile)
    return 1 if args.strict and not met else 0


if __name__ == "__main__":
    sys.exit(main())
