"""The progress bar of the long commands (`simulate`, `compare`, `mutate`), on a terminal only.

It is redrawn by the command as results come in (at most ten times a second), never by a thread
of rich's own: `--jobs` forks worker processes while the bar shows, and a fork taken while
another thread holds a lock (the console's, a stream's) leaves that lock held in the worker,
which waits on it for ever the first time it needs it.
"""

from __future__ import annotations

import time
from typing import Any

from .common import err_console

REDRAW_EVERY = 0.1  # seconds


class ProgressBar:
    """`with ProgressBar(columns, total) as bar: ... bar.advance()`: rich's columns, one task."""

    def __init__(self, columns: list[Any], total: int):
        from rich.progress import Progress

        console = err_console()
        self.progress = Progress(*columns, console=console, transient=True, auto_refresh=False,
                                 disable=not console.is_terminal)
        self.total = total
        self.drawn = 0.0

    def __enter__(self) -> ProgressBar:
        self.progress.__enter__()
        self.task = self.progress.add_task("", total=self.total)
        self.progress.refresh()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.__exit__(*exc)

    def advance(self, description: str | None = None) -> None:
        """One more result done (and the task's description, when given); redrawn if it is time."""
        if description is None:
            self.progress.update(self.task, advance=1)
        else:
            self.progress.update(self.task, advance=1, description=description)
        now = time.monotonic()
        if now - self.drawn >= REDRAW_EVERY:
            self.drawn = now
            self.progress.refresh()

    def print(self, text: Any) -> None:
        """A line above the bar (a failure as it comes)."""
        self.progress.console.print(text, soft_wrap=True)
