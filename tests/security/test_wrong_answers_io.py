"""Wrong answers and lost work in file handling: what a game computes is saved and loaded
alike, a log keeps its steps whatever the state holds, a report draws labels as written and
never costs the summary, and every line number is the parser's.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import ruleforge
from ruleforge import lexical
from ruleforge.balance import report as balance_report
from ruleforge.cli import main
from ruleforge.mutation import generate
from ruleforge.mutation.explained import Explanation, explain

ROOT = Path(__file__).parents[2]

SQUARING = """game "Squares"
players 2

var n: int = 2

flow {{
  repeat {rounds} {{
    for p in players {{
      turn p: grow
    }}
  }}
}}

action grow "grow" {{
  n = n * n
}}

scoring s for p {{ "n": 1 }}
ranking for p {{ 1 }}
"""


def ruleforge_run(folder: Path, *args: str, **limits: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), **limits}
    return subprocess.run([sys.executable, "-m", "ruleforge", *args], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=300)


# --- numbers the rules compute ------------------------------------------------------------------


def test_a_number_past_64_bits_is_saved_and_loaded_again(tmp_path: Path) -> None:
    (tmp_path / "squares.rules").write_text(SQUARING.format(rounds=4))  # 2 ** 256 at the end
    rules = ruleforge.load(tmp_path / "squares.rules")
    game = rules.new_game(2, seed=1)
    while not game.is_over:
        game.apply(game.legal_actions()[0])
    doc = json.loads(json.dumps(game.to_json()))
    assert 2 ** 256 in doc["state"]["v"]
    again = rules.load_game(doc)
    assert again.digest() == game.digest() and again.to_json() == doc
    (tmp_path / "end.json").write_text(json.dumps(doc))
    score = ruleforge_run(tmp_path, "score", "squares.rules", "end.json")
    assert score.returncode == 0, score.stderr


def test_a_number_squared_too_often_stops_at_its_rule_and_keeps_the_log(tmp_path: Path) -> None:
    (tmp_path / "squares.rules").write_text(SQUARING.format(rounds=7))  # 2 ** (2 ** 14): 4,933 digits
    proc = ruleforge_run(tmp_path, "play", "squares.rules", "--quiet", "--log", "game.json", "--save", "end.json")
    assert proc.returncode == 1
    assert proc.stderr.startswith("error: squares.rules:15:3: this makes a number of 1,233 digits (limit "
                                  "integer_digits = 1,000; raise it with RULEFORGE_MAX_INTEGER_DIGITS); the game so "
                                  "far (11 decisions) is saved in game.json\n")
    assert not (tmp_path / "end.json").exists()
    assert len(json.loads((tmp_path / "game.json").read_text())["steps"]) == 11


def test_a_number_past_4300_digits_keeps_the_log_and_refuses_the_state_clearly(tmp_path: Path) -> None:
    """With integer_digits raised past what a saved file may hold, the file is refused instead."""
    (tmp_path / "squares.rules").write_text(SQUARING.format(rounds=7))  # 2 ** (2 ** 14): 4,933 digits
    proc = ruleforge_run(tmp_path, "play", "squares.rules", "--quiet", "--log", "game.json", "--save", "end.json",
                         RULEFORGE_MAX_INTEGER_DIGITS="100000")
    assert proc.returncode == 1
    assert proc.stderr == ("error: cannot write state 'end.json': 'state' 'v' entry 0 holds a number of more than "
                           "4,300 digits, more than a saved file may hold\n")
    assert not (tmp_path / "end.json").exists()
    log = json.loads((tmp_path / "game.json").read_text())
    assert (len(log["steps"]), log["over"]) == (14, True)  # every step kept
    replay = ruleforge_run(tmp_path, "replay", "game.json", RULEFORGE_MAX_INTEGER_DIGITS="100000")
    assert (replay.returncode, replay.stdout) == (0, "replayed 14 steps: identical\n"), replay.stderr


def test_a_state_holding_a_number_too_long_for_json_is_refused_on_loading() -> None:
    rules = ruleforge.load(ROOT / "games" / "hagakure.rules")
    doc = rules.new_game(3, seed=1).to_json()
    doc["state"]["v"][0] = 10 ** 4300
    with pytest.raises(ruleforge.GameError, match="is too large: a number of more than 4,300 digits"):
        rules.load_game(doc)


# --- the balance report -------------------------------------------------------------------------


def dollar_rules(folder: Path) -> str:
    text = (ROOT / "tests" / "synthetic" / "pick.rules").read_text()
    text = text.replace('"tokens":', '"$\\frac{x$ and $y^2$":')  # not even valid mathtext
    (folder / "dollars.rules").write_text(text)
    return str(folder / "dollars.rules")


def test_a_label_with_dollars_is_drawn_as_written(tmp_path: Path) -> None:
    rules = dollar_rules(tmp_path)
    result = CliRunner().invoke(main, ["simulate", rules, "-n", "5", "--report", str(tmp_path / "r.html")])
    assert result.exit_code == 0, result.output
    assert "$\\frac{x$ and $y^2$" in result.stdout  # the summary
    html = (tmp_path / "r.html").read_text()
    assert "$\\frac{x$ and $y^2$" in html  # the table
    glyphs = set(re.findall(r'id="[^"]*?(DejaVuSans[-\w]*?-[0-9a-f]+)"', html))
    assert "DejaVuSans-7" in glyphs  # DejaVu Sans glyph 7 is "$": drawn as it is written ...
    assert not any("Oblique" in g or "Cmmi" in g or "Cmr" in g for g in glyphs)  # ... no mathtext italics


def test_a_report_that_fails_loses_no_summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> str:
        raise ruleforge.GameError("the plots could not be drawn")

    monkeypatch.setattr(balance_report, "render_report", broken)
    rules = dollar_rules(tmp_path)
    result = CliRunner().invoke(main, ["simulate", rules, "-n", "5", "--report", str(tmp_path / "r.html")])
    assert result.exit_code == 1
    assert "Pick: 5 games, 2 players, seeds 0..4" in result.stdout and "time:" in result.stdout
    assert result.stderr == "error: the plots could not be drawn\n"
    assert not (tmp_path / "r.html").exists()


# --- line numbers -----------------------------------------------------------------------------------

# Line breaks to str.splitlines that are none to the parser: whitespace between tokens.
ODD_BREAKS = "\f\v\x1c\x1d\x1e\x85\u2028\u2029"


def odd_rules(folder: Path) -> Path:
    text = (ROOT / "tests" / "synthetic" / "pick.rules").read_text()
    text = text.replace("players 2\n", f"players 2 {ODD_BREAKS}\n")
    path = folder / "odd.rules"
    path.write_text(text)
    return path


def test_mutants_are_numbered_by_the_parser_s_lines(tmp_path: Path) -> None:
    path = odd_rules(tmp_path)
    text = path.read_text()
    lines = lexical.lines(text)
    mutants = generate(ruleforge.load(path))
    assert mutants
    for m in mutants:
        assert lines[m.line - 1] == text[:m.start].rpartition("\n")[2] + text[m.start:].partition("\n")[0]
        removed = [d[1:] for d in lexical.lines(m.diff(text)) if d.startswith("-") and not d.startswith("---")]
        assert removed == [lines[m.line - 1]], m.diff(text)
        hunk = re.search(r"^@@ -(\d+)", m.diff(text), re.M)
        assert hunk and int(hunk.group(1)) in (m.line - 1, m.line)  # one line of context before it
    # a survivor explained by its line and source is found on that line
    m = mutants[-1]
    reason = Explanation(m.line, m.operator, m.what, lines[m.line - 1].strip(), "fine", 1)
    assert explain(mutants, text, [reason]) == {m.index: reason}


def test_diagnostics_count_lines_as_the_parser_does(tmp_path: Path) -> None:
    path = odd_rules(tmp_path)
    path.write_text(path.read_text().replace("ranking for p", "ranking for q"))
    result = CliRunner().invoke(main, ["check", str(path)])
    assert result.exit_code == 1
    line = lexical.lines(path.read_text()).index("ranking for q { score(p) }") + 1
    assert f"odd.rules:{line}:" in result.stderr and "    ranking for q { score(p) }\n" in result.stderr


# --- a grid sized by an option ------------------------------------------------------------------------

GRID = """game "Board"
players 2

option n: int = 3

kind Stone { label "stone" }
zone g: grid, size n by n
zone pool: pile, size n
zone bag: pile

components {
  4 of Stone() in bag
}

flow {
  for p in players {
    turn p: put
  }
}

action put(c in cells(g)) "put at {c}" {
  move top 1 of bag to c
}

scoring s for p { "cells": count(cells(g)) }
ranking for p { 1 }
"""


def test_a_grid_sized_by_an_option(tmp_path: Path) -> None:
    (tmp_path / "board.rules").write_text(GRID)
    result = CliRunner().invoke(main, ["check", str(tmp_path / "board.rules")])
    assert result.exit_code == 0, result.output
    game = ruleforge.load(tmp_path / "board.rules").new_game(2, seed=1, options={"n": 4})
    assert len(game.legal_actions()) == 16
