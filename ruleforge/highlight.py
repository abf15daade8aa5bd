"""Syntax highlighting of rules text: a Pygments lexer for `*.rules` files.

Pygments is an extra (`pip install 'ruleforge[highlight]'`), imported only here, so the core
never needs it. The lexer is registered as a Pygments plugin (the `pygments.lexers` entry point
in pyproject.toml): `pygmentize -l rules`, Sphinx and MkDocs code blocks tagged `rules` find it.

The keywords are read from the grammar when this module is imported, not listed by hand, so a
keyword added to ruleforge/grammar/ruleforge.lark is highlighted without touching this file.
The lexer only colours text: it never rejects a file the parser accepts (tests/test_highlight.py
lexes every game without an error token), and it need not reject what the parser refuses.
"""

from __future__ import annotations

import re
from typing import ClassVar

from pygments import highlight
from pygments.formatters import TerminalFormatter
from pygments.lexer import RegexLexer, bygroups, this, using
from pygments.token import (
    Comment,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Whitespace,
)

from .parser import grammar_text

__all__ = ["DECLARATIONS", "KEYWORDS", "OPERATOR_WORDS", "RulesLexer", "grammar_keywords", "paint_line"]


def grammar_keywords(grammar: str) -> frozenset[str]:
    """Every word the grammar spells as a literal ("kind", "per", ...): the language's keywords.

    The same extraction as tests/test_docs.py's list of documented keywords."""
    return frozenset(re.findall(r'"([a-z_]+)"', grammar))


KEYWORDS: frozenset[str] = grammar_keywords(grammar_text())

# Keywords that introduce a declaration, and how the name they declare is coloured: a type
# (kinds and enums, and `display` names a kind), something run or worked out (defs, phases,
# actions, scorings, measures) or a value (zones, variables, options).
DECLARATIONS: dict[str, str] = {
    "kind": "type", "enum": "type", "display": "type",
    "def": "function", "phase": "function", "action": "function", "scoring": "function", "measure": "function",
    "zone": "variable", "var": "variable", "option": "variable",
}
# Keywords that are operators in expressions: shown as operators, not as statements.
OPERATOR_WORDS: frozenset[str] = frozenset({"and", "or", "not", "in", "is"})

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_END = r"(?![A-Za-z0-9_])"  # a word ends here (names are ASCII: `\b` would accept Unicode letters)
_NAME_BEFORE_COLON = r"(?<![A-Za-z0-9_])(?!(?:choose|else|player)" + _END + ")" + _NAME + r"(?=[ \t]*:)"


def _words(words: frozenset[str] | set[str]) -> str:
    # longest first: `players` before `player`, `extends` before `extend`
    return r"(?<![A-Za-z0-9_])(?:" + "|".join(sorted(words, key=lambda w: (-len(w), w))) + ")" + _END


def _declaration(keywords: list[str], token: object) -> tuple[str, object]:
    # the name on the keyword's line: `list of zone` ending a line does not declare the next line's `var`
    # (and a TextMate grammar, read a line at a time, could not colour it so)
    pattern = r"(?<![A-Za-z0-9_])(" + "|".join(keywords) + r")([ \t]+)(" + _NAME + ")" + _END
    return pattern, bygroups(Keyword.Declaration, Whitespace, token)


def _declared(kind: str) -> list[str]:
    return sorted(word for word, what in DECLARATIONS.items() if what == kind)


def _string(quote: str, token: object) -> list[tuple]:
    """A string's tokens after its opening quote. `{expr}` inside is lexed as an expression
    (which may hold strings of the other quote); a lone `{` is plain text (the parser reports it)."""
    return [
        (quote, token, "#pop"),
        (r"(\{)([^{}" + quote + r"\n]*)(\})", bygroups(String.Interpol, using(this), String.Interpol)),
        (r"[^{" + quote + r"\n]+", token),
        (r"\{", token),
        (r"(?=\n)", token, "#pop"),  # never closed on its line: the parser says so, the next line lexes afresh
    ]


class RulesLexer(RegexLexer):
    """Pygments lexer for ruleforge rules files (`*.rules`)."""

    name = "ruleforge rules"
    aliases: ClassVar[list[str]] = ["rules", "ruleforge"]
    filenames: ClassVar[list[str]] = ["*.rules"]
    mimetypes: ClassVar[list[str]] = ["text/x-ruleforge"]

    tokens: ClassVar[dict[str, list]] = {
        "root": [
            (r"\s+", Whitespace),
            (r"#[^\n]*", Comment.Single),
            (r'"', String.Double, "dq"),
            (r"'", String.Single, "sq"),
            (r"[0-9]+", Number.Integer),
            # `c.kind`: after a dot every word is a property (the parser reads a keyword there as a name)
            (r"(\.)(" + _NAME + ")", bygroups(Punctuation, Name.Attribute)),
            # `colour: Colour`, `f(p: player)`, `Card(colour: Red)`: a word before a colon is a name
            # (a kind's attribute may be called like a keyword), except in `choose:`, `else:` and `per player:`
            (_NAME_BEFORE_COLON, Name),
            _declaration(_declared("type"), Name.Class),
            _declaration(_declared("function"), Name.Function),
            _declaration(_declared("variable"), Name.Variable),
            (_words(set(DECLARATIONS) & KEYWORDS), Keyword.Declaration),
            (_words(OPERATOR_WORDS & KEYWORDS), Operator.Word),
            (_words(KEYWORDS - OPERATOR_WORDS - set(DECLARATIONS)), Keyword),
            (_NAME, Name),
            (r"\.\.|==|!=|<=|>=|\+=|-=|\*=|//|[-+*%<>=]", Operator),
            (r"[{}()\[\],:.]", Punctuation),
        ],
        "dq": _string('"', String.Double),
        "sq": _string("'", String.Single),
    }


_LEXER = RulesLexer(stripnl=False)
_FORMATTER = TerminalFormatter()


def paint_line(text: str) -> str:
    """One line of rules text with ANSI colours, as `ruleforge check` shows it above a caret on a
    terminal (ruleforge.diagnostics.terminal_paint). Only colours are added: the caret below,
    worked out from the plain text, still lines up."""
    return highlight(text, _LEXER, _FORMATTER).removesuffix("\n")
