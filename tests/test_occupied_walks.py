"""Walks over the non-empty cells of a grid (ruleforge/compiler/occupied.py) and the rows of
the tables of ready-made actions read once per outer parameter (compiler/actions.py) give
what the rules say: every aggregate over random layouts, and every legal action, in order,
of seeded games of tests/synthetic/occupied.rules, against plain Python."""

from __future__ import annotations

import ast as pyast
import random
from pathlib import Path

import pytest

import ruleforge
from ruleforge import Game
from ruleforge.compiler import invariants
from ruleforge.compiler.occupied import never_none, over_nonempty, skip_empty

RULES = Path(__file__).parent / "synthetic" / "occupied.rules"
SIZE, SPAN = 6, 3


@pytest.fixture(scope="module")
def rules() -> ruleforge.Rules:
    return ruleforge.load(RULES)


def occupied(game: Game, p: int) -> list[tuple[int, int]]:
    """The occupied cells of p's grid as (row, column), row by row."""
    z = game.state.z
    return [(r, k) for r in range(1, SIZE + 1) for k in range(1, SIZE + 1) if z[game.zone_index("grid", p, r, k)]]


def top_size(game: Game, p: int, r: int, k: int) -> int:
    prog = game.program
    stack = game.state.z[game.zone_index("grid", p, r, k)]
    return int(prog.comp_label[stack[-1]].split()[-1])


def expected_labels(game: Game) -> list[str]:
    """place(x in targets(me), t in hand(me), f in turns(t)), then grow(x in big_tops(me),
    t in hand(me)), worked out in plain Python."""
    p = game.current_player
    label = game.program.comp_label
    cells = occupied(game, p)
    rows, cols = [r for r, _ in cells], [k for _, k in cells]
    top, bottom, left, right = min(rows), max(rows), min(cols), max(cols)
    window = [(r, k) for r in range(max(1, top - 1, bottom - SPAN + 1), min(SIZE, bottom + 1, top + SPAN - 1) + 1)
              for k in range(max(1, left - 1, right - SPAN + 1), min(SIZE, right + 1, left + SPAN - 1) + 1)]
    taken = set(cells)
    targets = [(r, k) for r, k in window
               if (r, k) in taken or {(r - 1, k), (r + 1, k), (r, k - 1), (r, k + 1)} & taken]
    hand = game.state.z[game.zone_index("hand", p)]
    pieces = [(c, f) for c in hand for f in ((False, True) if label[c].startswith("bent") else (False,))]
    out = [f"place {label[c]} at {r},{k}{' turned' if f else ''}" for r, k in targets for c, f in pieces]
    for r, k in cells:
        size = top_size(game, p, r, k)
        if size > 1:
            out += [f"grow {label[c]} at {r},{k}" for c in hand if int(label[c].split()[-1]) >= size]
    return out


def test_the_walks_and_rows_are_in_the_generated_code(rules: ruleforge.Rules) -> None:
    source = rules.program(2).source
    assert "compress(range(" in source  # the non-empty cells, found in C
    assert "_first(" in source and "_last(" in source and "map(COL.__getitem__" in source
    assert "<= 6 else None" not in source  # a window's rows and columns lie in the grid: no check
    assert "row1_0 = ACT_1[a_x]" in source and "(row1_0 := ACT_ROW_1(a_x))" in source  # made as listed
    assert "row2_0 = ACT_2[a_x]" in source and "out.append(row2_0[a_t])" in source  # made at once


@pytest.mark.parametrize("seed", range(8))
def test_legal_actions_are_those_the_rules_give(rules: ruleforge.Rules, seed: int) -> None:
    game = rules.new_game(2, seed=seed)
    rng = random.Random(seed)
    while not game.is_over:
        # (equal pieces' actions are told apart by a `#2` in their labels)
        assert [label.split(" #")[0] for label in game.legal_labels()] == expected_labels(game)
        actions = game.legal_actions()
        game.apply(actions[rng.randrange(len(actions))])


AGGREGATES = {
    "top(p)": lambda cells, tops: min(r for r, _ in cells) if cells else None,
    "bottom(p)": lambda cells, tops: max(r for r, _ in cells) if cells else None,
    "left(p)": lambda cells, tops: min((k for _, k in cells), default=0),
    "right(p)": lambda cells, tops: max((k for _, k in cells), default=0),
    "count(x for x in cells(grid(p)) if count(x) > 0)": lambda cells, tops: len(cells),
    "sum(row(x) for x in cells(grid(p)) if count(x) > 0)": lambda cells, tops: sum(r for r, _ in cells),
    "first(column(x) for x in cells(grid(p)) if count(x) > 0)": lambda cells, tops: cells[0][1] if cells else None,
    "last(column(x) for x in cells(grid(p)) if count(x) > 0)": lambda cells, tops: cells[-1][1] if cells else None,
    "any(column(x) > 4 for x in cells(grid(p)) if count(x) > 0)": lambda cells, tops: any(k > 4 for _, k in cells),
    "every(row(x) < 4 for x in cells(grid(p)) if count(x) > 0)": lambda cells, tops: all(r < 4 for r, _ in cells),
    "list(row(x) * 10 + column(x) for x in big_tops(p))":
        lambda cells, tops: [r * 10 + k for r, k in cells if tops[r, k] > 1],
    "last(row(x) * 10 + column(x) for x in cells(grid(p)) if count(x) > 0 and top_of(x).size < 5)":
        lambda cells, tops: next((r * 10 + k for r, k in reversed(cells) if tops[r, k] < 5), None),
    "count(x for x in cells(grid(p)) if count(x) == 0)": lambda cells, tops: SIZE * SIZE - len(cells),
}


@pytest.mark.parametrize("seed", range(20))
def test_aggregates_over_the_non_empty_cells(rules: ruleforge.Rules, seed: int) -> None:
    rng = random.Random(seed)
    game = rules.new_game(2, seed=seed)
    spare = list(game.state.z[game.zone_index("spare")])
    for c in spare[:rng.randrange(len(spare))]:
        game.put(c, "grid", rng.randrange(2), row=rng.randint(1, SIZE), column=rng.randint(1, SIZE))
    if rng.random() < 0.3:  # an empty grid too (not the chooser's: its targets need a tile)
        zones = game.program.zones
        for c in [c for stack in game.state.z for c in stack if zones[game.state.w[c]].key.startswith("grid(P2)")]:
            game.put(c, "spare")
    for p in range(2):
        cells = occupied(game, p)
        tops = {(r, k): top_size(game, p, r, k) for r, k in cells}
        for text, expected in AGGREGATES.items():
            if not cells and text.startswith(("top(", "bottom(")):
                continue  # the row of none: an error, as it was before
            assert game.evaluate(text, p=p) == expected(cells, tops), text


def clause(code: str) -> pyast.comprehension:
    return pyast.parse(f"[x for x in {code}]", mode="eval").body.generators[0]


def test_only_a_walk_testing_first_that_a_cell_holds_something_is_rewritten() -> None:
    walk = clause("range(a, a + 9) if Z[x] and B[x]")
    rewritten = skip_empty(walk)
    assert pyast.unparse(rewritten.iter) == "compress(range(a, a + 9), Z[a:a + 9])"
    assert [pyast.unparse(c) for c in rewritten.ifs] == ["B[x]"]
    backwards = skip_empty(clause("reversed(range(4, 13)) if Z[x]"))
    assert pyast.unparse(backwards.iter) == "compress(reversed(range(4, 13)), reversed(Z[4:13]))"
    assert backwards.ifs == []
    for unchanged in ("range(a, a + 9) if not Z[x]", "range(a, a + 9) if B[x] and Z[x]",
                      "range(f(a), f(a) + 9) if Z[x]", "range(a, b) if Z[x]", "L[a] if Z[x]",
                      "range(a, a + 9) if Z[y]"):
        walk = clause(unchanged)
        assert skip_empty(walk) is walk, unchanged


def test_a_walk_is_listed_for_aggregates_only_when_nothing_else_is_tested() -> None:
    walk = skip_empty(clause("range(a, a + 9) if Z[x]"))
    item = pyast.parse("COL[x]", mode="eval").body
    assert pyast.unparse(over_nonempty("max", item, [walk])) == \
        "max(map(COL.__getitem__, list(compress(range(a, a + 9), Z[a:a + 9]))), default=0)"
    tested = skip_empty(clause("range(a, a + 9) if Z[x] and B[x]"))
    assert over_nonempty("max", item, [tested]) is None
    assert over_nonempty("max", pyast.parse("COL[x] + 1", mode="eval").body, [walk]) is None


def test_an_iterator_is_never_named_for_reuse() -> None:
    # a name for a walk would be empty the second time it is gone through
    walk = pyast.parse("compress(range(a, a + 9), Z[a:a + 9])", mode="eval").body
    assert not invariants.costly_part(walk)


def test_what_a_walk_knows_of_its_item_is_not_tested_again() -> None:
    # a non-empty cell's top needs no guard for an empty zone
    walk = skip_empty(clause("range(a, a + 9) if Z[x] and A_size[(Z[x] or NOIDX)[-1]] > 1"))
    assert [pyast.unparse(c) for c in walk.ifs] == ["A_size[Z[x][-1]] > 1"]
    # a zone's contents are component ids, never none
    contents = never_none(clause("Z[k] if x is not None and KIND[x] == 'Tile'"))
    assert [pyast.unparse(c) for c in contents.ifs] == ["KIND[x] == 'Tile'"]
    joined = never_none(clause("[y for y in Z[k]] + [y for y in Z[j] if B[y]] if x is not None and C[x]"))
    assert [pyast.unparse(c) for c in joined.ifs] == ["C[x]"]
    worked_out = never_none(clause("[a * 7 + k for k in range(1, 4)] if x != None and Z[x]"))
    assert [pyast.unparse(c) for c in worked_out.ifs] == ["Z[x]"]
    for unchanged in ("L[k] if x is not None and KIND[x] == 'Tile'", "Z[k] if KIND[x] == 'Tile' and x is not None",
                      "Z[a:b] if x is not None", "[top(y) for y in Z[k]] if x is not None",
                      "[y for y in L] + Z[k] if x != None"):
        walk = clause(unchanged)
        assert never_none(walk) is walk, unchanged
