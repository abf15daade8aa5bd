"""Signature help: inside the brackets of a call, the called def's or phase's parameters, with
the one being written marked; a built-in's passage of the language reference.

The call is found by reading the text before the cursor: brackets are matched outside strings
and comments, and the commas of the innermost call's own level count its arguments.
"""

from __future__ import annotations

from .analysis import PIECES, Symbol

MAX_PREFIX = 200_000  # past this, no help: a bound on the time one answer takes


def call_at(before: str) -> tuple[str, int] | None:
    """The name called by the innermost bracket still open at the end of `before`, and how
    many of its arguments are complete (the index of the one being written); None outside a
    call (at the top level, in a list, a table or a block)."""
    if len(before) > MAX_PREFIX:
        return None
    open_: list[list] = []  # [name or None, commas]
    last_name: str | None = None
    for piece in PIECES.finditer(before):
        mark = piece.group("mark")
        if piece.group("name"):
            last_name = piece.group("name")
            continue
        if mark == "(":
            open_.append([last_name, 0])
        elif mark in ("[", "{"):
            open_.append([None, 0])
        elif mark in (")", "]", "}") and open_:
            open_.pop()
        elif mark == "," and open_:
            open_[-1][1] += 1
        last_name = None
    if not open_ or open_[-1][0] is None:
        return None
    name, commas = open_[-1]
    return name, commas


def declared(symbol: Symbol) -> tuple[str, list[str]] | None:
    """A def's or phase's header (`def worth(c: Chip, extra: int)`) and its parameters, from
    its declaring line; None when it takes none."""
    line = symbol.line_text
    start = line.find("(")
    if symbol.word not in ("def", "phase") or start < 0 or line[:start].split()[-1:] != [symbol.name]:
        return None
    depth, params, piece = 0, [], ""
    for end, ch in enumerate(line[start:], start):
        if ch == "(":
            depth += 1
            if depth == 1:
                continue
        elif ch == ")":
            depth -= 1
            if depth == 0:
                params.append(piece.strip())
                return line[:end + 1], [p for p in params if p]
        elif ch == "," and depth == 1:
            params.append(piece.strip())
            piece = ""
            continue
        piece += ch
    return None  # the header runs past its line
