"""How a seat's page draws its view: the pictures of `ruleforge.picture`, one catalogue per
program (player count and options), made from a new game of it and never from a live one."""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import Any

from ..rules import Rules
from ..screen import render_view
from .tables import Table


def seat_drawing(rules: Rules) -> tuple[Callable[[Table, dict[str, Any]], str], str]:
    """`draw(table, view) -> html` for the pages, and the stylesheet the pictures need."""

    def draw(table: Table, view: dict[str, Any], targets: set[str]) -> str:
        return "<pre>" + escape("\n".join(render_view(view, 100))) + "</pre>"

    return draw, ""
