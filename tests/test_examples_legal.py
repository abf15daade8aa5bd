"""Examples that say which actions are legal (`legal`) after some actions (`play`), on
tests/synthetic/spots.rules: a court of 2 spots, 2 workers per player, `send`, `recall`
and `pass` each turn for 3 rounds.

By hand: P1's two workers at home and P2's first one in the court (a position takes the
components in the order it lists them): one spot is free, so P1 may send and has nothing to
recall. After P1 sends, the court is full: P2 may recall its worker and send none.
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
POSITION = {"format": "ruleforge-position/1", "players": 2,
            "zones": {"home(P1)": ["worker", "worker"], "court": ["worker"]}}


def example(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, "source": "ours", "position": POSITION, **fields}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    shutil.copy(ROOT / "tests" / "synthetic" / "spots.rules", tmp_path / "spots.rules")
    return tmp_path


def outcomes(folder: Path, examples: list[dict[str, Any]], rules_text: str | None = None) -> list:
    (folder / "spots.examples.json").write_text(json.dumps({"format": "ruleforge-examples/1",
                                                            "examples": examples}))
    if rules_text is not None:
        (folder / "spots.rules").write_text(rules_text)
    rules = ruleforge.load(folder / "spots.rules")
    return [run_example(rules, e) for e in examples_of(rules)]


FREE = example("a free spot", values={"owner(first(court))": "P2"},
               legal={"offered": ["send a worker", "pass"], "not offered": ["recall your workers"]})
FULL = example("a full court", play=["send a worker"],
               legal={"offered": ["recall your workers"], "not offered": ["send a worker"]})


def test_the_shipped_spots_examples_pass() -> None:
    rules = ruleforge.load(ROOT / "tests" / "synthetic" / "spots.rules")
    found = [run_example(rules, e) for e in examples_of(rules)]
    assert [o.status for o in found] == ["pass", "pass"]


def test_offered_and_not_offered_are_checked_for_the_seat_to_act(folder: Path) -> None:
    free, full = outcomes(folder, [FREE, FULL])
    assert free.passed and full.passed
    assert [(c.player, c.what, c.key, c.expected, c.actual) for c in full.checks] == [
        (1, "legal", "recall your workers", "offered", "offered"),
        (1, "legal", "send a worker", "not offered", "not offered")]


def test_a_court_of_three_fails_the_full_court(folder: Path) -> None:
    text = (folder / "spots.rules").read_text().replace("zone court: pile, size 2", "zone court: pile, size 3")
    free, full = outcomes(folder, [FREE, FULL], text)
    assert free.passed
    assert full.status == "fail"
    assert [(c.label, c.expected, c.actual) for c in full.failed_checks] == [
        ("P2 send a worker", "not offered", "offered")]
    assert full.report()[-1] == "P2 send a worker        not offered  offered  <- differs"


def test_values_are_read_after_the_play(folder: Path) -> None:
    (after,) = outcomes(folder, [example("after", play=["send a worker", "recall your workers"],
                                         values={"count(court)": 1, "P2": {"count(home(p))": 2}})])
    assert after.passed, after.report()
    (wrong,) = outcomes(folder, [example("after", play=["send a worker"], values={"count(court)": 1})])
    assert [(c.key, c.actual) for c in wrong.failed_checks] == [("count(court)", 2)]


def test_an_illegal_play_step_says_what_was_legal(folder: Path) -> None:
    (out,) = outcomes(folder, [example("x", play=["send a worker", "send a worker"],
                                       legal={"offered": ["pass"]})])
    assert out.status == "error"
    assert out.error == ("play: step 2 'send a worker' is not legal for P2; legal: recall your workers, pass")


def test_play_past_the_end(folder: Path) -> None:
    (out,) = outcomes(folder, [example("x", play=["pass"] * 7, legal={"not offered": ["pass"]})])
    assert out.error == "play: step 7 'pass': the game is over"
    (end,) = outcomes(folder, [example("x", play=["pass"] * 6, legal={"not offered": ["pass", "send a worker"]})])
    assert end.passed  # nothing is offered once the game is over


@pytest.mark.parametrize("fields, message", [
    ({"legal": ["send a worker"]}, "'legal' must be an object: {\"offered\": [actions], \"not offered\": [actions]}"),
    ({"legal": {"offerd": ["pass"]}}, "legal: unknown key 'offerd'; did you mean 'offered'?"),
    ({"legal": {}}, "legal: nothing to check: list actions under 'offered' or 'not offered'"),
    ({"legal": {"offered": "pass"}}, "'legal: offered' must be a list of actions as `ruleforge play` prints them"),
    ({"play": "pass", "legal": {"offered": ["pass"]}}, "'play' must be a list of actions"),
    ({"play": ["pass"]}, "nothing to check: give 'expect' (points per player), 'choices', 'values', 'legal'"),
    ({"refused": "no", "legal": {"offered": ["pass"]}},
     "a refused position scores nothing: 'refused' goes without expect, choices, values, legal, play and scoring"),
])
def test_a_malformed_legal_or_play_is_named(folder: Path, fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ExamplesError) as err:
        outcomes(folder, [example("bad", **fields)])
    assert f"example #1 'bad': {message}" in str(err.value), str(err.value)


def test_cli_shows_the_legal_checks(folder: Path) -> None:
    text = (folder / "spots.rules").read_text().replace("size 2", "size 3")
    outcomes(folder, [FREE, FULL], text)
    back = os.getcwd()
    os.chdir(folder)
    try:
        result = CliRunner().invoke(main, ["test", "spots.rules", "--json"], catch_exceptions=False)
    finally:
        os.chdir(back)
    assert result.exit_code == 1
    full = json.loads(result.output)["examples"][1]
    assert full["status"] == "fail"
    assert {"player": "P2", "what": "legal", "key": "send a worker", "expected": "not offered",
            "actual": "offered", "passed": False} in full["checks"]
