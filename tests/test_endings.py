"""`end when COND then after turn of P`: the end is checked as each turn is over."""

from __future__ import annotations

from pathlib import Path

import ruleforge

RULES = Path(__file__).parent / "synthetic" / "endings.rules"


def play(labels: list[str]) -> ruleforge.Game:
    game = ruleforge.load(RULES).new_game(2, seed=0)
    for label in labels:
        game.apply(label)
    return game


def test_a_declaration_gives_the_other_player_one_last_turn() -> None:
    game = play(["declare the end"])            # P1 declares
    assert not game.is_over and game.current_player == 1
    assert "declare the end" not in game.legal_labels()  # the end has begun: no second declaration
    game.apply("pass")                          # P2's last turn
    assert game.is_over


def test_declaring_second_ends_after_the_first_players_turn() -> None:
    game = play(["pass", "declare the end"])    # P2 declares: P1 plays the last turn
    assert game.current_player == 0
    game.apply("take a coin")
    assert game.is_over


def test_running_dry_on_the_first_players_turn_completes_the_round() -> None:
    # 5 coins: P1, P2, P1, P2 take four; P1 takes the last one on its turn -> P2 plays last
    game = play(["take a coin"] * 5)
    assert game.evaluate("count(bank)") == 0
    assert not game.is_over and game.current_player == 1
    game.apply("pass")
    assert game.is_over


def test_running_dry_on_the_second_players_turn_ends_at_once() -> None:
    # P1 passes first, so P2 takes the fifth coin: the round is complete, the game ends
    game = play(["pass", "take a coin", "take a coin", "take a coin", "take a coin", "take a coin"])
    assert game.is_over
    view = game.view(0)
    assert view["vars"]["ending"] is True and view["vars"]["finished"] is True
