"""Actions that offer themselves again inside their own effect keep their own parameters."""

from __future__ import annotations

from pathlib import Path

import ruleforge

RULES = Path(__file__).parent / "synthetic" / "reentrant.rules"


def test_nested_call_of_the_same_action_restores_its_parameters() -> None:
    game = ruleforge.load(RULES).new_game(1, seed=0)
    game.apply("take 1")  # value 1: may take again
    game.apply("take 2")  # value 2: may take again
    game.apply("take 4")  # value 4: no further choice
    assert game.is_over
    assert game.log_lines() == [
        "P1: take 1", "P1: take 2", "P1: take 4",
        "done with 4", "done with 2", "done with 1",  # innermost first, each with its own token
    ]


def test_a_chain_survives_save_and_load_in_the_middle() -> None:
    rules = ruleforge.load(RULES)
    game = rules.new_game(1, seed=0)
    game.apply("take 1")
    game.apply("take 2")
    restored = rules.load_game(game.to_json())
    assert restored.digest() == game.digest()
    restored.apply("pass")
    assert restored.log_lines()[-2:] == ["done with 2", "done with 1"]
