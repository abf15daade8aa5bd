"""Run one kept fuzz input again, in this process, and print what ruleforge answers.

    python tests/fuzz/reproduce.py FILE [--kind rules|state|position|log] [--game GAME]

FILE is an input the fuzz suite kept (its kind and game are read from the `.txt` beside it or
from a tests/fuzz/known/ file's name, or given). Run from the checkout; the traceback, if any, is printed in full.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def sidecar(path: Path) -> dict[str, str]:
    """`kind:` and `game:` from the note the suite wrote beside a kept input."""
    note = path.with_suffix(".txt")
    fields: dict[str, str] = {}
    if note.exists():
        for line in note.read_text().splitlines()[:3]:
            key, _, value = line.partition(": ")
            fields[key] = value.strip()
    return fields


def from_known_name(path: Path) -> dict[str, str]:
    """`kind` and `game` from a tests/fuzz/known/ name: KIND--NAME.rules or KIND--GAME--NAME.json."""
    parts = path.stem.split("--")
    if len(parts) < 2:
        return {}
    return {"kind": parts[0], "game": parts[1] if parts[0] != "rules" else ""}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--kind", choices=["rules", "state", "position", "log"])
    parser.add_argument("--game", help="the game (games/GAME.rules) a state, position or log belongs to")
    args = parser.parse_args()
    note = sidecar(args.file) or from_known_name(args.file)
    kind = args.kind or note.get("kind") or ("rules" if args.file.suffix == ".rules" else "state")
    game = args.game or note.get("game") or ""
    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(Path(__file__).parent))
    import worker

    os.environ["RULEFORGE_DEBUG"] = "1"
    job = {"kind": kind, "path": str(args.file.resolve()), "game": game}
    try:
        worker.RUNNERS[kind](job)
    except Exception:
        traceback.print_exc()
    verdict = worker.verdict(job)
    print(json.dumps(verdict, indent=1))
    sys.exit(1 if verdict["verdict"] == "failure" else 0)


if __name__ == "__main__":
    main()
