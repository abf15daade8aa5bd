"""Benchmark: how much faster `simulate --jobs N` plays a batch than one process.

For each game and each N of `--jobs-list`, plays the same seeds with random agents through the
runner `simulate` uses (ruleforge/balance/runner.py), times the whole batch by the wall clock
(what a designer waits for; the pool's start-up included), checks that every N gave the same
records as one process, and reports games per second and the speed-up against one process
measured in the same run. See bench/README.md for the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # measure the checkout this file lives in
    sys.path.insert(0, str(ROOT))

import ruleforge  # noqa: E402
from ruleforge.balance import runner  # noqa: E402

GAMES = {"hagakure": ("hagakure.rules", 4), "naishi": ("naishi.rules", 2), "nakasendo": ("nakasendo.rules", 2)}


def timed(batch: runner.Batch, games: int, jobs: int) -> tuple[float, list[Any]]:
    start = time.perf_counter()
    played = list(runner.outcomes(batch, 0, games, jobs))
    return time.perf_counter() - start, played


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per batch [2000]")
    parser.add_argument("--jobs-list", default=None, help="comma-separated process counts [1,2,...,cores]")
    parser.add_argument("--only", default=None, help=f"comma-separated games of {', '.join(GAMES)}")
    parser.add_argument("--json", action="store_true", help="one JSON document instead of the table")
    args = parser.parse_args(argv)
    cores = os.cpu_count() or 1
    try:
        jobs_list = ([int(j) for j in args.jobs_list.split(",")] if args.jobs_list
                     else list(range(1, cores + 1)))
    except ValueError:
        jobs_list = []
    names = list(GAMES) if args.only is None else [n.strip() for n in args.only.split(",")]
    if not jobs_list or min(jobs_list) < 1 or args.games < 1 or any(n not in GAMES for n in names):
        print("error: --jobs-list takes whole numbers >= 1, --games >= 1, --only names of "
              f"{', '.join(GAMES)}", file=sys.stderr)
        return 2
    if 1 not in jobs_list:
        jobs_list.insert(0, 1)  # the baseline
    rows = []
    for name in names:
        file, players = GAMES[name]
        path = str(ROOT / "games" / file)
        rules = ruleforge.load(path)
        runner.remember(path, rules)
        batch = runner.Batch(path, players, {}, ",".join(["random"] * players))
        runner.play_chunk(batch, [(1, 0)])  # compile once, before any clock
        base_seconds, base = timed(batch, args.games, 1)
        for jobs in jobs_list:
            seconds, played = (base_seconds, base) if jobs == 1 else timed(batch, args.games, jobs)
            rows.append({"game": name, "players": players, "games": args.games, "jobs": jobs,
                         "seconds": seconds, "games_per_second": args.games / seconds,
                         "speedup": base_seconds / seconds, "same_records": played == base})
    if args.json:
        print(json.dumps({"cores": cores, "rows": rows}, indent=2))
    else:
        print(f"{cores} cores; wall clock; random agents; speed-up against 1 process in the same run")
        for r in rows:
            same = "same records" if r["same_records"] else "RECORDS DIFFER"
            print(f"{r['game']:<10} {r['players']}p  {r['games']} games  --jobs {r['jobs']}  "
                  f"{r['seconds']:7.2f} s  {r['games_per_second']:8.1f} games/s  x{r['speedup']:.2f}  {same}")
    return 0 if all(r["same_records"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
