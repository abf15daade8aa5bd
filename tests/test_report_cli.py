"""`--report FILE.html` on simulate and compare: the file is written after the games, and a
report that cannot be written (no matplotlib, a bad path) stops the command before any game."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ruleforge.cli import main

ROOT = Path(__file__).parents[1]


def run(*args: str) -> object:
    return CliRunner().invoke(main, list(args))


def test_simulate_writes_a_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    out = tmp_path / "r.html"
    result = run("simulate", "games/hagakure.rules", "-n", "40", "--report", str(out))
    assert result.exit_code == 0, result.output
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg") >= 4
    assert "Hagakure" in page and "Who wins" in page


def test_compare_writes_a_report_of_both_sides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    out = tmp_path / "c.html"
    result = run("compare", "games/hagakure.rules", "docs/examples/hagakure_short.rules", "-n", "40",
                 "--report", str(out))
    assert result.exit_code == 0, result.output
    page = out.read_text()
    assert "What changed from A to B" in page and "hagakure_short.rules" in page


def test_without_matplotlib_no_game_is_played(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    result = run("simulate", "games/hagakure.rules", "-n", "5", "--report", str(tmp_path / "r.html"))
    assert result.exit_code == 1
    assert "error: --report needs matplotlib: pip install 'ruleforge[report]'" in result.output
    assert "games" not in result.output  # stopped before playing: no summary
    assert not (tmp_path / "r.html").exists()


def test_an_unwritable_report_fails_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    result = run("compare", "games/hagakure.rules", "-n", "5", "--report", str(tmp_path / "no" / "r.html"))
    assert result.exit_code == 1
    assert result.output.startswith("error: ") and "report" in result.output
    assert "Traceback" not in result.output


def test_simulate_and_compare_leave_the_rules_and_a_users_file_alone(tmp_path: Path) -> None:
    rules = tmp_path / "pick.rules"
    shutil.copy(ROOT / "tests" / "synthetic" / "pick.rules", rules)
    text = rules.read_text()
    notes = tmp_path / "notes.html"
    notes.write_text("<p>my page</p>\n")
    same = str(tmp_path / "same.out")
    for args, message in [
        (("simulate", str(rules), "--records", str(rules)),
         f"the records file '{rules}' would overwrite the rules file"),
        (("simulate", str(rules), "--report", str(rules)), f"the report '{rules}' would overwrite the rules file"),
        (("compare", str(rules), "--report", str(rules)), f"the report '{rules}' would overwrite the rules file"),
        (("simulate", str(rules), "--report", same, "--records", same), "--records and --report name the same file"),
        (("simulate", str(rules), "--report", str(notes)),
         f"--report '{notes}': the file exists and is not a report written by ruleforge"),
        (("compare", str(rules), "--report", str(notes)), "is not a report written by ruleforge"),
        (("simulate", str(rules), "--records", str(notes)), "is not a records file written by ruleforge"),
    ]:
        result = run(*args, "-n", "3")
        assert result.exit_code == 1 and message in result.output, (args, result.output)
        assert "games/s" not in result.output  # refused before any game
    assert rules.read_text() == text and notes.read_text() == "<p>my page</p>\n"
    assert not Path(same).exists()
    report, records = tmp_path / "r.html", tmp_path / "r.jsonl"
    for command in ("simulate", "compare", "simulate"):  # ruleforge's own outputs are brought up to date
        more = ("--records", str(records)) if command == "simulate" else ()
        result = run(command, str(rules), "-n", "3", "--report", str(report), *more)
        assert result.exit_code == 0, result.output
    assert len(records.read_text().splitlines()) == 3 and "balance report" in report.read_text()


def test_a_skill_trace_goes_to_the_json_the_table_and_the_report(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    out = tmp_path / "s.html"
    args = ["simulate", "games/naishi.rules", "-n", "4", "--skill", "2,4", "--skill-games", "4"]
    data = json.loads(run(*args, "--json", "--report", str(out)).stdout)
    trace = data["skill"]
    assert trace["budgets"] == [2, 4] and trace["against"] == "random" and trace["fair"] == 0.5
    # mcts:2 and mcts:4 against random, then mcts:4 against mcts:2; each rate inside its interval
    assert [(m["agent"], m["opponent"], m["games"]) for m in trace["matches"]] == [
        ("mcts:2", "random", 4), ("mcts:4", "random", 4), ("mcts:4", "mcts:2", 4)]
    assert trace["win_rate"] == [m["rate"] for m in trace["matches"][:2]]
    assert all(m["low"] <= m["rate"] <= m["high"] for m in trace["matches"])
    assert "Skill: do stronger players win more?" in out.read_text()
    table = run(*args)
    assert table.exit_code == 0
    assert "skill: mcts:4 wins" in table.output and "against mcts:2 over 4 games" in table.output


@pytest.mark.parametrize("budgets", ["3", "a,b", "0,5"])
def test_bad_skill_budgets(budgets: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    result = run("simulate", "games/naishi.rules", "-n", "2", "--skill", budgets)
    assert result.exit_code == 1
    assert "error: --skill takes two or more search budgets" in result.output
