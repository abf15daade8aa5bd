"""Which operation of a rule failed at run time, and on which operand: Python's position of the
failing instruction in the generated code finds the operation the compiler marked
(`compiler.pytree.operands`), so that an error points inside an inlined def at the `+` or `<`
whose operand was none, rather than at the statement that called the def."""

from __future__ import annotations

import re
from types import TracebackType

from .ast import Pos

_TYPE_NAMES = re.compile(r"'(\w+)'")  # reads Python's message, never generated code
_SHOWN = 60  # characters of an operand shown in a message


def is_generated(filename: str) -> bool:
    """A frame of the code the compiler generated, which `exec` runs as `<ruleforge:...>`."""
    return filename.startswith("<ruleforge:")


def marked_operation(tb: TracebackType | None, operand_map: dict) -> tuple | None:
    """(what, operand positions) of the marked operation the innermost generated frame stopped at."""
    found = None
    while tb is not None:
        code = tb.tb_frame.f_code
        if is_generated(code.co_filename) and tb.tb_lasti >= 0:
            positions = list(code.co_positions())
            index = tb.tb_lasti // 2
            if index < len(positions):
                line, _end, column, _end_column = positions[index]
                found = operand_map.get((line, column), found)
        tb = tb.tb_next
    return found


def none_operand(err: TypeError, mark: tuple) -> Pos | None:
    """The operand that was none, from Python's message (`... for +: 'NoneType' and 'int'`)."""
    what, places = mark
    if what == "[]" or not places:
        return places[0] if places else None
    names = _TYPE_NAMES.findall(str(err))
    if len(places) == 1:
        return places[0]
    if len(names) >= 2:
        left, right = names[-2], names[-1]
        if left == "NoneType":
            return places[0]
        if right == "NoneType":
            return places[1]
    return None


def source_text(pos: Pos, sources: dict[str, str]) -> str:
    """What the rules wrote at pos (its first line), shortened for a message."""
    text = sources.get(pos.file)
    if text is None or pos.line < 1:
        return ""
    lines = text.split("\n")
    if pos.line > len(lines):
        return ""
    line = lines[pos.line - 1]
    end = pos.end_column if pos.end_line == pos.line and pos.end_column > pos.column else len(line) + 1
    shown = line[pos.column - 1:end - 1].strip()
    return shown if len(shown) <= _SHOWN else shown[:_SHOWN - 3] + "..."


def none_message(what: str, shown: str) -> str:
    """The plain words for an operation on none."""
    subject = f"'{shown}'" if shown else "a value here"
    if what == "[]":
        return f"{subject} is none: there is no list to take an item of"
    needs = "numbers to compare" if what in ("<", "<=", ">", ">=") else "a number"
    return (f"{subject} is none, and '{what}' needs {needs} (an empty zone's top, a cell outside the "
            "grid, an unset variable?)")
