"""The VS Code extension's TextMate grammar, run by the engine VS Code runs it with.

tests/test_highlight.py reads the grammar's patterns with Python's `re`, which reads most of
Oniguruma alike but not all, and cannot run a grammar (begin/end rules, captures with patterns of
their own, the order patterns are tried in). Here editors/vscode/grammar-test/tokenize.js
tokenizes every rules file with vscode-textmate on Oniguruma (wasm), line by line as an editor
does, and the tokens are checked against the text itself and, character by character, against
the Pygments lexer (ruleforge.highlight): the two highlighters are generated from the same
keyword lists and must colour alike.

Skipped only where `node` is missing or the test package's node_modules is not installed
(`npm ci --prefix editors/vscode/grammar-test`, which `.ci/run` does).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from pygments.token import Comment, Keyword, Name, Number, Operator, Punctuation, String, Whitespace, _TokenType
from stopping import GUARD, child

from ruleforge.highlight import RulesLexer

ROOT = Path(__file__).parents[1]
VSCODE = ROOT / "editors" / "vscode"
TOOL = VSCODE / "grammar-test"
GRAMMAR = VSCODE / "syntaxes" / "ruleforge.tmLanguage.json"
INSTALL = "npm ci --prefix editors/vscode/grammar-test"
RULES = sorted([*(ROOT / "games").glob("*.rules"), *(ROOT / "tests" / "synthetic").glob("*.rules")])

Token = dict[str, Any]  # {line, start, end, text, scopes}, as tokenize.js prints it

# What a character is, by either highlighter. TextMate: the innermost scope that says (a name
# inside `{...}` of a string is a name, the braces are the string's); Pygments: the token type.
TEXTMATE_KINDS: list[tuple[str, str]] = [  # scope prefix -> kind, the first matching wins
    ("comment.", "comment"),
    ("punctuation.definition.string.", "string"),
    ("punctuation.section.interpolation.", "string"),
    ("string.", "string"),
    ("constant.numeric.", "number"),
    ("keyword.operator.word.", "operator word"),
    ("keyword.operator.", "operator"),
    ("keyword.", "keyword"),
    ("storage.type.", "declaration"),
    ("entity.name.type.", "declared type"),
    ("entity.name.function.", "declared function"),
    ("variable.other.definition.", "declared variable"),
    ("variable.other.property.", "attribute"),
    ("variable.other.", "name"),
    ("punctuation.", "punctuation"),
    ("meta.embedded.expression.", "plain"),  # code inside `{...}` the grammar leaves unscoped: not string
]
PYGMENTS_KINDS: list[tuple[_TokenType, str]] = [  # most specific first
    (Comment, "comment"),
    (String, "string"),
    (Number, "number"),
    (Operator.Word, "operator word"),
    (Operator, "operator"),
    (Keyword.Declaration, "declaration"),
    (Keyword, "keyword"),
    (Name.Class, "declared type"),
    (Name.Function, "declared function"),
    (Name.Variable, "declared variable"),
    (Name.Attribute, "attribute"),
    (Name, "name"),
    (Punctuation, "punctuation"),
]


def node_or_skip() -> str:
    """Node.js, or a skip where it or the test package is not installed (a failure on CI,
    whose .ci/run installs both)."""
    node = shutil.which("node")
    missing = ("Node.js is not installed" if node is None
               else None if (TOOL / "node_modules" / "vscode-textmate").is_dir()
               else f"the test package is not installed: run `{INSTALL}`")
    if missing and os.environ.get("CI"):
        pytest.fail(f"{missing}; on CI, .ci/run should have installed it")
    if missing or node is None:
        pytest.skip(f"{missing}; CI installs it and runs this test")
    return node


def tokenize(paths: list[Path]) -> dict[Path, list[Token]]:
    """The engine's tokens of each file: one node process, ended whatever happens."""
    node = node_or_skip()
    with child([node, str(TOOL / "tokenize.js"), str(GRAMMAR), *map(str, paths)], cwd=TOOL) as proc:
        out, err = proc.communicate(timeout=GUARD)
    assert proc.returncode == 0, err
    found = json.loads(out)
    return {path: found[str(path)] for path in paths}


@pytest.fixture(scope="module")
def engine() -> dict[Path, list[Token]]:
    return tokenize(RULES)


def tokenize_text(tmp_path: Path, text: str) -> list[Token]:
    path = tmp_path / "t.rules"
    path.write_text(text, encoding="utf-8")
    return tokenize([path])[path]


def textmate_kind(scopes: list[str]) -> str:
    """A token's kind by its innermost scope with one; `plain` for the grammar's bare text."""
    for scope in reversed(scopes):
        for prefix, kind in TEXTMATE_KINDS:
            if scope.startswith(prefix):
                return kind
    return "plain"


def pygments_kind(kind: _TokenType) -> str:
    return next((name for token, name in PYGMENTS_KINDS if kind in token), str(kind))


def lines_of(text: str) -> list[str]:
    return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")


def textmate_per_character(tokens: list[Token]) -> dict[tuple[int, int], str]:
    """(line, column) -> kind of every character the engine's tokens cover."""
    return {(t["line"], col): textmate_kind(t["scopes"]) for t in tokens for col in range(t["start"], t["end"])}


def pygments_per_character(text: str) -> dict[tuple[int, int], str]:
    """(line, column) -> kind of every character but whitespace, by the Pygments lexer."""
    starts = [0]
    for line in lines_of(text):
        starts.append(starts[-1] + len(line) + 1)
    kinds: dict[tuple[int, int], str] = {}
    line = 0
    for index, kind, value in RulesLexer(stripnl=False).get_tokens_unprocessed(text):
        for k, char in enumerate(value):
            at = index + k
            while line + 1 < len(starts) and starts[line + 1] <= at:
                line += 1
            if not char.isspace() and kind not in Whitespace:
                kinds[(line + 1, at - starts[line])] = pygments_kind(kind)
    return kinds


def disagreements(tokens: list[Token], text: str) -> list[str]:
    """Where the two highlighters colour a character differently (bare TextMate text is
    punctuation to Pygments: the grammar leaves brackets unscoped)."""
    tm = textmate_per_character(tokens)
    lines = lines_of(text)
    found = []
    for (line, col), py in sorted(pygments_per_character(text).items()):
        ours = tm.get((line, col), "missing")
        if ours != py and not (ours == "plain" and py == "punctuation"):
            found.append(f"{line}:{col} {lines[line - 1][col]!r} in {lines[line - 1].strip()!r}: "
                         f"Pygments {py}, TextMate {ours}")
    return found


def scanned(line: str) -> tuple[list[int], int | None]:
    """By a scan of the line's characters, independent of both highlighters: the columns inside
    strings (quotes included; a string ends at its own quote or the line's end) and the column
    where a comment starts (a `#` outside strings), if any."""
    inside: list[int] = []
    quote = None
    for col, char in enumerate(line):
        if quote is None and char == "#":
            return inside, col
        if quote is None and char in "\"'":
            quote = char
            inside.append(col)
        elif quote is not None:
            inside.append(col)
            if char == quote:
                quote = None
    return inside, None


# --- every rules file ----------------------------------------------------------------------------

@pytest.mark.parametrize("path", RULES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_tokens_cover_every_line_exactly(engine: dict[Path, list[Token]], path: Path) -> None:
    lines = lines_of(path.read_text(encoding="utf-8"))
    by_line: dict[int, list[Token]] = {}
    for token in engine[path]:
        assert token["scopes"][0] == "source.ruleforge", token
        by_line.setdefault(token["line"], []).append(token)
    assert set(by_line) == {n for n, line in enumerate(lines, 1) if line}
    for n, tokens in by_line.items():
        assert [t["start"] for t in tokens] == [0, *(t["end"] for t in tokens[:-1])], n
        assert tokens[-1]["end"] == len(lines[n - 1]), n
        assert "".join(t["text"] for t in tokens) == lines[n - 1], n


@pytest.mark.parametrize("path", RULES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_comments_and_strings_are_scoped(engine: dict[Path, list[Token]], path: Path) -> None:
    """Everything from a `#` outside strings to the line's end is comment, and nothing else is;
    every string, from quote to quote, is string (its `{...}` interpolations too)."""
    text = path.read_text(encoding="utf-8")
    scopes = {(line, col): t["scopes"] for t in engine[path] for line in [t["line"]]
              for col in range(t["start"], t["end"])}
    strings = comments = 0
    for n, line in enumerate(lines_of(text), 1):
        inside, comment = scanned(line)
        for col in range(len(line)):
            commented = comment is not None and col >= comment
            assert commented == any(s.startswith("comment.") for s in scopes[(n, col)]), (n, col, line)
            if not commented:
                assert (col in inside) == any(s.startswith("string.") for s in scopes[(n, col)]), (n, col, line)
        strings += len(inside)
        comments += comment is not None
    if path.name == "hagakure.rules":  # the check would pass on a file without either
        assert strings > 100 and comments > 10


@pytest.mark.parametrize("path", RULES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_textmate_colours_as_pygments_does(engine: dict[Path, list[Token]], path: Path) -> None:
    assert disagreements(engine[path], path.read_text(encoding="utf-8")) == []


def test_the_files_hold_every_kind(engine: dict[Path, list[Token]]) -> None:
    """The comparison above meets every kind of token somewhere (a grammar colouring everything
    alike would disagree with Pygments; this checks the files give it the chance)."""
    kinds = {textmate_kind(t["scopes"]) for tokens in engine.values() for t in tokens}
    assert kinds >= {kind for _, kind in TEXTMATE_KINDS}, {kind for _, kind in TEXTMATE_KINDS} - kinds



def test_ci_installs_the_test_package_before_the_tests() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    install = next(k for k, line in enumerate(ci) if line.startswith(INSTALL + " "))
    assert install < next(k for k, line in enumerate(ci) if "pytest" in line)
    lock = json.loads((TOOL / "package-lock.json").read_text(encoding="utf-8"))
    package = json.loads((TOOL / "package.json").read_text(encoding="utf-8"))
    for name, version in package["devDependencies"].items():  # pinned: the engine VS Code ships, not the newest
        assert version[0].isdigit() and lock["packages"][f"node_modules/{name}"]["version"] == version, name


# --- tricky lines ----------------------------------------------------------------------------------

TRICKY = """\
let n = c.kind + p.score  # after a dot a keyword is an attribute
zone hand per player: pile, visible owner
log "round #{turn}: {x == 'a'} done" # a real comment
log 'say "hi" to {label(c)} # not a comment'
kind Card { colour: Colour  value: int = 2 }
var walked per player: list of zone
var out per player: flag
"""


def test_tricky_lines(tmp_path: Path) -> None:
    tokens = tokenize_text(tmp_path, TRICKY)
    assert disagreements(tokens, TRICKY) == []

    def kinds(line: int) -> list[tuple[str, str]]:
        return [(t["text"], textmate_kind(t["scopes"])) for t in tokens if t["line"] == line and t["text"].strip()]

    def inner(line: int, text: str) -> list[str]:
        [token] = [t for t in tokens if t["line"] == line and t["text"] == text]
        return [scope.removesuffix(".ruleforge") for scope in token["scopes"][1:]]

    assert kinds(1) == [("let", "keyword"), ("n", "name"), ("=", "operator"), ("c", "name"), (".", "punctuation"),
                        ("kind", "attribute"), ("+", "operator"), ("p", "name"), (".", "punctuation"),
                        ("score", "attribute"), ("# after a dot a keyword is an attribute", "comment")]
    assert kinds(2)[:5] == [("zone", "declaration"), ("hand", "declared variable"), ("per", "keyword"),
                            ("player", "keyword"), (":", "punctuation")]
    assert kinds(3)[:4] == [("log", "keyword"), ('"', "string"), ("round #", "string"), ("{", "string")]
    # an interpolation is code in a string, and may hold a string of the other quote
    assert inner(3, "turn") == ["string.quoted.double", "meta.interpolation", "meta.embedded.expression",
                                "keyword.control"]
    assert inner(3, "a") == ["string.quoted.double", "meta.interpolation", "meta.embedded.expression",
                             "string.quoted.single"]
    assert kinds(3)[-2:] == [('"', "string"), ("# a real comment", "comment")]
    assert [text for text, kind in kinds(4) if kind != "string"] == ["log", "label", "(", "c", ")"]
    assert kinds(4)[-2:] == [(" # not a comment", "string"), ("'", "string")]
    assert ("colour", "name") in kinds(5) and ("value", "name") in kinds(5) and ("2", "number") in kinds(5)
    # a line ending in a keyword that declares does not declare the next line's first word
    assert kinds(6)[-1] == ("zone", "declaration")
    assert kinds(7)[:2] == [("var", "declaration"), ("out", "declared variable")]


def test_an_unclosed_string_ends_at_its_line(tmp_path: Path) -> None:
    """The rule stack carried from line to line: an unclosed string does not swallow the next."""
    tokens = tokenize_text(tmp_path, 'log "never closed\nlet x = 1\n')
    assert [(t["text"], textmate_kind(t["scopes"])) for t in tokens if t["line"] == 2 and t["text"].strip()] == [
        ("let", "keyword"), ("x", "name"), ("=", "operator"), ("1", "number")]
