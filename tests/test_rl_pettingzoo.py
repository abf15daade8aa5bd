"""Every game, at every player count, as a PettingZoo AEC environment (docs/rl.md): PettingZoo's
own API and seed tests pass, whole games end with the ranking's rewards, and what a seat
observes never changes when the part of the game hidden from it is dealt again."""

from __future__ import annotations

import random
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import ruleforge

pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")
np = pytest.importorskip("numpy")

from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test  # noqa: E402

from ruleforge.rl.pettingzoo import env, parallel_env  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
GAMES = sorted((ROOT / "games").glob("*.rules"))
COUNTS = [(path, n) for path in GAMES for n in range(ruleforge.load(path).player_range[0],
                                                      ruleforge.load(path).player_range[1] + 1)]
# Games whose whole game takes a second or more a piece at a time: played part of the way
BIG = {"kingdomino", "nakasendo", "nakasendo_wide"}


@pytest.mark.parametrize("path,players", COUNTS, ids=[f"{p.stem}-{n}p" for p, n in COUNTS])
def test_api_and_seed_tests_pass(path: Path, players: int) -> None:
    rules = ruleforge.load(path)
    with warnings.catch_warnings():
        # PettingZoo warns of a Dict observation and of agent names not like `player_0`: both chosen
        warnings.simplefilter("ignore")
        api_test(env(rules, players), num_cycles=15)
        api_test(env(rules, players, max_decisions=4, score_rewards=True), num_cycles=15)
        seed_test(lambda: env(rules, players), num_cycles=15)
        parallel_api_test(parallel_env(rules, players), num_cycles=15)
        parallel_seed_test(lambda: parallel_env(rules, players), num_cycles=15)


def observed_elsewhere(table, seat: int, observe, rng: random.Random) -> dict:
    """What `observe()` gives once the part of the game `seat` cannot see is drawn afresh
    (`determinize`): an observation that changes has read what it may not."""
    game = table.game
    table.game = game.determinize(seat, random.Random(rng.random()))
    try:
        return observe()
    finally:
        table.game = game


def play(environment, rng: random.Random, check_hidden: bool) -> dict[str, float]:
    """A whole game of random allowed pieces; with `check_hidden`, every agent's observation at
    every decision is compared with its observation of a game determinized for it."""
    environment.reset(seed=rng.randrange(1000))
    table = environment.table
    totals = dict.fromkeys(environment.possible_agents, 0.0)
    for agent in environment.agent_iter():
        observation, reward, termination, truncation, _ = environment.last()
        totals[agent] += reward
        if termination or truncation:
            environment.step(None)
            continue
        if check_hidden and not table.chooser.chosen:
            for other in environment.possible_agents:
                seat = environment.possible_agents.index(other)
                seen = environment.observe(other)
                again = observed_elsewhere(table, seat, lambda other=other: environment.observe(other), rng)
                assert np.array_equal(seen["observation"], again["observation"]), (other, table.game.view(seat))
                assert np.array_equal(seen["action_mask"], again["action_mask"])
        mask = observation["action_mask"]
        assert mask.dtype == np.int8 and mask.any()
        environment.step(rng.choice(np.flatnonzero(mask).tolist()))
    return totals


@pytest.mark.parametrize("path", GAMES, ids=[p.stem for p in GAMES])
def test_whole_games_reward_the_ranking_and_hide_what_is_hidden(path: Path) -> None:
    rules = ruleforge.load(path)
    players = rules.player_range[0]
    limit = 40 if path.stem in BIG else None
    environment = env(rules, players, max_decisions=limit)
    totals = play(environment, random.Random(3), check_hidden=True)
    game = environment.table.game
    if game.is_over:
        winners = {f"P{p + 1}" for p in game.winners()}
        expected = {a: (0.0 if len(winners) == players else 1.0 if a in winners else -1.0) for a in totals}
        assert totals == expected
    else:
        assert limit is not None and environment.table.decisions == limit and set(totals.values()) == {0.0}


def test_score_rewards_add_up_to_the_totals_and_the_ranking() -> None:
    rules = ruleforge.load(ROOT / "games/no_thanks.rules")
    environment = env(rules, 3, score_rewards=True)
    totals = play(environment, random.Random(5), check_hidden=False)
    game = environment.table.game
    ranking = dict(zip(environment.possible_agents, (0.0,) * 3))
    winners = set(game.winners())
    for p, a in enumerate(environment.possible_agents):
        ranking[a] = 0.0 if len(winners) == 3 else 1.0 if p in winners else -1.0
    assert totals == {a: game.totals()[p] + ranking[a] for p, a in enumerate(environment.possible_agents)}


def test_pieces_name_the_actions_step_by_step() -> None:
    environment = env(ROOT / "games/love_letter.rules", 2, render_mode="ansi")
    environment.reset(seed=21)  # P1 starts, with a Guard: its first piece leaves a choice of pieces
    names = environment.piece_names
    assert names[0] == "action:pass" and "component:Guard" in names and "player:P2" in names
    first = [names[i] for i in np.flatnonzero(environment.observe("P1")["action_mask"])]
    assert first and all(name.startswith("action:") for name in first)
    assert "P1 sees" in environment.render()
    before = environment.legal_labels()
    environment.step(names.index(first[0]))
    assert environment.agent_selection == "P1" or environment.table.decisions == 1
    assert set(environment.legal_labels()) <= set(before)


def test_import_ruleforge_needs_no_numpy() -> None:
    code = ("import sys, ruleforge, ruleforge.rl\n"
            "assert not {'numpy', 'gymnasium', 'pettingzoo', 'pyspiel'} & set(sys.modules), sys.modules.keys()")
    ran = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert ran.returncode == 0, ran.stderr


@pytest.mark.parametrize("players", [2, 5])
def test_choosers_of_a_turn_together_choose_at_once(players: int) -> None:
    """Sushi Go!'s every round is a `turn together`: the parallel environment asks every seat at
    once, and what each observes is unchanged by a determinization for it."""
    environment = parallel_env(ROOT / "games/sushi_go.rules", players)
    observations, _ = environment.reset(seed=4)
    rng = random.Random(2)
    most = 0
    rewards: dict[str, float] = {}
    while environment.agents:
        acting = {a for a in environment.agents if observations[a]["action_mask"].any()}
        most = max(most, len(acting))
        table = environment.table
        if not any(c.chosen for c in environment.choosers.values()):
            for seat, agent in enumerate(environment.possible_agents):
                again = observed_elsewhere(table, seat, lambda seat=seat: environment._observe(seat), rng)
                assert np.array_equal(again["observation"], observations[agent]["observation"])
        actions = {a: rng.choice(np.flatnonzero(observations[a]["action_mask"]).tolist()) for a in acting}
        observations, rewards, *_ = environment.step(actions)
    assert most == players and table.game.is_over
    winners = {f"P{p + 1}" for p in table.game.winners()}
    assert rewards == {a: (0.0 if len(winners) == players else 1.0 if a in winners else -1.0)
                       for a in environment.possible_agents}
