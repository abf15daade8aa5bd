"""The balance report's plots, drawn by matplotlib as SVG text to put inline in one HTML file.

Figures are built with `matplotlib.figure.Figure` (no pyplot, so no global backend or figure
registry is touched) and saved under a fixed `svg.hashsalt`, with no date, so the same data
gives the same bytes. Glyphs are drawn as paths: the file needs no font. Each figure's ids get
a prefix of their own, since several SVGs share one HTML document's id space.

Every plot takes the JSON shapes `ruleforge.balance` makes (a Summary, a Comparison, a skill
trace: docs/balancing.md) and returns the SVG, or None when the data to draw is missing (no game
finished, say). Plots are drawn under matplotlib's defaults plus `RC`, never a user's
matplotlibrc, so a report looks the same on every machine.
"""

from __future__ import annotations

import functools
import io
import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ..diagnostics import GameError

MISSING = "--report needs matplotlib: pip install 'ruleforge[report]'"
SEAT_COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]
A_COLOUR, B_COLOUR = "#7f9fbf", "#e06c1f"
FAIR_COLOUR = "#444444"
WIDTH = 9.0  # inches; the page scales figures to its width
RC = {
    "svg.hashsalt": "ruleforge",  # fixed ids: the same report twice is the same bytes
    "svg.fonttype": "path",  # text as paths: no font needed to read the file
    "text.parse_math": False,  # labels come from rules files: '$x$' is text, never mathtext
    "font.size": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
_ID = re.compile(r'\bid="([^"]+)"')
Draw = TypeVar("Draw", bound=Callable[..., "str | None"])


def figure_class() -> Any:
    """matplotlib's Figure, or a GameError saying how to install it (it is an optional extra)."""
    try:
        from matplotlib.figure import Figure
    except ImportError as e:
        raise GameError(MISSING) from e
    return Figure


def styled(draw: Draw) -> Draw:
    """Run a plot under matplotlib's defaults and the report's `RC`, whatever the user's settings."""

    @functools.wraps(draw)
    def run(*args: Any, **kwargs: Any) -> str | None:
        figure_class()
        import matplotlib

        with matplotlib.rc_context():
            matplotlib.rcdefaults()
            matplotlib.rcParams.update(RC)
            return draw(*args, **kwargs)

    return run  # type: ignore[return-value]


def to_svg(fig: Any, prefix: str) -> str:
    """The figure as an inline `<svg>` element: no XML prologue, no date, ids under `prefix`."""
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight",
                metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    text = buf.getvalue()
    text = text[text.index("<svg"):]
    ids = set(_ID.findall(text))
    text = _ID.sub(lambda m: f'id="{prefix}-{m.group(1)}"', text)
    text = re.sub(r'(href="#|url\(#)([^")]+)', lambda m: m.group(1) + (f"{prefix}-{m.group(2)}"
                                                                       if m.group(2) in ids else m.group(2)), text)
    return text.replace("<svg ", f'<svg class="plot" role="img" aria-labelledby="{prefix}-title" ', 1).strip()


def _new(height: float) -> tuple[Any, Any]:
    """A figure of the report's width and one axes, under the report's style."""
    fig = figure_class()(figsize=(WIDTH, height), layout="constrained")
    return fig, fig.subplots()


def _done(fig: Any, ax: Any, title: str, prefix: str) -> str:
    """Title the axes, save and return the SVG (with a <title> for screen readers)."""
    ax.set_title(title, loc="left", fontsize=11, fontweight="bold")
    svg = to_svg(fig, prefix)
    return svg.replace(">", f'><title id="{prefix}-title">{_escape(title)}</title>', 1)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _percent(ax: Any, axis: str = "y") -> None:
    from matplotlib.ticker import PercentFormatter

    getattr(ax, f"{axis}axis").set_major_formatter(PercentFormatter(1.0, decimals=0))


def _errors(values: Sequence[float], intervals: Sequence[Any]) -> list[list[float]]:
    """matplotlib's asymmetric error bars from [lo, hi] intervals; none where one is missing."""
    low, high = [], []
    for v, iv in zip(values, intervals):
        ok = iv is not None and None not in iv and v is not None
        low.append(max(0.0, v - iv[0]) if ok else 0.0)
        high.append(max(0.0, iv[1] - v) if ok else 0.0)
    return [low, high]


def fair_share(summary: dict[str, Any]) -> float | None:
    """The share of games each seat would win outright if all were equal: 1/n of the games with
    one winner (with ties, 1/n itself would make every seat look weak)."""
    players = summary.get("players") or len(summary.get("seats") or []) or None
    if not players:
        return None
    decisive = (summary.get("outcomes") or {}).get("decisive")
    return (1.0 if decisive is None else decisive) / players


def _fair_line(ax: Any, fair: float | None, label: str = "fair share", colour: str = FAIR_COLOUR) -> None:
    if fair is not None:
        ax.axhline(fair, color=colour, linestyle="--", linewidth=1, label=f"{label} ({fair:.0%})", zorder=1)


def _seat_label(seat: dict[str, Any]) -> str:
    return f"{seat.get('seat', '?')}\n{seat.get('agent') or ''}".strip()


def _colour(k: int) -> str:
    return SEAT_COLOURS[k % len(SEAT_COLOURS)]


def _usable(seats: list[dict[str, Any]], key: str) -> bool:
    return bool(seats) and all(s.get(key) is not None for s in seats)


@styled
def win_rates(summary: dict[str, Any], prefix: str) -> str | None:
    """Each seat's share of games won outright, its 95% interval, and the fair share 1/n."""
    seats = summary.get("seats") or []
    if not _usable(seats, "win_rate"):
        return None
    fig, ax = _new(3.2)
    rates = [s["win_rate"] for s in seats]
    xs = range(len(seats))
    ax.bar(xs, rates, color=[_colour(k) for k in xs], width=0.6, zorder=2,
           yerr=_errors(rates, [s.get("win_interval") for s in seats]), capsize=6, ecolor="#222222")
    for x, r in zip(xs, rates):
        if r >= 0.06:  # the share written inside its bar, clear of the interval's line
            ax.text(x, r / 2, f"{r:.0%}", ha="center", va="center", color="white", fontweight="bold")
    fair = fair_share(summary)
    _fair_line(ax, fair)
    ax.set_xticks(list(xs), [_seat_label(s) for s in seats])
    ax.set_ylabel("games won outright")
    ax.set_ylim(0, min(1.0, max(max(rates), fair or 0) * 1.35 + 0.05))
    _percent(ax)
    ax.legend(loc="upper right", frameon=False, fontsize=9)
    return _done(fig, ax, "Who wins: share of games won by each seat", prefix)


@styled
def scores(summary: dict[str, Any], prefix: str) -> str | None:
    """Each seat's final totals as a box: the middle half of games, whiskers to p10 and p90."""
    seats = [s for s in summary.get("seats") or [] if _quantiles_ok(s.get("quantiles"))]
    if not seats:
        return None
    fig, ax = _new(3.2)
    boxes = []
    for s in seats:
        q = s["quantiles"]
        boxes.append({"med": q["median"], "q1": q["p25"], "q3": q["p75"], "whislo": q["p10"],
                      "whishi": q["p90"], "fliers": [], "mean": s.get("mean_total"), "label": _seat_label(s)})
    parts = ax.bxp(boxes, showmeans=all(b["mean"] is not None for b in boxes), patch_artist=True, widths=0.5,
                   meanprops={"marker": "D", "markerfacecolor": "white", "markeredgecolor": "black"},
                   medianprops={"color": "black"})
    for k, box in enumerate(parts["boxes"]):
        box.set_facecolor(_colour(k))
        box.set_alpha(0.75)
    for k, s in enumerate(seats, 1):
        q = s["quantiles"]
        ax.plot([k, k], [q["min"], q["max"]], linestyle="none", marker="_", markersize=14, color="#555555")
    ax.set_ylabel("final total")
    return _done(fig, ax, "Scores: final totals per seat", prefix)


def _quantiles_ok(q: Any) -> bool:
    keys = ("min", "p10", "p25", "median", "p75", "p90", "max")
    return isinstance(q, dict) and all(q.get(k) is not None for k in keys)


@styled
def histogram(hist: Any, title: str, xlabel: str, prefix: str, mean: float | None = None,
              colour: str = "#4c72b0") -> str | None:
    """Counts of games per bin (`{"edges", "counts"}`), with the mean marked."""
    if not isinstance(hist, dict) or not hist.get("counts") or len(hist.get("edges") or []) != len(hist["counts"]) + 1:
        return None
    fig, ax = _new(2.8)
    ax.stairs(hist["counts"], hist["edges"], fill=True, color=colour, alpha=0.85)
    ax.stairs(hist["counts"], hist["edges"], color="#222222", linewidth=0.8)
    if mean is not None:
        ax.axvline(mean, color=FAIR_COLOUR, linestyle="--", linewidth=1, label=f"mean {mean:.3g}")
        ax.legend(loc="upper right", frameon=False, fontsize=9)
    if all(float(e).is_integer() for e in hist["edges"]):
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(xlabel)
    ax.set_ylabel("games")
    return _done(fig, ax, title, prefix)


def lengths(summary: dict[str, Any], prefix: str) -> str | None:
    """How many decisions games take."""
    decisions = (summary.get("length") or {}).get("decisions") or {}
    return histogram(decisions.get("histogram"), "Game length: decisions per game", "decisions in the game",
                     prefix, decisions.get("mean"), "#55a868")


def margin(summary: dict[str, Any], prefix: str) -> str | None:
    """By how much winners win: the winner's lead over the runner-up by the ranking."""
    m = summary.get("margin") or {}
    return histogram(m.get("histogram"), "Margin of victory: the winner's lead over the runner-up",
                     "lead in the ranking's first measure", prefix, m.get("mean"), "#8172b2")


@styled
def items(summary: dict[str, Any], prefix: str) -> str | None:
    """Each scoring item's mean points per seat, with 95% intervals: where the points come from."""
    seats = [s for s in summary.get("seats") or [] if s.get("items")]
    if not seats:
        return None
    names = list(dict.fromkeys(name for s in seats for name in s["items"]))
    fig, ax = _new(1.2 + len(names) * (0.25 + 0.12 * len(seats)))
    height = 0.8 / len(seats)
    for k, s in enumerate(seats):
        means, ivs = [], []
        for name in names:
            item = s["items"].get(name) or {}
            means.append(item.get("mean") or 0.0)
            ivs.append(item.get("interval"))
        ys = [i + (k - (len(seats) - 1) / 2) * height for i in range(len(names))]
        ax.barh(ys, means, height=height * 0.9, color=_colour(k), label=s.get("seat"), zorder=2)
        ax.errorbar(means, ys, xerr=_errors(means, ivs), fmt="none", ecolor="#222222", capsize=2,
                    linewidth=0.8, zorder=3)
    ax.axvline(0, color="#222222", linewidth=0.8)
    ax.set_yticks(range(len(names)), names)
    ax.invert_yaxis()
    ax.set_xlabel("mean points per game")
    ax.legend(loc="best", frameon=True, framealpha=0.9, edgecolor="none", fontsize=9, ncols=min(len(seats), 4))
    return _done(fig, ax, "Where the points come from: each scoring item's mean per seat", prefix)


@styled
def compare_win_rates(a: dict[str, Any], b: dict[str, Any], prefix: str,
                      names: tuple[str, str] = ("A", "B")) -> str | None:
    """Win rates of the same seats under A and under B, side by side, each with its interval."""
    seats_a, seats_b = a.get("seats") or [], b.get("seats") or []
    if not _usable(seats_a, "win_rate") or not _usable(seats_b, "win_rate"):
        return None
    labels = list(dict.fromkeys([s["seat"] for s in seats_a] + [s["seat"] for s in seats_b]))
    fig, ax = _new(3.2)
    for k, (seats, name, colour) in enumerate(((seats_a, names[0], A_COLOUR), (seats_b, names[1], B_COLOUR))):
        by_seat = {s["seat"]: s for s in seats}
        xs = [i + (k - 0.5) * 0.38 for i, seat in enumerate(labels) if seat in by_seat]
        rates = [by_seat[seat]["win_rate"] for seat in labels if seat in by_seat]
        ivs = [by_seat[seat].get("win_interval") for seat in labels if seat in by_seat]
        ax.bar(xs, rates, width=0.36, color=colour, label=name, zorder=2,
               yerr=_errors(rates, ivs), capsize=4, ecolor="#222222")
    fair_a, fair_b = fair_share(a), fair_share(b)
    if fair_a is not None and fair_b is not None and round(fair_a, 3) == round(fair_b, 3):
        _fair_line(ax, fair_a)
    else:  # ties changed: each side's own fair share
        _fair_line(ax, fair_a, f"fair share in {names[0]}", A_COLOUR)
        _fair_line(ax, fair_b, f"fair share in {names[1]}", B_COLOUR)
    ax.set_xticks(range(len(labels)), labels)
    ax.set_ylabel("games won")
    _percent(ax)
    ax.legend(loc="upper right", frameon=False, fontsize=9)
    return _done(fig, ax, f"Who wins, {names[0]} against {names[1]}", prefix)


@styled
def rate_changes(comparison: dict[str, Any], prefix: str) -> str | None:
    """Each share that A and B both measured (win rates, ties, first player): B − A with its interval."""
    rows = [d for d in comparison.get("differences") or []
            if d.get("kind", "rate" if "rate" in str(d.get("statistic")) else "mean") == "rate"
            and d.get("difference") is not None]
    if not rows:
        return None
    fig, ax = _new(0.9 + 0.38 * len(rows))
    ys = list(range(len(rows)))
    diffs = [d["difference"] for d in rows]
    colours = [B_COLOUR if d.get("verdict") == "changed" else A_COLOUR for d in rows]
    err = _errors(diffs, [d.get("interval") for d in rows])
    for y, x, lo, hi, c in zip(ys, diffs, err[0], err[1], colours):
        ax.errorbar([x], [y], xerr=[[lo], [hi]], fmt="o", color=c, capsize=4, markersize=7, zorder=3)
    ax.axvline(0, color=FAIR_COLOUR, linestyle="--", linewidth=1)
    ax.set_yticks(ys, [str(d.get("statistic")) for d in rows])
    ax.invert_yaxis()
    ax.set_ylim(len(rows) - 0.5, -0.5)
    _percent(ax, "x")
    ax.set_xlabel("B − A (percentage points); orange: changed beyond chance")
    return _done(fig, ax, "What changed in who wins: B − A with 95% intervals", prefix)


@styled
def skill_trace(skill: dict[str, Any], prefix: str, fair: float | None = None) -> str | None:
    """The stronger agent's win rate as its search budget grows: does skill pay?"""
    budgets, rates = skill.get("budgets") or [], skill.get("win_rate") or []
    points = [(b, r, iv) for b, r, iv in zip(budgets, rates, skill.get("interval") or [None] * len(budgets))
              if b is not None and r is not None]
    if not points:
        return None
    fig, ax = _new(3.2)
    xs, ys, ivs = zip(*points)
    ax.errorbar(xs, ys, yerr=_errors(ys, ivs), marker="o", color="#c44e52", capsize=4, linewidth=1.5, zorder=3,
                label="stronger agent")
    if min(xs) > 0 and max(xs) / min(xs) >= 16:
        ax.set_xscale("log", base=2)
        ax.set_xticks(list(xs), [f"{x:g}" for x in xs])
        ax.minorticks_off()
    _fair_line(ax, fair)
    ax.set_xlabel("search budget (more is stronger)")
    ax.set_ylabel(f"games won against {skill.get('against', 'the others')}")
    ax.set_ylim(0, 1)
    _percent(ax)
    ax.legend(loc="lower right", frameon=False, fontsize=9)
    return _done(fig, ax, "Skill: does more search win more often?", prefix)
