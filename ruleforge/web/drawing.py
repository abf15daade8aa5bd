"""How a seat's page draws its view: the pictures of `ruleforge.picture`, with one catalogue
per program (player count and options), made from a new game of it and never from a live one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..picture import Picture, make_picture, picture_css, render_view
from ..rules import Rules
from .tables import Table


def seat_drawing(rules: Rules) -> tuple[Callable[[Table, dict[str, Any], set[str]], str], str]:
    """`draw(table, view, targets) -> html` for the pages, and the stylesheet the pictures need."""
    pictures: dict[int, Picture] = {}

    def draw(table: Table, view: dict[str, Any], targets: set[str]) -> str:
        game = table.game
        key = id(game.program)  # compiled once per player count and options, and kept by the rules
        if key not in pictures:
            options = dict(zip(game.program.option_names, game.program.option_values))
            pictures[key] = make_picture(rules, game.players, options)
        return render_view(view, pictures[key], targets)

    return draw, picture_css()
