"""A rule that fails while a game runs is reported at the rule, in words, never as a bare
Python error without a place."""

from __future__ import annotations

from pathlib import Path

import pytest

import ruleforge
from ruleforge import GameError

RULES = '''game "c"
players 2
zone board: grid, size 3 by 3
var items: list of int
def far = list(x for x in [cell(board, 5, 5)] if count(x) == 0)
action a(x in far) "a" { }
action b "b" { log "{count(items)}" }
action c "c" { }
flow { turn first(players): c  turn first(players): a, b }
'''


@pytest.fixture
def rules(tmp_path: Path) -> ruleforge.Rules:
    path = tmp_path / "c.rules"
    path.write_text(RULES)
    return ruleforge.load(path)


def test_a_failure_while_listing_options_names_the_parameter(rules: ruleforge.Rules) -> None:
    # cell(board, 5, 5) is none (outside a 3x3 grid): count(none) fails while the options of
    # the second decision are worked out, at the parameter `x in far` (line 6, column 10)
    game = rules.new_game(2, seed=0)
    with pytest.raises(GameError) as err:
        game.apply(game.legal_actions()[0])
    assert err.value.pos is not None and (err.value.pos.line, err.value.pos.column) == (6, 10)
    assert "a value here is none where the rule needs one" in str(err.value)


def test_a_none_list_counted_names_the_rule(tmp_path: Path) -> None:
    path = tmp_path / "d.rules"
    path.write_text(RULES.replace("turn first(players): a, b }", "turn first(players): b }"))
    # (c first, then b alone)
    game = ruleforge.load(path).new_game(2, seed=0)
    game.apply(game.legal_actions()[0])  # c
    with pytest.raises(GameError) as err:
        game.apply(game.legal_actions()[0])  # b logs count(items), and items is unset
    assert err.value.pos is not None and err.value.pos.line == 7
    assert "a value here is none" in str(err.value)
