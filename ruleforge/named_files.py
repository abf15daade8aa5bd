"""The one rule for files ruleforge did not get from the user's own command line: a variant's
`extends`, a log's rules, an example's position, the files found by walking a folder (a rules
file's examples, records and move counts; `fmt`'s and pytest's finds), and the files a server
opens (the language server's bases, the games folder of `serve`).

Such a file may come from a stranger, so it is read only if it is a regular file of the kind
expected (a `.rules` file, a `.json` position), wherever it is: never a folder, a pipe or a
device (reading one could wait or read for ever), never a file of /proc, /sys or /dev (the
environment, the kernel's state), never through a loop of symbolic links, and never larger than
`file_bytes`. A refusal names the file and why, and never shows a line of it, so that a link
named `x.rules` that leads to a secret cannot make an error message quote the secret.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from .diagnostics import GameError
from .limits import LIMITS, describe

SYSTEM_FOLDERS = ("/proc", "/sys", "/dev")


class RefusedFile(GameError):
    """A file that may not be read under the rule above; the message says which and why."""


def real_path(path: str | Path) -> str:
    """Where `path` leads through its symbolic links, never raising (a loop of links ends where
    the loop is found, as `os.path.realpath` does on every Python)."""
    return os.path.realpath(path)


def refusal(path: str | Path, suffix: str) -> str | None:
    """Why `path` may not be read as a file named by another file or found in a folder, or None
    if it may: it (and the file a symbolic link leads to) must be a regular file whose name ends
    in `suffix`, outside /proc, /sys and /dev. A path that does not exist is None: reading it
    says so."""
    real = real_path(path)
    try:
        mode = os.stat(real).st_mode
    except OSError as err:
        return "its symbolic links make a loop" if err.errno == errno.ELOOP else None
    except ValueError:  # a NUL in the name: no such file can exist
        return None
    if stat.S_ISDIR(mode):
        return "it is a folder"
    if stat.S_ISFIFO(mode):
        return "it is a named pipe"
    if stat.S_ISSOCK(mode):
        return "it is a socket"
    if not stat.S_ISREG(mode):
        return "it is a device"
    for folder in SYSTEM_FOLDERS:
        if real == folder or real.startswith(folder + os.sep):
            return f"it is a file of {folder}"
    if not str(path).endswith(suffix):
        return f"its name does not end in {suffix}"
    if not real.endswith(suffix):
        return f"it is a symbolic link to a file whose name does not end in {suffix}"
    return None


def read_bytes(path: str | Path, suffix: str, what: str) -> bytes:
    """The bytes of a file under the rule above; RefusedFile names the file, what it was read as
    (`what`: "rules file", "move-count file") and why it was not read. The file is opened without
    waiting (a pipe swapped in after the check is refused, not waited on) and read no further than
    `file_bytes`."""
    why = refusal(path, suffix)
    if why is not None:
        raise RefusedFile(f"cannot read {what} '{path}': {why}")
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as err:
        reason = "its symbolic links make a loop" if err.errno == errno.ELOOP else (err.strerror or str(err))
        raise RefusedFile(f"cannot read {what} '{path}': {reason}") from None
    except ValueError:
        raise RefusedFile(f"cannot read {what} '{path}': no such file") from None
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise RefusedFile(f"cannot read {what} '{path}': it is not a regular file")
        most = LIMITS.file_bytes
        try:
            data = file.read(most + 1)
        except OSError as err:
            raise RefusedFile(f"cannot read {what} '{path}': {err.strerror or err}") from None
    if len(data) > most:
        raise RefusedFile(f"cannot read {what} '{path}': it is larger than {most:,} bytes ({describe('file_bytes')})")
    return data


def read_text(path: str | Path, suffix: str, what: str) -> str:
    """`read_bytes` decoded as UTF-8 (a byte-order mark dropped); text that is not UTF-8 is a
    RefusedFile too, without a byte of it shown."""
    try:
        return read_bytes(path, suffix, what).decode("utf-8-sig")
    except UnicodeDecodeError:
        raise RefusedFile(f"{what} '{path}' is not UTF-8 text") from None
