"""`ruleforge playthrough` and ruleforge.playthrough: the record of one whole game.

The record must be the same on every run (in-process, through the command, under other hash
seeds), and must say what happened: each decision as the game's own history has it, among the
legal actions the game offered, the log exactly as each player's log reads, what reveals
showed, and the game's scores. Each claim is checked against the game, replayed on its own.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import ruleforge
from ruleforge import Game, GameError
from ruleforge.cli import main, simulate
from ruleforge.playthrough import FORMAT, Playthrough, PlaythroughError, playthrough

ROOT = Path(__file__).parents[1]
HAGAKURE = str(ROOT / "games" / "hagakure.rules")
NAISHI = str(ROOT / "games" / "naishi.rules")
RULES = {path: ruleforge.load(path) for path in (HAGAKURE, NAISHI)}
DECISION = re.compile(r"^(\d+)\. (P\d+) \((\d+) legal\): (.*)$")

# The second decision's options read a cell outside the grid (`x in far`, line 5 column 10): a rule that
# fails at run time, while decision 1 is applied.
FAILING = '''game "c"
players 2
zone board: grid, size 3 by 3
def far = list(x for x in [cell(board, 5, 5)] if count(x) == 0)
action a(x in far) "a" { }
action b "b" { }
action c "c" { }
flow { turn first(players): c  turn first(players): a, b }
'''


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def ruleforge_process(*args: str, hash_seed: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": hash_seed}
    return subprocess.run([sys.executable, "-m", "ruleforge", *args], cwd=ROOT, env=env, text=True,
                          capture_output=True, timeout=120)


def replayed(rules: ruleforge.Rules, record: Playthrough) -> Game:
    """A fresh game given the recorded actions, each checked against what the record says was
    offered (the count of legal actions, the label, the player)."""
    game = rules.new_game(record.players, record.seed)
    for d in record.decisions:
        assert game.current_player == d.player
        legal = game.legal_actions()
        assert len(legal) == d.legal
        assert game.legal_labels()[legal.index(d.action)] == d.label
        game.apply(d.action)
    return game


def log_of(record: Playthrough, viewer: int) -> list[str]:
    """One player's log put back together from the record's lines."""
    lines = [*record.setup, *(line for d in record.decisions for line in d.log)]
    return [next(part.text for part in line if viewer in part.seen_by) for line in lines]


# --- determinism ------------------------------------------------------------------------------------


@pytest.mark.parametrize("path, players, seed", [(HAGAKURE, 4, 7), (NAISHI, 2, 3)])
def test_the_same_game_gives_the_same_record(path: str, players: int, seed: int) -> None:
    rules = RULES[path]
    first = playthrough(rules, players, seed)
    again = playthrough(rules, players, seed)
    assert first.text() == again.text() and first.json_text() == again.json_text()
    assert playthrough(rules, players, seed + 1).text() != first.text()
    assert str(ROOT) not in first.text()  # nothing of this machine in it


def test_the_command_prints_the_same_bytes_under_any_hash_seed() -> None:
    args = ("playthrough", "games/hagakure.rules", "--players", "4", "--seed", "7")
    one = ruleforge_process(*args, hash_seed="1")
    two = ruleforge_process(*args, hash_seed="2")
    assert one.returncode == two.returncode == 0, one.stderr
    assert one.stdout == two.stdout and one.stderr == two.stderr == ""
    assert one.stdout == playthrough(RULES[HAGAKURE], 4, 7).text()
    as_json = ruleforge_process(*args, "--json", hash_seed="3")
    assert as_json.stdout == playthrough(RULES[HAGAKURE], 4, 7).json_text()


def test_agents_are_seeded_as_simulate_seeds_them() -> None:
    # the same game as `simulate` plays with that seed, for random and greedy seats alike
    for agents in ("random", "greedy,random"):
        record = playthrough(RULES[HAGAKURE], 3, 11, agents)
        game = simulate.play_one(RULES[HAGAKURE], 3, 11, {}, agents)
        assert record.game is not None and record.game.digest() == game.digest()
    assert record.text().startswith("Hagakure: 3 players, seed 11, generator xoshiro256**, "
                                    "agents P1 greedy, P2 random, P3 random\n")
    assert playthrough(RULES[HAGAKURE], 3, 11, ["greedy", "random"]).text() == record.text()


# --- what the record says -------------------------------------------------------------------------


@pytest.mark.parametrize("path, players, seed", [(HAGAKURE, 3, 2), (HAGAKURE, 5, 1), (NAISHI, 2, 4)])
def test_the_record_is_the_game(path: str, players: int, seed: int) -> None:
    record = playthrough(RULES[path], players, seed)
    game = record.game
    assert game is not None and game.is_over and record.over and not record.stopped
    # every decision, in the game's own history
    assert [(d.player, d.action[0], d.action[1]) for d in record.decisions] == game.action_history()
    assert [d.number for d in record.decisions] == list(range(1, len(game.action_history()) + 1))
    # a fresh game given the recorded actions was offered the same, and ends the same
    again = replayed(RULES[path], record)
    assert again.digest() == game.digest() and again.scores() == record.scores == game.scores()
    assert record.winners == again.winners()
    # the log, as each player reads it, line for line; what each was shown, reveal by reveal
    for p in range(players):
        assert log_of(record, p) == again.log_lines(viewer=p)
        shown = [s for s in [*record.setup_shown, *(s for d in record.decisions for s in d.shown)] if s.player == p]
        assert [{"zone": s.zone, "contents": list(s.contents)} for s in shown] == again.view(p)["seen"]
    # the text: one line per decision, in order, with who, how many legal actions and which
    text = record.text().splitlines()
    decisions = [DECISION.match(line) for line in text]
    shown = [m.groups() for m in decisions if m]
    assert shown == [(str(d.number), f"P{d.player + 1}", str(d.legal), d.label) for d in record.decisions]
    assert text[text.index(f"game over after {len(record.decisions)} decisions") + 1] == "final position:"
    best = record.scores[record.winners[0]]["total"]
    names = ", ".join(f"P{p + 1}" for p in record.winners)
    assert text[-1] == (f"winner: {names} ({best} points)" if len(record.winners) == 1 else
                        f"winners (shared): {names} ({best} points)")


def test_the_final_scores_are_the_games() -> None:
    record = playthrough(RULES[HAGAKURE], 4, 7)
    text = record.text().splitlines()
    table = text[text.index("final scores:") + 1:-1]
    assert table[0].split() == ["P1", "P2", "P3", "P4"]
    scores = record.game.scores()  # type: ignore[union-attr]
    cells = [re.split(r"\s{2,}", line.strip()) for line in table[1:]]
    rows = {first: [int(x) for x in rest] for first, *rest in cells}
    assert rows["total"] == [row["total"] for row in scores]
    for item in scores[0]["breakdown"]:
        assert rows[item] == [row["breakdown"][item] for row in scores]
    assert len(rows) == len(scores[0]["breakdown"]) + 1  # the items and the total; the ranking is the total


def test_a_secret_action_is_shown_as_each_player_sees_it() -> None:
    # Naishi's Gift is secret: the giver's log names the card, the other's says a gift was chosen.
    # The text gives the decision (what was done) and the other's line; the giver's is the decision.
    record = playthrough(RULES[NAISHI], 2, 4)
    first, second = record.decisions[:2]
    for d in (first, second):
        me, other = d.player, 1 - d.player
        assert d.label.startswith("give ")
        assert [(part.text, part.seen_by) for part in d.log[0]] == sorted(
            [(f"P{me + 1}: {d.label}", (me,)), (f"P{me + 1}: choose a gift", (other,))], key=lambda x: x[1])
    text = record.text().splitlines()
    at = text.index(f"1. P{first.player + 1} (2 legal): {first.label}")
    assert text[at + 1] == f"  P{2 - first.player} sees: P{first.player + 1}: choose a gift"
    assert DECISION.match(text[at + 2])  # and nothing else: the giver's line is the decision's own


def test_what_a_reveal_showed_is_recorded_for_that_player_only() -> None:
    # Hagakure's Nobori 5 lets its player look at a hand or the Yomi: only that player is shown it.
    record = playthrough(RULES[HAGAKURE], 4, 7)
    looks = [d for d in record.decisions if d.label.startswith("look at ")]
    assert len(looks) >= 2
    game = RULES[HAGAKURE].new_game(4, 7)
    for d in record.decisions:
        game.apply(d.action)
        if d in looks:
            m = re.fullmatch(r"look at the hand of P(\d)", d.label)
            zone = ("hand", int(m[1]) - 1) if m else ("yomi", None)
            assert len(d.shown) == 1 and d.shown[0].player == d.player
            assert d.shown[0].zone == (f"hand(P{zone[1] + 1})" if m else "yomi")
            contents = [game.program.comp_label[c] for c in game.state.z[game.zone_index(*zone)]]
            assert list(d.shown[0].contents) == contents
        else:
            assert d.shown == ()
    text = record.text()
    for d in looks:
        assert f"{d.label}\n  P{d.player + 1} is shown {d.shown[0].zone}: {', '.join(d.shown[0].contents)}\n" in text


def test_the_final_position_is_what_a_spectator_sees() -> None:
    record = playthrough(RULES[NAISHI], 2, 4)
    view = record.game.view(None)  # type: ignore[union-attr]
    for p in (1, 2):
        for row in (1, 2):
            for k in range(1, 6):
                key = f"territory(P{p})[{row},{k}]"
                (card,) = view["zones"][key]
                assert re.search(rf"^  {re.escape(key)}: {re.escape(card)}( \(copy \w+\))?$", record.text(), re.M)


# --- --json -----------------------------------------------------------------------------------------


def test_json_is_the_whole_record_and_replays() -> None:
    result = run("playthrough", NAISHI, "--seed", "4", "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    record = playthrough(RULES[NAISHI], 2, 4)
    assert doc == json.loads(json.dumps(record.to_json()))
    assert (doc["format"], doc["game"], doc["players"], doc["seed"], doc["agents"]) == (
        FORMAT, "Naishi", 2, 4, ["random", "random"])
    assert doc["over"] is True and doc["stopped"] is False and doc["error"] is None
    game = RULES[NAISHI].new_game(2, 4)
    for d in doc["decisions"]:
        assert d["player"] == f"P{game.current_player + 1}" and d["legal"] == len(game.legal_actions())
        assert game.legal_labels()[game.legal_actions().index((d["aid"], tuple(d["args"])))] == d["action"]
        game.apply((d["aid"], d["args"]))
    assert game.is_over
    assert doc["scores"] == [{**row, "player": f"P{row['player'] + 1}"} for row in game.scores()]
    assert doc["winners"] == [f"P{p + 1}" for p in game.winners()]
    # the gift's log as each player saw it, the giver's own line included
    gift = doc["decisions"][0]["log"][0]
    assert {tuple(part["seen_by"]) for part in gift} == {("P1",), ("P2",)}
    assert len(result.stdout.splitlines()) < len(doc["decisions"]) + 30  # a decision per line


# --- stopping, failing, bad input --------------------------------------------------------------------


def test_max_decisions_prints_the_record_so_far_and_fails() -> None:
    result = run("playthrough", HAGAKURE, "--players", "4", "--seed", "7", "--max-decisions", "3")
    assert result.exit_code == 1
    assert result.stderr == ("error: the game has not ended after 3 decisions (limit decisions_per_game = 3; "
                             "raise it with RULEFORGE_MAX_DECISIONS_PER_GAME, or --max-decisions)\n")
    full = playthrough(RULES[HAGAKURE], 4, 7).text().splitlines()
    lines = result.stdout.splitlines()
    fourth = next(k for k, line in enumerate(full) if line.startswith("4. "))
    assert lines[:lines.index("stopped after 3 decisions: the game is not over")] == full[:fourth]
    assert lines[-1] == "leading: P1, P2, P3, P4 (0 points)"
    record = playthrough(RULES[HAGAKURE], 4, 7, max_decisions=3)
    assert record.stopped and not record.over and len(record.decisions) == 3
    assert result.stdout == record.text()


def test_a_rule_failing_names_the_decision(tmp_path: Path) -> None:
    path = tmp_path / "c.rules"
    path.write_text(FAILING)
    result = run("playthrough", str(path))
    assert result.exit_code == 1
    message = (f"decision 1 (P1: c): {path}:5:10: a value here is none where the rule needs one (a cell outside "
               "the grid, an empty zone's top, an unset variable?)")
    assert result.stderr.startswith(f"error: {message}") and result.stderr.count("\n") == 1
    assert result.stdout.endswith(f"failed: {message}" + result.stderr[len(f"error: {message}"):])
    with pytest.raises(PlaythroughError) as err:
        playthrough(ruleforge.load(path), 2, 0)
    assert err.value.pos is not None and (err.value.pos.line, err.value.pos.column) == (5, 10)
    assert err.value.playthrough is not None and err.value.playthrough.decisions == []
    assert "Traceback" not in result.output


@pytest.mark.parametrize("args, message", [
    (["no/such.rules"], "cannot read rules file 'no/such.rules'"),
    ([HAGAKURE, "--players", "2"], "error: Hagakure is for 3 to 5 players, not 2"),
    ([HAGAKURE, "--seed", "x"], "Invalid value for '--seed': 'x' is not a valid integer"),
    ([HAGAKURE, "--agents", "random,bogus"], "error: unknown agent 'bogus'"),
    ([HAGAKURE, "--agents", "human,random"], "error: a playthrough plays automatic agents only "
                                             "(random, greedy, mcts:N, module:Class); "
                                             "use `ruleforge play` for a human seat"),
    ([HAGAKURE, "--agents", "random,random,random,random"], "error: 4 agents given for 3 players"),
    ([HAGAKURE, "-o", "speed=2"], "error: unknown option 'speed'"),
    ([HAGAKURE, "--max-decisions", "0"], "Invalid value for '--max-decisions'"),
])
def test_bad_input_is_one_clear_message(args: list[str], message: str) -> None:
    result = run("playthrough", *args)
    assert result.exit_code != 0
    assert isinstance(result.exception, SystemExit)  # no other exception escaped
    assert message in result.stderr and result.stdout == ""
    assert "Traceback" not in result.output


def test_bad_requests_to_the_library_fail_before_playing() -> None:
    with pytest.raises(GameError, match="automatic agents only"):
        playthrough(RULES[HAGAKURE], 3, 0, "human")
    with pytest.raises(GameError, match="for 3 to 5 players, not 6"):
        playthrough(RULES[HAGAKURE], 6, 0)
    with pytest.raises(GameError, match="max_decisions must be at least 1"):
        playthrough(RULES[HAGAKURE], 3, 0, max_decisions=0)
