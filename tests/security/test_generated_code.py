"""A rules file cannot run code: the generated module is built as a tree, every text of the rules
is a constant in it, and it runs with only the names the compiler emits (docs/security.md)."""

from __future__ import annotations

import ast as pyast
import os
from pathlib import Path

import pytest

import ruleforge
from ruleforge import limits
from ruleforge.compiler import invariants
from ruleforge.compiler.sandbox import BUILTINS, unexpected_names
from ruleforge.diagnostics import GameError, RulesError

from .hostile import PIECES, hostile_rules

ROOT = Path(__file__).resolve().parents[2]
RULES_FILES = sorted((ROOT / "games").glob("*.rules")) + sorted((ROOT / "tests" / "synthetic").glob("*.rules"))

# texts that broke the text-rewriting compiler: a backslash before a quote once the loop value
# was put in with re.sub, a source-map tag, the names of generated slots and arguments
TEXTS = [
    "a\\",
    "x\\' + str(__import__('os').system('touch PWNED')) + '\\",
    "# @0:1:1",
    "L[0] me a_x g_k_0 g_k_1 g_k_2 g_k_3",
    "ROW[3] 1 <= 3 <= 4 and",
    "'''",
    "\x1b]0;title\x07 \u202e",
    *[p for p in PIECES if '"' not in p],
]


def play_out(rules: ruleforge.Rules, seed: int = 1) -> ruleforge.Game:
    game = rules.new_game(2, seed=seed)
    while not game.is_over:
        game.apply(game.legal_actions()[0])
    return game


@pytest.mark.parametrize("text", TEXTS, ids=range(len(TEXTS)))
def test_a_text_is_kept_exactly_and_runs_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "hostile.rules"
    path.write_text(hostile_rules(text, "note"), encoding="utf-8")
    rules = ruleforge.load(path)
    rules.check_player_counts()
    game = play_out(rules)
    assert rules.title == text
    assert game.log_lines()[:9] == [f"P1: {text} take {text} 1", f"P1: {text} keep", f"{text} kept",
                                    f"{text} {text} 1", f"P2: {text} take {text} 1", f"P2: {text} keep",
                                    f"{text} kept", f"{text} {text} 1", f"{text} {text} 3"]
    assert game.log_lines()[9] == f"{text} 7"  # the phase's count: enum and property compared as written
    assert game.measures() == {"note_m": 3, "note_r": 1}  # the texts compared equal: none was rewritten
    items = game.preview_scoring("coins")[0]
    assert items[text] == 1 and items[f"{text} unrolled"] == 3 and items[f"{text} def"] == 4
    assert sorted(os.listdir(tmp_path)) == ["hostile.rules"]  # no file made (the payload would touch PWNED)


def test_two_parts_that_differ_in_a_text_are_not_shared() -> None:
    """share_repeated works a repeated part out once: two parts whose texts name their own
    generator variables are still two parts (renaming the variables in text rewrote the texts too)."""
    code = "len([g_a for g_a in Z[0] if w == 'g_a']) + len([g_b for g_b in Z[0] if w == 'g_b'])"
    new, boxes = invariants.share_repeated(pyast.parse(code, mode="eval").body, iter(["b0"]).__next__)
    assert boxes == [] and pyast.unparse(new) == code
    same = "len([g_a for g_a in Z[0] if w == 'x']) + len([g_b for g_b in Z[0] if w == 'x'])"
    assert invariants.share_repeated(pyast.parse(same, mode="eval").body, iter(["b0", "b1", "b2"]).__next__)[1]


@pytest.mark.parametrize("path", RULES_FILES, ids=lambda p: p.stem)
def test_generated_code_uses_only_what_the_compiler_emits(path: Path) -> None:
    rules = ruleforge.load(path)
    program = rules.program(rules.player_range[0])
    assert unexpected_names(program.module, program.namespace) == []
    builtins = program.namespace["__builtins__"]
    assert set(builtins) == set(BUILTINS)
    for name in ("__import__", "open", "eval", "exec", "getattr", "globals", "compile", "breakpoint"):
        assert name not in builtins


def test_the_generated_module_cannot_reach_python(tmp_path: Path) -> None:
    """Even code slipped into the module could not import, open or evaluate: those names are not there."""
    program = ruleforge.load(ROOT / "games" / "hagakure.rules").program(3)
    for code in ("__import__('os')", "open('x', 'w')", "eval('1')", "getattr(1, 'real')"):
        with pytest.raises(NameError):
            eval(compile(pyast.parse(code, mode="eval"), "<test>", "eval"), dict(program.namespace))  # noqa: S307


def test_the_unexpected_are_reported() -> None:
    module = pyast.parse("import os\ndef f(st):\n    return st.__class__, open, x\n")
    found = unexpected_names(module, {})
    assert "statement Import" in found and "attribute .__class__" in found and "name open" in found \
        and "name x" in found


# --- bounds on what a rule makes -----------------------------------------------------------------
GAME = '''game "Bounds"
players 2
kind Coin { value: int }
zone pool: pile, visible everyone
zone purse per player: pile, visible everyone
components { 3 of Coin(value: 1..3) in pool }
var n: int = 2
var words: text = "ab"
var items: list of int = [1]
@DECL@
flow {
  repeat 12 {
    for p in players { turn p: take }
    @BODY@
  }
}
action take() { n = n }
'''


BODY_LINE = GAME.splitlines().index("    @BODY@") + 1
DECL_LINE = GAME.splitlines().index("@DECL@") + 1


def bounded(tmp_path: Path, body: str = "", decl: str = "") -> ruleforge.Rules:
    path = tmp_path / "bounds.rules"
    path.write_text(GAME.replace("@BODY@", body).replace("@DECL@", decl), encoding="utf-8")
    return ruleforge.load(path)


@pytest.mark.parametrize(("body", "limit"), [
    ("n = n * n", "integer_digits"),
    ("n *= n", "integer_digits"),
    ("items = items + items", "list_items"),
    ('words = "{words}{words}"', "text_length"),
    ("n = count(k for k in 1..(n * 1000))", "range_values"),
], ids=["square", "square-assign", "list", "text", "range"])
def test_a_value_growing_past_its_limit_stops_the_game_at_its_rule(tmp_path: Path, body: str, limit: str) -> None:
    # low limits, and 12 rounds: should a bound ever be lost, the game ends (and the test fails)
    # long before the value fills the machine's memory
    rules = bounded(tmp_path, body)
    with limits.raised(integer_digits=100, list_items=1000, text_length=1000, range_values=1000):
        game = rules.new_game(2, seed=0)
        with pytest.raises(GameError) as err:
            while not game.is_over:
                game.apply(game.legal_actions()[0])
    assert f"bounds.rules:{BODY_LINE}:" in str(err.value) and f"limit {limit} = " in str(err.value)


def test_a_range_written_too_large_is_refused_when_checked(tmp_path: Path) -> None:
    with pytest.raises(RulesError) as err:
        bounded(tmp_path, decl="var total: int = sum(x for x in 1..1000000000000)").program(2)
    assert f"bounds.rules:{DECL_LINE}:" in str(err.value) and "1,000,000,000,000 values" in str(err.value) \
        and "range_values" in str(err.value)


def test_ranges_nested_in_one_generator_count_together(tmp_path: Path) -> None:
    with pytest.raises(RulesError) as err:
        bounded(tmp_path, decl="var total: int = count(x for x in 1..100000 for y in 1..100000)").program(2)
    assert "10,000,000,000 values" in str(err.value) and "range_values" in str(err.value)


def test_defs_calling_the_one_before_twice_compile_in_linear_time(tmp_path: Path) -> None:
    defs = ["def f0(x: int) = x + 1"] + [f"def f{i}(x: int) = f{i - 1}(x) + f{i - 1}(x + 1)" for i in range(1, 25)]
    rules = bounded(tmp_path, "n = f24(1) - f24(1) + 2", "\n".join(defs))
    program = rules.program(2)
    assert len(program.source) < 200_000  # pasting each def in would make 2**24 copies
    game = rules.new_game(2, seed=0)
    game.apply(game.legal_actions()[0])
    assert game.evaluate("f3(1)") == 8 * 1 + 12 + 8  # (f0..f3 by hand: f3(x) = 8x + 20)


def test_phases_calling_the_one_before_twice_are_refused(tmp_path: Path) -> None:
    phases = ["phase p0 { n = n }"] + [f"phase p{i} {{ p{i - 1}  p{i - 1} }}" for i in range(1, 25)]
    with pytest.raises(RulesError) as err:
        bounded(tmp_path, "p24", "\n".join(phases)).program(2)
    assert "compiled_statements" in str(err.value)


def test_a_table_without_an_entry_stops_the_game_at_its_rule(tmp_path: Path) -> None:
    rules = bounded(tmp_path, "n = table n { 2: 3, 3: 4 }")
    game = rules.new_game(2, seed=0)
    with pytest.raises(GameError) as err:
        while not game.is_over:
            game.apply(game.legal_actions()[0])
    assert f"bounds.rules:{BODY_LINE}:" in str(err.value) and "has no entry for 4" in str(err.value)


def test_an_examples_value_expression_runs_no_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An example's `values` are expressions of the rules language, compiled as the rules are:
    `ruleforge test` (and the pytest plugin) evaluate them, so a hostile one is a test like any."""
    import json

    from click.testing import CliRunner

    from ruleforge.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "spots.rules").write_text((ROOT / "tests" / "synthetic" / "spots.rules").read_text())
    payload = "x\\' + str(__import__('os').system('touch PWNED')) + '\\"
    side = f'(if "{payload}" == "a" then 1 else 2)'
    examples = {"format": "ruleforge-examples/1", "examples": [{
        "name": "hostile", "source": "ours",
        "position": {"format": "ruleforge-position/1", "players": 2,
                     "zones": {"home(P1)": ["worker", "worker"], "court": ["worker"]}},
        "values": {f"count(k for k in {side}..{side} if k == 2)": 1, f'"{payload}"': payload},
    }]}
    (tmp_path / "spots.examples.json").write_text(json.dumps(examples))
    result = CliRunner().invoke(main, ["test", "spots.rules"])
    assert result.exit_code == 0, result.output
    assert "PASS  hostile" in result.output
    assert sorted(os.listdir(tmp_path)) == ["spots.examples.json", "spots.rules"]
