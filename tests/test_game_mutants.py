"""The reasons written for the games' surviving mutants (games/*.mutants.json) stay in step
with the rules: each file reads, and each entry names a mutant the rules file still has, with a
reason of a known kind. (Which mutants survive is measured by bench/bench_mutation.py, which
runs the tests against every mutant; that takes minutes, so it is not a test.)"""

from __future__ import annotations

from pathlib import Path

import pytest

import ruleforge
from ruleforge.mutation import explained, generate, source_text

GAMES = Path(__file__).resolve().parents[1] / "games"
FILES = sorted(GAMES.glob("*.mutants.json"))


def test_the_games_keep_reasons() -> None:
    assert {f.name for f in FILES} >= {"hagakure.mutants.json"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_reason_names_a_mutant_of_the_rules(path: Path) -> None:
    rules_path = path.with_name(path.name.removesuffix(".mutants.json") + ".rules")
    rules = ruleforge.load(rules_path)
    reasons = explained.read(path)
    assert reasons, f"{path.name} explains nothing: delete it"
    named = explained.explain(generate(rules), source_text(rules), reasons)
    unmatched = [f"#{e.entry} (line {e.line}, {e.operator} {e.change})" for e in reasons if e not in named.values()]
    assert not unmatched, f"{path.name}: these reasons match no mutant of {rules_path.name}: {unmatched}"
