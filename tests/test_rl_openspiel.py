"""Every game, at every player count, as a pyspiel game (docs/rl.md): OpenSpiel's random
simulation test passes (clones, saved and restored states, observation and information-state
tensors and strings), and what a seat observes never changes when the part of the game hidden
from it is dealt again."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import ruleforge

pyspiel = pytest.importorskip("pyspiel")
np = pytest.importorskip("numpy")

from ruleforge.rl.openspiel import register  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
GAMES = sorted((ROOT / "games").glob("*.rules"))
COUNTS = [(path, n) for path in GAMES for n in range(ruleforge.load(path).player_range[0],
                                                      ruleforge.load(path).player_range[1] + 1)]
# Games whose random simulation (a clone and a restore at every move) takes many seconds whole:
# cut after some decisions, as a draw
BIG = {"kingdomino": 16, "nakasendo": 20, "nakasendo_wide": 16, "hagakure": 40, "sushi_go": 40}


@pytest.mark.parametrize("path,players", COUNTS, ids=[f"{p.stem}-{n}p" for p, n in COUNTS])
def test_random_sim_test_passes(path: Path, players: int) -> None:
    name = register(path, players, name=f"rf_test_{path.stem}_{players}p", max_decisions=BIG.get(path.stem))
    game = pyspiel.load_game(name, {"seed": 3})
    assert game.num_distinct_actions() > 0 and game.observation_tensor_size() > 0
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_an_explicit_first_chance_node_draws_the_seed() -> None:
    name = register(ROOT / "games/love_letter.rules", 2, name="rf_test_love_letter_seeds", seeds=5)
    game = pyspiel.load_game(name)
    state = game.new_initial_state()
    assert state.is_chance_node() and state.chance_outcomes() == [(k, 0.2) for k in range(5)]
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
    restored = game.deserialize_state(state.child(2).serialize())
    assert str(restored) == str(state.child(2))


@pytest.mark.parametrize("stem,players", [("love_letter", 3), ("sushi_go", 3), ("hagakure", 3), ("no_thanks", 4)])
def test_observations_hide_what_is_hidden(stem: str, players: int) -> None:
    name = register(ROOT / f"games/{stem}.rules", players, name=f"rf_test_hidden_{stem}")
    state = pyspiel.load_game(name, {"seed": 2}).new_initial_state()
    rng = random.Random(4)
    while not state.is_terminal():
        table = state.table
        if not table.chooser.chosen:
            for seat in range(players):
                seen = (state.observation_tensor(seat), state.information_state_tensor(seat),
                        state.observation_string(seat), state.information_state_string(seat))
                game = table.game
                table.game = game.determinize(seat, random.Random(rng.random()))
                try:
                    again = (state.observation_tensor(seat), state.information_state_tensor(seat),
                             state.observation_string(seat), state.information_state_string(seat))
                finally:
                    table.game = game
                assert seen == again
        state.apply_action(rng.choice(state.legal_actions()))
    assert sorted(state.returns()) in ([0.0] * players, sorted([1.0] * len(table.game.winners())
                                                               + [-1.0] * (players - len(table.game.winners()))))
