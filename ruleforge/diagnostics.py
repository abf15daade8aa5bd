"""Error reports that name a file, line and column, show the line with a caret, and hint."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

import attrs

from .ast import Pos


@attrs.frozen
class Diagnostic:
    pos: Pos
    message: str
    hint: str | None = None

    def render(self, sources: dict[str, str]) -> str:
        """`file:line:col: message`, then the source line, a caret and the hint."""
        if self.pos.line > 0:
            head = f"{self.pos.file}:{self.pos.line}:{self.pos.column}: error: {self.message}"
        else:  # about the file as a whole (it cannot be read, say)
            head = f"{self.pos.file}: error: {self.message}"
        lines = [head]
        text = sources.get(self.pos.file)
        if text is not None and self.pos.line > 0:
            src_lines = text.splitlines()
            if self.pos.line <= len(src_lines):
                src = src_lines[self.pos.line - 1]
                lines.append(f"    {src}")
                width = 1
                if self.pos.end_line == self.pos.line and self.pos.end_column > self.pos.column:
                    width = self.pos.end_column - self.pos.column
                lines.append("    " + " " * (self.pos.column - 1) + "^" * max(1, width))
        if self.hint:
            lines.append(f"    hint: {self.hint}")
        return "\n".join(lines)


class RulesError(Exception):
    """A rules file could not be loaded; carries every diagnostic found at once."""

    def __init__(self, diagnostics: list[Diagnostic], sources: dict[str, str]):
        self.diagnostics = sorted(diagnostics, key=lambda d: (d.pos.file, d.pos.line, d.pos.column))
        self.sources = sources
        super().__init__(self.render())

    def render(self) -> str:
        return "\n".join(d.render(self.sources) for d in self.diagnostics)


class GameError(Exception):
    """A request the game refuses: an illegal action, a malformed state, a bad option.

    `pos` is the rules position the error comes from, when there is one (a rule that failed
    while running, a decision skipped too often), so that `check` can show it with a caret.
    """

    def __init__(self, message: str, pos: Pos | None = None):
        super().__init__(message)
        self.pos = pos


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """A 'did you mean' hint for a misspelt name, if a close candidate exists."""
    matches = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f"did you mean '{matches[0]}'?" if matches else None
