"""`simulate --report` and `compare --report`: one HTML file a game designer reads in a browser.

Self-contained on purpose: the plots are inline SVG, the style a few lines of inline CSS, with
no script, font or link to fetch, so the file can be mailed or opened offline and shows the
same thing years later. Output is deterministic (same data, same bytes) so a report can be
kept beside the rules and diffed.

The page's own Content-Security-Policy (`POLICY`) says so to the browser: no script at all, no
request of any kind, only inline style (the page's CSS and matplotlib's in each SVG). The
texts of the report come from rules files and summaries anyone may write, and every one is
escaped; the policy is the second wall, should one ever slip through as markup.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..diagnostics import GameError
from . import plots

CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #222; margin: 0; background: #fafafa; }
main { max-width: 980px; margin: 0 auto; padding: 24px 28px 48px; background: #fff; }
h1 { font-size: 26px; margin: 0 0 4px; } h2 { font-size: 21px; margin: 36px 0 6px; border-bottom: 2px solid #ddd; }
h3 { font-size: 16px; margin: 22px 0 6px; }
.lead { color: #555; margin-top: 0; }
figure { margin: 14px 0 20px; } figcaption { color: #555; font-size: 13px; margin-top: 2px; }
svg.plot { display: block; width: 100%; height: auto; }
table { border-collapse: collapse; margin: 8px 0 14px; font-size: 14px; }
th, td { padding: 3px 8px; white-space: nowrap; border-bottom: 1px solid #e4e4e4; text-align: right; }
th { background: #f2f2f2; } td:first-child, th:first-child { text-align: left; }
.warn { background: #fff4d6; border-left: 4px solid #e0a800; padding: 8px 14px; margin: 10px 0; }
.warn ul { margin: 4px 0; padding-left: 20px; }
.ok { background: #eaf6ea; border-left: 4px solid #4a9a4a; padding: 8px 14px; margin: 10px 0; }
tr.flag td { background: #fff4d6; font-weight: 600; }
.scroll { overflow-x: auto; }
"""
DASH = "–"  # a statistic the games do not define (no game, one game)
# Nothing is fetched (default-src: no image, font, frame or connection), no script runs, styles are
# inline only; base-uri and form-action, which default-src does not cover, are closed too. The
# plots are inline SVG, drawn without any request: their `<use href="#...">` and `url(#...)`
# point inside the page.
POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"


# 1. Numbers in words ----------------------------------------------------------------------

def pct(x: Any, digits: int = 0) -> str:
    """A share as a percentage, or a dash when there is none."""
    return DASH if x is None else f"{(x * 100 if round(x * 100, digits) else 0.0):.{digits}f}%"


def num(x: Any, digits: int = 1) -> str:
    """A count as is, any other number rounded for reading."""
    if x is None:
        return DASH
    if isinstance(x, float) and round(x, digits) == 0:
        x = 0.0  # no "-0.0"
    if isinstance(x, int) or (isinstance(x, float) and x.is_integer() and abs(x) >= 100):
        return f"{int(x):,}"
    return f"{x:,.{digits}f}"


def interval(iv: Any, fmt: Callable[[Any], str] = num) -> str:
    """A 95% interval as `lo – hi`."""
    if not iv or None in iv:
        return DASH
    return f"{fmt(iv[0])} {DASH} {fmt(iv[1])}"


def against_fair(rate: Any, iv: Any, fair: float | None) -> str:
    """Whether a seat's win rate is clearly above or below the fair share, or within chance."""
    if rate is None or fair is None or not iv or None in iv:
        return DASH
    if iv[0] > fair:
        return "more than fair"
    if iv[1] < fair:
        return "less than fair"
    return "within chance of fair"


# 2. HTML pieces ------------------------------------------------------------------------------

def esc(x: Any) -> str:
    return html.escape(str(x), quote=True)


def table(head: Iterable[str], rows: Iterable[Iterable[Any]], row_class: Callable[[int], str] | None = None) -> str:
    """A plain table; every cell escaped."""
    out = ['<div class="scroll"><table><thead><tr>', *(f"<th>{esc(h)}</th>" for h in head), "</tr></thead><tbody>"]
    for k, row in enumerate(rows):
        cls = row_class(k) if row_class else ""
        out.append(f'<tr class="{cls}">' if cls else "<tr>")
        out += [f"<td>{esc(c)}</td>" for c in row]
        out.append("</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def figure(svg: str | None, caption: str) -> str:
    """A plot with its caption in plain words; nothing when there was nothing to draw."""
    if svg is None:
        return ""
    return f"<figure>{svg}<figcaption>{esc(caption)}</figcaption></figure>"


def para(text: str, cls: str = "") -> str:
    return f'<p class="{cls}">{esc(text)}</p>' if cls else f"<p>{esc(text)}</p>"


class Ids:
    """Figure ids unique in the document (several SVGs share its id space)."""

    def __init__(self) -> None:
        self.n = 0

    def __call__(self) -> str:
        self.n += 1
        return f"fig{self.n}"


# 3. One run's sections -------------------------------------------------------------------------

def title_of(summary: dict[str, Any]) -> str:
    agents = sorted({s.get("agent") for s in summary.get("seats") or [] if s.get("agent")})
    players = summary.get("players")
    parts = [f"{summary.get('game') or 'game'}", f"{players} players" if players else "",
             " vs ".join(agents) if agents else ""]
    return ", ".join(p for p in parts if p)


def overview(summary: dict[str, Any]) -> str:
    options = summary.get("options") or {}
    opts = ", ".join(f"{k}={v}" for k, v in options.items()) or "none"
    games, requested, jobs = summary.get("games"), summary.get("requested"), summary.get("jobs")
    played = f"{num(games)} games" + (f" of {num(requested)} asked for" if requested not in (None, games) else "")
    procs = f", {jobs} process{'es' if jobs != 1 else ''}" if jobs else ""
    return para(f"{played} from {summary.get('rules') or 'the rules'}; options: {opts}; "
                f"first seed {summary.get('seed', DASH)}; {num(summary.get('seconds'))} s "
                f"({num(summary.get('games_per_second'))} games a second{procs})", "lead")


def warnings(summary: dict[str, Any]) -> str:
    """What a designer should look at first: games that failed, stopped runs, rules never used."""
    out = []
    failed = summary.get("failed") or []
    if failed:
        seeds = ", ".join(str(f.get("seed")) for f in failed[:10]) + (" ..." if len(failed) > 10 else "")
        out.append(f"{len(failed)} game(s) failed (seeds {seeds}); they are left out of every statistic.")
    if summary.get("interrupted"):
        out.append("The run was stopped early: these are the games finished by then.")
    unused = summary.get("unexercised") or {}
    labels = {
        "actions_never_legal": "Actions never legal in any game",
        "actions_never_taken": "Actions never taken",
        "items_always_zero": "Scoring items that scored nothing in every game",
        "triggers_never_fired": "Triggers that never fired",
    }
    for key, label in labels.items():
        names = unused.get(key) or []
        if names:
            out.append(f"{label}: {', '.join(map(str, names))}.")
    if out:
        return ('<div class="warn"><strong>Check first</strong><ul>' + "".join(f"<li>{esc(w)}</li>" for w in out)
                + "</ul>A rule no game reached is untested by these games, or cannot be reached at all.</div>")
    checked = {"actions_never_legal": "every action was legal", "actions_never_taken": "every action was taken",
               "items_always_zero": "every scoring item scored", "triggers_never_fired": "every trigger fired"}
    done = [text for key, text in checked.items() if isinstance(unused.get(key), list)]
    if done:
        return f'<div class="ok">In some game {esc(", ".join(done))}.</div>'
    return ""


def seats_section(summary: dict[str, Any], ids: Ids) -> str:
    seats = summary.get("seats") or []
    fair = plots.fair_share(summary)
    rows = [[s.get("seat"), s.get("agent"), num(s.get("wins")), num(s.get("shared")),
             f"{pct(s.get('win_rate'), 1)} ({interval(s.get('win_interval'), lambda x: pct(x, 1))})",
             against_fair(s.get("win_rate"), s.get("win_interval"), fair),
             f"{num(s.get('mean_total'))} ({interval(s.get('mean_interval'))})", num(s.get("sd_total"))]
            for s in seats]
    caption = ("Bars: each seat's share of games won outright (ties not counted). Black lines: where the true "
               "share lies, 95 times in 100. Dashed line: the share every seat would win in a fair game (of the "
               "games with one winner: a tie is nobody's win). "
               "A bar whose line misses the dashed line wins more, or less, than chance explains.")
    return ("<h3>Who wins</h3>" + figure(plots.win_rates(summary, ids()), caption)
            + table(["seat", "agent", "wins", "tied first", "win rate (95% interval)", "against fair share",
                     "mean total (95% interval)", "sd"], rows))


def scores_section(summary: dict[str, Any], ids: Ids) -> str:
    outcomes = summary.get("outcomes") or {}
    m = summary.get("margin") or {}
    text = (f"{pct(outcomes.get('decisive'))} of games have one winner, {pct(outcomes.get('ties'))} end in a tie "
            f"for first. Winners lead the runner-up by {num(m.get('mean'))} on average "
            f"(95% interval {interval(m.get('interval'))}), in the ranking's first measure (fewer points "
            "where the fewest win).")
    box = ("Boxes: the middle half of games' final totals, the line in each the median, the diamond the mean. "
           "Whiskers reach from the 10th to the 90th percentile; the short dashes mark the lowest and highest "
           "totals seen.")
    return ("<h3>Scores</h3>" + figure(plots.scores(summary, ids()), box) + para(text)
            + figure(plots.margin(summary, ids()), "How close games are: a tall bar near zero means tight finishes; "
                     "a long tail means runaway wins. Ties are not counted."))


def items_section(summary: dict[str, Any], ids: Ids) -> str:
    seats = [s for s in summary.get("seats") or [] if s.get("items")]
    if not seats:
        return ""
    names = list(dict.fromkeys(n for s in seats for n in s["items"]))
    rows = [[name] + [f"{num((s['items'].get(name) or {}).get('mean'))} "
                      f"({pct((s['items'].get(name) or {}).get('zero_share'))} at 0)" for s in seats] for name in names]
    caption = ("Each scoring item's mean points per game, one bar per seat, with its 95% interval. An item far "
               "larger than the rest decides most games; one near zero barely matters.")
    return ("<h3>Where the points come from</h3>" + figure(plots.items(summary, ids()), caption)
            + table(["item"] + [f"{s.get('seat')}: mean (games at 0)" for s in seats], rows))


def length_section(summary: dict[str, Any], ids: Ids) -> str:
    length = summary.get("length") or {}
    rows = []
    for key, label in (("decisions", "decisions"), ("turns", "turns (changes of player)"), ("rounds", "rounds")):
        st = length.get(key)
        if isinstance(st, dict):
            q = st.get("quantiles") or {}
            rows.append([label, num(st.get("mean")), num(st.get("min")), num(q.get("median")), num(st.get("max"))])
    if not rows:
        rows.append(["decisions", num(length.get("mean")), num(length.get("min")), DASH, num(length.get("max"))])
    br = summary.get("branching") or {}
    bq = br.get("quantiles") or {}
    choice = (f"At a decision a player chooses among {num(br.get('mean'))} legal actions on average "
              f"(median {num(bq.get('median'))}, at most {num(br.get('max'))}).") if br else ""
    for name, st in (summary.get("measures") or {}).items():
        if name != "rounds":
            q = st.get("quantiles") or {}
            rows.append([f"{name} (a measure of the rules)", num(st.get("mean")), num(st.get("min")),
                         num(q.get("median")), num(st.get("max"))])
    return ("<h3>How long games last</h3>"
            + figure(plots.lengths(summary, ids()), "How many decisions a game takes, game by game. "
                     "A wide spread means some games drag on far longer than others.")
            + table(["measure", "mean", "shortest", "median", "longest"], rows) + (para(choice) if choice else ""))


def first_player_section(summary: dict[str, Any]) -> str:
    fp = summary.get("first_player") or {}
    if not fp:
        return ""
    counts = fp.get("seat counts") or {}
    fair = plots.fair_share(summary)  # of the games with one winner, like the first player's outright wins
    verdict = against_fair(fp.get("win_rate"), fp.get("interval"), fair)
    adv = None if fp.get("win_rate") is None or fair is None else fp["win_rate"] - fair
    text = (f"The player who makes the first decision wins {pct(fp.get('win_rate'), 1)} of games outright "
            f"(95% interval {interval(fp.get('interval'), lambda x: pct(x, 1))}); a fair share is {pct(fair, 1)}, "
            f"so going first is worth {DASH if adv is None else f'{adv * 100:+.1f}'} percentage points: "
            f"{verdict}.")
    return ("<h3>Who goes first</h3>" + para(text)
            + (table(["seat", "games it went first"], [[k, num(v)] for k, v in counts.items()]) if counts else ""))


def actions_section(summary: dict[str, Any]) -> str:
    actions = summary.get("actions") or {}
    if not actions:
        return ""
    unused = summary.get("unexercised") or {}
    flagged = set(unused.get("actions_never_legal") or []) | set(unused.get("actions_never_taken") or [])
    names = sorted(actions, key=lambda n: (-(actions[n].get("taken") or 0), n))
    rows = [[n, num(actions[n].get("taken")), pct(actions[n].get("share"), 1), pct(actions[n].get("legal_share"), 1)]
            for n in names]
    out = ("<h3>Actions</h3>" + para("How often each action was taken, its share of all decisions, and the share "
                                     "of decisions where it was legal. Highlighted: never legal or never taken.")
           + table(["action", "taken", "share of choices", "legal at"], rows,
                   lambda k: "flag" if names[k] in flagged else ""))
    choices = summary.get("choices") or {}
    if choices:
        out += ("<details><summary>The most common choices, as players saw them</summary>"
                + table(["choice", "times taken"], [[c, num(n)] for c, n in choices.items()]) + "</details>")
    return out


def summary_section(summary: dict[str, Any], ids: Ids, heading: str | None = None) -> str:
    """Everything about one run: warnings first, then who wins, scores, items, length, actions."""
    return (f"<section><h2>{esc(heading or title_of(summary))}</h2>" + overview(summary) + warnings(summary)
            + seats_section(summary, ids) + scores_section(summary, ids) + items_section(summary, ids)
            + length_section(summary, ids) + first_player_section(summary) + actions_section(summary)
            + "</section>")


# 4. Comparison and skill -------------------------------------------------------------------------

def comparison_section(comparison: dict[str, Any], ids: Ids) -> str:
    a, b = comparison.get("a") or {}, comparison.get("b") or {}
    diffs = comparison.get("differences") or []
    changed = sum(1 for d in diffs if d.get("verdict") == "changed")
    seeds = ("Both ran the same seeds, so differences come from the rules, not the shuffle."
             if comparison.get("same_seeds") else "The two ran different seeds.")
    lead = (f"A: {a.get('rules', DASH)}{_options(a)}. B: {b.get('rules', DASH)}{_options(b)}. {seeds} "
            f"{changed} of {len(diffs)} statistics changed beyond chance (95% interval of the difference "
            "excluding zero).")
    only = [f"Scoring items only in {side.upper()}: {', '.join(map(str, comparison[f'only_in_{side}']))}."
            for side in ("a", "b") if comparison.get(f"only_in_{side}")]
    rows = [[d.get("statistic"), _value(d, "a"), _value(d, "b"), _value(d, "difference", signed=True),
             interval(d.get("interval"), _fmt_for(d)), d.get("verdict", DASH)] for d in diffs]
    caption = ("Each seat's share of games won under A (left) and B (right), with 95% intervals; the dashed "
               "line is the fair share.")
    return ("<section><h2>What changed from A to B</h2>" + para(lead, "lead") + "".join(para(o) for o in only)
            + figure(plots.compare_win_rates(a, b, ids()), caption)
            + figure(plots.rate_changes(comparison, ids()), "Each share's change from A to B, with its 95% "
                     "interval. A dot whose line crosses the dashed zero line may have moved by chance alone.")
            + table(["statistic", "A", "B", "B − A", "95% interval of B − A", "verdict"], rows,
                    lambda k: "flag" if diffs[k].get("verdict") == "changed" else "")
            + "</section>")


def _options(s: dict[str, Any]) -> str:
    opts = s.get("options") or {}
    return " (" + ", ".join(f"{k}={v}" for k, v in opts.items()) + ")" if opts else ""


def _is_rate(d: dict[str, Any]) -> bool:
    """A share shown as a percentage: the row's `kind`, or its name when it has none."""
    if "kind" in d:
        return d["kind"] == "rate"
    return "rate" in str(d.get("statistic", "")) or "share" in str(d.get("statistic", ""))


def _fmt_for(d: dict[str, Any]) -> Callable[[Any], str]:
    return (lambda x: pct(x, 1)) if _is_rate(d) else num


def _value(d: dict[str, Any], key: str, signed: bool = False) -> str:
    x = d.get(key)
    if x is None or not signed:
        return _fmt_for(d)(x)
    text = _fmt_for(d)(abs(x))
    if text == _fmt_for(d)(0.0):
        return text
    return ("+" if x > 0 else "−") + text


def skill_trend(skill: dict[str, Any]) -> str:
    """In words: does the strongest budget win clearly more often than the weakest?"""
    ivs = [iv for iv in skill.get("interval") or [] if iv and None not in iv]
    if len(ivs) < 2 or len(ivs) != len(skill.get("budgets") or []):
        return ""
    weakest, strongest = ivs[0], ivs[-1]
    if strongest[0] > weakest[1]:
        return "Stronger agents win more often: skill is rewarded."
    if strongest[1] < weakest[0]:
        return "Stronger agents win less often: more search hurts here, which is worth a look."
    return ("More search does not clearly win more often: luck may decide more than skill, "
            "or the budgets are too close to tell.")


def skill_section(skill: dict[str, Any], ids: Ids, fair: float | None) -> str:
    fair = skill.get("fair", fair)
    trend = skill_trend(skill)
    rows = [[num(bud), pct(r, 1), interval(iv, lambda x: pct(x, 1))]
            for bud, r, iv in zip(skill.get("budgets") or [], skill.get("win_rate") or [],
                                  skill.get("interval") or [None] * len(skill.get("budgets") or []))]
    caption = (f"The stronger agent's share of games won against {skill.get('against', 'the others')} as its "
               "search budget grows, with 95% intervals. A rising line means skill pays; a flat one, that "
               "luck decides. Dashed: the fair share.")
    return ("<section><h2>Skill: do stronger players win more?</h2>" + (para(trend, "lead") if trend else "")
            + figure(plots.skill_trace(skill, ids(), fair), caption)
            + table(["search budget", "win rate", "95% interval"], rows) + "</section>")


# 5. The document ------------------------------------------------------------------------------------

def render_report(summaries: list[dict[str, Any]], comparison: dict[str, Any] | None = None,
                  skill: dict[str, Any] | None = None) -> str:
    """The report as HTML text: the same input gives the same text.

    `summaries` are the runs shown one by one (`simulate`'s summary; for `compare`, A and B, taken
    from `comparison` when none are given); `comparison` adds the A-vs-B section; `skill` the skill
    trace ({"budgets", "win_rate", "interval", "against"}, optionally "fair")."""
    plots.figure_class()  # fail before any work when matplotlib is missing
    ids = Ids()
    runs = list(summaries)
    if not runs and comparison:
        runs = [s for s in (comparison.get("a"), comparison.get("b")) if s]
    first = runs[0] if runs else (comparison or {}).get("a") or {}
    game = first.get("game") or "game"
    parts = []
    if comparison:
        parts.append(comparison_section(comparison, ids))
    headings: list[str | None] = [None] * len(runs)
    if comparison and len(runs) == 2:
        headings = [f"A: {title_of(runs[0])}", f"B: {title_of(runs[1])}"]
    parts += [summary_section(s, ids, h) for s, h in zip(runs, headings)]
    if skill:
        parts.append(skill_section(skill, ids, plots.fair_share(first) if first else None))
    what = "comparison" if comparison else "simulation"
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{POLICY}\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{esc(game)}: balance "
            f"report</title><style>{CSS}</style></head><body><main>"
            f"<h1>{esc(game)}: balance report</h1>"
            + para(f"A {what} of games between automatic players, made by ruleforge. Intervals are 95%: the true "
                   "value lies inside 95 times in 100. Warnings (yellow) point at rules no game exercised.", "lead")
            + "".join(parts) + "</main></body></html>\n")


def write_report(path: str | Path, summaries: list[dict[str, Any]], comparison: dict[str, Any] | None = None,
                 skill: dict[str, Any] | None = None) -> None:
    """Render the report and write it to `path` (UTF-8); a GameError names a path it cannot write."""
    text = render_report(summaries, comparison, skill)
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as e:
        raise GameError(f"cannot write the report {path}: {e.strerror or e}") from e
