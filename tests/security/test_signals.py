"""Ctrl-C at any moment of a command's start-up: one line, `interrupted`, and exit status 130,
never a KeyboardInterrupt traceback nor click's 'Aborted!'.

Deterministic: the child imports a `sitecustomize` that holds the import of one module (touching
a file to say so) until the test's SIGINT arrives there. Each child starts with SIGINT at its
default and is killed with its group at the end (tests/stopping.py), so the test is the same when
the suite itself runs with SIGINT ignored.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest
from stopping import GUARD, ROOT, child, wait_until

HOLD = """
import importlib.abc, os, pathlib, signal, sys

class Hold(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == os.environ["HOLD_AT"]:
            sys.meta_path.remove(self)
            pathlib.Path(os.environ["HOLD_READY"]).touch()
            signal.pause()  # until the test's Ctrl-C arrives, while the module is being imported
        return None

sys.meta_path.insert(0, Hold())
"""

PICK = str(ROOT / "tests" / "synthetic" / "pick.rules")
LAUNCHERS = {
    "python -m ruleforge": [sys.executable, "-m", "ruleforge"],
    "the ruleforge command": [sys.executable, "-c", "import sys; from ruleforge.__main__ import run; "
                              "sys.argv[0] = 'ruleforge'; sys.exit(run())"],
}


@pytest.mark.parametrize("launcher", LAUNCHERS)
@pytest.mark.parametrize("module, command", [
    ("click", ["check", PICK]),              # the command line's own imports
    ("lark", ["check", PICK]),               # the parser, imported with the engine
    ("ruleforge.cli.check", ["check", PICK]),  # the command's module, imported when it is found
    ("rich.progress", ["simulate", PICK, "-n", "3"]),  # what a command imports as it runs
    ("ruleforge.balance.stats", ["simulate", PICK, "-n", "3"]),
])
def test_ctrl_c_during_start_up(tmp_path: Path, launcher: str, module: str, command: list[str]) -> None:
    (tmp_path / "sitecustomize.py").write_text(HOLD)
    ready = tmp_path / "held"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]),
           "HOLD_AT": module, "HOLD_READY": str(ready)}
    with child([*LAUNCHERS[launcher], *command], env=env) as proc:
        wait_until(ready.exists, proc, f"{module} was imported")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=GUARD)
    assert (proc.returncode, err, out) == (130, "interrupted\n", "")
