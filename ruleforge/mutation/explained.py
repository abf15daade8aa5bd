"""Survivors with a written reason: `foo.mutants.json` beside `foo.rules`.

Some survivors are no gap: the mutant cannot be told apart from the original (equivalent), the
changed rule is never reached, or the author leaves the gap on purpose and says why. Writing
that down once keeps the next run's report to what is new. An entry names its mutant by what
survives an edit elsewhere in the file: the operator, the change and the text of the line it
changes (its line number is kept for the reader, and used only to choose among equal lines).

    {"format": "ruleforge-mutants/1", "survivors": [
      {"line": 281, "operator": "table", "change": "1: -> 1+:",
       "source": "\\"points\\": table count(...) { 0: 0, 1: -5, 2: 0, 3+: 30 }",
       "reason": "equivalent: an exact key wins over a `+` key, so 2 still scores 0"}]}

A reason starts with `equivalent:`, `unreachable:` or `left on purpose:`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs

from .. import lexical
from ..diagnostics import GameError
from .mutants import Mutant

FORMAT = "ruleforge-mutants/1"
KINDS = ("equivalent:", "unreachable:", "left on purpose:")
_KEYS = ("line", "operator", "change", "source", "reason")


class ExplainedError(GameError):
    """A survivors file that cannot be read: every problem, each naming the file and entry."""


@attrs.frozen
class Explanation:
    """Why one survivor is no gap (or is left open), as the author wrote it."""

    line: int
    operator: str
    change: str
    source: str  # the changed line's original text, stripped
    reason: str
    entry: int  # its place in the file, from 1, for messages

    def matches(self, mutant: Mutant, lines: list[str]) -> bool:
        return (mutant.operator == self.operator and mutant.what == self.change
                and lines[mutant.line - 1].strip() == self.source)


def path_for(rules_path: str) -> Path:
    """Where the survivors of `rules_path` are explained: beside it, `foo.mutants.json`."""
    path = Path(rules_path)
    return path.with_name(path.stem + ".mutants.json")


def read(path: Path) -> list[Explanation]:
    """The explanations in `path` (none when it does not exist); ExplainedError lists every
    problem at once."""
    if not path.exists():
        return []
    if not path.is_file():  # a folder or a pipe where the file should be: not "no reasons"
        raise ExplainedError(f"{path}: cannot read it: it is not a file")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ExplainedError(f"{path}: cannot read it: {err}") from None
    except RecursionError:
        raise ExplainedError(f"{path}: cannot read it: it nests lists or objects too deep") from None
    except ValueError:  # a whole number longer than Python converts
        raise ExplainedError(f"{path}: cannot read it: it has a number too long to be read") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ExplainedError(f'{path}: not a survivors file (expected "format": "{FORMAT}")')
    entries = doc.get("survivors")
    if not isinstance(entries, list):
        raise ExplainedError(f'{path}: "survivors" must be a list')
    problems: list[str] = []
    out = [e for k, raw in enumerate(entries, 1) if (e := _entry(path, k, raw, problems)) is not None]
    if problems:
        raise ExplainedError("\n".join(problems))
    return out


def _entry(path: Path, k: int, raw: Any, problems: list[str]) -> Explanation | None:
    where = f"{path}: survivor #{k}"
    if not isinstance(raw, dict):
        problems.append(f"{where}: must be an object with {', '.join(_KEYS)}")
        return None
    missing = [key for key in _KEYS if key not in raw]
    unknown = sorted(set(raw) - set(_KEYS))
    wrong = [key for key in _KEYS if key in raw and not isinstance(raw[key], int if key == "line" else str)]
    if missing or unknown or wrong:
        what = "; ".join(filter(None, [
            f"missing {', '.join(missing)}" if missing else "",
            f"unknown key {', '.join(unknown)}" if unknown else "",
            f"{', '.join(wrong)}: wrong type (line is a whole number, the rest text)" if wrong else ""]))
        problems.append(f"{where}: {what}")
        return None
    reason = raw["reason"].strip()
    if not reason.startswith(KINDS) or reason.endswith(KINDS):
        problems.append(f"{where}: the reason must start with {', '.join(repr(k) for k in KINDS)} and say why")
        return None
    return Explanation(raw["line"], raw["operator"], raw["change"], raw["source"].strip(), reason, k)


def explain(mutants: list[Mutant], original: str, explanations: list[Explanation],
            survived: frozenset[int] = frozenset()) -> dict[int, Explanation]:
    """Which mutant each explanation names, by mutant index: among the mutants it matches (the
    same change can be made at two places of one line), a survivor first (the indices in
    `survived`), then the one nearest its line."""
    lines = lexical.lines(original)  # numbered as the parser numbers them, as mutants are
    out: dict[int, Explanation] = {}
    for e in explanations:
        matching = [m for m in mutants if e.matches(m, lines) and m.index not in out]
        if matching:
            pick = min(matching, key=lambda m: (m.index not in survived, abs(m.line - e.line), m.line, m.column))
            out[pick.index] = e
    return out
