"""Display hints: how a rules file asks for its components to be drawn (`display Kind { ... }`).

Plain data, read by the pictures (`ruleforge.picture`) and made by the loader from the rules'
`display` declarations (docs/language.md, "Display hints"). Every hint is optional: a game with
none still draws, each component as its label. Hints only ever look at what a view already
shows: a component's static attributes (known from its label) and the changeable properties the
view lists, so drawing a component can tell a player nothing their view does not.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import attrs

SIDES = ("N", "E", "S", "W")  # a path is drawn from the component's centre to each side it names
MOST_ICON = 8  # characters in an icon or a mark: a glyph or a short word, never a paragraph
HEX_COLOUR = re.compile(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})")


def is_colour(text: str) -> bool:
    """A colour a page may take from a stranger's file: `#rgb` or `#rrggbb`, never anything that
    could close a style or call a URL. (A rules file names its colours itself, with
    `palette NAME = "#rrggbb"`; the checker gives the hints their values.)"""
    return HEX_COLOUR.fullmatch(text) is not None


def sides_of(text: str) -> tuple[str, ...] | None:
    """`"N S"` as ("N", "S"): the sides a path joins; None unless every word is a side, once."""
    words = text.split()
    if not words or any(w not in SIDES for w in words) or len(set(words)) != len(words):
        return None
    return tuple(words)


@attrs.frozen
class ByValue:
    """A hint that depends on one attribute or changeable property of the component: its value
    as a view shows it (an enum member's name, `true`/`false`, a number as digits) -> the hint.
    A value with no entry gets no hint."""

    attribute: str
    values: Mapping[str, str] = attrs.field(converter=lambda m: dict(m))


@attrs.frozen
class KindDisplay:
    """The hints for one kind of component (`display Tile { ... }`)."""

    kind: str
    colour: str | ByValue | None = None   # the fill: one colour, or one per value of an attribute
    icon: str | ByValue | None = None     # a short text drawn large on the component
    paths: tuple[ByValue, ...] = ()       # each: value -> sides ("N S"), drawn as lines from the centre
    turn: tuple[str, int] | None = None   # (flag property, degrees): the drawing turned while it is set
    marks: tuple[tuple[str, str], ...] = ()  # (int attribute or property, glyph): the glyph and the number


DisplayHints = Mapping[str, KindDisplay]  # by kind name; a kind without hints is drawn by its label
