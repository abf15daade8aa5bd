"""The HTML report of `simulate --report` and `compare --report` carries its own strict
Content-Security-Policy: no script, no request of any kind, inline style only. Its texts come
from rules files and summaries anyone may write; they are escaped, and the policy is the wall
behind that. Read here from the file as written, then enforced by headless Chromium: the
report's own styles and plots pass, a script or an image slipped into it does not.
(tests/test_report.py takes the picture that shows every plot drawn under the policy.)"""

from __future__ import annotations

import html
import json
import re
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("matplotlib", reason="the report needs matplotlib: pip install -e '.[dev]'")

from click.testing import CliRunner  # noqa: E402
from test_report import chromium  # noqa: E402  (tests/ is on the path, as for every test module there)

from ruleforge.balance.report import render_report, write_report  # noqa: E402
from ruleforge.cli import main  # noqa: E402

ROOT = Path(__file__).parents[2]
FIXTURES = ROOT / "tests" / "balance"
COMPARISON = json.loads((FIXTURES / "comparison.json").read_text())
SKILL = json.loads((FIXTURES / "skill.json").read_text())
META = re.compile(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">')
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--enable-logging=stderr", "--v=0"]


def policy_of(text: str) -> dict[str, list[str]]:
    """The page's one policy, directive -> sources; it must come before anything it governs."""
    found = META.findall(text)
    assert len(found) == 1, found
    head = text[:text.index("</head>")]
    assert head.index("Content-Security-Policy") < head.index("<style") and "<body" not in head
    directives = [part.split() for part in html.unescape(found[0]).split(";") if part.strip()]
    return {words[0]: words[1:] for words in directives}


def test_a_report_forbids_every_script_and_request() -> None:
    text = render_report([], COMPARISON, SKILL)
    assert policy_of(text) == {"default-src": ["'none'"], "style-src": ["'unsafe-inline'"],
                               "base-uri": ["'none'"], "form-action": ["'none'"]}
    # what the policy allows is all the page needs: no script, no image, nothing fetched
    assert not re.search(r"<script|<img|<image|<iframe|<object|<embed|<link|\bsrc=|\son\w+=", text, re.I)
    assert set(re.findall(r'(?:href="|url\()([^#"][^")]*)', text)) == set()


def test_the_reports_simulate_and_compare_write_carry_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    rules = str(ROOT / "games" / "tictactoe.rules")
    for args in (["simulate", rules, "-n", "10", "--report", "s.html"],
                 ["compare", rules, rules, "-n", "10", "--report", "c.html"]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
    for name in ("s.html", "c.html"):
        assert policy_of((tmp_path / name).read_text(encoding="utf-8"))["default-src"] == ["'none'"]


def browse(page: Path, profile: Path) -> tuple[str, list[str]]:
    """The page's DOM after loading, and the policy violations the browser reported."""
    ran = subprocess.run([chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=180)
    assert ran.returncode == 0, ran.stderr[-2000:]
    return ran.stdout, [line for line in ran.stderr.splitlines() if "Content Security Policy" in line]


def test_chromium_applies_the_report_as_it_is_and_blocks_what_slips_in(tmp_path: Path) -> None:
    report = tmp_path / "report.html"
    write_report(report, [], COMPARISON, SKILL)
    dom, violations = browse(report, tmp_path / "profile1")
    assert violations == []  # every style and plot of the report is allowed
    assert dom.count('<svg class="plot"') == 13

    # a text that slipped through unescaped, as markup: the browser refuses to run or fetch it
    slipped = ('<script>document.body.dataset.ran = "yes"</script>'
               '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" onerror="document.body.dataset.ran = 1">')
    hostile = tmp_path / "hostile.html"
    hostile.write_text(report.read_text(encoding="utf-8").replace("<main>", "<main>" + slipped, 1), encoding="utf-8")
    dom, violations = browse(hostile, tmp_path / "profile2")
    assert "data-ran" not in dom
    assert any("Executing inline script violates" in line for line in violations), violations
    assert any("Loading the image" in line for line in violations), violations
