"""Hover notes for the language's keywords and built-ins, taken from docs/language.md.

The docs folder is not in the built package, so the passages are written once into
`language_notes.json` beside this module: `python -m ruleforge.lsp.notes --write` after an edit
of the docs (tests/test_lsp.py fails until the file is in step). For each word the passage is,
best first: the section whose heading names it (a heading of `zone`); the rows of the tables that
document it (a statement, an aggregate, a grid function); a paragraph or list item that starts
with it (a list item of `visible`, the items of the `**Functions**:` line); a paragraph led by it in bold
(`**Tables**`); a row that merely names it (`with` in `swap A with B`); the first passage that
calls it (`room(Z)`). Each note is short: a heading and at most `MAX_LINES` lines.
"""

from __future__ import annotations

import functools
import json
import re
import sys
import textwrap
from importlib import resources
from pathlib import Path

import attrs

from ..checker import AGGREGATES, BUILTIN_ENUMS, CONSTANTS, END_FLAGS, FUNCTIONS, ZONE_SHAPES
from .analysis import keywords

NOTES_FILE = "language_notes.json"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "language.md"
MAX_LINES = 15
# The reference ends where the chapters on the games themselves begin.
_STOP = re.compile(r"^## (Constructs|The games)")
_SPAN = re.compile(r"`([^`]+)`")
_LEAD = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?=$|[\s(\"])")
_ANCHOR = re.compile(r"\]\(#([a-z0-9-]+)\)")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LIST_OF_WORDS = re.compile(r"(\s*`[^`]+`\s*)+")  # the list of keywords: names every word, says nothing
# Where a word's note comes from, best first.
_HEADING, _HEADING_MORE, _ROW, _HEADING_FIRST, _PARAGRAPH, _BOLD, _ROW_MENTION, _MENTION = range(8)


def words() -> set[str]:
    """The words a note is kept for: keywords, built-in names, types, shapes."""
    return (set(keywords()) | AGGREGATES | set(FUNCTIONS) | set(CONSTANTS) | set(END_FLAGS) | set(BUILTIN_ENUMS)
            | ZONE_SHAPES | {"me", "it", "pass", "int", "flag", "text"})


@attrs.define
class Block:
    """A paragraph, list item, table or code block, under its heading."""

    heading: str
    level: int
    kind: str  # "heading", "para", "item", "table", "code"
    lines: list[str]
    lead: str = ""  # the bold words leading the last paragraph before it under its heading ("Aggregates")


def blocks(markdown: str) -> list[Block]:
    out: list[Block] = []
    heading, level, lead = "", 0, ""
    current: Block | None = None
    fence = False
    for raw in markdown.split("\n"):
        line = raw.rstrip()
        if fence:
            assert current is not None
            current.lines.append(line)
            fence = not line.startswith("```")
            if not fence:
                current = None
            continue
        if _STOP.match(line):
            break
        if line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            heading, current, lead = line.lstrip("#").strip(), None, ""
            out.append(Block(heading, level, "heading", [line]))
            continue
        if not line.strip() or line.startswith("<"):
            current = None
            continue
        kind = ("code" if line.startswith("```") else "table" if line.startswith("|")
                else "item" if line.startswith("- ") else "para")
        continues = current is not None and (current.kind == kind or (current.kind == "item" and kind == "para"))
        if not continues or kind == "item":
            bold = re.match(r"\*\*([^*.:]+)", line) if kind == "para" else None
            lead = bold.group(1) if bold else lead
            current = Block(heading, level, kind, [], lead)
            out.append(current)
        assert current is not None
        current.lines.append(line)
        fence = kind == "code"
    return out


def _clean(line: str) -> str:
    """Links to other pages and anchors mean nothing in a hover: their text is kept."""
    return _LINK.sub(r"\1", line)


def _lead(span: str) -> str | None:
    m = _LEAD.match(span)
    return m.group(1) if m else None


class Notes:
    """Candidates per word and priority, then each word's note from its best source."""

    def __init__(self, markdown: str):
        self.blocks = blocks(markdown)
        self.keep = words()
        self.found: dict[str, dict[int, list[tuple[str, list[str]]]]] = {}

    def add(self, word: str | None, priority: int, title: str, lines: list[str]) -> None:
        if word is None or word not in self.keep or not lines:
            return
        entries = self.found.setdefault(word, {}).setdefault(priority, [])
        if (title, lines) not in entries:
            entries.append((title, lines))

    def collect(self) -> dict[str, str]:
        # The docs' examples are left out: they are long for a hover, and written in the words of
        # the games they come from (as is a passage naming a file of games/), which the package
        # does not hold.
        self.blocks = [_without_games(b) for b in self.blocks if b.kind != "code"]
        for k, block in enumerate(self.blocks):
            if block.kind == "heading":
                self._heading(k, block)
            elif block.kind == "table":
                self._table(block)
            elif block.kind in ("para", "item"):
                self._paragraph(block)
        # The last resort: the first passage that writes the word alone (`hand`), or starting
        # a piece of code (`hand(p)`), or anywhere in one (`when moved into Z`).
        passages = [b for b in self.blocks if b.kind in ("para", "item")
                    and not _LIST_OF_WORDS.fullmatch(" ".join(b.lines))]
        for pick in (lambda span: {span}, lambda span: {_lead(span)}, lambda span: set(_IDENT.findall(span))):
            for block in passages:
                for span in _SPAN.findall(" ".join(block.lines)):
                    for word in pick(span) - set(self.found):
                        self.add(word, _MENTION, block.heading, block.lines)
        return {word: self.render(by) for word, by in sorted(self.found.items())}

    def _body(self, k: int) -> list[Block]:
        """The blocks of the section headed by block k."""
        body: list[Block] = []
        for other in self.blocks[k + 1:]:
            if other.kind == "heading" and other.level <= self.blocks[k].level:
                break
            if other.kind != "heading":
                body.append(other)
        return body

    def _heading(self, k: int, block: Block) -> None:
        body = self._body(k)
        link = _ANCHOR.search(body[0].lines[0]) if len(body) == 1 and len(body[0].lines) == 1 else None
        if link:  # "See [variants](#variants).": the section it sends to
            target = next((n for n, b in enumerate(self.blocks)
                           if b.kind == "heading" and _slug(b.heading) == link.group(1)), None)
            body = self._body(target) if target is not None else body
        lines = _section_lines(body)
        for span in _SPAN.findall(block.heading):
            parts = _IDENT.findall(span)
            if len(parts) == 1 and parts[0] == span:
                self.add(span, _HEADING, block.heading, lines)
            elif parts:  # `turn together`: the section of `together`; `turn` has its own rows
                self.add(parts[0], _HEADING_FIRST, block.heading, lines)
                for other in parts[1:]:
                    self.add(other, _HEADING_MORE, block.heading, lines)

    def _table(self, block: Block) -> None:
        header, rows = block.lines[:2], block.lines[2:]
        title = block.lead or block.heading
        for row in rows:
            spans = _SPAN.findall(row.split(" | ")[0])
            leads = {_lead(s) for s in spans} - {None}
            for word in leads:
                self.add(word, _ROW, title, [*header, row])
            for word in {w for s in spans for w in _IDENT.findall(s)} - leads:
                self.add(word, _ROW_MENTION, title, [*header, row])

    def _paragraph(self, block: Block) -> None:
        text = " ".join(line.removeprefix("- ").strip() for line in block.lines)
        if text.startswith("**Functions**:"):
            for piece in text.removeprefix("**Functions**:").split(" · "):
                for span in _SPAN.findall(piece):
                    if re.match(r"[a-z_]+\(", span):
                        self.add(_lead(span), _PARAGRAPH, block.heading, [f"**Functions**: {piece.strip()}"])
        elif text.startswith("**Constants**"):
            for span in _SPAN.findall(text):
                self.add(_lead(span), _PARAGRAPH, block.heading, block.lines)
        elif (first := _SPAN.match(text)) and not _LIST_OF_WORDS.fullmatch(text):
            self.add(_lead(first.group(1)), _PARAGRAPH, block.heading, block.lines)
        elif block.kind == "para" and (bold := re.match(r"\*\*([A-Za-z]+)", text)):
            word = bold.group(1).lower()
            self.add(word if word in self.keep else word.rstrip("s"), _BOLD, block.heading, block.lines)

    def render(self, by: dict[int, list[tuple[str, list[str]]]]) -> str:
        """The best source's passages under their heading (one heading, and one header for rows
        of one table), cut to `MAX_LINES` lines. A paragraph led by bold words has no heading."""
        out: list[str] = []
        last_title, last_header = "", None
        for title, lines in by[min(by)]:
            header = lines[:2] if lines[0].startswith("|") else None
            text = lines[2:] if header is not None and (title, header) == (last_title, last_header) else lines
            if title != last_title and not lines[0].startswith("**"):
                text = ([""] if out else []) + [f"**{title}**", *text]
            elif text is lines and out:
                text = ["", *text]
            if out and len(out) + len(text) > MAX_LINES:
                break
            out += text
            last_title, last_header = title, header
        return "\n".join(_cut([_clean(line) for line in out]))


def _slug(heading: str) -> str:
    """A heading's anchor, as GitHub makes it: "`end when`: the end" gives end-when-the-end."""
    return re.sub(r"[^a-z0-9 _-]", "", heading.lower()).replace(" ", "-")


def _without_games(block: Block) -> Block:
    """The block without its sentences that name a file of games/ (rewrapped), or without its
    rows that do."""
    if "games/" not in " ".join(block.lines):
        return block
    if block.kind not in ("para", "item"):
        return attrs.evolve(block, lines=[line for line in block.lines if "games/" not in line])
    text = " ".join(line.strip() for line in block.lines)
    kept = " ".join(s for s in re.split(r"(?<=[.;])\s+(?=[A-Z`])", text) if "games/" not in s)
    return attrs.evolve(block, lines=textwrap.wrap(kept, 100, subsequent_indent="  " if block.kind == "item" else ""))


def _section_lines(body: list[Block]) -> list[str]:
    """A section's first blocks, as many as fit: at least the first paragraph."""
    lines: list[str] = []
    for block in body:
        if lines and len(lines) + len(block.lines) + 1 > MAX_LINES - 1:
            break
        if lines:
            lines.append("")
        lines += block.lines
    return lines


def _cut(lines: list[str]) -> list[str]:
    """At most `MAX_LINES` lines, the last an ellipsis when some are left out."""
    return lines if len(lines) <= MAX_LINES else [*lines[:MAX_LINES - 1], "…"]


def build(markdown: str) -> dict[str, str]:
    """Each word's note, from the text of docs/language.md."""
    return Notes(markdown).collect()


def dumps(notes: dict[str, str]) -> str:
    return json.dumps(notes, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


@functools.cache
def notes() -> dict[str, str]:
    """The notes shipped with the package (an empty table if the file is missing)."""
    try:
        text = resources.files("ruleforge.lsp").joinpath(NOTES_FILE).read_text(encoding="utf-8")
    except OSError:
        return {}
    return json.loads(text)


def main(argv: list[str]) -> int:
    """`--write`: write the notes from docs/language.md; `--check`: say whether they are in step."""
    fresh = dumps(build(DOCS.read_text(encoding="utf-8")))
    target = Path(__file__).with_name(NOTES_FILE)
    if argv == ["--write"]:
        target.write_text(fresh, encoding="utf-8")
        print(f"wrote {target} ({len(json.loads(fresh))} notes)")
        return 0
    if argv == ["--check"]:
        same = target.exists() and target.read_text(encoding="utf-8") == fresh
        print("in step" if same else f"{target.name} is out of step with docs/language.md: run with --write")
        return 0 if same else 1
    print("usage: python -m ruleforge.lsp.notes --write | --check", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
