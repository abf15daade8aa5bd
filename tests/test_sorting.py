"""`sort c in Z by key`, `sorted(... by key)`, `neighbour(x, s)` and labels that read
changeable properties, on tests/synthetic/sorting.rules."""

from __future__ import annotations

from pathlib import Path

import pytest

import ruleforge
from ruleforge.diagnostics import RulesError

RULES = Path(__file__).parent / "synthetic" / "sorting.rules"


@pytest.fixture(scope="module")
def rules() -> ruleforge.Rules:
    return ruleforge.load(RULES)


def labels(game: ruleforge.Game, zone: str) -> list[str]:
    return game.view(None)["zones"][zone]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sort_lays_a_zone_out_by_key_and_fires_nothing(rules: ruleforge.Rules, seed: int) -> None:
    game = rules.new_game(2, seed=seed)
    assert labels(game, "line") == ["T1", "T2", "T3", "T4", "T5", "T6"]  # whatever the shuffle
    assert game.evaluate("moves_into_line") == 6  # the six moves fired; the sort fired nothing



@pytest.mark.parametrize(("order", "expected"), [
    (1, ["T6", "T5", "T4", "T3", "T2", "T1"]),  # by -n: the largest first
    (2, ["T1", "T2", "T3", "T4", "T5", "T6"]),  # by colour: equal keys keep their order (stable)
    (3, ["T4", "T6", "T5", "T3", "T2", "T1"]),  # a key of none sorts first
])
def test_sort_orders(rules: ruleforge.Rules, order: int, expected: list[str]) -> None:
    for seed in (1, 2):
        game = rules.new_game(2, seed=seed, options={"order": order})
        assert labels(game, "line") == expected
        assert game.evaluate("moves_into_line") == 6


def test_sorted_gives_a_list_smallest_key_first_and_stable(rules: ruleforge.Rules) -> None:
    game = rules.new_game(2, seed=1)
    # key colour * 10 - n: T3 7, T2 8, T1 9, T6 14, T5 15, T4 16
    assert game.view(None)["vars"]["picked"] == ["T3", "T2", "T1", "T6", "T5", "T4"]
    assert game.evaluate("list(c.n for c in sorted(c for c in line by c.colour))") == [1, 2, 3, 4, 5, 6]
    assert game.evaluate("list(c.n for c in sorted(c for c in line by -c.colour))") == [4, 5, 6, 1, 2, 3]
    assert game.evaluate("sorted(c for c in line if c.n > 9 by c.n)") == []
    assert game.evaluate("sorted(k for k in [3, 1, 2] by k)") == [1, 2, 3]


def test_neighbour_is_the_cell_beyond_a_side(rules: ruleforge.Rules) -> None:
    game = rules.new_game(2, seed=1)
    beyond = "neighbour(cell(board, r, k), s)"
    where = f"if {beyond} == none then 0 else 10 * row({beyond}) + column({beyond})"
    found = {(r, k, s): game.evaluate(where.replace("s)", f"{s})"), r=r, k=k)
             for r in (1, 2, 3) for k in (1, 2, 3) for s in ("north", "east", "south", "west")}
    assert found[(2, 2, "north")] == 12 and found[(2, 2, "east")] == 23
    assert found[(2, 2, "south")] == 32 and found[(2, 2, "west")] == 21
    assert found[(1, 1, "north")] == 0 and found[(1, 1, "west")] == 0  # beyond the edge: none
    assert found[(3, 3, "south")] == 0 and found[(3, 3, "east")] == 0
    # every neighbour is adjacent, and every adjacent cell is some side's neighbour
    for r in (1, 2, 3):
        for k in (1, 2, 3):
            assert game.evaluate("every(neighbour(cell(board, r, k), s) == none or neighbour(cell(board, r, k), s) "
                                 "in adjacent(cell(board, r, k)) for s in sides)", r=r, k=k)
            assert game.evaluate("count(s for s in sides if neighbour(cell(board, r, k), s) != none) "
                                 "== count(adjacent(cell(board, r, k)))", r=r, k=k)
    # a component's cell, and a component off the grid
    game.put("T1", "board", row=3, column=2)
    assert game.evaluate("row(neighbour(top_of(cell(board, 3, 2)), north))") == 2
    assert game.evaluate("neighbour(top_of(cell(board, 3, 2)), none) == none") is True
    assert game.evaluate("neighbour(first(line), north) == none") is True


def test_stamp_uses_both_cells(rules: ruleforge.Rules) -> None:
    game = rules.new_game(2, seed=1)
    offered = game.legal_labels()
    assert "stamp T1 at 1,1 toward east" in offered and "stamp T1 at 1,1 toward north" not in offered
    assert len([x for x in offered if x.startswith("stamp T1 ")]) == 24  # 12 pairs of cells, both ways


def test_a_label_reading_properties_is_rendered_when_shown(rules: ruleforge.Rules) -> None:
    game = rules.new_game(2, seed=1)
    game.apply("stamp T2 at 2,2 toward east")
    # the view shows the stamped tile as it is now; its name stays the label it started with
    assert labels(game, "board[2,2]") == ["T2 x1 of P1"]
    assert game.find("T2") == game.find("T2") and len(game.find("T2")) == 1
    assert game.evaluate("top_of(cell(board, 2, 2)).stamps") == 1
    # the log keeps the texts of the moment: the action's label (unstamped), the log line (stamped)
    assert game.log_lines()[:2] == ["P1: stamp T2 at 2,2 toward east", "stamped T2 x1 of P1"]
    game.apply("take T1")
    assert labels(game, "hand(P2)") == ["T1 of P2"]
    assert game.log_lines()[2] == "P2: take T1"
    assert labels(game, "pool") == ["plain 1"]  # a label of attributes only, as built


def test_a_game_without_such_labels_renders_none_at_show_time() -> None:
    program = ruleforge.load(Path(__file__).parents[1] / "games" / "hagakure.rules").program(3)
    assert program.live_labels == []  # every label there reads attributes only: built once


@pytest.mark.parametrize(("text", "message"), [
    ("flow { sort pool by n }", "'sort pool' needs a name for each item: sort c in pool by ..."),
    ("flow { sort c in pool by c.name }", "a sort key must be int"),
    ("flow { sort c in 3 by 1 }", "the zone to sort must be zone"),
    ("def d = sorted(c for c in pool)  flow { }", "'sorted' needs 'by'"),
    ("def d = neighbour(cell(board, 1, 1), 3)  flow { }", "'neighbour' needs a side"),
])
def test_mistakes_are_one_clear_error(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.rules"
    path.write_text('game "g"\nplayers 2\nkind K { name: text }\nzone pool: row\n'
                    'zone board: grid, size 2 by 2\n' + text + "\n", encoding="utf-8")
    with pytest.raises(RulesError) as err:
        ruleforge.load(path).check_player_counts()
    assert len(err.value.diagnostics) == 1
    assert message in str(err.value)
    assert "bad.rules:6:" in str(err.value)
