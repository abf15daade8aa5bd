"""Two batches side by side: each statistic of A and of B, the difference B − A, its 95%
interval and a plain verdict. `compare(summary_a, summary_b, records_a, records_b)` gives the
Comparison that `ruleforge compare --json` prints (docs/balancing.md explains the intervals)."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

from ..engine import player_name
from .intervals import paired_difference, proportion_difference, welch_difference
from .stats import margins

CHANGED = "changed"
NO_EVIDENCE = "no evidence of change"

Record = dict[str, Any]

# What a comparison reads of a game's record: pairing by seed needs each game of A until B has
# played, so only these are kept (not the actions, choices and triggers the summary counted).
PAIRED_FIELDS = ("seed", "scores", "breakdowns", "ranks", "winners", "first", "decisions", "turns", "branching",
                 "measures")


def paired_part(record: Record) -> Record:
    """The part of a game's record that `compare` reads."""
    return {k: record[k] for k in PAIRED_FIELDS if k in record}


def verdict(interval: list[float] | None) -> str:
    """Changed when the whole 95% interval lies on one side of 0."""
    if interval is None or interval[0] <= 0 <= interval[1]:
        return NO_EVIDENCE
    return CHANGED


def _row(statistic: str, kind: str, a: float | None, b: float | None, interval: tuple | None) -> dict[str, Any]:
    shown = list(interval) if interval is not None else None
    return {"statistic": statistic, "kind": kind, "a": a, "b": b,
            "difference": b - a if a is not None and b is not None else None,
            "interval": shown, "verdict": verdict(shown)}


class _Sides:
    """The two batches' records, and the pairs of games played on the same seed by both."""

    def __init__(self, records_a: list[Record], records_b: list[Record]):
        self.a, self.b = records_a, records_b
        by_seed = {r["seed"]: r for r in records_b}
        self.pairs = [(r, by_seed[r["seed"]]) for r in records_a if r["seed"] in by_seed]
        self.same_seeds = bool(records_a) and {r["seed"] for r in records_a} == set(by_seed)

    def rate(self, statistic: str, hit: Callable[[Record], bool | None]) -> dict[str, Any]:
        """A proportion: Newcombe's interval, the two sides taken as independent (conservative
        when the same seeds make them alike, as they do)."""
        counts = []
        for records in (self.a, self.b):
            seen = [h for h in map(hit, records) if h is not None]
            counts.append((sum(seen), len(seen)))
        (ka, na), (kb, nb) = counts
        return _row(statistic, "rate", ka / na if na else None, kb / nb if nb else None,
                    proportion_difference(ka, na, kb, nb))

    def mean(self, statistic: str, value: Callable[[Record], float], paired: bool = True) -> dict[str, Any]:
        """A mean: paired by seed when both sides played the same seeds (the difference of each
        seed's two games, t interval), else Welch's t interval."""
        xs, ys = [value(r) for r in self.a], [value(r) for r in self.b]
        if paired and self.same_seeds:
            interval = paired_difference([value(x) for x, _ in self.pairs], [value(y) for _, y in self.pairs])
        else:
            interval = welch_difference(xs, ys)
        return _row(statistic, "mean", statistics.fmean(xs) if xs else None,
                    statistics.fmean(ys) if ys else None, interval)


def _items(summary: dict[str, Any]) -> list[str]:
    return list(summary["seats"][0]["items"]) if summary["seats"] else []


def compare(summary_a: dict[str, Any], summary_b: dict[str, Any], records_a: list[Record],
            records_b: list[Record]) -> dict[str, Any]:
    """The Comparison: every statistic both batches define, B − A with its interval and verdict.
    Scoring items only one side has are listed apart (`only_in_a`, `only_in_b`), not compared."""
    sides = _Sides(records_a, records_b)
    players = summary_a["players"]
    rows = []
    for p in range(players):
        name = player_name(p)
        rows.append(sides.rate(f"{name} win rate", lambda r, name=name: r["winners"] == [name]))
    rows.append(sides.rate("tie rate", lambda r: len(r["winners"]) > 1))
    for p in range(players):
        rows.append(sides.mean(f"{player_name(p)} mean total", lambda r, p=p: r["scores"][p]))
    margins_a, margins_b = margins(records_a), margins(records_b)
    rows.append(_row("mean margin of victory", "mean", statistics.fmean(margins_a) if margins_a else None,
                     statistics.fmean(margins_b) if margins_b else None, welch_difference(margins_a, margins_b)))
    rows.append(sides.rate("first player win rate",
                           lambda r: None if r["first"] is None else r["winners"] == [r["first"]]))
    rows.append(sides.mean("mean decisions", lambda r: r["decisions"]))
    rows.append(sides.mean("mean turns", lambda r: r["turns"]))
    for name in [m for m in summary_a.get("measures", {}) if m in summary_b.get("measures", {})]:
        rows.append(sides.mean(f"mean {name}", lambda r, name=name: r["measures"][name]))
    rows.append(sides.mean("legal actions per decision",
                           lambda r: r["branching"]["sum"] / r["branching"]["count"] if r["branching"]["count"] else 0))
    items_a, items_b = _items(summary_a), _items(summary_b)
    for item in [i for i in items_a if i in items_b]:
        for p in range(players):
            rows.append(sides.mean(f"{player_name(p)} {item}",
                                   lambda r, p=p, item=item: r["breakdowns"][p].get(item, 0)))
    return {"a": summary_a, "b": summary_b, "same_seeds": sides.same_seeds, "differences": rows,
            "only_in_a": [i for i in items_a if i not in items_b],
            "only_in_b": [i for i in items_b if i not in items_a]}
