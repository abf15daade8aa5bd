"""Stopping well: Ctrl-C, kills and failing games in `play` and `simulate`, the limits of a
game on the command line, and bad RULEFORGE_MAX_* variables.

The subprocess tests send real signals to `python -m ruleforge`; they wait for the log to
appear (or a game to be played) instead of sleeping a fixed time, and every wait has a generous
timeout as a hang guard. Each child starts with the default signal dispositions and is killed
with its process group at the end of its test (tests/stopping.py), so the tests pass the same
when the suite runs in the background with SIGINT ignored.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from stopping import ruleforge_child, ruleforge_child_ready_after_a_game, wait_until

from ruleforge import GameError, limits
from ruleforge.agents import RandomAgent
from ruleforge.balance import runner
from ruleforge.cli import main

ROOT = Path(__file__).parents[1]
HAGAKURE = str(ROOT / "games" / "hagakure.rules")
LONG = str(ROOT / "tests" / "synthetic" / "long.rules")  # a million decisions: always stopped half-way
GUARD = 120  # seconds: a hang guard, not a timing


def run(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=input)


def wait_for_steps(log: Path, proc: subprocess.Popen[str], at_least: int = 1) -> int:
    """Wait until the log on disk holds some steps (the process is then well into its game)."""
    deadline = time.monotonic() + GUARD
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        try:
            steps = len(json.loads(log.read_text())["steps"])
        except (OSError, ValueError):
            steps = 0  # not written yet; a half-written log would fail the test below instead
        if steps >= at_least:
            return steps
        time.sleep(0.05)
    raise AssertionError("the log never grew")


def assert_resumable(log: Path) -> int:
    """The log is valid, replays identically, and `--resume` plays on from it."""
    data = json.loads(log.read_text())
    k = len(data["steps"])
    assert data["over"] is False and k > 0
    replay = run("replay", str(log))
    assert replay.exit_code == 0, replay.output
    assert replay.stdout.startswith(f"replayed {k} steps: identical (the log stops before the end")
    resumed = run("play", "--resume", str(log), "--agents", "random", "--quiet", "--max-decisions", str(k + 10))
    assert resumed.exit_code == 1
    assert f"the game has not ended after {k + 10:,} decisions" in resumed.stderr
    assert len(json.loads(log.read_text())["steps"]) == k + 10
    return k


# --- play, stopped by a signal ----------------------------------------------------------------


@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_play_stopped_by_a_signal_saves_and_says_how_to_resume(tmp_path: Path, signum: int, code: int) -> None:
    log = tmp_path / "long.json"
    with ruleforge_child("play", LONG, "--quiet", "--log", str(log)) as proc:
        wait_for_steps(log, proc)
        proc.send_signal(signum)
        _out, err = proc.communicate(timeout=GUARD)
    assert proc.returncode == code, err
    k = len(json.loads(log.read_text())["steps"])
    assert err == (f"\ninterrupted; the game so far ({k} decisions) is saved in {log}\n"
                   f"continue it with: ruleforge play --resume {log}\n")
    assert "Traceback" not in err
    assert_resumable(log)
    assert [p.name for p in tmp_path.iterdir()] == ["long.json"]  # no temporary file left


def test_play_killed_leaves_a_valid_partial_log(tmp_path: Path) -> None:
    log = tmp_path / "long.json"
    with ruleforge_child("play", LONG, "--quiet", "--log", str(log)) as proc:
        wait_for_steps(log, proc)  # saved once with steps: the kill falls after, between or during saves
        proc.kill()
        proc.communicate(timeout=GUARD)
    assert assert_resumable(log) > 0


def test_ctrl_c_at_a_persons_prompt(tmp_path: Path) -> None:
    log = tmp_path / "x.json"
    with ruleforge_child("play", HAGAKURE, "--players", "4", "--agents", "human,random", "--seed", "7",
                         "--log", str(log), stdin=subprocess.PIPE) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        shown: list[str] = []
        reader = threading.Thread(target=lambda: shown.extend(iter(lambda: proc.stdout.read(1), "")), daemon=True)
        reader.start()
        proc.stdin.write("1\n2\n")
        proc.stdin.flush()
        deadline = time.monotonic() + GUARD
        while "".join(shown).count("P1 [1-") < 3:  # P1 answered twice and is asked a third time
            assert time.monotonic() < deadline and proc.poll() is None, "".join(shown)
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=GUARD)
        reader.join(GUARD)
    assert proc.returncode == 130, err
    assert "continue it with: ruleforge play --resume" in err
    steps = json.loads(log.read_text())["steps"]
    assert [s["player"] for s in steps].count("P1") == 2
    assert steps[-1]["player"] != "P1"  # the bots' moves after P1's answer were saved before P1 was asked
    assert_resumable(log)


# --- simulate -------------------------------------------------------------------------------------


def stop_at(monkeypatch: pytest.MonkeyPatch, game: int, error: BaseException) -> None:
    """Make the `game`-th game of a batch (1-based) raise `error` instead of being played."""
    real = runner.play_game
    calls = []

    def play_one(*args: Any) -> Any:
        calls.append(1)
        if len(calls) == game:
            raise error
        return real(*args)

    monkeypatch.setattr(runner, "play_game", play_one)


@pytest.mark.parametrize("finished", [0, 1, 3])
def test_simulate_ctrl_c_summarises_the_games_finished(monkeypatch: pytest.MonkeyPatch, finished: int) -> None:
    stop_at(monkeypatch, finished + 1, KeyboardInterrupt())
    result = run("simulate", HAGAKURE, "-n", "50", "--seed", "4", "--json")
    assert result.exit_code == 130
    doc = json.loads(result.stdout)  # exactly one JSON document
    assert (doc["games"], doc["requested"], doc["interrupted"]) == (finished, 50, True)
    full = json.loads(run("simulate", HAGAKURE, "-n", str(max(finished, 1)), "--seed", "4", "--json").stdout)
    for seat, same in zip(doc["seats"], full["seats"]):
        if finished == 0:
            assert seat["win_rate"] is seat["mean_total"] is seat["sd_total"] is None
        else:
            assert seat["win_rate"] == same["win_rate"] and seat["mean_total"] == same["mean_total"]
            assert (seat["sd_total"] is None) == (finished == 1)
    stop_at(monkeypatch, finished + 1, KeyboardInterrupt())
    table = run("simulate", HAGAKURE, "-n", "50", "--seed", "4")
    assert table.exit_code == 130
    seeds = f", seeds 4..{3 + finished}" if finished else ""
    assert f"Hagakure: {finished} of 50 games (interrupted), 3 players{seeds}\n" in table.stdout


def test_simulate_reports_a_failed_game_and_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    stop_at(monkeypatch, 3, GameError("rules.rules:3:4: runtime error: ZeroDivisionError"))
    result = run("simulate", HAGAKURE, "-n", "5", "--seed", "7", "--json")
    assert result.exit_code == 1
    assert result.stderr == ("error: game 3 (seed 9): rules.rules:3:4: runtime error: ZeroDivisionError\n"
                             "error: 1 of 5 games failed\n")
    doc = json.loads(result.stdout)
    assert doc["games"] == 4 and doc["interrupted"] is False
    assert doc["failed"] == [{"game": 3, "seed": 9, "error": "rules.rules:3:4: runtime error: ZeroDivisionError"}]
    assert sum(s["win_rate"] for s in doc["seats"]) + doc["outcomes"]["ties"] == pytest.approx(1.0)


def test_simulate_where_every_game_fails_still_summarises() -> None:
    result = run("simulate", HAGAKURE, "-n", "3", "--max-decisions", "10")
    assert result.exit_code == 1
    assert result.stderr.count("has not ended after 10 decisions") == 3
    assert "Hagakure: 0 of 3 games, 3 players" in result.stdout
    assert "failed: 3 games (seeds 0, 1, 2)" in result.stdout
    assert "Traceback" not in result.output


def test_simulate_stopped_by_ctrl_c_in_a_real_process(tmp_path: Path) -> None:
    ready = tmp_path / "played"
    with ruleforge_child_ready_after_a_game(ready, "simulate", HAGAKURE, "-n", "1000000", "--json") as proc:
        wait_until(ready.exists, proc, "a game was played")  # a million games: it cannot be over
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=GUARD)
    assert proc.returncode == 130, err
    doc = json.loads(out)
    assert doc["interrupted"] is True and doc["requested"] == 1_000_000 and doc["games"] < 1_000_000
    if doc["games"]:
        assert sum(s["win_rate"] for s in doc["seats"]) + doc["outcomes"]["ties"] == pytest.approx(1.0)
    assert "Traceback" not in err


# --- limits on the command line ----------------------------------------------------------------------


def test_max_decisions_stops_play_and_keeps_the_log(tmp_path: Path) -> None:
    log = tmp_path / "log.json"
    result = run("play", HAGAKURE, "--max-decisions", "5", "--log", str(log))
    assert result.exit_code == 1
    assert result.stderr.startswith("error: the game has not ended after 5 decisions (limit decisions_per_game "
                                    "= 5; raise it with RULEFORGE_MAX_DECISIONS_PER_GAME, or --max-decisions); "
                                    "the game so far (5 decisions) is saved in")
    assert len(json.loads(log.read_text())["steps"]) == 5
    assert run("replay", str(log)).exit_code == 0


def test_max_decisions_without_a_log_says_the_count_once() -> None:
    result = run("play", HAGAKURE, "-q", "--max-decisions", "5")
    assert result.exit_code == 1
    assert result.stderr == ("error: the game has not ended after 5 decisions (limit decisions_per_game = 5; raise "
                             "it with RULEFORGE_MAX_DECISIONS_PER_GAME, or --max-decisions); not saved: give --log "
                             "FILE to keep a game you may want to continue\n")


def test_limit_flags_are_in_force_during_the_game_only(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: set[tuple[int, int]] = set()
    real = RandomAgent.choose

    def choose(self: RandomAgent, game: Any) -> Any:
        seen.add((limits.LIMITS.decisions_per_game, limits.LIMITS.skips_in_a_row))
        return real(self, game)

    monkeypatch.setattr(RandomAgent, "choose", choose)
    defaults = (limits.LIMITS.decisions_per_game, limits.LIMITS.skips_in_a_row)
    for command in (["play", HAGAKURE, "--quiet"], ["simulate", HAGAKURE, "-n", "2"]):
        seen.clear()
        assert run(*command, "--max-decisions", "900", "--max-skips", "7").exit_code == 0
        assert seen == {(900, 7)}
        assert (limits.LIMITS.decisions_per_game, limits.LIMITS.skips_in_a_row) == defaults
    seen.clear()
    assert run("play", HAGAKURE, "--quiet", "--max-skips", "3").exit_code == 0
    assert seen == {(defaults[0], 3)}


@pytest.mark.parametrize("flag", ["--max-decisions", "--max-skips"])
def test_limit_flags_take_a_positive_number(flag: str) -> None:
    result = run("play", HAGAKURE, flag, "0")
    assert result.exit_code == 2 and f"Invalid value for '{flag}'" in result.stderr


def test_bad_environment_variables_stop_every_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "ENVIRONMENT_PROBLEMS", ["RULEFORGE_MAX_ZONES must be a positive whole number"])
    result = run("check", HAGAKURE)
    assert result.exit_code == 2
    assert result.stderr == "error: RULEFORGE_MAX_ZONES must be a positive whole number\n"
    assert result.stdout == ""


def test_bad_environment_variables_in_a_real_process() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RULEFORGE_MAX_DECISIONS_PER_GAME": "lots",
           "RULEFORGE_MAX_BOGUS": "3"}
    proc = subprocess.run([sys.executable, "-m", "ruleforge", "play", HAGAKURE], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=GUARD)
    assert proc.returncode == 2
    lines = proc.stderr.splitlines()
    assert lines[0] == "error: RULEFORGE_MAX_DECISIONS_PER_GAME must be a positive whole number, not 'lots'"
    assert lines[1].startswith("error: RULEFORGE_MAX_BOGUS is no limit of ruleforge; limits: ")
    assert proc.stdout == ""


def test_a_limit_raised_by_the_environment(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RULEFORGE_MAX_DECISIONS_PER_GAME": "4"}
    proc = subprocess.run([sys.executable, "-m", "ruleforge", "play", HAGAKURE], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=GUARD)
    assert proc.returncode == 1
    assert "error: the game has not ended after 4 decisions" in proc.stderr
