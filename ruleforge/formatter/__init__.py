"""`ruleforge fmt`: one canonical layout for a rules file, comments kept where they were.

Only white space changes: the formatted text has the same tokens in the same order, so it
parses to the same tree (the parser is deterministic on its tokens), and `format_text` lexes
and parses its answer again to check that it does before giving it (a formatter that changed a
game would be worse than none). The layout rules are in `layout`.
"""

from __future__ import annotations

from lark import Token, Tree
from lark.exceptions import UnexpectedInput

from .. import lexical
from ..parser import parse_rules
from .layout import Layout, events, keep_unformatted, render
from .roles import full_parser, roles


class FormatterBug(Exception):
    """The formatted text would not parse to the same tree: a bug in ruleforge, never written."""


def format_text(text: str, path: str = "<text>") -> str:
    """`text` in the canonical layout. A text that is not valid rules syntax raises the
    RulesError `ruleforge check` would report (with every limit on size and depth applied)."""
    # the syntax errors and limits as `check` reports them, and the text exactly as it reads it
    # (a byte-order mark dropped, line ends made '\n')
    text = parse_rules(text, path).source
    bug = FormatterBug(f"formatting {path} would change what it says; it was left as it was")
    try:
        tree = full_parser().parse(text)
    except UnexpectedInput:  # the parsers are built from one grammar: they cannot disagree
        raise bug from None
    formatted = render(keep_unformatted(Layout().run(events(text, roles(tree))), text))
    try:
        same = _tokens(full_parser().parse(formatted)) == _tokens(tree)
    except UnexpectedInput:
        same = False
    if not same:
        raise bug
    return formatted


def syntax_tree(text: str) -> Tree:
    """The parse tree of a rules text with every token kept (`per player` always written the
    same): what formatting must not change."""
    tree = full_parser().parse(lexical.normalize(text))
    for node in tree.iter_subtrees():
        node.children = [Token("PER", "per player") if isinstance(c, Token) and c.type == "PER" else c
                         for c in node.children]
    return tree


def _tokens(tree: Tree) -> list[tuple[str, str]]:
    return [(role.token.type, role.text) for role in roles(tree)]


__all__ = ["FormatterBug", "format_text", "syntax_tree"]
