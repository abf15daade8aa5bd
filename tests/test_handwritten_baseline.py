"""Tests for the hand-written Hagakure speed baseline (bench/handwritten_hagakure.py)."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest
from baselines import load_baseline

import ruleforge

BASELINE = Path(__file__).parents[1] / "bench" / "handwritten_hagakure.py"

hw = load_baseline("handwritten_hagakure")
OF = hw.OLD_FOOL


# Worked checks from the rulings.
def test_trick_villager_lead() -> None:
    assert hw.trick_winner([7, 12, OF, 3]) == 1


def test_trick_samurai_lead_two_old_fools() -> None:
    assert hw.trick_winner([19, OF, 25, OF]) == 3


def test_trick_old_fool_lead_lone_fool_is_zero() -> None:
    assert hw.trick_winner([OF, 5, 18]) == 2


def test_two_old_fools_beat_samurai_27() -> None:
    assert hw.trick_winner([OF, 27, OF, 26, 17]) == 2


def test_score_nobori_1() -> None:
    assert hw.round_score(2, True, 0, 1, 4) == 6
    assert hw.round_score(0, False, 0, 1, 4) == -4


def test_score_nobori_2() -> None:
    assert hw.round_score(4, False, 0, 2, 4) == 0
    assert hw.round_score(0, False, 0, 2, 4) == 0


def test_score_plain_and_nobori_3() -> None:
    assert hw.round_score(3, True, 0, None, 3) == 4
    assert hw.round_score(0, False, 0, None, 3) == -2
    assert hw.round_score(2, False, 4, 3, 4) == 4
    assert hw.round_score(2, False, 3, 3, 4) == 2
    assert hw.round_score(2, False, 4, 3, 5) == 2  # 5 Villagers needed with 5 players
    assert hw.round_score(2, False, 5, 3, 5) == 4


def test_follow_rule() -> None:
    hand = [7, OF, 20, 3]
    assert sorted(hw.legal_cards(hand, 19)) == [OF, 20]
    assert sorted(hw.legal_cards(hand, OF)) == [OF, 20]
    assert sorted(hw.legal_cards(hand, 9)) == sorted(hand)
    assert sorted(hw.legal_cards([5, 9], 18)) == [5, 9]
    assert sorted(hw.legal_cards(hand, None)) == sorted(hand)


@pytest.mark.parametrize(
    ("players", "cards", "villagers", "samurai"),
    [(3, 20, 12, 5), (4, 20, 12, 5), (5, 30, 17, 10)],
)
def test_deck(players: int, cards: int, villagers: int, samurai: int) -> None:
    deck = hw.build_deck(players)
    setup = hw.SETUPS[players]
    assert len(deck) == cards == players * setup.hand_size + setup.yomi_size
    assert Counter(deck)[OF] == 3
    assert sum(hw.is_villager(c) for c in deck) == villagers
    assert sum(c >= 18 for c in deck) == samurai


@pytest.mark.parametrize("players", [3, 4, 5])
def test_round_tricks_add_up(players: int) -> None:
    rng = random.Random(players)
    size = hw.SETUPS[players].hand_size
    for _ in range(200):
        unused = [set(hw.NOBORI_TOKENS) for _ in range(players)]
        seen: list[list] = [[] for _ in range(players)]
        played: list[list[int]] = [[] for _ in range(players)]
        scores, tricks = hw.play_round(players, 0, unused, rng, seen, 0, played)
        assert sum(tricks) == size
        for seat in range(players):
            assert len(played[seat]) <= 1
            assert unused[seat] == set(hw.NOBORI_TOKENS) - set(played[seat])
            if tricks[seat] == 0 and not played[seat]:
                assert scores[seat] == -2


@pytest.mark.parametrize("players", [3, 4, 5])
def test_random_games(players: int) -> None:
    rng = random.Random(1234 + players)
    setup = hw.SETUPS[players]
    per_round_max = 2 * (setup.hand_size + 1)  # Nobori 1 with every trick and #18
    extra_rounds = 0
    for _ in range(300):
        result = hw.play_game(players, rng)
        scores = result.scores
        assert len(scores) == players
        assert result.rounds_played >= setup.rounds
        extra_rounds += result.rounds_played - setup.rounds
        assert scores.count(max(scores)) == 1  # ties are always played off
        assert -4 * result.rounds_played <= min(scores)
        assert max(scores) <= per_round_max * result.rounds_played
        for tokens, seen in zip(result.nobori_played, result.seen):
            assert len(tokens) == len(set(tokens)) <= 5
            assert len(seen) == tokens.count(5)
    assert extra_rounds > 0  # tie-break rounds do happen


def test_nobori_5_snapshots() -> None:
    rng = random.Random(7)
    for _ in range(50):
        result = hw.play_game(5, rng)
        for seat, seen in enumerate(result.seen):
            for _round, target, cards in seen:
                assert target != seat
                assert target == hw.YOMI or 0 <= target < 5
                assert len(cards) == 5  # taken before the fight: full hand or Yomi


def test_deterministic_with_seed() -> None:
    a = [hw.play_random_game(4, random.Random(99)) for _ in range(3)]
    b = [hw.play_random_game(4, random.Random(99)) for _ in range(3)]
    assert a == b


def test_invalid_player_count() -> None:
    with pytest.raises(ValueError):
        hw.play_random_game(2, random.Random(0))


class Counting(random.Random):
    """A seeded rng that records the size of every draw made with `choice` or `randrange`."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.sizes: list[int] = []

    def choice(self, seq):  # type: ignore[override]
        self.sizes.append(len(seq))
        return super().choice(seq)

    def randrange(self, *args):  # type: ignore[override]
        self.sizes.append(args[0])
        return super().randrange(*args)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_every_decision_is_one_draw(players: int) -> None:
    # One draw for the first dealer, then one per decision; the first round starts with each
    # seat's preparation: pass or one of its 5 Nobori.
    for seed in range(20):
        rng = Counting(seed)
        result = hw.play_game(players, rng)
        assert result.decisions == len(rng.sizes) - 1
        assert rng.sizes[:2] == [players, 6]


def test_decisions_match_the_engine() -> None:
    # The hand-written game offers the decisions of games/hagakure.rules with as many options
    # each, so over 200 seeded random games per player count the mean decisions per game and
    # the mean options per decision agree (within 3%: over 4 standard errors of the difference).
    rules = ruleforge.load(Path(__file__).parents[1] / "games" / "hagakure.rules")
    for players in (3, 4, 5):
        rng = random.Random(players)
        decisions = options = 0
        for seed in range(200):
            game = rules.new_game(players, seed=seed)
            while not game.is_over:
                acts = game.legal_actions()
                game.apply(acts[rng.randrange(len(acts))])
                decisions += 1
                options += len(acts)
        counting = Counting(players)
        hand = sum(hw.play_game(players, counting).decisions for _ in range(200))
        hand_options = sum(counting.sizes) - players * 200  # less the draw of each first dealer
        assert abs(hand / decisions - 1) < 0.03, (players, hand / 200, decisions / 200)
        assert abs((hand_options / hand) / (options / decisions) - 1) < 0.03, (
            players, hand_options / hand, options / decisions)
