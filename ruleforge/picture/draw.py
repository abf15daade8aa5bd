"""One component (or a hidden pile's back) drawn as SVG, from its label and its hints.

The drawing is a group of SVG elements in a `width` x `height` box at (0, 0): the pages wrap it
in an inline `<svg>`, a position's SVG document places it with a `translate`. Colours are SVG
presentation attributes, never `style`, so a page under a strict Content-Security-Policy
draws them. Hints look only at what the view shows (the label's agreed attributes, the
properties the view lists, the kind's initial values for the others).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..display import MOST_ICON, ByValue, KindDisplay, sides_of
from .catalogue import Picture
from .text import clean, clipped, colour, is_dark, short_value, text, value_text

PAPER = "#f7f2e7"        # a component without a colour hint
INK = "#2b2b2b"
PATH_INK = "#5a3a1e"
BACK = "#46607a"         # the back of a hidden component
MOST_MARKS = 4           # marks drawn one by one up to this many, then as glyph×n
MOST_LABEL = 200         # a label is cut past this many characters (a text property may make one of a million)
MOST_NOTE = 60           # a property's value among the notes, likewise
MOST_KEPT = 20_000       # drawings a Picture keeps for drawing again (then it starts afresh)
SIDE_POINTS = {"N": (0.5, 0.0), "E": (1.0, 0.5), "S": (0.5, 1.0), "W": (0.0, 0.5)}


@dataclass
class Look:
    """What the hints say about one component as a view shows it."""

    fill: str = PAPER
    icon: str | None = None
    paths: list[tuple[str, ...]] = field(default_factory=list)
    turn: int = 0
    marks: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # set properties no hint draws, as `name value`


def _hinted(hint: str | ByValue | None, read: Any) -> str | None:
    if hint is None:
        return None
    if isinstance(hint, ByValue):
        return hint.values.get(value_text(read(hint.attribute)))
    return hint


def look(picture: Picture, label: str, props: Mapping[str, Any] | None) -> Look:
    """The hints of `label`'s kind applied to its agreed attributes and its properties
    (those `props` lists, the kind's initial values for the rest)."""
    props = dict(props or {})
    entry = picture.entry(label)
    kind = entry.kind if entry is not None else None
    hint: KindDisplay | None = picture.hints.get(kind) if kind is not None else None
    values: dict[str, Any] = dict(entry.attributes) if entry is not None else {}
    if kind is not None:
        values.update(picture.initial.get(kind, {}))
    values.update(props)

    def read(name: str) -> Any:
        return values.get(name)

    out = Look()
    drawn: set[str] = set()
    if hint is not None:
        out.fill = colour(_hinted(hint.colour, read), PAPER)
        icon = _hinted(hint.icon, read)
        out.icon = clipped(icon, MOST_ICON) if icon else None
        for path in hint.paths:
            sides = sides_of(path.values.get(value_text(read(path.attribute)), "") or "")
            if sides:
                out.paths.append(sides)
        if hint.turn is not None:
            flag, degrees = hint.turn
            drawn.add(flag)
            if read(flag) is True and isinstance(degrees, int):
                out.turn = degrees % 360
        for name, glyph in hint.marks:
            drawn.add(name)
            count = read(name)
            if isinstance(count, int) and not isinstance(count, bool) and count > 0:
                g = clipped(glyph, MOST_ICON)
                out.marks.append(g * count if count <= MOST_MARKS and len(g) == 1 else f"{g}×{count}")
    for name, value in props.items():
        if name not in drawn:
            out.notes.append(name if value is True else f"not {name}" if value is False
                             else f"{name} {short_value(value, MOST_NOTE)}")
    return out


def wrap(words: str, per_line: int, most_lines: int) -> list[str]:
    """`words` in lines of at most `per_line` characters (a longer word cut), at most
    `most_lines` of them, the last ending in … when something is left out."""
    lines: list[str] = []
    for word in clean(words).split():
        while len(word) > per_line:
            lines.append(word[:per_line])
            word = word[per_line:]
        if lines and len(lines[-1]) + 1 + len(word) <= per_line:
            lines[-1] += " " + word
        else:
            lines.append(word)
    if len(lines) > most_lines:
        lines = lines[:most_lines]
        lines[-1] = lines[-1][:per_line - 1] + "…"
    return lines


def _text_lines(lines: list[str], x: float, y: float, size: float, css: str) -> str:
    out = []
    for k, line in enumerate(lines):
        out.append(f'<text x="{x:g}" y="{y + k * size * 1.1:g}" font-size="{size:g}" '
                   f'class="{css}" text-anchor="middle">{text(line)}</text>')
    return "".join(out)


def component_svg(picture: Picture, label: str, props: Mapping[str, Any] | None,
                  width: float, height: float, labelled: bool = True) -> str:
    """The drawing of one component: its fill, paths (turned while its turn flag is set),
    icon, marks, the set properties no hint draws, and its label (with `labelled` False, as a
    stack's lower components are drawn small: fill, paths and icon only, the label a tooltip).
    Made once per label, properties and size while the properties are plain values."""
    items = tuple((name, type(value), value) for name, value in (props or {}).items())  # True is not 1 here
    if not all(kind in (int, str, bool, type(None)) for _, kind, _ in items):
        return _component_svg(picture, label, props, width, height, labelled)
    key = (label, items, width, height, labelled)
    found = picture.drawings.get(key)
    if found is None:
        if len(picture.drawings) >= MOST_KEPT:
            picture.drawings.clear()
        found = picture.drawings[key] = _component_svg(picture, label, props, width, height, labelled)
    return found


def _component_svg(picture: Picture, label: str, props: Mapping[str, Any] | None,
                   width: float, height: float, labelled: bool) -> str:
    shown = look(picture, label, props)
    label = clipped(label, MOST_LABEL)
    w, h = width, height
    parts = [f"<title>{text(label)}{text(': ' + ', '.join(shown.notes)) if shown.notes else ''}</title>",
             f'<rect x="1" y="1" width="{w - 2:g}" height="{h - 2:g}" rx="{min(w, h) * 0.08:g}" '
             f'fill="{shown.fill}" stroke="{INK}" stroke-width="1.5" class="rf-face"/>']
    if shown.paths:
        cx, cy = w / 2, h / 2
        lines = []
        for sides in shown.paths:
            for side in sides:
                fx, fy = SIDE_POINTS[side]
                lines.append(f'<line x1="{cx:g}" y1="{cy:g}" x2="{fx * w:g}" y2="{fy * h:g}"/>')
        turn = f' transform="rotate({shown.turn} {cx:g} {cy:g})"' if shown.turn else ""
        css = "rf-paths rf-turned" if shown.turn else "rf-paths"
        parts.append(f'<g class="{css}"{turn} stroke="{PATH_INK}" stroke-width="{min(w, h) * 0.13:g}" '
                     f'stroke-linecap="butt">{"".join(lines)}'
                     f'<circle cx="{cx:g}" cy="{cy:g}" r="{min(w, h) * 0.065:g}" fill="{PATH_INK}" stroke="none"/>'
                     f"</g>")
    small = max(7.0, min(w, h) * 0.13)
    drawn_middle = bool(shown.paths or shown.icon)
    if shown.icon:
        size = min(w, h) * (0.42 if len(shown.icon) <= 2 else 0.22)
        parts.append(f'<text x="{w / 2:g}" y="{h * 0.42 + size * 0.35:g}" font-size="{size:g}" class="rf-icon" '
                     f'text-anchor="middle">{text(shown.icon)}</text>')
    if not labelled:
        if not drawn_middle:  # a small drawing with no hint to draw: the label's initials
            initials = "".join(word[0] for word in clean(label).split()[:2])
            parts.append(f'<text x="{w / 2:g}" y="{h * 0.68:g}" font-size="{min(w, h) * 0.45:g}" class="rf-label" '
                         f'text-anchor="middle">{text(initials)}</text>')
        return "".join(parts)
    top = small + 3
    for line in [" ".join(shown.marks)] if shown.marks else []:
        parts.append(f'<text x="{w / 2:g}" y="{top:g}" font-size="{small:g}" class="rf-marks" '
                     f'text-anchor="middle">{text(clipped(line, int(w / (small * 0.6))))}</text>')
        top += small * 1.1
    if shown.notes:
        parts.append(_text_lines(wrap(", ".join(shown.notes), int(w / (small * 0.55)), 2),
                                 w / 2, top, small * 0.9, "rf-note"))
    if drawn_middle:
        lines = wrap(label, max(4, int((w - 6) / (small * 0.62))), 2)  # on a light band under the drawing
        band = len(lines) * small * 1.1 + 4
        parts.append(f'<rect x="3" y="{h - band - 3:g}" width="{w - 6:g}" height="{band:g}" rx="3" '
                     f'class="rf-band" fill="#ffffff" fill-opacity="0.8"/>')
        parts.append(_text_lines(lines, w / 2, h - band - 3 + small, small, "rf-label"))
    else:
        longest = max((len(word) for word in clean(label).split()), default=1)
        size = max(6.0, min(small * 1.15, (w - 6) / (longest * 0.62)))  # the longest word fits a line
        lines = wrap(label, max(4, int((w - 6) / (size * 0.62))), 4)
        start = h / 2 - (len(lines) - 1) * size * 0.55 + size * 0.35
        ink = "rf-label rf-on-dark" if is_dark(shown.fill) else "rf-label"  # white on a dark card
        parts.append(_text_lines(lines, w / 2, start, size, ink))
    return "".join(parts)


def back_svg(count: int, width: float, height: float) -> str:
    """A hidden zone or cell: a component's back with how many lie there (dashed when none)."""
    w, h = width, height
    if count <= 0:
        return (f'<title>hidden, empty</title><rect x="2" y="2" width="{w - 4:g}" height="{h - 4:g}" '
                f'rx="{min(w, h) * 0.08:g}" fill="none" stroke="#999999" stroke-dasharray="4 3" class="rf-empty"/>')
    return (f"<title>hidden: {count}</title>"
            f'<rect x="1" y="1" width="{w - 2:g}" height="{h - 2:g}" rx="{min(w, h) * 0.08:g}" fill="{BACK}" '
            f'stroke="{INK}" stroke-width="1.5" class="rf-back"/>'
            f'<rect x="6" y="6" width="{w - 12:g}" height="{h - 12:g}" rx="{min(w, h) * 0.05:g}" fill="none" '
            f'stroke="#c9d6e3" stroke-width="1" stroke-dasharray="3 2"/>'
            f'<text x="{w / 2:g}" y="{h / 2 + min(w, h) * 0.1:g}" font-size="{min(w, h) * 0.3:g}" '
            f'text-anchor="middle" fill="#ffffff" class="rf-count">{count}</text>')


def more_svg(count: int, width: float, height: float) -> str:
    """The components of a pile or a stack that are not drawn (`budget`): a dashed outline
    with their number, in place of the lowest of them."""
    w, h = width, height
    size = min(w * 0.9 / max(3, len(f"+{count:,}")) / 0.6, h * 0.3)
    more = (f'<text x="{w / 2:g}" y="{h / 2 + size * 1.2:g}" font-size="{size * 0.8:g}" class="rf-label" '
            f'text-anchor="middle">more</text>') if h >= 40 else ""
    return (f"<title>{count:,} more under these, not drawn</title>"
            f'<rect x="2" y="2" width="{w - 4:g}" height="{h - 4:g}" rx="{min(w, h) * 0.08:g}" fill="none" '
            f'stroke="#999999" stroke-dasharray="4 3" class="rf-more"/>'
            f'<text x="{w / 2:g}" y="{h / 2 + size * 0.35:g}" font-size="{size:g}" class="rf-label" '
            f'text-anchor="middle">+{count:,}</text>{more}')
