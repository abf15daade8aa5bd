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


def render_view(view: dict[str, Any], width: int | None = None) -> list[str]:
    """A player's view as short readable lines; empty piles are left out to keep it short,
    grids are drawn as tables (trimmed round what is on them when mostly empty)."""
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
    if view["vars"]:
        lines.append("  " + "  ".join(f"{k}={v}" for k, v in view["vars"].items()))
    for seen in view.get("seen", []):
        contents = ", ".join(str(c) for c in seen["contents"]) or "nothing"
        lines.append(f"  seen in {seen['zone']}: {contents}")
    together = view.get("together")
    if together:  # a simultaneous decision under way: who has chosen, and only one's own choice
        chosen = ", ".join(together["chosen"]) or "nobody yet"
        lines.append(f"  choosing together: {', '.join(together['choosers'])}; chosen: {chosen}")
        if "your_choice" in together:
            lines.append(f"  your choice: {together['your_choice']}")
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
