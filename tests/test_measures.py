"""`measure NAME = EXPR`: a number worked out at the end of every game for the statistics.
Checked on tests/synthetic/measures.rules (three rounds, each player takes a coin worth 1 to 3
from a pool worth 18), where each measure can be worked out from the game's own outcome."""

from __future__ import annotations

import json
import random
import statistics
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import ruleforge
from ruleforge.cli import main
from ruleforge.diagnostics import RulesError

SYNTHETIC = Path(__file__).parent / "synthetic"
MEASURES = SYNTHETIC / "measures.rules"
POOL_VALUE = 18  # three coins each of values 1, 2 and 3


def finished(rules: ruleforge.Rules, seed: int) -> ruleforge.Game:
    game = rules.new_game(2, seed=seed)
    rng = random.Random(seed)
    while not game.is_over:
        actions = game.legal_actions()
        game.apply(actions[rng.randrange(len(actions))])
    return game


def test_measures_are_worked_out_on_the_state() -> None:
    rules = ruleforge.load(MEASURES)
    game = rules.new_game(2, seed=1)
    assert game.measures() == {"rounds": 1, "value_left": POOL_VALUE}  # the first round has begun
    for seed in range(20):
        game = finished(rules, seed)
        assert game.measures() == {"rounds": 3, "value_left": POOL_VALUE - sum(game.totals())}


def checked(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "bad.rules"
    path.write_text(MEASURES.read_text(encoding="utf-8") + text, encoding="utf-8")
    with pytest.raises(RulesError) as caught:
        ruleforge.load(path)
    return [d.message for d in caught.value.diagnostics]


def test_a_measure_is_checked_like_any_expression(tmp_path: Path) -> None:
    assert checked(tmp_path, "measure rounds = 2\n") == [
        "measure 'rounds' is declared twice"]
    messages = checked(tmp_path, "measure flagged = rounds_played > 2\nmeasure lost = no_such_thing\n")
    assert len(messages) == 2
    assert "a measure" in messages[0] and "int" in messages[0]
    assert "unknown name 'no_such_thing'" in messages[1]


def test_a_measure_may_share_a_name_with_a_variable(tmp_path: Path) -> None:
    path = tmp_path / "same.rules"
    path.write_text(MEASURES.read_text(encoding="utf-8") + "measure rounds_played = rounds_played * 10\n",
                    encoding="utf-8")
    assert finished(ruleforge.load(path), 3).measures()["rounds_played"] == 30


def test_a_variant_adds_replaces_and_removes_measures(tmp_path: Path) -> None:
    variant = tmp_path / "variant.rules"
    variant.write_text(f'extends "{MEASURES}"\n'
                       "remove measure value_left\n"
                       "replace measure rounds = rounds_played * 2\n"
                       "measure coins_left = count(pool)\n", encoding="utf-8")
    game = finished(ruleforge.load(variant), 4)
    assert game.measures() == {"rounds": 6, "coins_left": 3}
    variant.write_text(f'extends "{MEASURES}"\nremove measure nothing\n', encoding="utf-8")
    with pytest.raises(RulesError, match="cannot remove measure 'nothing': the base has none"):
        ruleforge.load(variant)


def simulate(*args: str) -> dict[str, Any]:
    result = CliRunner().invoke(main, ["simulate", str(MEASURES), "--json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_simulate_reports_each_measure_and_rounds(tmp_path: Path) -> None:
    records = tmp_path / "games.jsonl"
    doc = simulate("-n", "40", "--seed", "3", "--records", str(records))
    games = [json.loads(line) for line in records.read_text().splitlines()]
    left = [POOL_VALUE - sum(g["scores"]) for g in games]
    assert [g["measures"] for g in games] == [{"rounds": 3, "value_left": v} for v in left]
    assert [g["rounds"] for g in games] == [3] * 40
    assert doc["length"]["rounds"]["mean"] == 3
    value = doc["measures"]["value_left"]
    assert value["mean"] == pytest.approx(statistics.fmean(left))
    assert (value["min"], value["max"]) == (min(left), max(left))
    assert value["interval"][0] < value["mean"] < value["interval"][1]
    table = CliRunner().invoke(main, ["simulate", str(MEASURES), "-n", "40", "--seed", "3"]).stdout
    assert f"value_left (measure): mean {statistics.fmean(left):.2f}" in table


def test_compare_finds_a_changed_measure(tmp_path: Path) -> None:
    variant = tmp_path / "richer.rules"
    variant.write_text(f'extends "{MEASURES}"\ngame "Richer"\ncomponents {{ Coin(value: 10) in pool }}\n',
                       encoding="utf-8")
    result = CliRunner().invoke(main, ["compare", str(MEASURES), str(variant), "-n", "60", "--json"])
    assert result.exit_code == 0, result.output
    rows = {row["statistic"]: row for row in json.loads(result.stdout)["differences"]}
    assert rows["mean rounds"]["difference"] == 0 and rows["mean rounds"]["verdict"] == "no evidence of change"
    assert rows["mean value_left"]["difference"] > 0 and rows["mean value_left"]["verdict"] == "changed"


def test_the_report_lists_the_measures(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    report = tmp_path / "r.html"
    result = CliRunner().invoke(main, ["simulate", str(MEASURES), "-n", "20", "--report", str(report)])
    assert result.exit_code == 0, result.output
    html = report.read_text(encoding="utf-8")
    assert "<td>value_left (a measure of the rules)</td>" in html and "<td>rounds</td>" in html
