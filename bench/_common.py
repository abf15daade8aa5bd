"""Helpers shared by the benchmarks (bench_hagakure.py, bench_naishi.py).

The clock, the interleaved best-of runs of random games, the `ruleforge check` subprocess
timing, timeit per-call figures, the fast-path profile, the table printer and the
argparse number types. Nothing here knows a game: each bench passes its rules, its
hand-written baseline and its rows.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib.util
import io
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

# Measure the checkout this file lives in, whatever the current directory.
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import ruleforge  # noqa: E402

CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}
_clock: list[Callable[[], float]] = [time.process_time]

Runner = Callable[[], tuple[float, int]]


def set_clock(name: str) -> None:
    """Choose the in-process clock (`--clock`): 'cpu' (the default) or 'wall'."""
    _clock[0] = CLOCKS[name]


def clock() -> float:
    """The in-process clock: CPU time of this process by default (see --clock)."""
    return _clock[0]()


class BenchError(Exception):
    """A problem with the benchmark's input or environment, reported without a traceback."""


def load_module(path: Path, name: str) -> ModuleType:
    """Import a hand-written baseline by path (it is not a package module)."""
    if not path.is_file():
        raise BenchError(f"the hand-written baseline is missing: {path}")
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise BenchError(f"cannot import the hand-written baseline at {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up in sys.modules
    spec.loader.exec_module(module)
    return module


def env_info() -> dict[str, str]:
    """The interpreter and machine, recorded with every result."""
    return {"python": platform.python_version(), "implementation": platform.python_implementation(),
            "machine": platform.machine(), "platform": platform.platform(),
            "ruleforge": getattr(ruleforge, "__version__", "?")}


# --- whole random games -------------------------------------------------------------------


def run_engine_api(rules: ruleforge.Rules, players: int, games: int, seed: int,
                   new_game: Callable[[int], Any] | None = None) -> tuple[float, int]:
    """Random games through the public API; return (seconds, decisions taken). Each game is
    `rules.new_game`, or `new_game(seed)` when given (a game on another back end, say)."""
    rng = random.Random(seed)
    decisions = 0
    start = clock()
    for i in range(games):
        g = rules.new_game(players, seed=seed + i) if new_game is None else new_game(seed + i)
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


def summarize(times: list[float], games: int, decisions: int) -> dict[str, Any]:
    """One measure's entry: best time, games/s, every run, and per-decision figures if counted."""
    best = min(times)
    entry: dict[str, Any] = {"best_s": best, "games_per_s": games / best, "runs_s": times}
    if decisions:
        entry["decisions"] = decisions
        entry["decisions_per_game"] = decisions / games
        entry["us_per_decision"] = best / decisions * 1e6
    return entry


def interleave(runners: dict[str, Runner], repeat: int, optional: frozenset[str] = frozenset(),
               failed: dict[str, str] | None = None) -> tuple[dict[str, list[float]], dict[str, int]]:
    """Run every runner in turn, `repeat` times, so that noise hits them all alike.

    Returns each runner's times and its decision count (the same in every run: the same
    seeds are replayed). A runner named in `optional` that raises is dropped from the
    later rounds and left out of the result, its error put in `failed` (a game still
    being written must not stop the others from being measured).
    """
    runs: dict[str, list[float]] = {name: [] for name in runners}
    decisions: dict[str, int] = {}
    active = dict(runners)
    for _ in range(repeat):
        for name, runner in list(active.items()):
            try:
                seconds, n = runner()
            except Exception as err:
                if name not in optional:
                    raise
                if failed is not None:
                    failed[name] = first_line(err)
                del active[name], runs[name]
                continue
            runs[name].append(seconds)
            decisions[name] = n
    return runs, decisions


def first_line(err: BaseException) -> str:
    """A one-line account of an error (a RulesError renders its first diagnostic)."""
    text = err.render() if isinstance(err, ruleforge.RulesError) else str(err)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    head = lines[0] if lines else ""
    return head if isinstance(err, (ruleforge.RulesError, ruleforge.GameError)) else f"{type(err).__name__}: {head}"


# --- `ruleforge check` as a subprocess ------------------------------------------------------


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


def check_rows(ck: dict[str, Any], note: str) -> list[tuple[str, str, str]]:
    """The table rows of a `measure_check_cli` result; `note` follows the command."""
    out = [("check (subprocess wall, s)", f"{ck['best_s']:.3f}", f"{ck['command']}; {note}")]
    if ck["fallback"]:
        out.append(("  check fallback used", "yes", ck["fallback_reason"]))
    out += [
        ("  of which: python start (s)", f"{ck['python_start_s']:.3f}", "python -c pass"),
        ("  of which: import ruleforge (s)", f"{ck['import_ruleforge_s'] - ck['python_start_s']:.3f}",
         "python -c 'import ruleforge', minus the bare start"),
    ]
    return out


# --- single calls and the profile ------------------------------------------------------------


def per_call_us(fn: Callable[[], Any], repeat: int = 5) -> float:
    """Best per-call time in microseconds (timeit: each repeat runs >= 0.2 s)."""
    timer = timeit.Timer(fn, timer=clock)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat=repeat, number=number)) / number * 1e6


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


def verdict(ok: bool) -> str:
    return "meets target" if ok else "BELOW TARGET"


def print_table(title: str, data: list[tuple[str, str, str]]) -> None:
    """A rich table when rich is available, plain aligned text otherwise.

    Rows whose note says BELOW TARGET (or DISAGREE) are shown in bold red.
    """
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
        style = "bold red" if "BELOW TARGET" in note or "DISAGREE" in note else None
        table.add_row(measure, value, note, style=style)
    console = Console() if sys.stdout.isatty() else Console(width=150)
    console.print(table)


# --- argparse types -------------------------------------------------------------------------


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
