"""The statistics of a batch, from its game records alone: `summarise(records, ...)` gives the
Summary that `simulate --json` prints (docs/balancing.md explains each number). Pure: the same
records in the same order give the same summary, byte for byte, however they were played."""

from __future__ import annotations

import bisect
import itertools
import math
import statistics
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from ..chance import GENERATOR
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


class Values:
    """A per-game number over a batch, kept as a count of each value: scores, lengths and margins
    take few distinct values, so a million games hold a few hundred counts, not a million numbers.
    Iterating gives every value as often as it came, so `statistics.fmean`, `statistics.stdev`
    and `mean_interval` read it as they read a list, and give the same floats bit for bit (their
    sums are exact, so the order does not count)."""

    __slots__ = ("counts", "n")

    def __init__(self, values: Iterable[float] = ()) -> None:
        self.counts: Counter[float] = Counter()
        self.n = 0
        for v in values:
            self.add(v)

    def add(self, value: float, times: int = 1) -> None:
        self.counts[value] += times
        self.n += times

    def with_zeros(self, games: int) -> Values:
        """These values and a 0 for each of the other games (a scoring item missing from a breakdown)."""
        out = Values()
        out.counts = self.counts.copy()
        out.n = self.n
        if games > self.n:
            out.add(0, games - self.n)
        return out

    def __len__(self) -> int:
        return self.n

    def __iter__(self) -> Iterator[float]:
        return self.counts.elements()

    def ordered(self) -> _Ordered:
        return _Ordered(self.counts)


class _Ordered(Sequence[float]):
    """The values sorted, as a sequence read by index without listing them (for `quantile`)."""

    def __init__(self, counts: Counter[float]) -> None:
        self.keys = sorted(counts)
        self.ends = list(itertools.accumulate(counts[k] for k in self.keys))  # index past each key's run

    def __len__(self) -> int:
        return self.ends[-1] if self.ends else 0

    def __getitem__(self, i: int) -> float:  # type: ignore[override]
        return self.keys[bisect.bisect_right(self.ends, i)]


def _values(values: Sequence[float] | Values) -> Values:
    return values if isinstance(values, Values) else Values(values)


def quantiles(values: Sequence[float] | Values) -> dict[str, float] | None:
    values = _values(values)
    if not values:
        return None
    ordered = values.ordered()
    return {name: quantile(ordered, q) for name, q in QUANTILES.items()}


def histogram(values: Sequence[float] | Values) -> dict[str, list] | None:
    """Counts in equal bins [edge_i, edge_i+1) covering every value; whole numbers (totals,
    lengths) get whole-number edges, one bin per value when they span at most 20."""
    counts_of = _values(values).counts
    if not counts_of:
        return None
    lo, hi = min(counts_of), max(counts_of)
    if all(float(v).is_integer() for v in counts_of):
        lo, hi = math.floor(lo), math.floor(hi)
        width: float = max(1, math.ceil((hi - lo + 1) / HISTOGRAM_BINS))
        bins = math.ceil((hi - lo + 1) / width)
    else:
        bins = HISTOGRAM_BINS
        width = (hi - lo) / bins or 1.0
    edges = [lo + i * width for i in range(bins + 1)]
    counts = [0] * bins
    for v, n in counts_of.items():
        counts[min(int((v - lo) // width), bins - 1)] += n
    return {"edges": edges, "counts": counts}


def spread(values: Sequence[float] | Values) -> dict[str, Any]:
    """Mean, extremes, quantiles and histogram of a per-game number (None for each with no games)."""
    values = _values(values)
    if not values:
        return {"mean": None, "min": None, "max": None, "quantiles": None, "histogram": None}
    return {"mean": statistics.fmean(values), "min": min(values.counts), "max": max(values.counts),
            "quantiles": quantiles(values), "histogram": histogram(values)}


def _rate(count: int, games: int) -> float | None:
    return count / games if games else None


def _interval(pair: tuple[float, float] | None) -> list[float] | None:
    return list(pair) if pair is not None else None


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


def _named(by_name: dict[str, Values], name: str) -> Values:
    """The Values of `name`, new if it has none yet (made only then: a game adds to dozens)."""
    values = by_name.get(name)
    if values is None:
        values = by_name[name] = Values()
    return values


class Tally:
    """A batch's statistics gathered game by game (`add(record)` as each ends): counts, exact
    sums and `Values`, never the records, so the memory stays the same for a million games as
    for a thousand. `summary()` gives what `summarise` gives for the same records in the same order."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.names = [player_name(p) for p in range(players)]
        self.games = 0
        self.wins = [0] * players
        self.shared = [0] * players
        self.totals = [Values() for _ in range(players)]
        self.points: list[dict[str, Values]] = [{} for _ in range(players)]  # as breakdowns name them
        self.items: dict[str, None] = {}  # every scoring item in any breakdown, in the order first met
        self.ties = 0
        self.decisions, self.turns, self.rounds = Values(), Values(), Values()
        self.rounds_missing = False
        self.per_game_branching = Values()
        self.branching_sum = self.all_decisions = 0
        self.branching_max: int | None = None
        self.taken: dict[str, int] = {}
        self.legal: dict[str, int] = {}
        self.choices: dict[str, int] = {}
        self.fired: dict[str, int] = {}
        self.margins = Values()
        self.first_counts = {player_name(p): 0 for p in range(players)}
        self.first_won = 0
        self.measures: dict[str, Values] = {}

    def add(self, r: dict[str, Any]) -> None:
        """Count one finished game's record."""
        self.games += 1
        winners = r["winners"]
        tied = len(winners) > 1
        self.ties += tied
        winner = winners[0] if len(winners) == 1 else None
        scores = r["scores"]
        for p, name in enumerate(self.names):
            self.wins[p] += name == winner
            self.shared[p] += tied and name in winners
            self.totals[p].add(scores[p])
        for p, breakdown in enumerate(r["breakdowns"]):
            self.items.update(dict.fromkeys(breakdown))
            if p < self.players:
                seat = self.points[p]
                for item, points in breakdown.items():
                    _named(seat, item).add(points)
        self.decisions.add(r["decisions"])
        self.turns.add(r["turns"])
        if r["rounds"] is None:
            self.rounds_missing = True
        else:
            self.rounds.add(r["rounds"])
        branching = r["branching"]
        if branching["count"]:
            self.per_game_branching.add(branching["sum"] / branching["count"])
        self.all_decisions += branching["count"]
        self.branching_sum += branching["sum"]
        if self.branching_max is None or branching["max"] > self.branching_max:
            self.branching_max = branching["max"]
        for into, counts in ((self.taken, r["actions"]), (self.legal, r["legal"]), (self.choices, r["choices"]),
                             (self.fired, r.get("triggers", {}))):
            for name, n in counts.items():
                into[name] = into.get(name, 0) + n
        m = margin(r)
        if m is not None:
            self.margins.add(m)
        if r["first"] is not None:
            self.first_counts[r["first"]] = self.first_counts.get(r["first"], 0) + 1
            self.first_won += winners == [r["first"]]
        for name, value in r.get("measures", {}).items():
            _named(self.measures, name).add(value)

    def seat(self, p: int, agent: str, items: list[str]) -> dict[str, Any]:
        """One seat: outright wins and shared wins apart, its totals' spread, each item's mean."""
        games, totals, wins = self.games, self.totals[p], self.wins[p]
        item_stats = {}
        for item in items:
            points = self.points[p].get(item, Values()).with_zeros(games)
            item_stats[item] = {"mean": statistics.fmean(points) if points else None,
                                "interval": _interval(mean_interval(points)),
                                "zero_share": _rate(points.counts.get(0, 0), games)}
        return {
            "seat": player_name(p), "agent": agent, "wins": wins, "shared": self.shared[p],
            "win_rate": _rate(wins, games), "win_interval": _interval(wilson(wins, games)),
            "tie_rate": _rate(self.shared[p], games),
            "mean_total": statistics.fmean(totals) if totals else None,
            "sd_total": statistics.stdev(totals) if len(totals) > 1 else None,
            "mean_interval": _interval(mean_interval(totals)),
            "quantiles": quantiles(totals), "histogram": histogram(totals), "items": item_stats,
        }

    def first_player(self) -> dict[str, Any]:
        """How often the seat that decided first went on to win outright, against the fair 1/n."""
        games = sum(self.first_counts.values())
        rate = _rate(self.first_won, games)
        fair = 1 / self.players
        return {"seat counts": dict(self.first_counts), "win_rate": rate,
                "interval": _interval(wilson(self.first_won, games)), "fair": fair,
                "advantage": rate - fair if rate is not None else None}

    def summary(self, head: dict[str, Any], agents: list[str], declared_actions: list[str],
                declared_items: list[str] | None = None, triggers: list[str] | None = None) -> dict[str, Any]:
        """The Summary of the games counted so far (see `summarise`)."""
        games, some = self.games, self.games > 0
        items = list(dict.fromkeys([*(declared_items or []), *self.items]))
        seats = [self.seat(p, agents[p], items) for p in range(head["players"])]
        length = {"decisions": spread(self.decisions), "turns": spread(self.turns),
                  "rounds": None if self.rounds_missing or not some else spread(self.rounds)}
        length.update({k: length["decisions"][k] for k in ("mean", "min", "max")})
        all_decisions = self.all_decisions
        branching = {"mean": self.branching_sum / all_decisions if all_decisions else None,
                     "max": self.branching_max, "quantiles": quantiles(self.per_game_branching)}
        taken = {**dict.fromkeys(declared_actions, 0), **self.taken}
        legal = self.legal
        actions = {name: {"taken": taken[name], "share": _rate(taken[name], all_decisions),
                          "legal_share": _rate(legal.get(name, 0), all_decisions)} for name in taken}
        top = sorted(self.choices.items(), key=lambda kv: (-kv[1], kv[0]))[:TOP_CHOICES]
        fired = None if triggers is None else {**dict.fromkeys(triggers, 0), **self.fired}
        m = spread(self.margins)
        return {
            **{k: head[k] for k in ("rules", "game", "players", "options", "seed")},
            "generator": head.get("generator", GENERATOR), "requested": head["requested"],
            "games": games, "interrupted": head["interrupted"], "failed": head["failed"],
            "seats": seats,
            "outcomes": {"decisive": _rate(games - self.ties, games), "ties": _rate(self.ties, games)},
            "margin": {"mean": m["mean"], "interval": _interval(mean_interval(self.margins)),
                       "quantiles": m["quantiles"], "histogram": m["histogram"]},
            "first_player": self.first_player(),
            "length": length, "branching": branching,
            "measures": {name: {**spread(v), "interval": _interval(mean_interval(v))}
                         for name, v in self.measures.items()},
            "actions": actions, "choices": dict(top),
            "unexercised": {
                "actions_never_legal": [a for a in taken if legal.get(a, 0) == 0] if some else [],
                "actions_never_taken": [a for a in taken if taken[a] == 0] if some else [],
                "items_always_zero": [i for i in items if all(s["items"][i]["zero_share"] == 1 for s in seats)]
                if some else [],
                "triggers_never_fired": [t for t, n in fired.items() if n == 0] if fired is not None and some
                else ([] if fired is not None else None),
            },
            "triggers": fired,
            "seconds": head["seconds"],
            "games_per_second": games / head["seconds"] if head["seconds"] > 0 else math.inf,
            "jobs": head.get("jobs", 1),
        }


def summarise(records: Iterable[dict[str, Any]], head: dict[str, Any], agents: list[str],
              declared_actions: list[str], declared_items: list[str] | None = None,
              triggers: list[str] | None = None) -> dict[str, Any]:
    """The Summary of a batch (keys in docs/balancing.md). `head` holds what the records do not
    know (rules, game, players, options, seed, generator, requested, interrupted, failed, seconds,
    jobs; without a generator, the one new games play);
    `declared_*` name what the rules declare, so that what no game used is listed too; `triggers`
    is None where trigger firings were not counted. The records are read once, in order (a
    generator will do): `Tally` is the same, fed a game at a time."""
    tally = Tally(head["players"])
    for r in records:
        tally.add(r)
    return tally.summary(head, agents, declared_actions, declared_items, triggers)
