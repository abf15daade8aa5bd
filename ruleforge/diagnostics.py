"""Error reports that name a file, line and column, show the line with a caret, and hint."""

from __future__ import annotations

import difflib
import os
import unicodedata
from collections.abc import Callable, Iterable
from typing import TextIO

import attrs

from .ast import Pos
from .inert import inert
from .limits import LIMITS, describe

# Characters that are whitespace inside a line but that a terminal would show otherwise
# (a form feed clears the screen, a line separator breaks the line): shown as one space.
_ODD_SPACES = {ord(c): " " for c in "\f\v\x1c\x1d\x1e\x1f\x85\u2028\u2029"}


@attrs.frozen
class Diagnostic:
    pos: Pos
    message: str
    hint: str | None = None

    def render(self, sources: dict[str, str], lines: dict[str, list[str]] | None = None,
               paint: Callable[[str], str] | None = None) -> str:
        """`file:line:col: message`, then the source line, a caret and the hint.

        `lines` caches each source split into lines: rendering many diagnostics of one file
        then splits it once, not once per diagnostic. `paint` colours the source line for a
        terminal (`terminal_paint`); the whole report is then made inert here, around the
        colours, as it cannot be printed through `inert` afterwards without escaping them."""
        if self.pos.line > 0:
            head = f"{self.pos.file}:{self.pos.line}:{self.pos.column}: error: {self.message}"
        else:  # about the file as a whole (it cannot be read, say)
            head = f"{self.pos.file}: error: {self.message}"
        out = [head if paint is None else inert(head)]
        src_lines = _source_lines(self.pos.file, sources, {} if lines is None else lines)
        if src_lines is not None and 0 < self.pos.line <= len(src_lines):
            width = 1
            if self.pos.end_line == self.pos.line and self.pos.end_column > self.pos.column:
                width = self.pos.end_column - self.pos.column
            src, column, width = _window(src_lines[self.pos.line - 1], self.pos.column, width)
            # shown inert (a control character in a string as `\x1b`): the caret goes under
            # the escaped text, as wide as what it marks is shown
            src = src.translate(_ODD_SPACES)
            before, marked = inert(src[:column - 1]), inert(src[column - 1:column - 1 + width])
            out.append(f"    {inert(src) if paint is None else paint(inert(src))}")
            out.append("    " + caret_indent(before, len(before) + 1) + "^" * max(1, len(marked)))
        if self.hint:
            out.append(f"    hint: {self.hint if paint is None else inert(self.hint)}")
        return "\n".join(out)


def terminal_paint(stream: TextIO) -> Callable[[str], str] | None:
    """How to colour the rules lines of error reports printed on `stream`, or None for plain text.

    Colours only on a terminal, never with NO_COLOR set (https://no-color.org) or TERM=dumb, and
    only when Pygments (the `highlight` extra) can be imported: piped output, files and the tests
    read the same plain text as ever."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return None
    try:
        if not stream.isatty():
            return None
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return None
    try:
        from .highlight import paint_line
    except ImportError:
        return None
    return paint_line


def _source_lines(file: str, sources: dict[str, str], cache: dict[str, list[str]]) -> list[str] | None:
    """The lines of `file` as the parser counts them: only '\\n' ends a line (a form feed or
    U+2028 does not), so the line shown is the line the position names."""
    if file not in cache:
        text = sources.get(file)
        if text is None:
            return None
        cache[file] = text.split("\n")
    return cache[file]


LINE_SHOWN = 160  # characters of a source line shown; a longer line is cut around the caret


def _window(src: str, column: int, width: int) -> tuple[str, int, int]:
    """The part of a long line around `column` (marked '...' where cut), the column and the
    caret's width in it: a generated one-line file does not print kilobytes per error."""
    if len(src) <= LINE_SHOWN:
        return src, column, width
    start = max(0, column - 1 - LINE_SHOWN // 3)
    end = min(len(src), start + LINE_SHOWN)
    head, tail = ("..." if start > 0 else ""), ("..." if end < len(src) else "")
    return head + src[start:end] + tail, column - start + len(head), min(width, end - column + 1)


def caret_indent(line: str, column: int) -> str:
    """The blank space that puts a caret under `column` of `line` on a terminal: a tab stays a
    tab, a wide (East Asian) character takes two cells, a combining mark none."""
    out = []
    for ch in line[:column - 1]:
        if ch == "\t":
            out.append("\t")
        elif unicodedata.combining(ch):
            continue
        elif unicodedata.east_asian_width(ch) in ("W", "F"):
            out.append("  ")
        else:
            out.append(" ")
    return "".join(out)


class RulesError(Exception):
    """A rules file could not be loaded; carries every diagnostic found at once.

    `diagnostics` holds them all, in file and line order; `render` (and `str`) shows the
    first `LIMITS.errors_shown` of them and counts the rest."""

    def __init__(self, diagnostics: list[Diagnostic], sources: dict[str, str]):
        self.diagnostics = sorted(diagnostics, key=lambda d: (d.pos.file, d.pos.line, d.pos.column))
        self.sources = sources
        super().__init__(f"{len(self.diagnostics)} error(s)")

    def __str__(self) -> str:
        return self.render()

    def __reduce__(self) -> tuple:  # pickles (to another process) with its diagnostics
        return (type(self), (self.diagnostics, self.sources))

    def render(self, paint: Callable[[str], str] | None = None) -> str:
        """The report; with `paint` (`terminal_paint`), source lines coloured and all else inert."""
        shown = LIMITS.errors_shown
        cache: dict[str, list[str]] = {}
        parts = [d.render(self.sources, cache, paint) for d in self.diagnostics[:shown]]
        more = len(self.diagnostics) - shown
        if more > 0:
            parts.append(f"... and {more} more error{'s' if more > 1 else ''} ({describe('errors_shown')})")
        return "\n".join(parts)


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
