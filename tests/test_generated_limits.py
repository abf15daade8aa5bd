"""Rules nested as deep as the limits allow (LIMITS.expression_depth, LIMITS.block_depth)
compile to Python that Python accepts, and a game of them runs; what Python still refuses
(loops of phases called inside loops) is a diagnostic of `check` at a rules line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import ruleforge
from ruleforge import RulesError
from ruleforge.limits import LIMITS
from ruleforge.parser import parse_rules

GAME = """\
game "Deep"
players 2
kind Tile {{
  value: int
  label "T{{value}}"
}}
zone bag: pile, visible everyone
zone board: grid, size 3 by 3, visible everyone
zone spot: grid, size 1 by 1
zone one: pile
zone hand per player: hand, visible everyone
var total per player: int = 0
var n: int = 0
var f: flag = false
components {{
  Tile(value: 1..6) in bag
  Tile(value: 9) in one
}}
def inc(k: int) = k + 1
def twice(k: int) = k + k
def deep(q: player) = {pure}
end when n > 1000 and {flag}
action take(t in bag) "take {{t}}" {{
  require {flag} or true
  require t.value > 0 and ({flag} or true)
  move t to hand(me)
}}
action pick(a in 1..3) "pick {{a}}" {{
  require a < 4 or {flag}
  n += a
}}
flow {{
  turn first(players) {{
    let q = {value}
    if {flag} {{ n = 0 }}
  }}
  repeat 2 {{ for p in players {{ turn p: take, pick }} }}
  score s into total
}}
scoring s for p {{ "x": deep(p) }}
"""

# One level of each expression form (X: the level inside) and how many levels it adds.
# (Generators walk one item: nested generators multiply their work while the game runs.)
INT_FORMS = {
    "add": ("(1 + X)", 1),
    "add_left": ("(X + 1)", 1),
    "product_left": ("(X * count(bag))", 1),
    "product_right": ("(count(bag) * X)", 1),
    "negation": ("(-X)", 1),
    "call": ("abs(X)", 1),
    "conditional": ("(if n == 0 then X else 1)", 1),
    "conditional_test": ("(if X == 0 then 1 else 2)", 2),
    "table_subject": ("(table X { 1: 2, 2+: 3, else: 4 })", 1),
    "table_value": ("(table n { 0: X, else: n })", 1),
    "generator_item": ("sum(t.value + X for t in one)", 2),
    "generator_filter": ("count(t for t in one if t.value < X)", 2),
    "min_max": ("max(X + t.value for t in one)", 2),
    "first": ("first(X + t.value for t in one)", 2),
    "argmax_key": ("argmax(t for t in one by t.value + X).value", 3),
    "written_out": ("sum(k + X for k in 1..1)", 2),
    "written_out_cells": ("count(c for c in cells(spot) if count(c) < X)", 2),
    "range": ("sum(k for k in 1..X)", 2),
    "two_clauses": ("sum(k + j + X for k in 1..1 for j in 1..1)", 3),
    "inlined_def": ("inc(X)", 1),
    "called_def": ("twice(X)", 1),
    "list": ("min(k for k in [X, 2])", 2),
    "cell": ("row(cell(board, X, 1))", 2),
}
FLAG_FORMS = {
    "not": ("(not X)", 1),
    "and": ("(X and true)", 1),
    "or": ("(f or X)", 1),
    "equal": ("(X == true)", 1),
    "any": ("any(t.value > 0 for t in one if X)", 2),
}
PLAYER_FORMS = {"next": ("next(X)", 1)}


def nested(form: str, levels: int, leaf: str) -> str:
    code = leaf
    for _ in range(levels):
        code = form.replace("X", code)
    return code


def deepest_accepted(text_of: Callable[[int], str], most: int, slack: int) -> str:
    """The text of the most levels, at most `most`, that the parser's depth limits accept.

    The places a form is used in add a level or two of their own, so the deepest text the
    parser takes is a little less than `most` (never less than `most - slack`): that text is
    the deepest a user can write, so that is what must compile and run."""
    for levels in range(most, most - slack - 1, -1):
        text = text_of(levels)
        try:
            parse_rules(text, "deep.rules")
        except RulesError as err:
            assert all("nested too deep" in d.message for d in err.diagnostics), err.render()
            continue
        return text
    raise AssertionError(f"no text of {most - slack} to {most} levels passes the parser")


def rules_text(kind: str, form: str, levels: int) -> str:
    """A game using one form nested `levels` times in every kind of place (a let, a
    condition, requirements, a def, a scoring, an end rule)."""
    e = nested(form, levels, {"int": "1", "flag": "true", "player": "q"}[kind])
    if kind == "int":
        value, flag = e, "(n > 0)"
    elif kind == "flag":
        value, flag = "1", e
    else:
        value, flag = "1", "(n > 0)"
    pure = {"int": e, "flag": f"(if {e} then 1 else 0)", "player": f"(if {e} == q then 1 else 0)"}[kind]
    return GAME.format(value=value.replace("q", "me"), flag=flag, pure=pure)


def play(path: Path) -> None:
    rules = ruleforge.load(path)
    rules.check_player_counts()
    game = rules.new_game(2, seed=1)
    while not game.is_over:
        game.apply(game.legal_actions()[0])
    assert len(game.scores()) == 2


FORMS = [(kind, name, form, per) for kind, forms in (("int", INT_FORMS), ("flag", FLAG_FORMS),
                                                      ("player", PLAYER_FORMS))
         for name, (form, per) in forms.items()]


@pytest.mark.parametrize(("kind", "name", "form", "per_level"), FORMS, ids=[f[1] for f in FORMS])
def test_an_expression_at_the_depth_limit_compiles_and_runs(tmp_path: Path, kind: str, name: str, form: str,
                                                           per_level: int) -> None:
    path = tmp_path / f"{name}.rules"
    most = LIMITS.expression_depth // per_level
    path.write_text(deepest_accepted(lambda levels: rules_text(kind, form, levels), most, slack=3))
    play(path)


BLOCKS = {
    "if": "if n >= 0 { B } elif n < -5 { n += 1 } else { n += 2 }",
    "for": "for k in 1..1 { B }",
    "for_zone": "for c in one { B }",
    "repeat": "repeat 1 { B }",
    "while": "let w = 0 while w < 1 { w += 1 B }",
    "until": "repeat { B } until true",
}
BLOCK_GAME = """\
game "Blocks"
players 2
kind Tile { value: int }
zone bag: pile, visible everyone
zone one: pile, visible everyone
var n: int = 0
components { Tile(value: 1..3) in bag Tile(value: 4) in one }
action take "take" { n += 1 }
action deep "deep" { PLAIN }
flow { FLOW turn first(players): deep }
"""


@pytest.mark.parametrize("form", list(BLOCKS))
@pytest.mark.parametrize("inside", ["n += 1", "turn first(players): take"], ids=["plain", "deciding"])
def test_blocks_at_the_depth_limit_compile_and_run(tmp_path: Path, form: str, inside: str) -> None:
    def nest(leaf: str, levels: int) -> str:
        for _ in range(levels):
            leaf = BLOCKS[form].replace("B", leaf)
        return leaf

    def text(levels: int) -> str:
        return BLOCK_GAME.replace("PLAIN", nest("n += 1", levels)).replace("FLOW", nest(inside, levels))

    path = tmp_path / "blocks.rules"
    path.write_text(deepest_accepted(text, LIMITS.block_depth, slack=1))  # the body of a flow is a block
    play(path)


def test_loops_of_phases_called_in_loops_past_python_are_a_diagnostic(tmp_path: Path) -> None:
    def loops(inner: str) -> str:
        return "for k in 1..1 { " * 8 + inner + " }" * 8

    path = tmp_path / "chain.rules"
    path.write_text(f'game "Chain"\nplayers 2\nvar n: int = 0\nphase a {{ {loops("b")} }}\n'
                    f'phase b {{ {loops("c")} }}\nphase c {{ {loops("n += 1")} }}\nflow {{ a }}\n')
    rules = ruleforge.load(path)  # each phase is within the limits on its own
    with pytest.raises(RulesError) as info:
        rules.check_player_counts()
    (d,) = info.value.diagnostics
    assert (d.pos.line, d.pos.column) == (6, 75)
    assert d.message.startswith("loops nest deeper here than the generated Python allows (20,")
    with pytest.raises(RulesError):
        rules.new_game(2)


def test_defs_inlined_into_one_another_stop_being_pasted_when_large(tmp_path: Path) -> None:
    # each def is shallow; pasted into one another, 260 of them once passed what Python could
    # compile: a def is now pasted in only while its code is small, then called
    defs = "".join(f"def d{i}(k: int) = d{i - 1}(k) + 1\n" for i in range(1, 260))
    path = tmp_path / "defs.rules"
    path.write_text(f'game "Defs"\nplayers 2\nvar n: int = 0\ndef d0(k: int) = k\n{defs}flow {{ n = d259(1) }}\n')
    rules = ruleforge.load(path)
    rules.check_player_counts()
    assert "d_d" in rules.program(2).source.split("def b0(st):")[1]  # a def called, not pasted
    assert rules.new_game(2).evaluate("n") == 260
