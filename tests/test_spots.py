"""Zones with a capacity: `size N`, `room(Z)`, `capacity(Z)`; owners of per-player components."""

from __future__ import annotations

from pathlib import Path

import pytest

import ruleforge

RULES = Path(__file__).parent / "synthetic" / "spots.rules"


def test_spots_fill_block_and_recall() -> None:
    game = ruleforge.load(RULES).new_game(2, seed=0)
    assert game.evaluate("capacity(court)") == 2
    game.apply("send a worker")          # P1
    game.apply("send a worker")          # P2: the court is now full
    assert game.evaluate("room(court)") == 0
    # P1 may not send (the court is full) but may recall the worker it has there
    assert game.legal_labels() == ["recall your workers", "pass"]
    game.apply("pass")
    game.apply("pass")                   # P2 passes too
    game.apply("pass")
    game.apply("pass")
    assert game.is_over


def test_recall_takes_back_only_your_own() -> None:
    game = ruleforge.load(RULES).new_game(2, seed=0)
    game.apply("send a worker")  # P1
    game.apply("send a worker")  # P2
    assert game.legal_labels() == ["recall your workers", "pass"]
    game.apply("recall your workers")
    assert game.evaluate("count(court)") == 1
    assert game.evaluate("owner(top_of(court))") == 1  # P2's worker stays


def test_moving_into_a_full_zone_is_an_error_naming_the_rule(tmp_path: Path) -> None:
    text = RULES.read_text().replace("turn p: send, recall, pass", "turn p: overfill")
    broken = tmp_path / "overfill.rules"
    broken.write_text(text)
    game = ruleforge.load(broken).new_game(2, seed=0)
    game.apply("overfill")
    game.apply("overfill")
    with pytest.raises(ruleforge.GameError, match=r"overfill.rules:\d+:\d+: runtime error.*court holds at most 2"):
        game.apply("overfill")
