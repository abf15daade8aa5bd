"""A syrupy extension for score breakdowns: stored as text, one line per player and item in
the scorings' order (`P1 bonus = 20`), so a snapshot reads like a score sheet and a
failed one says which items moved and by how much. Needs syrupy (`ruleforge[test]`)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from syrupy.extensions.amber import AmberSnapshotExtension

from ..engine import Game
from ..scoresheet import Breakdown

ITEM_LINE = re.compile(r"^\s*(P[0-9]+) (.+) = (-?[0-9]+)\s*$")


def as_text(data: Any) -> Any:
    """What a snapshot of `data` keeps: a breakdown's lines; a game (a position) scored by
    its final scorings; anything with a `text()` (an example case, a playthrough) as that."""
    if isinstance(data, Game):
        data = Breakdown.of(data)
    if isinstance(data, Breakdown):
        return data.text()
    text = getattr(data, "text", None)
    if callable(text):
        return text()
    return data


def moved_items(before: str, now: str) -> list[str]:
    """`P1 bonus: 20 -> 25 (+5)` for each item whose points differ, and the items that
    appear or disappear; read from two breakdowns' text."""
    old, new = _items(before), _items(now)
    out = []
    for key in list(old) + [k for k in new if k not in old]:
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        if a is None:
            out.append(f"{key}: new item, {b}")
        elif b is None:
            out.append(f"{key}: gone (was {a})")
        else:
            out.append(f"{key}: {a} -> {b} ({b - a:+d})")
    return out


def _items(text: str) -> dict[str, int]:
    out = {}
    for line in text.splitlines():
        match = ITEM_LINE.match(line)
        if match:
            out[f"{match.group(1)} {match.group(2)}"] = int(match.group(3))
    return out


def _other_lines(text: str) -> list[str]:
    """A breakdown's lines that are not an item's points (the scorings, the choices)."""
    return [line for line in text.splitlines() if not ITEM_LINE.match(line)]


class BreakdownExtension(AmberSnapshotExtension):
    """Score breakdowns in `__snapshots__/<test module>.scores` (amber inside, a file of its
    own so that syrupy's default snapshots and these never claim each other's)."""

    file_extension = "scores"

    def serialize(self, data: Any, **kwargs: Any) -> str:
        return super().serialize(as_text(data), **kwargs)

    def diff_lines(self, serialized_data: Any, snapshot_data: Any) -> Iterator[str]:
        """The items that moved; syrupy's line diff too when more than points changed."""
        before, now = str(snapshot_data), str(serialized_data)
        moved = moved_items(before, now) if snapshot_data else []
        if moved:
            yield "items that moved (snapshot -> now):"
            yield from (f"  {line}" for line in moved)
        if not moved or _other_lines(before) != _other_lines(now):
            yield from super().diff_lines(serialized_data, snapshot_data)
