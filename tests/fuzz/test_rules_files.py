"""Fuzzing rules files: every file gets a clear answer within the time and memory bounds.

The oracle (tests/fuzz/worker.py) does what `ruleforge check` does, through the Python API
(`ruleforge.load`, `Rules.check_player_counts`), then plays a short random game for each player
count. A clear answer is success, a `RulesError` whose every diagnostic names a file and a line,
or a `GameError` that is not an internal error; anything else fails the test, which lists each
distinct failure and where its input was kept.

CI runs a short derandomized slice. The long run is one command:

    RULEFORGE_FUZZ_EXAMPLES=1000 python -m pytest tests/fuzz

(1000 inputs per fuzz test, about 5,000 in all: some 25 minutes on two cores; add
RULEFORGE_FUZZ_RANDOM=1 for fresh inputs on every run, RULEFORGE_FUZZ_FAILURES=DIR to choose
where failing inputs are kept). It prints the inputs tried and the failures found, by kind, at
the end; `python tests/fuzz/reproduce.py FILE` runs one kept input again with its traceback.
"""

from __future__ import annotations

import pytest
from hypothesis import given

from ruleforge.parser import parse_rules

from . import strategies
from .conftest import Fuzzer, fuzz_settings

pytestmark = pytest.mark.fuzz


def parses(text: str) -> bool:
    try:
        parse_rules(text, "generated.rules")
    except Exception:  # noqa: BLE001 - the worker judges how it fails; here only whether it parsed
        return False
    return True


def test_rules_files_from_the_grammar(fuzzer: Fuzzer) -> None:
    parsed: list[bool] = []

    @fuzz_settings(60)
    @given(strategies.grammar_files())
    def judge(text: str) -> None:
        fuzzer.judge("rules", text)
        parsed.append(parses(text))

    judge()
    assert not fuzzer.found, "inputs without a clear answer:\n" + fuzzer.report()
    # the generated files reach the checker and beyond, not only the parser's error path
    assert sum(parsed) >= len(parsed) // 2, f"only {sum(parsed)} of {len(parsed)} generated files parse"


def test_rules_files_mutated_from_the_games(fuzzer: Fuzzer) -> None:
    @fuzz_settings(40)
    @given(strategies.mutated_games())
    def judge(game_and_text: tuple[str, str]) -> None:
        fuzzer.judge("rules", game_and_text[1], game_and_text[0])

    judge()
    assert not fuzzer.found, "inputs without a clear answer:\n" + fuzzer.report()


def test_the_games_themselves_are_accepted(fuzzer: Fuzzer) -> None:
    """The oracle says ok to the real games: an oracle that refused everything would find nothing."""
    for game, text in strategies.GAMES.items():
        verdict = fuzzer.judge("rules", text, game)
        assert verdict.verdict == "ok", (game, verdict)
