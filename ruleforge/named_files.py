"""Files named by other files: a variant's `extends`, a log's rules, an example's position.

Such a file may come from a stranger, so what it names is read only if it is a regular file of
the kind expected (a `.rules` file, a `.json` position), wherever it is: never a folder, a pipe
or a device (reading one could wait or read for ever) and never a file of /proc, /sys or /dev
(the environment, the kernel's state), whose text an error message would otherwise quote.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

SYSTEM_FOLDERS = ("/proc", "/sys", "/dev")


def refusal(path: str | Path, suffix: str) -> str | None:
    """Why `path` may not be read as a file named by another file, or None if it may: it (and
    the file a symbolic link leads to) must be a regular file whose name ends in `suffix`, outside
    /proc, /sys and /dev. A path that does not exist is None: reading it says so."""
    real = os.path.realpath(path)
    try:
        mode = os.stat(real).st_mode
    except OSError:
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
    if not (str(path).endswith(suffix) and real.endswith(suffix)):
        return f"its name does not end in {suffix}"
    return None
