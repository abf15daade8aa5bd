"""The play screen: grids drawn as tables, and the chooser a person uses on large decisions
(scripted answers through HumanAgent's input_fn/output_fn). The terminal itself is tested in
tests/test_play_terminal.py."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import ruleforge
from ruleforge.agents import AgentAbort, HumanAgent, render_view
from ruleforge.human import STEP_THRESHOLD, Chooser, words_match

ROOT = Path(__file__).parents[1]
TILES = ROOT / "tests" / "synthetic" / "tile_grid.rules"
NAISHI = ROOT / "games" / "naishi.rules"
HAGAKURE = ROOT / "games" / "hagakure.rules"


def tiles(seed: int = 0) -> ruleforge.Game:
    """Seed 0: P1 holds a Lake and a Forest, 18 legal actions (16 places, a mark, pass)."""
    return ruleforge.load(TILES).new_game(2, seed)


class Script:
    """Answers given in turn to a HumanAgent; everything it says is kept."""

    def __init__(self, *answers: str):
        self.answers: Iterator[str] = iter(answers)
        self.shown: list[str] = []

    def ask(self, prompt: str) -> str:
        self.shown.append(prompt)
        try:
            return next(self.answers)
        except StopIteration:
            raise EOFError from None

    @property
    def text(self) -> str:
        return "\n".join(self.shown)

    def choose(self, game: ruleforge.Game) -> str:
        """The label of the action the answers lead to (each answer must be used)."""
        action = HumanAgent(self.ask, self.shown.append, width=100).choose(game)
        label = game.legal_labels()[game.legal_actions().index(action)]
        assert next(self.answers, None) is None, "an answer was left over"
        return label


# --- the API the screen is built on -----------------------------------------------------------


def test_action_parts_name_the_action_and_show_each_parameter() -> None:
    game = tiles()
    parts = [game.action_parts(a) for a in game.legal_actions()]
    labels = game.legal_labels()
    first = labels.index("place Lake at 2,3 flipped")
    assert parts[first] == ruleforge.ActionParts("place", (("t", "Lake"), ("x", "board(P1)[2,3]"), ("f", "true")))
    assert parts[labels.index("mark 3,3")] == ("mark", (("x", "board(P1)[3,3]"),))
    assert parts[labels.index("pass")] == ("pass", ())
    naishi = ruleforge.load(NAISHI).new_game(2, seed=1)
    assert naishi.action_parts(naishi.legal_actions()[0]) == ("give", (("c", "Ninja"),))


def test_view_lists_set_properties_only_when_asked() -> None:
    game = tiles()
    game.apply("place Lake at 2,3 flipped")
    game.apply("mark 3,3")  # P2 marks its start tile
    plain = game.view(0)
    assert "properties" not in plain  # the view is unchanged without the option
    props = game.view(0, properties=True)["properties"]
    assert props == {"board(P1)[2,3]": [{"flipped": True}], "board(P2)[3,3]": [{"weight": 1}, {}]}
    assert game.view(0, properties=True)["zones"] == plain["zones"]


# --- grids drawn as grids ------------------------------------------------------------------------


def test_a_grid_is_a_table_trimmed_round_its_tiles_with_true_numbers() -> None:
    game = tiles()
    game.apply("place Lake at 2,3 flipped")
    game.apply("mark 3,3")
    lines = render_view(game.view(0, properties=True), width=100)
    text = "\n".join(lines)
    assert "  board(P1) (5 by 5; rows 1-4, columns 2-4 shown)" in lines
    header = next(line for line in lines[lines.index("  board(P1) (5 by 5; rows 1-4, columns 2-4 shown)"):]
                  if "│" in line)
    assert header.split("│")[1:-1] == ["   ", " 2 ", "       3        ", " 4 "]
    assert "│ 2 │ · │ Lake (flipped) │ · │" in text
    assert "│ 3 │ · │ Hill (weight 1) / Marker │ · │" in text  # a stack, bottom first
    assert "  hand(P1): Forest, Lake" in lines  # piles stay lists (the hand drawn up to two again)
    assert "  hand(P2): hidden (2)" in lines


def test_naishi_grids_show_hidden_cells_and_the_whole_of_a_full_grid() -> None:
    game = ruleforge.load(NAISHI).new_game(2, seed=1)
    while "develop" not in game.legal_labels()[0]:
        game.apply(game.legal_actions()[0])
    text = "\n".join(render_view(game.view(0, properties=True), width=100))
    assert "  territory(P2) (2 by 5; 5 cells hidden)" in text  # full: not trimmed
    row2 = [line for line in text.splitlines() if line.startswith("  │ 2 │")]
    assert row2 and all("hidden" in cell for cell in row2[-1].split("│")[2:-1])  # P2's hidden row
    assert "│ hidden (5) │" in text and "  piles (1 by 5; 5 cells hidden)" in text  # face-down, by size
    assert "  river (1 by 5)" in text


def test_a_game_without_grids_draws_no_table() -> None:
    game = ruleforge.load(HAGAKURE).new_game(3, seed=0)
    lines = render_view(game.view(2, properties=True))
    assert not any("┌" in line for line in lines)
    assert lines[0] == "--- P3 sees (Hagakure) ---"
    assert "  hand(P3): 13, 12, 22, 15, 16" in lines


# --- the chooser ------------------------------------------------------------------------------------


def test_small_decisions_keep_the_numbered_list() -> None:
    game = ruleforge.load(HAGAKURE).new_game(3, seed=0)
    assert len(game.legal_actions()) <= STEP_THRESHOLD
    script = Script("x", "2")
    assert script.choose(game) == game.legal_labels()[1]
    assert "  1. " + game.legal_labels()[0] in script.shown
    assert "P3 [1-6]> " in script.shown
    assert any(line.startswith("no legal action matches 'x': please enter a number from 1 to 6")
               for line in script.shown)
    pasted = Script("zz " * 2000, "1")  # a long line pasted by mistake is not said back whole
    assert pasted.choose(game) == game.legal_labels()[0]
    [said] = [line for line in pasted.shown if line.startswith("no legal action matches")]
    assert said.startswith("no legal action matches '" + ("zz " * 19)[:57] + "...': please enter") and len(said) < 200


def test_step_by_step_action_then_each_parameter() -> None:
    game = tiles()
    assert len(game.legal_actions()) > STEP_THRESHOLD
    script = Script("1", "2", "3", "2")
    assert script.choose(game) == "place Forest at 3,4 flipped"
    text = script.text
    assert "  1. place: 16 options, e.g. place Lake at 2,3" in script.shown
    assert "  2. mark 3,3" in script.shown  # an action with one option shows its label
    # each step asks a question from where the values come from, never a parameter's name
    assert "place: which one (from hand)? (16 actions left)" in script.shown
    assert "  1. Lake (8)     2. Forest (8)" in script.shown
    assert "place Forest: which cell (on board)? (8 actions left)" in script.shown
    assert "  1. 2,3 (2)   2. 3,2 (2)   3. 3,4 (2)   4. 4,3 (2)" in script.shown  # cells by place
    assert "place Forest board(P1)[3,4]: yes or no? (2 actions left)" in text
    assert ["  1. no: place Forest at 3,4", "  2. yes: place Forest at 3,4 flipped"] == \
        script.shown[-4:-2]  # a flag as yes/no, each with the action it makes
    assert not any(re.search(r"choose [a-z] |\btrue\b", line) for line in script.shown)
    assert "-> place Forest at 3,4 flipped" in script.shown


def test_back_and_values_typed_by_name() -> None:
    script = Script("1", "1", "b", "b", "b", "place", "fo", "4,3", "f")
    assert script.choose(tiles()) == "place Forest at 4,3"
    assert "this is the first step: nothing to go back to" in script.shown


def test_a_single_value_is_taken_without_asking() -> None:
    labels = [f"take Gem to {n}" for n in range(1, 14)] + ["pass"]
    keys = [("take", "Gem", str(n), labels[n - 1]) for n in range(1, 14)] + [("pass", "pass")]
    params = [("which one (from supply)?", "which number?")] * 13 + [()]
    script = Script("1", "7")
    chooser = Chooser("P1", labels, keys, params, script.ask, script.shown.append)
    assert labels[chooser.choose()] == "take Gem to 7"
    assert not any("which one (from supply)" in line for line in script.shown)  # one gem: not asked
    assert "take Gem: which number? (13 actions left)" in script.shown


def test_alike_actions_count_once_in_a_small_menu() -> None:
    game = tiles(seed=2)  # a hand of two equal tiles: 18 actions, 10 a person can tell apart
    assert game.view(0)["zones"]["hand(P1)"] == ["Forest", "Forest"]
    assert len(game.legal_actions()) == 18 and sum("#2" in label for label in game.legal_labels()) == 8
    script = Script("4")
    assert script.choose(game) == "place Forest at 3,2 flipped"  # of two alike, the first
    listed = [line for line in script.shown if re.match(r"  \d+\. ", line)]
    assert len(listed) == 10 and not any("#2" in line for line in listed)
    assert "  4. place Forest at 3,2 flipped" in listed and "  10. pass" in listed
    assert "P1 [1-10]> " in script.shown
    assert "  (actions alike but for a '#2' in their label count once; l lists each)" in script.shown
    assert Script("l", "12").choose(tiles(seed=2)) == "place Forest at 3,2 flipped #2"  # the list has each
    assert Script("l", "b", "10").choose(tiles(seed=2)) == "pass"  # back from the full list


def test_actions_with_the_same_pieces_but_other_labels_are_told_apart_by_label() -> None:
    labels = [f"act {n}" for n in range(13)] + ["put a", "put a, face down"]
    keys = [("act", str(n), f"act {n}") for n in range(13)] + [("put", "a", "put a"), ("put", "a", "put a, face down")]
    params = [("n",)] * 13 + [("x",)] * 2
    script = Script("2", "2")
    chooser = Chooser("P1", labels, keys, params, script.ask, script.shown.append)
    assert chooser.choose() == 14
    assert "put a: which one? (2 actions left)" in script.shown
    assert "  1. put a              2. put a, face down" in script.shown


def test_typed_words_and_the_full_list() -> None:
    assert Script("place forest 3,4 flipped").choose(tiles()) == "place Forest at 3,4 flipped"
    assert Script("Place Lake at 2,3").choose(tiles()) == "place Lake at 2,3"  # the label itself
    script = Script("place lake 3,2", "2")  # two match: the flag is still to choose
    assert script.choose(tiles()) == "place Lake at 3,2 flipped"
    assert "2 actions match 'place lake 3,2' (b: back):" in script.shown
    script = Script("l", "17")
    assert script.choose(tiles()) == "mark 3,3"
    assert "  18. pass" in script.shown
    script = Script("l", "b", "?", "pass")
    assert script.choose(tiles()) == "pass"
    assert any("list every legal action" in line for line in script.shown)
    assert any("`visible nobody`" in line for line in script.shown)  # how an author keeps bookkeeping off


def test_back_out_of_a_narrowing_shows_the_step_again() -> None:
    script = Script("1", "lake", "b", "2", "b", "1", "2,3", "false")  # back and forth between steps
    assert script.choose(tiles()) == "place Lake at 2,3"
    script = Script("1", "b", "place la 2,3", "b", "pass")
    assert script.choose(tiles()) == "pass"
    assert "2 actions match 'place la 2,3' (b: back):" in script.shown
    assert script.shown.count("choose the action:") == 3


def test_end_of_input_abandons_the_game() -> None:
    with pytest.raises(AgentAbort, match="P1 stopped answering"):
        Script("1").choose(tiles())


def test_naishi_large_decision_step_by_step() -> None:
    game = ruleforge.load(NAISHI).new_game(2, seed=1)
    while len(game.legal_actions()) <= STEP_THRESHOLD:
        game.apply(game.legal_actions()[0])
    me = game.current_player
    script = Script("develop", "1,2", "2")
    label = script.choose(game)
    assert label == "develop from pile 2 into Hand 2"
    assert f"P{me + 1}, choose an action:" in script.shown
    assert "develop: which cell (on river)? (10 actions left)" in script.shown


def test_words_match() -> None:
    labels = ["place Lake at 2,3", "place Lake at 2,3 flipped", "mark 3,3", "pass"]
    assert words_match("place lake at 2,3", labels) == [0]
    assert words_match("pl la 2,3 f", labels) == [1]
    assert words_match("lake 2,3", labels) == [0, 1]
    assert words_match("mark", labels) == [2]
    assert words_match("3,3 mark", labels) == []
    assert words_match("", labels) == []


def test_alike_neighbours_in_a_pile_are_counted() -> None:
    from ruleforge.screen import render_view

    view = {"viewer": "P1", "game": "g", "zones": {"supply": ["Token", "Token", "Token", "Tile", "Token"]},
            "vars": {}}
    assert "  supply: Token ×3, Tile, Token" in render_view(view, width=80)


# --- what is around the board ---------------------------------------------------------------------

VIEWS = ROOT / "tests" / "synthetic" / "views.rules"


def test_variables_are_a_table_per_player_and_flags_read_yes_or_no() -> None:
    game = ruleforge.load(NAISHI).new_game(2, seed=1)
    view = game.view(0, properties=True)
    assert view["vars"]["declared"] is False and view["vars"]["copying"] is None  # the data keeps its types
    lines = render_view(view, width=60)
    table = lines.index("         P1  P2")  # a column per player
    assert lines[table + 1] == "  score   0   0"
    shared = " ".join(lines[table + 2:])
    assert "starter: P2" in shared and "declared: no" in shared and "copying: none" in shared
    assert all(len(line) <= 60 for line in lines[table:])  # shared variables wrap at the width
    assert not re.search(r"\b(True|False|None)\b", "\n".join(lines))
    five = render_view(ruleforge.load(HAGAKURE).new_game(5, seed=0).view(0), width=100)
    assert "          P1  P2  P3  P4  P5" in five and "  tricks   0   0   0   0   0" in five


def test_a_variable_seen_by_its_owner_only_leaves_the_others_cells_empty() -> None:
    from ruleforge.screen import render_vars

    shown = render_vars({"gift(P1)": True, "score(P1)": 3, "score(P2)": 12, "long": list(range(40))}, width=80)
    assert shown[:3] == ["          P1  P2", "  gift   yes   ·", "  score    3  12"]
    assert shown[3].startswith("  long: 0, 1, 2") and shown[3].endswith("…") and len(shown[3]) <= 80
    paths = {f"path(P{n})": [f"{r},{c}" for r in range(1, 6) for c in range(1, 6)] for n in range(1, 6)}
    table = render_vars(paths, width=60)  # five long lists side by side: cut to fit
    assert len(table) == 2 and all(len(line) <= 60 for line in table) and table[1].startswith("  path  1,1, 1")


def test_a_reveal_is_shown_once_and_stays_in_the_view_data() -> None:
    game = ruleforge.load(VIEWS).new_game(2, seed=1)
    game.apply("spy the vault")
    game.apply("pass")
    said: list[str] = []
    person = HumanAgent(lambda prompt: "pass", said.append, width=100)
    assert game.legal_labels()[game.legal_actions().index(person.choose(game))] == "pass"
    assert "  revealed to you in vault: gem 1, gem 2, gem 3" in said
    said.clear()
    person.choose(game)  # the same position drawn again: the reveal is not new any more
    assert said[0] == "--- P1 sees (Views) ---" and not any("gem 1" in line for line in said)
    assert game.view(0)["seen"] == [{"zone": "vault", "contents": ["gem 1", "gem 2", "gem 3"]}]
    assert "  seen in vault: gem 1, gem 2, gem 3" in render_view(game.view(0))  # the whole view, asked for


def test_a_decision_with_a_prompt_asks_in_its_own_words() -> None:
    """tests/synthetic/prompts.rules: the first decision is `turn p "reserve?": save, pass`, the
    next `choose "spend more?": spend, pass`; without a prompt the screen asks generically."""
    game = ruleforge.load(ROOT / "tests" / "synthetic" / "prompts.rules").new_game(2, seed=0)
    first = Script("1")
    assert first.choose(game) == "keep a coin back"
    assert "P1: reserve?" in first.shown and "P1, choose an action:" not in first.shown
    game.apply("keep a coin back")
    second = Script("1")
    second.choose(game)
    assert "P1: spend more?" in second.shown
    plain = Script("1")
    plain.choose(ruleforge.load(HAGAKURE).new_game(3, seed=0))
    assert "P3, choose an action:" in plain.shown
