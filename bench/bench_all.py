"""Every game against its hand-written engine, in one run and one table.

    python bench/bench_all.py                 # every game and player count, best of 3
    python bench/bench_all.py --scale 0.2     # a quick look (fewer games per run)
    python bench/bench_all.py --json          # the same figures as one JSON document
    python bench/bench_all.py --native        # and the native engine (a C compiler; builds once)

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
- native simulate (with `--native`): what `simulate` counts, played whole in C by the native
  engine (ruleforge/native/: the compiled game lowered to C): `count_natively` into a new
  `Tally`, any seed it hands back played on the reference engine as `simulate` would. Its games
  are fast, so a run plays `native_factor` times the games of the other measures (50 for
  Tic-Tac-Toe and Connect Four, 20 for the others); its games/s stay comparable. Rules the native
  engine does not count yet are named in its cell ("not native: ...");
- native API (with `--native`): the public API loop on a `NativeGame` (one call into C per
  `legal_actions()` and `apply()`).
  Both native modules (the game's and the counting program's) are built, or found in the private
  cache, before the clock starts; `build_or_import_s` is the wall time that took.

Each ratio is the engine's games/s over the hand-written engine's: higher is better, 1.0 is
parity, and the target (issue 20) is 1.0 for the public API and simulate, and (issue 35) 5.0
for native simulate and 1.0 for the native API. Only the first two decide the exit status of
`--strict`; the others have a verdict column each. A game with no hand-written engine (Naishi
with Legends) is measured beside the others, without a ratio.

For Tic-Tac-Toe and Connect Four, `--native` also prints Ludii's published single-thread random
playouts per second (131,855 and 28,279, as quoted in issue 35; Ludii's machine, not measured
here) and native simulate's games/s as a multiple of them, against issue 35's target of 10x.
A playout here is a whole random game from a new game to its end, its statistics counted as
`simulate` counts them; one thread, on the machine the run names.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
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
from bench_small_games import LUDII_PUBLISHED, cpu_name  # noqa: E402

import ruleforge  # noqa: E402
from ruleforge.balance.runner import Batch, Setup, play_chunk, play_seeds, setup_of  # noqa: E402
from ruleforge.balance.stats import Tally  # noqa: E402
from ruleforge.engine import Game  # noqa: E402
from ruleforge.native.game import NativeGame  # noqa: E402

TARGET = 1.0  # the public API and simulate against the hand-written engine
NATIVE_SIMULATE_TARGET = 5.0  # native simulate against the hand-written engine (issue 35)
NATIVE_API_TARGET = 1.0  # the public API on the native engine against the hand-written engine (issue 35)
LUDII_TARGET = 10.0  # native simulate's games/s over Ludii's published playouts/s (issue 35)
LUDII_SOURCE = "as quoted in issue 35"
PLAYOUT = "a whole random game from a new game to its end, its statistics counted as simulate counts them"
NATIVE = ("native_simulate", "native_api")  # the measures of --native, in the table's order


def _hand(module: str, call: Callable[[Any, int, random.Random], Any]) -> Callable[[int], Callable]:
    """A hand-written engine's random game, as `play(rng)` for a player count."""
    def for_players(players: int) -> Callable[[random.Random], Any]:
        hw = load_module(ROOT / "bench" / f"{module}.py", module)
        return lambda rng: call(hw, players, rng)
    return for_players


# name, rules file, player counts, the hand-written engine (None: measured beside), games per run,
# and native simulate's games per run as a multiple of those (its games are many times as fast)
CASES: list[tuple[str, str, tuple[int, ...], Callable | None, int, int]] = [
    ("Hagakure", "hagakure", (3, 4, 5), _hand("handwritten_hagakure", lambda hw, n, rng: hw.play_random_game(n, rng)),
     200, 20),
    ("Naishi", "naishi", (2,), _hand("handwritten_naishi", lambda hw, n, rng: hw.play_random_game(rng, "engine")),
     300, 20),
    ("Naishi with Legends", "naishi_legends", (2,), None, 200, 20),
    ("Nakasendo", "nakasendo", (2, 3, 4),
     _hand("handwritten_nakasendo", lambda hw, n, rng: hw.play_random_game(n, rng)), 30, 20),
    ("Tic-Tac-Toe", "tictactoe", (2,), _hand("handwritten_tictactoe", lambda hw, n, rng: hw.play_random_game(rng)),
     3000, 50),
    ("Connect Four", "connect_four", (2,), _hand("handwritten_connect_four",
                                                 lambda hw, n, rng: hw.play_random_game(rng)), 1000, 50),
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


class NativeReady:
    """The native engine of one game and player count, made before the clock starts: the
    game's engine (for the native API) and the counting (for native simulate), or why not."""

    def __init__(self, rules: ruleforge.Rules, players: int) -> None:
        from ruleforge.native.engine import NativeRefused, native_engine
        from ruleforge.native.simulate import native_counting

        program = rules.program(players)
        self.setup: Setup = setup_of(rules, players, {}, ",".join(["random"] * players))
        self.refused: dict[str, str] = {}  # a native measure -> why these rules do not play natively
        self.engine = self.counting = None
        start = time.perf_counter()
        try:
            self.engine = native_engine(program)
        except NativeRefused as why:
            self.refused["native_api"] = str(why)
        try:
            self.counting = native_counting(self.setup.program)
        except NativeRefused as why:
            self.refused["native_simulate"] = str(why)
        self.build_or_import_s = time.perf_counter() - start  # wall time: lowering, C, the compiler or the cache


def run_native_simulate(ready: NativeReady, games: int, seed: int, left: list[int]) -> tuple[float, int]:
    """`games` random games counted natively into a new Tally, the seeds handed back played on the
    reference engine (as `simulate` does); their number goes in `left`."""
    from ruleforge.native.simulate import count_natively

    tally = Tally(ready.setup.program.players)
    start = clock()
    back = count_natively(ready.counting, tally, seed, games)
    for kind, record in play_seeds(ready.setup, [(s - seed + 1, s) for s in back]):
        if kind != "record":
            raise BenchError(f"a game handed back by the native engine failed: {record['error']}")
        tally.add(record)
    took = clock() - start
    if tally.games != games:
        raise BenchError(f"native simulate counted {tally.games} games of {games}")
    left[:] = [len(back)]
    return took, tally.all_decisions


def measure(case: tuple, players: int, scale: float, repeat: int, seed: int, native: bool = False) -> dict[str, Any]:
    name, stem, _counts, hand, games, native_factor = case
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
    ready = NativeReady(rules, players) if native else None
    native_games = games * native_factor
    left: list[int] = [0]
    if ready is not None and ready.counting is not None:
        runners["native_simulate"] = lambda: run_native_simulate(ready, native_games, seed, left)
    if ready is not None and ready.engine is not None:
        runners["native_api"] = lambda: run_engine_api(rules, players, games, seed,
                                                       lambda s: NativeGame(program, s, ready.engine))
    if hand is not None:
        play = hand(players)
        runners = {"hand_written": lambda: run_hand(play, games, seed), **runners}
    failed: dict[str, str] = {}
    runs, decisions = interleave(runners, repeat, optional=frozenset(NATIVE), failed=failed)
    entry: dict[str, Any] = {"game": name, "players": players, "games_per_run": games}
    for measure_name, times in runs.items():
        played = native_games if measure_name == "native_simulate" else games
        entry[measure_name] = summarize(times, played, decisions.get(measure_name, 0))
    if hand is not None:
        base = entry["hand_written"]["games_per_s"]
        for measure_name in ("public_api", "simulate", "block_machine", "api_loop_alone", *NATIVE):
            if measure_name in entry:
                entry[measure_name]["ratio"] = entry[measure_name]["games_per_s"] / base
    if ready is not None:
        native_entry(entry, ready, stem, native_factor, left[0], failed)
    return entry


def native_entry(entry: dict[str, Any], ready: NativeReady, stem: str, factor: int, left: int,
                 failed: dict[str, str]) -> None:
    """The native measures' extras: the build's wall time, the gains over the reference engine's
    measures, why a measure is missing, and Ludii's published figure where there is one."""
    entry["native_build_or_import_s"] = ready.build_or_import_s
    if "native_simulate" in entry:
        m = entry["native_simulate"]
        m.update(native_factor=factor, games_per_run=factor * entry["games_per_run"], to_reference=left,
                 over_simulate=m["games_per_s"] / entry["simulate"]["games_per_s"],
                 build_or_import_s=ready.build_or_import_s)
        if stem in LUDII_PUBLISHED:
            entry["ludii"] = {"published_playouts_per_s": LUDII_PUBLISHED[stem], "source": LUDII_SOURCE,
                              "native_simulate_over_ludii": m["games_per_s"] / LUDII_PUBLISHED[stem],
                              "target": LUDII_TARGET}
    if "native_api" in entry:
        m = entry["native_api"]
        m.update(over_public_api=m["games_per_s"] / entry["public_api"]["games_per_s"],
                 build_or_import_s=ready.build_or_import_s)
    if ready.refused:
        entry["not_native"] = dict(ready.refused)  # a native measure -> why these rules do not play natively
    if failed:
        entry["native_failed"] = dict(failed)  # a native measure -> the error that stopped it


def table(results: list[dict[str, Any]]) -> list[str]:
    native = any("native_build_or_import_s" in r for r in results)
    head = ("game", "players", "hand-written", "public API", "simulate", "block machine", "API loop alone",
            f"target {TARGET:.1f}x")
    if native:
        head += ("native simulate (x simulate)", f"target {NATIVE_SIMULATE_TARGET:.1f}x",
                 "native API (x public API)", f"target {NATIVE_API_TARGET:.1f}x", "native build")
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
        if native:
            row += native_cells(r)
        rows.append(row)
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    return ["  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))) for row in rows]


def native_cells(r: dict[str, Any]) -> tuple[str, ...]:
    """Native simulate and the native API: games/s, ratio and gain over the reference engine's
    measure, each with its verdict (or why it was not measured); the build's wall time."""
    out: tuple[str, ...] = ()
    for name, over, target in (("native_simulate", "over_simulate", NATIVE_SIMULATE_TARGET),
                               ("native_api", "over_public_api", NATIVE_API_TARGET)):
        m = r.get(name)
        if m is None:
            if name in r.get("not_native", {}):
                out += (f"not native: {shortened(r['not_native'][name])}", "-")
            else:
                out += (f"failed: {shortened(r.get('native_failed', {}).get(name, 'not measured'))}", "-")
            continue
        ratio = f" ({m['ratio']:.2f}x)" if "ratio" in m else ""
        verdict = "-" if "ratio" not in m else "met" if m["ratio"] >= target else "below"
        out += (f"{m['games_per_s']:,.0f}/s{ratio} x{m[over]:.2f}", verdict)
    built = len(r.get("not_native", {})) < len(NATIVE)
    return (*out, f"{r['native_build_or_import_s']:.1f} s" if built else "-")


def shortened(text: str, width: int = 44) -> str:
    """A reason for a table cell: without the engine's name and the rule's place, cut to `width`."""
    text = re.sub(r" \(made for the rule at [^)]*\)", "", text.replace("the native engine ", ""))
    return text if len(text) <= width else text[:width - 3] + "..."


def ludii_lines(results: list[dict[str, Any]]) -> list[str]:
    """Native simulate beside Ludii's published figures, for the games that have one."""
    rows = [r for r in results if "ludii" in r]
    if not rows:
        return []
    info = env_info()
    out = [f"Beside Ludii's published random playouts/s, single thread ({LUDII_SOURCE}; Ludii's machine, "
           f"not measured here), native simulate's games/s here (target {LUDII_TARGET:.0f}x).",
           f"A playout: {PLAYOUT}. 1 thread; this machine: {cpu_name()}, {info['machine']}, "
           f"{info['platform']}, {info['implementation']} {info['python']}."]
    for r in rows:
        lu, m = r["ludii"], r["native_simulate"]
        met = "met" if lu["native_simulate_over_ludii"] >= LUDII_TARGET else "below"
        out.append(f"  {r['game']}: Ludii {lu['published_playouts_per_s']:,}/s; native simulate "
                   f"{m['games_per_s']:,.0f}/s = {lu['native_simulate_over_ludii']:.2f}x Ludii ({met})")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="games per run, as a share of the defaults")
    parser.add_argument("--repeat", type=positive, default=3, help="timed runs per measure; the best counts")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", action="append", default=[], help="a game's file name (hagakure, ...): just these")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    parser.add_argument("--native", action="store_true",
                        help="also measure the native engine: simulate in C and the public API (needs a C compiler)")
    parser.add_argument("--compiled", dest="native", action="store_true", help=argparse.SUPPRESS)  # an old alias
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
                results.append(measure(case, players, args.scale, args.repeat, args.seed, args.native))
                if not args.json:
                    print(f"  measured {case[0]}, {players} players", file=sys.stderr, flush=True)
    except BenchError as err:
        print(f"bench_all: {err}", file=sys.stderr)
        return 2
    missed = any("hand_written" in r and min(r["public_api"]["ratio"], r["simulate"]["ratio"]) < TARGET
                 for r in results)
    if args.json:
        config = {"scale": args.scale, "repeat": args.repeat, "seed": args.seed, "clock": args.clock,
                  "threads": 1, "native": args.native, "cpu": cpu_name(), **env_info()}
        targets = {"target": TARGET}
        if args.native:
            targets.update(native_simulate_target=NATIVE_SIMULATE_TARGET, native_api_target=NATIVE_API_TARGET,
                           ludii_target=LUDII_TARGET, playout=PLAYOUT)
        print(json.dumps({"config": config, **targets, "results": results}, indent=2))
    else:
        print(f"Random playouts, games/s ({args.clock} time, 1 thread, best of {args.repeat}; "
              f"ratio = engine / hand-written)")
        if args.native:
            factors = ", ".join(f"{c[0]} {c[5]}x" for c in cases)
            print(f"native simulate plays more games per run than the others ({factors}); native build: the wall "
                  "time to build or import both native modules, before the clock")
        print("\n".join(table(results)))
        for line in ludii_lines(results):
            print(line)
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    sys.exit(main())
