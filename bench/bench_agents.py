"""Benchmark: how strong the agents are, and how fast the search decides.

For each game: the search agent `mcts:N` against random and against greedy, and greedy against
random, each over `--games` games with the agent's seat rotating (see ruleforge/arena.py), as
a win rate with its 95% Wilson interval beside the rate of a seat no better than the others
(1 / players); and the search's decisions per second of CPU time. `--trace B1,B2,...` adds the
skill trace: each budget against random, then each against the one before it.
`--speed` measures instead the search's iterations per second of process CPU time, the Python
search on the reference engine against the search run in C on the native engine (which chooses
the same actions: tests/test_native_search.py), over the first `--decisions` decisions of a game.
See bench/README.md for the figures and the target.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # measure the checkout this file lives in
    sys.path.insert(0, str(ROOT))

import ruleforge  # noqa: E402
from ruleforge.arena import Match, head_to_head, skill_trace  # noqa: E402

GAMES = {"hagakure": ("hagakure.rules", 4), "naishi": ("naishi.rules", 2),
         "naishi_legends": ("naishi_legends.rules", 2), "nakasendo": ("nakasendo.rules", 2)}
TARGET = ("naishi", "random", 0.70)  # mcts against random in two-player Naishi


def row(game: str, match: Match) -> dict[str, Any]:
    return {"game": game, **match.to_json()}


def show(r: dict[str, Any]) -> str:
    speed = r["decisions_per_second"]
    speed_text = f"{speed:8.1f}/s" if speed is not None else "        -"
    return (f"{r['game']:<15} {r['players']}p  {r['agent']:>9} vs {r['opponent']:<9} {r['games']:>4} games  "
            f"{r['rate']:6.1%}  [{r['low']:5.1%}, {r['high']:5.1%}]  fair {r['fair']:5.1%}  {speed_text}")


def iterations_per_second(rules: ruleforge.Rules, players: int, budget: int, decisions: int, engine: str,
                          seed: int) -> float:
    """The search's iterations per second of process CPU time over a game's first decisions (a
    decision with one legal action runs no search and counts none)."""
    from ruleforge.search import MCTSAgent

    game = rules.new_game(players, seed, engine=engine)  # a native module is built here, untimed
    agent = MCTSAgent(seed=seed, budget=budget)
    iterations, spent = 0, 0.0
    for _ in range(decisions):
        if game.is_over:
            break
        several = len(game.legal_actions()) > 1
        started = time.process_time()
        action = agent.choose(game)
        spent += time.process_time() - started
        iterations += budget if several else 0
        game.apply(action)
    return iterations / spent if spent else 0.0


def speed(names: list[str], budget: int, decisions: int, seed: int, as_json: bool) -> int:
    """`--speed`: per game, the Python and the native search's iterations per second."""
    rows = []
    for name in names:
        file, players = GAMES[name]
        rules = ruleforge.load(ROOT / "games" / file)
        python = iterations_per_second(rules, players, budget, decisions, "reference", seed)
        native = iterations_per_second(rules, players, budget * 20, decisions, "native", seed)
        rows.append({"game": name, "players": players, "python": round(python), "native": round(native),
                     "ratio": round(native / python, 1) if python else None})
        if not as_json:
            r = rows[-1]
            print(f"{name:<15} {players}p  python {r['python']:>8}/s  native {r['native']:>9}/s  x{r['ratio']}",
                  flush=True)
    if as_json:
        print(json.dumps({"budget": budget, "decisions": decisions, "rows": rows}, indent=2))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per match [200]")
    parser.add_argument("--budget", type=int, default=100, help="the search's iterations per decision [100]")
    parser.add_argument("--only", default=None, help=f"comma-separated games of {', '.join(GAMES)}")
    parser.add_argument("--nakasendo-games", type=int, default=None,
                        help="games per match for Nakasendo, whose search is slowest [--games]")
    parser.add_argument("--trace", default=None, help="budgets of a skill trace, e.g. 25,50,100")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="one JSON document instead of the table")
    parser.add_argument("--speed", action="store_true",
                        help="iterations per second, Python search against native (the native budget 20x)")
    parser.add_argument("--decisions", type=int, default=12, help="decisions a game --speed times [12]")
    args = parser.parse_args(argv)
    names = list(GAMES) if args.only is None else [n.strip() for n in args.only.split(",")]
    bad = [n for n in names if n not in GAMES]
    if bad or args.games < 1 or args.budget < 1:
        what = f"unknown game '{bad[0]}' (games: {', '.join(GAMES)})" if bad else "--games and --budget must be >= 1"
        print(f"error: {what}", file=sys.stderr)
        return 2
    if args.speed:
        return speed(names, args.budget, args.decisions, args.seed, args.json)
    mcts = f"mcts:{args.budget}"
    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    for name in names:
        file, players = GAMES[name]
        rules = ruleforge.load(ROOT / "games" / file)
        games = args.nakasendo_games if name == "nakasendo" and args.nakasendo_games else args.games
        for agent, opponent in ((mcts, "random"), (mcts, "greedy"), ("greedy", "random")):
            rows.append(row(name, head_to_head(rules, players, agent, opponent, games, args.seed)))
            if not args.json:
                print(show(rows[-1]), flush=True)
        if args.trace:
            budgets = [int(b) for b in args.trace.split(",")]
            for match in skill_trace(rules, players, budgets, games, args.seed):
                rows.append(row(name, match))
                if not args.json:
                    print(show(rows[-1]), flush=True)
    game, opponent, target = TARGET
    hit = [r for r in rows if r["game"] == game and r["agent"] == mcts and r["opponent"] == opponent]
    verdict = None if not hit else hit[0]["rate"] >= target
    if args.json:
        print(json.dumps({"budget": args.budget, "rows": rows, "target": {"game": game, "opponent": opponent,
                          "rate": target, "met": verdict}}, indent=2))
    else:
        if verdict is not None:
            print(f"target: {mcts} wins at least {target:.0%} against {opponent} in two-player {game}: "
                  f"{'met' if verdict else 'MISSED'}")
        print(f"wall time: {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
