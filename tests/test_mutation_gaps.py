"""The gaps a mutation study of the games' rules found (issue 11), each closed by a worked
example: every mutant below passed every test before, and now an example of the games fails
on it while all of them pass on the real rules.

Each mutant is an exact text edit (the old text occurs exactly once) of a copy of the rules
files, and the examples run are the games' own, by the code `ruleforge test` runs.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import ruleforge
from ruleforge.testing import Outcome, examples_of, run_example

ROOT = Path(__file__).resolve().parents[1]

# (rules file, old text, new text, the examples that must fail on it)
MUTANTS = {
    "the Court has 2 Swap spots, not 3": (
        "naishi.rules", "zone swap_spots: pile, size 3", "zone swap_spots: pile, size 2",
        {"Court: the third Swap spot"}),
    "the recall Travellers count the opponent's Emissaries on Discard-2": (
        "naishi_legends.rules", "any(owner(e) == p for e in discard_spots)",
        "any(owner(e) != p for e in discard_spots)", {"Porter: only the opponent on Discard-2"}),
    "the Little Girl needs two other piles showing a card": (
        "naishi_legends.rules", "DevelopAgain then revealed_piles > 0", "DevelopAgain then revealed_piles > 1",
        {"Little Girl: one other pile shows a card"}),
    "every Traveller replaced by a Develop fires as if leaving": (
        "naishi_legends.rules", "if it is Guest and it.moment == Leaving {", "if it is Guest or it.moment == Leaving {",
        {"Cherry Blossom Lady replaced: no effect"}),
    "only entering Travellers fire when replaced": (
        "naishi_legends.rules", "if it is Guest and it.moment == Leaving {",
        "if it is Guest and it.moment != Leaving {",
        {"Cherry Blossom Lady replaced: no effect", "Little Girl: one other pile shows a card"}),
    "the Legendary Ronin scores a set of exactly 5, not 5 or more": (
        "naishi_legends.rules", "{ 3: 8, 4: 15, 5+: 25, else: 0 }", "{ 3: 8, 4: 15, 5: 25, else: 0 }",
        {"Legendary Ronin: a set of six Advisors"}),
}

GAMES = {"naishi.rules": "naishi", "naishi_legends.rules": "naishi_legends"}


def copy_games(dest: Path) -> Path:
    """The Naishi rules and examples files, with the position files their examples name."""
    games = dest / "games"
    games.mkdir()
    for stem in GAMES.values():
        for suffix in (".rules", ".examples.json"):
            shutil.copy(ROOT / "games" / (stem + suffix), games / (stem + suffix))
    shutil.copytree(ROOT / "docs" / "examples", dest / "docs" / "examples")
    return games


def outcomes(rules_file: Path) -> dict[str, Outcome]:
    """Every example the rules file runs (its base's too), by name, as `ruleforge test` runs them."""
    rules = ruleforge.load(rules_file)
    return {e.name: run_example(rules, e) for e in examples_of(rules)}


@pytest.mark.parametrize("rules_name", list(GAMES))
def test_every_example_passes_on_the_real_rules(tmp_path: Path, rules_name: str) -> None:
    games = copy_games(tmp_path)
    found = outcomes(games / rules_name)
    failed = {name: o.report() for name, o in found.items() if not o.passed}
    assert not failed
    wanted = set().union(*(names for file, _, _, names in MUTANTS.values() if file == rules_name))
    assert wanted <= set(found)


@pytest.mark.parametrize("name", list(MUTANTS))
def test_the_mutant_fails_an_example(tmp_path: Path, name: str) -> None:
    rules_name, old, new, must_fail = MUTANTS[name]
    games = copy_games(tmp_path)
    path = games / rules_name
    text = path.read_text()
    assert text.count(old) == 1, f"{rules_name}: the mutated text must occur exactly once: {old!r}"
    path.write_text(text.replace(old, new))
    # the variant's examples run against the mutant too when the base is mutated
    for target in ([rules_name] if rules_name != "naishi.rules" else list(GAMES)):
        found = outcomes(games / target)
        for example in must_fail:
            outcome = found[example]
            # a check differs (not an error: the example ran and saw the mutant's rule)
            assert outcome.status == "fail", (target, example, outcome.status, outcome.report())


# --- an endless game fails the property tests at once --------------------------------------------


def test_an_endless_game_fails_the_property_tests_naming_the_seed(tmp_path: Path, monkeypatch) -> None:
    """Hagakure with a round counter that never advances never ends: the property tests and
    the other seeded games of the tests stop it at their decision limit (far above the longest
    real game) with the seed, not a hang."""
    import test_hagakure
    import test_hagakure_properties as props

    text = (ROOT / "games" / "hagakure.rules").read_text()
    old = "  rounds_played += 1\n"
    assert text.count(old) == 1
    (tmp_path / "hagakure.rules").write_text(text.replace(old, "  rounds_played += 0\n"))
    endless = ruleforge.load(tmp_path / "hagakure.rules")
    monkeypatch.setattr(props, "RULES", endless)
    monkeypatch.setattr(test_hagakure, "RULES", endless)
    with pytest.raises(AssertionError, match=r"^3 players, seed 7: no end after 3000 decisions"):
        props.play_checked(3, 7, props.Counter())
    with pytest.raises(AssertionError, match=r"^4 players, seed 25: no end after 3000 decisions"):
        props._choices(4, 25)
    # the other seeded games of the tests (tests/seeded.py)
    with pytest.raises(AssertionError, match=r"^5 players, seed 3: no end after 3,000 decisions"):
        test_hagakure.play_random(5, 3)
