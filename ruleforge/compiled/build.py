"""Build one extension module: Cython writes C from the generated Python, the C compiler builds it.

Run as a child process (`python -m ruleforge.compiled.build FOLDER NAME [FD]`), so that
whatever Cython, setuptools and the compiler print, and however they fail, reaches the caller as
one exit status and the captured output: the caller (ruleforge/compiled/__init__.py) says it in
one message and plays on without the build. FOLDER holds `NAME.py`; the built module is left
there as `NAME` + the interpreter's extension suffix.

The caller runs it as the leader of a process group of its own and kills the group past
`build_seconds` (bounds.py). FD is the reading end of a pipe whose other end the caller holds
open while it waits: should the caller die without killing the group (SIGKILL, or a SIGTERM
nothing handles), the pipe ends, and the build kills its group itself, compiler included,
instead of building on unbounded with no one waiting for it.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path

# Cython's directives for generated code. Every variable of it is a Python object, so
# `boundscheck` and `wraparound` would only change list indexing, which the code relies on
# (a negative index, an IndexError): they keep their safe defaults. `binding=False` (plain C
# functions) measured no faster, and Cython's function objects keep `__code__`, whose lines
# `rule_errors.block_pos` reads; the source's comments in the C file only slow the build.
DIRECTIVES = {"language_level": 3, "emit_code_comments": False}
# gcc and clang: -O1 without debugging information builds a large module in a third of the time
# -O3 -g (Python's own flags) takes, and its games run as fast as with -O2 (bench/README.md)
C_FLAGS = [] if os.name == "nt" else ["-O1", "-g0"]
BUILD_KEY = f"{sorted(DIRECTIVES.items())!r} {C_FLAGS!r}"


def build(folder: Path, name: str) -> Path:
    """Cythonize and compile `folder/name.py`; the built module's path."""
    from Cython.Build import cythonize
    from setuptools import Distribution, Extension

    source = folder / f"{name}.py"
    [extension] = cythonize([Extension(name, [str(source)], extra_compile_args=C_FLAGS)],
                            compiler_directives=DIRECTIVES, quiet=True, force=True)
    dist = Distribution({"name": name, "ext_modules": [extension]})
    command = dist.get_command_obj("build_ext")
    command.build_lib = str(folder)
    command.build_temp = str(folder / "build")
    dist.run_command("build_ext")
    return Path(command.get_ext_fullpath(name))


def failure_line(output: str, *, first: bool = False, marker: str = "error") -> str:
    """The line of a failed build's output that says what failed: its last line naming an error
    (setuptools sums up last), or with `first` its first (a C compiler's first error is the cause,
    the later ones often follow from it); else its last line. `marker` is what names an error."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    errors = [line for line in lines if marker in line.lower()]
    return (errors or lines or ["no output"])[0 if first else -1][:300]


def end_with_caller(fd: int) -> None:
    """Kill this process group (this process alone if it leads none) once `fd` reads as ended."""

    def watch() -> None:
        try:
            while os.read(fd, 1):
                pass
        except OSError:
            pass
        leader = os.getpgid(0) == os.getpid()
        os.killpg(0, signal.SIGKILL) if leader else os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, name="caller-watch", daemon=True).start()


if __name__ == "__main__":
    if len(sys.argv) > 3:
        end_with_caller(int(sys.argv[3]))
    build(Path(sys.argv[1]), sys.argv[2])
