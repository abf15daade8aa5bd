"""The built LALR parser kept between runs, where no one else can plant one.

Building the parser's tables takes most of a cold `ruleforge check`, so they are saved after the
first run. The saved form is a pickle, and loading a pickle runs whatever code it holds: it is
kept in a folder of the user's own (`$XDG_CACHE_HOME/ruleforge`, else `~/.cache/ruleforge`),
made with mode 0700, and read only if that folder and the file are the user's and no one else
may write to them. Anything else (another owner, a folder or file others may write, a symbolic
link, a file that does not load) and the parser is built afresh; nothing is ever loaded from the
shared temporary folder.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any

import lark
from lark import Lark

OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH


def cache_folder() -> Path | None:
    """The user's cache folder for ruleforge, made (0700) if missing; None if it cannot be
    made or is not safe to load from."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if os.path.isabs(base) else Path.home() / ".cache"
    folder = root / "ruleforge"
    try:
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=0o700)
        info = os.lstat(folder)
    except (OSError, RuntimeError):  # no home folder, a read-only disk
        return None
    return folder if is_own(info, stat.S_ISDIR) else None


def is_own(info: os.stat_result, kind: Any) -> bool:
    """Whether a folder or file is of the kind wanted (not a symbolic link), the user's, and
    writable by no one else: the only kind a pickle is loaded from."""
    return kind(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & OTHERS_WRITE


def cache_file(folder: Path, grammar: str, options: dict[str, Any]) -> Path:
    """The file of one grammar, options, lark and Python version: a change of any is a new file."""
    key = f"{grammar}\n{sorted(options.items())!r}\n{lark.__version__}\n{sys.version_info[:2]}"
    return folder / f"parser-{hashlib.sha256(key.encode()).hexdigest()[:24]}.pickle"


def load(path: Path) -> Lark | None:
    """The parser saved at `path`, if the file is safe to load (see `is_own`) and loads."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as file:
        if not is_own(os.fstat(fd), stat.S_ISREG):
            return None
        try:
            return Lark.load(file)
        except Exception:  # a file cut short by a full disk, an older format: build afresh
            return None


def save(parser: Lark, path: Path) -> None:
    """Write the parser beside its final name and rename it over, so that another process never
    reads half a file; a failure to write only costs the next run the build."""
    try:
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".parser-", suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as file:
            parser.save(file)
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def cached_lark(grammar: str, **options: Any) -> Lark:
    """`Lark(grammar, **options)`, loaded from the user's cache when a safe copy is there, else
    built and saved there for the next run."""
    folder = cache_folder()
    path = cache_file(folder, grammar, options) if folder is not None else None
    parser = load(path) if path is not None else None
    if parser is None:
        parser = Lark(grammar, **options)
        if path is not None:
            save(parser, path)
    return parser
