"""The HTML balance report: self-contained, deterministic, its plots drawing the numbers given,
and drawn for real in headless Chromium.

Most summaries are fixtures written to the balance spec's shapes (tests/balance/; invented,
mutually consistent numbers): a three-seat game A, a variant B of it, their comparison, and a
skill trace. One test renders real ones, from `simulate --json` and `compare --json`.
"""

from __future__ import annotations

import copy
import html
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ruleforge.diagnostics import GameError

try:
    import matplotlib  # noqa: F401
except ImportError:
    if os.environ.get("CI"):
        raise  # CI installs the dev extra, which has it
    pytest.skip("the report needs matplotlib: pip install -e '.[dev]'", allow_module_level=True)

from ruleforge.balance import plots  # noqa: E402
from ruleforge.balance.report import render_report, write_report  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "balance"
COMPARISON = json.loads((FIXTURES / "comparison.json").read_text())
SKILL = json.loads((FIXTURES / "skill.json").read_text())
SUMMARY = COMPARISON["a"]
SVG = re.compile(r"<svg\b.*?</svg>", re.S)


def svgs(text: str) -> list[str]:
    return SVG.findall(text)


def titled(text: str, title: str) -> str:
    """The one plot whose title starts with `title`."""
    found = [s for s in svgs(text) if re.search(rf"<title[^>]*>{re.escape(title)}", s)]
    assert len(found) == 1, title
    return found[0]


def empty_summary() -> dict[str, Any]:
    """What a run that finished no game reports: every statistic null (the spec's `-`)."""
    seat = {"seat": "P1", "agent": "random", "wins": 0, "shared": 0, "win_rate": None, "win_interval": None,
            "tie_rate": None, "mean_total": None, "sd_total": None, "mean_interval": None,
            "quantiles": None, "histogram": None, "items": {}}
    return {"rules": "x.rules", "game": "Empty", "players": 2, "options": {}, "seed": 1, "requested": 5,
            "games": 0, "interrupted": True, "failed": [{"seed": 4, "error": "boom"}], "seconds": 0.0,
            "games_per_second": None, "jobs": 1, "seats": [seat, {**seat, "seat": "P2"}],
            "outcomes": {"decisive": None, "ties": None},
            "margin": {"mean": None, "interval": None, "quantiles": None, "histogram": None},
            "first_player": {"seat counts": {}, "win_rate": None, "interval": None, "fair": 0.5, "advantage": None},
            "length": {"decisions": {"mean": None, "min": None, "max": None, "quantiles": None, "histogram": None},
                       "turns": None, "rounds": None, "mean": None, "min": None, "max": None},
            "branching": {"mean": None, "max": None, "quantiles": None}, "actions": {}, "choices": {},
            "unexercised": {"actions_never_legal": [], "actions_never_taken": [], "items_always_zero": [],
                            "triggers_never_fired": []}}


# 1. The file ------------------------------------------------------------------------------------

def test_same_input_same_bytes_even_in_another_process() -> None:
    first = render_report([SUMMARY], None, SKILL)
    assert render_report([copy.deepcopy(SUMMARY)], None, copy.deepcopy(SKILL)) == first
    code = ("import json, sys; from ruleforge.balance.report import render_report; "
            "c = json.load(open(sys.argv[1])); s = json.load(open(sys.argv[2])); "
            "sys.stdout.write(render_report([c['a']], None, s))")
    env = {**os.environ, "PYTHONHASHSEED": "12345", "PYTHONPATH": str(ROOT)}
    other = subprocess.run([sys.executable, "-c", code, str(FIXTURES / "comparison.json"),
                            str(FIXTURES / "skill.json")], capture_output=True, text=True, env=env, check=True,
                           timeout=120)
    assert other.stdout == first


def test_self_contained_with_unique_ids() -> None:
    text = render_report([], COMPARISON, SKILL)
    assert not re.search(r"<script|<link|<img|<iframe|@import|\bsrc=", text, re.I)
    addresses = set(re.findall(r"https?://[^\s\"')]+", text))
    assert addresses <= {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}
    ids = re.findall(r'\bid="([^"]+)"', text)
    assert len(ids) == len(set(ids)), "ids repeat across the inline SVGs"
    refs = set(re.findall(r'(?:href="#|url\(#)([^")]+)', text))
    assert refs and refs <= set(ids), refs - set(ids)


def test_a_simulation_report_has_every_plot_and_table() -> None:
    text = render_report([SUMMARY], None, SKILL)
    titles = [re.search(r"<title[^>]*>([^<]*)", s).group(1) for s in svgs(text)]
    assert titles == [
        "Who wins: share of games won by each seat",
        "Scores: final totals per seat",
        "Margin of victory: the winner's lead over the runner-up",
        "Where the points come from: each scoring item's mean per seat",
        "Game length: decisions per game",
        "Skill: does more search win more often?",
    ]
    for s in svgs(text):
        assert s.count("<path") > 10  # drawn, not an empty frame
    p1 = SUMMARY["seats"][0]
    lo, hi = p1["win_interval"]
    assert f"<td>{p1['win_rate'] * 100:.1f}% ({lo * 100:.1f}% – {hi * 100:.1f}%)</td>" in text
    warn = re.search(r'<div class="warn">(.*?)</div>', text, re.S).group(1)
    for names in SUMMARY["unexercised"].values():
        for name in names:
            assert name in warn
    flagged = re.findall(r'<tr class="flag"><td>([^<]*)</td>', text)
    assert flagged == ["discard all", "swap"]  # never taken: highlighted in the actions table
    assert "Stronger agents win more often" in text


def test_a_comparison_report_shows_a_against_b_and_the_verdicts() -> None:
    text = render_report([], COMPARISON)
    assert text.index("What changed from A to B") < text.index("A: Fixture Game") < text.index("B: Fixture Game")
    assert len(svgs(text)) == 2 + 2 * 5
    changed = [d["statistic"] for d in COMPARISON["differences"] if d["verdict"] == "changed"]
    assert changed and len(changed) < len(COMPARISON["differences"])
    rows = re.findall(r'<tr class="flag"><td>([^<]*)</td>', text.split("<h2>A: Fixture Game")[0])
    assert rows == changed
    assert f"{len(changed)} of {len(COMPARISON['differences'])} statistics changed" in text


def bar_heights(svg: str, colour: str) -> list[float]:
    """The heights of the bars filled with `colour`, in drawing order (a legend's swatch last)."""
    heights = []
    for path in re.findall(rf'<path d="([^"]*)"[^>]*style="fill: {colour}', svg):
        ys = [float(y) for y in re.findall(r"[ML] [-\d.]+ ([-\d.]+)", path)]
        heights.append(max(ys) - min(ys))
    return heights


def test_win_rate_bars_are_drawn_to_scale() -> None:
    svg = titled(render_report([SUMMARY]), "Who wins: share")
    rates = [s["win_rate"] for s in SUMMARY["seats"]]
    heights = [bar_heights(svg, colour)[0] for colour in plots.SEAT_COLOURS[:3]]
    for h, r in zip(heights, rates):
        assert h / heights[0] == pytest.approx(r / rates[0], rel=1e-3)


def test_with_ties_the_fair_share_is_of_the_games_with_one_winner() -> None:
    """Three equal seats and 10% ties: each wins 30% outright, which is fair, not below 1 in 3."""
    summary = copy.deepcopy(SUMMARY)
    summary["outcomes"] = {"decisive": 0.9, "ties": 0.1}
    for seat in summary["seats"]:
        seat["win_rate"], seat["win_interval"] = 0.3, [0.27, 0.33]
    text = render_report([summary])
    assert text.count("<td>within chance of fair</td>") == 3 and "less than fair" not in text
    svg = titled(text, "Who wins: share")
    dashed = re.findall(r'<path d="M \S+ (\S+)\s+L \S+ (\S+)\s*"[^>]*stroke-dasharray', svg)
    bar = re.search(rf'<path d="([^"]*)"[^>]*style="fill: {plots.SEAT_COLOURS[0]}', svg).group(1)
    top = min(float(y) for y in re.findall(r"[ML] [-\d.]+ ([-\d.]+)", bar))
    assert [float(y) for y in dashed[0]] == pytest.approx([top, top], abs=0.01)  # the line meets the bars


def test_comparison_bars_show_a_and_b_to_scale() -> None:
    svg = titled(render_report([], COMPARISON), "Who wins, A against B")
    a, b = bar_heights(svg, plots.A_COLOUR)[:3], bar_heights(svg, plots.B_COLOUR)[:3]
    rates_a = [s["win_rate"] for s in COMPARISON["a"]["seats"]]
    rates_b = [s["win_rate"] for s in COMPARISON["b"]["seats"]]
    for ha, hb, ra, rb in zip(a, b, rates_a, rates_b):
        assert hb / a[0] == pytest.approx(rb / rates_a[0], rel=1e-3)
        assert ha / a[0] == pytest.approx(ra / rates_a[0], rel=1e-3)
    assert b[0] > a[0] and b[1] < a[1]  # the variant helps P1 at P2's cost


def test_real_summaries_from_simulate_and_compare() -> None:
    """The report reads what the commands print, not only the hand-made fixtures."""
    from click.testing import CliRunner

    from ruleforge.cli import main

    unused = str(ROOT / "tests" / "synthetic" / "unexercised.rules")  # rules no game reaches
    ran = CliRunner().invoke(main, ["simulate", unused, "-n", "30", "--seed", "5", "--json"])
    assert ran.exit_code == 0, ran.output
    summary = json.loads(ran.output)
    text = render_report([summary])
    assert len(svgs(text)) == 5  # win rates, scores, margin, items, length
    for seat in summary["seats"]:
        assert f"<td>{seat['seat']}</td><td>{seat['agent']}</td><td>{seat['wins']}</td>" in text
    warn = re.search(r'<div class="warn">(.*?)</div>', text, re.S).group(1)
    never = [name for names in summary["unexercised"].values() for name in names or []]
    assert len(never) >= 4 and all(html.escape(name) in warn for name in never)
    rules = str(ROOT / "tests" / "synthetic" / "hagakure_short.rules")
    ran = CliRunner().invoke(main, ["compare", rules, rules, "-n", "30", "--players", "3", "--json"])
    assert ran.exit_code == 0, ran.output
    comparison = json.loads(ran.output)
    text = render_report([], comparison)
    assert len(svgs(text)) == 2 + 2 * 5
    head = text.split("<h2>A: ")[0]
    assert " 0 of " in head  # the same rules on the same seeds: nothing changed
    assert '<tr class="flag">' not in head and "<tr>" in head


def trace_heights(svg: str, colour: str) -> list[float]:
    """The heights of the points of the one drawn line through five points in `colour`."""
    lines = [d for d in re.findall(rf'<path d="([^"]*)"[^>]*style="[^"]*stroke: {colour}', svg) if d.count("L") == 4]
    assert len(lines) == 1
    return [-float(y) for y in re.findall(r"[ML] [-\d.]+ ([-\d.]+)", lines[0])]  # SVG's y grows downwards


def test_the_skill_trace_says_whether_skill_pays() -> None:
    text = render_report([SUMMARY], None, SKILL)
    assert "skill is rewarded" in text
    heights = trace_heights(titled(text, "Skill: does more search"), "#c44e52")
    assert heights == sorted(heights) and heights[0] < heights[-1]
    rates = SKILL["win_rate"]
    rises = [(b - a) / (heights[-1] - heights[0]) for a, b in zip(heights, heights[1:])]
    assert rises == pytest.approx([(b - a) / (rates[-1] - rates[0]) for a, b in zip(rates, rates[1:])], rel=1e-3)

    flat = {**SKILL, "win_rate": [0.5] * 5, "interval": [[0.45, 0.55]] * 5}
    text = render_report([SUMMARY], None, flat)
    assert "does not clearly win more often" in text and "skill is rewarded" not in text
    assert len(set(trace_heights(titled(text, "Skill: does more search"), "#c44e52"))) == 1


def test_a_run_with_no_finished_game_reports_dashes_not_plots() -> None:
    text = render_report([empty_summary()])
    assert svgs(text) == []
    assert "<td>–</td>" in text
    assert "1 game(s) failed (seeds 4)" in text and "stopped early" in text


def test_missing_matplotlib_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` now raises ImportError
    target = tmp_path / "r.html"
    with pytest.raises(GameError, match=re.escape("--report needs matplotlib: pip install 'ruleforge[report]'")):
        write_report(target, [SUMMARY])
    assert not target.exists()


def test_an_unwritable_path_is_a_game_error(tmp_path: Path) -> None:
    with pytest.raises(GameError, match="cannot write the report"):
        write_report(tmp_path / "no" / "such" / "folder" / "r.html", [SUMMARY])


# 2. In a real browser ------------------------------------------------------------------------------

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars", "--force-device-scale-factor=1"]
WIDTH = 1100
MEASURE = """<script>
const plots = [...document.querySelectorAll('svg.plot')].map(s => {
  const b = s.getBoundingClientRect();
  return {x: b.left + scrollX, y: b.top + scrollY, w: b.width, h: b.height,
          paths: s.querySelectorAll('path').length};
});
document.body.dataset.plots = JSON.stringify(plots);
document.body.dataset.height = document.documentElement.scrollHeight;
</script>"""


def chromium() -> str:
    """The browser, or a skip (a failure on CI, whose .ci/run installs it)."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if path := shutil.which(name):
            return path
    if os.environ.get("CI"):
        pytest.fail("Chromium is missing on CI: .ci/run should have installed it (apt-get install chromium)")
    pytest.skip("Chromium is not installed (apt-get install chromium); CI installs it and runs this test")


def browse(browser: str, profile: Path, *args: str) -> str:
    ran = subprocess.run([browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args],
                         capture_output=True, text=True, timeout=180)
    assert ran.returncode == 0, ran.stderr[-2000:]
    return ran.stdout


def test_the_plots_are_drawn_in_headless_chromium(tmp_path: Path) -> None:
    Image = pytest.importorskip("PIL.Image", reason="Pillow comes with matplotlib")
    browser = chromium()
    report = tmp_path / "report.html"
    write_report(report, [], COMPARISON, SKILL)
    expected = len(svgs(report.read_text(encoding="utf-8")))
    assert expected == 2 + 2 * 5 + 1

    # Where the browser laid each plot out, measured by a copy of the page with a script added (and
    # without the page's Content-Security-Policy, which forbids every script); the picture below is
    # of the report itself, policy and all.
    probe = tmp_path / "probe.html"
    measured = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", report.read_text(encoding="utf-8"))
    probe.write_text(measured.replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    dom = browse(browser, tmp_path / "profile1", f"--window-size={WIDTH},1000", "--dump-dom", probe.as_uri())
    found = re.search(r'data-plots="([^"]*)"', dom)
    assert found, "the page did not run its measuring script"
    laid_out = json.loads(html.unescape(found.group(1)))
    height = int(re.search(r'data-height="(\d+)"', dom).group(1))
    assert len(laid_out) == expected
    for box in laid_out:
        assert box["w"] > 600 and box["h"] > 150 and box["paths"] > 10, box

    # The report itself, as a picture: every plot's box holds drawing, in colour.
    shot = tmp_path / "report.png"
    browse(browser, tmp_path / "profile2", f"--window-size={WIDTH},{height}", f"--screenshot={shot}", report.as_uri())
    image = Image.open(shot).convert("RGB")
    assert image.size == (WIDTH, height)
    for k, box in enumerate(laid_out):
        region = image.crop((int(box["x"]), int(box["y"]), int(box["x"] + box["w"]), int(box["y"] + box["h"])))
        inked, coloured = ink(region)
        assert inked > 0.03, f"plot {k} looks blank ({inked:.1%} drawn)"
        assert coloured > 0.005, f"plot {k} has no coloured marks ({coloured:.2%})"
    # Above the first plot is text only: the colour check tells drawing from page.
    assert ink(image.crop((0, 0, WIDTH, int(laid_out[0]["y"]) - 5)))[1] == 0


def ink(region: Any) -> tuple[float, float]:
    """The shares of a picture's pixels that are drawn (not near white) and coloured (not grey)."""
    data = region.tobytes()
    pixels = [data[i:i + 3] for i in range(0, len(data), 3)]
    inked = sum(1 for p in pixels if min(p) < 200)
    coloured = sum(1 for p in pixels if max(p) - min(p) > 45)
    return inked / len(pixels), coloured / len(pixels)
