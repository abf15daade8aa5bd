"""Tests of the command line (check, play, simulate, score, replay) and of the agents."""

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
from ruleforge.agents import AgentAbort, GreedyAgent, HumanAgent, RandomAgent, make_agents
from ruleforge.cli import main

ROOT = Path(__file__).parents[1]
HAGAKURE = str(ROOT / "games" / "hagakure.rules")

# Two players take one token each from a pool; scoring happens after the second take, so a
# one-step greedy second player always takes the largest token left.
# tests/synthetic/pick.rules with its components left to each test
PICK = (Path(__file__).parent / "synthetic" / "pick.rules").read_text(encoding="utf-8").replace(
    "Token(value: 1..3) in pool", "TOKENS")


def run(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=input)


def pick_rules(tmp_path: Path, tokens: str = "Token(value: 1..3) in pool") -> str:
    path = tmp_path / "pick.rules"
    path.write_text(PICK.replace("TOKENS", tokens))
    return str(path)


def total_row(output: str) -> list[int]:
    """The numbers of the 'total' row of a rich score table."""
    for line in output.splitlines():
        cells = [c.strip() for c in line.strip().strip("│┃").split("│")]
        if cells and cells[0] == "total":
            return [int(c) for c in cells[1:]]
    raise AssertionError("no total row in:\n" + output)


def header_row(output: str) -> list[str]:
    for line in output.splitlines():
        if line.startswith("┃"):
            return [c.strip() for c in line.strip("┃").split("┃")][1:]
    raise AssertionError("no header row in:\n" + output)


# --- check ---------------------------------------------------------------------------------


def test_check_ok() -> None:
    result = run("check", HAGAKURE)
    assert result.exit_code == 0
    assert result.stdout.strip() == f"{HAGAKURE}: ok (3-5 players, Hagakure)"


def test_check_reports_file_line_column_and_caret(tmp_path: Path) -> None:
    text = Path(HAGAKURE).read_text().replace("action play(c in hand(me))", "action play(c in hnd(me))")
    bad = tmp_path / "bad.rules"
    bad.write_text(text)
    lines = text.splitlines()
    line_no = next(i for i, line in enumerate(lines, 1) if "c in hnd(me)" in line)
    col = lines[line_no - 1].index("hnd(me)") + 1
    result = run("check", HAGAKURE, str(bad))
    assert result.exit_code == 1
    assert f"{HAGAKURE}: ok" in result.stdout  # the good file is still reported
    err = result.stderr.splitlines()
    head = next(i for i, line in enumerate(err) if line.startswith(f"{bad}:{line_no}:{col}: error:"))
    assert "hnd" in err[head]
    assert err[head + 1] == "    " + lines[line_no - 1]
    assert err[head + 2] == "    " + " " * (col - 1) + "^" * len("hnd(me)")
    assert "did you mean 'hand'" in result.stderr
    assert "Traceback" not in result.output


@pytest.mark.parametrize("text", ["", "\n\n  # nothing but a comment\n"])
def test_check_of_an_empty_file_names_the_file(tmp_path: Path, text: str) -> None:
    empty = tmp_path / "empty.rules"
    empty.write_text(text)
    result = run("check", str(empty))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"{empty}:1:1: error: the rules have no 'flow' block")
    assert "<rules>" not in result.output


def test_python_m_ruleforge_check() -> None:
    proc = subprocess.run([sys.executable, "-m", "ruleforge", "check", "games/hagakure.rules"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "games/hagakure.rules: ok (3-5 players, Hagakure)"


# --- play, score, replay -----------------------------------------------------------------


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Result, Path, Path]:
    """One random 3-player game with its replay log and final state saved."""
    d = tmp_path_factory.mktemp("played")
    log, save = d / "log.json", d / "state.json"
    result = run("play", HAGAKURE, "--players", "3", "--seed", "5", "--log", str(log), "--save", str(save))
    assert result.exit_code == 0, result.output
    return result, log, save


def test_play_random_prints_log_table_and_winner(played: tuple[Result, Path, Path]) -> None:
    result, log, save = played
    out = result.stdout
    steps = json.loads(log.read_text())["steps"]
    # Every decision is printed as 'Pn: label', in order, then the table and the winner. The log
    # keeps unique labels ('play Old Fool #3' when two are legal); the printed line does not.
    acted = re.findall(r"^(P\d): (.+)$", out, re.M)
    assert acted == [(s["player"], re.sub(r" #\d+$", "", s["action"])) for s in steps]
    # 3 players: 9 rounds of 3 preparation choices and 5 tricks of 3 plays (+ Nobori 5 choices, ties).
    assert len(steps) >= 9 * (3 + 5 * 3)
    assert f"final scores after {len(steps)} decisions" in out
    totals = total_row(out)
    game = ruleforge.load(HAGAKURE).load_game(json.loads(save.read_text()))
    assert game.is_over
    assert totals == [s["total"] for s in game.scores()]
    best = max(totals)
    marked = [i for i, h in enumerate(header_row(out)) if h.endswith("*")]
    assert marked == [i for i, t in enumerate(totals) if t == best]
    names = ", ".join(f"P{i + 1}" for i in marked)
    assert re.search(rf"^(Winner|Winners \(shared\)): {re.escape(names)} \({best} points\)$", out, re.M)


def test_play_quiet_prints_only_scores() -> None:
    result = run("play", HAGAKURE, "--players", "4", "--seed", "2", "--quiet")
    assert result.exit_code == 0
    assert not re.search(r"^P\d: ", result.stdout, re.M)
    assert "Winner" in result.stdout


def test_play_with_scripted_human_sees_only_own_hand() -> None:
    rules = ruleforge.load(HAGAKURE)
    start = rules.new_game(3, seed=3)
    own = start.view(0)["zones"]["hand(P1)"]
    other = start.view(1)["zones"]["hand(P2)"]
    assert start.view(0)["zones"]["hand(P2)"] == {"hidden": 5}
    result = run("play", HAGAKURE, "--players", "3", "--seed", "3", "--agents", "human,random,random",
                 input="1\n" * 400)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert f"hand(P1): {', '.join(own)}" in out
    assert "hand(P2): hidden (5)" in out
    assert f"hand(P2): {', '.join(other)}" not in out
    assert "--- P2 sees" not in out and "--- P3 sees" not in out
    # The human always answered 1: each of P1's moves is the first label of the menu before it.
    firsts = re.findall(r"^  1\. (.+)$", out, re.M)
    mine = re.findall(r"(?:^|> )P1: (.+)$", out, re.M)
    assert firsts and firsts == mine
    assert "Winner" in out


def test_human_reprompts_and_aborts_on_end_of_input() -> None:
    result = run("play", HAGAKURE, "--players", "3", "--seed", "3", "--agents", "human,random,random",
                 input="x\n0\n99\n1\n")
    assert result.exit_code == 1
    assert result.stdout.count("please enter a number from 1 to 6") == 3
    assert "P1: raise Nobori 1" in result.stdout  # the valid answer '1' was taken
    assert "error: P1 stopped answering: game abandoned after" in result.stderr
    assert "Traceback" not in result.output


def test_score_explain_totals_equal_breakdown_sums(played: tuple[Result, Path, Path]) -> None:
    result, _log, save = played
    data = run("score", HAGAKURE, str(save), "--explain", "--json")
    assert data.exit_code == 0, data.output
    doc = json.loads(data.stdout)
    assert doc["over"] is True
    assert [r["total"] for r in doc["scores"]] == total_row(result.stdout)
    for row in doc["scores"]:
        assert row["total"] == sum(row["breakdown"].values())
        assert list(row["breakdown"]) == ["tricks won", "card #18", "no trick", "Nobori 1", "Nobori 2", "Nobori 3"]
    table = run("score", HAGAKURE, str(save), "--explain")
    assert table.exit_code == 0
    assert total_row(table.stdout) == total_row(result.stdout)
    item_rows = [line for line in table.stdout.splitlines() if line.startswith("│ tricks won")]
    assert len(item_rows) == 1
    plain = run("score", HAGAKURE, str(save))
    assert plain.exit_code == 0
    assert "tricks won" not in plain.stdout
    for r in doc["scores"]:
        assert re.search(rf"│ {r['player']}\s+│\s+{r['total']} │", plain.stdout)


def test_score_rejects_bad_state_files(tmp_path: Path) -> None:
    bad_json = tmp_path / "bad.json"
    bad_json.write_text("{not json")
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"format": "something else"}))
    for path, message in ((bad_json, "is not valid JSON"), (tmp_path / "missing.json", "cannot read state file"),
                          (wrong, "not a saved ruleforge state")):
        result = run("score", HAGAKURE, str(path))
        assert result.exit_code == 1
        assert result.stderr.startswith("error: ") and message in result.stderr
        assert "Traceback" not in result.output


def test_replay_of_played_log_is_identical(played: tuple[Result, Path, Path]) -> None:
    _result, log, _save = played
    n = len(json.loads(log.read_text())["steps"])
    result = run("replay", str(log))
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == f"replayed {n} steps: identical"


def test_replay_reports_an_illegal_step(played: tuple[Result, Path, Path], tmp_path: Path) -> None:
    _result, log, _save = played
    data = json.loads(log.read_text())
    data["steps"][9]["action"] = "play 999"
    player = data["steps"][9]["player"]
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(data))
    result = run("replay", str(tampered))
    assert result.exit_code == 1
    assert f"error: {tampered}: step 10 of {len(data['steps'])}: {player} 'play 999' is not legal; legal: " \
        in result.stderr
    assert "identical" not in result.output and "Traceback" not in result.output


def test_replay_reports_wrong_player_and_digest(played: tuple[Result, Path, Path], tmp_path: Path) -> None:
    _result, log, _save = played
    data = json.loads(log.read_text())
    wrong_player = json.loads(json.dumps(data))
    actual = wrong_player["steps"][4]["player"]
    wrong_player["steps"][4]["player"] = "P1" if actual != "P1" else "P2"
    (tmp_path / "a.json").write_text(json.dumps(wrong_player))
    result = run("replay", str(tmp_path / "a.json"))
    assert result.exit_code == 1
    assert f"step 5 of {len(data['steps'])}: the log has {wrong_player['steps'][4]['player']} act, " \
           f"but {actual} is to act" in result.stderr
    data["steps"][2]["digest"] = "0" * 16
    (tmp_path / "b.json").write_text(json.dumps(data))
    result = run("replay", str(tmp_path / "b.json"))
    assert result.exit_code == 1
    assert "step 3 of" in result.stderr and "state differs" in result.stderr


def test_replay_finds_rules_beside_the_log_and_warns_on_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game_dir = tmp_path / "g"
    game_dir.mkdir()
    (game_dir / "h.rules").write_text(Path(HAGAKURE).read_text())
    monkeypatch.chdir(game_dir)
    assert run("play", "h.rules", "--seed", "1", "--quiet", "--log", "log.json").exit_code == 0
    assert json.loads((game_dir / "log.json").read_text())["rules"] == "h.rules"
    monkeypatch.chdir(tmp_path)  # 'h.rules' is not in the working directory any more
    result = run("replay", "g/log.json")
    assert result.exit_code == 0, result.output
    assert "identical" in result.stdout and "warning" not in result.stderr
    with open(game_dir / "h.rules", "a") as f:
        f.write("\n# an edit that changes the file but not the game\n")
    result = run("replay", "g/log.json")
    assert result.exit_code == 0
    assert "warning: 'g/h.rules' has changed since the log was written" in result.stderr
    assert "identical" in result.stdout


# --- simulate ------------------------------------------------------------------------------


def test_simulate_json_summary() -> None:
    args = ("simulate", HAGAKURE, "-n", "20", "--players", "4", "--seed", "7", "--json")
    result = run(*args)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["games"] == 20 and doc["players"] == 4
    seats = doc["seats"]
    assert [s["seat"] for s in seats] == ["P1", "P2", "P3", "P4"]
    assert all(s["agent"] == "random" for s in seats)
    assert sum(s["win_rate"] for s in seats) + doc["outcomes"]["ties"] == pytest.approx(1.0)
    assert all(0 <= s["win_rate"] <= 1 and s["sd_total"] >= 0 for s in seats)
    # 4 players: 8 rounds of 4 preparation choices and 4 tricks of 4 plays at least.
    length = doc["length"]
    assert 8 * (4 + 4 * 4) <= length["min"] <= length["mean"] <= length["max"]
    assert doc["games_per_second"] > 0
    again = json.loads(run(*args).stdout)  # same seed, same games
    assert again["seats"] == seats and again["length"] == length


def test_simulate_greedy_takes_the_best_token(tmp_path: Path) -> None:
    # P2 (greedy) takes the larger of the two tokens P1 left: 3 unless P1 took it, then 2.
    result = run("simulate", pick_rules(tmp_path), "-n", "60", "--agents", "random,greedy", "--json")
    assert result.exit_code == 0, result.output
    p1, p2 = json.loads(result.stdout)["seats"]
    # P1 wins exactly when it took the 3; then P2 has 2, else P2 has 3.
    p1_took_3 = round(p1["win_rate"] * 60)
    assert p2["mean_total"] * 60 == pytest.approx(2 * p1_took_3 + 3 * (60 - p1_took_3))
    assert 10 < p1_took_3 < 35  # about a third of 60
    table = run("simulate", pick_rules(tmp_path), "-n", "60", "--agents", "random,greedy")
    assert "games: 60   decisions per game: mean 2.0, min 2, max 2" in table.stdout


def test_simulate_counts_a_tie_as_a_tie(tmp_path: Path) -> None:
    # every game is a tie: nobody wins outright, both seats share first place every time
    result = run("simulate", pick_rules(tmp_path, "3 of Token(value: 1) in pool"), "-n", "10", "--json")
    doc = json.loads(result.stdout)
    seats = doc["seats"]
    assert [(s["wins"], s["shared"], s["win_rate"], s["tie_rate"]) for s in seats] == [(0, 10, 0.0, 1.0)] * 2
    assert doc["outcomes"] == {"decisive": 0.0, "ties": 1.0}
    assert [s["mean_total"] for s in seats] == [1, 1]


# --- agents --------------------------------------------------------------------------------


def test_greedy_agent_picks_the_largest_gain(tmp_path: Path) -> None:
    rules = ruleforge.load(pick_rules(tmp_path))
    for seed in range(5):
        game = rules.new_game(2, seed)
        game.apply(RandomAgent(seed).choose(game))
        left = [int(label.split()[1]) for label in game.legal_labels()]
        action = GreedyAgent(seed).choose(game)
        assert game.label(action) == f"take {max(left)}"


def test_random_agent_is_seeded_and_uniform() -> None:
    rules = ruleforge.load(HAGAKURE)
    game = rules.new_game(3, seed=0)
    picks = [RandomAgent(s).choose(game) for s in range(600)]
    assert [RandomAgent(4).choose(game) for _ in range(3)] == [RandomAgent(4).choose(game)] * 3
    counts = {a: picks.count(a) for a in game.legal_actions()}
    assert len(counts) == 6 and min(counts.values()) > 60  # 6 choices, about 100 each


def test_human_agent_end_of_input_aborts() -> None:
    game = ruleforge.load(HAGAKURE).new_game(3, seed=0)

    def no_input(prompt: str) -> str:
        raise EOFError

    shown: list[str] = []
    with pytest.raises(AgentAbort):
        HumanAgent(no_input, shown.append).choose(game)
    assert any(line.startswith("  1. ") for line in shown)


def test_make_agents_errors() -> None:
    assert len(make_agents("random", 4, 0)) == 4
    assert [type(a).__name__ for a in make_agents("random, GREEDY ,human", 3, 0)] == \
        ["RandomAgent", "GreedyAgent", "HumanAgent"]
    with pytest.raises(ruleforge.GameError, match="unknown agent 'smart'"):
        make_agents("random,smart", 2, 0)
    assert [type(a).__name__ for a in make_agents("human,greedy", 4, 0)] == \
        ["HumanAgent", "GreedyAgent", "GreedyAgent", "GreedyAgent"]
    with pytest.raises(ruleforge.GameError, match="4 agents given for 3 players: give at most one name per seat"):
        make_agents("random,greedy,human,random", 3, 0)


# --- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize("args, message", [
    (["play", HAGAKURE, "--players", "9"], "error: Hagakure is for 3 to 5 players, not 9"),
    (["play", HAGAKURE, "--agents", "random,bogus,random"], "error: unknown agent 'bogus'"),
    (["play", HAGAKURE, "--agents", "random,random,random,random"], "error: 4 agents given for 3 players"),
    (["play", HAGAKURE, "--players", "abc"], "'abc' is not a valid integer"),
    (["play", HAGAKURE, "-o", "speed=2"], "error: unknown option 'speed'"),
    (["play", "no/such.rules"], "cannot read rules file 'no/such.rules'"),
    (["simulate", HAGAKURE, "-n", "0"], "Invalid value for '-n'"),
    (["simulate", HAGAKURE, "--agents", "human"], "error: simulate plays automatic agents only"),
    (["simulate", HAGAKURE, "--players", "2"], "error: Hagakure is for 3 to 5 players, not 2"),
    (["replay", HAGAKURE], "error: replay log"),
    (["replay", "no/such.json"], "error: cannot read replay log"),
    (["check", "no/such.rules"], "cannot read rules file"),
])
def test_bad_input_is_one_clear_message(args: list[str], message: str) -> None:
    result = run(*args)
    assert result.exit_code != 0
    assert isinstance(result.exception, SystemExit)  # no other exception escaped
    assert message in result.stderr
    assert "Traceback" not in result.output


def test_replay_rejects_malformed_logs(tmp_path: Path) -> None:
    cases = {
        "a.json": {"format": "ruleforge-log/1", "rules": HAGAKURE, "players": "three", "seed": 0, "steps": []},
        "b.json": {"format": "ruleforge-log/1", "rules": HAGAKURE, "players": 3, "seed": 0, "steps": [{"x": 1}]},
        "c.json": [1, 2],
    }
    for name, data in cases.items():
        (tmp_path / name).write_text(json.dumps(data))
        result = run("replay", str(tmp_path / name))
        assert result.exit_code == 1
        assert result.stderr.startswith("error: ")
        assert "Traceback" not in result.output


def test_json_inputs_that_are_no_document_get_one_line(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)  # reading it would wait for ever
    long = tmp_path / "long.json"  # a number longer than Python converts to an int
    long.write_text('{"format": "ruleforge-state/1", "players": ' + "9" * 5000 + "}")
    for args, message in [
        (("score", "games/hagakure.rules", str(deep)), "nests lists or objects too deep to be read"),
        (("replay", str(pipe)), f"cannot read replay log '{pipe}': it is not a file"),
        (("replay", str(tmp_path)), "it is not a file"),
        (("score", "games/hagakure.rules", str(long)), f"state file '{long}' has a number of more than "),
        (("replay", str(long)), f"replay log '{long}' has a number of more than "),
        (("test", "games/hagakure.rules", "--examples", str(long)), f"examples file '{long}' has a number of more "),
        (("test", "games/hagakure.rules", "--examples", str(tmp_path)),
         f"cannot read examples file '{tmp_path}': it is not a file"),
        (("test", "games/hagakure.rules", "--examples", str(tmp_path / "none.json")),
         f"cannot read examples file '{tmp_path / 'none.json'}': no such file"),
    ]:
        result = run(*args)
        assert result.exit_code == 1, args
        assert message in result.stderr and "Traceback" not in result.output


def test_a_path_too_long_for_the_system_is_one_clear_line(tmp_path: Path) -> None:
    long = str(tmp_path / ("x" * 5000))  # longer than any file name the system allows
    for args in [("score", HAGAKURE, long), ("replay", long), ("play", "--resume", long),
                 ("play", HAGAKURE, "-q", "--log", long), ("play", HAGAKURE, "-q", "--save", long),
                 ("simulate", HAGAKURE, "-n", "1", "--records", long), ("test", HAGAKURE, "--examples", long),
                 ("mutate", long)]:
        result = run(*args)
        assert result.exit_code == 1, args
        (line,) = result.stderr.splitlines()
        assert line.startswith("error: ") and "File name too long" in line, (args, line)
        assert "internal error" not in line, (args, line)


def test_check_plays_trial_games_unless_told_not_to() -> None:
    endless = "tests/synthetic/endless.rules"
    found = run("check", endless)
    assert found.exit_code == 1
    assert found.stderr.startswith(f"{endless}:8:3: error: in a trial game with 1 player (seed 0")
    assert "repeat {" in found.stderr
    unplayed = run("check", "--trials", "0", endless)  # setup alone is fine: the loop is only met in play
    assert unplayed.exit_code == 0 and unplayed.stdout.startswith(f"{endless}: ok")
