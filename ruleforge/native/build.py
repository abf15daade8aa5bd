"""Build the native engine's C source into an extension module, and import it.

The lowering writes a compiled game as one C source text, a CPython extension module that
includes the hand-written runtime of `c/` (`rf_runtime.h`, `rf_module.c`). `load_native` gives
that text to the C compiler as it is, with the flags of `C_FLAGS` and no other text, in a folder
of its own inside the private cache (cache.py), renames the built file into
place and imports it. The module's name is `rfn_` and a digest of the source, the files of `c/`,
the compiler (its real path and the first line of its `--version`), the flags, and the Python and
ruleforge versions: the same source on the same machine is built once and imported after.

The build is bounded (bounds.py): a source past
`compiled_source_bytes` is refused before anything is built, and the compiler runs in a process
group of its own, killed whole past `build_seconds`. Its parent in that group is this module,
run as `python -m ruleforge.native.build FOLDER CC ARGS... [FD]`: it runs the compiler in FOLDER
and exits with its status, and kills its group itself should ruleforge die
(bounds.py's `end_with_caller`).

A machine without a C compiler, Python's headers or a private cache folder builds no module:
NativeUnavailable says which, and says it again at once for the rest of the process. A source
that does not build is NativeUnavailable with the compiler's first error; the next is tried.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import types
from collections.abc import Callable
from pathlib import Path

from .. import __version__
from ..limits import LIMITS
from . import cache
from .bounds import check_size, end_with_caller, failure_line, run_bounded

C_DIR = Path(__file__).with_name("c")  # the runtime every module includes
# gcc and clang. -fwrapv and -fno-strict-aliasing as CPython builds itself; no debugging
# information; macOS resolves Python's symbols when the module is loaded, not when it is linked
C_FLAGS = ("-O2", "-g0", "-shared", "-fPIC", "-std=gnu11", "-fwrapv", "-fno-strict-aliasing",
           *(("-undefined", "dynamic_lookup") if sys.platform == "darwin" else ()))
PREFIX = "rfn_"  # a native module's name, before its digest


class NativeUnavailable(Exception):
    """No native module can be had on this machine (no C compiler, no Python headers, no private
    cache, a build that failed): the reason in a few words."""


# told, when set, that a module is about to be built: the command line says so on stderr
on_build: Callable[[], None] | None = None
_unavailable: str | None = None  # why this machine builds no module (said again at once, not tried)


def load_native(source: str, players: int, *, include_dir: Path | None = None) -> types.ModuleType:
    """The extension module built from `source`, imported from the private cache or built there
    first. `include_dir` holds the files the source includes (the runtime of `c/` unless given).
    BuildTooLarge or BuildTooLong (bounds.py) when the source is past a limit
    of building, NativeUnavailable when no module can be had."""
    place, compiler, identity, headers = _machine()
    include = (include_dir or C_DIR).resolve()
    command = [*compiler, *C_FLAGS, f"-I{headers}", f"-I{include}"]
    versions = f"ruleforge {__version__}, {identity}, {C_FLAGS!r}, {headers}, {_digest(include)}"
    name = cache.module_name(source, versions, PREFIX)
    path = cache.built_path(place, name)
    module = _imported(path, name)
    if module is None:
        check_size(source, players)  # what was built once, under a limit raised then, is imported
        if on_build is not None:
            on_build()
        _build(place, name, source, [*command, f"-DRF_MODULE={name}"], path, players)
        try:
            module = cache.load(path, name)
        except ImportError as err:
            raise NativeUnavailable(f"the module built could not be imported: {err}") from None
        if module is None:
            raise NativeUnavailable(f"the module built at {path} could not be imported")
    return module


def _machine() -> tuple[Path, list[str], str, Path]:
    """The cache folder, the C compiler's command and identity, and Python's headers;
    NativeUnavailable, for the rest of the process, when one is missing."""
    global _unavailable
    if _unavailable is None:
        try:
            place = cache.folder()
            if place is None:
                raise NativeUnavailable("no private cache folder to keep it in (set RULEFORGE_CACHE to one of yours)")
            compiler = _compiler()
            return place, compiler, _identity(tuple(compiler)), _headers()
        except NativeUnavailable as err:
            _unavailable = str(err)
    raise NativeUnavailable(_unavailable)


def _compiler() -> list[str]:
    """The C compiler's command: $CC, else the one Python was built with, else cc, gcc or clang."""
    named = os.environ.get("CC", "").strip()
    if named:
        try:
            words = shlex.split(named)
        except ValueError as err:
            raise NativeUnavailable(f"CC ({named}) is not a command: {err}") from None
        found = shutil.which(words[0])
        if found is None:
            raise NativeUnavailable(f"the C compiler CC names ({words[0]}) was not found")
        return [found, *words[1:]]
    built_with = (sysconfig.get_config_var("CC") or "").split()[:1]
    for word in [*built_with, "cc", "gcc", "clang"]:
        found = shutil.which(word)
        if found is not None:
            return [found]
    raise NativeUnavailable("no C compiler (cc, gcc or clang) was found")


@functools.cache
def _identity(compiler: tuple[str, ...]) -> str:
    """The compiler's real path, its other words and the first line of its `--version`: asked
    once a process."""
    seconds = LIMITS.build_seconds
    try:
        done = subprocess.run([*compiler, "--version"], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              errors="replace", timeout=seconds)
    except subprocess.TimeoutExpired:
        raise NativeUnavailable(f"the C compiler {compiler[0]} did not answer --version in {seconds:,} "
                                "seconds") from None
    except OSError as err:
        raise NativeUnavailable(f"the C compiler {compiler[0]} could not be run ({err.strerror})") from None
    said = (done.stdout.strip() or done.stderr.strip()).splitlines()
    return shlex.join([str(Path(compiler[0]).resolve()), *compiler[1:], *said[:1]])


def _headers() -> Path:
    """Python's include folder, which must hold Python.h."""
    include = Path(sysconfig.get_paths()["include"])
    if not (include / "Python.h").is_file():
        raise NativeUnavailable(f"no Python headers: {include} has no Python.h (install the Python development "
                                "package: python3-dev on Debian and Ubuntu)")
    return include


def _digest(include: Path) -> str:
    """A digest of every file under `include`: its name and its bytes."""
    digest = hashlib.sha256()
    try:
        for file in sorted(path for path in include.rglob("*") if path.is_file()):
            data = file.read_bytes()
            digest.update(f"{file.relative_to(include).as_posix()}\0{len(data)}\0".encode())
            digest.update(data)
    except OSError as err:
        raise NativeUnavailable(f"the runtime's C files could not be read: {err}") from None
    return digest.hexdigest()


def _imported(path: Path, name: str) -> types.ModuleType | None:
    try:
        return cache.load(path, name)
    except ImportError:  # a file cut short, built for another system: build it again
        return None


def _build(place: Path, name: str, source: str, command: list[str], path: Path, players: int) -> None:
    """Build the module in a folder of its own inside the cache, then rename it into place; the
    build is killed, and BuildTooLong, past `build_seconds`."""
    try:
        work = Path(tempfile.mkdtemp(dir=place, prefix=".build-"))
    except OSError as err:
        raise NativeUnavailable(f"no folder to build it in: {err}") from None
    try:
        (work / f"{name}.c").write_text(source, encoding="utf-8")
        done = run_bounded([sys.executable, "-m", "ruleforge.native.build", str(work), *command, "-o", path.name,
                            f"{name}.c"], players)
        built = work / path.name
        if done.returncode != 0 or not built.is_file():
            line = failure_line(done.stderr + done.stdout, first=True, marker="error:")
            raise NativeUnavailable(f"building it failed: {line}")
        cache.install(built, path)
    except OSError as err:
        raise NativeUnavailable(f"the build could not be made: {err}") from None
    finally:
        cache.discard(work)


def _compile(argv: list[str]) -> int:
    """`FOLDER CC ARGS... [FD]`: run the compiler in FOLDER, as this process's child; its status."""
    if os.name != "nt":  # run_bounded gives the pipe's end last
        end_with_caller(int(argv.pop()))
    folder, *compiler = argv
    return subprocess.run(compiler, cwd=folder, stdin=subprocess.DEVNULL).returncode


if __name__ == "__main__":
    sys.exit(_compile(sys.argv[1:]))
