"""`counts as` with `is` and counted_as(), kind tests, and `best` choices at scoring time,
on tests/synthetic/counts_best.rules (one player; the tableau holds Lion, Lion, Eagle,
Twin (also Lion and Eagle), Mask, Mask)."""

from __future__ import annotations

from pathlib import Path

import pytest

import ruleforge

RULES = Path(__file__).parent / "synthetic" / "counts_best.rules"


@pytest.fixture()
def game() -> ruleforge.Game:
    return ruleforge.load(RULES).new_game(1, seed=0)


def masks(game: ruleforge.Game) -> list[int]:
    return game.find("Mask")


def test_is_and_counted_as(game: ruleforge.Game) -> None:
    twin = game.component("Twin")
    assert game.evaluate("counted_as(c)", c=twin) == ["Twin", "Lion", "Eagle"]
    assert game.evaluate("lions(p)", p=0) == 3  # two Lions and the Twin
    assert game.evaluate("eagles(p)", p=0) == 2  # the Eagle and the Twin
    mask = masks(game)[0]
    game.set_prop(mask, "copy", "Eagle")
    assert game.evaluate("eagles(p)", p=0) == 3
    assert game.evaluate("counted_as(c)", c=mask) == ["Mask", "Eagle"]
    assert game.evaluate("count(x for x in purse if x is Card)") == 0  # the coin is no Card


def test_best_tries_every_combination_and_keeps_the_highest(game: ruleforge.Game) -> None:
    # Masks uncopied: options Lion/Eagle each. Lions 3 -> 3 points, 4+ -> 10; eagles 3 each.
    #   Lion+Lion: lions 5 -> 10, eagles 2 -> 6 = 16     Lion+Eagle: lions 4 -> 10, eagles 3 -> 9 = 19
    #   Eagle+Eagle: lions 3 -> 3, eagles 4 -> 12 = 15   so the best is one Lion, one Eagle: 19.
    # kinds: 6 cards; types: Lion, Eagle, Mask, Twin all present = 4.
    row = game.preview_scoring("final")[0]
    assert row == {"lions": 10, "eagles": 9, "kinds": 6, "types": 4, "total": 29}
    # scoring never changes the state: the masks are still uncopied
    assert all(game.evaluate("c.copy == none", c=m) for m in masks(game))


def test_best_keeps_a_choice_already_made(game: ruleforge.Game) -> None:
    first, second = masks(game)
    game.set_prop(first, "copy", "Eagle")
    # first fixed as Eagle; second: Lion -> lions 4 (10) + eagles 3 (9) = 19; Eagle -> 3 + 12 = 15
    row = game.preview_scoring("final")[0]
    assert (row["lions"], row["eagles"]) == (10, 9)


def test_applied_scoring_adds_the_best_total(game: ruleforge.Game) -> None:
    assert game.is_over  # the flow only scores
    assert game.scores()[0]["total"] == 29
    assert sum(game.scores()[0]["breakdown"].values()) == 29
