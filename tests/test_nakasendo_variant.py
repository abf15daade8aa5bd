"""games/nakasendo_wide.rules, a variant written as an overlay: a 5x5 box instead of 4x4 and
one more round, by replacing two extension points of the base (`max_span`, `last_space`)."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
from seeded import decisions

import ruleforge

GAMES = Path(__file__).parents[1] / "games"


@pytest.fixture(scope="module")
def wide() -> ruleforge.Rules:
    return ruleforge.load(GAMES / "nakasendo_wide.rules")


def test_the_variant_states_only_what_changes() -> None:
    text = (GAMES / "nakasendo_wide.rules").read_text()
    code = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    assert code[0] == 'extends "nakasendo.rules"' and len(code) <= 5


def spans(game: ruleforge.Game, p: int) -> tuple[int, int]:
    return game.evaluate("span_rows(board(q))", q=p), game.evaluate("span_columns(board(q))", q=p)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_of_the_variant(wide: ruleforge.Rules, players: int) -> None:
    # one more round than the base (11 for two players, 10 for three or four), the board is
    # 9x9 with the Starting tile in its centre, no box ever exceeds 5x5, and some reach 5
    widest = 0
    for seed in range(12):
        game = wide.new_game(players, seed=seed)
        assert game.evaluate("rows(board(q))", q=0) == 9
        assert game.view(None)["zones"]["board(P1)[5,5]"] == ["Start"]
        rng = random.Random(seed)
        for _ in decisions(game, seed):
            actions = game.legal_actions()
            game.apply(actions[rng.randrange(len(actions))])
            for p in range(players):
                assert max(spans(game, p)) <= 5
        widest = max([widest] + [max(spans(game, p)) for p in range(players)])
        rounds = [line for line in game.log_lines() if line.startswith("Round ")]
        assert len(rounds) == (11 if players == 2 else 10)
        assert rounds[-1].endswith("(space 11)")
        for entry in game.scores():
            assert entry["total"] == sum(entry["breakdown"].values())
    assert widest == 5


def test_the_base_still_stops_at_four(wide: ruleforge.Rules) -> None:
    base = ruleforge.load(GAMES / "nakasendo.rules")
    for rules, limit in ((base, 4), (wide, 5)):
        game = rules.new_game(2, seed=1)
        rng = random.Random(1)
        for _ in decisions(game, 1):
            actions = game.legal_actions()
            game.apply(actions[rng.randrange(len(actions))])
            assert all(max(spans(game, p)) <= limit for p in range(2))


def test_simulate_the_variant() -> None:
    run = subprocess.run([sys.executable, "-m", "ruleforge", "simulate", str(GAMES / "nakasendo_wide.rules"),
                          "-n", "30", "--players", "3"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "games: 30" in run.stdout
