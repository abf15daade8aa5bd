"""What each token is to the layout: read off a parse tree that keeps every token.

The formatter never decides a line break from the text alone (the language is free-form, so
only the parser knows where a statement ends); it asks the tree. Each token gets a role: the
first token of a declaration or of a member of a body (a statement, a kind's attribute, a
scoring item, ...), the brace that opens or closes such a body, or a token that belongs on the
line before it (`{` after its header, `else`, `elif` and `until` after a `}`).
"""

from __future__ import annotations

import functools

import attrs
from lark import Lark, Token, Tree

from ..parser import grammar_text
from ..parser_cache import cached_lark

# Rules whose braces hold one member per line.
BODIES = frozenset({"block", "kind_decl", "components_decl", "scoring_decl", "extend_decl", "display_decl"})
# Clauses that follow a body's closing brace on its line: `} else {`, `} elif x {`.
_CLAUSES = frozenset({"elif_clause", "else_clause"})
OPENERS = frozenset({"(", "[", "{"})
CLOSERS = frozenset({")", "]", "}"})


@functools.cache
def full_parser() -> Lark:
    """The language's parser, keeping every keyword and punctuation token in the tree."""
    return cached_lark(grammar_text(), parser="lalr", start="start", keep_all_tokens=True)


@attrs.define
class Role:
    """The layout role of one token (see the module's docstring)."""

    token: Token
    parent: str  # the rule (or alias) the token is a direct child of
    member: bool = False
    body_open: bool = False
    body_close: bool = False
    join: bool = False

    @property
    def text(self) -> str:
        """The token as written out: `per player` always with one space, the rest verbatim."""
        return "per player" if self.token.type == "PER" else str(self.token)


def roles(tree: Tree) -> list[Role]:
    """Every token of `tree` in source order, with its role. The walk keeps its own stack: a
    tree may be deeper than Python's recursion goes."""
    found: dict[int, Role] = {}
    pending: list[Tree] = [tree]
    while pending:
        node = pending.pop()
        for child in node.children:
            if isinstance(child, Tree):
                pending.append(child)
            elif isinstance(child, Token):
                found[id(child)] = Role(child, str(node.data))
    _mark(tree, found)
    return sorted(found.values(), key=lambda role: role.token.start_pos)


def _mark(tree: Tree, found: dict[int, Role]) -> None:
    """Set the roles that depend on where a token sits in the tree."""
    for child in tree.children:  # the declarations
        _set(found, _first_token(child), member=True)
    for node in tree.iter_subtrees():
        data = str(node.data)
        if data in BODIES:
            _mark_body(node, found)
        elif data in _CLAUSES:
            _set(found, _first_token(node), join=True)
        elif data == "until_stmt":
            for child in node.children:
                if isinstance(child, Token) and child == "until":
                    _set(found, child, join=True)


def _mark_body(node: Tree, found: dict[int, Role]) -> None:
    braces = [i for i, child in enumerate(node.children) if isinstance(child, Token) and child in ("{", "}")]
    opening, closing = braces[0], braces[-1]
    _set(found, node.children[opening], body_open=True, join=True)
    _set(found, node.children[closing], body_close=True)
    for child in node.children[opening + 1:closing]:
        _set(found, _first_token(child), member=True)


def _set(found: dict[int, Role], token: Token | Tree | None, **flags: bool) -> None:
    if isinstance(token, Token):
        for flag, value in flags.items():
            setattr(found[id(token)], flag, value)


def _first_token(node: Tree | Token) -> Token | None:
    while isinstance(node, Tree):
        if not node.children:
            return None
        node = node.children[0]
    return node
