"""A player's view as text for a person: piles as lists, grids drawn as tables.

Works from the view dict alone (`Game.view(p, properties=True)`), so what a person is shown is
exactly what that seat may see. Grid cells are recognised by their keys (`name(P1)[2,3]`).
"""

from __future__ import annotations

import io
import re
import shutil
from typing import Any

from .inert import inert

CELL_KEY = re.compile(r"^(?P<grid>.+)\[(?P<row>\d+),(?P<column>\d+)\]$")
EMPTY_CELL = "·"
PLAYER_KEY = re.compile(r"^(?P<name>.+)\((?P<player>P\d+)\)$")  # a per-player variable: `score(P2)`
MOST_VALUE = 24  # a variable's value on the screen is cut past this (a long list)


def screen_width() -> int:
    """The terminal's width (COLUMNS, else the terminal, else 100): tables fit the screen."""
    return max(40, shutil.get_terminal_size((100, 24)).columns)


def component_text(label: str, props: dict[str, Any] | None) -> str:
    """A component with its set properties, compactly: `Label (a, b 2)` (a flag set to true
    by its name alone), so that a stack's state fits in one grid cell."""
    if not props:
        return label
    parts = []
    for name, value in props.items():
        if value is True:
            parts.append(name)
        elif value is False:
            parts.append(f"not {name}")
        else:
            parts.append(f"{name} {value}")
    return f"{label} ({', '.join(parts)})"


def contents_text(content: Any, props: list[dict[str, Any]] | None) -> list[str]:
    """A visible zone's components as texts, bottom first, each with its properties."""
    props = props or [{}] * len(content)
    return [component_text(str(c), p) for c, p in zip(content, props)]


def runs(texts: list[str]) -> list[str]:
    """Alike neighbours shown once with their number (`Token ×15`): a supply of identical
    pieces stays one short line, in its order."""
    out: list[str] = []
    for text in texts:
        if out and out[-1][0] == text:
            out[-1][1] += 1
        else:
            out.append([text, 1])
    return [text if count == 1 else f"{text} ×{count}" for text, count in out]


def render_view(view: dict[str, Any], width: int | None = None, seen_from: int | None = None) -> list[str]:
    """A player's view as short readable lines; empty piles are left out to keep it short,
    grids are drawn as tables (trimmed round what is on them when mostly empty), the
    variables as a table per player. Everything the view has seen, or, from entry `seen_from`
    of its "seen" on, what was newly revealed (a screen shows a reveal once, when it is new)."""
    width = width or screen_width()
    props = view.get("properties", {})
    lines = [f"--- {view['viewer']} sees ({view['game']}) ---"]
    grids: dict[str, dict[tuple[int, int], Any]] = {}
    order: list[tuple[str, str]] = []  # ("zone", key) or ("grid", name), in the view's order
    for zone, content in view["zones"].items():
        m = CELL_KEY.match(zone)
        if m:
            name = m["grid"]
            if name not in grids:
                grids[name] = {}
                order.append(("grid", name))
            grids[name][int(m["row"]), int(m["column"])] = (content, props.get(zone))
        else:
            order.append(("zone", zone))
    for what, key in order:
        if what == "grid":
            lines.extend(render_grid(key, grids[key], width))
            continue
        content = view["zones"][key]
        if isinstance(content, dict):
            if content.get("hidden"):
                lines.append(f"  {key}: hidden ({content['hidden']})")
        elif content:
            lines.append(f"  {key}: {', '.join(runs(contents_text(content, props.get(key))))}")
    lines.extend(render_vars(view["vars"], width))
    for seen in view.get("seen", [])[seen_from or 0:]:
        contents = ", ".join(str(c) for c in seen["contents"]) or "nothing"
        where = "" if seen["zone"] == "a component" else f" in {seen['zone']}"
        lines.append(f"  {'seen' if seen_from is None else 'revealed to you'}{where}: {contents}")
    together = view.get("together")
    if together:  # a simultaneous decision under way: who has chosen, and only one's own choice
        chosen = ", ".join(together["chosen"]) or "nobody yet"
        lines.append(f"  choosing together: {', '.join(together['choosers'])}; chosen: {chosen}")
        if "your_choice" in together:
            lines.append(f"  your choice: {together['your_choice']}")
    return lines


def value_text(value: Any) -> str:
    """A variable's value as people read it (docs/language.md, strings): a flag as yes/no,
    nothing as none, a list by its items."""
    if value is True:
        return "yes"
    if value is False:
        return "no"
    if value is None:
        return "none"
    if isinstance(value, (list, tuple)):
        return ", ".join(value_text(v) for v in value) if value else "empty"
    return str(value)


def clipped(text: str, most: int = MOST_VALUE) -> str:
    return text if len(text) <= most else text[:most - 1] + "…"


def render_vars(variables: dict[str, Any], width: int) -> list[str]:
    """The variables a view shows: per-player ones as a table (a row per variable, a column per
    player), the shared ones as `name: value` items filling lines up to the width."""
    per_player: dict[str, dict[str, str]] = {}
    players: list[str] = []
    shared = []
    for key, value in variables.items():
        m = PLAYER_KEY.match(key)
        if m:
            per_player.setdefault(m["name"], {})[m["player"]] = inert(value_text(value))
            if m["player"] not in players:
                players.append(m["player"])
        else:
            shared.append(clipped(f"{inert(key)}: {inert(value_text(value))}", max(20, width - 4)))
    lines = []
    if per_player:
        players.sort(key=lambda p: int(p[1:]))
        names = {name: clipped(inert(name)) for name in per_player}
        first = max(len(n) for n in names.values())
        most = max(4, min(MOST_VALUE, (width - 2 - first) // len(players) - 2))  # the table fits the width
        per_player = {name: {p: clipped(text, most) for p, text in row.items()} for name, row in per_player.items()}
        sizes = [max(len(p), *(len(row.get(p, EMPTY_CELL)) for row in per_player.values())) for p in players]
        lines.append(("  " + " " * first + "".join(f"  {p:>{w}}" for p, w in zip(players, sizes))).rstrip())
        for name, row in per_player.items():
            cells = "".join(f"  {row.get(p, EMPTY_CELL):>{w}}" for p, w in zip(players, sizes))
            lines.append(f"  {names[name]:<{first}}{cells}")
    line = ""
    for item in shared:
        if line and len(line) + 3 + len(item) > width - 2:
            lines.append(line)
            line = ""
        line = f"{line}   {item}" if line else f"  {item}"
    if line:
        lines.append(line)
    return lines


def cell_text(content: Any, props: list[dict[str, Any]] | None) -> str | None:
    """What one cell shows: its stack bottom first (`A / B`), `hidden (n)`, or None if empty."""
    if isinstance(content, dict):
        size = content.get("hidden", 0)
        return None if not size else "hidden" if size == 1 else f"hidden ({size})"
    return inert(" / ".join(contents_text(content, props))) or None  # escaped before the table is measured


def shown_span(used: list[int], size: int, trim: bool) -> range:
    """The rows (or columns) to draw: all, or the used ones with a margin of one."""
    if not trim or not used:
        return range(1, size + 1)
    return range(max(1, min(used) - 1), min(size, max(used) + 1) + 1)


def render_grid(name: str, cells: dict[tuple[int, int], Any], width: int) -> list[str]:
    """One grid as a table with its true row and column numbers."""
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    rows = max(r for r, _ in cells)
    columns = max(k for _, k in cells)
    texts = {place: cell_text(*value) for place, value in cells.items()}
    used = [place for place, text in texts.items() if text is not None]
    if not used:
        return [f"  {name}: empty ({rows} by {columns})"]
    trim = len(used) * 2 < rows * columns  # mostly empty: draw only round what is there
    row_span = shown_span([r for r, _ in used], rows, trim)
    column_span = shown_span([k for _, k in used], columns, trim)
    title = f"{name} ({rows} by {columns}"
    hidden = sum(1 for content, _ in cells.values() if isinstance(content, dict))
    if hidden:
        title += f"; {hidden} cells hidden" if hidden > 1 else "; 1 cell hidden"
    if len(row_span) < rows or len(column_span) < columns:
        title += f"; rows {row_span[0]}-{row_span[-1]}, columns {column_span[0]}-{column_span[-1]} shown"
    table = Table(box=box.SQUARE, show_lines=True, padding=(0, 1))
    table.add_column("")
    for k in column_span:
        table.add_column(Text(str(k)), overflow="fold", justify="center")
    for r in row_span:
        table.add_row(Text(str(r)), *(Text(texts.get((r, k)) or EMPTY_CELL) for k in column_span))
    out = io.StringIO()
    console = Console(file=out, width=width - 2, color_system=None, highlight=False, emoji=False, markup=False)
    console.print(table)
    lines = ["  " + line.rstrip() for line in out.getvalue().splitlines() if line.strip()]
    return [f"  {title})", *lines]
