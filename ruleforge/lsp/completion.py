"""Completion by what the grammar accepts at the cursor, and by what kind of name fits there.

The text before the cursor (up to the start of a half-typed word) is fed to Lark's interactive
LALR parser, built from the same Lark object as the real parser. Its `accepts()` gives the
terminals that may come next: the keywords among them are offered as they are, and when a name
may come, the parser's value stack (the open constructs, innermost last) says which names fit:
an action after `turn p:`, a zone after `move ... to`, a kind's attributes after `c.`.
When the prefix does not parse (an error earlier in the file) or is too long, every keyword
and every name is offered, as before. Plain data out: the server turns it into LSP items.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

import attrs
from lark import Token, Tree
from lark.exceptions import LarkError

from .. import lexical
from ..checker import AGGREGATES, BUILTIN_ENUMS, CONSTANTS, END_FLAGS, FUNCTIONS, ZONE_SHAPES
from ..parser import lark_parser
from .analysis import Symbol, from_utf16, keywords
from .facts import Facts

# Past this many characters before the cursor, no prefix is parsed and everything is offered: a
# bound on the time one completion takes (about 3 s for text made only of short tokens; the
# largest game (29 KB) takes 0.2 s at most).
MAX_PREFIX = 200_000
CONTEXT_NAMES = {"me": "the acting player (in an action, a turn or a trigger)",
                 "it": "the moved component (in a trigger)"}
SIMPLE_TYPES = ("int", "flag", "text", "zone")
_WORD_END = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
# Keywords that start a top-level item: where the locals of the item being written begin.
_ITEM_STARTS = {"GAME", "PLAYERS", "EXTENDS", "OPTION", "REMOVE", "REPLACE", "EXTEND", "ENUM", "KIND", "ZONE",
                "VAR", "DEF", "COMPONENTS", "PHASE", "FLOW", "ACTION", "WHEN", "SCORING", "RANKING", "END",
                "INVARIANT", "MEASURE", "DISPLAY", "PALETTE"}
# After these a new name is written (a declaration, a local): nothing declared fits.
_NEW_NAME_AFTER = {"KIND", "ZONE", "VAR", "DEF", "PHASE", "ACTION", "ENUM", "OPTION", "MEASURE", "PALETTE",
                   "LET", "FOR", "SORT", "BEST", "SCORING"}
# What a word of `remove WORD NAME` removes, as `Symbol.word` calls it.
_REMOVED = {"ENUM": "enum", "KIND": "kind", "ZONE": "zone", "VAR": "var", "DEF": "def", "PHASE": "phase",
            "ACTION": "action", "SCORING": "scoring", "OPTION": "option", "PALETTE": "palette"}
_EXPRESSION_START = {"INT", "STRING", "LPAR", "LSQB"}


@attrs.frozen
class Item:
    """One completion: `what` it is (keyword, zone, attribute, ...), a detail, and a rank (lower
    first) that puts the names fitting the place before the others."""

    label: str
    what: str
    detail: str
    rank: int = 1


@functools.cache
def _literals() -> dict[str, str]:
    """Each keyword terminal's name (`ZONE`, `__ANON_1`) and its word; `per player` for PER."""
    out = {"PER": "per player"}
    for terminal in lark_parser().terminals:
        value = getattr(terminal.pattern, "value", "")
        if terminal.pattern.type == "str" and re.fullmatch(r"[a-z_]+", value):
            out[terminal.name] = value
    return out


def _type(v: object) -> str:
    """A value-stack entry as a word: a token's type, or `<rule>` for a reduced subtree."""
    if isinstance(v, Token):
        return v.type
    if isinstance(v, Tree):
        return f"<{v.data}>"
    return ""


def in_comment_or_string(before: str) -> bool:
    """Whether the end of a line's text is inside a comment or an unclosed string."""
    quote = ""
    for ch in before:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            return True
    return bool(quote)


def complete(text: str, line: int, character: int, symbols: list[Symbol], facts: Facts) -> list[Item]:
    """The completions at an LSP position of `text`."""
    lines = text.split("\n")
    if not 0 <= line < len(lines):
        return everything(symbols)
    column = from_utf16(lines[line], character)
    before = lines[line][:column]
    if in_comment_or_string(before):
        return []
    word = _WORD_END.search(before)
    start = column - (len(word.group()) if word else 0)
    prefix = "\n".join([*lines[:line], lines[line][:start]])
    parsed = parse_prefix(prefix)
    if parsed is None:
        return everything(symbols)
    stack, tokens, accepts = parsed
    literals = _literals()
    items = [Item(literals[t], "keyword", "keyword", 2) for t in sorted(accepts) if t in literals]
    if "NAME" in accepts:
        items += Names(symbols, facts, tokens).at(stack, accepts)
    return _unique(items)


def parse_prefix(prefix: str) -> tuple[list, list[Token], set[str]] | None:
    """The parser's value stack, the tokens and the accepted terminals after `prefix`, or None
    when it does not parse (or is past `MAX_PREFIX`)."""
    if len(prefix) > MAX_PREFIX:
        return None
    try:
        interactive = lark_parser().parse_interactive(lexical.normalize(prefix), start="start")
        tokens = interactive.exhaust_lexer()
        accepts = interactive.accepts()
    except (LarkError, RecursionError):
        return None
    return list(interactive.parser_state.value_stack), tokens, set(accepts)


def everything(symbols: list[Symbol]) -> list[Item]:
    """Every keyword, declared name and built-in: what is offered when the place is unknown."""
    items = [Item(k, "keyword", "keyword", 2) for k in keywords()]
    items += [_declared(s) for s in _all(symbols)]
    items += builtins()
    return _unique(items)


def builtins() -> list[Item]:
    items = [Item(n, "function", "aggregate", 1) for n in sorted(AGGREGATES)]
    items += [Item(n, "function", "function", 1) for n in sorted(FUNCTIONS)]
    items += [Item(n, "constant", str(t), 1) for n, t in CONSTANTS.items()]
    items += [Item(n, "constant", "flag, once an end was triggered / the last turn is over", 1) for n in END_FLAGS]
    items += [Item(n, "variable", note, 1) for n, note in CONTEXT_NAMES.items()]
    items += [Item(m, "enum member", enum, 1) for enum, members in BUILTIN_ENUMS.items() for m in members]
    return items


def _all(symbols: list[Symbol]) -> Iterable[Symbol]:
    """Every declared name, an enum's members after it (their detail is the enum's name)."""
    for symbol in symbols:
        yield symbol
        yield from (attrs.evolve(member, line_text=symbol.name) for member in symbol.children)


def _declared(symbol: Symbol, rank: int = 1) -> Item:
    return Item(symbol.name, symbol.word, symbol.line_text, rank)


def _unique(items: list[Item]) -> list[Item]:
    """The first item of each label (the best ranked, as places add the fitting names first)."""
    seen: dict[str, Item] = {}
    for item in items:
        if item.label not in seen or item.rank < seen[item.label].rank:
            seen[item.label] = item
    return list(seen.values())


class Names:
    """The names that fit a place: declared ones (by what declares them), locals of the item
    being written, built-ins, kinds' members."""

    def __init__(self, symbols: list[Symbol], facts: Facts, tokens: list[Token]):
        self.symbols = list(_all(symbols))
        self.facts = facts
        self.locals = item_locals(tokens, facts)

    def declared(self, *words: str, rank: int = 1) -> list[Item]:
        return [_declared(s, rank) for s in self.symbols if s.word in words]

    def local_items(self) -> list[Item]:
        return [Item(n, "local", f"local: {t}" if t else "local", 0) for n, t in self.locals.items()]

    def expression(self) -> list[Item]:
        """What an expression may name: values, functions, locals; not actions, phases, scorings."""
        return (self.local_items() + self.declared("zone", "var", "def", "option", "enum member")
                + builtins())

    def zones(self, only: bool) -> list[Item]:
        """Zones first where a zone is expected; other values too if an expression may stand there."""
        fitting = self.declared("zone", rank=0)
        return fitting if only else fitting + self.expression()

    def members(self, kind: str | None) -> list[Item]:
        """The attributes and properties of `kind`, or of every kind (each detail naming its kinds)."""
        kinds = {kind: self.facts.kinds[kind]} if kind in self.facts.kinds else self.facts.kinds
        found: dict[str, tuple[str, list[str]]] = {}
        for name, members in kinds.items():
            for m in members:
                what = "property" if m.mutable else "attribute"
                found.setdefault(m.name, (f"{what}: {m.type}", []))[1].append(name)
        return [Item(n, "property" if d.startswith("property") else "attribute", f"{d} ({', '.join(ks)})", 0)
                for n, (d, ks) in sorted(found.items())]

    def kind_of(self, obj: object) -> str | None:
        """The kind of a name before a dot, when a parameter, loop variable, var or def says it."""
        if isinstance(obj, Tree) and obj.data == "name" and obj.children:
            obj = obj.children[0]
        if not isinstance(obj, Token) or obj.type != "NAME":
            return None
        written = self.type_of(str(obj))
        return written if written in self.facts.kinds else None

    def type_of(self, name: str) -> str:
        """A local's type as written or worked out, else a var's, def's or option's ('' unknown)."""
        return self.locals[name] if name in self.locals else self.facts.types.get(name, "")

    def types(self) -> list[Item]:
        items = [Item(t, "type", "type", 0) for t in SIMPLE_TYPES]
        items += [Item(e, "enum", "built-in enum", 0) for e in BUILTIN_ENUMS]
        return items + self.declared("kind", "enum", rank=0)

    def at(self, stack: list, accepts: set[str]) -> list[Item]:
        """The names fitting after the value stack `stack`."""
        words = [_type(v) for v in stack]
        top = words[-1] if words else ""
        second = words[-2] if len(words) > 1 else ""
        expression = bool(accepts & _EXPRESSION_START)
        if top == "DOT":
            return self.members(self.kind_of(stack[-2]) if len(stack) > 1 else None)
        if _action_list(words):
            return self.declared("action", rank=0) + [Item("pass", "action", "the built-in action: does nothing", 0)]
        if {"PLAYER", "LIST"} <= accepts:
            return self.types()
        if top == "COLON" and "ZONE" in words[-4:-1]:
            return [Item(s, "shape", "zone shape", 0) for s in sorted(ZONE_SHAPES)]
        if second == "REMOVE" and top in _REMOVED:
            return self.declared(_REMOVED[top], rank=0)
        if top == "SCORE" or (top == "SCORING" and second == "EXTEND"):
            return self.declared("scoring", rank=0)
        if top == "INTO" and "SCORE" in words[-4:-1]:
            return [_declared(s, 0) for s in self.symbols if s.word == "var" and s.name in self.facts.per_player]
        if top == "DISPLAY":
            return self.declared("kind", rank=0)
        if top in _NEW_NAME_AFTER or second in ("<param>", "<action_param>") or _header_paren(words):
            return []
        brace = _open_brace(words)
        owner = words[brace - 1] if brace >= 1 else ""
        if owner == "COMPONENTS":
            return self._component(stack, words)
        if brace >= 2 and words[brace - 2] == "DISPLAY" and top in ("BY", "IF", "MARK"):
            return self.members(str(stack[brace - 1]))  # `colour by`, `turn 90 if`, `mark`: the kind's
        owner = words[brace - 2] if brace >= 2 and owner == "NAME" else owner
        if owner == "KIND" and top in ("LBRACE", "<attr_decl>", "<prop_decl>", "<kind_label>"):
            return []
        if {"MOVE", "LET"} <= accepts:  # the start of a statement: a phase, or a variable assigned
            return self.local_items() + self.declared("phase", "var", rank=0)
        if top == "IS":
            return self.declared("kind", "enum member", rank=0)
        if _zone_place(words):
            return self.zones(only=not expression)
        if expression or "NOT" in accepts or "MINUS" in accepts:
            return self.expression()
        return self.local_items() + [_declared(s) for s in self.symbols] + builtins()

    def _component(self, stack: list, words: list[str]) -> list[Item]:
        """Inside `components { ... }`: kinds, a kind's attributes in its brackets, zones after `in`."""
        if words[-1] == "IN":
            return self.declared("zone", rank=0)
        k = len(words) - 1
        while k > 0 and words[k] in ("COMMA", "<component_arg>"):
            k -= 1
        if words[k] == "LPAR" and k > 0 and words[k - 1] == "NAME":
            kind = str(stack[k - 1])
            return [i for i in self.members(kind) if i.what == "attribute"] if kind in self.facts.kinds else []
        if words[-1] in ("LBRACE", "OF", "NAME") or words[-1].startswith("<"):  # where an entry may start
            return self.declared("kind", rank=0)
        return self.expression()  # an attribute's value, a count, a condition


def _action_list(words: list[str]) -> bool:
    """After `turn EXPR:`, `turn EXPR "prompt":`, `turn together EXPR:`, `choose:`, `choose
    "prompt":`, or a comma of the list that follows."""
    if not words or words[-1] not in ("COLON", "COMMA"):
        return False
    k = len(words) - 1
    while k > 0 and (words[k] in ("COMMA", "NAME") or words[k].startswith("<__")):
        k -= 1
    if words[k] != "COLON":
        return False
    k -= 1
    if k >= 0 and words[k] == "STRING":
        k -= 1
    if k >= 0 and words[k] == "CHOOSE":
        return True
    return k >= 1 and words[k - 1] in ("TURN", "TOGETHER") and words[k] != "TURN"


def _header_paren(words: list[str]) -> bool:
    """Just after `def NAME(`, `phase NAME(` or `action NAME(`: a parameter's new name."""
    return len(words) >= 3 and words[-1] == "LPAR" and words[-2] == "NAME" and words[-3] in ("DEF", "PHASE", "ACTION")


def _open_brace(words: list[str]) -> int:
    """Where the innermost `{` still open is on the stack (a closed block is reduced there, so
    an `LBRACE` left is open), or -1: what precedes it says what is open (`components`, `kind
    NAME`, `display NAME`)."""
    for k in range(len(words) - 1, -1, -1):
        if words[k] == "LBRACE":
            return k
    return -1


def _zone_place(words: list[str]) -> bool:
    """Where a zone is what is usually written: `move X to`, `deal N from Z to`, `shuffle`,
    `swap`/`with`, `in` (a parameter's, a loop's source, membership), `top N of`, a trigger's zones."""
    top = words[-1]
    if top in ("IN", "SHUFFLE", "SWAP", "WITH"):
        return True
    if top == "TO":
        return "MOVE" in words[-3:-1] or "DEAL" in words[-5:-1]
    if top == "FROM":
        return words[-2] != "PLAYERS"
    if top == "INTO" or (top == "OF" and words[-2] == "OUT"):
        return "MOVED" in words[-5:-1]
    return top == "OF" and "TOP" in words[-3:-1]


def item_locals(tokens: list[Token], facts: Facts) -> dict[str, str]:
    """The local names of the item being written (its parameters, `let`s, loop and generator
    variables), each with its type when it is written (`c: Card`) or follows from a source whose
    type is known (`for c in cards`, `cards` a def giving a `list of Card`)."""
    start, depth = 0, 0
    for k, tok in enumerate(tokens):
        if tok.type == "LBRACE":
            depth += 1
        elif tok.type == "RBRACE":
            depth = max(depth - 1, 0)
        elif depth == 0 and tok.type in _ITEM_STARTS and (k == 0 or tokens[k - 1].type not in ("REPLACE", "REMOVE",
                                                                                               "EXTEND")):
            start = k
    item = tokens[start:]
    out: dict[str, str] = {}
    for k, tok in enumerate(item):
        if tok.type != "NAME" or k == 0:
            continue
        prev = item[k - 1].type
        after = item[k + 1].type if k + 1 < len(item) else ""
        if after == "COLON" and prev in ("LPAR", "COMMA") and item[0].type in ("DEF", "PHASE"):
            out[str(tok)] = _written_type(item, k + 2)
        elif prev in ("LET", "BEST") or (prev in ("FOR", "SORT") and after == "IN") or (
                after == "IN" and prev in ("LPAR", "COMMA") and item[0].type == "ACTION"):
            source = str(item[k + 2]) if after == "IN" and k + 2 < len(item) and item[k + 2].type == "NAME" else ""
            element = out.get(source) or facts.types.get(source, "")  # a parameter's type, or a name's
            out[str(tok)] = element[len("list of "):] if element.startswith("list of ") else ""
        elif prev == "FOR" and item[0].type in ("SCORING", "RANKING", "INVARIANT", "EXTEND"):
            out[str(tok)] = "player"
    return out


def _written_type(tokens: list[Token], k: int) -> str:
    words = []
    while k < len(tokens) and tokens[k].type in ("NAME", "LIST", "OF", "PLAYER"):
        words.append(str(tokens[k]))
        k += 1
    return " ".join(words)
