"""Mutation operators: the single-point changes made to a rules file, found in its parse tree.

Each operator looks at one kind of parse-tree node and proposes splices: an exact span of the
file's text and what replaces it. Working on the tree (not on the text) means a number inside a
string or a comment is never touched, and every change lands on a real construct of the
language. The spans come from the tokens' and nodes' own positions in the text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import attrs
from lark import Token, Tree

from ..model import Model


@attrs.frozen
class Splice:
    """One proposed change: `text[start:end]` becomes `new`; `operator` names the kind of
    change and `what` says it in words (`< -> <=`)."""

    operator: str
    start: int
    end: int
    new: str
    what: str


# Each operator name with what it does, in the order the docs list them.
OPERATORS: dict[str, str] = {
    "number": "a whole number one more or one less (a count, points, a size, a table key)",
    "comparison": "a comparison shifted at its boundary (< and <=) or turned round (== and !=, < and >=)",
    "and/or": "`and` and `or` swapped",
    "not": "a `not` dropped",
    "require": "a `require` dropped",
    "arithmetic": "`+` and `-` swapped (also `+=` and `-=`, `*` and `//`)",
    "aggregate": "min and max, any and every, first and last, argmin and argmax swapped",
    "table": "a table entry `N:` made `N+:` (that many or more), and back",
    "name": "an enum member or a kind named in an expression changed to the next one of its enum or kinds",
    "flag": "`true` and `false` swapped",
    "scope": "`once per turn` and `once per game` swapped",
    "position": "`at top` and `at bottom` swapped",
}

_COMPARISONS = {"<": ("<=", ">="), "<=": ("<", ">"), ">": (">=", "<="), ">=": (">", "<"),
                "==": ("!=",), "!=": ("==",)}
_ARITHMETIC = {"+": "-", "-": "+", "+=": "-=", "-=": "+=", "*": "//", "//": "*"}
_AGGREGATES = {"min": "max", "max": "min", "any": "every", "every": "any", "first": "last",
               "last": "first", "argmin": "argmax", "argmax": "argmin"}
_KEYWORD_GAP = re.compile(r"#[^\n]*")


def splices(tree: Tree, text: str, model: Model) -> Iterator[Splice]:
    """Every splice the operators propose for a parse tree of `text`, in the tree's order.
    `model` names the enums and kinds a `name` may become."""
    kinds = list(model.kinds)
    successor: dict[str, str] = {}
    for enum in model.enums.values():
        members = [m[0] if isinstance(m, tuple) else m for m in enum.members]
        for i, m in enumerate(members):
            if len(members) > 1:
                successor[m] = members[(i + 1) % len(members)]
    for i, k in enumerate(kinds):
        if len(kinds) > 1:
            successor.setdefault(k, kinds[(i + 1) % len(kinds)])
    for node in tree.iter_subtrees_topdown():
        for handler in _HANDLERS.get(node.data, ()):
            yield from handler(node, text, successor)


def _tokens(node: Tree) -> list[Token]:
    return [c for c in node.children if isinstance(c, Token)]


def _number(node: Tree, text: str, successor: dict[str, str]) -> Iterator[Splice]:
    """`INT` anywhere the grammar has a number: one more, and one less when it is above 0."""
    for tok in _tokens(node):
        if tok.type != "INT":
            continue
        n = int(tok)
        for m in (n + 1, n - 1):
            if m >= 0:
                yield Splice("number", tok.start_pos, tok.end_pos, str(m), f"{n} -> {m}")


def _comparison(node: Tree, text: str, successor: dict[str, str]) -> Iterator[Splice]:
    """comp_op: `< <= > >= == !=` (`in` and `is` are left alone)."""
    tok = _tokens(node)[0]
    for new in _COMPARISONS.get(str(tok), ()):
        yield Splice("comparison", tok.start_pos, tok.end_pos, new, f"{tok} -> {new}")


def _arithmetic(node: Tree, text: str, successor: dict[str, str]) -> Iterator[Splice]:
    """add_op, mul_op and assign_op."""
    tok = _tokens(node)[0]
    new = _ARITHMETIC.get(str(tok))
    if new is not None:
        yield Splice("arithmetic", tok.start_pos, tok.end_pos, new, f"{tok} -> {new}")


def _keyword_between(node: Tree, text: str, word: str) -> tuple[int, int] | None:
    """Where the keyword `word` that the grammar drops from the tree sits: between the end of
    the first child and the start of the second (comments in the gap skipped)."""
    left, right = node.children[0], node.children[1]
    start, end = _end(left), _start(right)
    gap = _KEYWORD_GAP.sub(lambda m: " " * len(m.group()), text[start:end])
    found = re.search(rf"\b{word}\b", gap)
    return None if found is None else (start + found.start(), start + found.end())


def _start(x: Tree | Token) -> int:
    return x.start_pos if isinstance(x, Token) else x.meta.start_pos


def _end(x: Tree | Token) -> int:
    return x.end_pos if isinstance(x, Token) else x.meta.end_pos


def _bool_op(word: str, other: str) -> Callable[[Tree, str, dict[str, str]], Iterator[Splice]]:
    def handler(node: Tree, text: str, successor: dict[str, str]) -> Iterator[Splice]:
        """`a and b` <-> `a or b`."""
        at = _keyword_between(node, text, word)
        if at is not None:
            yield Splice("and/or", at[0], at[1], other, f"{word} -> {other}")
    return handler


def _not(node: Tree, text: str, successor: dict[str, str]) -> Iterator[Splice]:
    """`not X` -> `X`: the keyword and the spaces after it (a bracket after it stays)."""
    keyword = re.compile(r"not\s*").match(text, node.meta.start_pos)
    if keyword is not None:
        yield Splice("not", keyword.start(), keyword.end(), "", "not dropped")


def _require(node: Tree, text: str, successor: dict[str, str]) -> Iterator[Splice]:
    """`require COND` dropped (the statement's whole span)."""
    yield Splice("require", node.meta.start_pos, node.meta.end_pos, "", "require dropped")


def _aggregate(node: Tree, text: str, successor: dict[str, str]) -> Iterator[Splice]:
    """`min(...)` <-> `max(...)` and the other pairs, in calls and generator calls."""
    tok = node.children[0]
    if isinstance(tok, Token) and str(tok) in _AGGREGATES:
        new = _AGGREGATES[str(tok)]
        yield Splice("aggregate", tok.start_pos, tok.end_pos, new, f"{tok} -> {new}")


def _table_entry(node: Tree, text: str, successor: dict[str, str]) -> Iterator[Splice]:
    """`N: value` <-> `N+: value` (the number itself is the `number` operator's)."""
    tok = node.children[0]
    if node.data == "exact_entry":
        yield Splice("table", tok.end_pos, tok.end_pos, "+", f"{tok}: -> {tok}+:")
    else:
        plus = text.index("+", tok.end_pos)
        yield Splice("table", tok.end_pos, plus + 1, "", f"{tok}+: -> {tok}:")


def _name(node: Tree, text: str, successor: dict[str, str]) -> Iterator[Splice]:
    """A name in an expression: an enum member or a kind -> the next of its enum or kinds;
    `true` <-> `false`."""
    tok = node.children[0]
    word = str(tok)
    if word in ("true", "false"):
        new = "false" if word == "true" else "true"
        yield Splice("flag", tok.start_pos, tok.end_pos, new, f"{word} -> {new}")
    elif word in successor:
        yield Splice("name", tok.start_pos, tok.end_pos, successor[word], f"{word} -> {successor[word]}")


def _scope(node: Tree, text: str, successor: dict[str, str]) -> Iterator[Splice]:
    """`per turn` <-> `per game` in an action's limit."""
    tok = _tokens(node)[0]
    new = "game" if str(tok) == "turn" else "turn"
    yield Splice("scope", tok.start_pos, tok.end_pos, new, f"per {tok} -> per {new}")


def _position(node: Tree, text: str, successor: dict[str, str]) -> Iterator[Splice]:
    """`move ... to DEST at top` <-> `at bottom` (the words are dropped from the tree: they are
    found between the destination and the statement's end)."""
    last = node.children[-1]
    if not isinstance(last, Tree) or last.data not in ("at_top", "at_bottom"):
        return
    old, new = ("top", "bottom") if last.data == "at_top" else ("bottom", "top")
    found = re.search(rf"\b{old}\b", text[_end(node.children[-2]):node.meta.end_pos])
    if found is not None:
        at = _end(node.children[-2]) + found.start()
        yield Splice("position", at, at + len(old), new, f"at {old} -> at {new}")


_Handler = Callable[[Tree, str, dict[str, str]], Iterator[Splice]]

# parse-tree rule -> the operators that look at it (an INT is the `number` operator's wherever
# the grammar has one; a table entry's key gets the `table` operator too)
_HANDLERS: dict[str, tuple[_Handler, ...]] = {
    **{rule: (_number,) for rule in ("int_lit", "players_decl", "copies", "count_limit", "vis_row")},
    "exact_entry": (_number, _table_entry), "at_least_entry": (_number, _table_entry),
    "comp_op": (_comparison,),
    "add_op": (_arithmetic,), "mul_op": (_arithmetic,), "assign_op": (_arithmetic,),
    "and_op": (_bool_op("and", "or"),), "or_op": (_bool_op("or", "and"),),
    "not_op": (_not,),
    "require_stmt": (_require,),
    "call": (_aggregate,), "gen_call": (_aggregate,),
    "name": (_name,),
    "scope": (_scope,),
    "move_stmt": (_position,),
}


def all_splices(tree: Tree, text: str, model: Model) -> list[Splice]:
    """Every splice of every operator, in the order of the text (then operator, then change)."""
    order = list(OPERATORS)
    return sorted(set(splices(tree, text, model)), key=lambda s: (s.start, s.end, order.index(s.operator), s.new))
