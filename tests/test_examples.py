"""Scoring examples beside a rules file (ruleforge.testing) and `ruleforge test`.

The rules are tests/synthetic/stacks.rules, copied into a temporary folder with examples
beside it, and a variant of it. Its position docs/examples/stacks_position.json is worked
by hand in docs/positions.md: final scoring P1 15 (3 scored so far, tiles 5, flipped 2,
bears -1, marker worth 4, bright chips 2), P2 1 (tiles 1); `tally` P1 4 (snow 2, markers 2),
P2 4 (snow 4). The variant adds "chips": 1 per chip in the tray (P1 holds 2).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import ruleforge
from ruleforge.cli import main
from ruleforge.testing import ExamplesError, examples_of, run_example

ROOT = Path(__file__).parents[1]
POSITION = json.loads((ROOT / "docs" / "examples" / "stacks_position.json").read_text())
VARIANT = 'extends "stacks.rules"\ngame "Stacks with chips"\nextend scoring points for p {\n' \
          '  "chips": count(c for c in tray(p))\n}\n'


def example(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, "source": "ours", "position": "stacks_position.json", **fields}


def write_examples(path: Path, examples: list[dict[str, Any]], **extra: Any) -> Path:
    path.write_text(json.dumps({"format": "ruleforge-examples/1", "examples": examples, **extra}, indent=2))
    return path


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """stacks.rules and its position in a folder of their own, with two examples: the final
    scoring by hand, and the tally with values."""
    shutil.copy(ROOT / "tests" / "synthetic" / "stacks.rules", tmp_path / "stacks.rules")
    (tmp_path / "stacks_position.json").write_text(json.dumps(POSITION))
    write_examples(tmp_path / "stacks.examples.json", [
        example("final by hand", expect={"P1": {"scored so far": 3, "tiles": 5, "flipped": 2, "bears": -1,
                                                "marker worth": 4, "bright chips": 2, "total": 15},
                                         "P2": {"tiles": 1, "total": 1}}),
        example("tally", scoring="tally", expect={"P1": {"snow": 2, "markers": 2, "total": 4}, "P2": {"total": 4}},
                values={"player_count": 2, "P1": {"midway(p)": 3, "count(tray(p))": 2},
                        "P2": {"list(x for x in tray(p))": []}}),
    ])
    return tmp_path


def run(*args: str, cwd: Path) -> Any:
    """`ruleforge ARGS` from the folder `cwd` (paths in messages as a user there sees them)."""
    back = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, list(args), catch_exceptions=False)
    finally:
        os.chdir(back)


# --- the library ------------------------------------------------------------------------------


def test_examples_pass_with_every_check_compared(folder: Path) -> None:
    rules = ruleforge.load(folder / "stacks.rules")
    examples = examples_of(rules)
    assert [e.name for e in examples] == ["final by hand", "tally"]
    first, tally = (run_example(rules, e) for e in examples)
    assert first.passed and tally.passed
    assert [(c.label, c.expected, c.actual) for c in first.checks][:2] == [("P1 scored so far", 3, 3),
                                                                           ("P1 tiles", 5, 5)]
    assert first.breakdown is not None and first.breakdown.totals() == [15, 1]
    # values: a global expression, and per seat with p bound, shown as views show them
    assert {c.label: c.actual for c in tally.checks if c.what == "value"} == {
        "player_count": 2, "P1 midway(p)": 3, "P1 count(tray(p))": 2, "P2 list(x for x in tray(p))": []}


def test_a_wrong_expectation_fails_naming_the_item_and_the_difference(folder: Path) -> None:
    write_examples(folder / "stacks.examples.json", [
        example("off by two", expect={"P1": {"tiles": 5, "marker worth": 6, "total": 17}})])
    rules = ruleforge.load(folder / "stacks.rules")
    outcome = run_example(rules, examples_of(rules)[0])
    assert outcome.status == "fail"
    assert [(c.label, c.expected, c.actual) for c in outcome.failed_checks] == [
        ("P1 marker worth", 6, 4), ("P1 total", 17, 15)]
    assert outcome.report() == [
        "                 expected  actual",
        "P1 tiles                5       5",
        "P1 marker worth         6       4  <- -2",
        "P1 total               17      15  <- -2",
    ]


@pytest.mark.parametrize("fields, message", [
    ({"expect": {"P1": {"tile": 5}}}, "expect: P1: no item 'tile'; did you mean 'tiles'? (items: scored so far, "
                                      "tiles, flipped, bears, marker worth, bright chips, total)"),
    ({"expect": {"P3": {"total": 1}}}, "expect: no seat P3 in a 2-player position"),
    ({"scoring": "tallly", "expect": {"P1": {"total": 4}}},
     "no scoring named 'tallly'; the scorings of Stacks: tally, points"),
    ({"values": {"midway": 3}}, "values: 'midway': "),
    ({"choices": {"P1": {"path": []}}}, "choices: P1: the scorings choose no 'path'"),
    ({"position": {"format": "ruleforge-position/1", "players": 2, "zones": {"tray(P1)": ["Chip 9"]}},
      "expect": {"P1": {"total": 0}}}, "tray(P1) #1 'Chip 9': no component has this label"),
])
def test_an_example_that_cannot_run_says_why(folder: Path, fields: dict[str, Any], message: str) -> None:
    write_examples(folder / "stacks.examples.json", [example("broken", **fields)])
    rules = ruleforge.load(folder / "stacks.rules")
    outcome = run_example(rules, examples_of(rules)[0])
    assert outcome.status == "error" and outcome.error is not None
    assert message in outcome.error, outcome.error


@pytest.mark.parametrize("data, message", [
    ({"format": "ruleforge-examples/2"}, 'not a ruleforge examples file (expected "format": "ruleforge-examples/1")'),
    ({"format": "ruleforge-examples/1", "examples": {}}, "'examples' must be a list of examples"),
    ({"format": "ruleforge-examples/1", "examples": [{"name": "a", "position": "stacks_position.json",
                                                      "expect": {"P1": {"total": 1}}}]},
     "example #1 'a': 'source' must be a text"),
    ({"format": "ruleforge-examples/1", "examples": [example("a")]},
     "example #1 'a': nothing to check: give 'expect'"),
    ({"format": "ruleforge-examples/1", "examples": [example("a", expect={"P1": {"total": "15"}})]},
     "example #1 'a': expect: P1: 'total': points are a whole number, not '15'"),
    ({"format": "ruleforge-examples/1", "examples": [example("a", expect={"one": {"total": 1}})]},
     "expect: 'one' is not a seat (P1, P2, ...)"),
    ({"format": "ruleforge-examples/1", "examples": [example("a", expext={})]},
     "unknown key 'expext'; did you mean 'expect'?"),
    ({"format": "ruleforge-examples/1", "examples": [example("a", position="nowhere.json",
                                                             expect={"P1": {"total": 1}})]},
     "position: cannot read position file"),
    ({"format": "ruleforge-examples/1", "examples": [example("a", expect={"P1": {"total": 1}}),
                                                     example("a", expect={"P1": {"total": 1}})]},
     "example #2 'a': a second example of this name"),
])
def test_a_malformed_examples_file_names_every_problem(folder: Path, data: Any, message: str) -> None:
    (folder / "stacks.examples.json").write_text(json.dumps(data))
    with pytest.raises(ExamplesError) as err:
        examples_of(ruleforge.load(folder / "stacks.rules"))
    assert message in str(err.value)
    assert str(err.value).startswith(str(folder / "stacks.examples.json"))


def test_a_refused_position(folder: Path) -> None:
    write_examples(folder / "stacks.examples.json", [
        example("no chip 9", position={"format": "ruleforge-position/1", "players": 2,
                                       "zones": {"tray(P1)": ["Chip 9"]}},
                refused="no component has this label"),
        example("accepted", refused="anything"),
    ])
    rules = ruleforge.load(folder / "stacks.rules")
    refused, accepted = (run_example(rules, e) for e in examples_of(rules))
    assert refused.passed
    assert accepted.status == "fail"
    assert [(c.key, c.expected, c.actual) for c in accepted.checks] == [("refused", "anything", "accepted")]
    write_examples(folder / "stacks.examples.json", [example("both", refused="x", expect={"P1": {"total": 1}})])
    with pytest.raises(ExamplesError, match="a refused position scores nothing"):
        examples_of(rules)


def test_every_problem_of_a_file_at_once(folder: Path) -> None:
    write_examples(folder / "stacks.examples.json", [
        example("a", expect={"P1": {"total": "x"}}), {"name": "b"}, example("c", scoring=3, expect={})])
    with pytest.raises(ExamplesError) as err:
        examples_of(ruleforge.load(folder / "stacks.rules"))
    assert len(err.value.problems) >= 5
    assert {p.split(": ")[1] for p in err.value.problems} == {"example #1 'a'", "example #2 'b'", "example #3 'c'"}


def test_a_variant_inherits_replaces_and_drops_base_examples(folder: Path) -> None:
    (folder / "chips.rules").write_text(VARIANT)
    rules = ruleforge.load(folder / "chips.rules")
    # without an examples file of its own, the variant runs its base's, against its own rules:
    # the final scoring moved (chips +2 for P1), the tally did not
    outcomes = [run_example(rules, e) for e in examples_of(rules)]
    assert [(o.example.name, o.status) for o in outcomes] == [("final by hand", "fail"), ("tally", "pass")]
    assert [(c.label, c.expected, c.actual) for c in outcomes[0].failed_checks] == [("P1 total", 15, 17)]
    # its own file replaces the moved one in place, drops the tally, adds one
    write_examples(folder / "chips.examples.json", [
        example("chips", expect={"P1": {"chips": 2}, "P2": {"chips": 0}}),
        example("final by hand", expect={"P1": {"chips": 2, "total": 17}, "P2": {"total": 1}}),
    ], drop=["tally"])
    examples = examples_of(rules)
    assert [(e.name, e.origin.name) for e in examples] == [("final by hand", "chips.examples.json"),
                                                          ("chips", "chips.examples.json")]
    assert examples[0].replaces == folder / "stacks.examples.json"
    assert all(run_example(rules, e).passed for e in examples)


def test_dropping_what_the_base_does_not_have_is_an_error(folder: Path) -> None:
    (folder / "chips.rules").write_text(VARIANT)
    write_examples(folder / "chips.examples.json", [], drop=["taly"])
    with pytest.raises(ExamplesError, match="drop: no base example named 'taly'; did you mean 'tally'"):
        examples_of(ruleforge.load(folder / "chips.rules"))


# --- ruleforge test ------------------------------------------------------------------------------


def test_cli_prints_a_line_per_example(folder: Path) -> None:
    result = run("test", "stacks.rules", cwd=folder)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        "Stacks: 2 examples (2 from stacks.examples.json)",
        "PASS  final by hand  (P1 15, P2 1)",
        "PASS  tally  (P1 4, P2 4)",
        "2 passed",
    ]


def test_cli_shows_a_failure_side_by_side_and_exits_1(folder: Path) -> None:
    (folder / "chips.rules").write_text(VARIANT)
    result = run("test", "chips.rules", cwd=folder)
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        "Stacks with chips: 2 examples (2 from stacks.examples.json)",
        "FAIL  final by hand  [from stacks.examples.json]",
        "                        expected  actual",
        "      P1 scored so far         3       3",
        "      P1 tiles                 5       5",
        "      P1 flipped               2       2",
        "      P1 bears                -1      -1",
        "      P1 marker worth          4       4",
        "      P1 bright chips          2       2",
        "      P1 total                15      17  <- +2",
        "      P2 tiles                 1       1",
        "      P2 total                 1       1",
        "PASS  tally  (P1 4, P2 4)  [from stacks.examples.json]",
        "1 passed, 1 failed",
    ]


def test_cli_json(folder: Path) -> None:
    result = run("test", "stacks.rules", "--json", cwd=folder)
    data = json.loads(result.output)
    assert (data["game"], data["passed"], data["failed"], data["errors"]) == ("Stacks", 2, 0, 0)
    first = data["examples"][0]
    assert (first["name"], first["status"], first["source"]) == ("final by hand", "pass", "ours")
    assert {"player": "P1", "what": "item", "key": "total", "expected": 15, "actual": 15,
            "passed": True} in first["checks"]
    assert first["scores"][0]["breakdown"]["marker worth"] == 4


def test_cli_filter_and_examples_file(folder: Path) -> None:
    result = run("test", "stacks.rules", "-k", "TALL", cwd=folder)
    assert result.output.splitlines()[1:] == ["PASS  tally  (P1 4, P2 4)", "1 passed"]
    write_examples(folder / "other.json", [example("other", expect={"P2": {"total": 2}})])
    result = run("test", "stacks.rules", "--examples", "other.json", cwd=folder)
    assert result.exit_code == 1
    assert "      P2 total         2       1  <- -1\n0 passed, 1 failed" in result.output


@pytest.mark.parametrize("args, message", [
    (["test", "stacks.rules", "-k", "nothing"], "error: no example's name contains 'nothing'"),
    (["test", "stacks.rules", "--examples", "none.json"], "error: cannot read examples file 'none.json': no such file"),
    (["test", "plain.rules"], "error: no examples for Stacks: none in plain.examples.json"),
    (["test", "missing.rules"], "cannot read rules file 'missing.rules'"),
])
def test_cli_errors(folder: Path, args: list[str], message: str) -> None:
    shutil.copy(folder / "stacks.rules", folder / "plain.rules")
    result = run(*args, cwd=folder)
    assert result.exit_code != 0
    assert message in result.output
    assert "Traceback" not in result.output


def test_cli_reports_a_broken_examples_file_as_one_error_per_problem(folder: Path) -> None:
    write_examples(folder / "stacks.examples.json", [{"name": "x"}, example("y", expect={"P9": {"total": 1}})])
    result = run("test", "stacks.rules", cwd=folder)
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0].startswith("error: ") and "example #1 'x'" in lines[0]
    assert "Traceback" not in result.output
