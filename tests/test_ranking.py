"""Agents and statistics follow the `ranking`: in a game of the fewest points (tests/synthetic/
fewest.rules) greedy and the search keep the small chips and beat random, as they keep the big
ones when the same game is turned round (option `most`); a tie-break decides as the engine's
`winners()` does; the margin of victory is the winner's lead by the ranking, never negative;
and the statistics list `pass` only for rules that offer it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import ruleforge
from ruleforge.arena import head_to_head
from ruleforge.balance.records import Watch, game_record
from ruleforge.balance.stats import margin
from ruleforge.cli import main
from ruleforge.declared import final_targets, offers_pass
from ruleforge.standing import Standing, lead

ROOT = Path(__file__).parents[1]
FEWEST = str(ROOT / "tests" / "synthetic" / "fewest.rules")
UNUSED = str(ROOT / "tests" / "synthetic" / "unexercised.rules")
MOST = {"most": True}


def keep(game: ruleforge.Game, value: int) -> None:
    game.apply(game.legal_actions()[game.legal_labels().index(f"keep {value}")])


def played(values: list[int], options: dict[str, Any] | None = None) -> ruleforge.Game:
    """A game of Fewest where the players keep these chips, in turn (P1 first)."""
    game = ruleforge.load(FEWEST).new_game(2, seed=0, options=options)
    for value in values:
        keep(game, value)
    return game


@pytest.mark.parametrize("options", [None, MOST], ids=["fewest", "most"])
@pytest.mark.parametrize("agent, games", [("greedy", 10), ("mcts:12", 6)])
def test_agents_beat_random_whichever_way_the_ranking_points(agent: str, games: int,
                                                             options: dict[str, Any] | None) -> None:
    # before agents followed the ranking, neither won one of these games when the fewest win:
    # they pushed their own total up
    match = head_to_head(ruleforge.load(FEWEST), 2, agent, "random", games, seed=3, options=options)
    assert match.rate >= 0.8, match.to_json()


def test_greedy_keeps_the_smallest_chip_when_the_fewest_win_and_the_largest_otherwise() -> None:
    from ruleforge.agents import GreedyAgent

    for options, wanted in ((None, "keep 0"), (MOST, "keep 15")):
        game = ruleforge.load(FEWEST).new_game(2, seed=0, options=options)
        assert game.label(GreedyAgent(seed=1).choose(game)) == wanted


def test_the_standing_is_the_ranking_key_with_the_final_scorings_projected() -> None:
    game = played([9, 2])
    judge = Standing(game)
    assert final_targets(game.program.model) == [("penalties", "penalty")]
    assert game.ranking_keys() == [(0, 0), (0, 0)]        # nothing scored into `penalty` yet
    assert judge.all(game) == [(-9, 0), (-2, 0)]           # as if the game ended now
    assert game.ranking_keys() == [(0, 0), (0, 0)]        # and the variables put back
    assert judge.all(played([9, 2], MOST)) == [(9, 0), (2, 0)]
    assert lead((-2, 0), [(-9, 0)]) == 7 and lead((-9, 0), [(-2, 0)]) == -7


def test_a_tie_break_decides_the_winner_and_the_margin_is_then_zero() -> None:
    # both keep 35 points; P1 kept the 0, which the ranking's second key counts against it
    game = played([0, 1, 5, 2, 6, 3, 7, 4, 8, 10, 9, 15])
    assert game.is_over and game.totals() == [35, 35]
    assert game.ranking_keys() == [(-35, -1), (-35, 0)] and game.winners() == [1]
    assert lead((-35, 0), [(-35, -1)]) == 0.5 and lead((-35, -1), [(-35, 0)]) == -0.5
    record = game_record(game, Watch(), 1, 0, ["random", "random"], [])
    assert record["ranks"] == [[-35, -1], [-35, 0]] and margin(record) == 0


def test_the_margin_of_victory_is_the_winner_s_lead_by_the_ranking(tmp_path: Path) -> None:
    path = tmp_path / "fewest.jsonl"
    result = CliRunner().invoke(main, ["simulate", FEWEST, "-n", "20", "--records", str(path), "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    records = [json.loads(line) for line in path.read_text().splitlines()]
    leads, by_totals = [], []
    for r in records:
        if len(r["winners"]) == 1:
            w = int(r["winners"][0][1:]) - 1
            leads.append(r["scores"][1 - w] - r["scores"][w])  # the fewest points win: how many fewer
            by_totals.append(r["scores"][w] - r["scores"][1 - w])
    assert leads and min(leads) >= 0 and max(leads) > 0
    assert doc["margin"]["mean"] == pytest.approx(sum(leads) / len(leads))
    assert doc["margin"]["quantiles"]["min"] >= 0
    assert max(by_totals) < 0  # what the winner's total minus the other's said: always behind


def test_compare_measures_the_margin_by_each_side_s_ranking() -> None:
    result = CliRunner().invoke(main, ["compare", FEWEST, "--b-option", "most=true", "-n", "12", "--json"])
    assert result.exit_code == 0, result.output
    row = next(r for r in json.loads(result.stdout)["differences"] if r["statistic"] == "mean margin of victory")
    assert row["a"] > 0 and row["b"] > 0


def test_pass_is_never_legal_only_in_rules_that_offer_it() -> None:
    fewest, unused = ruleforge.load(FEWEST), ruleforge.load(UNUSED)
    assert not offers_pass(fewest.program(2, {}).model) and offers_pass(unused.program(2, {}).model)
    for path, listed in ((FEWEST, False), (UNUSED, True)):
        result = CliRunner().invoke(main, ["simulate", path, "-n", "4", "--json"])
        assert result.exit_code == 0, result.output
        doc = json.loads(result.stdout)
        assert ("pass" in doc["actions"]) is listed
        never = doc["unexercised"]["actions_never_legal"]
        assert never == ([] if path == FEWEST else ["steal"])  # `pass` is legal at every turn of the other
