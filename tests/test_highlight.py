"""Highlighting: the Pygments lexer (ruleforge.highlight) and the VS Code extension's TextMate
grammar (editors/vscode) colour every rules file, with the grammar's own keywords."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from pygments.token import Comment, Error, Keyword, Name, Number, Operator, String, _TokenType

from ruleforge.ast import Pos
from ruleforge.diagnostics import Diagnostic, RulesError, terminal_paint
from ruleforge.highlight import KEYWORDS, RulesLexer, paint_line
from ruleforge.inert import inert
from ruleforge.parser import grammar_text

ROOT = Path(__file__).parents[1]
VSCODE = ROOT / "editors" / "vscode"
RULES = sorted([*(ROOT / "games").glob("*.rules"), *(ROOT / "tests" / "synthetic").glob("*.rules")])
DECLARED = (Name.Class, Name.Function, Name.Variable)

SAMPLE = """\
# a comment with "quotes" and kind in it
game "Sample"
enum Colour { Red, Blue }
kind Card { colour: Colour  value: int = 2  label "{colour} {value + 1}" }
zone hand per player: pile, visible owner
var pot: int = 10
def worth(c: Card) = c.value * 2
action take(c in hand(me)) 'take {label(c)} from "{pot}"' { pot -= 1  move c to discard }
"""


def tokens(text: str) -> list[tuple[_TokenType, str]]:
    return [(t, v) for t, v in RulesLexer().get_tokens(text) if v.strip()]


def of(kind: _TokenType, text: str) -> list[str]:
    return [v for t, v in tokens(text) if t in kind]


@pytest.mark.parametrize("path", RULES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_rules_file_lexes_without_an_error_token(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    found = list(RulesLexer().get_tokens(text))
    assert "".join(v for _, v in found) == text if text.endswith("\n") else text + "\n"
    errors = [v for t, v in found if t in Error]
    assert not errors, errors[:10]


def test_sample_tokens() -> None:
    assert of(Comment, SAMPLE) == ['# a comment with "quotes" and kind in it']
    assert of(Name.Class, SAMPLE) == ["Colour", "Card"]
    assert of(Name.Function, SAMPLE) == ["worth", "take"]
    assert of(Name.Variable, SAMPLE) == ["hand", "pot"]
    assert of(Name.Attribute, SAMPLE) == ["value"]
    assert of(Number, SAMPLE) == ["2", "1", "10", "2", "1"]
    assert of(String.Interpol, SAMPLE) == ["{", "}"] * 4
    assert "Sample" in of(String.Double, SAMPLE) and " from \"" in of(String.Single, SAMPLE)
    keywords = of(Keyword, SAMPLE)
    assert {"game", "enum", "kind", "label", "zone", "per", "player", "visible", "owner", "var", "def",
            "action", "move", "to"} <= set(keywords)
    names = [v for t, v in tokens(SAMPLE) if t is Name]
    assert {"Red", "me", "pot", "discard", "colour"} <= set(names)  # `colour:` is an attribute, not the keyword
    assert of(Operator.Word, SAMPLE) == ["in"]
    # inside an interpolation the expression is lexed: `value + 1`, `label(c)`
    assert ("+" in of(Operator, SAMPLE)) and "label" in of(Keyword, 'x "{label(c)}"')


def test_unclosed_string_stops_at_its_line() -> None:
    assert of(Keyword, 'log "never closed\nlet x = 1') == ["log", "let"]


def test_a_declaring_keyword_ending_a_line_declares_nothing_on_the_next() -> None:
    """`list of zone` ends a line: the next line's `var` is still a keyword (as in the TextMate
    grammar, which reads a line at a time: tests/test_textmate_engine.py compares the two)."""
    text = "var walked per player: list of zone\nvar hunch per player: int = 3\n"
    assert of(Keyword.Declaration, text) == ["var", "zone", "var"]
    assert of(Name.Variable, text) == ["walked", "hunch"]


def test_keywords_are_the_grammars() -> None:
    assert KEYWORDS == set(re.findall(r'"([a-z_]+)"', grammar_text()))  # as tests/test_docs.py reads them
    for word in KEYWORDS:
        kind = tokens(word)[0][0]
        assert kind in Keyword or kind in Operator.Word, word
        assert [t for t, _ in tokens(word + "s_x")] == [Name], word  # a longer name is not a keyword


# --- the TextMate grammar ---------------------------------------------------------------------

def tm_grammar() -> dict:
    return json.loads((VSCODE / "syntaxes" / "ruleforge.tmLanguage.json").read_text(encoding="utf-8"))


def test_textmate_grammar_is_generated_from_the_current_keywords() -> None:
    sys.path.insert(0, str(VSCODE))
    try:
        import make_grammar
    finally:
        sys.path.remove(str(VSCODE))
    assert (VSCODE / "syntaxes" / "ruleforge.tmLanguage.json").read_text(encoding="utf-8") == make_grammar.render(), (
        "out of date: run python editors/vscode/make_grammar.py")


def test_textmate_keywords_match_every_keyword_and_no_declared_name() -> None:
    grammar = tm_grammar()
    assert grammar["scopeName"] == "source.ruleforge"
    keyword = [re.compile(p["match"]) for p in grammar["repository"]["keyword"]["patterns"]]
    declared = {v for path in RULES for t, v in RulesLexer().get_tokens(path.read_text(encoding="utf-8"))
                if t in DECLARED}
    assert len(declared) > 100
    for word in KEYWORDS:
        assert any(p.fullmatch(word) for p in keyword), word
    # no part of a declared name is taken for a keyword (`players_left`, `outer`, `turns`) ...
    assert [name for name in declared - KEYWORDS if any(p.search(name) for p in keyword)] == []
    # ... and a declared name spelt like a keyword (`var out per player`, `scoring final for p`) is
    # coloured as declared: the declaration patterns come before the keywords
    declarations = [re.compile(p["match"]) for p in grammar["patterns"] if "match" in p]
    for text, name in [("var out per player: flag", "out"), ("scoring final for p final {", "final"),
                       ("kind Card {", "Card"), ("def worth(c: Card) = 1", "worth")]:
        assert any((m := p.match(text)) and m.group(2) == name for p in declarations), text
    # every other pattern compiles too (Python's `re` reads this subset of Oniguruma alike)
    for pattern in re.findall(r'"(?:match|begin|end)": ("(?:[^"\\]|\\.)*")', json.dumps(grammar)):
        re.compile(json.loads(pattern))


def test_textmate_comments_strings_and_interpolations() -> None:
    repo = tm_grammar()["repository"]
    assert re.fullmatch(repo["comment"]["match"], "# kind x")
    double = repo["string-double"]
    assert double["begin"] == '"'
    interpolation = re.compile(double["patterns"][0]["match"])
    assert interpolation.fullmatch("{label(c)}") and interpolation.fullmatch("{x == 'a'}")
    assert not interpolation.fullmatch('{x == "a"}')


def test_vscode_package_names_files_that_exist() -> None:
    package = json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))
    assert (VSCODE / package["main"]).is_file()
    [language] = package["contributes"]["languages"]
    assert language["id"] == "ruleforge" and language["extensions"] == [".rules"]
    configuration = json.loads((VSCODE / language["configuration"]).read_text(encoding="utf-8"))
    assert configuration["comments"]["lineComment"] == "#"
    [grammar] = package["contributes"]["grammars"]
    assert grammar["language"] == "ruleforge" and grammar["scopeName"] == tm_grammar()["scopeName"]
    assert (VSCODE / grammar["path"]).is_file()
    assert "vscode-languageclient" in package["dependencies"]
    extension = (VSCODE / package["main"]).read_text(encoding="utf-8")
    assert '"lsp"' in extension and "vscode-languageclient/node" in extension


# --- the Pygments plugin ------------------------------------------------------------------------

def test_pygments_entry_point() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11 and later
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["entry-points"]["pygments.lexers"] == {"ruleforge": "ruleforge.highlight:RulesLexer"}
    assert project["optional-dependencies"]["highlight"] == ["pygments>=2.15"]
    assert "ruleforge[highlight]" in project["optional-dependencies"]["dev"]
    assert metadata.EntryPoint("ruleforge", "ruleforge.highlight:RulesLexer", "pygments.lexers").load() is RulesLexer


def test_pygments_finds_the_lexer_through_the_entry_point(tmp_path: Path) -> None:
    """What an install declares (a dist-info's entry_points.txt), found by Pygments' own plugin
    lookup in a fresh interpreter: the editable install this suite runs on may predate it."""
    info = tmp_path / "ruleforge_highlight_probe-0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: ruleforge-highlight-probe\nVersion: 0\n")
    (info / "entry_points.txt").write_text("[pygments.lexers]\nruleforge = ruleforge.highlight:RulesLexer\n")
    probe = ("from pygments.lexers import get_lexer_by_name, get_lexer_for_filename\n"
             "print(get_lexer_by_name('rules').name, '|', get_lexer_for_filename('x.rules').name)")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))
    ran = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == f"{RulesLexer.name} | {RulesLexer.name}"


# --- coloured source lines in error reports -----------------------------------------------------

ANSI = re.compile(r"\x1b\[[0-9;]*m")


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_painting_a_line_only_adds_colours() -> None:
    for line in (ROOT / "games" / "hagakure.rules").read_text(encoding="utf-8").split("\n")[:200]:
        painted = paint_line(line)
        assert ANSI.sub("", painted) == line
    assert "\x1b[" in paint_line('kind Card { label "{x}" }')


def test_colours_only_on_a_terminal_without_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    assert terminal_paint(io.StringIO()) is None
    assert terminal_paint(Terminal()) is paint_line
    monkeypatch.setenv("NO_COLOR", "1")
    assert terminal_paint(Terminal()) is None
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("TERM", "dumb")
    assert terminal_paint(Terminal()) is None


def test_a_painted_report_is_the_plain_one_with_colours_and_stays_inert() -> None:
    source = 'kind Card {\n  label "\x1b]0;owned\x07{nosuch}"\n}\n'
    error = RulesError([Diagnostic(Pos("t.rules", 2, 24, 2, 30), "unknown name 'nosuch'\x1b[2J", "a \x9b hint"),
                        Diagnostic(Pos("t.rules", 0, 0), "whole file \x07")], {"t.rules": source})
    painted, plain = error.render(paint_line), error.render()
    assert painted != plain and ANSI.sub("", painted) == inert(plain)
    assert "\x1b]" not in painted and "\x07" not in painted and "\x9b" not in painted
    assert "\\x1b]0;owned\\x07" in painted


def test_without_pygments_reports_are_plain() -> None:
    """Pygments is an extra: without it, a terminal gets the plain report, not an ImportError."""
    probe = """
import io, sys
class NoPygments:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "pygments":
            raise ImportError("pygments is an extra, not installed here")
sys.meta_path.insert(0, NoPygments())
class Terminal(io.StringIO):
    def isatty(self):
        return True
from ruleforge.diagnostics import terminal_paint
print(terminal_paint(Terminal()))
"""
    env = dict(os.environ, PYTHONPATH=str(ROOT), TERM="xterm")
    env.pop("NO_COLOR", None)
    ran = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    assert (ran.returncode, ran.stdout.strip()) == (0, "None"), ran.stderr
