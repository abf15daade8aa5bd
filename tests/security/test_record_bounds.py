"""A recorded playthrough's numbers are checked before anything is made from them: its players
within the `players` limit, its seed a whole number as a saved state holds, its decision numbers
within `decisions_per_game`; each refusal names the record's line, never a traceback."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ruleforge.limits import LIMITS, describe
from ruleforge.rules import Rules
from ruleforge.testing.playthroughs import run_playthrough

ROOT = Path(__file__).parents[2]
PICK = ROOT / "tests" / "synthetic" / "pick.rules"
SEED = "1" + "0" * 4999  # 5,000 digits: more than Python converts to a number


def outcome_of(tmp_path: Path, text: str) -> str:
    shutil.copy(PICK, tmp_path / "pick.rules")
    folder = tmp_path / "pick.playthroughs"
    folder.mkdir()
    (folder / "2p-seed1.txt").write_text(text)
    outcome = run_playthrough(Rules(tmp_path / "pick.rules"), folder / "2p-seed1.txt")
    assert outcome.status == "error"
    assert outcome.error is not None and len(outcome.error) < 400
    return outcome.error.removeprefix(f"{folder / '2p-seed1.txt'}: ")


@pytest.mark.parametrize("players, shown", [("900000000", "900,000,000"), ("9" * 5000, "a number of 5,000 digits")])
def test_a_record_claiming_too_many_players_is_refused_at_line_1(tmp_path: Path, players: str, shown: str) -> None:
    error = outcome_of(tmp_path, f"Pick: {players} players, seed 1, agents random\n")
    assert error == f"line 1: {shown} players: more than a game may have ({describe('players')})"


@pytest.mark.parametrize("seed", [SEED, "-" + SEED, str(2**63)])
def test_a_record_with_a_seed_too_long_is_refused_at_line_1(tmp_path: Path, seed: str) -> None:
    error = outcome_of(tmp_path, f"Pick: 2 players, seed {seed}, agents random\n")
    assert error == "line 1: the seed must be a whole number from -(2**63 - 1) to 2**63 - 1"


@pytest.mark.parametrize("number", [str(LIMITS.decisions_per_game + 1), "9" * 5000])
def test_a_decision_number_past_the_limit_is_refused_at_its_line(tmp_path: Path, number: str) -> None:
    error = outcome_of(tmp_path, "Pick: 2 players, seed 1, agents random\n1. P1 (3 legal): take 1\n"
                                 f"{number}. P2 (2 legal): take 2\n")
    shown = f"{int(number):,}" if len(number) < 20 else "a number of 5,000 digits"
    assert error == (f"line 3: decision {shown}: more decisions than a game may take "
                     f"({describe('decisions_per_game')})")
