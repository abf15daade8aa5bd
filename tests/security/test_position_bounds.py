"""A position may ask for components beyond the game's own set, but never more than the
`components` limit allows, refused before anything is made; and placing them takes time in
proportion to their number, not its square."""

from __future__ import annotations

import time
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


def test_placing_thousands_of_extra_components_is_linear(rules: ruleforge.Rules) -> None:
    """Ten times the components may take ten times as long, with room for a busy machine; the
    quadratic placement took about a hundred times as long (0.03 s against 3 s here)."""
    timings = {}
    for count in (1_000, 10_000):
        start = time.perf_counter()
        game = rules.position(position(count))
        timings[count] = time.perf_counter() - start
        pool = next(game.state.z[zi] for zi, info in enumerate(game.program.zones) if info.name == "pool")
        assert len(pool) == count
        assert [game.program.comp_label[c] for c in pool] == ["1"] * count
    assert timings[10_000] < 30 * timings[1_000] + 0.5, timings
