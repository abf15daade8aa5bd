"""The bounds of building one module: the size of the source given to Cython, and the seconds
Cython and the C compiler may take together.

A rules file that `check` accepts and the ordinary build plays in seconds can still generate a
module that takes the C compiler hours and gigabytes (a phase pasted in thousands of times, a
table of thousands of entries): Python compiles such a tree in a moment, gcc does not. So the
source is measured before anything is built (`compiled_source_bytes`), and the build runs in a
process group of its own, killed whole once `build_seconds` have passed: `cythonize` and the
compiler it starts (gcc, and gcc's own `cc1`) are children of the build process, and killing
that one alone would leave them running.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from typing import NamedTuple

from ..limits import LIMITS, describe


class Wording(NamedTuple):
    """How a refusal names the build (`the compiled build`) and says what plays instead."""

    build: str
    instead: str


COMPILED = Wording("the compiled build", "without --compiled it plays on the ordinary build")


class BuildTooLarge(Exception):
    """The generated source is past `compiled_source_bytes`: nothing was built."""


class BuildTooLong(Exception):
    """The build ran past `build_seconds`: it was killed, with every process it started."""


def check_size(text: str, players: int, wording: Wording = COMPILED) -> None:
    """BuildTooLarge when the source of the module to build is past the limit."""
    size = len(text.encode("utf-8"))
    if size > LIMITS.compiled_source_bytes:
        raise BuildTooLarge(f"the code generated for {players} players is {size:,} bytes, too large for "
                            f"{wording.build} to build ({describe('compiled_source_bytes')}); {wording.instead}")


def run_bounded(command: list[str], players: int, wording: Wording = COMPILED) -> subprocess.CompletedProcess[str]:
    """Run the build command to its end, its output captured; BuildTooLong, the command and
    everything it started killed, once `build_seconds` have passed (or on Ctrl-C, re-raised).
    Where processes have groups, the command is given one more argument: the reading end of a
    pipe held open until it has ended, so that it can end itself should ruleforge die (build.py)."""
    seconds = LIMITS.build_seconds
    watched, held = (None, None) if os.name == "nt" else os.pipe()
    try:
        # a session of its own: its process group holds the build and all it starts, and Ctrl-C
        # at the terminal reaches only ruleforge, which then ends the group itself
        with subprocess.Popen([*command, *([] if watched is None else [str(watched)])], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, start_new_session=watched is not None,
                              pass_fds=() if watched is None else (watched,)) as child:
            _closed(watched)  # the child's copy is the one it reads
            watched = None
            try:
                out, err = child.communicate(timeout=seconds)
            except subprocess.TimeoutExpired:
                _end(child)
                unit = "second" if seconds == 1 else "seconds"
                raise BuildTooLong(f"building {wording.build} for {players} players took more than {seconds:,} {unit}, "
                                   f"and was stopped ({describe('build_seconds')}); {wording.instead}") from None
            except BaseException:
                _end(child)
                raise
    finally:  # the build has ended here (or never started): the pipe tells it nothing now
        _closed(watched)
        _closed(held)
    return subprocess.CompletedProcess(command, child.returncode, out, err)


def _closed(fd: int | None) -> None:
    if fd is not None:
        os.close(fd)


def _end(child: subprocess.Popen[str]) -> None:
    """Kill the build's process group (the build process alone where there are none) and wait
    for the build process; its pipes are closed on leaving `run_bounded`'s `with`."""
    if os.name == "nt":
        child.kill()
    else:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(child.pid, signal.SIGKILL)  # the group's id is its leader's pid: start_new_session
    child.wait()
