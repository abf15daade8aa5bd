"""Syntax tree of `display KIND { ... }` and `palette NAME = "#rrggbb"` (docs/language.md,
"Display hints"): a part of the
parser's tree builder, kept apart so that the parser stays one readable module. Its texts are
taken as written, with no `{interpolation}`: they are data for the pictures, never code."""

from __future__ import annotations

import attrs
from lark import Token, v_args

from . import ast


def _unquote(token: Token) -> str:
    return str(token)[1:-1]


class DisplayBuilder:
    """The `display` rules of the grammar as `ast.DisplayDecl` nodes (mixed into the parser's
    builder, which gives `pos` and `tpos`)."""

    @v_args(meta=True)
    def display_decl(self, meta, c):
        return ast.DisplayDecl(self.pos(meta), str(c[0]), self.tpos(c[0]), tuple(c[1:]))

    @v_args(meta=True)
    def colour_decl(self, meta, c):
        return ast.ColourDecl(self.pos(meta), str(c[0]), self.tpos(c[0]), _unquote(c[1]), self.tpos(c[1]))

    @v_args(meta=True)
    def colour_hint(self, meta, c):
        return attrs.evolve(c[0], pos=self.pos(meta), what="colour")

    @v_args(meta=True)
    def icon_hint(self, meta, c):
        return attrs.evolve(c[0], pos=self.pos(meta), what="icon")

    @v_args(meta=True)
    def path_hint(self, meta, c):
        return ast.DisplayHint(self.pos(meta), "path", str(c[0]), self.tpos(c[0]), entries=c[1])

    @v_args(meta=True)
    def turn_hint(self, meta, c):
        return ast.DisplayHint(self.pos(meta), "turn", str(c[1]), self.tpos(c[1]), text_pos=self.tpos(c[0]),
                               degrees=int(c[0]))

    @v_args(meta=True)
    def mark_hint(self, meta, c):
        return ast.DisplayHint(self.pos(meta), "mark", str(c[0]), self.tpos(c[0]), _unquote(c[1]),
                               self.tpos(c[1]))

    @v_args(meta=True)
    def hint_text(self, meta, c):
        return ast.DisplayHint(self.pos(meta), "", None, None, _unquote(c[0]), self.tpos(c[0]))

    @v_args(meta=True)
    def hint_by(self, meta, c):
        return ast.DisplayHint(self.pos(meta), "", str(c[0]), self.tpos(c[0]), entries=c[1])

    def hint_table(self, c):
        return tuple(c)

    def hint_entry(self, c):
        key, text = c
        return ast.HintEntry(self.tpos(key), str(key), key.type == "INT", _unquote(text), self.tpos(text))
