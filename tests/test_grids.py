"""Grids, positions, adjacency, groups, row and conditional visibility, secret actions,
owners and generators with several clauses, on tests/synthetic/grid_tiles.rules."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import ruleforge

RULES = Path(__file__).parent / "synthetic" / "grid_tiles.rules"


@pytest.fixture(scope="module")
def rules() -> ruleforge.Rules:
    return ruleforge.load(RULES)


def board(game: ruleforge.Game, seat: int, rows: list[str]) -> None:
    """Lay out a seat's 2x3 board from two strings like 'RBR'."""
    for r, line in enumerate(rows, 1):
        for k, ch in enumerate(line, 1):
            game.put({"R": "Red", "B": "Blue"}[ch], "board", seat, row=r, column=k)


def test_scoring_by_adjacency_and_groups(rules: ruleforge.Rules) -> None:
    game = rules.new_game(2, seed=1)
    # P1: R R B / B R B -> reds 3; red group (1,1)-(1,2)-(2,2) = 3 -> 30;
    # blues next to a red: (1,3) by (1,2); (2,1) by (1,1) and (2,2); (2,3) by (2,2) -> 3.
    board(game, 0, ["RRB", "BRB"])
    # P2: R B R / B B R -> reds 3; groups (1,1) and (1,3)-(2,3): the biggest is 2 -> 20;
    # blues next to a red: (1,2) by (1,1); (2,1) by (1,1); (2,2) by (2,3) -> 3.
    board(game, 1, ["RBR", "BBR"])
    preview = game.preview_scoring("points")
    assert preview[0] == {"reds": 3, "red group": 30, "blue next to red": 3, "markers placed": 0, "total": 36}
    assert preview[1] == {"reds": 3, "red group": 20, "blue next to red": 3, "markers placed": 0, "total": 26}


def test_positions_and_adjacency(rules: ruleforge.Rules) -> None:
    game = rules.new_game(2, seed=1)
    c = game.put("Red", "board", 1, row=2, column=3)
    # bindings are untyped, so a component is placed through zone_of
    assert game.evaluate("row(zone_of(c))", c=c) == 2
    assert game.evaluate("column(zone_of(c))", c=c) == 3
    assert game.evaluate("count(adjacent(zone_of(c)))", c=c) == 2  # corner: left and above
    assert game.evaluate("count(t for t in board(p) if row(t) == 2 and column(t) == 3)", p=1) == 1
    assert game.evaluate("count(adjacent(cell(board(p), 1, 2)))", p=0) == 3  # top edge middle
    assert game.evaluate("cell(board(p), 3, 1) == none", p=0) is True  # outside the grid
    assert game.evaluate("count(cells(board(p)))", p=0) == 6
    assert game.evaluate("owner(zone_of(c))", c=c) == 1


def test_several_clauses_and_owner(rules: ruleforge.Rules) -> None:
    game = rules.new_game(2, seed=1)
    board(game, 0, ["RBR", "BRB"])
    assert game.evaluate("count(t for x in cells(board(p)) if row(x) == 2 for t in x if t.colour == Red)", p=0) == 1
    assert game.evaluate("count(m for m in markers(p) if owner(m) == p)", p=1) == 1
    assert game.evaluate("count(m for m in markers(p) if owner(m) == p)", p=0) == 1


def test_visibility_by_row_and_condition(rules: ruleforge.Rules) -> None:
    game = rules.new_game(2, seed=1)
    board(game, 0, ["RRB", "BRB"])
    seen_by_p2 = game.view(1)["zones"]
    assert seen_by_p2["board(P1)[1,1]"] == ["Red"]  # row 1 is public
    assert seen_by_p2["board(P1)[2,2]"] == {"hidden": 1}  # row 2: owner only
    assert game.view(0)["zones"]["board(P1)[2,2]"] == ["Red"]
    game.set_var("revealed", True)
    assert game.view(1)["zones"]["board(P1)[2,2]"] == ["Red"]


def test_secret_actions_hide_their_label_from_the_others(rules: ruleforge.Rules) -> None:
    game = rules.new_game(2, seed=3)
    label = game.legal_labels()[0]
    assert label.startswith("place ") and label != "place a tile"
    game.apply(label)
    assert game.log_lines(viewer=0)[-1] == f"P1: {label}"
    assert game.log_lines(viewer=1)[-1] == "P1: place a tile"
    assert game.log_lines()[-1] == f"P1: {label}"  # the full log


def test_random_games_end_and_add_up(rules: ruleforge.Rules) -> None:
    for seed in range(60):
        game = rules.new_game(2, seed=seed)
        rng = random.Random(seed)
        while not game.is_over:
            game.apply(rng.choice(game.legal_actions()))
        for s in game.scores():
            assert s["total"] == sum(s["breakdown"].values())
        # every tile is on a board at the end: 12 cells, 12 tiles
        assert game.evaluate("count(board(p)) + count(board(q))", p=0, q=1) == 12
        saved = rules.load_game(game.to_json())
        assert saved.digest() == game.digest()


def test_plus_joins_collections(rules: ruleforge.Rules) -> None:
    game = rules.new_game(2, seed=1)
    board(game, 0, ["RRB", "BRB"])
    # a grid's components, a pile's and a list literal's, joined with +
    assert game.evaluate("count(board(p) + markers(p))", p=0) == 7
    assert game.evaluate("count(c for c in board(p) + markers(p) if c is Tile)", p=0) == 6
    assert game.evaluate("[1, 2] + [3]") == [1, 2, 3]
    with pytest.raises(ruleforge.RulesError, match="joins two collections of one type"):
        game.evaluate("[1, 2] + board(p)", p=0)
