"""The generator back end (ruleforge/compiler/flow.py, ruleforge/flowplay.py) plays the same
games as the block machine, decision by decision, and hands over to it whenever more than a
playout is wanted."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import ruleforge
from ruleforge.engine import Game
from ruleforge.flowplay import FlowGame, flow_main
from ruleforge.testing.backends import BackendsDiffer, compare_backends

ROOT = Path(__file__).parents[1]
GAMES = sorted((ROOT / "games").glob("*.rules"))
SYNTHETIC = sorted((ROOT / "tests" / "synthetic").glob("*.rules"))
# games per game and player count: a few hundred per game in all (bench/differential.py plays 10,000)
SEEDED_GAMES = {"nakasendo": 40, "nakasendo_wide": 20, "naishi_legends": 60, "kingdomino": 40, "tictactoe": 300}


def _player_counts(rules: ruleforge.Rules) -> range:
    low, high = rules.model.players
    return range(low, high + 1)


@pytest.mark.parametrize("path", GAMES, ids=[p.stem for p in GAMES])
def test_every_decision_of_seeded_games_agrees(path: Path) -> None:
    rules = ruleforge.load(str(path))
    games = SEEDED_GAMES.get(path.stem, 100)
    compared = 0
    for players in _player_counts(rules):
        program = rules.program(players)
        if flow_main(program) is None:
            assert path.stem == "sushi_go"  # `turn together`: the block machine plays it
            assert type(rules.new_game(players, seed=1)) is Game
            return
        choices = random.Random(players)
        for seed in range(games):
            compared += compare_backends(program, seed, choices)
    assert compared > 1000  # decisions


@pytest.mark.parametrize("path", SYNTHETIC, ids=[p.stem for p in SYNTHETIC])
def test_synthetic_rules_agree(path: Path) -> None:
    """Each construct of the language, as the small files of tests/synthetic use it."""
    try:
        rules = ruleforge.load(str(path))
    except ruleforge.RulesError:
        pytest.skip("a rules file the checker refuses on purpose")
    choices = random.Random(0)
    for players in _player_counts(rules):
        program = rules.program(players)
        if flow_main(program) is None:
            continue
        for seed in range(8):
            try:
                compare_backends(program, seed, choices)
            except ruleforge.GameError:
                pass  # a rules failure raised alike by both (compare_backends checks the messages)


FAILING = """
game "Fails"
players 2
var left: int = 3
flow {
  repeat 5 {
    for p in players {
      turn p: step
    }
  }
}
action step {
  left -= 1
  left = 2 // left
}
"""

ENDLESS = """
game "Endless"
players 2
var n: int = 0
flow {
  while n >= 0 {
    if n < 0 {
      turn first(players): step
    }
    n += 1
  }
}
action step {
  n -= 1
}
"""


def test_a_runtime_error_is_told_at_its_rule_as_the_block_machine_tells_it(tmp_path: Path) -> None:
    (tmp_path / "fails.rules").write_text(FAILING)
    rules = ruleforge.load(tmp_path / "fails.rules")
    with pytest.raises(ruleforge.GameError) as on_blocks:
        game = Game(rules.program(2), 0)
        while not game.is_over:
            game.apply(game.legal_actions()[0])
    game = rules.new_game(2)
    assert isinstance(game, FlowGame)
    with pytest.raises(ruleforge.GameError) as on_generators:
        while not game.is_over:
            game.apply(game.legal_actions()[0])
    assert str(on_generators.value) == str(on_blocks.value)
    assert "fails.rules:14:" in str(on_generators.value)


def test_a_loop_with_no_decision_is_stopped_alike(tmp_path: Path) -> None:
    (tmp_path / "endless.rules").write_text(ENDLESS)
    program = ruleforge.load(tmp_path / "endless.rules").program(2)
    with pytest.raises(ruleforge.GameError) as on_blocks:
        Game(program, 0)
    with pytest.raises(ruleforge.GameError) as on_generators:
        FlowGame(program, 0)
    assert str(on_generators.value) == str(on_blocks.value)


def test_a_copy_or_a_save_hands_over_to_the_block_machine() -> None:
    rules = ruleforge.load(str(ROOT / "games" / "naishi.rules"))
    flow, blocks = rules.new_game(2, seed=3), Game(rules.program(2), 3)
    assert isinstance(flow, FlowGame)
    rng = random.Random(3)
    for _ in range(12):
        index = rng.randrange(len(flow.legal_actions()))
        flow.apply(flow.legal_actions()[index])
        blocks.apply(blocks.legal_actions()[index])
    assert flow._gen is not None                   # a playout so far: still on the generators
    assert flow.view(1) == blocks.view(1)          # reading the state hands over...
    assert flow._gen is None
    assert flow.to_json() == blocks.to_json()      # ...to the very state the block machine has
    copy = flow.clone()
    assert type(copy) is Game and copy.digest() == blocks.digest()


def test_apply_takes_labels_and_plain_pairs_and_refuses_the_rest_alike() -> None:
    """apply's quick way (an action of legal_actions()) and Game's way give the same games."""
    rules = ruleforge.load(str(ROOT / "games" / "tictactoe.rules"))
    flow, blocks = rules.new_game(2, seed=5), Game(rules.program(2), 5)
    aid, args = flow.legal_actions()[4]
    flow.apply([aid, list(args)])                        # a pair read from JSON
    blocks.apply(blocks.legal_actions()[4])
    assert flow._gen is not None
    with pytest.raises(ruleforge.GameError, match="not a legal action"):
        flow.apply((aid, args))                          # that cell is taken now
    assert len(flow.legal_actions()) == 8 and flow.digest() == blocks.digest()  # nothing changed
    rng = random.Random(5)
    while not flow.is_over:
        index = rng.randrange(len(flow.legal_actions()))
        flow.apply(flow.legal_actions()[index])
        blocks.apply(blocks.legal_actions()[index])
    with pytest.raises(ruleforge.GameError, match="the game is over"):
        flow.apply((aid, args))
    assert flow.digest() == blocks.digest()
    labelled = rules.new_game(2, seed=5)
    labelled.apply(labelled.legal_labels()[4])        # a label (reading labels hands over)
    assert labelled.state.log[-1][:4] == blocks.state.log[0][:4]


def test_a_finished_game_is_read_without_a_replay() -> None:
    rules = ruleforge.load(str(ROOT / "games" / "hagakure.rules"))
    game = rules.new_game(4, seed=2)
    rng = random.Random(2)
    while not game.is_over:
        game.apply(game.legal_actions()[rng.randrange(len(game.legal_actions()))])
    assert game._gen is not None and game.winners() and game.scores()
    assert game._gen is not None                   # scores and winners read the state as it is
    reference = Game(rules.program(4), 2)
    rng = random.Random(2)
    while not reference.is_over:
        reference.apply(reference.legal_actions()[rng.randrange(len(reference.legal_actions()))])
    assert game.digest() == reference.digest()     # a digest replays, and agrees


def test_the_comparison_has_teeth(monkeypatch: pytest.MonkeyPatch) -> None:
    """A generator back end that plays one rule differently is caught at that decision."""
    rules = ruleforge.load(str(ROOT / "games" / "hagakure.rules"))
    program = rules.program(3)
    flow_main(program)
    real = program.namespace["legal_point_1"]

    def reversed_listing(st, me, out):
        real(st, me, out)
        out.reverse()

    program.namespace["legal_point_1"] = reversed_listing  # the generators call it by name
    try:
        with pytest.raises(BackendsDiffer, match="legal actions differ"):
            for seed in range(5):
                compare_backends(program, seed, random.Random(seed))
    finally:
        program.namespace["legal_point_1"] = real
