"""The fuzz harness itself: a hang, a dead worker and a memory hog are each caught as a
failure, and the worker is started again for the next input (else fuzzing would stop at the
first hang, or count a crash as a pass)."""

from __future__ import annotations

import pytest

from .pool import Worker

pytestmark = pytest.mark.fuzz


def harness_check(worker: Worker, how: str, timeout: float = 3.0) -> str:
    verdict = worker.judge({"kind": "harness-check", "path": how, "game": ""}, timeout=timeout)
    assert verdict.failed
    return verdict.key


def test_a_hang_is_a_timeout_and_the_worker_comes_back(worker: Worker) -> None:
    assert harness_check(worker, "hang", timeout=1.0) == "timeout (1 s) on harness-check"
    assert harness_check(worker, "die") == "worker died (exit 3)"
    assert not worker.judge({"kind": "harness-check", "path": "nothing", "game": ""}).failed


def test_memory_is_capped(worker: Worker) -> None:
    assert harness_check(worker, "memory", timeout=60.0) == "MemoryError in worker.py:run_harness_check"
