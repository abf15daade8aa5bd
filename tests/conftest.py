"""Settings every test of the project shares."""

from __future__ import annotations

import faulthandler
import os
import sys
from collections.abc import Iterator

import pytest

# Hang guards, not timings (the slowest test takes about 80 s here). pyproject.toml's `timeout`
# (pytest-timeout) fails a test stuck for 10 minutes and replaces its worker, so that a run always
# ends; 5 minutes in, every thread's stack goes to the real stderr (past xdist's capture, so CI
# shows it), to say where the test is stuck. A long fuzzing run (RULEFORGE_FUZZ_EXAMPLES) takes
# as long as it was asked to, with neither.
LONG_RUN = bool(os.environ.get("RULEFORGE_FUZZ_EXAMPLES"))
STACKS_AFTER = 300.0


_STACKS_TO: list[int] = []  # a copy of stderr made before tests capture it


def pytest_configure(config: pytest.Config) -> None:
    if not LONG_RUN:
        _STACKS_TO[:] = [os.dup(sys.stderr.fileno())]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if LONG_RUN:
        for item in items:
            item.add_marker(pytest.mark.timeout(0))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    if not _STACKS_TO:
        return (yield)
    faulthandler.dump_traceback_later(STACKS_AFTER, file=_STACKS_TO[0])
    try:
        return (yield)
    finally:
        faulthandler.cancel_dump_traceback_later()

# pytest-xdist marks its workers with these; a pytest that a test runs as a subprocess (the
# docs' walk-throughs, the designer's workflow) must not take itself for a worker, or syrupy
# there keeps its snapshot report for a controller that does not exist.
XDIST_VARIABLES = ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID")


@pytest.fixture(autouse=True)
def _subprocesses_are_not_xdist_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in XDIST_VARIABLES:
        monkeypatch.delenv(name, raising=False)
