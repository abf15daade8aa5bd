"""Checking `display KIND { ... }` and turning it into `display.KindDisplay` data.

Display hints never reach a game's code: they are checked here, against the kind's static
attributes and changeable properties (what a view shows of a component), and kept as plain
data for the pictures.
"""

from __future__ import annotations

import unicodedata

from .. import ast
from ..display import MOST_ICON, ByValue, KindDisplay, is_colour, sides_of
from ..model import FLAG, INT, KindInfo, Type

COLOUR_FORM = "write #rgb or #rrggbb"
ONCE = ("colour", "icon", "turn")  # a display says each of these at most once
TURNS = (90, 180, 270)
_JOINERS = {"\u200d"}  # the zero-width joiner of emoji sequences: a format character, but harmless


def bad_text(text: str) -> str | None:
    """Why an icon or mark text cannot be drawn as given: too long, or holding a control or
    format character (a line break, a bidirectional override) that would garble a page."""
    if len(text) > MOST_ICON:
        return f"{len(text)} characters is too long for an icon or a mark"
    if not text:
        return "an icon or a mark needs some text"
    for ch in text:
        if unicodedata.category(ch) in ("Cc", "Cf") and ch not in _JOINERS:
            return f"the text holds a control character (U+{ord(ch):04X})"
    return None


class DisplayChecks:
    """The display hints' part of `Checker`: every problem reported, then the hints kept as
    `display_hints` (kind name -> KindDisplay)."""

    def collect_display(self, d: ast.DisplayDecl) -> None:
        first = self.model.displays.get(d.kind)
        if first is not None:
            self.error(d.pos, f"a second 'display {d.kind}'",
                       f"the first is at line {first.pos.line}; put all of {d.kind}'s hints in one")
        else:
            self.model.displays[d.kind] = d

    def collect_colour(self, d: ast.ColourDecl) -> None:
        first = self.model.colours.get(d.name)
        if first is not None:
            self.error(d.name_pos, f"colour '{d.name}' is declared twice", f"the first is at line {first.pos.line}")
        else:
            self.model.colours[d.name] = d
        if not is_colour(d.value):
            self.error(d.value_pos, f"'{d.value}' is not a colour", COLOUR_FORM)

    def check_displays(self) -> None:
        m = self.model
        for d in m.displays.values():
            info = m.kinds.get(d.kind)
            if info is None:
                hint = "'display' names a kind declared with 'kind'"
                if d.pos.file != next(iter(self.sources), d.pos.file):  # a base's hints, a kind the variant removed
                    hint = f"the variant removes kind {d.kind}: write 'remove display {d.kind}' too"
                self.error(d.kind_pos, f"unknown kind '{d.kind}'", self.suggest(d.kind, m.kinds) or hint)
                continue
            first: dict[str, ast.DisplayHint] = {}
            for h in d.hints:
                if h.what in ONCE and h.what in first:
                    self.error(h.pos, f"a second '{h.what}' in 'display {d.kind}'",
                               f"the first is at line {first[h.what].pos.line}; keep one")
                    continue
                first.setdefault(h.what, h)
                self.check_hint(d.kind, info, h)
            self.display_hints[d.kind] = hints_of(d, {name: c.value for name, c in m.colours.items()})

    def check_hint(self, kind: str, info: KindInfo, h: ast.DisplayHint) -> None:
        t = self.hint_attribute(kind, info, h) if h.attr is not None else None
        if h.what == "turn":
            if t is not None and t != FLAG:
                self.error(h.attr_pos, f"'turn ... if' needs a flag; '{h.attr}' is {t}")
            if h.degrees not in TURNS:
                self.error(h.text_pos, f"a turn of {h.degrees} degrees", "turn by 90, 180 or 270")
            return
        if h.what == "mark":
            if t is not None and t != INT:
                self.error(h.attr_pos, f"a mark shows a number; '{h.attr}' is {t}",
                           "'mark' takes an int attribute or property")
            self.check_text(h.what, h.text, h.text_pos)
            return
        if h.attr is None:  # a fixed colour or icon
            self.check_text(h.what, h.text, h.text_pos)
            return
        if t is not None and t.kind not in ("enum", "flag", "int"):
            self.error(h.attr_pos, f"a hint cannot go by '{h.attr}', which is {t}",
                       "'by' takes an enum, flag or int attribute or property")
            t = None
        seen: dict[str, ast.HintEntry] = {}
        for e in h.entries:
            key = self.check_key(e, t, h.attr) if t is not None else e.key
            if key in seen:
                self.error(e.pos, f"'{e.key}' is given twice", f"the first is at line {seen[key].pos.line}")
            seen.setdefault(key, e)
            self.check_text(h.what, e.text, e.text_pos)

    def hint_attribute(self, kind: str, info: KindInfo, h: ast.DisplayHint) -> Type | None:
        """The type of the attribute or property a hint goes by; None (reported) if the kind has none."""
        if h.attr in info.attrs or h.attr in info.props:
            return self.model.attr_types[h.attr][0]
        self.error(h.attr_pos, f"kind '{kind}' has no attribute '{h.attr}'",
                   self.suggest(h.attr, list(info.attrs) + list(info.props)))
        return None

    def check_key(self, e: ast.HintEntry, t: Type, attr: str) -> str:
        """A table key as a view shows the value (`7` for `007`); reported if `attr` cannot have it."""
        if t.kind == "enum":
            members = [name for name, _pos in self.model.enums[t.name].members]
            if e.key not in members:
                self.error(e.pos, f"'{e.key}' is not a member of {t.name}",
                           self.suggest(e.key, members) or f"{t.name} is {', '.join(members)}")
        elif t.kind == "flag":
            if e.key not in ("true", "false"):
                self.error(e.pos, f"'{attr}' is a flag: its values are true and false, not '{e.key}'")
        elif not e.is_number:
            self.error(e.pos, f"'{attr}' is an int: its values are numbers, not '{e.key}'")
        else:
            return str(int(e.key))
        return e.key

    def check_text(self, what: str, text: str | None, pos: ast.Pos | None) -> None:
        if text is None or pos is None:
            return
        if what == "colour":
            if not is_colour(text) and text not in self.model.colours:
                self.error(pos, f"'{text}' is not a colour",
                           self.suggest(text, self.model.colours) or COLOUR_FORM + ", or the name of one")
        elif what == "path":
            if sides_of(text) is None:
                self.error(pos, f"'{text}' is not a path",
                           'name the sides it joins, each once, from N, E, S and W: "N S"')
        else:
            problem = bad_text(text)
            if problem is not None:
                self.error(pos, f"{what} '{text}': {problem}" if what else problem,
                           f"at most {MOST_ICON} characters: a glyph or a short word")


def _text(what: str, text: str, colours: dict[str, str]) -> str:
    """A hint's text as the pictures take it: a path as its sides, a colour's name as its value."""
    if what == "path":
        return " ".join(sides_of(text) or ())
    return colours.get(text, text) if what == "colour" else text


def _by(h: ast.DisplayHint, colours: dict[str, str]) -> ByValue:
    values = {}
    for e in h.entries:
        key = str(int(e.key)) if e.is_number else e.key
        values[key] = _text(h.what, e.text, colours)
    return ByValue(h.attr, values)


def hints_of(d: ast.DisplayDecl, colours: dict[str, str]) -> KindDisplay:
    """The data of a checked `display` block (keys as a view writes values: `7`, `true`, `Sea`;
    a colour named by `palette NAME = ...` as its value)."""
    colour = icon = turn = None
    paths, marks = [], []
    for h in d.hints:
        if h.what in ("colour", "icon"):
            value = _text(h.what, h.text, colours) if h.attr is None else _by(h, colours)
            if h.what == "colour":
                colour = colour if colour is not None else value
            else:
                icon = icon if icon is not None else value
        elif h.what == "path":
            paths.append(_by(h, colours))
        elif h.what == "turn":
            turn = turn or (h.attr, h.degrees)
        else:
            marks.append((h.attr, h.text))
    return KindDisplay(d.kind, colour, icon, tuple(paths), turn, tuple(marks))
