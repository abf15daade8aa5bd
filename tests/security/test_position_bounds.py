"""A position may ask for components beyond the game's own set, but never more than the
`components` limit allows, refused before anything is made; and placing them takes time in
proportion to their number, not its square."""

from __future__ import annotations

from pathlib import Path

import pytest

import ruleforge
from ruleforge.diagnostics import GameError
from ruleforge.limits import LIMITS, describe

PICK = Path(__file__).parents[2] / "tests" / "synthetic" / "pick.rules"


@pytest.fixture(scope="module")
def rules() -> ruleforge.Rules:
    return ruleforge.load(PICK)


def position(count: int) -> dict:
    return {"format": "ruleforge-position/1", "players": 2,
            "zones": {"pool": ["1"] * count, "taken(P1)": ["2"] * count}}


def test_a_position_asking_for_more_components_than_the_limit_is_refused(rules: ruleforge.Rules) -> None:
    count = LIMITS.components  # twice over, with the game's own 3: past the limit
    with pytest.raises(GameError) as caught:
        rules.position(position(count))
    assert str(caught.value) == (
        f"position: it asks for {2 * count - 2:,} components beyond the game's own 3: more than a game may have "
        f"({describe('components')})")


def test_thousands_of_extra_components_are_placed_in_order(rules: ruleforge.Rules) -> None:
    """Each zone's list is rebuilt once (position._place): 20,000 extras took 50 s when they were
    moved one at a time, 0.3 s now (measured, not timed here: a test is no benchmark)."""
    count = 10_000
    game = rules.position(position(count))
    zones = {info.key: game.state.z[zi] for zi, info in enumerate(game.program.zones)}
    assert [game.program.comp_label[c] for c in zones["pool"]] == ["1"] * count
    assert [game.program.comp_label[c] for c in zones["taken(P1)"]] == ["2"] * count
    assert all(game.state.w[c] == zi for zi, zone in enumerate(game.state.z) for c in zone)
