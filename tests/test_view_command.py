"""`ruleforge view`: a log as one self-contained HTML page, a position as SVG or HTML, and bad
input as one clear error line."""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from ruleforge.cli import main

ROOT = Path(__file__).resolve().parents[1]
NAISHI = str(ROOT / "games" / "naishi.rules")
NAKASENDO = str(ROOT / "games" / "nakasendo.rules")
EXAMPLE = str(ROOT / "docs" / "examples" / "naishi_example1.json")


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


class Checked(HTMLParser):
    """An HTML page read whole: its tags, each script's text, and the tags left open."""

    VOID = {"meta", "input", "br", "img", "link", "rect", "line", "circle"}

    def __init__(self, page: str) -> None:
        super().__init__()
        self.open: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self._in_script = False
        self.feed(page)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag not in self.VOID:
            self.open.append(tag)
        self._in_script = tag == "script"

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open[-1] == tag, (tag, self.open[-5:])
        self.open.pop()
        self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts.append(data)


@pytest.fixture(scope="module")
def logged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("view")
    log = folder / "game.json"
    result = run("play", NAKASENDO, "--players", "2", "--agents", "random", "--seed", "5", "--log", str(log))
    assert result.exit_code == 0, result.output
    return log


def test_a_log_becomes_one_self_contained_page(logged: Path) -> None:
    result = run("view", str(logged))
    assert result.exit_code == 0, result.output
    page_path = logged.with_suffix(".html")
    assert f"steps drawn: {page_path}" in result.stdout
    page = page_path.read_text(encoding="utf-8")
    checked = Checked(page)
    assert checked.open == []
    data = json.loads(next(s for s in checked.scripts if s.lstrip().startswith("{")))
    steps = json.loads(logged.read_text())["steps"]
    assert len(data["steps"]) == len(steps) + 1
    assert set(data["steps"][-1]["pictures"]) == {"table", "P1", "P2"}
    moves = [a for t, a in checked.tags if t == "li" and "data-step" in a]
    assert len(moves) == len(steps) + 1
    assert steps[0]["action"] in page
    for external in ("http://", "https://", "src=", "@import", "url("):
        assert external not in page, external
    assert "final scores" in "".join(data["fragments"])
    assert 'id="rf-slider"' in page and 'id="rf-mode"' in page


def test_the_page_is_written_again_but_never_over_the_log(logged: Path, tmp_path: Path) -> None:
    out = tmp_path / "again.html"
    assert run("view", str(logged), "-o", str(out), "--viewer", "P2").exit_code == 0
    assert run("view", str(logged), "-o", str(out)).exit_code == 0  # ours: replaced
    result = run("view", str(logged), "-o", str(logged))
    assert result.exit_code == 1 and "would overwrite the replay log" in result.stderr
    mine = tmp_path / "mine.html"
    mine.write_text("<p>my notes</p>")
    result = run("view", str(logged), "-o", str(mine))
    assert result.exit_code == 1 and "is not a picture written by ruleforge" in result.stderr
    assert mine.read_text() == "<p>my notes</p>"


def test_bad_input_is_one_line(logged: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    illegal = tmp_path / "illegal.json"
    data = json.loads(logged.read_text())
    data["steps"][3]["action"] = "fly to the moon"
    illegal.write_text(json.dumps(data))
    shutil.copy(NAKASENDO, tmp_path / "nakasendo.rules")
    cases = [((str(tmp_path / "missing.json"),), "cannot read"), ((str(broken),), "is not valid JSON"),
             ((str(illegal), "--rules", NAKASENDO), "step 4 of"),
             ((NAISHI, str(tmp_path / "missing.json")), "cannot read"),
             ((NAISHI, str(logged)), "is not a position nor a saved ruleforge state"),
             ((NAISHI, EXAMPLE, "--viewer", "P9"), "--viewer must be"),
             ((str(logged), NAISHI, EXAMPLE), "give a log")]
    for args, message in cases:
        result = run("view", *args)
        assert result.exit_code != 0, args
        assert "Traceback" not in result.output and message in result.stderr, (args, result.stderr)
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_a_position_becomes_an_svg_or_a_page(tmp_path: Path) -> None:
    svg = tmp_path / "example.svg"
    result = run("view", NAISHI, EXAMPLE, "-o", str(svg))
    assert result.exit_code == 0, result.output
    text = svg.read_text(encoding="utf-8")
    root = ET.fromstring(text.encode("utf-8"))
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert "Naishi" in text and 'data-zone="territory(P1)[1,1]"' in text
    page = tmp_path / "example.html"
    assert run("view", NAISHI, EXAMPLE, "-o", str(page), "--viewer", "P1").exit_code == 0
    html_text = page.read_text(encoding="utf-8")
    assert Checked(html_text).open == [] and 'data-viewer="P1"' in html_text and "<script" not in html_text
    result = run("view", NAISHI, EXAMPLE, "-o", EXAMPLE)
    assert result.exit_code == 1 and "would overwrite the position" in result.stderr


def test_score_explain_points_at_view() -> None:
    result = run("score", NAISHI, EXAMPLE, "--explain")
    assert result.exit_code == 0
    assert re.search(r"^For a picture: ruleforge view \S+naishi.rules \S+naishi_example1.json$", result.stdout, re.M)
    assert "ruleforge view" not in run("score", NAISHI, EXAMPLE).stdout
