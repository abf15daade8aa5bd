"""The worked examples the games ship (games/*.examples.json), through the plugin as a
designer uses it: each example's whole score breakdown is a snapshot.

pytest collects the examples files themselves (`testpaths` holds games/), so each example's
expectations are checked there. A snapshot is accepted here only where those hand-worked
expectations fix it: every item of every player with points other than 0, and every total,
must be one the example expects. A snapshot can then freeze no number nobody worked out.
"""

from __future__ import annotations

from typing import Any

import pytest

from ruleforge.engine import player_name

GAMES = ["../games/hagakure.rules", "../games/naishi.rules", "../games/naishi_legends.rules",
         "../games/nakasendo.rules", "../games/nakasendo_wide.rules", "../games/love_letter.rules",
         "../games/no_thanks.rules", "../games/sushi_go.rules", "../games/kingdomino.rules",
         "../games/tictactoe.rules", "../games/connect_four.rules"]

pytestmark = pytest.mark.ruleforge_rules(*GAMES)


def unchecked(example: Any, rows: tuple) -> list[str]:
    """The points of a breakdown the example does not expect: nonzero items, and totals."""
    out = []
    for p, row in enumerate(rows):
        wanted = example.expect.get(p, {})
        out += [f"{player_name(p)} {item} = {points}" for item, points in row
                if item not in wanted and (points != 0 or item == "total")]
    return out


def test_breakdown(ruleforge_example: Any, breakdown_snapshot: Any) -> None:
    outcome = ruleforge_example.outcome()
    assert outcome.passed, "\n".join(outcome.report())
    if not ruleforge_example.example.expect:
        return  # an example of values only (a trick's winner): no score to keep
    assert outcome.breakdown is not None
    missing = unchecked(ruleforge_example.example, outcome.breakdown.rows)
    assert not missing, f"{ruleforge_example.example.where}: expect these too, worked by hand: {missing}"
    assert outcome.breakdown == breakdown_snapshot


def test_every_game_ships_examples(ruleforge_rules: Any) -> None:
    from ruleforge.testing import examples_of

    for path in GAMES:
        examples = examples_of(ruleforge_rules(path))
        assert len(examples) >= 4, path
        assert all(e.source.strip() for e in examples)
