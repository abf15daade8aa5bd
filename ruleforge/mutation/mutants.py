"""Mutants of one rules file: each the original text with exactly one splice, named by its
operator and its place (file:line:col), with the change as a small unified diff."""

from __future__ import annotations

import difflib
import random

import attrs

from .. import lexical
from ..parser import lark_parser
from ..rules import Rules
from .operators import all_splices


@attrs.frozen
class Mutant:
    """The original text of `file` with `text[start:end]` replaced by `new`."""

    index: int  # its number among all the file's mutants, from 1, in file order
    file: str
    operator: str
    line: int
    column: int
    start: int
    end: int
    new: str
    what: str  # the change in words: `< -> <=`

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"

    def apply(self, original: str) -> str:
        return original[:self.start] + self.new + original[self.end:]

    def diff(self, original: str) -> str:
        """The change as a unified diff with one line of context."""
        # lines as the parser counts them (a form feed ends none), so the diff's line numbers are the mutant's
        lines = difflib.unified_diff(lexical.lines(original, keepends=True),
                                     lexical.lines(self.apply(original), keepends=True),
                                     fromfile=self.file, tofile=f"{self.file} (mutant {self.index})", n=1)
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)

    def as_json(self) -> dict[str, object]:
        return {"index": self.index, "file": self.file, "line": self.line, "column": self.column,
                "operator": self.operator, "change": self.what}


def source_text(rules: Rules) -> str:
    """The rules file's own text as the parser reads it (line ends made '\\n')."""
    return lexical.normalize(rules.sources[rules.path])


def generate(rules: Rules) -> list[Mutant]:
    """Every single-point mutant of the rules file itself (not of the files it extends), in
    file order; splices that give a text already given are dropped as duplicates."""
    text = source_text(rules)
    tree = lark_parser().parse(text, start="start")
    seen = {text}
    out: list[Mutant] = []
    for s in all_splices(tree, text, rules.model):
        mutated = text[:s.start] + s.new + text[s.end:]
        if mutated in seen:
            continue
        seen.add(mutated)
        line = text.count("\n", 0, s.start) + 1
        column = s.start - (text.rfind("\n", 0, s.start) + 1) + 1
        out.append(Mutant(len(out) + 1, rules.path, s.operator, line, column, s.start, s.end, s.new, s.what))
    return out


def sample(mutants: list[Mutant], n: int | None, seed: int) -> list[Mutant]:
    """`n` of the mutants drawn with `seed` (all when `n` is None or not smaller), in file order."""
    if n is None or n >= len(mutants):
        return list(mutants)
    picked = random.Random(seed).sample(range(len(mutants)), n)
    return [mutants[i] for i in sorted(picked)]
