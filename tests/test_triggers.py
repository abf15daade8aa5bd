"""Triggers: `when moved into Z (from Z2)` and `when moved out of Z (into Z2)`."""

from __future__ import annotations

from pathlib import Path

import ruleforge

RULES = Path(__file__).parent / "synthetic" / "triggers.rules"


def points(game: ruleforge.Game) -> list[int]:
    return [game.evaluate("points(p)", p=p) for p in range(game.players)]


def test_enter_and_leave_triggers_with_a_decision_inside() -> None:
    game = ruleforge.load(RULES).new_game(2, seed=0)
    # dealing 6, 5, 4 to the river fired nothing: the triggers watch hands
    assert points(game) == [0, 0]
    game.apply("take 6")            # P1: +6, and 6 >= 5 offers a discard
    assert points(game) == [6, 0]
    assert game.current_player == 0 and game.legal_labels() == ["discard 6", "pass"]
    game.apply("discard 6")         # out of the hand into the discard: -1
    assert points(game) == [5, 0]
    game.apply("take 4")            # P2: +4, no decision
    assert points(game) == [5, 4]
    game.apply("take 5")            # P1: +5, offered a discard again
    game.apply("pass")
    assert points(game) == [10, 4]
    game.apply("pass")              # P2
    # the flow moves P1's hand (the 5) to the discard: the leave trigger fires once more
    assert game.is_over
    assert points(game) == [9, 4]


def test_a_move_from_elsewhere_does_not_fire_an_enter_trigger_narrowed_by_from() -> None:
    game = ruleforge.load(RULES).new_game(2, seed=0)
    card = game.component("1")  # still in the deck
    game.put(card, "hand", 1)    # a hand-built position fires no triggers
    assert points(game) == [0, 0]
    assert game.evaluate("count(hand(p))", p=1) == 1
