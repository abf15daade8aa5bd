"""Indexing of lists, phases with parameters and attributes of none, on
tests/synthetic/lang.rules; and the checker's messages for them and for words the grammar
cannot place."""

from __future__ import annotations

from pathlib import Path

import pytest

import ruleforge
from ruleforge.diagnostics import GameError, RulesError

RULES = Path(__file__).parent / "synthetic" / "lang.rules"
LINES = RULES.read_text().split("\n")


@pytest.fixture(scope="module")
def rules() -> ruleforge.Rules:
    return ruleforge.load(RULES)


def where(text: str, part: str) -> tuple[int, int]:
    """(line, column) of the first line of lang.rules holding `text`, at `part` in it."""
    for number, line in enumerate(LINES, 1):
        if text in line:
            return number, line.index(part) + 1
    raise AssertionError(text)


def test_indexes_count_from_zero_in_lists_of_lists(rules: ruleforge.Rules) -> None:
    game = rules.new_game(2, seed=1)
    shown = game.view(None)["vars"]
    assert shown["picked"] == 6 * 10 + 1  # lines[1][2] is 6, lines[0][0] is 1
    assert shown["pick_at"] == 3  # lines[4][0]
    assert game.evaluate("last(top_of(cell(board(first(players)), 1, 1)).segments)[0]") == 4


def test_a_phase_takes_its_arguments(rules: ruleforge.Rules) -> None:
    game = rules.new_game(2, seed=1)
    assert game.log_lines() == ["P1 is given 2", "P2 is given 3"]
    assert game.view(None)["vars"]["given(P1)"] == 2
    # place_at(p, n) put a tile on cells 1, 2, 3 of P1 and 5 of P2, each held by its player
    assert game.view(None)["zones"]["board(P2)[2,2]"] == ["Red 2"]
    # `mark` calls give(1, me) inside the action; `twice(p)` offers it twice across a decision
    marks = [a for a in game.legal_actions() if a[0] == game.program.action_ids["mark"]]
    assert len(marks) == 3
    game.apply(marks[0])
    assert game.view(None)["vars"]["given(P1)"] == 3
    assert game.log_lines()[-1] == "P1 is given 1"
    assert game.current_player == 0  # the second turn of twice(P1): its parameter survived the decision
    assert len([a for a in game.legal_actions() if a[0] == game.program.action_ids["mark"]]) == 2


def test_attributes_of_none_on_a_half_filled_board(rules: ruleforge.Rules) -> None:
    """The docs' grid examples on a board with empty cells: an empty cell's colour is none."""
    game = rules.new_game(2, seed=1)
    # P1: Blue 5, Blue 5, Red 2 / three empty cells; P2: only a Red 2 at 2,2
    assert game.preview_scoring("points") == [
        {"full lines": 1, "blue next to red": 1, "red group": 1, "big": 2, "marked": 0, "held": 3, "total": 8},
        {"full lines": 0, "blue next to red": 0, "red group": 1, "big": 0, "marked": 0, "held": 1, "total": 2},
    ]
    assert game.evaluate("top_of(cell(board(first(players)), 2, 1)).colour == none") is True
    assert game.evaluate("top_of(cell(board(first(players)), 2, 1)).big") is False  # a flag of none is false
    assert game.evaluate("top_of(cell(board(first(players)), 2, 1)).marked") is False


def test_random_games_with_half_filled_boards_score_what_the_board_shows(rules: ruleforge.Rules) -> None:
    for seed in range(3):
        game = rules.new_game(2, seed=seed)
        while not game.is_over:
            game.apply(game.legal_actions()[seed % len(game.legal_actions())])
        flags = game.state.p[game.program.props.index("marked")]
        marked = sum(1 for c in range(len(game.program.comp_kind)) if flags[c])
        assert sum(game.scores()[p]["breakdown"]["marked"] for p in (0, 1)) == marked


def test_an_index_outside_the_list_stops_the_game_at_the_index(rules: ruleforge.Rules) -> None:
    with pytest.raises(GameError) as caught:
        rules.new_game(2, seed=1, options={"late_index": 2})
    line, column = where("pick_at = lines[4][late_index]", "lines[4][late_index]")
    assert str(caught.value) == (f"{RULES}:{line}:{column}: list index 2 is out of range: the list has 2 items "
                                 "(they count from 0)")
    assert (caught.value.pos.line, caught.value.pos.column) == (line, column)


def test_arithmetic_on_none_points_inside_the_def(rules: ruleforge.Rules) -> None:
    with pytest.raises(GameError) as caught:
        rules.new_game(2, seed=1, options={"try_after_empty": True})
    line, column = where("def number_after", "top_of(x).number")
    assert (caught.value.pos.line, caught.value.pos.column) == (line, column)
    assert "'top_of(x).number' is none, and '+' needs a number" in str(caught.value)


def test_an_order_comparison_on_none_names_the_right_operand(tmp_path: Path) -> None:
    path = tmp_path / "cmp.rules"
    path.write_text('game "c"\nplayers 2\nkind T { n: int = 1 }\nzone z: pile\nvar x: flag = false\n'
                    'def small = 3 < first(z).n\nflow { x = small }\n')
    with pytest.raises(GameError) as caught:
        ruleforge.load(path).new_game(2, seed=0)
    assert (caught.value.pos.line, caught.value.pos.column) == (6, 17)
    assert "'first(z).n' is none, and '<' needs numbers to compare" in str(caught.value)


def errors(tmp_path: Path, body: str) -> list[tuple[int, int, str, str | None]]:
    path = tmp_path / "bad.rules"
    path.write_text(body)
    with pytest.raises(RulesError) as caught:
        ruleforge.load(path)
    return [(d.pos.line, d.pos.column, d.message, d.hint) for d in caught.value.diagnostics]


HEAD = 'game "b"\nplayers 2\nzone z: pile\nvar n: int = 0\ndef xs = [1, 2]\n'


def test_indexing_is_checked(tmp_path: Path) -> None:
    found = errors(tmp_path, HEAD + 'flow {\n  n = z[0]\n  n = xs[true]\n  n = "ab"[0]\n  n = xs[0] + 1\n}\n')
    assert found[0][:3] == (7, 7, "only lists can be indexed with [...]; this is zone")
    assert "list(c for c in Z)" in found[0][3]
    assert found[1][:3] == (8, 10, "a list index must be int, not flag")
    assert found[2][:3] == (9, 7, "only lists can be indexed with [...]; this is text")
    assert len(found) == 3


def test_a_phase_call_is_checked_for_arity_and_types(tmp_path: Path) -> None:
    found = errors(tmp_path, HEAD + 'phase add(k: int, p: player) { n += k }\n'
                   'flow {\n  add(1)\n  add(true, first(players))\n  add\n  add(1, first(players))\n}\n')
    assert found == [
        (8, 3, "phase 'add' takes 2 argument(s), 1 given", "call it as add(k: int, p: player)"),
        (9, 7, "argument 'k' of phase 'add' must be int, not flag", None),
        (10, 3, "phase 'add' takes 2 argument(s), 0 given", "call it as add(k: int, p: player)"),
    ]


def test_a_def_and_an_action_of_one_name_say_so_once(tmp_path: Path) -> None:
    found = errors(tmp_path, 'game "b"\nplayers 2\nflow { turn first(players): take }\n'
                   'def take = 1\naction take "take" { }\n')
    assert found == [(5, 1, "'take' is declared twice: as a def (line 4) and as an action",
                      "a name is declared once: rename the def or the action")]


def test_a_line_of_unknown_words_is_one_error(tmp_path: Path) -> None:
    found = errors(tmp_path, HEAD + 'flow {\n  order xs by n\n  n = 1\n  shufle z\n}\n')
    assert [f[:3] for f in found] == [
        (7, 3, "'order xs by n' is not a statement: no statement starts with 'order', and no phase is called 'order'"),
        (9, 3, "'shufle z' is not a statement: no statement starts with 'shufle', and no phase is called 'shufle'"),
    ]


def test_a_sort_without_its_item_name_says_how_to_write_it(tmp_path: Path) -> None:
    """`sort pool by n` (the form designers tried first) is one error at the `by`."""
    found = errors(tmp_path, HEAD + 'flow {\n  sort z by n\n}\n')
    assert found == [(7, 10, "'sort z' needs a name for each item: sort c in z by ...",
                      "write sort c in z by c.key (the key is read for each item c)")]


def test_postfixes_the_grammar_cannot_take_are_explained(tmp_path: Path) -> None:
    method = errors(tmp_path, HEAD + "flow { n = first(xs).size(1) }\n")
    assert method == [(6, 26, "'.size(...)': an attribute cannot be called (values have no methods)",
                       "a function takes the value as its argument, size(x); an attribute is read without '(...)'")]
    pair = errors(tmp_path, HEAD + "def grid = [[1, 2], [3]]\nflow { n = grid[0, 1] }\n")
    assert pair == [(7, 18, "an index is one number: xs[i, j] is not a list's item",
                     "a list of lists is indexed twice: xs[i][j]")]
    # and indexing after a call or an attribute is no longer a syntax error
    path = tmp_path / "ok.rules"
    path.write_text(HEAD + "kind T { parts: list of list of int = [[7]] }\nzone t: pile\n"
                    "components { T() in t }\nflow { n = first(list(xs for x in 1..2))[1] + top_of(t).parts[0][0] }\n")
    game = ruleforge.load(path).new_game(2, seed=0)
    assert game.view(None)["vars"]["n"] == 2 + 7


def test_a_local_holding_none_keeps_its_care_in_an_inlined_def(tmp_path: Path) -> None:
    path = tmp_path / "let.rules"
    path.write_text('game "l"\nplayers 2\nenum Colour { Red, Blue }\nkind Tile { colour: Colour }\nzone z: pile\n'
                    'var r: flag = true\ndef red(t: Tile) = t.colour == Red\n'
                    'flow { let t = top_of(z)  r = red(t) }\n')
    game = ruleforge.load(path).new_game(2, seed=0)
    assert game.view(None)["vars"]["r"] is False


def test_a_phase_parameter_is_a_new_name(tmp_path: Path) -> None:
    found = errors(tmp_path, HEAD + "phase p(me: int, a: int, a: flag) { }\nflow { }\n")
    assert [f[:3] for f in found] == [(6, 9, "'me' is a built-in name and cannot be a parameter"),
                                      (6, 26, "phase 'p' has two parameters called 'a'")]


def test_values_in_texts_read_as_the_docs_say(tmp_path: Path) -> None:
    """docs/language.md, strings: a flag as yes/no, a zone by its name, nothing as none, in a
    label and in a log line alike (the top of an empty zone and an unset player once stopped
    the game, and a log line wrote True and a zone's number)."""
    path = tmp_path / "texts.rules"
    path.write_text('game "t"\nplayers 2\nkind Card { n: int  label "card {n}" }\nzone deck: pile\n'
                    'zone offer: pile\nzone hand per player: hand\nvar on: flag = true\nvar leader: player\n'
                    'components { Card(n: 1..2) in deck }\n'
                    'action take "take {first(offer)} from {leader}, {on} {hand(me)}" {\n'
                    '  log "{on} {deck} {hand(me)} {top_of(offer)} {leader} {last(deck)} {me}"\n}\n'
                    'flow { turn first(players): take }\n', encoding="utf-8")
    game = ruleforge.load(path).new_game(2, seed=0)
    assert game.legal_labels() == ["take none from none, yes hand(P1)"]
    game.apply(game.legal_actions()[0])
    assert game.log_lines() == ["P1: take none from none, yes hand(P1)", "yes deck hand(P1) none none card 2 P1"]
