"""Survivors with a written reason (`foo.mutants.json`, ruleforge/mutation/explained.py): a
reason moves its survivor out of the list of gaps, a reason no longer needed is named, and a
file that cannot be read stops the run with every problem. On tests/synthetic/mutants.rules,
whose survivors tests/test_mutate.py works out by hand."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from ruleforge.cli import main

SYNTHETIC = Path(__file__).parent / "synthetic"
HOARD = 'zone hoard per player: pile, visible everyone, size 4'
REDS = '"reds": table reds(p) { 0: 0, 1: 2, 2+: 5 }'


def folder(tmp_path: Path, survivors: list[dict[str, Any]] | None) -> Path:
    for name in ("mutants.rules", "mutants.examples.json"):
        shutil.copy(SYNTHETIC / name, tmp_path / name)
    if survivors is not None:
        (tmp_path / "mutants.mutants.json").write_text(
            json.dumps({"format": "ruleforge-mutants/1", "survivors": survivors}), encoding="utf-8")
    return tmp_path / "mutants.rules"


def mutate(rules: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["mutate", str(rules), "--hint-seeds", "0", *args])


def reason(line: int, operator: str, change: str, source: str, why: str) -> dict[str, Any]:
    return {"line": line, "operator": operator, "change": change, "source": source, "reason": why}


EQUIVALENT_ZERO = reason(46, "table", "0: -> 0+:", REDS, "equivalent: an exact key wins over a + key")
EQUIVALENT_ONE = reason(46, "table", "1: -> 1+:", REDS, "equivalent: an exact key wins over a + key")


def test_a_written_reason_takes_its_survivor_out_of_the_gaps(tmp_path: Path) -> None:
    rules = folder(tmp_path, [EQUIVALENT_ZERO])
    ran = mutate(rules, "--operators", "table,number", "--json")
    assert ran.exit_code == 0, ran.output
    doc = json.loads(ran.stdout)
    reasons = {(s["line"], s["change"]): s["explained"] for s in doc["survivors"]}
    assert reasons[46, "0: -> 0+:"] == "equivalent: an exact key wins over a + key"
    assert reasons[46, "1: -> 1+:"] is None and reasons[16, "4 -> 3"] is None
    assert (doc["explained"], doc["unexplained"]) == (1, doc["survived"] - 1)
    assert doc["stale"] == []
    assert doc["score"] == round(100 * doc["caught"] / doc["run"], 2)  # a reason does not raise the score
    text = mutate(rules, "--operators", "table").stdout
    assert "survived: 2 (with a written reason: 1, without: 1)" in text
    gaps, reasoned = text.split("survivors with a written reason")
    assert "1: -> 1+:" in gaps and "0: -> 0+:" not in gaps
    assert f"({tmp_path / 'mutants.mutants.json'}):\n" in reasoned
    assert "0: -> 0+:  equivalent: an exact key wins over a + key" in reasoned


def test_fail_on_unexplained(tmp_path: Path) -> None:
    rules = folder(tmp_path, [EQUIVALENT_ZERO])
    assert mutate(rules, "--operators", "table", "--fail-on-unexplained").exit_code == 1
    rules = folder(tmp_path, [EQUIVALENT_ZERO, EQUIVALENT_ONE])
    ran = mutate(rules, "--operators", "table", "--fail-on-unexplained")
    assert ran.exit_code == 0, ran.output
    assert "survivors without a written reason" not in ran.stdout


def test_reasons_no_longer_needed_are_named(tmp_path: Path) -> None:
    caught = reason(46, "table", "2+: -> 2:", REDS, "left on purpose: no example has three reds")
    moved = reason(16, "number", "4 -> 9", HOARD, "equivalent: no hoard holds more than 4")
    rules = folder(tmp_path, [EQUIVALENT_ZERO, caught, moved])
    doc = json.loads(mutate(rules, "--operators", "table", "--json").stdout)
    assert [(s["entry"], s["why"]) for s in doc["stale"]] == [
        (2, f"{rules}:46:40 is caught now"),  # the `2+` of the table
        (3, "no mutant of the file matches it")]
    text = mutate(rules, "--operators", "table").stdout
    assert "written reasons no longer needed" in text
    assert "survivor #3 (line 16, number 4 -> 9): no mutant of the file matches it" in text


def test_a_reason_follows_its_line_when_lines_move(tmp_path: Path) -> None:
    rules = folder(tmp_path, [EQUIVALENT_ZERO])
    rules.write_text("# a comment that moves every line down\n" + rules.read_text(encoding="utf-8"), encoding="utf-8")
    doc = json.loads(mutate(rules, "--operators", "table", "--json").stdout)
    assert {(s["line"], s["explained"] is not None) for s in doc["survivors"]} == {(47, True), (47, False)}


def test_a_survivors_file_that_cannot_be_read(tmp_path: Path) -> None:
    rules = folder(tmp_path, [{"line": "46", "operator": "table", "change": "0: -> 0+:", "source": REDS,
                               "reason": "it is fine"}, {"line": 3, "reason": "equivalent: yes", "color": 1}])
    ran = mutate(rules)
    assert ran.exit_code == 1 and "Traceback" not in ran.output
    where = tmp_path / "mutants.mutants.json"
    assert f"{where}: survivor #1: line: wrong type" in ran.output
    assert f"{where}: survivor #2: missing operator, change, source; unknown key color" in ran.output
    (tmp_path / "mutants.mutants.json").write_text('{"format": "ruleforge-mutants/1", "survivors": [', "utf-8")
    ran = mutate(rules)
    assert ran.exit_code == 1 and f"{where}: cannot read it" in ran.output
    for text, why in [("[" * 100_000 + "]" * 100_000, "it nests lists or objects too deep"),
                      ('{"format": ' + "9" * 5000 + "}", "it has a number too long to be read")]:
        where.write_text(text, "utf-8")
        ran = mutate(rules)
        assert ran.exit_code == 1 and f"error: {where}: cannot read it: {why}" in ran.output, ran.output
    where.unlink()
    where.mkdir()  # a folder in its place is no "no reasons written"
    ran = mutate(rules)
    assert ran.exit_code == 1 and f"error: {where}: cannot read it: it is not a file" in ran.output
    where.rmdir()
    folder(tmp_path, [{**EQUIVALENT_ZERO, "reason": "because"}])
    assert "the reason must start with 'equivalent:', 'unreachable:', 'left on purpose:'" in mutate(rules).output


def test_a_reason_names_the_survivor_among_equal_changes_of_one_line() -> None:
    from ruleforge.mutation import Mutant, explained

    text = "def window = range(lo - 1, hi + 1)\n"
    mutants = [Mutant(k, "w.rules", "number", 1, col, col - 1, col, "2", "1 -> 2") for k, col in ((1, 25), (2, 33))]
    reason = explained.Explanation(1, "number", "1 -> 2", text.strip(), "equivalent: the margin is filtered", 1)
    assert list(explained.explain(mutants, text, [reason])) == [1]  # no results: the first on the line
    assert list(explained.explain(mutants, text, [reason], frozenset({2}))) == [2]  # the one that survived
