"""The engines play the same games: every decision of many seeded games compared.

    python bench/differential.py                      # 10,000 games per game and player count
    python bench/differential.py --games 200 games/naishi.rules --jobs 2
    python bench/differential.py --engine native      # the native engine, 10,000 games each

Each game is played with the same random choices on the block machine (the reference engine)
and on another engine: the generator back end (`ruleforge/testing/backends.py`: at every
decision the same player, decision point and legal actions in order, and the same state, log
and scores at the end), or with `--engine native` the native engine
(`ruleforge/testing/native_backend.py`: every decision's player and legal actions in order, and
the same final state, ranking keys and totals). Prints one line per game and player count;
exits 1 at the first difference, naming the seed and the decision. Rules the other engine does
not play are listed as such, with the reason.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import ruleforge  # noqa: E402
from ruleforge.flowplay import flow_main  # noqa: E402
from ruleforge.testing.backends import BackendsDiffer, compare_backends  # noqa: E402

ENGINES = ("generator", "native")


def compare_range(job: tuple[str, int, int, int, str]) -> tuple[int, int, str | None]:
    """Games `first` to `first + count - 1` of one rules file and player count on `engine`:
    (games, decisions compared, the first difference or None)."""
    path, players, first, count, engine = job
    program = ruleforge.load(path).program(players)
    compare = compare_backends
    if engine == "native":
        from ruleforge.testing.native_backend import compare_native as compare
    decisions = games = 0
    for seed in range(first, first + count):
        try:
            decisions += compare(program, seed, random.Random(seed))
        except BackendsDiffer as err:
            return games, decisions, str(err)
        except ruleforge.GameError:
            pass  # a rules failure both back ends raised alike
        games += 1
    return games, decisions, None


def refusal(program: object, engine: str) -> str | None:
    """Why `engine` does not play this program (so there is nothing to compare), or None. The
    native engine is built here, once, before the workers import it from the cache."""
    if flow_main(program) is None:
        return "block machine only (turn together)"
    if engine == "native":
        from ruleforge.native.engine import NativeRefused, native_engine

        try:
            native_engine(program)
        except NativeRefused as err:
            return f"the reference engine only: {err}"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rules", nargs="*", help="rules files (default: every file in games/)")
    parser.add_argument("--games", type=int, default=10_000, help="games per rules file and player count")
    parser.add_argument("--seed", type=int, default=0, help="the first seed")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--engine", choices=ENGINES, default="generator",
                        help="the engine held to the block machine (default: the generator back end)")
    args = parser.parse_args(argv)
    paths = [Path(p) for p in args.rules] or sorted((ROOT / "games").glob("*.rules"))
    failed = False
    with multiprocessing.Pool(args.jobs) as pool:
        for path in paths:
            rules = ruleforge.load(path)
            low, high = rules.model.players
            for players in range(low, high + 1):
                refused = refusal(rules.program(players), args.engine)
                if refused:
                    print(f"{path.stem:16} {players}p  {refused}")
                    continue
                start = time.perf_counter()
                size = max(1, args.games // (args.jobs * 4))
                jobs = [(str(path), players, first, min(size, args.seed + args.games - first), args.engine)
                        for first in range(args.seed, args.seed + args.games, size)]
                games = decisions = 0
                problem = None
                for done, compared, difference in pool.imap(compare_range, jobs):
                    games += done
                    decisions += compared
                    problem = problem or difference
                took = time.perf_counter() - start
                verdict = "the same" if problem is None else f"DIFFERENT: {problem}"
                print(f"{path.stem:16} {players}p  {games:>6,} games  {decisions:>10,} decisions  {took:7.1f} s  "
                      f"{verdict}", flush=True)
                failed = failed or problem is not None
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
