"""The search agent run in C on a native game (ruleforge/native/search.py, native/c/rf_search.c):
at every decision of a few seeded games it chooses what the Python search chooses on the
reference engine, with the same tree at the root and the same stream after; where C cannot be
exact, the Python search runs instead."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import ruleforge
from ruleforge import chance
from ruleforge.search import MCTSAgent

GAMES = Path(__file__).resolve().parents[1] / "games"


def _native(rules: ruleforge.Rules, players: int, seed: int) -> ruleforge.Game:
    game = rules.new_game(players, seed, engine="native")
    if type(game).__name__ != "NativeGame":
        pytest.skip("no native engine on this machine")
    return game


def _tree(agent: MCTSAgent) -> dict:
    assert agent.last_root is not None
    return {a: (n.player, n.visits, n.reward, n.avail) for a, n in agent.last_root.children.items()}


SYNTHETIC = Path(__file__).resolve().parent / "synthetic"


@pytest.mark.parametrize("path, players, seed, budget", [
    (GAMES / "hagakure.rules", 3, 1, 30), (GAMES / "hagakure.rules", 4, 2, 30), (GAMES / "hagakure.rules", 5, 3, 20),
    (GAMES / "tictactoe.rules", 2, 4, 60),
    (GAMES / "love_letter.rules", 3, 5, 30),  # reveals: what a player saw is kept in the native state
    (SYNTHETIC / "native_trap.rules", 2, 1, 30),  # a division by zero in some iterations: each one skipped
])
def test_native_search_chooses_as_the_python_search(path: Path, players: int, seed: int, budget: int) -> None:
    rules = ruleforge.load(path)
    reference, native = rules.new_game(players, seed), _native(rules, players, seed)
    python = [MCTSAgent(seed=seed * 10 + p, budget=budget) for p in range(players)]
    in_c = [MCTSAgent(seed=seed * 10 + p, budget=budget) for p in range(players)]
    decisions = 0
    while not reference.is_over and decisions < 60:  # native_trap's game may go on and on
        p = reference.current_player
        several = len(reference.legal_actions()) > 1
        chosen = python[p].choose(reference)
        assert in_c[p].choose(native) == chosen, f"decision {decisions}"
        assert in_c[p].rng.words == python[p].rng.words
        if several:
            assert _tree(in_c[p]) == _tree(python[p]), f"decision {decisions}"
        assert native.on_native  # searched in C, never handed over
        reference.apply(chosen)
        native.apply(chosen)
        decisions += 1
    assert native.is_over == reference.is_over
    if native.is_over:
        assert native.winners() == reference.winners()


def test_a_visibility_that_changes_in_play_is_searched_in_python() -> None:
    """Naishi's Hands open at the final reveal (`visible everyone if revealed`): C does not
    follow such a visibility, so the Python search decides, from the same stream."""
    from ruleforge.native.search import search_natively

    rules = ruleforge.load(GAMES / "naishi.rules")
    native = _native(rules, 2, 3)
    agent = MCTSAgent(seed=3, budget=5)
    assert search_natively(agent, native, native.current_player, native.legal_actions()) is None
    reference = rules.new_game(2, 3)
    assert agent.choose(native) == MCTSAgent(seed=3, budget=5).choose(reference)


def test_determinize_takes_either_generator() -> None:
    """The greedy agent's `random.Random` and the search's `chance.Stream` both determinize; the
    stream's deal is the one its seed gives."""
    game = ruleforge.load(GAMES / "hagakure.rules").new_game(4, 7)
    me = game.current_player
    assert game.determinize(me, random.Random(1)).view(me) == game.view(me)
    one, two = game.determinize(me, chance.Stream(1)), game.determinize(me, chance.Stream(1))
    assert one.state.z == two.state.z and one.state.rng == two.state.rng and one.view(me) == game.view(me)


def test_simulate_searches_in_c_and_summarises_the_same_games(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`simulate --agents mcts:N,... --engine auto`: the search seats search on a native copy of
    each game, said once; the games, recorded on the reference engine, are the same games, so the
    summary is the reference engine's, number for number."""
    import json

    from click.testing import CliRunner

    from ruleforge.cli import main

    monkeypatch.setenv("RULEFORGE_CACHE", str(tmp_path / "cache"))
    if type(ruleforge.load(GAMES / "hagakure.rules").new_game(3, 0, engine="native")).__name__ != "NativeGame":
        pytest.skip("no native engine on this machine")

    def summary(engine: str) -> tuple[dict, str]:
        result = CliRunner().invoke(main, ["simulate", str(GAMES / "hagakure.rules"), "-n", "3", "--players", "3",
                                           "--agents", "mcts:25,random,mcts:10", "--seed", "5", "--json",
                                           "--engine", engine])
        assert result.exit_code == 0, result.output
        out = json.loads(result.stdout)
        for timing in ("seconds", "games_per_second"):
            out.pop(timing)
        return out, result.stderr

    (native, said), (reference, _) = summary("auto"), summary("reference")
    assert native == reference and native["games"] == 3
    assert said.count("note: the search of P1, P3 runs in C on the native engine") == 1
