"""Worker processes are forked while no thread of the command runs.

On a terminal, `simulate`, `compare` and `mutate` show a progress bar while `--jobs` forks their
workers (and `mutate` forks new ones as it goes). A fork taken while another thread holds a lock
(a console's, a stream's) leaves the worker holding it locked for ever, so the bar is drawn by
the command between results, never by a thread of rich's own.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from ruleforge.cli import main

ROOT = Path(__file__).parents[1]
HAGAKURE = str(ROOT / "games" / "hagakure.rules")
PADDIES = str(ROOT / "docs" / "examples" / "paddies" / "paddies.rules")


@pytest.mark.parametrize(("args", "bar"), [
    (["simulate", HAGAKURE, "-n", "40", "--jobs", "2"], "simulating"),
    (["compare", HAGAKURE, HAGAKURE, "-n", "20", "--jobs", "2"], "playing"),
    (["mutate", PADDIES, "--sample", "4", "--hint-seeds", "0", "--jobs", "2"], "mutating"),
])
def test_workers_are_forked_with_no_thread_of_the_command_running(monkeypatch: pytest.MonkeyPatch, args: list[str],
                                                                  bar: str) -> None:
    monkeypatch.setenv("TTY_COMPATIBLE", "1")  # rich takes stderr for a terminal: the bar is shown
    before = set(threading.enumerate())
    forks: list[list[str]] = []
    real_fork = os.fork

    def fork() -> int:
        forks.append([t.name for t in threading.enumerate() if t not in before])
        return real_fork()

    monkeypatch.setattr(os, "fork", fork)
    result = CliRunner().invoke(main, args)
    assert result.exit_code in (0, 1), result.output  # mutate exits 1 below its score's bar
    assert bar in result.stderr  # the progress bar was drawn
    assert forks and all(not threads for threads in forks), forks
