"""`invariant "message" (for p)? { cond }`: what every state of a game satisfies. A position
written by hand or a saved state that breaks one is refused with its message; no game of the
rules reaches one (checked here over random games)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner
from seeded import decisions

import ruleforge
from ruleforge import GameError, RulesError
from ruleforge.cli import main

ROOT = Path(__file__).parents[1]
TRAILS = ROOT / "tests" / "synthetic" / "trails.rules"
NAKASENDO = ROOT / "games" / "nakasendo.rules"
POSITION = "ruleforge-position/1"


def test_a_position_breaking_an_invariant_is_refused() -> None:
    rules = ruleforge.load(TRAILS)
    rows = [["NS"] * 4, ["EW"] * 4, ["NE"] * 3]  # 11 tiles: the rules' games lay 5
    with pytest.raises(GameError) as err:
        rules.position({"format": POSITION, "players": 1, "zones": {"board(P1)": {"at": [1, 1], "rows": rows}}})
    assert str(err.value).startswith("position: the board of P1 holds 11 tiles; at most 10 (invariant at ")
    assert "trails.rules:" in str(err.value)
    fine = rules.position({"format": POSITION, "players": 1, "zones": {"board(P1)": {"at": [1, 1], "rows": rows[:2]}}})
    assert fine.invariant_problems() == []


def test_an_invariant_without_a_player() -> None:
    rules = ruleforge.load(TRAILS)
    with pytest.raises(GameError, match=r"^position: a tile in the bag is flipped \(invariant at "):
        rules.position({"format": POSITION, "players": 1, "props": {"bag": {"flipped": True}}})


def test_a_saved_state_breaking_an_invariant_is_refused() -> None:
    rules = ruleforge.load(TRAILS)
    game = rules.new_game(1, seed=0)
    data = game.to_json()
    # 11 tiles moved from the bag onto the board, one per cell
    bag = data["state"]["z"][game.zone_index("bag")]
    cells = [game.zone_index("board", 0, r, k) for r in (1, 2, 3) for k in (1, 2, 3, 4)][:11]
    for zi, c in zip(cells, bag[:11]):
        data["state"]["z"][zi] = [c]
    data["state"]["z"][game.zone_index("bag")] = bag[11:]
    with pytest.raises(GameError, match=r"^saved state: the board of P1 holds 11 tiles; at most 10"):
        rules.load_game(data)


def test_an_invariant_is_a_condition(tmp_path: Path) -> None:
    path = tmp_path / "bad.rules"
    path.write_text('game "b"\nplayers 2\ninvariant "no" for p { 3 }\ninvariant "{nope}" { true }\n')
    with pytest.raises(RulesError) as err:
        ruleforge.load(path)
    assert "an invariant must be flag, not int" in str(err.value)
    assert "unknown name 'nope'" in str(err.value)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_no_random_game_breaks_an_invariant(players: int) -> None:
    rules = ruleforge.load(NAKASENDO)
    for seed in range(6):
        game = rules.new_game(players, seed=seed)
        rng = random.Random(seed)
        for _ in decisions(game, seed):
            assert game.invariant_problems() == []
            actions = game.legal_actions()
            game.apply(actions[rng.randrange(len(actions))])
        assert game.invariant_problems() == []


@pytest.mark.parametrize(("rows", "line"), [
    ({"at": [2, 2], "rows": [["Water E-W"] * 5, [None, None, "Start"]]},
     "error: position: the board of P1 spans 2 rows and 5 columns; at most 4 each"),
    ({"at": [4, 4], "rows": [[["Start", "Water Juku"]]]},
     "error: position: a Discovery token lies on the Starting tile of P1"),
    ({"at": [4, 4], "rows": [["Start", "Water Juku"]]},
     "error: position: on the board of P1, a Discovery token lies under a tile or where there is no tile"),
    ({"at": [4, 4], "rows": [["Start", "Water E-W dragon"]]},
     "error: position: board(P1)[4,5] 'Water E-W dragon': no component has this label; did you mean 'Water E-W'?"),
])
def test_bad_nakasendo_positions_are_one_error_line(tmp_path: Path, rows: dict, line: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"format": POSITION, "players": 2, "zones": {"board(P1)": rows}}))
    result = CliRunner().invoke(main, ["score", str(NAKASENDO), str(path)])
    assert result.exit_code == 1
    assert result.stdout == ""
    (shown,) = result.stderr.splitlines()
    assert shown.startswith(line.replace("error: position: ", f"error: {path}: position: "))
