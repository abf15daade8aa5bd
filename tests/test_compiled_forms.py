"""The compiler's rewrites for speed change no result: every scoring item of
tests/synthetic/compiled_forms.rules against plain Python over random layouts, and the
rewrites of code trees that do it (ruleforge/compiler/rewrites.py)."""

from __future__ import annotations

import ast as pyast
import random
from pathlib import Path

import pytest

import ruleforge
from ruleforge.compiler.rewrites import attribute_values, cell_index, fixed_range, narrow_by_attribute, nest_guards

RULES = Path(__file__).parent / "synthetic" / "compiled_forms.rules"
SMALL, BIG, WIDE, NARROW = (2, 3), (3, 4), (1, 4), (1, 3)


@pytest.fixture(scope="module")
def rules() -> ruleforge.Rules:
    return ruleforge.load(RULES)


def random_layout(rules: ruleforge.Rules, players: int, seed: int) -> tuple[ruleforge.Game, dict]:
    """Tiles dropped at random on every grid (0 to 2 per cell), some lit; returns the game and
    the same layout as plain data: {(zone, owner): {(row, col): [(shape, lit), ...]}}."""
    rng = random.Random(seed)
    game = rules.new_game(players, seed=seed)
    shapes = [game.program.comp_label[c] for c in range(len(game.program.comp_label))]
    free = list(range(len(shapes)))
    rng.shuffle(free)
    layout: dict = {}
    grids = [("small", p, SMALL) for p in range(players)] + [("big", p, BIG) for p in range(players)] \
        + [("wide", None, WIDE), ("narrow", None, NARROW)]
    for zone, owner, (rows, cols) in grids:
        cells = layout.setdefault((zone, owner), {})
        for r in range(1, rows + 1):
            for k in range(1, cols + 1):
                stack = cells.setdefault((r, k), [])
                for _ in range(rng.choice([0, 0, 1, 1, 2])):
                    c = free.pop()
                    lit = rng.random() < 0.5
                    game.put(c, zone, owner, row=r, column=k)
                    game.set_prop(c, "lit", lit)
                    stack.append((shapes[c], lit))
    return game, layout


def expected_items(layout: dict, p: int, players: int) -> dict[str, int]:
    """Each item of the scoring, worked out in plain Python from the layout."""
    small, big = layout[("small", p)], layout[("big", p)]
    wide = layout[("wide", None)]

    def filled(q: int) -> int:
        return sum(1 for stack in layout[("small", q)].values() if stack)

    small_tiles = [(rc, t) for rc, stack in small.items() for t in stack]
    big_tiles = [t for stack in big.values() for t in stack]
    stars = sum(1 for _, (shape, _lit) in small_tiles if shape == "Star")
    squares_big = sum(1 for shape, _lit in big_tiles if shape == "Square")
    return {
        "small filled": filled(p),
        "big empty": sum(1 for stack in big.values() if not stack),
        "small any star": int(any(stack and stack[-1][0] == "Star" for stack in small.values())),
        "big every filled": int(all(big.values())),
        "small sum": sum(len(stack) for stack in small.values()),
        "players filled": sum(filled(q) for q in range(players)),
        "range": sum(1 for k in range(1, 5) if wide[(1, k)]),
        "wide under small": sum(1 for (_r, k), stack in small.items() if stack and wide[(1, k)]),
        "narrow under big": sum(1 for (_r, k) in big if k > NARROW[1]),
        "circles or lit stars": sum(1 for shape, lit in big_tiles if shape == "Circle" or (shape == "Star" and lit)),
        "squares in row 2": sum(r for (r, _k), (shape, _lit) in small_tiles if r == 2 and shape == "Square"),
        "not circles": sum(1 for shape, _lit in big_tiles if shape != "Circle"),
        "wide 1 stars": sum(1 for shape, _lit in wide[(1, 1)] if shape == "Star"),
        "wide 2 any lit": int(any(lit for _shape, lit in wide[(1, 2)])),
        "wide 3 all squares": int(all(shape == "Square" for shape, _lit in wide[(1, 3)])),
        "wide 4 tiles": len(wide[(1, 4)]),
        "stars times squares": stars * squares_big,
    }


@pytest.mark.parametrize("players", [2, 3])
def test_every_item_matches_plain_python(rules: ruleforge.Rules, players: int) -> None:
    for seed in range(60):
        game, layout = random_layout(rules, players, seed)
        preview = game.preview_scoring("points")
        for p in range(players):
            want = expected_items(layout, p, players)
            got = {k: v for k, v in preview[p].items() if k != "total"}
            assert got == want, (seed, p)
            assert preview[p]["total"] == sum(want.values())


def test_the_rewritten_forms_are_the_ones_compiled(rules: ruleforge.Rules) -> None:
    """The test above exercises the fast forms, not only the loops they replace."""
    source = rules.program(2).source
    score = source[source.index("def score_points"):source.index("def rank_key")]
    assert "split_by(_grid0, A_shape)" in score  # attribute split, once per scoring
    assert "_by0.get('Circle', ())" in score
    assert "range(13 + p * 12, 13 + p * 12 + 12)" in score  # 12 cells: still a loop
    assert "(1 if Z[1 + p * 6] else 0)" in score  # 6 cells: written out
    assert "1 <= COL[g_x" in score  # a 4-column grid's column needs checking on a 3-column one
    assert "if True" not in score and "1 + 36" not in score  # a range check decided, then folded away
    assert "_m" in score and ":= len(" in score  # the product skips its right side at 0
    assert "if Z[37] else 0" in score  # one (often empty) cell: no generator when empty


def code(text: str) -> pyast.expr:
    return pyast.parse(text, mode="eval").body


def text(node: pyast.AST) -> str:
    return pyast.unparse(node)


def test_fixed_range() -> None:
    def found(source: str):
        out = fixed_range(code(source))
        return None if out is None else (text(out[0]), out[1])

    assert found("range(8, 8 + 5)") == ("8", 5)
    assert found("range(1, 5 + 1)") == ("1", 5)
    assert found("range((17 + p * 10), (17 + p * 10) + 10)") == ("17 + p * 10", 10)
    assert found("range(0, n)") is None
    assert found("Z[3]") is None
    assert found("range(5, 2)") == ("5", 0)


def test_cell_index_adds_constants_up() -> None:
    assert text(cell_index(code("17"), code("1"), code("COL[x]"), 5)) == "COL[x] + 16"
    assert text(cell_index(code("(17 + p * 10)"), code("2"), code("k"), 5)) == "17 + p * 10 + k + 4"
    assert text(cell_index(code("3"), code("1"), code("1"), 5)) == "3"
    for first, row, col, cols in [(3, 2, 4, 5), (0, 1, 1, 3), (10, 3, 2, 4)]:
        index = cell_index(pyast.Constant(first), code("r"), code("c"), cols)
        assert eval(text(index), {"r": row, "c": col}) == first + (row - 1) * cols + col - 1  # noqa: S307


def test_nest_guards() -> None:
    body = pyast.parse("if not (a):\n    break\nif not (b):\n    break\nout.append(1)").body
    assert pyast.unparse(pyast.Module(nest_guards(body), [])) == "if a:\n    if b:\n        out.append(1)"
    # a guard whose exit is something else is left alone
    body = pyast.parse("if not (a):\n    continue").body
    assert pyast.unparse(pyast.Module(nest_guards(body), [])) == "if not a:\n    continue"


def test_attribute_values() -> None:
    def find(source: str):
        return attribute_values(code(source), "c")

    assert find("A_type[c] == 'X'") == ("type", ["X"])
    assert find("A_type[c] == 'X' and P[0][c]") == ("type", ["X"])
    assert find("(A_type[c] == 'X' and f(c)) or (A_type[c] == 'Y' and g(c))") == ("type", ["X", "Y"])
    assert find("(A_type[c] == 'X' or A_type[c] == 'Y') and ROW[c] == 1") == ("type", ["X", "Y"])
    assert find("A_type[c] == 'X' or P[0][c]") is None  # the second branch needs no type
    assert find("A_type[c] == 'X' or A_size[c] == 2") is None  # two attributes
    assert find("A_type[c] != 'X'") is None
    assert find("A_type[d] == 'X'") is None  # another variable


def test_narrowing_keeps_order_dependent_items() -> None:
    lines = [
        "_grid0 = grid_items(Z, 3, 4)",
        "x = len([0 for c in _grid0 if A_type[c] == 'X'])",
        "y = [c for c in _grid0 if A_type[c] == 'X']",
        "z = _last([c for c in _grid0 if A_type[c] == 'X'])",
        "w = max([c for c in _grid0 if A_type[c] == 'X'], key=lambda c: ROW[c], default=None)",
    ]
    module = pyast.fix_missing_locations(pyast.Module(narrow_by_attribute(pyast.parse("\n".join(lines)).body), []))
    out = pyast.unparse(module).split("\n")
    assert out[1] == "_by0 = split_by(_grid0, A_type)"
    assert out[2] == "x = len([0 for c in _by0.get('X', ()) if A_type[c] == 'X'])"
    # a list, a last item and a best item (the first of equals) keep the grid's order
    assert out[3:] == lines[2:]


def test_no_assignment_expression_where_python_forbids_one(tmp_path: Path) -> None:
    """A product or a counts-as test inside a generator's source is compiled without `:=`
    (Python rejects it there); the same forms elsewhere still use it."""
    text = RULES.read_text().replace(
        '  "stars times squares":',
        '  "in a source": count(k for k in 1..(count(t for t in small(p) if t.shape == Star)'
        ' * count(t for t in big(p) if t.shape == Square)))\n  "stars times squares":')
    path = tmp_path / "forms.rules"
    path.write_text(text)
    rules = ruleforge.load(path)
    for seed in range(10):
        game, layout = random_layout(rules, 2, seed)
        for p, row in enumerate(game.preview_scoring("points")):
            assert row["in a source"] == row["stars times squares"] == \
                expected_items(layout, p, 2)["stars times squares"]
