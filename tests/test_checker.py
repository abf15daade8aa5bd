"""The checker on broken rules files: the right message, at the right line and column.

Every file in tests/broken/ holds one mistake (three_errors.rules holds three); the table
below says what the checker must report and where. Positions were read off the files by hand.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

import ruleforge
from ruleforge import GameError, RulesError

HERE = Path(__file__).parent
BROKEN = HERE / "broken"
HAGAKURE = HERE.parent / "games" / "hagakure.rules"

# file -> (line, column, message substring, hint substring or None)
EXPECTED: dict[str, tuple[int, int, str, str | None]] = {
    "syntax_unexpected_token.rules": (4, 18, "unexpected '='", "expected '(', '-', '[', 'if', 'not'"),
    "unexpected_character.rules": (7, 13, "unexpected character '@'", None),
    "unterminated_brace.rules": (6, 6, "unexpected end of file", "missing '}'"),
    "unknown_name_hint.rules": (7, 11, "unknown name 'totl'", "did you mean 'total'?"),
    "unknown_function.rules": (7, 11, "unknown function 'sqrt'", None),
    "def_arity.rules": (9, 11, "'twice' takes 1 argument(s), 2 given", None),
    "per_player_var_without_p.rules": (8, 5, "'points' is per player", "points(p)"),
    "add_flag_to_int.rules": (8, 19, "the right side of '+' must be int, not flag", None),
    "compare_player_with_int.rules": (9, 6, "cannot compare player with int", None),
    "require_after_effect.rules": (8, 3, "'require' must come before the action's effects", "top of the action"),
    "choose_outside_turn.rules": (11, 3, "'choose' needs a player", "inside a 'turn' or an action"),
    "unknown_action_in_turn.rules": (12, 13, "unknown action 'bmup'", "did you mean 'bump'?"),
    "unknown_zone_in_components.rules": (11, 25, "unknown zone 'suply'", "did you mean 'supply'?"),
    "missing_attribute.rules": (12, 3, "'Token' needs a value for 'color'", "give 'color: ...'"),
    "attribute_on_non_component.rules": (8, 11, "only components have attributes; this is int", None),
    "random_in_def.rules": (6, 13, "'random' draws by chance", "flow, phase or action"),
    "phase_recursion.rules": (11, 1, "phase 'pong' calls itself through 'ping'", "loop"),
    "unknown_type.rules": (4, 12, "unknown type 'integer'", "did you mean 'int'?"),
    "variant_replace_missing.rules": (3, 1, "cannot replace 'stride': the base has none", None),
    "variant_redeclare.rules": (3, 1, "'step' is already declared by the base", "write 'replace'"),
    "score_into_flag.rules": (7, 3, "'score ... into' needs a per-player int var; 'blessed' is not one", None),
}

# Valid files kept beside the broken ones (the base of the variant cases).
NOT_BROKEN = {"base_ok.rules"}


def load_error(path: Path) -> RulesError:
    """Load a file that must fail, and return its error."""
    with pytest.raises(RulesError) as info:
        ruleforge.load(path)
    return info.value


def test_every_broken_file_has_an_expectation() -> None:
    on_disk = {p.name for p in BROKEN.glob("*.rules")} - NOT_BROKEN - {"three_errors.rules"}
    assert on_disk == set(EXPECTED)
    assert len(EXPECTED) >= 15


def test_the_variant_base_is_valid() -> None:
    rules = ruleforge.load(BROKEN / "base_ok.rules")
    assert rules.title == "Base"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_broken_file(name: str) -> None:
    line, col, message, hint = EXPECTED[name]
    err = load_error(BROKEN / name)
    assert len(err.diagnostics) == 1, err.render()  # one mistake, one report: no cascade
    d = err.diagnostics[0]
    assert message in d.message, err.render()
    assert (d.pos.line, d.pos.column) == (line, col), err.render()
    assert d.pos.file.endswith(name)
    if hint is not None:
        assert d.hint is not None and hint in d.hint, err.render()


def test_three_independent_errors_are_reported_at_once_in_order() -> None:
    path = BROKEN / "three_errors.rules"
    err = load_error(path)
    got = [(d.pos.line, d.pos.column, d.message) for d in err.diagnostics]
    assert got == [
        (7, 11, "unknown name 'totl'"),
        (8, 15, "the right side of '+' must be int, not flag"),
        (9, 11, "unknown function 'nosuch'"),
    ]


def test_rendered_error_has_location_source_line_and_caret() -> None:
    path = BROKEN / "three_errors.rules"
    err = load_error(path)
    lines = err.render().splitlines()
    source = path.read_text().splitlines()
    heads = [i for i, text in enumerate(lines) if ": error: " in text]
    assert len(heads) == 3
    for i, (line, col, length) in zip(heads, [(7, 11, 4), (8, 15, 4), (9, 11, 9)]):
        assert lines[i].startswith(f"{path}:{line}:{col}: error: ")
        assert lines[i + 1] == "    " + source[line - 1]
        caret = lines[i + 2]
        assert caret == "    " + " " * (col - 1) + "^" * length
    # the caret of 'totl' sits under the name in the source line
    src, caret = lines[heads[0] + 1], lines[heads[0] + 2]
    assert src[caret.index("^"):caret.index("^") + 4] == "totl"
    assert "    hint: did you mean 'total'?" in lines
    assert str(err) == err.render()


def test_rendered_syntax_error_lists_what_was_expected() -> None:
    err = load_error(BROKEN / "syntax_unexpected_token.rules")
    text = err.render()
    assert "syntax_unexpected_token.rules:4:18: error: unexpected '='" in text
    assert "    var total: int = = 3\n" + " " * 4 + " " * 17 + "^" in text
    assert "hint: expected " in text


def test_missing_file_is_a_rules_error() -> None:
    err = load_error(BROKEN / "no_such_file.rules")
    assert "cannot read rules file" in err.diagnostics[0].message


# --- garbled inputs: the checker reports, it never crashes ------------------------------

_TOKEN = re.compile(r'"[^"\n]*"|\w+|\.\.|[-+*/=<>!]=?|\S')


def garble(text: str, seed: int) -> str:
    """Delete a random span of 1 to 4 tokens (one case in four: replace it by another token)."""
    rng = random.Random(seed)
    toks = list(_TOKEN.finditer(text))
    i = rng.randrange(len(toks))
    j = min(len(toks) - 1, i + rng.randint(1, 4) - 1)
    a, b = toks[i].start(), toks[j].end()
    filler = toks[rng.randrange(len(toks))].group() if rng.random() < 0.25 else ""
    return text[:a] + filler + text[b:]


def test_garbled_hagakure_gives_only_rules_errors(tmp_path: Path) -> None:
    source = HAGAKURE.read_text()
    rejected = 0
    for seed in range(50):
        path = tmp_path / f"garble_{seed}.rules"
        path.write_text(garble(source, seed))
        try:
            rules = ruleforge.load(path)
        except RulesError as err:
            rejected += 1
            assert err.diagnostics, f"seed {seed}: a RulesError with no diagnostic"
            assert f"{path}:" in err.render()
            continue
        # Accepted: it must also compile and run without a Python crash (a GameError,
        # e.g. a table with no entry for this player count, is a clean report).
        try:
            game = rules.new_game(rules.player_range[0], seed=seed)
            rng = random.Random(seed)
            for _ in range(40):
                if game.is_over:
                    break
                game.apply(rng.choice(game.legal_labels()))
        except GameError:
            pass
    assert rejected >= 25  # the garbles really do break the file most of the time


def test_a_second_game_or_players_line_is_an_error(tmp_path) -> None:
    path = tmp_path / "dup.rules"
    path.write_text('game "A"\nplayers 2\nplayers 3\ngame "B"\nflow { }\n')
    with pytest.raises(RulesError) as info:
        ruleforge.load(path)
    found = [(d.pos.line, d.message, d.hint) for d in info.value.diagnostics]
    assert found == [(3, "a second 'players' declaration", "the first is at line 2; keep one"),
                     (4, "a second 'game' declaration", "the first is at line 1; keep one")]
