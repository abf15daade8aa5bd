"""Settings every test of the project shares."""

from __future__ import annotations

import pytest

# pytest-xdist marks its workers with these; a pytest that a test runs as a subprocess (the
# docs' walk-throughs, the designer's workflow) must not take itself for a worker, or syrupy
# there keeps its snapshot report for a controller that does not exist.
XDIST_VARIABLES = ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID")


@pytest.fixture(autouse=True)
def _subprocesses_are_not_xdist_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in XDIST_VARIABLES:
        monkeypatch.delenv(name, raising=False)
