"""Limits of the front end: nesting depth, many errors shown, and work linear in the errors."""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

import ruleforge
import ruleforge.checker
import ruleforge.checker.core
from ruleforge import diagnostics
from ruleforge.cli import main
from ruleforge.diagnostics import Diagnostic, RulesError
from ruleforge.limits import LIMITS, raised
from ruleforge.parser import parse_expression, parse_rules

HEAD = 'game "t"\nplayers 2\nvar x: int = 0\n'
EXPRESSION_LIMIT = "(limit expression_depth = 100; raise it with RULEFORGE_MAX_EXPRESSION_DEPTH)"
BLOCK_LIMIT = "(limit block_depth = 12; raise it with RULEFORGE_MAX_BLOCK_DEPTH)"


@pytest.fixture(autouse=True)
def _depth_100() -> Iterator[None]:
    """The counting of levels is tested at a round limit of 100 (the default is lower, for what
    the generated Python can take: tests/test_generated_limits.py)."""
    with raised(expression_depth=100):
        yield


def errors_of(text: str) -> list[Diagnostic]:
    with pytest.raises(RulesError) as caught:
        parse_rules(text, "t.rules")
    return caught.value.diagnostics


def nested_ifs(count: int) -> str:
    """`flow` and `count` `if` blocks inside it, one per line."""
    opens = "".join(f"{' ' * i}if x == 0 {{\n" for i in range(count))
    return HEAD + "flow {\n" + opens + "x = 1\n" + "}\n" * count + "}\n"


# --- expression depth -------------------------------------------------------------------


def test_an_expression_at_the_limit_parses() -> None:
    assert parse_rules(HEAD + "def d = " + "-" * 100 + "1\n", "t.rules").decls


def test_one_level_past_the_limit_is_reported_where_it_is_exceeded() -> None:
    [d] = errors_of(HEAD + "def d = " + "-" * 101 + "1\n")
    assert d.message == f"expression nested too deep: more than 100 levels of operators, calls and the like " \
                        f"{EXPRESSION_LIMIT}"
    assert (d.pos.line, d.pos.column) == (4, 9 + 100)  # the 101st '-'
    assert d.hint == "split it into parts with 'let' or a 'def'"


def test_a_long_sum_is_too_deep_not_a_recursion_error() -> None:
    [d] = errors_of(HEAD + "def d = " + "+".join(["1"] * 5000) + "\n")
    assert d.message.startswith("expression nested too deep")
    assert (d.pos.line, d.pos.column) == (4, 9)


@pytest.mark.parametrize(("nest", "col"), [
    (lambda inner: f"f({inner})", 9 + 2 * 100),                       # calls: the 101st 'f('
    (lambda inner: f"not {inner}", 9 + 4 * 100),                      # 'not'
    (lambda inner: f"[{inner}]", 9 + 100),                            # lists
    (lambda inner: f"if true then {inner} else 0", 9 + 13 * 100),    # if-expressions
])
def test_each_construct_counts_one_level(nest, col: int) -> None:
    text = "1"
    for _ in range(101):
        text = nest(text)
    [d] = errors_of(HEAD + "def d = " + text + "\n")
    assert d.message.startswith("expression nested too deep")
    assert (d.pos.line, d.pos.column) == (4, col)


def test_parentheses_add_no_level() -> None:
    rules = parse_rules(HEAD + "def d = " + "(" * 5000 + "1" + ")" * 5000 + "\n", "t.rules")
    assert rules.decls[-1].body.value == 1


def test_a_strings_interpolation_sits_below_the_string() -> None:
    deep = "-" * 99 + "1"  # 99 levels in a string inside a 1-level expression: 101
    [d] = errors_of(HEAD + f'def d = [ "{{{deep}}}" ]\n')
    assert d.message.startswith("expression nested too deep")
    assert (d.pos.line, d.pos.column) == (4, 12 + 99)
    assert parse_rules(HEAD + f'def d = "{{{deep}}}"\n', "t.rules").decls


def test_the_expression_limit_can_be_raised() -> None:
    text = HEAD + "def d = " + "-" * 150 + "1\n"
    with raised(expression_depth=150):
        assert parse_rules(text, "t.rules").decls
    assert errors_of(text)


def test_parse_expression_and_evaluate_check_the_depth() -> None:
    errors: list[Diagnostic] = []
    parse_expression("-" * 101 + "1", "<expression>", 0, 0, errors)
    assert [(d.pos.column, d.message.split(":")[0]) for d in errors] == [(101, "expression nested too deep")]
    game = ruleforge.load("games/hagakure.rules").new_game(players=3, seed=1)
    with pytest.raises(RulesError, match="expression nested too deep"):
        game.evaluate("+".join(["1"] * 300))


def test_limits_raised_past_python_are_a_diagnostic_not_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "t.rules"
    path.write_text(HEAD + "def d = " + "+".join(["1"] * 5000) + "\nflow { }\n")
    with raised(expression_depth=100_000), pytest.raises(RulesError) as caught:
        ruleforge.load(path)
    [d] = caught.value.diagnostics
    assert (d.pos.file, d.pos.line) == (str(path), 0)
    assert d.message == "the rules nest too deep for this Python (it ran out of recursion depth)"


def test_cli_with_a_raised_limit_exits_1_without_a_traceback(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "t.rules"
    path.write_text(HEAD + "flow { x = " + "+".join(["1"] * 5000) + " }\n")
    monkeypatch.setattr(LIMITS, "expression_depth", 100_000)
    result = CliRunner().invoke(main, ["check", str(path)])
    assert result.exit_code == 1
    assert f"{path}: error: the rules nest too deep for this Python" in result.output
    assert "Traceback" not in result.output and "internal error" not in result.output


# --- block depth ----------------------------------------------------------------------


def test_blocks_at_the_limit_parse() -> None:
    assert parse_rules(nested_ifs(11), "t.rules").decls  # flow and 11 ifs: 12 blocks


def test_blocks_past_the_limit_are_reported_at_the_first_too_deep() -> None:
    [d] = errors_of(nested_ifs(3000))
    assert d.message == f"blocks nested too deep: this block is inside 12 others {BLOCK_LIMIT}"
    assert (d.pos.line, d.pos.column) == (4 + 12, 11 + 11)  # the "{" of the 12th if: 12 blocks around it


def test_the_block_limit_can_be_raised() -> None:
    with raised(block_depth=13):
        assert parse_rules(nested_ifs(12), "t.rules").decls
    assert errors_of(nested_ifs(12))


# --- phases calling phases ---------------------------------------------------------------

PICK = (Path(__file__).parent / "synthetic" / "pick.rules").read_text(encoding="utf-8")


def phase_chain(tmp_path: Path, count: int) -> Path:
    """Pick whose flow calls phase p1, which calls p2, ... down to p`count`."""
    chain = "".join(f"phase p{i} {{ p{i + 1} }}\n" for i in range(1, count)) + f"phase p{count} {{ }}\n"
    path = tmp_path / "chain.rules"
    path.write_text(PICK.replace("flow {\n", "flow {\n  p1\n") + chain, encoding="utf-8")
    return path


@pytest.mark.parametrize("count", [51, 1000, 20_000])
def test_phases_nested_past_the_limit_are_reported_at_the_call(tmp_path: Path, count: int) -> None:
    path = phase_chain(tmp_path, count)
    with pytest.raises(RulesError) as caught:
        ruleforge.load(path)
    [d] = caught.value.diagnostics
    assert d.message == ("phases nested too deep: 'p51' is called inside 50 phases, each called by the one "
                         "before (limit phase_depth = 50; raise it with RULEFORGE_MAX_PHASE_DEPTH)")
    line = PICK.count("\n") + 1 + 50  # the flow's added line, then p1 ... p50
    assert (d.pos.file, d.pos.line, d.pos.column) == (str(path), line, len("phase p50 { ") + 1)


def test_a_chain_of_phases_at_the_limit_checks_and_plays(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["check", str(phase_chain(tmp_path, 50))])
    assert result.exit_code == 0, result.output
    with raised(phase_depth=49):
        assert CliRunner().invoke(main, ["check", str(phase_chain(tmp_path, 50))]).exit_code == 1


def test_replace_cannot_nest() -> None:
    [d] = errors_of("replace " * 5000 + "var y: int = 0\n")
    assert (d.message, d.pos.column) == ("unexpected 'replace'", 9)


# --- many errors ----------------------------------------------------------------------


def many_duplicates(tmp_path: Path, count: int) -> RulesError:
    path = tmp_path / "t.rules"
    path.write_text(HEAD + "flow { }\n" + "var x: int = 0\n" * count)
    with pytest.raises(RulesError) as caught:
        ruleforge.load(path)
    return caught.value


def test_render_shows_the_first_errors_and_counts_the_rest(tmp_path: Path) -> None:
    err = many_duplicates(tmp_path, 60)
    assert len(err.diagnostics) == 60
    text = err.render()
    assert text.count(": error: 'x' is declared twice") == 50
    assert f"{tmp_path / 't.rules'}:54:1:" in text and ":55:1:" not in text  # the first 50, in line order
    assert text.endswith("\n... and 10 more errors (limit errors_shown = 50; raise it with RULEFORGE_MAX_ERRORS_SHOWN)")
    with raised(errors_shown=60):
        assert "more error" not in err.render()
        assert err.render().count(": error: ") == 60


def test_one_more_error_is_counted_in_the_singular(tmp_path: Path) -> None:
    assert many_duplicates(tmp_path, 51).render().endswith("\n... and 1 more error (limit errors_shown = 50; "
                                                           "raise it with RULEFORGE_MAX_ERRORS_SHOWN)")


class CountingText(str):
    """A source text that counts how often it is split into lines."""

    splits = 0

    def split(self, *args, **kwargs):  # type: ignore[override]
        CountingText.splits += 1
        return super().split(*args, **kwargs)


def test_rendering_many_errors_splits_the_source_once(tmp_path: Path) -> None:
    err = many_duplicates(tmp_path, 2000)
    path = str(tmp_path / "t.rules")
    counted = RulesError(err.diagnostics, {path: CountingText(err.sources[path])})
    CountingText.splits = 0
    with raised(errors_shown=5000):
        assert counted.render().count(": error: ") == 2000
    assert CountingText.splits == 1


def test_duplicate_diagnostics_are_found_without_comparing_to_every_earlier_one(tmp_path: Path,
                                                                                monkeypatch) -> None:
    calls = 0
    equal = Diagnostic.__eq__

    def counting_eq(self: Diagnostic, other: object) -> bool:
        nonlocal calls
        calls += 1
        return equal(self, other)

    monkeypatch.setattr(Diagnostic, "__eq__", counting_eq)
    err = many_duplicates(tmp_path, 3000)
    assert len(err.diagnostics) == 3000
    assert calls < 3 * 3000  # comparing each to all before it: 4.5 million


def test_did_you_mean_work_is_bounded_for_the_whole_check(tmp_path: Path, monkeypatch) -> None:
    compared = 0
    real = diagnostics.did_you_mean

    def counting(name: str, candidates) -> str | None:
        nonlocal compared
        candidates = list(candidates)
        compared += len(candidates)
        return real(name, candidates)

    monkeypatch.setattr(ruleforge.checker.core, "did_you_mean", counting)
    path = tmp_path / "t.rules"
    count = 2000
    path.write_text(HEAD + "flow { }\n" + "".join(f"var w{i}x: int = w{i}\n" for i in range(count)))
    with pytest.raises(RulesError) as caught:
        ruleforge.load(path)
    err = caught.value
    assert len(err.diagnostics) == count
    assert compared <= ruleforge.checker.SUGGEST_BUDGET + count + 50  # without a budget: 4 million
    assert err.diagnostics[0].hint == "did you mean 'w0x'?"  # the first get their hints
    assert err.diagnostics[-1].hint is None  # the budget was spent long before


def test_a_rules_error_pickles_with_its_diagnostics(tmp_path: Path) -> None:
    err = many_duplicates(tmp_path, 3)
    copy = pickle.loads(pickle.dumps(err))
    assert copy.diagnostics == err.diagnostics and copy.render() == err.render()


def test_a_long_line_is_shown_cut_around_the_caret() -> None:
    [d] = errors_of(HEAD + "def d = " + "1 + " * 1000 + "yy yy\n")
    text = RulesError([d], {"t.rules": HEAD + "def d = " + "1 + " * 1000 + "yy yy\n"}).render()
    source, caret = text.split("\n")[1:3]
    assert d.message == "unexpected 'yy'" and d.pos.column == 9 + 4000 + 3
    assert source.startswith("    ...") and source.endswith("1 + yy yy") and len(source) < 200
    assert source[caret.index("^"):] == "yy" and caret.endswith(" ^")


# --- numbers --------------------------------------------------------------------------------


@pytest.mark.parametrize(("number", "shown"), [
    ("9223372036854775808", "9223372036854775808"),
    ("9" * 5000, "999999999999...999999 (5,000 digits)"),  # past what Python turns into text
])
def test_a_number_past_64_bits_is_an_error_at_it(number: str, shown: str) -> None:
    [d] = errors_of(HEAD + f"def d = 1 + {number}\n")
    assert (d.pos.line, d.pos.column, d.message) == (4, 13, f"number {shown} is too large")
    assert d.hint == "numbers go up to 9,223,372,036,854,775,807"


def test_the_largest_number_is_read() -> None:
    assert parse_rules(HEAD + "def d = 9223372036854775807\n", "t.rules").decls
