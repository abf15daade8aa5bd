"""Inputs the fuzzer found that got no clear answer, kept as data: each must get one now.

Every file in tests/fuzz/known/ is named `KIND--NAME.rules` (a rules file) or
`KIND--GAME--NAME.json` (a saved state, position or log of games/GAME.rules). Each is judged
like a fuzz input (tests/fuzz/worker.py), with a shorter time bound: these files are small,
so a clear answer comes at once. A test here fails until the bug it reproduces is fixed; when
the fuzzer finds a new kind of failure, add its smallest input here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .pool import Worker

KNOWN = sorted(p for p in (Path(__file__).parent / "known").iterdir() if p.suffix in (".rules", ".json"))
KNOWN_TIMEOUT = 5.0

pytestmark = pytest.mark.fuzz


def job(path: Path) -> dict[str, str]:
    parts = path.stem.split("--")
    kind = parts[0]
    game = parts[1] if kind != "rules" else ""
    return {"kind": kind, "path": str(path), "game": game}


def test_known_inputs_are_named_by_kind() -> None:
    assert KNOWN, "tests/fuzz/known/ holds no input"
    for path in KNOWN:
        j = job(path)
        assert j["kind"] in ("rules", "state", "position", "log"), path.name
        if j["kind"] != "rules":
            assert (Path(__file__).parents[2] / "games" / f"{j['game']}.rules").exists(), path.name


@pytest.mark.parametrize("path", KNOWN, ids=[p.name for p in KNOWN])
def test_known_input_gets_a_clear_answer(worker: Worker, path: Path) -> None:
    verdict = worker.judge(job(path), timeout=KNOWN_TIMEOUT)
    assert not verdict.failed, f"{path.name}: {verdict.key}\n{verdict.detail}"
