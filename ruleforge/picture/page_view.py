"""One player's view as an HTML fragment: piles as rows of cards, grids as boards, the variables.

Every element a player might click carries the view's own key: a zone or a cell
`data-zone="board(P1)[3,4]"`, a component `data-zone` and `data-index` (its place in the
zone's list, bottom 0). Styling is by class only (`picture_css()`), colours are SVG attributes,
and there is no script and no external resource, so a page may serve it under a strict
Content-Security-Policy. All text from the rules or the view is escaped (`text.text`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..screen import PLAYER_KEY
from .budget import arranged, undrawn_text
from .catalogue import Picture
from .draw import MOST_LABEL, back_svg, component_svg, more_svg
from .layout import Board, Group, Pile, seat_number
from .text import clipped, joined, short_value, text

CARD = (72, 100)     # a component in a pile
TILE = (84, 84)      # the top component of a grid cell
MINI = (20, 20)      # a component under the top one of a cell's stack, drawn small along its top
CROWDED = 10         # a pile of more components than this is drawn overlapping
MOST_VALUE = 60      # a variable's value is cut past this many characters
MOST_SEEN = 20       # reveals listed in the status line: the latest ones (a view keeps every one of a game)
MOST_PROMPT = 300    # characters of a prompt


def _svg(inner: str, size: tuple[int, int], attrs: str, css: str) -> str:
    w, h = size
    return (f'<svg class="{css}" {attrs} viewBox="0 0 {w} {h}" width="{w}" height="{h}" '
            f'role="img">{inner}</svg>')


def component_html(picture: Picture, pile: Pile, index: int, size: tuple[int, int], css: str = "rf-comp",
                   labelled: bool = True) -> str:
    """Component `index` of `pile` as an inline SVG carrying its zone and index."""
    label = pile.label(index)
    # its label as its accessible name: what a screen reader says, and what a test reads
    attrs = f'data-zone="{text(pile.key)}" data-index="{index}" aria-label="{text(clipped(label, MOST_LABEL))}"'
    return _svg(component_svg(picture, label, pile.props_of(index), *size, labelled=labelled), size, attrs, css)


def pile_parts(picture: Picture, pile: Pile) -> list[str]:
    """A plain zone in parts: its name and size, each card bottom first (or a back and a
    count), the closing. A replay stores each distinct part once: a card that stays in its
    place is stored once for the whole game."""
    key = text(pile.key)
    if pile.content is None:
        inner = [_svg(back_svg(pile.hidden, *CARD), CARD, f'data-zone="{key}"', "rf-comp rf-hidden-pile")]
        size = f"hidden, {pile.hidden:,}"
        css = "rf-zone rf-hidden"
    else:
        inner = [component_html(picture, pile, k, CARD) for k in range(pile.start, len(pile.content))]
        css = "rf-zone rf-crowded" if len(inner) > CROWDED else "rf-zone"
        if not pile.content:
            inner = ['<span class="rf-nothing">empty</span>']
        if pile.start:  # the components under the top ones drawn (`budget`)
            inner.insert(0, _svg(more_svg(pile.start, *CARD), CARD, f'data-zone="{key}"', "rf-more"))
        size = f"{len(pile.content):,}"
    return [f'<div class="{css}" data-zone="{key}"><div class="rf-zone-name">{text(pile.name)} '
            f'<span class="rf-size">{text(size)}</span></div><div class="rf-cards">', *inner, "</div></div>"]


def cell_html(picture: Picture, cell: Pile | None, key: str) -> str:
    """One cell: the stack's lower components as small chips, the top one drawn full size."""
    if cell is None:
        return f'<td class="rf-cell rf-void" data-zone="{text(key)}"></td>'
    if cell.content is None:
        inner = _svg(back_svg(cell.hidden, *TILE), TILE, f'data-zone="{text(key)}"', "rf-comp rf-hidden-cell") \
            if cell.hidden else ""
        return f'<td class="rf-cell rf-hidden" data-zone="{text(key)}">{inner}</td>'
    if not cell.content:
        return f'<td class="rf-cell rf-empty-cell" data-zone="{text(key)}"></td>'
    top = len(cell.content) - 1
    minis = "".join(component_html(picture, cell, k, MINI, "rf-comp rf-mini", labelled=False)
                    for k in range(cell.start, top))
    if cell.start:  # the lowest of a tall stack, counted (`budget`)
        minis = _svg(more_svg(cell.start, *MINI), MINI, f'data-zone="{text(key)}"', "rf-more rf-mini") + minis
    under = f'<div class="rf-under">{minis}</div>' if minis else ""
    return (f'<td class="rf-cell" data-zone="{text(key)}">{under}'
            f"{component_html(picture, cell, top, TILE)}</td>")


def board_parts(picture: Picture, board: Board) -> list[str]:
    """A grid in parts (its opening and column numbers, each row's opening, each cell, the
    closings), as a table with its true row and column numbers (the part drawn, when trimmed)."""
    title = f"{board.rows} by {board.columns}"
    if board.trimmed:
        title += (f"; rows {board.row_span[0]}-{board.row_span[-1]}, "
                  f"columns {board.column_span[0]}-{board.column_span[-1]} shown")
    head = "".join(f'<th scope="col">{k}</th>' for k in board.column_span)
    parts = [f'<div class="rf-grid" data-grid="{text(board.key)}"><div class="rf-zone-name">{text(board.name)} '
             f'<span class="rf-size">{text(title)}</span></div><table class="rf-board"><tr><th></th>{head}</tr>']
    for r in board.row_span:
        parts.append(f'<tr><th scope="row">{r}</th>')
        parts.extend(cell_html(picture, board.cells.get((r, k)), board.cells[r, k].key if (r, k) in board.cells
                               else f"{board.key}[{r},{k}]") for k in board.column_span)
        parts.append("</tr>")
    parts.append("</table></div>")
    return parts


def group_parts(picture: Picture, group: Group, viewer: str | None) -> list[str]:
    """One group as its parts: the opening (section and heading), the parts of each pile or
    grid, the closing."""
    if group.player is None:
        head, css, data = "Table", "rf-group rf-shared", ""
    else:
        you = group.player == viewer
        head = f"{group.player} (you)" if you else group.player
        css = "rf-group rf-player rf-you" if you else "rf-group rf-player"
        data = f' data-player="{text(group.player)}"'
    items = [part for item in group.items
             for part in (board_parts(picture, item) if isinstance(item, Board) else pile_parts(picture, item))]
    if group.undrawn:
        items.append(f'<div class="rf-zone rf-left-out">{undrawn_text(group)}</div>')
    return [f'<section class="{css}"{data}><h3>{text(head)}</h3><div class="rf-items">', *items, "</div></section>"]


def vars_html(variables: dict[str, Any], viewer: str | None) -> str:
    """Per-player variables as a table (a row each, a column per player, the viewer's
    column marked), the shared ones as a list of name and value."""
    per_player: dict[str, dict[str, str]] = {}
    players: list[str] = []
    shared: list[tuple[str, str]] = []
    for key, value in variables.items():
        m = PLAYER_KEY.match(str(key))
        shown = short_value(value, MOST_VALUE) if not isinstance(value, bool) else ("yes" if value else "no")
        if m:
            per_player.setdefault(m["name"], {})[m["player"]] = shown
            if m["player"] not in players:
                players.append(m["player"])
        else:
            shared.append((str(key), shown))
    parts = []
    if per_player:
        players.sort(key=seat_number)
        you = ' class="rf-you"'
        head = "".join(f'<th scope="col"{you if p == viewer else ""}>{text(p)}</th>' for p in players)
        rows = "".join(f'<tr><th scope="row">{text(name)}</th>'
                       + "".join(f"<td>{text(row.get(p, '·'))}</td>" for p in players) + "</tr>"
                       for name, row in per_player.items())
        parts.append(f'<table class="rf-var-table"><tr><th></th>{head}</tr>{rows}</table>')
    if shared:
        items = "".join(f"<div><dt>{text(name)}</dt><dd>{text(value)}</dd></div>" for name, value in shared)
        parts.append(f'<dl class="rf-shared-vars">{items}</dl>')
    return f'<section class="rf-vars"><h3>Variables</h3>{"".join(parts)}</section>' if parts else ""


def status_html(view: dict[str, Any]) -> str:
    """Whose view it is, who is to act (or that the game is over), the prompt, what was seen."""
    viewer = view.get("viewer")
    who = "the whole table" if viewer == "table" else "a spectator" if viewer == "spectator" else f"{viewer}"
    state = "the game is over" if view.get("over") else f"to act: {view.get('to_act')}"
    parts = [f'<span class="rf-game">{text(view.get("game", ""))}</span>',
             f'<span class="rf-viewer">seen by {text(who)}</span>', f'<span class="rf-to-act">{text(state)}</span>']
    if view.get("prompt"):
        parts.append(f'<span class="rf-prompt">{text(clipped(view["prompt"], MOST_PROMPT))}</span>')
    seen = []
    reveals = view.get("seen") or []
    if len(reveals) > MOST_SEEN:
        seen.append(f"<li>{len(reveals) - MOST_SEEN:,} earlier reveals not listed</li>")
    for entry in reveals[-MOST_SEEN:]:
        if isinstance(entry, dict):
            what = joined(entry.get("contents") or [], 200) or "nothing"
            seen.append(f"<li>{text(clipped(entry.get('zone', ''), MOST_LABEL))}: {text(what)}</li>")
    extra = f'<ul class="rf-seen">{"".join(seen)}</ul>' if seen else ""
    return f'<div class="rf-status">{" · ".join(parts)}{extra}</div>'


def view_sections(view: dict[str, Any], picture: Picture, targets: Iterable[str] = ()) -> list[str]:
    """The fragment of `render_view` in its parts (status, each group's opening, the parts of
    its piles and grids down to each card and cell, and closing, the variables): joined they are
    the fragment; a page holding many views stores each distinct part once."""
    viewer = view.get("viewer")
    out = [status_html(view)]
    for group in arranged(view, targets):
        out.extend(group_parts(picture, group, viewer))
    variables = vars_html(view.get("vars") or {}, viewer)
    if variables:
        out.append(variables)
    return out


def render_view(view: dict[str, Any], picture: Picture, targets: Iterable[str] = ()) -> str:
    """One view (`game.view(seat, properties=True)`) as an HTML fragment: a `div.rf-view`
    to be styled by `picture_css()`. `targets` (view keys, e.g. `targets_of(game)`) are cells
    kept when a grid is trimmed to what lies on it."""
    return f'<div class="rf-view" data-viewer="{text(view.get("viewer", ""))}">' \
           f'{"".join(view_sections(view, picture, targets))}</div>'


CSS = """
.rf-view { font-family: system-ui, sans-serif; color: #222; }
.rf-status { margin: 4px 0 8px; font-size: 14px; }
.rf-status span { margin-right: 6px; }
.rf-game { font-weight: bold; }
.rf-prompt { font-style: italic; }
.rf-seen { margin: 4px 0; font-size: 13px; }
.rf-group { border: 1px solid #d5cfc2; border-radius: 8px; padding: 6px 10px; margin: 0 0 10px; background: #fbf9f4; }
.rf-group.rf-you { border-color: #3c78b4; background: #f3f8fd; }
.rf-group h3 { margin: 0 0 6px; font-size: 15px; }
.rf-items { display: flex; flex-wrap: wrap; gap: 10px 18px; align-items: flex-start; }
.rf-zone-name { font-size: 13px; font-weight: 600; margin-bottom: 3px; }
.rf-size { font-weight: normal; color: #777; }
.rf-cards { display: flex; flex-wrap: wrap; gap: 4px; max-width: 820px; min-height: 24px; }
.rf-crowded .rf-cards { gap: 0; }
.rf-crowded .rf-cards svg + svg { margin-left: -44px; }
.rf-nothing { color: #999; font-size: 12px; font-style: italic; }
.rf-more { display: block; }
.rf-more text { font-family: system-ui, sans-serif; fill: #666; }
.rf-crowded .rf-cards .rf-more + svg { margin-left: 4px; }
.rf-left-out { color: #777; font-size: 13px; font-style: italic; align-self: center; }
.rf-comp { display: block; cursor: pointer; }
.rf-comp text { font-family: system-ui, sans-serif; }
.rf-label { fill: #1d1d1d; }
.rf-label.rf-on-dark { fill: #ffffff; }
.rf-icon { fill: #1d1d1d; stroke: #ffffff; stroke-width: 2px; paint-order: stroke; font-weight: bold; }
.rf-marks { fill: #1d1d1d; stroke: #ffffff; stroke-width: 2px; paint-order: stroke; }
.rf-note { fill: #6a1b1b; stroke: #ffffff; stroke-width: 2px; paint-order: stroke; }
.rf-board { border-collapse: collapse; }
.rf-board th { font-size: 11px; color: #888; font-weight: normal; padding: 0 3px; }
.rf-cell { width: 86px; height: 86px; padding: 0; border: 1px solid #d9d3c6; vertical-align: middle;
  background: #efeae0; position: relative; }
.rf-cell > .rf-comp { margin: auto; }
.rf-cell.rf-hidden { background: #dfe3e8; }
.rf-under { position: absolute; left: 3px; top: 3px; display: flex; flex-wrap: wrap; gap: 1px; max-width: 80px;
  z-index: 1; }
.rf-vars h3 { margin: 8px 0 4px; font-size: 15px; }
.rf-vars table, .rf-var-table { border-collapse: collapse; font-size: 13px; }
.rf-var-table th, .rf-var-table td { border: 1px solid #ddd; padding: 2px 8px; text-align: right; }
.rf-var-table th[scope=row] { text-align: left; }
.rf-var-table th.rf-you { color: #3c78b4; }
.rf-shared-vars { display: flex; flex-wrap: wrap; gap: 2px 16px; font-size: 13px; margin: 6px 0 0; }
.rf-shared-vars div { display: flex; gap: 4px; }
.rf-shared-vars dt { font-weight: 600; }
.rf-shared-vars dd { margin: 0; }
"""


def picture_css() -> str:
    """The stylesheet of `render_view`'s fragments (class names all start `rf-`)."""
    return CSS
