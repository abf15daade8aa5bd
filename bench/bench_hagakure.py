"""Benchmark: Hagakure through ruleforge against a hand-written plain-Python Hagakure.

Measures random full games per second through the engine (public API path and the
internal fast path), the same for bench/handwritten_hagakure.py in the same process,
their ratio, the wall time of `ruleforge check`, in-process load/check/compile times,
and the cost of one clone / apply / legal_actions on a mid-game state.
See bench/README.md for what each figure means and the targets.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import importlib.util
import io
import json
import os
import platform
import pstats
import random
import shutil
import subprocess
import sys
import tempfile
import time
import timeit
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RULES_PATH = ROOT / "games" / "hagakure.rules"
HANDWRITTEN_PATH = ROOT / "bench" / "handwritten_hagakure.py"

# Measure the checkout this file lives in, whatever the current directory.
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import ruleforge  # noqa: E402

RATIO_TARGET = 0.3  # engine / hand-written, public API path (parity is the goal)
CHECK_TARGET_S = 0.3  # wall time of `ruleforge check games/hagakure.rules`


CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}
_clock: list[Callable[[], float]] = [time.process_time]


def clock() -> float:
    """The in-process clock: CPU time of this process by default (see --clock)."""
    return _clock[0]()


class BenchError(Exception):
    """A problem with the benchmark's input or environment, reported without a traceback."""


# --- loading the two implementations -------------------------------------------------------


def load_handwritten(path: Path = HANDWRITTEN_PATH) -> ModuleType:
    """Import the hand-written baseline by path (it is not a package module)."""
    if not path.is_file():
        raise BenchError(f"the hand-written baseline is missing: {path}")
    spec = importlib.util.spec_from_file_location("handwritten_hagakure", path)
    if spec is None or spec.loader is None:
        raise BenchError(f"cannot import the hand-written baseline at {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up in sys.modules
    spec.loader.exec_module(module)
    return module


# --- whole random games -------------------------------------------------------------------


def run_engine_api(rules: ruleforge.Rules, players: int, games: int, seed: int) -> tuple[float, int]:
    """Random games through the public API; return (seconds, decisions taken)."""
    rng = random.Random(seed)
    decisions = 0
    start = clock()
    for i in range(games):
        g = rules.new_game(players, seed=seed + i)
        while not g.is_over:
            acts = g.legal_actions()
            g.apply(acts[rng.randrange(len(acts))])
            decisions += 1
    return clock() - start, decisions


def run_engine_fast(rules: ruleforge.Rules, players: int, games: int, seed: int) -> tuple[float, int]:
    """Random games through the internal fast path (no copy of the legal list, no validation)."""
    rng = random.Random(seed)
    decisions = 0
    start = clock()
    for i in range(games):
        g = rules.new_game(players, seed=seed + i)
        apply = g._apply_unchecked
        while not g.is_over:
            legal = g._legal
            apply(legal[rng.randrange(len(legal))])
            decisions += 1
    return clock() - start, decisions


def run_handwritten(hw: ModuleType, players: int, games: int, seed: int) -> tuple[float, int]:
    """Random games of the hand-written implementation; decisions are not counted there."""
    rng = random.Random(seed)
    play = hw.play_random_game
    start = clock()
    for _ in range(games):
        play(players, rng)
    return clock() - start, 0


def measure_games(rules: ruleforge.Rules, hw: ModuleType, players: int, games: int, seed: int,
                  repeat: int) -> dict[str, Any]:
    """Best of `repeat` interleaved runs (engine API, engine fast, hand-written, again...)."""
    runners: dict[str, Callable[[], tuple[float, int]]] = {
        "engine_api": lambda: run_engine_api(rules, players, games, seed),
        "engine_fast": lambda: run_engine_fast(rules, players, games, seed),
        "handwritten": lambda: run_handwritten(hw, players, games, seed),
    }
    runs: dict[str, list[float]] = {name: [] for name in runners}
    decisions: dict[str, int] = {}
    for _ in range(repeat):
        for name, runner in runners.items():
            seconds, n = runner()
            runs[name].append(seconds)
            decisions[name] = n
    out: dict[str, Any] = {}
    for name, times in runs.items():
        best = min(times)
        entry: dict[str, Any] = {"best_s": best, "games_per_s": games / best, "runs_s": times}
        if decisions[name]:
            entry["decisions"] = decisions[name]
            entry["decisions_per_game"] = decisions[name] / games
            entry["us_per_decision"] = best / decisions[name] * 1e6
        out[name] = entry
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


def _tail(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else "no output"


def subprocess_env(cache_dir: str) -> dict[str, str]:
    """The environment for timed subprocesses: as given, but with the bytecode cache on.

    A user's installed ruleforge runs from cached bytecode; an environment that sets
    PYTHONDONTWRITEBYTECODE would otherwise recompile every module on each start. The
    cache goes to a private directory, never into the checkout.
    """
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = cache_dir
    return env


def best_wall(cmd: list[str], env: dict[str, str], runs: int) -> tuple[float, list[float]]:
    """Best wall time of `runs` runs of `cmd` (after one untimed warm-up run)."""
    subprocess.run(cmd, capture_output=True, cwd=ROOT, env=env)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env)
        times.append(time.perf_counter() - start)
        if proc.returncode != 0:
            raise BenchError(f"{' '.join(cmd)} failed (exit {proc.returncode}): {_tail(proc.stderr or proc.stdout)}")
    return min(times), times


def measure_check_cli(path: str, runs: int = 5) -> dict[str, Any]:
    """Wall time of `ruleforge check <path>` as a subprocess, best of `runs`.

    Falls back to `python -c "import ruleforge; ruleforge.load(...)"` when the CLI is
    missing or fails, and says why. Also times a bare interpreter start and a bare
    `import ruleforge`, so the check time can be split into start, import and work.
    """
    with tempfile.TemporaryDirectory(prefix="ruleforge-bench-pyc-") as cache_dir:
        env = subprocess_env(cache_dir)
        note = None
        exe = shutil.which("ruleforge")
        cmd: list[str] | None = [exe, "check", path] if exe else None
        if cmd is None:
            note = "`ruleforge` is not on PATH"
        else:
            probe = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env)
            if probe.returncode != 0:
                note = f"`ruleforge check` failed (exit {probe.returncode}): {_tail(probe.stderr or probe.stdout)}"
                cmd = None
        if cmd is None:
            cmd = [sys.executable, "-c", f"import ruleforge; ruleforge.load({path!r})"]
        best, times = best_wall(cmd, env, runs)
        startup, _ = best_wall([sys.executable, "-c", "pass"], env, runs)
        imported, _ = best_wall([sys.executable, "-c", "import ruleforge"], env, runs)
    shown = " ".join([Path(cmd[0]).name, *cmd[1:]])
    return {"command": shown, "fallback": note is not None, "fallback_reason": note,
            "best_s": best, "runs_s": times, "python_start_s": startup, "import_ruleforge_s": imported}


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


def per_call_us(fn: Callable[[], Any], repeat: int = 5) -> float:
    """Best per-call time in microseconds (timeit: each repeat runs >= 0.2 s)."""
    timer = timeit.Timer(fn, timer=clock)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat=repeat, number=number)) / number * 1e6


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


# --- profile (optional) ---------------------------------------------------------------------


def profile_fast_path(rules: ruleforge.Rules, players: int, games: int, seed: int, top: int) -> str:
    """cProfile of the fast path over `games` games; the `top` functions by own time."""
    rules.program(players)  # compile outside the profile
    profiler = cProfile.Profile()
    profiler.enable()
    run_engine_fast(rules, players, games, seed)
    profiler.disable()
    buf = io.StringIO()
    pstats.Stats(profiler, stream=buf).sort_stats("tottime").print_stats(top)
    return buf.getvalue()


# --- output -------------------------------------------------------------------------------


def _verdict(ok: bool) -> str:
    return "meets target" if ok else "BELOW TARGET"


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
        ("hand-written (games/s)", f"{hand['games_per_s']:.1f}", "bench/handwritten_hagakure.py"),
        ("ratio engine/hand, public API", f"{g['ratio_api']:.3f}x",
         f"target >= {RATIO_TARGET}x: {_verdict(g['ratio_api'] >= RATIO_TARGET)} (parity is the goal)"),
        ("ratio engine/hand, fast path", f"{g['ratio_fast']:.3f}x", "for reference"),
        ("decisions per game (engine)", f"{api['decisions_per_game']:.1f}", "mean over the games run"),
        ("check (subprocess wall, s)", f"{ck['best_s']:.3f}",
         f"{ck['command']}; target < {CHECK_TARGET_S} s: {_verdict(ck['best_s'] < CHECK_TARGET_S)}"),
    ]
    if ck["fallback"]:
        out.append(("  check fallback used", "yes", ck["fallback_reason"]))
    out += [
        ("  of which: python start (s)", f"{ck['python_start_s']:.3f}", "python -c pass"),
        ("  of which: import ruleforge (s)", f"{ck['import_ruleforge_s'] - ck['python_start_s']:.3f}",
         "python -c 'import ruleforge', minus the bare start"),
    ]
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
    data = rows(result)
    env = result["env"]
    title = f"Hagakure benchmark (Python {env['python']}, {env['machine']})"
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        w0 = max(len(r[0]) for r in data)
        w1 = max(len(r[1]) for r in data)
        print(title)
        for measure, value, note in data:
            print(f"{measure:<{w0}}  {value:>{w1}}  {note}")
        return
    table = Table(title=title)
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_column("note")
    for measure, value, note in data:
        style = "bold red" if "BELOW TARGET" in note else None
        table.add_row(measure, value, note, style=style)
    console = Console() if sys.stdout.isatty() else Console(width=150)
    console.print(table)


# --- main -----------------------------------------------------------------------------------


def _whole(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"must be at least {least}, not {value}")
    return value


def positive(text: str) -> int:
    """argparse type: an integer >= 1."""
    return _whole(text, 1)


def non_negative(text: str) -> int:
    """argparse type: an integer >= 0."""
    return _whole(text, 0)


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
        "env": {"python": platform.python_version(), "implementation": platform.python_implementation(),
                "machine": platform.machine(), "platform": platform.platform(),
                "ruleforge": getattr(ruleforge, "__version__", "?")},
        "games": games,
        "check_cli": measure_check_cli(str(RULES_PATH.relative_to(ROOT))),
        "load": load,
        "ops": measure_ops(rules, args.players, args.seed),
        "targets": {"ratio_api_min": RATIO_TARGET, "check_max_s": CHECK_TARGET_S},
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    _clock[0] = CLOCKS[args.clock]
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
