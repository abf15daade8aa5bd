"""Benchmark: Nakasendo through ruleforge against a hand-written plain-Python Nakasendo.

Measures random full games per second for 2, 3 and 4 players of games/nakasendo.rules
through the engine (public API path and internal fast path) next to
bench/handwritten_nakasendo.py (which takes its decisions in the same structure, so the
comparison is like for like), interleaved, best of --repeat; the ratio engine/hand-written;
and the time to find and score the final path: the engine's preview of its "final" scoring
on a finished game, the hand-written final_points on the same kind of position and on one
full 4x4 grid. The rules file is written in parallel with this bench: when it is missing
or fails, the engine rows say "not available" and why, and the hand-written side is still
measured. See bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

# The shared helpers sit next to this file (also when run as `python -m bench.bench_nakasendo`).
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (  # noqa: E402
    CLOCKS,
    ROOT,
    BenchError,
    Runner,
    clock,
    env_info,
    first_line,
    interleave,
    load_module,
    per_call_us,
    positive,
    print_table,
    run_engine_api,
    run_engine_fast,
    set_clock,
    summarize,
    verdict,
)

import ruleforge  # noqa: E402

RULES_PATH = ROOT / "games" / "nakasendo.rules"
HANDWRITTEN_PATH = ROOT / "bench" / "handwritten_nakasendo.py"
PLAYER_COUNTS = (2, 3, 4)
RATIO_TARGET = 0.3  # engine / hand-written games per second (parity is the goal)
FINAL_SCORING = "final"  # the name of the rules' final scoring


# --- loading ---------------------------------------------------------------------------------


def load_handwritten(path: Path = HANDWRITTEN_PATH) -> ModuleType:
    """Import the hand-written baseline by path (it is not a package module)."""
    return load_module(path, "handwritten_nakasendo")


def load_engine(path: Path, players: tuple[int, ...], seed: int) -> tuple[ruleforge.Rules | None, str | None]:
    """The rules, compiled for every player count and tried on one game per path; or None and why not.

    The rules file is being written while this bench exists: any failure is reported in
    the engine rows and never stops the hand-written measures.
    """
    if not path.is_file():
        return None, f"{path.relative_to(ROOT)} is missing"
    try:
        rules = ruleforge.load(path)
        for n in players:
            rules.program(n)  # compile once, before any timing
            # One untimed game each: the first game imports what scoring needs lazily.
            run_engine_api(rules, n, 1, seed)
            run_engine_fast(rules, n, 1, seed)
    except Exception as err:  # a file in progress: say why and go on
        return None, first_line(err)
    return rules, None


# --- whole random games -------------------------------------------------------------------


def run_handwritten(hw: ModuleType, players: int, games: int, seed: int) -> tuple[float, int]:
    """Random games of the hand-written implementation; (seconds, decisions taken)."""
    rng = random.Random(seed)
    play = hw.play_random_game
    decisions = 0
    start = clock()
    for _ in range(games):
        decisions += play(players, rng).decisions
    return clock() - start, decisions


def measure_games(rules: ruleforge.Rules | None, reason: str | None, hw: ModuleType, players: int,
                  games: int, seed: int, repeat: int) -> dict[str, Any]:
    """Best of `repeat` interleaved runs for one player count: engine API, engine fast, hand-written."""
    runners: dict[str, Runner] = {}
    if rules is not None:
        runners["engine_api"] = lambda: run_engine_api(rules, players, games, seed)
        runners["engine_fast"] = lambda: run_engine_fast(rules, players, games, seed)
    runners["handwritten"] = lambda: run_handwritten(hw, players, games, seed)
    failed: dict[str, str] = {}
    runs, decisions = interleave(runners, repeat, frozenset({"engine_api", "engine_fast"}), failed)
    entries = {name: summarize(times, games, decisions[name]) for name, times in runs.items()}
    out: dict[str, Any] = {"handwritten": entries["handwritten"]}
    engine: dict[str, Any] = {"available": False, "reason": reason}
    if rules is not None and failed:
        engine["reason"] = "; ".join(f"{name}: {why}" for name, why in failed.items())
    elif rules is not None:
        hand = entries["handwritten"]["games_per_s"]
        engine.update(available=True, reason=None, api=entries["engine_api"], fast=entries["engine_fast"],
                      ratio_api=entries["engine_api"]["games_per_s"] / hand,
                      ratio_fast=entries["engine_fast"]["games_per_s"] / hand)
    out["engine"] = engine
    return out


# --- scoring the final path ------------------------------------------------------------------------


def full_grid(hw: ModuleType, seed: int) -> dict[Any, list[Any]]:
    """A full 4x4 grid (rows 3-6, columns 3-6, the Starting tile at (4, 4)), drawn from `seed`.

    Every other cell holds a random Path tile, flipped at random, with 0-2 tokens and a few
    Snow and Bear tokens: a position as dense as a game can end in.
    """
    rng = random.Random(seed)
    tiles = hw.build_tiles()
    tokens = hw.build_tokens()
    rng.shuffle(tiles)
    rng.shuffle(tokens)
    grid: dict[Any, list[Any]] = {}
    for r in range(3, 7):
        for c in range(3, 7):
            if (r, c) == hw.START_CELL:
                grid[(r, c)] = [hw.start_tile()]
                continue
            tile = tiles.pop()
            tile.flipped = tile.shape in hw.CURVES and rng.random() < 0.5
            tile.snow = rng.randrange(5)
            tile.bears = rng.randrange(2)
            grid[(r, c)] = [tile, *(tokens.pop() for _ in range(rng.randrange(3)))]
    return grid


def full_grid_position(hw: ModuleType, grid: dict[Any, list[Any]]) -> dict[str, Any]:
    """The same grid as P1's board in a ruleforge position (docs/positions.md): each element
    by its label, a tile's flip, Snow and Bears as properties."""
    def entry(element: Any) -> Any:
        if not isinstance(element, hw.Tile):
            return hw.element_label(element)
        label = hw.element_label(hw.make_tile(element.terrain, element.shape, bool(element.symbols), False, 0, 0)) \
            if element.terrain is not None else "Start"
        return {"label": label, "flipped": element.flipped, "snow": element.snow, "bears": element.bears}

    rows = [[[entry(e) for e in grid[(r, c)]] for c in range(3, 7)] for r in range(3, 7)]
    return {"format": "ruleforge-position/1", "players": 2, "zones": {"board(P1)": {"at": [3, 3], "rows": rows}}}


def measure_scoring(rules: ruleforge.Rules | None, reason: str | None, hw: ModuleType, players: int,
                    seed: int) -> dict[str, Any]:
    """Microseconds to find and score the final path.

    Engine: `preview_scoring("final")` on game `seed`'s finished random game (every
    player's grid). Hand-written: `final_points` (the game's own scorer, on its integer
    `Board`) of every grid of a finished hand-written game of as many players (the
    like-for-like figure), and of one full 4x4 grid converted to a Board before timing.
    """
    result = hw.play_random_game(players, random.Random(seed))
    grids, extras = result.grids, result.extra_actions
    boards = [result.game.board(p) for p in range(players)]
    full = full_grid(hw, seed)
    full_board = hw.to_board(full)
    assert hw.final_points(full_board)[0] == hw.score_final(full)

    def score_all() -> None:
        for p in range(players):
            hw.final_points(boards[p], extras[p])

    out: dict[str, Any] = {
        "players": players,
        "handwritten_game_us": per_call_us(score_all),
        "handwritten_game_cells": [len(g) for g in grids],
        "handwritten_full_us": per_call_us(lambda: hw.final_points(full_board)),
        "full_grid_total": hw.score_final(full)["total"],
        "engine": {"available": False, "reason": reason},
    }
    if rules is None:
        return out
    try:
        game = rules.new_game(players, seed=seed)
        rng = random.Random(seed)
        while not game.is_over:
            acts = game.legal_actions()
            game.apply(acts[rng.randrange(len(acts))])
        game.preview_scoring(FINAL_SCORING)
        out["engine"] = {"available": True, "reason": None,
                         "preview_us": per_call_us(lambda: game.preview_scoring(FINAL_SCORING))}
        # one full 4x4 grid, P1 only: the compiled scoring, with its path cache emptied each
        # time (a first look at a layout, as the hand-written search always is) and kept
        position = rules.position(full_grid_position(hw, full))
        score = position.program.score_funcs[FINAL_SCORING]
        paths = score.__globals__["PATHS"]

        def fresh() -> None:
            paths.clear()
            score(position.state, 0)

        full_total = score(position.state, 0)[1]
        out["engine"].update(full_us=per_call_us(fresh), full_cached_us=per_call_us(lambda: score(position.state, 0)),
                             full_total=full_total)
    except Exception as err:  # the rules are in progress: say why
        out["engine"]["reason"] = first_line(err)
    return out


# --- output -------------------------------------------------------------------------------


def rows(result: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(measure, value, note) rows for the text and rich tables."""
    c = result["config"]
    out: list[tuple[str, str, str]] = []
    for n, entry in result["games"].items():
        hand, eng = entry["handwritten"], entry["engine"]
        setting = f"{n}p, {c['games']} games, best of {c['repeat']}, {c['clock']} time"
        if eng["available"]:
            api, fast = eng["api"], eng["fast"]
            out += [
                (f"{n}p engine, public API (games/s)", f"{api['games_per_s']:.1f}",
                 f"{setting}; legal_actions() + apply(); {api['us_per_decision']:.1f} us/decision"),
                (f"{n}p engine, fast path (games/s)", f"{fast['games_per_s']:.1f}",
                 f"g._legal + g._apply_unchecked(); {fast['us_per_decision']:.1f} us/decision"),
            ]
        else:
            out.append((f"{n}p engine (games/s)", "not available", eng["reason"]))
        out.append((f"{n}p hand-written (games/s)", f"{hand['games_per_s']:.1f}",
                    f"{'' if eng['available'] else setting + '; '}bench/handwritten_nakasendo.py; "
                    f"{hand['us_per_decision']:.1f} us/decision"))
        if eng["available"]:
            out += [
                (f"{n}p ratio engine/hand, public API", f"{eng['ratio_api']:.3f}x",
                 f"target >= {RATIO_TARGET}x: {verdict(eng['ratio_api'] >= RATIO_TARGET)} (parity is the goal)"),
                (f"{n}p ratio engine/hand, fast path", f"{eng['ratio_fast']:.3f}x",
                 f"target >= {RATIO_TARGET}x: {verdict(eng['ratio_fast'] >= RATIO_TARGET)}"),
                (f"{n}p decisions per game", f"{eng['api']['decisions_per_game']:.1f}",
                 f"engine; hand-written {hand['decisions_per_game']:.1f} (the same decision structure)"),
            ]
        else:
            out.append((f"{n}p decisions per game", f"{hand['decisions_per_game']:.1f}", "hand-written"))
    sc = result["scoring"]
    n = sc["players"]
    if sc["engine"]["available"]:
        out.append(("final path: engine preview (us)", f"{sc['engine']['preview_us']:.1f}",
                    f"game.preview_scoring('{FINAL_SCORING}') on a finished {n}p random game, all players"))
        agree = "agrees" if sc["engine"]["full_total"] == sc["full_grid_total"] else "DISAGREE"
        out.append(("final path: engine, full 4x4 (us)", f"{sc['engine']['full_us']:.1f}",
                    f"the compiled final scoring of the same full 4x4 grid, path search included "
                    f"(total {sc['engine']['full_total']}: {agree})"))
        out.append(("final path: engine, full 4x4 cached (us)", f"{sc['engine']['full_cached_us']:.1f}",
                    "the same, the path of a layout already seen taken from the cache"))
    else:
        out.append(("final path: engine preview (us)", "not available", sc["engine"]["reason"]))
    out += [
        ("final path: hand-written, a game (us)", f"{sc['handwritten_game_us']:.1f}",
         f"final_points of every grid of a finished {n}p hand-written game "
         f"({'/'.join(map(str, sc['handwritten_game_cells']))} cells)"),
        ("final path: hand-written, full 4x4 (us)", f"{sc['handwritten_full_us']:.1f}",
         f"final_points of one full 4x4 grid (16 cells, total {sc['full_grid_total']})"),
    ]
    return out


# --- main -----------------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (no usage block), exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def player_counts(text: str) -> tuple[int, ...]:
    """argparse type: player counts among 2, 3, 4, comma-separated (`--players 2,4`)."""
    try:
        counts = tuple(sorted({int(x) for x in text.split(",")}))
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a list of player counts") from None
    if not counts or any(n not in PLAYER_COUNTS for n in counts):
        raise argparse.ArgumentTypeError(f"player counts are 2, 3 or 4, not '{text}'")
    return counts


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = _Parser(prog="bench_nakasendo", description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=player_counts, default=PLAYER_COUNTS,
                        help="player counts to measure, comma-separated (default 2,3,4)")
    parser.add_argument("--games", type=positive, default=200, help="games per timed run (default 200)")
    parser.add_argument("--repeat", type=positive, default=3, help="interleaved runs; the best counts (default 3)")
    parser.add_argument("--seed", type=int, default=0, help="first game seed; game i uses seed+i (default 0)")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu",
                        help="in-process timings in CPU time of this process (default) or wall time")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of a table")
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 when a target is missed or the engine cannot be measured")
    return parser.parse_args(argv)


def run(args: argparse.Namespace) -> dict[str, Any]:
    hw = load_handwritten()
    for n in args.players:
        run_handwritten(hw, n, 1, args.seed)  # untimed, as the engine's first game
    rules, reason = load_engine(RULES_PATH, args.players, args.seed)
    games = {str(n): measure_games(rules, reason, hw, n, args.games, args.seed, args.repeat)
             for n in args.players}
    scoring = measure_scoring(rules, reason, hw, max(args.players), args.seed)
    return {
        "config": {"players": list(args.players), "games": args.games, "repeat": args.repeat,
                   "seed": args.seed, "clock": args.clock, "rules": str(RULES_PATH.relative_to(ROOT))},
        "env": env_info(),
        "games": games,
        "scoring": scoring,
        "targets": {"ratio_min": RATIO_TARGET},
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    set_clock(args.clock)
    try:
        result = run(args)
    except BenchError as err:
        print(f"bench_nakasendo: {err}", file=sys.stderr)
        return 2
    engines = [entry["engine"] for entry in result["games"].values()]
    met = all(e["available"] and e["ratio_api"] >= RATIO_TARGET and e["ratio_fast"] >= RATIO_TARGET
              for e in engines)
    result["targets"]["met"] = met
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        env = result["env"]
        print_table(f"Nakasendo benchmark (Python {env['python']}, {env['machine']})", rows(result))
    return 1 if args.strict and not met else 0


if __name__ == "__main__":
    sys.exit(main())
