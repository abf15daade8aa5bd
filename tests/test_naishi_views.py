"""Who sees which territory cards in Naishi (rulings §2, §3.5, §5): each Line is public, each
Hand is seen by its owner only until the final reveal, and every Hand is public after it.

`ruleforge test` (and so `ruleforge mutate`) checks scores, legal actions and logs, not views: a
`visible everyone in row 2` or a `revealed` flag set from the start passes every example and
record, so the views are checked here, at every decision of seeded random games, by seat.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import ruleforge
from ruleforge import Game, Rules

RULES_FILE = Path(__file__).parents[1] / "games" / "naishi.rules"


def cell_key(seat: int, row: int, column: int) -> str:
    return f"territory(P{seat + 1})[{row},{column}]"


def check_territory_views(game: Game, revealed: bool) -> None:
    """Lines: every card shown to both seats. Hands: shown to the owner; to the other seat only
    a hidden count, unless the final reveal has come."""
    for viewer in range(2):
        zones = game.view(viewer)["zones"]
        for seat in range(2):
            for column in range(1, 6):
                line, hand = zones[cell_key(seat, 1, column)], zones[cell_key(seat, 2, column)]
                assert isinstance(line, list), (viewer, seat, column, line)
                if seat == viewer or revealed:
                    assert isinstance(hand, list), (viewer, seat, column, hand)
                else:
                    assert hand == {"hidden": 1}, (viewer, seat, column, hand)


def play_checking_views(rules: Rules, seed: int) -> int:
    """A seeded random game; views checked at every decision once the Hands are laid and at the
    end. Returns how many decisions were checked before the reveal."""
    game = rules.new_game(2, seed=seed)
    copy = game.program.action_ids["copy"]
    rng = random.Random(seed)
    checked = 0
    while not game.state.over:
        legal = game._legal
        laid = all(game.view(seat)["zones"][cell_key(seat, 2, k)] for seat in range(2) for k in range(1, 6))
        if laid and all(action[0] != copy for action in legal):  # a Ninja's copy comes after the reveal
            check_territory_views(game, revealed=False)
            checked += 1
        game._apply_unchecked(rng.choice(legal))
    check_territory_views(game, revealed=True)
    return checked


@pytest.mark.parametrize("seed", range(5))
def test_lines_public_hands_private_until_the_reveal(seed: int) -> None:
    assert play_checking_views(ruleforge.load(RULES_FILE), seed) > 10
