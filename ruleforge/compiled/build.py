"""Build one extension module: Cython writes C from the generated Python, the C compiler builds it.

Run as a child process (`python -m ruleforge.compiled.build FOLDER NAME`), so that whatever
Cython, setuptools and the compiler print, and however they fail, reaches the caller as one
exit status and the captured output: the caller (ruleforge/compiled/__init__.py) says it in one
message and plays on without the build. FOLDER holds `NAME.py`; the built module is left
there as `NAME` + the interpreter's extension suffix.
"""

from __future__ import annotations

import os
import sys
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


if __name__ == "__main__":
    build(Path(sys.argv[1]), sys.argv[2])
