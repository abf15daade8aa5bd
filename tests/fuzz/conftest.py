"""Fixtures of the fuzzing suite: one worker process for the session, the scratch folder inputs
are written to, and the counts printed at the end of the run."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings

from .pool import RECORD, Verdict, Worker

ROOT = Path(__file__).resolve().parents[2]

# The known inputs are data for test_known.py, most of them broken on purpose: not rules files
# whose scoring examples the ruleforge pytest plugin should run (one extends games/naishi.rules,
# which has examples).
collect_ignore_glob = ["known/*"]


def examples(default: int) -> int:
    """Examples per fuzz test: `default` for CI's short slice, RULEFORGE_FUZZ_EXAMPLES for a long run."""
    return int(os.environ.get("RULEFORGE_FUZZ_EXAMPLES", default))


def fuzz_settings(default: int) -> settings:
    """Derandomized (CI sees the same inputs every run) unless RULEFORGE_FUZZ_RANDOM=1.

    Inputs never fail inside hypothesis (the test collects verdicts and fails at its end with
    every distinct failure), so there is no shrinking phase to run."""
    return settings(max_examples=examples(default), deadline=None, database=None,
                    derandomize=os.environ.get("RULEFORGE_FUZZ_RANDOM") != "1",
                    phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="session")
def worker() -> Iterator[Worker]:
    w = Worker()
    yield w
    w.stop()


@pytest.fixture(scope="session")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where inputs are written: beside copies of the games, so that `extends "naishi.rules"` resolves."""
    folder = tmp_path_factory.mktemp("fuzz")
    for path in (ROOT / "games").glob("*.rules"):
        shutil.copy(path, folder / path.name)
    return folder


class Fuzzer:
    """Writes an input, has the worker judge it, counts it, keeps it when it fails."""

    def __init__(self, worker: Worker, scratch: Path):
        self.worker = worker
        self.scratch = scratch
        self.found: dict[str, Path] = {}  # this test's failures: key -> first input kept

    def judge(self, kind: str, text: str, game: str = "") -> Verdict:
        suffix = ".rules" if kind == "rules" else ".json"
        path = self.scratch / f"input{suffix}"
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
        verdict = self.worker.judge({"kind": kind, "path": str(path), "game": game})
        RECORD.tried[kind] += 1
        if verdict.failed:
            kept = RECORD.keep(kind, text.encode("utf-8", "surrogatepass"), verdict, game)
            self.found.setdefault(f"{kind}: {verdict.key}", kept)
        return verdict

    def report(self) -> str:
        return "\n".join(f"{key}\n    reproduce: python tests/fuzz/reproduce.py {path}"
                         for key, path in sorted(self.found.items()))


@pytest.fixture
def fuzzer(worker: Worker, scratch: Path) -> Fuzzer:
    return Fuzzer(worker, scratch)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if sum(RECORD.tried.values()):
        terminalreporter.section("ruleforge fuzzing")
        for line in RECORD.summary():
            terminalreporter.write_line(line)
