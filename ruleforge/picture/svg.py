"""A view as a standalone SVG document: the picture of a position file, self-contained.

The same arrangement as the HTML page (`layout.arrange`), laid out in coordinates: each group
a titled band, a pile a row of cards, a grid a board of cells with its row and column numbers,
the variables as lines of text. Nothing outside the document is referenced; every text is
escaped; the document parses as XML.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..screen import PLAYER_KEY
from .budget import arranged, undrawn_text
from .catalogue import Picture
from .draw import back_svg, component_svg, more_svg
from .layout import Board, Group, Pile, seat_number
from .text import clipped, short_value, text

CARD_W, CARD_H, TILE, MINI = 72, 100, 84, 20
GAP, PAD, LINE = 6, 12, 18
MOST_WIDTH = 1200  # a row of cards wraps past this width
SIGNATURE = "<!-- ruleforge view: a picture of a view -->"  # how `ruleforge view` knows its own files

STYLE = """
text { font-family: system-ui, sans-serif; fill: #1d1d1d; }
.rf-title { font-size: 18px; font-weight: bold; }
.rf-head { font-size: 15px; font-weight: bold; }
.rf-name { font-size: 13px; font-weight: 600; }
.rf-small { font-size: 11px; fill: #777; }
.rf-icon, .rf-marks, .rf-note { stroke: #ffffff; stroke-width: 2px; paint-order: stroke; }
.rf-icon { font-weight: bold; }
.rf-note { fill: #6a1b1b; }
.rf-count, .rf-label.rf-on-dark { fill: #ffffff; }
"""


def _place(x: float, y: float, inner: str, attrs: str = "") -> str:
    return f'<g transform="translate({x:g} {y:g})"{attrs}>{inner}</g>'


def _pile(picture: Picture, pile: Pile, x: float, y: float) -> tuple[list[str], float, float]:
    """A pile at (x, y): its elements, width and height."""
    size = f"hidden, {pile.hidden:,}" if pile.content is None else f"{len(pile.content):,}"
    out = [f'<text x="{x:g}" y="{y + 13:g}" class="rf-name">{text(pile.name)} '
           f'<tspan class="rf-small">{text(size)}</tspan></text>']
    top = y + LINE + 2
    if pile.content is None:
        out.append(_place(x, top, back_svg(pile.hidden, CARD_W, CARD_H), f' data-zone="{text(pile.key)}"'))
        return out, max(CARD_W, 9 * len(pile.name)), LINE + 2 + CARD_H
    if not pile.content:
        out.append(f'<text x="{x:g}" y="{top + 12:g}" class="rf-small">empty</text>')
        return out, max(60, 9 * len(pile.name)), LINE + 20
    drawn = len(pile.content) - pile.start
    left = x
    if pile.start:  # the components under the top ones drawn (`budget`), then the cards beside it
        out.append(_place(x, top, more_svg(pile.start, CARD_W, CARD_H), f' data-zone="{text(pile.key)}"'))
        left += CARD_W + GAP
    step = CARD_W + GAP if drawn <= 10 else CARD_W * 0.4
    per_row = max(1, int((MOST_WIDTH - (left - x) - CARD_W) // step) + 1)
    for slot, k in enumerate(range(pile.start, len(pile.content))):
        row, col = divmod(slot, per_row)
        drawing = component_svg(picture, pile.label(k), pile.props_of(k), CARD_W, CARD_H)
        out.append(_place(left + col * step, top + row * (CARD_H + GAP), drawing,
                          f' data-zone="{text(pile.key)}" data-index="{k}"'))
    rows = (drawn - 1) // per_row + 1 if drawn else 1
    width = left - x + (CARD_W + step * (min(drawn, per_row) - 1) if drawn else 0)
    return out, max(width, 9 * len(pile.name)), LINE + 2 + rows * (CARD_H + GAP)


def _board(picture: Picture, board: Board, x: float, y: float) -> tuple[list[str], float, float]:
    cell = TILE + 2
    title = f"{board.rows} by {board.columns}"
    out = [f'<text x="{x:g}" y="{y + 13:g}" class="rf-name">{text(board.name)} '
           f'<tspan class="rf-small">{text(title)}</tspan></text>']
    top, left = y + LINE + 14, x + 16
    for j, k in enumerate(board.column_span):
        out.append(f'<text x="{left + j * cell + cell / 2:g}" y="{top - 3:g}" class="rf-small" '
                   f'text-anchor="middle">{k}</text>')
    for i, r in enumerate(board.row_span):
        out.append(f'<text x="{x + 4:g}" y="{top + i * cell + cell / 2:g}" class="rf-small">{r}</text>')
        for j, k in enumerate(board.column_span):
            cx, cy = left + j * cell, top + i * cell
            pile = board.cells.get((r, k))
            key = pile.key if pile else f"{board.key}[{r},{k}]"
            fill = "#dfe3e8" if pile is not None and pile.content is None else "#efeae0"
            out.append(f'<rect x="{cx:g}" y="{cy:g}" width="{cell:g}" height="{cell:g}" fill="{fill}" '
                       f'stroke="#d9d3c6" data-zone="{text(key)}"/>')
            if pile is None:
                continue
            if pile.content is None:
                if pile.hidden:
                    out.append(_place(cx + 1, cy + 1, back_svg(pile.hidden, TILE, TILE), f' data-zone="{text(key)}"'))
            elif pile.content:
                top_k = len(pile.content) - 1
                out.append(_place(cx + 1, cy + 1, component_svg(picture, pile.label(top_k), pile.props_of(top_k),
                                                                TILE, TILE),
                                  f' data-zone="{text(key)}" data-index="{top_k}"'))
                minis = [(more_svg(pile.start, MINI, MINI), "")] if pile.start else []  # the lowest, counted
                minis += [(component_svg(picture, pile.label(k), pile.props_of(k), MINI, MINI, labelled=False),
                           f' data-index="{k}"')
                          for k in range(pile.start, top_k)]  # the stack under it, small, along the top
                for slot, (drawing, index) in enumerate(minis):
                    row, col = divmod(slot, 3)
                    out.append(_place(cx + 4 + col * (MINI + 1), cy + 4 + row * (MINI + 1), drawing,
                                      f' data-zone="{text(key)}"{index}'))
    width = 16 + cell * len(board.column_span)
    return out, max(width, 9 * len(board.name)), LINE + 14 + cell * len(board.row_span)


def _vars(variables: dict[str, Any], x: float, y: float) -> tuple[list[str], float]:
    per_player: dict[str, list[str]] = {}
    shared = []
    for key, value in variables.items():
        m = PLAYER_KEY.match(str(key))
        item = f"{m['name'] if m else key}: {short_value(value, 40)}"
        if m:
            per_player.setdefault(m["player"], []).append(item)
        else:
            shared.append(item)
    lines = [f"{p}: " + "; ".join(items) for p, items in sorted(per_player.items(), key=lambda i: seat_number(i[0]))]
    if shared:
        lines.append("; ".join(shared))
    out = [f'<text x="{x:g}" y="{y + LINE * (k + 1):g}" class="rf-name">{text(clipped(line, 180))}</text>'
           for k, line in enumerate(lines)]
    return out, LINE * len(lines) + (PAD if lines else 0)


def _undrawn(group: Group, y: float) -> str:
    """A line for the zones of a group past the budget of a picture."""
    return f'<text x="{PAD}" y="{y + 13:g}" class="rf-small">{text(undrawn_text(group))}</text>'


def render_position_svg(view: dict[str, Any], picture: Picture, targets: Iterable[str] = ()) -> str:
    """The view as a standalone SVG document (XML declaration, its own style, nothing external)."""
    viewer = view.get("viewer")
    who = "the whole table" if viewer == "table" else "a spectator" if viewer == "spectator" else viewer
    body = [f'<text x="{PAD}" y="{PAD + 16}" class="rf-title">{text(view.get("game", ""))} '
            f'<tspan class="rf-small">seen by {text(who)}</tspan></text>']
    y = PAD + 30
    width = 400.0
    for group in arranged(view, targets):
        head = "Table" if group.player is None else f"{group.player} (you)" if group.player == viewer else group.player
        body.append(f'<text x="{PAD}" y="{y + 16:g}" class="rf-head">{text(head)}</text>')
        y += 26
        x, row_height = float(PAD), 0.0
        for item in group.items:
            parts, w, h = (_board(picture, item, x, y) if isinstance(item, Board) else _pile(picture, item, x, y))
            if x > PAD and x + w > MOST_WIDTH + PAD:  # start a new row of zones
                x, y, row_height = float(PAD), y + row_height + PAD, 0.0
                parts, w, h = (_board(picture, item, x, y) if isinstance(item, Board) else _pile(picture, item, x, y))
            body.extend(parts)
            width = max(width, x + w + PAD)
            x += w + 2 * PAD
            row_height = max(row_height, h)
        y += row_height + PAD
        if group.undrawn:
            body.append(_undrawn(group, y))
            y += LINE + PAD
    parts, h = _vars(view.get("vars") or {}, PAD, y)
    body.extend(parts)
    y += h + PAD
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n{SIGNATURE}\n'
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{y:g}" '
            f'viewBox="0 0 {width:g} {y:g}"><style>{STYLE}</style>'
            f'<rect width="100%" height="100%" fill="#fbf9f4"/>{"".join(body)}</svg>\n')
