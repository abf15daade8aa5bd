"""`turn together S: a, b`: a simultaneous decision, on the sealed-bids game
(tests/synthetic/sealed_bids.rules): choices collected hidden, run in seat order; nothing a
seat receives shows another's pending choice; search, saves, logs and play keep it so."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

import ruleforge
from ruleforge.agents import GreedyAgent
from ruleforge.cli import main
from ruleforge.diagnostics import GameError, RulesError
from ruleforge.search import MCTSAgent

ROOT = Path(__file__).parents[1]
BIDS = str(ROOT / "tests/synthetic/sealed_bids.rules")


@pytest.fixture(scope="module")
def rules() -> ruleforge.Rules:
    return ruleforge.load(BIDS)


def bid(game: ruleforge.Game, value: int) -> None:
    game.apply(f"bid token {value}")


def received(game: ruleforge.Game, seat: int) -> tuple:
    """Everything `seat` is shown: its view, the log as it reads it, what it may choose."""
    legal = game.legal_labels() if game.current_player == seat else None
    return json.dumps(game.view(seat), sort_keys=True), game.log_lines(viewer=seat), legal


def test_choices_run_in_seat_order_once_all_are_in(rules: ruleforge.Rules) -> None:
    game = rules.new_game(3, seed=4)
    assert game.current_player == 0
    shown = game.view(None)["zones"]["shown"]
    bid(game, 1)
    assert game.current_player == 1
    assert game.view(None)["zones"]["hand(P1)"] == {"hidden": 3}  # nothing happened yet
    assert game.view(None)["zones"]["bids(P1)"] == []
    bid(game, 3)
    bid(game, 2)
    lines = game.log_lines()
    assert lines[:6] == ["P1 has chosen", "P2 has chosen", "P3 has chosen", "P1: bid token 1", "P2: bid token 3",
                         "P3: bid token 2"]
    assert f"P2 wins {shown[0]}" in lines
    assert game.view(None)["zones"]["won(P2)"] == shown
    assert game.current_player == 0 and "together" in game.view(0)  # the next round's choice


def test_a_tie_wins_nothing_and_everyone_skipped_goes_on(rules: ruleforge.Rules) -> None:
    game = rules.new_game(2, seed=1)
    for value in (1, 1, 2, 2, 3, 3):
        bid(game, value)
    assert game.is_over
    lines = game.log_lines()
    assert lines.count("P1 has no legal action and is skipped") == 1  # the fourth round: no token left
    assert lines.count("P2 has no legal action and is skipped") == 1
    assert sum(line.startswith("nobody wins") for line in lines) == 4
    assert [s["total"] for s in game.scores()] == [0, 0]


def test_a_chooser_without_legal_action_is_skipped_and_the_others_choose(rules: ruleforge.Rules) -> None:
    game = rules.new_game(2, seed=1)
    for value in (1, 2, 3):
        game.put(f"token {value}", "spent")  # P1's tokens: the first of each label
    assert game.legal_actions() == []
    assert game.skip_empty_decision()
    assert game.current_player == 1
    bid(game, 1)
    assert game.log_lines()[:4] == ["P1 has no legal action and is skipped", "P2 has chosen", "P2: bid token 1",
                                    "P2 wins prize 5"]  # the prize shown: prizes 2-6 shuffled, the top one
    assert "P2: bid token 1" in game.log_lines()
    assert game.view(None)["zones"]["won(P2)"] != []  # the only bid wins


def test_nothing_a_seat_receives_shows_a_pending_choice(rules: ruleforge.Rules) -> None:
    """P1 bids 1 in one game and 3 in another: until P2 has chosen, everything P2 (and a
    spectator) receives is the same in both; P1's own view shows its own choice."""
    games = []
    for value in (1, 3):
        game = rules.new_game(3, seed=7)
        bid(game, value)
        games.append(game)
    low, high = games
    assert received(low, 1) == received(high, 1)
    assert received(low, 2) == received(high, 2)
    assert low.view(None) == high.view(None)
    assert low.log_lines(viewer=1) == low.log_lines() == ["P1 has chosen"]
    assert low.view(1)["together"] == {"choosers": ["P1", "P2", "P3"], "chosen": ["P1"]}
    assert low.view(0)["together"]["your_choice"] == "bid token 1"
    assert high.view(0)["together"]["your_choice"] == "bid token 3"
    bid(low, 2)
    bid(high, 2)
    assert received(low, 2) == received(high, 2)  # P2's choice is hidden from P3 as well
    assert low.digest() != high.digest()  # the state holds the choices all the same


def test_determinize_draws_the_others_pending_choices_again(rules: ruleforge.Rules) -> None:
    game = rules.new_game(2, seed=3)
    bid(game, 3)
    drawn = {game.determinize(1, random.Random(k)).state.sim[2][0][2] for k in range(20)}
    assert len(drawn) > 1  # P1's pending bid is redrawn, not read
    mine = rules.new_game(2, seed=3)
    bid(mine, 1)
    for k in range(5):  # the same draws whatever P1 chose: the search cannot tell them apart
        assert game.determinize(1, random.Random(k)).digest() == mine.determinize(1, random.Random(k)).digest()
    own = game.determinize(0, random.Random(0))
    assert own.state.sim == game.state.sim  # one's own choice is kept


@pytest.mark.parametrize("agent", [lambda: MCTSAgent(seed=5, budget=60), lambda: GreedyAgent(seed=5)])
def test_agents_choose_the_same_whatever_the_pending_choice(rules: ruleforge.Rules, agent) -> None:
    picks = []
    for value in (1, 2, 3):
        game = rules.new_game(2, seed=2)
        bid(game, value)
        picks.append(agent().choose(game))
    assert picks[0] == picks[1] == picks[2]


def test_clone_and_saved_state_keep_a_pending_choice(rules: ruleforge.Rules) -> None:
    game = rules.new_game(3, seed=5)
    bid(game, 2)
    copy = game.clone()
    bid(copy, 1)
    assert game.current_player == 1 and game.state.sim[2] == ((0, game.state.sim[2][0][1], game.state.sim[2][0][2]),)
    saved = json.loads(json.dumps(game.to_json()))
    back = rules.load_game(saved)
    assert back.digest() == game.digest() and back.current_player == 1
    for later in (back, game):
        bid(later, 3)
        bid(later, 1)
    assert back.digest() == game.digest() and back.log_lines() == game.log_lines()


@pytest.mark.parametrize("change, message", [
    (lambda sim: sim[2][0].__setitem__(2, [99]), "not one of their legal actions"),
    (lambda sim: sim.__setitem__(1, 7), "index must be a number from 0 to 2"),
    (lambda sim: sim.__setitem__(0, [1, 0, 2]), "distinct seats in seat order"),
    (lambda sim: sim[2].append([1, 0, [0]]), "at most one choice per chooser"),
    (lambda sim: sim.__setitem__(3, 10 ** 6), "resume must be a block"),
    (lambda sim: sim.__setitem__(2, "x"), "pending must be a list"),
])
def test_a_saved_pending_choice_is_checked(rules: ruleforge.Rules, change, message: str) -> None:
    game = rules.new_game(3, seed=5)
    bid(game, 2)
    saved = json.loads(json.dumps(game.to_json()))
    change(saved["state"]["sim"])
    with pytest.raises(GameError, match=message):
        rules.load_game(saved)


def test_checker_and_compiler_refuse_what_cannot_be_simultaneous(tmp_path: Path) -> None:
    head = "game \"T\"\nplayers 2\nzone z: pile\n"
    bad = tmp_path / "bad.rules"
    bad.write_text(head + "action a { choose: pass }\naction b { }\n"
                   "flow { turn together 3: b  turn next(random(players)) { turn together players: b } }\n")
    with pytest.raises(RulesError) as err:
        ruleforge.load(bad)
    text = str(err.value)
    assert "the players who choose together must be list of player, not int" in text
    assert "'turn together' cannot stand inside a turn, an action or a trigger" in text
    deciding = tmp_path / "deciding.rules"
    deciding.write_text(head + "action a { choose: pass }\nflow { turn together players: a, pass }\n")
    with pytest.raises(RulesError, match="action 'a' decides inside its effect"):
        ruleforge.load(deciding).program(2)


def test_play_log_replay_and_resume(tmp_path: Path) -> None:
    runner = CliRunner()
    log = tmp_path / "game.json"
    done = runner.invoke(main, ["play", BIDS, "--players", "3", "--seed", "2", "--log", str(log), "--quiet"])
    assert done.exit_code == 0, done.output
    steps = json.loads(log.read_text())["steps"]
    assert len(steps) == 9
    assert runner.invoke(main, ["replay", str(log)]).stdout == "replayed 9 steps: identical\n"
    part = json.loads(log.read_text())
    part["steps"] = part["steps"][:4]  # stopped with P2 of the second round's choice pending
    part["over"] = False
    part["final_digest"] = part["steps"][-1].get("digest")
    cut = tmp_path / "cut.json"
    cut.write_text(json.dumps(part))
    again = runner.invoke(main, ["play", "--resume", str(cut), "--quiet"])
    assert again.exit_code == 0, again.output
    assert len(json.loads(cut.read_text())["steps"]) == 9


def test_two_people_at_one_terminal_hand_over(tmp_path: Path) -> None:
    """P1 and P2 at one terminal: after P1's choice a hand-over screen waits for P2; P2's
    screen shows that P1 has chosen, never what; P1's own screen showed its choice."""
    answers = "3\n" + "\n1\n" * 5  # a choice, then Enter at each hand-over and a choice
    result = CliRunner().invoke(main, ["play", BIDS, "--agents", "human,human", "--seed", "1"], input=answers)
    assert result.exit_code == 0, result.output
    out = result.stdout
    first, rest = out.split("=== P1 is done: hand over to P2", 1)
    assert "--- P1 sees" in first and "--- P2 sees" not in first
    p2_screen = rest.split("P2 [", 1)[0]
    assert "=== P2 at the terminal ===" in p2_screen
    assert "choosing together: P1, P2; chosen: P1" in p2_screen
    assert "your choice" not in p2_screen and "P1: bid" not in p2_screen
    assert "P1: bid token 3" in rest.split("P2 [", 1)[1]  # shown once P2 has chosen too


def test_playthrough_is_deterministic_and_shows_only_that_players_have_chosen() -> None:
    runner = CliRunner()
    args = ["playthrough", BIDS, "--players", "2", "--seed", "1", "--agents", "random,mcts:20"]
    one = runner.invoke(main, args)
    two = runner.invoke(main, args)
    assert one.exit_code == 0, one.output
    assert one.stdout == two.stdout
    assert "  P1, P2 see: P1 has chosen\n" in one.stdout
