"""Paths through a grid of segments (`longest_paths`, the `side` enum, `opposite`), grid
extents (`rows`, `columns`, `span_rows`, `span_columns`), the value form of `best` and
owner-only variables, on the small synthetic game tests/synthetic/trails.rules.

Tiles there: "NS", "EW" straights, "NE", "NW" curves (flipped: "SW", "SE"), "X" a crossing of
two separate segments. Expected paths are traced by hand on the drawn grid.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import ruleforge
from ruleforge.diagnostics import RulesError

TRAILS = Path(__file__).parent / "synthetic" / "trails.rules"


@pytest.fixture(scope="module")
def rules() -> ruleforge.Rules:
    return ruleforge.load(TRAILS)


def board(rules: ruleforge.Rules, rows: list[list[str | None]], flipped: tuple = ()) -> ruleforge.Game:
    """P1's 4x4 board laid out by hand; `flipped` lists (row, column) of flipped tiles."""
    grid = [list(r) + [None] * (4 - len(r)) for r in rows] + [[None] * 4] * (4 - len(rows))
    return rules.position({
        "format": "ruleforge-position/1", "players": 1,
        "zones": {"board(P1)": grid},
        "props": {f"board(P1)[{r},{c}]": {"flipped": True} for r, c in flipped},
    })


def cells(game: ruleforge.Game, value: list) -> list[tuple[int, int]]:
    """Zone indexes as (row, column)."""
    zones = game.program.zones
    return [(zones[z].row, zones[z].column) for z in value]


def paths(game: ruleforge.Game) -> list[list[tuple[int, int]]]:
    return [cells(game, p) for p in game.evaluate("paths(p)", p=0)]


def test_a_chain_is_walked_from_its_first_loose_end(rules) -> None:
    # . . NS .      (1,3) joins south to (2,3), which turns west:
    # EW EW NW .    (2,3) -> (2,2) -> (2,1). The end met first in cell order is (1,3).
    game = board(rules, [[None, None, "NS"], ["EW", "EW", "NW"]])
    assert paths(game) == [[(1, 3), (2, 3), (2, 2), (2, 1)]]


def test_a_loop_counts_whole_and_beats_a_shorter_chain(rules) -> None:
    # SE SW . .     a closed loop of 4 segments (NW and NE flipped make SE and SW)
    # NE NW . .
    # .  .  . .
    # EW EW EW .    a chain of 3
    game = board(rules, [["NW", "NE"], ["NE", "NW"], [], ["EW", "EW", "EW"]], flipped=[(1, 1), (1, 2)])
    (loop,) = paths(game)
    assert loop[0] == (1, 1) and sorted(loop) == [(1, 1), (1, 2), (2, 1), (2, 2)]
    for (r1, c1), (r2, c2) in zip(loop, loop[1:]):
        assert abs(r1 - r2) + abs(c1 - c2) == 1  # each step to a neighbour


def test_the_crossing_lets_a_path_cross_itself(rules) -> None:
    # .  SE SW .    from (2,1) east through the crossing (2,2) to (2,3), north to (1,3),
    # EW X  NW .    west to (1,2), south through the crossing again, out at (3,2):
    # .  NS .  .    7 segments, 6 different cells, the crossing listed once
    game = board(rules, [[None, "NW", "NE"], ["EW", "X", "NW"], [None, "NS"]], flipped=[(1, 2), (1, 3)])
    assert paths(game) == [[(2, 1), (2, 2), (2, 3), (1, 3), (1, 2), (3, 2)]]


def test_a_crossing_alone_is_two_separate_segments(rules) -> None:
    # .  NS .       the vertical line and the horizontal line are two paths of 3 segments:
    # EW X  EW      both are offered, ordered by their first cell
    # .  NS .
    game = board(rules, [[None, "NS"], ["EW", "X", "EW"], [None, "NS"]])
    assert paths(game) == [[(1, 2), (2, 2), (3, 2)], [(2, 1), (2, 2), (2, 3)]]


def test_edges_must_meet(rules) -> None:
    # NS EW: side by side, but the NS tile touches neither east nor west: two paths of 1
    game = board(rules, [["NS", "EW"]])
    assert paths(game) == [[(1, 1)], [(1, 2)]]
    assert board(rules, []).evaluate("paths(p)", p=0) == []


def test_flipping_a_curve_turns_it_by_half_a_turn(rules) -> None:
    # EW NE: the curve joins north and east, not west, so nothing links;
    # flipped it joins south and west, and links to the EW on its west.
    assert len(paths(board(rules, [["EW", "NE"]]))) == 2
    assert paths(board(rules, [["EW", "NE"]], flipped=[(1, 2)])) == [[(1, 1), (1, 2)]]
    game = board(rules, [])
    assert game.evaluate("opposite(north)") == "south"
    assert game.evaluate("list(opposite(s) for s in [north, east, south, west])") == ["south", "west", "north", "east"]


def test_extents(rules) -> None:
    # .  .  .  .
    # .  EW .  .     occupied: rows 2-3, columns 2-4
    # .  .  .  NS
    game = board(rules, [[], [None, "EW"], [None, None, None, "NS"]])
    assert game.evaluate("rows(board(p))", p=0) == 4
    assert game.evaluate("columns(board(p))", p=0) == 4
    assert game.evaluate("span_rows(board(p))", p=0) == 2
    assert game.evaluate("span_columns(board(p))", p=0) == 3
    # a trial cell counts as occupied: (4,1) stretches both ways; an occupied one changes nothing
    assert game.evaluate("span_rows(board(p), cell(board(p), 4, 1))", p=0) == 3
    assert game.evaluate("span_columns(board(p), cell(board(p), 4, 1))", p=0) == 4
    assert game.evaluate("span_columns(board(p), cell(board(p), 2, 2))", p=0) == 3
    empty = board(rules, [])
    assert empty.evaluate("span_rows(board(p))", p=0) == 0
    assert empty.evaluate("span_rows(board(p), cell(board(p), 2, 2))", p=0) == 1


def test_placement_limited_by_the_span(rules) -> None:
    # the rules allow a 3x3 box: with (1,1) and (1,3) laid, column 4 is out of reach
    game = rules.new_game(1, seed=3)
    labels = game.legal_labels()
    assert any(" at 4,4" in label for label in labels)  # an empty board: anywhere
    for target in ("1,1", "1,2", "1,3"):
        game.apply(next(a for a, label in zip(game.legal_actions(), game.legal_labels())
                        if label.endswith(f"at {target}")))
    assert not any(" at 1,4" in label or " at 2,4" in label for label in game.legal_labels())
    assert any(label.endswith(" at 2,3") for label in game.legal_labels())


def test_best_takes_the_better_of_equally_long_paths(rules) -> None:
    # EW EW . .     two paths of 2; the one in the bottom row scores 2 more
    # ...
    # EW EW . .
    game = board(rules, [["EW", "EW"], [], [], ["EW", "EW"]])
    (p1,) = game.preview_scoring("trail")
    assert p1 == {"cells": 2, "bottom row": 2, "total": 4}


def test_best_keeps_the_first_of_equal_totals(rules) -> None:
    # two paths of 2, neither in the bottom row: both total 2; the first is kept
    game = board(rules, [["EW", "EW"], ["EW", "EW"]])
    assert game.preview_scoring("trail")[0]["total"] == 2
    before = game.evaluate("walked(p)", p=0)
    assert before is None  # previewing keeps nothing


def test_into_keeps_the_choice_when_applied(rules) -> None:
    # a whole game: `score trail into score` keeps each player's path in `walked`
    for seed in range(30):
        game = rules.new_game(2, seed=seed)
        while not game.is_over:
            game.apply(game.legal_actions()[seed % len(game.legal_actions())])
        assert game.totals() == [entry["total"] for entry in game.scores()]
        for p in (0, 1):
            walked = game.evaluate("walked(p)", p=p)
            assert walked in game.evaluate("paths(p)", p=p)
            points = game.scores()[p]
            assert points["total"] == sum(points["breakdown"].values())
            assert points["breakdown"]["cells"] == len(walked)
            view = game.view(p)["vars"][f"walked(P{p + 1})"]
            assert view == [f"board(P{p + 1})[{r},{c}]" for r, c in cells(game, walked)]


def test_owner_only_variables_are_in_their_owners_view_only(rules) -> None:
    game = rules.new_game(2, seed=0)
    assert game.view(0)["vars"]["hunch(P1)"] == 3
    assert "hunch(P2)" not in game.view(0)["vars"]
    assert "hunch(P1)" not in game.view(1)["vars"] and "hunch(P2)" in game.view(1)["vars"]
    assert not any(key.startswith("hunch") for key in game.view(None)["vars"])
    assert game.evaluate("hunch(p)", p=1) == 3  # the rules read it as any variable


def check_errors(tmp_path: Path, text: str) -> str:
    path = tmp_path / "bad.rules"
    path.write_text('game "bad"\nplayers 2\nzone board per player: grid, size 3 by 3\n' + text)
    with pytest.raises(RulesError) as err:
        ruleforge.load(path)
    return str(err.value)


@pytest.mark.parametrize(("text", "message"), [
    ("enum side { up, down }", "'side' is a built-in name"),
    ("enum Compass { north, up }", "enum member 'north' is already a member of side (built in)"),
    ("def p = longest_paths(x for x in cells(board(0)))", "'longest_paths' needs 'by'"),
    ("def n = count(x for x in cells(board(first(players))) by 1)",
     "'by' belongs to argmax, argmin, sorted and longest_paths"),
    ("def p(q: player) = longest_paths(x for x in cells(board(q)) by [north])",
     "a cell's segments must be list of list of side, not list of side"),
    ("def s = opposite(3)", "'opposite' needs a side, not int"),
    ("def s = span_rows(3)", "'span_rows' needs a grid zone, not int"),
    ("var v: int = 0, visible owner", "'v' is shared: only a per-player variable has an owner"),
    ("var v: int\nscoring s for p { best x in [1, 2] into v  \"x\": x }", "'into v': 'v' is shared"),
    ("var v per player: flag\nscoring s for p { best x in [1, 2] into v  \"x\": x }",
     "'into v' keeps int, but 'v' holds flag"),
    ("scoring s for p { best x in 3  \"x\": x }", "'best x' chooses one item of a list or a zone, not int"),
    ("scoring s for p { best p in [1]  \"x\": 1 }", "'p' is already a name here"),
])
def test_mistakes_are_named(tmp_path: Path, text: str, message: str) -> None:
    assert message in check_errors(tmp_path, text)


def test_scoring_choices_show_what_score_into_would_keep(rules) -> None:
    # the bottom-row path is chosen (see above); asking changes nothing
    game = board(rules, [["EW", "EW"], [], [], ["EW", "EW"]])
    assert game.scoring_choices("trail") == [{"walked": ["board(P1)[4,1]", "board(P1)[4,2]"]}]
    assert game.evaluate("walked(p)", p=0) is None


def test_score_explain_shows_the_chosen_path(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    position = tmp_path / "pos.json"
    # . . .       the NS at (3,1) touches nothing; the two EW at (4,1), (4,2) make the path
    # NS
    # EW EW
    position.write_text(json.dumps({"format": "ruleforge-position/1", "players": 1,
                                    "zones": {"board(P1)": {"at": [3, 1], "rows": [["NS"], ["EW", "EW"]]}}}))
    run = subprocess.run([sys.executable, "-m", "ruleforge", "score", str(TRAILS), str(position), "--explain"],
                         capture_output=True, text=True, check=True, timeout=120)
    assert "P1 walked: board(P1)[4,1] → board(P1)[4,2]" in run.stdout
    run = subprocess.run([sys.executable, "-m", "ruleforge", "score", str(TRAILS), str(position), "--json"],
                         capture_output=True, text=True, check=True, timeout=120)
    assert json.loads(run.stdout)["scores"][0]["choices"] == {"walked": ["board(P1)[4,1]", "board(P1)[4,2]"]}
