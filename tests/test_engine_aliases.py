"""What a user wrote for the retired build of the generated code as C still runs, on the native
engine: `--compiled` is `--engine auto` on `simulate` (and on `compare`, whose paired records the
native engine does not keep), hidden from --help; `new_game(..., compiled=True)` is
`engine="auto"`."""

from __future__ import annotations

import json
import shutil
import sysconfig
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

import ruleforge
from ruleforge.cli import main
from ruleforge.native import NativeEngineWarning
from ruleforge.native.game import NativeGame

ROOT = Path(__file__).parents[1]
TICTACTOE = str(ROOT / "games" / "tictactoe.rules")

needs_cc = pytest.mark.skipif(
    not any(shutil.which(cc) for cc in ("cc", "gcc", "clang"))
    or not (Path(sysconfig.get_paths()["include"]) / "Python.h").is_file(),
    reason="no C compiler or no Python headers")


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RULEFORGE_CACHE", str(tmp_path / "cache"))  # built here, never in the user's cache


def summary(*args: str) -> tuple[dict, str]:
    """simulate's --json summary without its timings, and what it said on stderr."""
    result = CliRunner().invoke(main, ["simulate", TICTACTOE, "-n", "30", "--seed", "3", "--json", *args])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    for timing in ("seconds", "games_per_second"):
        out.pop(timing)
    return out, result.stderr


@needs_cc
def test_simulate_compiled_is_simulate_engine_auto() -> None:
    (compiled, said), (auto, _) = summary("--compiled"), summary("--engine", "auto")
    assert compiled == auto == summary()[0] and compiled["games"] == 30
    assert "note: the native engine counts no games here" not in said  # counted in C


def test_simulate_compiled_falls_back_as_engine_auto_does() -> None:
    agents = ("--agents", "greedy,random")  # counted in C only when every seat is random
    (compiled, said), (auto, auto_said) = summary("--compiled", *agents), summary("--engine", "auto", *agents)
    assert compiled == auto
    assert said == auto_said and said.count("note: the native engine counts no games here") == 1


def test_compare_compiled_plays_the_same_games_with_one_note() -> None:
    args = ["compare", TICTACTOE, "-n", "20", "--json"]
    plain, compiled = CliRunner().invoke(main, args), CliRunner().invoke(main, [*args, "--compiled"])
    assert plain.exit_code == compiled.exit_code == 0, compiled.output

    def untimed(text: str) -> dict:
        out = json.loads(text)
        for side in ("a", "b"):
            for timing in ("seconds", "games_per_second"):
                out[side].pop(timing)
        return out

    assert untimed(compiled.stdout) == untimed(plain.stdout)
    assert compiled.stderr.count("note: the native engine counts no games here") == 1


@pytest.mark.parametrize("command", ["simulate", "compare"])
def test_compiled_is_hidden_from_help(command: str) -> None:
    shown = CliRunner().invoke(main, [command, "--help"])
    assert shown.exit_code == 0 and "--compiled" not in shown.output


@needs_cc
def test_new_game_compiled_is_a_native_game_where_the_rules_lower() -> None:
    rules = ruleforge.load(TICTACTOE)
    game, auto = rules.new_game(2, seed=5, compiled=True), rules.new_game(2, seed=5, engine="auto")
    assert isinstance(game, NativeGame) and isinstance(auto, NativeGame)
    while not game.is_over:
        assert game.legal_actions() == auto.legal_actions()
        game.apply(game.legal_actions()[-1])
        auto.apply(auto.legal_actions()[-1])
    assert game.scores() == auto.scores()


def test_new_game_compiled_plays_on_the_reference_engine_where_they_do_not() -> None:
    rules = ruleforge.load(ROOT / "tests" / "synthetic" / "sealed_bids.rules")  # `turn together`: not lowered
    low = rules.model.players[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        game = rules.new_game(low, seed=1, compiled=True)
    assert not isinstance(game, NativeGame)
    assert [w.category for w in caught] == [NativeEngineWarning]
    assert game.legal_actions() == rules.new_game(low, 1).legal_actions()
