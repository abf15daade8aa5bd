"""The bounds of building one native module: the size of the C source given to the compiler, and
the seconds the compiler may take; and what a failed build says.

A rules file that `check` accepts and the reference engine plays in seconds can still lower to a
C unit that takes the compiler hours and gigabytes (a phase pasted in thousands of times, a
table of thousands of entries): Python compiles such a tree in a moment, gcc does not. So the
source is measured before anything is built (`compiled_source_bytes`), and the build runs in a
process group of its own, killed whole once `build_seconds` have passed: the compiler and its
own children (gcc's `cc1`, `as`, `collect2`) are children of the build process (build.py), and
killing that one alone would leave them running.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading

from ..limits import LIMITS, describe


class BuildTooLarge(Exception):
    """The generated source is past `compiled_source_bytes`: nothing was built."""


class BuildTooLong(Exception):
    """The build ran past `build_seconds`: it was killed, with every process it started."""


def check_size(text: str, players: int) -> None:
    """BuildTooLarge when the source of the module to build is past the limit."""
    size = len(text.encode("utf-8"))
    if size > LIMITS.compiled_source_bytes:
        raise BuildTooLarge(f"the code generated for {players} players is {size:,} bytes, too large for "
                            f"the native engine to build ({describe('compiled_source_bytes')})")


def run_bounded(command: list[str], players: int) -> subprocess.CompletedProcess[str]:
    """Run the build command to its end, its output captured; BuildTooLong, the command and
    everything it started killed, once `build_seconds` have passed (or on Ctrl-C, re-raised).
    Where processes have groups, the command is given one more argument: the reading end of a
    pipe held open until it has ended, so that it can end itself should ruleforge die
    (`end_with_caller`)."""
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
                raise BuildTooLong(f"building the native engine for {players} players took more than {seconds:,} "
                                   f"{unit}, and was stopped ({describe('build_seconds')})") from None
            except BaseException:
                _end(child)
                raise
    finally:  # the build has ended here (or never started): the pipe tells it nothing now
        _closed(watched)
        _closed(held)
    return subprocess.CompletedProcess(command, child.returncode, out, err)


def end_with_caller(fd: int) -> None:
    """Run in the build process: kill this process group (this process alone if it leads none)
    once `fd`, the pipe `run_bounded` holds open, reads as ended. Should ruleforge die without
    killing the group (SIGKILL, or a SIGTERM nothing handles), the build ends itself, compiler
    included, instead of building on unbounded with no one waiting for it."""

    def watch() -> None:
        try:
            while os.read(fd, 1):
                pass
        except OSError:
            pass
        leader = os.getpgid(0) == os.getpid()
        os.killpg(0, signal.SIGKILL) if leader else os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, name="caller-watch", daemon=True).start()


def failure_line(output: str, *, first: bool = False, marker: str = "error") -> str:
    """The line of a failed build's output that says what failed: its last line naming an error,
    or with `first` its first (a C compiler's first error is the cause, the later ones often
    follow from it); else its last line. `marker` is what names an error."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    errors = [line for line in lines if marker in line.lower()]
    return (errors or lines or ["no output"])[0 if first else -1][:300]


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
