"""A folder ruleforge keeps secrets in (the games folder of `serve`: the host page's token, the
seats' tokens, the logs of games in play), and the files it reads back from it.

Whoever may write to such a folder can plant a file that ruleforge would honour (a host token of
theirs opens the host page, which lists every seat's link; a seats file of theirs gives them
known seat links), and whoever may read it sees every hidden card of a game in play. So, as for
the parser cache (`parser_cache.is_own`): the folder must be the user's own, not a symbolic
link, and writable by no one else, and so must every folder above it be, unless only a thing's
owner may rename it there (the sticky bit of /tmp): otherwise another user could swap the
folder for one of theirs. Anything else is refused, saying why; a folder of the user's that
others may only read is made 0700 (and the caller says so). A file in it is read only if it is
a regular file of the user's that no one else may write (`file_refusal`), through
`named_files.read_text` (never a pipe, never past `file_bytes`); the caller skips any other
with a warning naming it. Files written there are created 0600 and renamed into place.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from .diagnostics import GameError
from .named_files import RefusedFile, read_text
from .parser_cache import OTHERS_WRITE

OTHERS_ANY = stat.S_IRWXG | stat.S_IRWXO


class UnsafeFolder(GameError):
    """A folder that cannot hold secrets; the message says which and why."""


def private_folder(path: str | Path, what: str) -> tuple[Path, int | None]:
    """`path` as a folder of secrets (`what`: "games folder"): made with mode 0700 if missing,
    else checked as above and made 0700 if others may read or enter it. The folder's real path
    (a link above it changed later cannot move the secrets elsewhere), and its former mode if
    it was made private here (None if it already was). UnsafeFolder says why it cannot be."""
    given = Path(path)
    try:
        info = _made(given)
    except OSError as err:
        raise UnsafeFolder(f"cannot make the {what} '{path}': {err.strerror or err}") from None
    if stat.S_ISLNK(info.st_mode):
        raise UnsafeFolder(f"the {what} '{path}' is a symbolic link: give the folder itself")
    if not stat.S_ISDIR(info.st_mode):
        raise UnsafeFolder(f"the {what} '{path}' is not a folder")
    if info.st_uid != os.geteuid():
        raise UnsafeFolder(f"the {what} '{path}' belongs to another user (uid {info.st_uid}), who could read "
                           "its secrets or plant their own: choose a folder of your own")
    if info.st_mode & OTHERS_WRITE:
        raise UnsafeFolder(f"others may write to the {what} '{path}' (mode {stat.S_IMODE(info.st_mode):04o}), so "
                           "a file there may have been planted: make it private (chmod 700) once you have "
                           "checked what is in it, or choose another folder")
    real = Path(os.path.realpath(given))
    for above in real.parents:
        why = _unsafe_above(above)
        if why is not None:
            raise UnsafeFolder(f"the {what} '{path}' is in '{above}', which {why}: another user could swap "
                               "the folder for one of theirs; choose a folder in one of your own")
    try:
        again = os.lstat(real)
        if (again.st_dev, again.st_ino) != (info.st_dev, info.st_ino):
            raise UnsafeFolder(f"the {what} '{path}' changed while it was checked")
        was = stat.S_IMODE(info.st_mode)
        if was & OTHERS_ANY:
            os.chmod(real, 0o700)
            return real, was
    except OSError as err:
        raise UnsafeFolder(f"cannot make the {what} '{path}' private: {err.strerror or err}") from None
    return real, None


def _made(folder: Path) -> os.stat_result:
    """The folder's own entry (a link not followed), made with mode 0700 first if missing."""
    try:
        return os.lstat(folder)
    except FileNotFoundError:
        pass
    folder.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):  # made meanwhile: checked as any other
        os.mkdir(folder, 0o700)
    return os.lstat(folder)


def _unsafe_above(folder: Path) -> str | None:
    """Why a folder above a folder of secrets lets another user rename what is in it, or None."""
    try:
        info = os.stat(folder)
    except OSError as err:
        return f"cannot be looked at ({err.strerror or err})"
    if info.st_uid not in (0, os.geteuid()):
        return f"belongs to another user (uid {info.st_uid})"
    if info.st_mode & OTHERS_WRITE and not info.st_mode & stat.S_ISVTX:
        return f"others may write to (mode {stat.S_IMODE(info.st_mode):04o}, without the sticky bit of /tmp)"
    return None


def file_refusal(path: Path) -> str | None:
    """Why a file found in a folder of secrets may not be read, or None if it may: it must be a
    regular file (not a symbolic link) of the user's that no one else may write."""
    try:
        info = os.lstat(path)
    except OSError as err:
        return err.strerror or str(err)
    if stat.S_ISLNK(info.st_mode):
        return "it is a symbolic link"
    if not stat.S_ISREG(info.st_mode):
        return "it is not a regular file"
    if info.st_uid != os.geteuid():
        return f"it belongs to another user (uid {info.st_uid})"
    if info.st_mode & OTHERS_WRITE:
        return f"others may write to it (mode {stat.S_IMODE(info.st_mode):04o})"
    return None


def read_private_text(path: Path, suffix: str, what: str) -> str:
    """The text of a file of a folder of secrets, if `file_refusal` allows it (RefusedFile names
    it and says why not); made 0600 if others could read it."""
    why = file_refusal(path)
    if why is not None:
        raise RefusedFile(f"not reading {what} '{path}': {why}")
    text = read_text(path, suffix, what)
    with contextlib.suppress(OSError):
        if os.lstat(path).st_mode & OTHERS_ANY:
            os.chmod(path, 0o600)
    return text
