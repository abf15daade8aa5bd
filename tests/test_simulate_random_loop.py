"""`simulate`'s loop for random seats (`runner.play_randomly`) against the agents' own loop: the
same draws and the same records, and the names a record reads kept per program."""

from __future__ import annotations

from pathlib import Path

import pytest

from ruleforge import chance
from ruleforge.agents import RandomAgent, agent_seed
from ruleforge.balance import runner
from ruleforge.balance.records import names_of

ROOT = Path(__file__).parents[1]


def records(batch: runner.Batch, seeds: range) -> list:
    return runner.play_chunk(batch, [(i + 1, seed) for i, seed in enumerate(seeds)])


@pytest.mark.parametrize(("game", "players", "options"), [
    ("tictactoe", 2, {}), ("hagakure", 3, {}), ("no_thanks", 5, {}), ("sushi_go", 3, {}),
    ("kingdomino", 2, {"harmony": True}),
])
def test_the_random_loop_records_what_random_agents_play(monkeypatch: pytest.MonkeyPatch, game: str,
                                                          players: int, options: dict) -> None:
    batch = runner.Batch(str(ROOT / "games" / f"{game}.rules"), players, options, "random")
    fast = records(batch, range(3, 6))

    def choose(self: RandomAgent, game: runner.Game) -> tuple:  # the same draw, as an agent of its own
        return runner._RANDOM_CHOICE(self, game)

    monkeypatch.setattr(RandomAgent, "choose", choose)  # so play_game seats the agents
    assert records(batch, range(3, 6)) == fast


def test_draws_as_a_random_agent_draws() -> None:
    """The loop's draw (`chance.below` on words seeded with the seat's agent seed) is the agent's."""
    for count in [1, 2, 3, 4, 5, 7, 8, 9, 31, 32, 33, 100]:
        seed = agent_seed(count, 1)
        words, agent = chance.seed_words(seed), RandomAgent(seed)
        for _ in range(50):
            k, words = chance.below(words, count)
            assert k == agent.rng.below(count)


def test_record_names_are_each_program_s_own() -> None:
    rules = runner.rules_for(str(ROOT / "games" / "hagakure.rules"))
    three, five = (rules.program(n, count_triggers=True) for n in (3, 5))
    assert names_of(three).players == ["P1", "P2", "P3"]
    assert names_of(five).players == ["P1", "P2", "P3", "P4", "P5"]
    assert names_of(rules.program(3)) is not names_of(three)  # a program of its own, names of its own
    kingdomino = runner.rules_for(str(ROOT / "games" / "kingdomino.rules"))
    plain, harmony = (kingdomino.program(2, options, count_triggers=True) for options in ({}, {"harmony": True}))
    assert names_of(plain) is not names_of(harmony) and names_of(plain) == names_of(harmony)
