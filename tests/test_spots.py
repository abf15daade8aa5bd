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


LIMITED_HANDS = '''
game "Hands"
players 2
kind Card { n: int  label "{n}" }
zone deck: pile
zone hand per player: hand, size 3
zone bench: pile, size 2
zone pool: pile
components {
  Card(n: 1..10) in deck
  Card(n: 11..13) in pool
}
flow {
  deal DEALT from deck to hand
  swap bench with pool
}
'''


@pytest.mark.parametrize(("dealt", "fits"), [(3, True), (4, False)])
def test_deal_is_held_to_capacity(tmp_path: Path, dealt: int, fits: bool) -> None:
    path = tmp_path / "hands.rules"
    path.write_text(LIMITED_HANDS.replace("DEALT", str(dealt)).replace("  swap bench with pool\n", ""))
    rules = ruleforge.load(path)
    if fits:
        game = rules.new_game(2, seed=0)
        assert game.is_over and [game.evaluate("count(hand(p))", p=p) for p in (0, 1)] == [3, 3]
    else:
        with pytest.raises(ruleforge.GameError, match=r"hands.rules:\d+:\d+: runtime error.*hand\(P1\) holds at most"):
            rules.new_game(2, seed=0)


def test_swapping_contents_is_held_to_capacity(tmp_path: Path) -> None:
    path = tmp_path / "hands.rules"
    path.write_text(LIMITED_HANDS.replace("DEALT", "1"))
    # the pool's 3 cards cannot go to a bench of 2
    with pytest.raises(ruleforge.GameError, match=r"runtime error.*bench holds at most 2"):
        ruleforge.load(path).new_game(2, seed=0)
