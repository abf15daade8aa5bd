"""Tic-Tac-Toe and Connect Four through ruleforge against the hand-written engines of bench/
(bench/handwritten_tictactoe.py, bench/handwritten_connect_four.py), which share no code with it.

Seeded random games: the engine chooses, the hand-written engine replays each move; at every
decision both must offer the same moves in the same order, and both must end the game at the same
move with the same result (the engine's score is 1 for the winner, 0 otherwise) and the same
board. The fast `play_random_game` of each baseline, drawing from the same generator, must then
play that very game, so the speed baseline is checked too. The bench runs once with tiny counts.
"""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest
from baselines import load_baseline

import ruleforge

ROOT = Path(__file__).resolve().parents[1]
SEEDS = range(30)

TICTACTOE = ruleforge.load(ROOT / "games" / "tictactoe.rules")
CONNECT_FOUR = ruleforge.load(ROOT / "games" / "connect_four.rules")


def tictactoe_move(label: str) -> int:
    """'X at 2,3' -> cell 5 of the flat board (row by row from 0)."""
    m = re.fullmatch(r"[XO] at (\d),(\d)", label)
    assert m, label
    return 3 * (int(m.group(1)) - 1) + int(m.group(2)) - 1


def connect_four_move(label: str) -> int:
    """'Red in column 4' -> column 3 (from 0)."""
    m = re.fullmatch(r"(Red|Yellow) in column (\d)", label)
    assert m, label
    return int(m.group(2)) - 1


def tictactoe_board(hand: ModuleType, game: object) -> list[str | None]:
    return [None if v == 0 else "XO"[v - 1] for v in game.board]  # type: ignore[attr-defined]


def connect_four_board(hand: ModuleType, game: object) -> list[str | None]:
    seats = [game.cell(r, k) for r in range(1, 7) for k in range(1, 8)]  # type: ignore[attr-defined]
    return [None if s is None else ("Red", "Yellow")[s] for s in seats]


GAMES = {
    "tictactoe": (TICTACTOE, "handwritten_tictactoe", tictactoe_move, tictactoe_board, "symbol"),
    "connect_four": (CONNECT_FOUR, "handwritten_connect_four", connect_four_move, connect_four_board, "colour"),
}


def cross_check(name: str, seed: int) -> tuple[int | None, int]:
    """One seeded random game on both engines; the winner's seat (None: a draw) and the moves."""
    rules, baseline, move_of, board_of, attr = GAMES[name]
    hand_module = load_baseline(baseline)
    rng = random.Random(seed)
    game = rules.new_game(2, seed=seed)
    hand = hand_module.Game()
    moves = 0
    while not game.is_over:
        acts = game.legal_actions()
        assert [move_of(game.label(a)) for a in acts] == hand.legal_moves(), f"{name} seed {seed}, move {moves}"
        assert game.current_player == hand.mover
        k = rng.randrange(len(acts))
        game.apply(acts[k])
        hand.play(hand.legal_moves()[k])
        moves += 1
    assert hand.over and hand.legal_moves() == [], f"{name} seed {seed}: the engine ended, the hand-written did not"
    totals = [s["total"] for s in game.scores()]
    expected = [0, 0] if hand.winner is None else [int(seat == hand.winner) for seat in (0, 1)]
    assert totals == expected, f"{name} seed {seed}: scores {totals}, hand-written winner {hand.winner}"
    assert game.evaluate("winner") == hand.winner  # a seat, from 0, as the API gives players
    assert game.evaluate(f"list(top_of(x).{attr} for x in cells(board))") == board_of(hand_module, hand)
    return hand.winner, moves


def replayed_by_hand(name: str, decisions: list[tuple[int, int, str]]) -> object:
    """A record's decisions (seat, how many legal, label) played on the hand-written engine, each
    checked there: the seat to move, the count of legal moves, the move among them. The game it ends in."""
    _, baseline, move_of, _, _ = GAMES[name]
    hand = load_baseline(baseline).Game()
    for n, (seat, legal, label) in enumerate(decisions, 1):
        assert (hand.mover, len(hand.legal_moves())) == (seat, legal), f"{name}, decision {n}"
        assert move_of(label) in hand.legal_moves(), f"{name}, decision {n}: {label}"
        hand.play(move_of(label))
    assert hand.over, f"{name}: the record ends before the game"
    return hand


@pytest.mark.parametrize("name", list(GAMES))
def test_engine_and_hand_written_agree_on_random_games(name: str) -> None:
    results = [cross_check(name, seed) for seed in SEEDS]
    winners = {w for w, _ in results}
    assert {0, 1} <= winners  # both seats won some: the seeds exercise more than one ending
    baseline = load_baseline(GAMES[name][1])
    # the fast playout, drawing from the same generator, plays the same games
    assert [baseline.play_random_game(random.Random(seed)) for seed in SEEDS] == [w for w, _ in results]


def test_a_draw_and_a_full_board_agree() -> None:
    """Random games rarely fill a Connect Four board; seeds found to end in draws are replayed."""
    hand = load_baseline("handwritten_connect_four")
    draws = [seed for seed in range(3000) if hand.play_random_game(random.Random(seed)) is None][:2]
    assert draws, "no draw in 3000 random games"
    for seed in draws:
        assert cross_check("connect_four", seed) == (None, 42)
    ttt = load_baseline("handwritten_tictactoe")
    seed = next(s for s in range(200) if ttt.play_random_game(random.Random(s)) is None)
    assert cross_check("tictactoe", seed) == (None, 9)


def test_the_hand_written_engines_refuse_illegal_moves() -> None:
    ttt = load_baseline("handwritten_tictactoe").Game()
    ttt.play(4)
    with pytest.raises(ValueError):
        ttt.play(4)
    c4 = load_baseline("handwritten_connect_four").Game()
    for _ in range(6):
        c4.play(2)
    assert 2 not in c4.legal_moves() and c4.winner is None  # alternating colours: no four
    with pytest.raises(ValueError):
        c4.play(2)


def test_the_bench_runs(capsys: pytest.CaptureFixture[str]) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        bench = load_baseline("bench_small_games")
    finally:
        sys.path.remove(str(ROOT / "bench"))
    assert bench.main(["--games", "5", "--repeat", "2", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["config"]["threads"] == 1
    for name in ("tictactoe", "connect_four"):
        figures = result["games"][name]
        for runner in ("engine_api", "handwritten"):
            assert len(figures[runner]["runs_s"]) == 2 and figures[runner]["playouts_per_s"] > 0
        assert figures["ratio"] == pytest.approx(figures["engine_api"]["playouts_per_s"]
                                                 / figures["handwritten"]["playouts_per_s"])
        assert figures["ludii_published"] == {"tictactoe": 131_855, "connect_four": 28_279}[name]
    assert bench.main(["--games", "3", "--repeat", "1"]) == 0
    text = capsys.readouterr().out
    assert "ratio" in text and "Ludii" in text and "one complete random game" in text
