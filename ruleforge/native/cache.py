"""Where the native engine's built modules are kept, and the only way one is imported again.

Built modules live in a folder of the user's own: `$RULEFORGE_CACHE` when set, else `native`
in ruleforge's cache folder (`$XDG_CACHE_HOME/ruleforge`, else `~/.cache/ruleforge`), made
with mode 0700. A module's name is the digest of the source it was built from with what else
it depends on (the Python and ruleforge versions, the compiler and its flags: build.py), so a
name is only ever asked for by a program that generated that very source; it is imported only
from a folder and a file that are the user's and writable by no one else
(`parser_cache.is_own`), else built afresh. Builds run in a temporary folder inside the cache
and are renamed into place, so two processes building the same module never see half of one.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.machinery
import importlib.util
import os
import shutil
import stat
import sys
import sysconfig
import tempfile
from pathlib import Path
from types import ModuleType

from ..parser_cache import cache_folder, is_own

SUFFIX = sysconfig.get_config_var("EXT_SUFFIX") or importlib.machinery.EXTENSION_SUFFIXES[0]


def folder() -> Path | None:
    """The folder of built modules, made (0700) if missing; None if it cannot be made or is
    not safe to import from."""
    override = os.environ.get("RULEFORGE_CACHE", "")
    if override:
        place = Path(override)
    else:
        base = cache_folder()
        if base is None:
            return None
        place = base / "native"
    try:
        place.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(place)
    except (OSError, RuntimeError):
        return None
    return place if is_own(info, stat.S_ISDIR) else None


def module_name(source: str, versions: str, prefix: str) -> str:
    """The name a module built from `source` has: `prefix` (the native engine's `rfn_`) and a
    digest of all it depends on."""
    digest = hashlib.sha256(f"{versions}\n{sys.version}\n{source}".encode()).hexdigest()
    return f"{prefix}{digest[:32]}"


def built_path(place: Path, name: str) -> Path:
    return place / f"{name}{SUFFIX}"


_LOADED: set[str] = set()  # the modules this process has imported, by name


def load(path: Path, name: str) -> ModuleType | None:
    """The module built at `path`, if the file is the user's and no one else may write it.

    Each program needs a module of its own, which it binds to its own catalogue of actions; but
    an extension module is initialised once per process, and importing it again returns the
    same module.
    A second program from the same source (the same rules loaded twice) therefore imports a
    private copy of the file, which the system loads as a library of its own."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    if not is_own(info, stat.S_ISREG):
        return None
    if name not in _LOADED:
        module = _import(path, name)
        _LOADED.add(name)
        return module
    fd, copy = tempfile.mkstemp(dir=path.parent, prefix=f".{name}-", suffix=SUFFIX)
    try:
        with os.fdopen(fd, "wb") as out, open(path, "rb") as built:
            shutil.copyfileobj(built, out)
        return _import(Path(copy), name)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(copy)  # the library stays loaded


def _import(path: Path, name: str) -> ModuleType | None:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def install(built: Path, path: Path) -> None:
    """Move a module built in a temporary folder to its place, in one rename (the last of two
    processes building the same module wins; both built the same)."""
    os.chmod(built, 0o700)
    os.replace(built, path)  # a file moved (an atomic rename), not text: the built module is never edited


def discard(folder_path: Path) -> None:
    """Remove a temporary build folder and what is in it."""
    with contextlib.suppress(OSError):
        shutil.rmtree(folder_path)
