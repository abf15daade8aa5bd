"""What the language server knows of one rules document, worked out without any LSP library.

Kept apart from the server so that it is plain data and plain functions: the tests (and any
other editor integration) can use it without pygls, and the server stays a thin adapter.
Positions here are 0-based lines and UTF-16 characters, as LSP counts them; ruleforge's own
positions are 1-based lines and code-point columns.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

import attrs

from .. import ast
from ..checker import check
from ..diagnostics import Diagnostic, RulesError
from ..limits import LIMITS, describe
from ..loader import load_source
from ..parser import grammar_text
from .facts import Facts, facts_of

# A line read as the editor features read it: strings (closed or not) and comments whole, so that
# a name or a bracket inside them is skipped; names; brackets and commas; any other character.
PIECES = re.compile(r'"[^"\n]*"?|\'[^\'\n]*\'?|#[^\n]*|(?P<name>[A-Za-z_][A-Za-z0-9_]*)|(?P<mark>[()\[\]{},])|\S')
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# What each declaration is called in an outline and a hover, by its AST class.
DECL_WORDS = {
    ast.EnumDecl: "enum", ast.KindDecl: "kind", ast.ZoneDecl: "zone", ast.VarDecl: "var",
    ast.DefDecl: "def", ast.ActionDecl: "action", ast.PhaseDecl: "phase", ast.ScoringDecl: "scoring",
    ast.OptionDecl: "option", ast.ColourDecl: "palette",
}


@functools.cache
def keywords() -> list[str]:
    """The language's keywords: every quoted word of the grammar (as tests/test_docs.py reads them)."""
    return sorted(set(re.findall(r'"([a-z_]+)"', grammar_text())))


@attrs.frozen
class Span:
    """A range in LSP terms: 0-based lines, UTF-16 characters, end exclusive."""

    line: int
    character: int
    end_line: int
    end_character: int


@attrs.frozen
class Problem:
    """One diagnostic of the document, placed on it (an error in a base file is shown at the top)."""

    span: Span
    message: str
    hint: str | None


@attrs.frozen
class Symbol:
    """A declared name: what declares it (`kind`, `enum member`...), where, and the declaring line."""

    name: str
    word: str
    file: str
    span: Span  # the name itself
    whole: Span  # the whole declaration
    line_text: str
    children: tuple = ()


@attrs.define
class Analysis:
    problems: list[Problem]
    symbols: list[Symbol]  # the document's own declarations first, then its bases'
    facts: Facts = attrs.Factory(Facts)  # kinds' members and names' types, for completion
    bases: dict[str, str] = attrs.Factory(dict)  # the files it extends, as read: path -> text


def utf16(line: str, column: int) -> int:
    """LSP's character offset (UTF-16 code units) of the 0-based code-point `column` of `line`."""
    return len(line[:column].encode("utf-16-le")) // 2


def from_utf16(line: str, character: int) -> int:
    """The code-point column of a UTF-16 offset into `line`."""
    units = 0
    for k, ch in enumerate(line):
        if units >= character:
            return k
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(line)


def span_of(pos: ast.Pos, lines: list[str]) -> Span:
    """The LSP range of a position: its own end when it ends on its line, else the word there
    (a diagnostic at a declaration spanning lines underlines the word it starts with)."""
    line = max(pos.line - 1, 0)
    text = lines[line] if line < len(lines) else ""
    start = max(pos.column - 1, 0)
    if pos.end_line == pos.line and pos.end_column > pos.column:
        end = pos.end_column - 1
    else:
        m = _WORD.match(text, start)
        end = m.end() if m else min(start + 1, max(len(text), start))
    return Span(line, utf16(text, start), line, utf16(text, end))


def _problem(diag: Diagnostic, path: str, lines: list[str]) -> Problem:
    if diag.pos.file == path and diag.pos.line > 0:
        return Problem(span_of(diag.pos, lines), diag.message, diag.hint)
    where = diag.pos.file if diag.pos.line <= 0 else f"{diag.pos.file}:{diag.pos.line}:{diag.pos.column}"
    return Problem(Span(0, 0, 0, 0), f"{where}: {diag.message}", diag.hint)


def too_large(text: str) -> Analysis | None:
    """The one problem of a document past `lsp_document_chars`, which is not checked (a check
    takes about 25 µs a character, and up to 100 on dense expressions); None within the bound.
    Placed on the document's first word, where an editor shows it."""
    if len(text) <= LIMITS.lsp_document_chars:
        return None
    end = text.find("\n", 0, 200)
    first = text[:end if end >= 0 else 200]
    word = _WORD.match(first)
    span = Span(0, 0, 0, utf16(first, word.end() if word else min(len(first), 1)))
    message = (f"this document has {len(text):,} characters, too many for the language server to check "
               f"({describe('lsp_document_chars')})")
    hint = ("set the variable in the environment the editor starts `ruleforge lsp` in; "
            "`ruleforge check FILE` checks the saved file without this limit")
    return Analysis([Problem(span, message, hint)], [])


def failed(err: Exception) -> Analysis:
    """What is shown when the check itself fails (a bug of ruleforge, not of the document):
    one problem at the start, so that the editor never shows a failed check as a clean file."""
    what = f"{type(err).__name__}: {err}"
    what = what if len(what) <= 300 else what[:300] + "..."
    return Analysis([Problem(Span(0, 0, 0, 0), f"the check failed: internal error: {what}",
                             "a bug of ruleforge, not of the rules: please report it")], [])


def analyse(path: str, text: str) -> tuple[Analysis, bool]:
    """Parse and check `text` as the file `path` (its bases read from disk, relative to it).

    Returns the analysis and whether the declarations could be read at all: when the text does
    not parse, the symbols are empty and the caller may keep the last good ones."""
    lines = text.split("\n")
    try:
        decls, sources = load_source(path, text)
    except RulesError as err:
        return Analysis([_problem(d, path, lines) for d in err.diagnostics], []), False
    checker = check(decls, sources)
    errors = checker.errors
    problems = [_problem(d, path, lines) for d in sorted(errors, key=lambda d: (d.pos.line, d.pos.column))]
    bases = {file: source for file, source in sources.items() if not same_file(file, path)}
    return Analysis(problems, symbols(decls, sources, path), facts_of(checker), bases), True


def same_file(a: str, b: str) -> bool:
    """Whether two paths name one file (a base is named as `extends` wrote it, relative).
    `os.path.realpath`, not `Path.resolve`, which raises on a loop of links on Python 3.11."""
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except (OSError, ValueError):  # a name the system refuses (a NUL in it): compared as written
        return a == b


def symbols(decls: list[ast.Decl], sources: dict[str, str], path: str) -> list[Symbol]:
    """The named declarations (and enum members), the document's own first."""
    out: list[Symbol] = []
    split: dict[str, list[str]] = {}
    for decl in decls:
        word = DECL_WORDS.get(type(decl))
        if word is None:
            continue
        file = decl.pos.file
        lines = split.get(file)
        if lines is None:  # once per file: a file of thousands of declarations is split once, not each time
            lines = split[file] = sources.get(file, "").split("\n")
        name = decl.name  # type: ignore[attr-defined]
        span = _name_span(decl.pos, name, lines)
        whole = _whole_span(decl.pos, lines)
        children = ()
        if isinstance(decl, ast.EnumDecl):
            children = tuple(Symbol(member, "enum member", file, span_of(where, lines), span_of(where, lines),
                                    _line(lines, where.line), ()) for member, where in decl.members)
        out.append(Symbol(name, word, file, span, whole, _line(lines, decl.pos.line), children))
    out.sort(key=lambda s: s.file != path)
    return out


def _line(lines: list[str], line: int) -> str:
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def _name_span(pos: ast.Pos, name: str, lines: list[str]) -> Span:
    """Where the declared name is written: the first whole word `name` from the declaration's start."""
    for k in range(pos.line - 1, min(max(pos.end_line, pos.line), len(lines))):
        text = lines[k]
        for m in _WORD.finditer(text, pos.column - 1 if k == pos.line - 1 else 0):
            if m.group() == name:
                return Span(k, utf16(text, m.start()), k, utf16(text, m.end()))
    return span_of(pos, lines)


def _whole_span(pos: ast.Pos, lines: list[str]) -> Span:
    last = max(pos.end_line, pos.line) - 1
    end_text = lines[last] if last < len(lines) else ""
    start_text = lines[pos.line - 1] if 0 < pos.line <= len(lines) else ""
    end = pos.end_column - 1 if pos.end_line else len(end_text)
    return Span(pos.line - 1, utf16(start_text, pos.column - 1), last, utf16(end_text, max(end, 0)))


def hover_text(symbol: Symbol, facts: Facts) -> str:
    """What hovering a declared name shows: its declaring line, what it is, its type (a var's,
    an option's, a def's as the checker worked it out), and a kind's attributes and properties."""
    text = f"```ruleforge\n{symbol.line_text}\n```\n{symbol.word} `{symbol.name}`"
    if symbol.word in ("var", "def", "option") and facts.types.get(symbol.name):
        text += f": {facts.types[symbol.name]}"
    if symbol.word == "kind":
        text += "".join(f"\n- `{m.name}`: {m.type}{' (var)' if m.mutable else ''}"
                        for m in facts.kinds.get(symbol.name, ()))
    return text


def word_at(text: str, line: int, character: int) -> str | None:
    """The name under an LSP position, if any (not in a comment or a string)."""
    lines = text.split("\n")
    if not 0 <= line < len(lines):
        return None
    column = from_utf16(lines[line], character)
    for m in PIECES.finditer(lines[line]):
        if m.start() <= column <= m.end() and m.group("name"):
            return m.group("name")
        if m.start() > column:
            break
    return None


def folds(text: str) -> list[tuple[int, int, str | None]]:
    """Foldable line ranges (0-based, first and last line): each `{`, `(` or `[` whose closing
    partner is on a later line, up to the line before it; and each run of two or more comment
    lines (kind `comment`). Brackets are matched by their place outside strings and comments,
    so a half-typed file still folds."""
    found: list[tuple[int, int, str | None]] = []
    opened: list[int] = []
    comments: list[int] = []
    for number, line in enumerate(text.split("\n")):
        pieces = list(PIECES.finditer(line))
        if pieces and pieces[0].group().startswith("#"):
            comments.append(number)
        else:
            if len(comments) >= 2:
                found.append((comments[0], comments[-1], "comment"))
            comments = []
        for mark in (m.group("mark") for m in pieces):
            if mark in ("{", "(", "["):
                opened.append(number)
            elif mark in ("}", ")", "]") and opened:
                first = opened.pop()
                if number - 1 > first:
                    found.append((first, number - 1, None))
    if len(comments) >= 2:
        found.append((comments[0], comments[-1], "comment"))
    return sorted(found)


def occurrences(text: str, name: str) -> list[Span]:
    """Every use of `name` as a word in `text`, outside comments and strings. A plain same-name
    search: a local (an action's parameter, a loop variable) that shadows a declared name is
    counted too."""
    out = []
    for k, line in enumerate(text.split("\n")):
        for m in PIECES.finditer(line):
            if m.group("name") == name:
                out.append(Span(k, utf16(line, m.start()), k, utf16(line, m.end())))
    return out


def find(symbols: list[Symbol], name: str) -> Symbol | None:
    """The declaration of `name` (a member of an enum too), the document's own first."""
    for symbol in symbols:
        if symbol.name == name:
            return symbol
        for child in symbol.children:
            if child.name == name:
                return child
    return None


def document_path(fs_path: str | None, uri: str) -> str:
    """The path the document is checked as: its file, or (an unsaved buffer) a name in the
    current folder, where an `extends` of it is looked for. A path no file can have (a NUL in it)
    is such a name too."""
    if fs_path and "\x00" not in fs_path:
        return fs_path
    return str(Path.cwd() / (re.sub(r"[^A-Za-z0-9_.-]", "_", uri.rsplit("/", 1)[-1]) or "untitled.rules"))


def rename_problem(symbol: Symbol, path: str, new_name: str) -> str | None:
    """Why `symbol` cannot be renamed to `new_name` here, or None: the new name must be a name
    of the language (not a keyword), and the declaration must be in this document."""
    if _WORD.fullmatch(new_name) is None:
        return f"'{new_name[:40]}' is not a name: letters, digits and _, not starting with a digit"
    if new_name in keywords():
        return f"'{new_name}' is a keyword of the language"
    if not same_file(symbol.file, path):
        return f"'{symbol.name}' is declared in {symbol.file}: rename it there"
    return None
