"""Child processes a test stops with a signal, independent of how the suite was started.

A suite run in the background (`python -m pytest &`, `nohup`) inherits SIGINT ignored, and so
would every child it starts: a Ctrl-C sent by a test would then do nothing. So a child here
starts with the default dispositions of SIGINT, SIGTERM and SIGHUP (and none of them blocked),
in a process group of its own, and is killed with its whole group when the test ends, passed or
failed: no `simulate -n 1000000` outlives its test. Readiness is a condition awaited with a
deadline (a file appearing, a log growing), never a fixed sleep.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parents[1]
GUARD = 120  # seconds: a hang guard, not a timing
STOPPING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

# `python -c READY_AFTER_A_GAME READY_FILE ruleforge-args...`: the command line, with a file
# touched after each game played (in a worker too: they are forked), so a test knows the batch
# is under way before it sends Ctrl-C.
READY_AFTER_A_GAME = """
import pathlib, sys
from ruleforge.balance import runner
real, ready = runner.play_game, pathlib.Path(sys.argv[1])
def play_game(*args):
    played = real(*args)
    ready.touch()
    return played
runner.play_game = play_game
sys.argv = ["ruleforge", *sys.argv[2:]]
from ruleforge.__main__ import run
run()
"""


# `python -c AT_DEFAULTS PROGRAM ARGS...`: the stopping signals as a terminal would leave them,
# then PROGRAM in this same process (exec keeps default dispositions and the signal mask). Not
# a `preexec_fn`, which runs Python between fork and exec and may deadlock there when the test
# process has threads (an xdist worker always has one).
AT_DEFAULTS = f"""
import os, signal, sys
stopping = {[int(s) for s in STOPPING]!r}
for signum in stopping:
    signal.signal(signum, signal.SIG_DFL)
signal.pthread_sigmask(signal.SIG_UNBLOCK, stopping)
os.execvp(sys.argv[1], sys.argv[1:])
"""


@contextlib.contextmanager
def child(args: list[str], env: dict[str, str] | None = None, **kwargs: Any) -> Iterator[subprocess.Popen[str]]:
    """A process of `args` (text pipes for stdout and stderr unless given), stopped with its
    group on leaving the block whatever happened."""
    kwargs.setdefault("stdout", subprocess.PIPE)
    kwargs.setdefault("stderr", subprocess.PIPE)
    proc = subprocess.Popen([sys.executable, "-c", AT_DEFAULTS, *args], cwd=kwargs.pop("cwd", ROOT),
                            env=env or {**os.environ, "PYTHONPATH": str(ROOT)}, text=True, start_new_session=True,
                            **kwargs)
    try:
        yield proc
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)  # the group: workers too, even after the leader exited
        proc.kill()
        proc.communicate(timeout=GUARD)


def ruleforge_child(*args: str, **kwargs: Any) -> contextlib.AbstractContextManager[subprocess.Popen[str]]:
    """`python -m ruleforge ARGS...` as a `child`."""
    return child([sys.executable, "-m", "ruleforge", *args], **kwargs)


def ruleforge_child_ready_after_a_game(ready: Path, *args: str, **kwargs: Any,
                                       ) -> contextlib.AbstractContextManager[subprocess.Popen[str]]:
    """The command line as a `child` that touches `ready` after each game it plays."""
    return child([sys.executable, "-c", READY_AFTER_A_GAME, str(ready), *args], **kwargs)


def wait_until(condition: Callable[[], bool], proc: subprocess.Popen[str], what: str) -> None:
    """Wait for `condition` while `proc` runs, at most GUARD seconds."""
    deadline = time.monotonic() + GUARD
    while not condition():
        if proc.poll() is not None:
            out, err = proc.communicate()
            raise AssertionError(f"the process ended before {what}: {proc.returncode}\n{out}\n{err}")
        if time.monotonic() > deadline:
            raise AssertionError(f"never {what} in {GUARD} s")
        time.sleep(0.02)  # polling a condition, not a timing
