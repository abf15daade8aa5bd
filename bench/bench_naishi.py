"""Benchmark: Naishi through ruleforge against a hand-written plain-Python Naishi.

Measures random full 2-player games per second of games/naishi.rules through the engine
(public API path and internal fast path), the same for games/naishi_legends.rules (the
expansion; reported as not available when it is missing or fails), the hand-written base
game bench/handwritten_naishi.py in the same process under both of its random policies
(type-first, and "engine", which splits turns into the engine's decisions and so plays
the same games: the like-for-like comparison), the ratios, the time to score one
territory (engine and hand-written, with and without a Ninja to resolve), and the wall
time of `ruleforge check games/naishi.rules`.
See bench/README.md for what each figure means and the targets.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

# The shared helpers sit next to this file (also when run as `python -m bench.bench_naishi`).
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (  # noqa: E402
    CLOCKS,
    ROOT,
    BenchError,
    Runner,
    check_rows,
    clock,
    env_info,
    first_line,
    interleave,
    load_module,
    measure_check_cli,
    non_negative,
    per_call_us,
    positive,
    print_table,
    profile_fast_path,
    run_engine_api,
    run_engine_fast,
    set_clock,
    summarize,
    verdict,
)

import ruleforge  # noqa: E402

RULES_PATH = ROOT / "games" / "naishi.rules"
LEGENDS_PATH = ROOT / "games" / "naishi_legends.rules"
HANDWRITTEN_PATH = ROOT / "bench" / "handwritten_naishi.py"
PLAYERS = 2  # Naishi is a two-player game

RATIO_TARGET = 0.3  # engine / hand-written games per second, base game (parity is the goal)
CHECK_REFERENCE_S = 0.3  # Hagakure's check target, shown beside Naishi's figure for comparison

# The territories scored (rulings §8 example 1, for P1). With the Ninja, the Hand's
# Mountain becomes an uncopied Ninja, so scoring tries every copy. By hand: it may copy
# Naishi, Advisor or Sentinel (the characters present). As a Naishi at Hand 2 it scores
# 0 (57 in all); as a Sentinel, 4 (next to the Hand 1 Fort) but the Line Sentinel then
# loses its 3 (58); as an Advisor at column 2, 4 + 4 for the Naishi beside it at Hand 3:
# Advisor 7 + 8 = 15, Mountain 0 (no Mountain left), total 62 - 5 + 8 = 65.
LINE = ["Fort", "Sentinel", "Advisor", "Banner", "Rice Field"]
HAND = ["Fort", "Mountain", "Naishi", "Rice Field", "Rice Field"]
NINJA_HAND = ["Fort", "Ninja", "Naishi", "Rice Field", "Rice Field"]
SCORING_CASES: dict[str, tuple[list[str], list[str], int]] = {
    "example 1": (LINE, HAND, 62),
    "uncopied Ninja": (LINE, NINJA_HAND, 65),
}


# --- loading ---------------------------------------------------------------------------------


def load_handwritten(path: Path = HANDWRITTEN_PATH) -> ModuleType:
    """Import the hand-written baseline by path (it is not a package module)."""
    return load_module(path, "handwritten_naishi")


def load_legends(path: Path, seed: int) -> tuple[ruleforge.Rules | None, str | None]:
    """The expansion's rules, compiled and tried on one game per path; or None and why not.

    The expansion is written alongside the base game and may be missing or broken at
    any moment: any failure here is reported in its row, never stops the bench.
    """
    if not path.is_file():
        return None, f"{path.relative_to(ROOT)} is missing"
    try:
        rules = ruleforge.load(path)
        rules.program(PLAYERS)
        run_engine_api(rules, PLAYERS, 1, seed)
        run_engine_fast(rules, PLAYERS, 1, seed)
    except Exception as err:  # an optional part: say why and go on
        return None, first_line(err)
    return rules, None


# --- whole random games -------------------------------------------------------------------


def run_handwritten(hw: ModuleType, games: int, seed: int, policy: str = "type-first") -> tuple[float, int]:
    """Random games of the hand-written implementation under `policy`; decisions are counted apart."""
    rng = random.Random(seed)
    play = hw.play_random_game
    start = clock()
    for _ in range(games):
        play(rng, policy)
    return clock() - start, 0


def handwritten_decisions(hw: ModuleType, games: int, seed: int, policy: str = "type-first") -> int:
    """Decisions the timed hand-written games take, counted in an untimed replay.

    `play_random_game(rng, policy)` is `play_game(rng, policy=policy).totals`: the same rng
    gives the same games.
    """
    rng = random.Random(seed)
    return sum(hw.play_game(rng, policy=policy).decisions for _ in range(games))


def measure_games(base: ruleforge.Rules, legends: ruleforge.Rules | None, legends_reason: str | None,
                  hw: ModuleType, games: int, seed: int, repeat: int) -> dict[str, Any]:
    """Best of `repeat` interleaved runs: base (API, fast), hand-written (type-first policy,
    engine policy), expansion (API, fast).

    `legends` is None when the expansion could not be loaded, `legends_reason` says why.
    """
    runners: dict[str, Runner] = {
        "engine_api": lambda: run_engine_api(base, PLAYERS, games, seed),
        "engine_fast": lambda: run_engine_fast(base, PLAYERS, games, seed),
        "handwritten": lambda: run_handwritten(hw, games, seed),
        "handwritten_engine_policy": lambda: run_handwritten(hw, games, seed, "engine"),
    }
    if legends is not None:
        runners["legends_api"] = lambda: run_engine_api(legends, PLAYERS, games, seed)
        runners["legends_fast"] = lambda: run_engine_fast(legends, PLAYERS, games, seed)
    failed: dict[str, str] = {}
    runs, decisions = interleave(runners, repeat, frozenset({"legends_api", "legends_fast"}), failed)
    decisions["handwritten"] = handwritten_decisions(hw, games, seed)
    decisions["handwritten_engine_policy"] = handwritten_decisions(hw, games, seed, "engine")
    entries = {name: summarize(times, games, decisions[name]) for name, times in runs.items()}
    hand = entries["handwritten"]["games_per_s"]
    like = entries["handwritten_engine_policy"]["games_per_s"]
    out: dict[str, Any] = {
        "base": {
            "engine_api": entries["engine_api"],
            "engine_fast": entries["engine_fast"],
            "handwritten": entries["handwritten"],
            "handwritten_engine_policy": entries["handwritten_engine_policy"],
            # Against the type-first hand-written games: different games, not like for like.
            "ratio_api": entries["engine_api"]["games_per_s"] / hand,
            "ratio_fast": entries["engine_fast"]["games_per_s"] / hand,
            # Against the engine-policy hand-written games: the same decisions, like for like.
            "ratio_api_engine_policy": entries["engine_api"]["games_per_s"] / like,
            "ratio_fast_engine_policy": entries["engine_fast"]["games_per_s"] / like,
        },
    }
    legends_out: dict[str, Any] = {"available": False, "reason": None}
    if legends is None:
        legends_out["reason"] = legends_reason
    elif failed:
        legends_out["reason"] = "; ".join(f"{name}: {why}" for name, why in failed.items())
    else:
        legends_out.update(available=True, engine_api=entries["legends_api"],
                           engine_fast=entries["legends_fast"],
                           fast_vs_base=entries["legends_fast"]["games_per_s"]
                           / entries["engine_fast"]["games_per_s"])
    out["legends"] = legends_out
    return out


# --- scoring one territory ----------------------------------------------------------------------


def territory_position(line: list[str], hand: list[str]) -> dict[str, Any]:
    """A hand-written position with P1's territory laid out (P2 keeps the setup's)."""
    return {"format": "ruleforge-position/1", "players": PLAYERS,
            "zones": {"territory(P1)": [list(line), list(hand)]}}


def score_case(rules: ruleforge.Rules, hw: ModuleType, line: list[str], hand: list[str],
               expected: int) -> dict[str, Any]:
    """Microseconds to score P1's territory `line`/`hand`, engine and hand-written.

    The breakdown must agree between the engine, the hand-written scorer and the total
    worked out by hand, and scoring must leave the state as it was; `agree` says so.
    """
    game = rules.position(territory_position(line, hand))
    score = game.program.score_funcs["points"]
    state = game.state
    engine = game.preview_scoring("points")[0]
    handwritten = hw.score_territory(line, hand)
    entry: dict[str, Any] = {
        "line": line, "hand": hand, "expected_total": expected,
        "engine_total": engine["total"], "handwritten_total": handwritten["total"],
        "preview_us": per_call_us(lambda: game.preview_scoring("points")),
        "score_func_us": per_call_us(lambda: score(state, 0)),
        "handwritten_us": per_call_us(lambda: hw.score_territory(line, hand)),
    }
    unchanged = game.preview_scoring("points")[0] == engine
    entry["agree"] = unchanged and engine == handwritten and engine["total"] == expected
    if not entry["agree"]:
        entry["engine"], entry["handwritten"] = engine, handwritten
    return entry


def measure_scoring(rules: ruleforge.Rules, hw: ModuleType) -> dict[str, Any]:
    """Every `SCORING_CASES` territory scored by both; a disagreement fails --strict."""
    return {name: score_case(rules, hw, line, hand, expected)
            for name, (line, hand, expected) in SCORING_CASES.items()}


# --- output -------------------------------------------------------------------------------


def _games_rows(label: str, api: dict[str, Any], fast: dict[str, Any], setting: str) -> list[tuple[str, str, str]]:
    return [
        (f"{label}, public API (games/s)", f"{api['games_per_s']:.1f}",
         f"{setting}legal_actions() + apply(); {api['us_per_decision']:.1f} us/decision"),
        (f"{label}, fast path (games/s)", f"{fast['games_per_s']:.1f}",
         f"g._legal + g._apply_unchecked(); {fast['us_per_decision']:.1f} us/decision"),
    ]


def rows(result: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(measure, value, note) rows for the text and rich tables."""
    c = result["config"]
    base, legends = result["games"]["base"], result["games"]["legends"]
    hand, like = base["handwritten"], base["handwritten_engine_policy"]
    n = f"{PLAYERS}p, {c['games']} games, best of {c['repeat']}, {c['clock']} time; "
    out = _games_rows("base engine", base["engine_api"], base["engine_fast"], n)
    out += [
        ("hand-written (games/s)", f"{hand['games_per_s']:.1f}",
         f"bench/handwritten_naishi.py, policy type-first; {hand['us_per_decision']:.1f} us/decision"),
        ("ratio engine/hand, public API", f"{base['ratio_api']:.3f}x",
         f"target >= {RATIO_TARGET}x: {verdict(base['ratio_api'] >= RATIO_TARGET)} (parity is the goal); "
         "NOT like for like: type-first plays other games"),
        ("ratio engine/hand, fast path", f"{base['ratio_fast']:.3f}x",
         f"target >= {RATIO_TARGET}x: {verdict(base['ratio_fast'] >= RATIO_TARGET)}; NOT like for like"),
        ("hand-written, engine policy (games/s)", f"{like['games_per_s']:.1f}",
         f"play_random_game(rng, 'engine'): the engine's decisions; {like['us_per_decision']:.1f} us/decision"),
        ("ratio engine/hand-engine-policy, public API", f"{base['ratio_api_engine_policy']:.3f}x",
         "LIKE FOR LIKE: same decisions, same distribution of games (parity is 1.0x)"),
        ("ratio engine/hand-engine-policy, fast path", f"{base['ratio_fast_engine_policy']:.3f}x",
         "LIKE FOR LIKE"),
        ("decisions per game, base engine", f"{base['engine_api']['decisions_per_game']:.1f}",
         f"hand-written engine policy: {like['decisions_per_game']:.1f}; type-first: "
         f"{hand['decisions_per_game']:.1f} (it splits turns into decisions its own way)"),
    ]
    if legends["available"]:
        out += _games_rows("expansion engine", legends["engine_api"], legends["engine_fast"], "")
        out += [("expansion / base, fast path", f"{legends['fast_vs_base']:.3f}x",
                 "games/s of naishi_legends.rules over naishi.rules"),
                ("decisions per game, expansion", f"{legends['engine_api']['decisions_per_game']:.1f}", "")]
    else:
        out.append(("expansion engine (games/s)", "not available", legends["reason"]))
    for name, sc in result["scoring"].items():
        agree = (f"P1 {sc['engine_total']} = hand-written = by hand" if sc["agree"] else
                 f"DISAGREE: engine {sc['engine_total']}, hand-written {sc['handwritten_total']}, "
                 f"by hand {sc['expected_total']}")
        out += [
            (f"score {name}: preview_scoring (us)", f"{sc['preview_us']:.1f}",
             f"game.preview_scoring('points'), both players; {agree}"),
            (f"score {name}: score function (us)", f"{sc['score_func_us']:.1f}",
             "program.score_funcs['points'](state, P1): one territory"),
            (f"score {name}: hand-written (us)", f"{sc['handwritten_us']:.1f}", "score_territory(line, hand)"),
        ]
    out += check_rows(result["check_cli"], f"for reference, Hagakure's target is < {CHECK_REFERENCE_S} s")
    return out


# --- main -----------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=positive, default=500, help="games per timed run (default 500)")
    parser.add_argument("--repeat", type=positive, default=3, help="interleaved runs; the best counts (default 3)")
    parser.add_argument("--seed", type=int, default=0, help="first game seed; game i uses seed+i (default 0)")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu",
                        help="in-process timings in CPU time of this process (default; steadier on a "
                             "busy machine) or wall time; `check` is always wall time")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of a table")
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 when a target is missed or a scoring disagrees")
    parser.add_argument("--profile", type=non_negative, metavar="GAMES", default=0,
                        help="also cProfile the base game's fast path over GAMES games and print the top functions")
    return parser.parse_args(argv)


def run(args: argparse.Namespace) -> dict[str, Any]:
    rules = ruleforge.load(RULES_PATH)
    rules.program(PLAYERS)  # compile once, before any timing
    hw = load_handwritten()
    # One untimed game each first: the engine's first game imports what scoring needs
    # lazily (the connected-groups helper's graph library, ~0.4 s), which would
    # otherwise land in the first timed run.
    run_engine_api(rules, PLAYERS, 1, args.seed)
    run_engine_fast(rules, PLAYERS, 1, args.seed)
    run_handwritten(hw, 1, args.seed)
    run_handwritten(hw, 1, args.seed, "engine")
    legends, why = load_legends(LEGENDS_PATH, args.seed)
    games = measure_games(rules, legends, why, hw, args.games, args.seed, args.repeat)
    return {
        "config": {"players": PLAYERS, "games": args.games, "repeat": args.repeat, "seed": args.seed,
                   "clock": args.clock, "rules": str(RULES_PATH.relative_to(ROOT)),
                   "legends_rules": str(LEGENDS_PATH.relative_to(ROOT))},
        "env": env_info(),
        "games": games,
        "scoring": measure_scoring(rules, hw),
        "check_cli": measure_check_cli(str(RULES_PATH.relative_to(ROOT))),
        "targets": {"ratio_min": RATIO_TARGET, "check_reference_s": CHECK_REFERENCE_S},
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    set_clock(args.clock)
    try:
        result = run(args)
        profile = profile_fast_path(ruleforge.load(RULES_PATH), PLAYERS, args.profile, args.seed, 30) \
            if args.profile else None
    except (ruleforge.RulesError, ruleforge.GameError, BenchError) as err:
        text = err.render() if isinstance(err, ruleforge.RulesError) else str(err)
        print(f"bench_naishi: {text}", file=sys.stderr)
        return 2
    base = result["games"]["base"]
    met = (base["ratio_api"] >= RATIO_TARGET and base["ratio_fast"] >= RATIO_TARGET
           and all(sc["agree"] for sc in result["scoring"].values()))
    result["targets"]["met"] = met
    if args.json:
        if profile:
            result["profile"] = profile
        print(json.dumps(result, indent=2))
    else:
        env = result["env"]
        print_table(f"Naishi benchmark (Python {env['python']}, {env['machine']})", rows(result))
        if profile:
            print(profile)
    return 1 if args.strict and not met else 0


if __name__ == "__main__":
    sys.exit(main())
