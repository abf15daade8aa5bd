"""Benchmark: the mutation score of each game's own tests (`ruleforge mutate`).

For each rules file of games/: every single-point mutant is run against the file's tests (its
examples, its recorded playthroughs and a trial game per player count), and the table says how
many the tests caught, how many survived, and how many survivors have a written reason in the
file's `.mutants.json` (equivalent, unreachable or left on purpose). The target: no survivor
without either a test or a reason. See bench/README.md for the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FILES = ["hagakure", "naishi", "naishi_legends", "nakasendo", "nakasendo_wide"]


def measure(name: str, jobs: int, sample: int | None) -> dict:
    """One file's mutation report, from `ruleforge mutate --json` run from the checkout."""
    cmd = [sys.executable, "-m", "ruleforge", "mutate", f"games/{name}.rules", "--json", "--jobs", str(jobs),
           "--hint-seeds", "0"]
    if sample is not None:
        cmd += ["--sample", str(sample), "--seed", "1"]
    ran = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    if ran.returncode != 0:
        raise SystemExit(f"error: ruleforge mutate games/{name}.rules failed: {ran.stderr.strip() or ran.stdout}")
    return json.loads(ran.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=None, help=f"comma-separated files of {', '.join(FILES)}")
    parser.add_argument("--jobs", type=int, default=2, help="processes per run [2]")
    parser.add_argument("--sample", type=int, default=None, help="run N mutants per file, drawn with seed 1")
    parser.add_argument("--json", action="store_true", help="one JSON document instead of the table")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a survivor has no written reason")
    args = parser.parse_args(argv)
    names = FILES if args.only is None else [n.strip() for n in args.only.split(",")]
    if any(n not in FILES for n in names) or args.jobs < 1 or (args.sample is not None and args.sample < 1):
        print(f"error: --only takes names of {', '.join(FILES)}; --jobs and --sample are >= 1", file=sys.stderr)
        return 2
    rows = []
    for name in names:
        doc = measure(name, args.jobs, args.sample)
        rows.append({"file": f"games/{name}.rules", **{k: doc[k] for k in (
            "generated", "sampled", "refused", "run", "caught", "endless", "timed_out", "crashed", "survived",
            "explained", "unexplained", "score", "seconds")}})
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print("file                          mutants   run  caught  survived  (with reason / without)   score    time")
        for r in rows:
            sampled = f" ({r['sampled']} run)" if r["sampled"] else ""
            print(f"{r['file']:<29} {r['generated']:>7}{sampled} {r['run']:>5} {r['caught']:>7} {r['survived']:>9}"
                  f"  ({r['explained']:>4} / {r['unexplained']:<4})          {r['score']:6.2f}%  {r['seconds']:6.0f} s")
    return 1 if args.strict and any(r["unexplained"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
