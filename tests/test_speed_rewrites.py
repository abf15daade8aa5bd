"""The compiler's rewrites for speed give what the rules say (tests/synthetic/rewrites.rules):
a generator clause's source that reads no earlier clause is listed once, and only when it is
reached; last() over a range or a grid is searched from the end; an action's last parameters,
listed once per decision as combinations, follow the state from one decision to the next."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import ruleforge
from ruleforge import Game, GameError

RULES = Path(__file__).parent / "synthetic" / "rewrites.rules"
SIZE = 4


@pytest.fixture(scope="module")
def rules() -> ruleforge.Rules:
    return ruleforge.load(RULES)


def occupied(game: Game, p: int) -> list[tuple[int, int]]:
    st = game.state
    return [(r, k) for r in range(1, SIZE + 1) for k in range(1, SIZE + 1)
            if st.z[game.zone_index("grid", p, r, k)]]


def expected_labels(game: Game) -> list[str]:
    """place(x in near(me), t in hand(me), f in turns(t)) worked out in plain Python."""
    p = game.current_player
    cells = occupied(game, p)
    rows = [r for r, _ in cells]
    cols = [k for _, k in cells]
    label = game.program.comp_label
    hand = game.state.z[game.zone_index("hand", p)]
    pieces = [(c, f) for c in hand for f in ((False, True) if label[c].startswith("bent") else (False,))]
    return [f"place {label[c]} at {r},{k}{' turned' if f else ''}"
            for r in range(max(1, min(rows) - 1), min(SIZE, max(rows) + 1) + 1)
            for k in range(max(1, min(cols) - 1), min(SIZE, max(cols) + 1) + 1)
            for c, f in pieces]


def test_the_rewrites_are_in_the_generated_code(rules: ruleforge.Rules) -> None:
    source = rules.program(2).source
    assert "keep(" in source  # the columns' range, once for every row
    assert "_last(list(compress(" in source  # last() of the non-empty cells: the end of their list
    assert "for a_t, a_f in " in source  # the pieces and their turns, once per decision


@pytest.mark.parametrize("seed", range(6))
def test_legal_actions_are_those_the_rules_give(rules: ruleforge.Rules, seed: int) -> None:
    game = rules.new_game(2, seed=seed)
    rng = random.Random(seed)
    while not game.is_over:
        assert game.legal_labels() == expected_labels(game)
        p = game.current_player
        cells = occupied(game, p)
        assert game.evaluate("first_row(p)", p=p) == min(r for r, _ in cells)
        assert game.evaluate("last_row(p)", p=p) == max(r for r, _ in cells)
        actions = game.legal_actions()
        game.apply(actions[rng.randrange(len(actions))])


def test_a_clause_source_is_worked_out_only_when_reached(rules: ruleforge.Rules) -> None:
    game = rules.new_game(2, seed=0)
    # the inner source reads the top of an empty zone: an error, but only once it is reached
    costly = "1..(max(t.size for t in hand(p)) + top_of(empty).size)"
    assert game.evaluate(f"count(k for r in 1..0 for k in {costly})", p=0) == 0
    with pytest.raises(GameError):
        game.evaluate(f"count(k for r in 1..2 for k in {costly})", p=0)
    # listed once, gone through for every value of the clause before it
    assert game.evaluate("count(k for r in 1..3 for k in 1..max(t.size for t in hand(p)))", p=0) == 6
    assert game.evaluate("list(r * 10 + k for r in 1..2 for k in 1..max(t.size for t in hand(p)))",
                         p=0) == [11, 12, 21, 22]


def test_last_from_the_end_is_the_last_found(rules: ruleforge.Rules) -> None:
    game = rules.new_game(2, seed=0)
    assert game.evaluate("last(k for k in 1..10 if k % 3 == 1)") == 10
    assert game.evaluate("last(k for k in 1..10 if k > 10)") is None
    assert game.evaluate("last(k * 2 for k in 1..10 if k < 4)") == 6


@pytest.mark.parametrize(("test", "sizes"), [("count(pieces_over(p, n)) > 0", {0: True, 1: True, 2: False}),
                                             ("count(pieces_over(p, n)) >= 1", {0: True, 2: False}),
                                             ("count(pieces_over(p, n)) == 0", {0: False, 1: False, 2: True}),
                                             ("count(pieces_over(p, n)) < 1", {1: False, 2: True}),
                                             ("count(pieces_over(p, n)) > 1", {0: True, 1: False})])
def test_a_count_of_a_listing_def_against_zero(rules: ruleforge.Rules, test: str, sizes: dict) -> None:
    # the hand holds sizes 1 and 2 (3 is on the grid); `> 1` is no question of none or some
    game = rules.new_game(2, seed=0)
    for n, expected in sizes.items():
        assert game.evaluate(test, p=0, n=n) is expected
