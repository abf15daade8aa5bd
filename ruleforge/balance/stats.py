"""The statistics of a batch, from its game records alone: `summarise(records, ...)` gives the
Summary that `simulate --json` prints (docs/balancing.md explains each number). Pure: the same
records in the same order give the same summary, byte for byte, however they were played."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any

from ..engine import player_name
from ..standing import first
from .intervals import mean_interval, wilson

QUANTILES = {"min": 0.0, "p10": 0.1, "p25": 0.25, "median": 0.5, "p75": 0.75, "p90": 0.9, "max": 1.0}
HISTOGRAM_BINS = 20
TOP_CHOICES = 50


def quantile(ordered: Sequence[float], q: float) -> float:
    """The q-quantile of sorted values, interpolated linearly between the two nearest (numpy's default)."""
    pos = (len(ordered) - 1) * q
    low = math.floor(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def quantiles(values: Sequence[float]) -> dict[str, float] | None:
    if not values:
        return None
    ordered = sorted(values)
    return {name: quantile(ordered, q) for name, q in QUANTILES.items()}


def histogram(values: Sequence[float]) -> dict[str, list] | None:
    """Counts in equal bins [edge_i, edge_i+1) covering every value; whole numbers (totals,
    lengths) get whole-number edges, one bin per value when they span at most 20."""
    if not values:
        return None
    lo, hi = min(values), max(values)
    if all(float(v).is_integer() for v in values):
        lo, hi = math.floor(lo), math.floor(hi)
        width: float = max(1, math.ceil((hi - lo + 1) / HISTOGRAM_BINS))
        bins = math.ceil((hi - lo + 1) / width)
    else:
        bins = HISTOGRAM_BINS
        width = (hi - lo) / bins or 1.0
    edges = [lo + i * width for i in range(bins + 1)]
    counts = [0] * bins
    for v in values:
        counts[min(int((v - lo) // width), bins - 1)] += 1
    return {"edges": edges, "counts": counts}


def spread(values: Sequence[float]) -> dict[str, Any]:
    """Mean, extremes, quantiles and histogram of a per-game number (None for each with no games)."""
    if not values:
        return {"mean": None, "min": None, "max": None, "quantiles": None, "histogram": None}
    return {"mean": statistics.fmean(values), "min": min(values), "max": max(values),
            "quantiles": quantiles(values), "histogram": histogram(values)}


def _rate(count: int, games: int) -> float | None:
    return count / games if games else None


def _interval(pair: tuple[float, float] | None) -> list[float] | None:
    return list(pair) if pair is not None else None


def seat_summary(records: list[dict[str, Any]], p: int, agent: str, items: list[str]) -> dict[str, Any]:
    """One seat: outright wins and shared wins apart, its totals' spread, each item's mean."""
    name = player_name(p)
    games = len(records)
    wins = sum(1 for r in records if r["winners"] == [name])
    shared = sum(1 for r in records if len(r["winners"]) > 1 and name in r["winners"])
    totals = [r["scores"][p] for r in records]
    item_stats = {}
    for item in items:
        points = [r["breakdowns"][p].get(item, 0) for r in records]
        item_stats[item] = {"mean": statistics.fmean(points) if points else None,
                            "interval": _interval(mean_interval(points)),
                            "zero_share": _rate(sum(1 for x in points if x == 0), games)}
    return {
        "seat": name, "agent": agent, "wins": wins, "shared": shared,
        "win_rate": _rate(wins, games), "win_interval": _interval(wilson(wins, games)),
        "tie_rate": _rate(shared, games),
        "mean_total": statistics.fmean(totals) if totals else None,
        "sd_total": statistics.stdev(totals) if len(totals) > 1 else None,
        "mean_interval": _interval(mean_interval(totals)),
        "quantiles": quantiles(totals), "histogram": histogram(totals), "items": item_stats,
    }


def margin(record: dict[str, Any]) -> int | None:
    """A game's margin of victory, by the ranking: the winner's lead over the runner-up (the
    best of the others by the ranking key) in the ranking's first expression, so never
    negative, and 0 when a tie-break decided; None for a tie or a game of one player. In a
    game of "fewest points" (`ranking for p { -points(p) }`) it is how many fewer points the
    winner has. A record without ranking keys (`ranks`) is measured by its totals."""
    if len(record["winners"]) != 1 or len(record["scores"]) < 2:
        return None
    w = int(record["winners"][0][1:]) - 1
    keys = [tuple(k) for k in record.get("ranks") or [[s] for s in record["scores"]]]
    runner_up = max(k for i, k in enumerate(keys) if i != w)
    return first(keys[w]) - first(runner_up)


def margins(records: list[dict[str, Any]]) -> list[int]:
    """The margin of victory of each game with one winner (see `margin`)."""
    return [m for m in map(margin, records) if m is not None]


def first_player(records: list[dict[str, Any]], players: int) -> dict[str, Any]:
    """How often the seat that decided first went on to win outright, against the fair 1/n."""
    counts = {player_name(p): 0 for p in range(players)}
    won = 0
    for r in records:
        if r["first"] is not None:
            counts[r["first"]] = counts.get(r["first"], 0) + 1
            won += r["winners"] == [r["first"]]
    games = sum(counts.values())
    rate = _rate(won, games)
    return {"seat counts": counts, "win_rate": rate, "interval": _interval(wilson(won, games)),
            "fair": 1 / players, "advantage": rate - 1 / players if rate is not None else None}


def _items(records: list[dict[str, Any]]) -> list[str]:
    """Every scoring item named in any breakdown, in the order first met."""
    seen: dict[str, None] = {}
    for r in records:
        for b in r["breakdowns"]:
            seen.update(dict.fromkeys(b))
    return list(seen)


def measures(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Each `measure` of the rules: its spread over the games and a t interval for its mean."""
    names = list(dict.fromkeys(name for r in records for name in r.get("measures", {})))
    out = {}
    for name in names:
        values = [r["measures"][name] for r in records if name in r.get("measures", {})]
        out[name] = {**spread(values), "interval": _interval(mean_interval(values))}
    return out


def summarise(records: list[dict[str, Any]], head: dict[str, Any], agents: list[str], declared_actions: list[str],
              declared_items: list[str] | None = None, triggers: list[str] | None = None) -> dict[str, Any]:
    """The Summary of a batch (keys in docs/balancing.md). `head` holds what the records do not
    know (rules, game, players, options, seed, requested, interrupted, failed, seconds, jobs);
    `declared_*` name what the rules declare, so that what no game used is listed too; `triggers`
    is None where trigger firings were not counted."""
    games = len(records)
    players = head["players"]
    items = list(dict.fromkeys([*(declared_items or []), *_items(records)]))
    seats = [seat_summary(records, p, agents[p], items) for p in range(players)]
    ties = sum(1 for r in records if len(r["winners"]) > 1)
    decisions = [r["decisions"] for r in records]
    length = {"decisions": spread(decisions), "turns": spread([r["turns"] for r in records]),
              "rounds": None if any(r["rounds"] is None for r in records) or not records
              else spread([r["rounds"] for r in records])}
    length.update({k: length["decisions"][k] for k in ("mean", "min", "max")})
    per_game = [r["branching"]["sum"] / r["branching"]["count"] for r in records if r["branching"]["count"]]
    all_decisions = sum(r["branching"]["count"] for r in records)
    branching = {"mean": sum(r["branching"]["sum"] for r in records) / all_decisions if all_decisions else None,
                 "max": max((r["branching"]["max"] for r in records), default=None),
                 "quantiles": quantiles(per_game)}
    taken: dict[str, int] = dict.fromkeys(declared_actions, 0)
    legal: dict[str, int] = dict.fromkeys(declared_actions, 0)
    choices: dict[str, int] = {}
    for r in records:
        for name, n in r["actions"].items():
            taken[name] = taken.get(name, 0) + n
        for name, n in r["legal"].items():
            legal[name] = legal.get(name, 0) + n
        for label, n in r["choices"].items():
            choices[label] = choices.get(label, 0) + n
    actions = {name: {"taken": taken[name], "share": _rate(taken[name], all_decisions),
                      "legal_share": _rate(legal.get(name, 0), all_decisions)} for name in taken}
    top = sorted(choices.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_CHOICES]
    fired: dict[str, int] | None = None
    if triggers is not None:
        fired = dict.fromkeys(triggers, 0)
        for r in records:
            for name, n in r.get("triggers", {}).items():
                fired[name] = fired.get(name, 0) + n
    margin = margins(records)
    m = spread(margin)
    summary = {
        **{k: head[k] for k in ("rules", "game", "players", "options", "seed", "requested")},
        "games": games, "interrupted": head["interrupted"], "failed": head["failed"],
        "seats": seats,
        "outcomes": {"decisive": _rate(games - ties, games), "ties": _rate(ties, games)},
        "margin": {"mean": m["mean"], "interval": _interval(mean_interval(margin)),
                   "quantiles": m["quantiles"], "histogram": m["histogram"]},
        "first_player": first_player(records, players),
        "length": length, "branching": branching, "measures": measures(records),
        "actions": actions, "choices": dict(top),
        "unexercised": {
            "actions_never_legal": [a for a in taken if legal.get(a, 0) == 0] if records else [],
            "actions_never_taken": [a for a in taken if taken[a] == 0] if records else [],
            "items_always_zero": [i for i in items if all(s["items"][i]["zero_share"] == 1 for s in seats)]
            if records else [],
            "triggers_never_fired": [t for t, n in fired.items() if n == 0] if fired is not None and records
            else ([] if fired is not None else None),
        },
        "triggers": fired,
        "seconds": head["seconds"],
        "games_per_second": games / head["seconds"] if head["seconds"] > 0 else math.inf,
        "jobs": head.get("jobs", 1),
    }
    return summary
