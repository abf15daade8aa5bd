"""Text and colours from a stranger's file, made safe to put in a page or an SVG document.

Everything a picture writes that came from a rules file, a view or a log (labels, zone names,
icons, glyphs, values) passes through `text` or `attr`: control characters shown as escapes
(ruleforge/inert.py, so that a label holding ESC or a bidi override is seen, not obeyed), the
few code points XML cannot hold at all (lone surrogates, U+FFFE, U+FFFF) escaped the same way,
then HTML-escaped with quotes, so that a label can neither open a tag nor leave an attribute.
A colour is only ever one that `display.is_colour` accepts.
"""

from __future__ import annotations

import html
from typing import Any

from ..display import HEX_COLOUR, is_colour
from ..inert import inert

_NOT_XML = {code: f"\\u{code:04x}" for code in (*range(0xD800, 0xE000), 0xFFFE, 0xFFFF)}


def clean(value: Any) -> str:
    """`value` as text with nothing in it that acts: no control character, nothing XML refuses."""
    return inert(str(value)).translate(_NOT_XML)


def text(value: Any) -> str:
    """`value` as escaped text for an element's content or a quoted attribute value."""
    return html.escape(clean(value), quote=True)


def clipped(value: Any, most: int) -> str:
    """`value` as plain (not yet escaped) text, cut to `most` characters with an ellipsis."""
    shown = clean(value)
    return shown if len(shown) <= most else shown[:max(1, most - 1)] + "…"


def colour(value: Any, default: str) -> str:
    """`value` if it is a colour a page may take from a file, else `default` (one of ours)."""
    return value if isinstance(value, str) and is_colour(value) else default


def is_dark(fill: str) -> bool:
    """Whether a fill (`#rgb` or `#rrggbb`, as every colour here is) is too dark for dark text:
    a label on it is written in white."""
    if HEX_COLOUR.fullmatch(fill) is None:
        return False
    digits = fill[1:]
    if len(digits) == 3:
        digits = "".join(d * 2 for d in digits)
    red, green, blue = (int(digits[k:k + 2], 16) / 255 for k in (0, 2, 4))
    return 0.299 * red + 0.587 * green + 0.114 * blue < 0.5  # perceived lightness


def value_text(value: Any) -> str:
    """A value as a view or a hint writes it: `true`/`false`, `none`, a number by its digits,
    a list by its items (the keys of a `ByValue` hint's table are written this way)."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "none"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(value_text(v) for v in value) + "]"
    return str(value)


def short_value(value: Any, most: int) -> str:
    """`clipped(value_text(value), most)`, writing out no more of a long list than that shows:
    a variable may hold a list of a million items, and a picture of every step shows it."""
    out: list[str] = []
    size = 0

    def walk(item: Any) -> None:
        nonlocal size
        if isinstance(item, (list, tuple)):
            out.append("[")
            size += 1
            for k, inner in enumerate(item):
                if size > most:  # the first `most` + 1 characters are written: enough to clip
                    break
                if k:
                    out.append(", ")
                    size += 2
                walk(inner)
            out.append("]")
        else:
            written = value_text(item)[:most + 1]
            out.append(written)
            size += len(written)

    walk(value)
    return clipped("".join(out), most)


def joined(values: Any, most: int) -> str:
    """The texts of `values` joined by commas and clipped to `most` characters, reading only
    as many of them as that shows (a reveal may show a seat 10,000 components)."""
    out: list[str] = []
    size = -2  # the length of the texts joined so far
    for value in values:
        if size > most:
            break
        out.append(str(value))
        size += len(out[-1]) + 2
    return clipped(", ".join(out), most)
