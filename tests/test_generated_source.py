"""The Python generated for the three games, pinned by a digest per game and player count.

A change to the compiler that is not meant to change the code games run (a new check, a
safeguard for absurd inputs) must leave these digests alone. When a change is meant to
change the generated code (a new optimisation), look at the difference in
`rules.program(n).source`, measure it with bench/, and record the new digests here.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

import ruleforge

GAMES = Path(__file__).parent.parent / "games"

DIGESTS = {
    ("hagakure", 3): "30011d3e7b6ed352",
    ("hagakure", 4): "f5bff0451706f1c1",
    ("hagakure", 5): "82b697bbe16729e9",
    ("naishi", 2): "9cfe92137ee948b5",
    ("naishi_legends", 2): "d79f8862ef968ce6",
}


@pytest.mark.parametrize(("game", "players"), list(DIGESTS))
def test_generated_source_is_unchanged(game: str, players: int) -> None:
    source = ruleforge.load(GAMES / f"{game}.rules").program(players).source
    digest = hashlib.sha256(source.encode()).hexdigest()[:16]
    assert digest == DIGESTS[game, players], "the generated code changed: see this file's docstring"


def test_every_player_count_is_pinned() -> None:
    for game in {g for g, _ in DIGESTS}:
        lo, hi = ruleforge.load(GAMES / f"{game}.rules").player_range
        assert sorted(n for g, n in DIGESTS if g == game) == list(range(lo, hi + 1))
