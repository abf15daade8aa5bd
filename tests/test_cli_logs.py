"""The command line keeps a game's log safe: paths checked before the game, the log written
as the game goes (atomically), `play --resume`, and `replay` finding the rules from anywhere."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import ruleforge
from ruleforge.agents import RandomAgent
from ruleforge.cli import main, play
from ruleforge.cli.common import CommandFailed, write_atomic

ROOT = Path(__file__).parents[1]
HAGAKURE = str(ROOT / "games" / "hagakure.rules")
NAISHI = str(ROOT / "games" / "naishi.rules")


def run(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=input)


def log_of(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def human_game(log: Path, answers: int, *more: str) -> Result:
    """P1 a person who answers '1' `answers` times then stops (end of input); P2, P3 random."""
    return run("play", HAGAKURE, "--players", "3", "--seed", "3", "--agents", "human,random",
               "--log", str(log), *more, input="1\n" * answers)


# --- agents ----------------------------------------------------------------------------------


def test_readme_command_fills_the_other_seats_with_the_last_agent() -> None:
    # the README's own example: P1 is a person, P2 to P4 random
    result = run("play", HAGAKURE, "--players", "4", "--agents", "human,random", "--seed", "7", input="1\n" * 400)
    assert result.exit_code == 0, result.output
    assert "--- P1 sees" in result.stdout and "P1 [1-" in result.stdout
    assert not re.search(r"--- P[234] sees|P[234] \[1-", result.stdout)
    assert "Winner" in result.stdout


def test_more_agents_than_seats_is_an_error(tmp_path: Path) -> None:
    result = run("play", HAGAKURE, "--players", "3", "--agents", "human,random,random,greedy",
                 "--log", str(tmp_path / "log.json"))
    assert result.exit_code == 1
    assert result.stderr == "error: 4 agents given for 3 players: give at most one name per seat\n"
    assert list(tmp_path.iterdir()) == []


# --- output paths are checked before the game ------------------------------------------------


def refuses_files(folder: str) -> bool:
    try:
        handle, probe = tempfile.mkstemp(dir=folder)
    except PermissionError:
        return True
    os.close(handle)
    os.unlink(probe)
    return False


def unwritable_paths(tmp_path: Path) -> list[tuple[str, str]]:
    (tmp_path / "folder").mkdir()
    cases = [(str(tmp_path / "missing" / "x.json"), f"there is no folder '{tmp_path / 'missing'}'"),
             (str(tmp_path / "folder"), "it is a folder")]
    if Path("/sys").is_dir() and refuses_files("/sys"):  # refused even to root
        cases.append(("/sys/ruleforge-x.json", "Permission denied"))
    if os.geteuid() != 0:
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        cases.append((str(locked / "x.json"), "Permission denied"))
    return cases


@pytest.mark.parametrize("flag, what", [("--log", "log"), ("--save", "state")])
def test_unwritable_log_or_save_fails_before_the_game(tmp_path: Path, flag: str, what: str) -> None:
    for path, reason in unwritable_paths(tmp_path):
        result = run("play", HAGAKURE, "--players", "3", flag, path)
        assert result.exit_code == 1, path
        assert result.stderr == f"error: cannot write {what} '{path}': {reason}\n"
        assert not re.search(r"^P\d: ", result.stdout, re.M)  # not one move was played
    leftovers = sorted(p.name for p in tmp_path.rglob("*"))
    assert leftovers == [p for p in ("folder", "locked") if (tmp_path / p).exists()]


def test_log_and_save_must_differ_and_spare_the_rules(tmp_path: Path) -> None:
    rules = tmp_path / "h.rules"
    shutil.copy(HAGAKURE, rules)
    same = str(tmp_path / "same.json")
    result = run("play", str(rules), "--log", same, "--save", same)
    assert result.exit_code == 1 and f"--log and --save name the same file '{same}'" in result.stderr
    result = run("play", str(rules), "--log", str(rules))
    assert result.exit_code == 1 and "would overwrite the rules file" in result.stderr
    assert rules.read_text() == Path(HAGAKURE).read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.rules"]


def test_play_leaves_a_users_file_and_the_files_it_reads_alone(tmp_path: Path) -> None:
    base, variant = tmp_path / "base.rules", tmp_path / "variant.rules"
    shutil.copy(HAGAKURE, base)
    variant.write_text('extends "base.rules"\ngame "Hagakure, again"\n', encoding="utf-8")
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    for flag in ("--log", "--save"):
        result = run("play", str(variant), "-q", flag, str(notes))
        assert result.exit_code == 1 and "Traceback" not in result.output
        what = "log" if flag == "--log" else "state"
        assert result.stderr == (f"error: {flag} '{notes}': the file exists and is not a {what} written by "
                                 "ruleforge; it is left as it is (remove it, or choose another name)\n")
        result = run("play", str(variant), "-q", flag, str(base))  # the file the variant extends
        assert result.exit_code == 1 and f"would overwrite the rules file '{base}'" in result.stderr
    assert notes.read_text() == "my notes\n" and base.read_text() == Path(HAGAKURE).read_text()
    log, save = tmp_path / "log.json", tmp_path / "state.json"
    for _ in range(2):  # a log and a state written by ruleforge, or empty files, are replaced
        result = run("play", str(variant), "-q", "--log", str(log), "--save", str(save))
        assert result.exit_code == 0, result.output
        assert log_of(log)["format"] == "ruleforge-log/3" and log_of(save)["format"] == "ruleforge-state/2"
        log.write_text("")
    log.write_text(json.dumps({"steps": [], "note": "x" * 5000, "format": "ruleforge-log/2"}))  # keys reordered
    assert run("play", str(variant), "-q", "--log", str(log)).exit_code == 0


def test_resume_into_another_log_cannot_save_over_the_first(tmp_path: Path) -> None:
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    assert human_game(first, 2).exit_code != 0
    kept = first.read_text()
    result = run("play", "--resume", str(first), "--log", str(second), "--save", str(first), "--agents", "random")
    assert result.exit_code == 1
    assert f"the state '{first}' would overwrite the log resumed from '{first}'" in result.stderr
    assert first.read_text() == kept and not second.exists()


# --- the log is written as the game goes ---------------------------------------------------------


def test_a_persons_decisions_are_on_disk_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whenever P1 (a person) is asked, and whenever a bot moves right after P1, the log on
    disk holds every decision taken so far: none waits for the 0.5 s of the bots' saves."""
    log = tmp_path / "log.json"
    played: list[str] = []  # the players of the decisions taken, in order
    checks: list[tuple[str, int, int]] = []  # (who is asked, steps on disk, decisions taken)

    def on_disk() -> int:
        return len(log_of(log)["steps"])

    def prompt(text: str) -> str:
        checks.append(("P1", on_disk(), len(played)))
        return "1"

    real_choose = RandomAgent.choose

    def choose(self: RandomAgent, game: ruleforge.Game) -> Any:
        if played and played[-1] == "P1":
            checks.append(("bot after P1", on_disk(), len(played)))
        return real_choose(self, game)

    real_add = play.LogWriter.add

    def add(self: play.LogWriter, player: int, label: str, game: ruleforge.Game, human: bool = False) -> None:
        played.append(f"P{player + 1}")
        real_add(self, player, label, game, human)

    monkeypatch.setattr(play, "_prompt", prompt)
    monkeypatch.setattr(RandomAgent, "choose", choose)
    monkeypatch.setattr(play.LogWriter, "add", add)
    result = run("play", HAGAKURE, "--players", "3", "--seed", "4", "--agents", "human,random", "--log", str(log))
    assert result.exit_code == 0, result.output
    assert {who for who, _, _ in checks} == {"P1", "bot after P1"} and len(checks) > 40
    assert [(who, disk) for who, disk, _ in checks] == [(who, taken) for who, _, taken in checks]
    data = log_of(log)
    assert data["over"] is True and [s["player"] for s in data["steps"]] == played


def test_log_format_3_names_its_rules_every_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    log = tmp_path / "log.json"
    result = run("play", "games/hagakure.rules", "--players", "3", "--seed", "2", "--quiet", "--log", str(log))
    assert result.exit_code == 0
    data = log_of(log)
    rules = ruleforge.load(HAGAKURE)
    assert data["format"] == "ruleforge-log/3" and data["generator"] == "xoshiro256**"
    assert data["rules"] == "games/hagakure.rules"
    assert data["rules_absolute"] == HAGAKURE
    assert (log.parent / data["rules_from_log"]).resolve() == Path(HAGAKURE).resolve()
    assert (data["game"], data["rules_digest"]) == ("Hagakure", rules.digest)
    assert data["agents"] == ["random"] * 3 and data["over"] is True
    game = rules.new_game(3, 2)
    for step in data["steps"]:
        game.apply(step["action"])
        assert step["digest"] == game.digest()
    assert data["final_digest"] == game.digest() and game.is_over
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(log.stat().st_mode) == 0o666 & ~umask  # not the temporary file's 0o600


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "log.json"
    write_atomic(str(target), "old\n", "log")

    def broken_fsync(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(CommandFailed, match=f"cannot write log '{re.escape(str(target))}': Input/output error"):
        write_atomic(str(target), "new\n", "log")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["log.json"]


# --- resume ----------------------------------------------------------------------------------------


def test_resume_an_abandoned_game_and_play_it_out(tmp_path: Path) -> None:
    log = tmp_path / "log.json"
    first = human_game(log, 5)
    assert first.exit_code == 1
    assert "error: P1 stopped answering: game abandoned; the game so far (" in first.stderr
    assert f"continue it with: ruleforge play --resume {log}" in first.stderr
    partial = log_of(log)
    assert partial["over"] is False and partial["agents"] == ["human", "random", "random"]
    k = len(partial["steps"])
    assert k >= 5
    assert run("replay", str(log)).stdout.startswith(f"replayed {k} steps: identical (the log stops before the end")

    result = run("play", "--resume", str(log), "--agents", "random")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"resuming {log}: {k} decisions replayed\n")
    done = log_of(log)
    assert done["steps"][:k] == partial["steps"] and len(done["steps"]) > k
    assert done["over"] is True and done["agents"] == ["random"] * 3
    assert f"final scores after {len(done['steps'])} decisions" in result.stdout
    assert run("replay", str(log)).stdout == f"replayed {len(done['steps'])} steps: identical\n"

    again = run("play", "--resume", str(log))
    assert again.exit_code == 0
    assert again.stdout.startswith(f"the game in {log} is over: Hagakure, final scores after {len(done['steps'])}")
    assert "\nfinal position:\n--- spectator sees (Hagakure) ---\n" in again.stdout  # no person at the table
    assert again.stdout.index("final position:") < again.stdout.index("total")


def test_resume_plays_on_with_the_agents_the_log_records(tmp_path: Path) -> None:
    log = tmp_path / "log.json"
    human_game(log, 3)
    k = len(log_of(log)["steps"])
    result = run("play", "--resume", str(log), input="1\n" * 2)  # P1 is still a person
    assert result.exit_code == 1
    assert result.stdout.count("P1 [1-") == 3  # two answers, then a prompt nobody answers
    assert len(log_of(log)["steps"]) > k


def test_resume_to_another_log_keeps_the_first(tmp_path: Path) -> None:
    log, other = tmp_path / "log.json", tmp_path / "other.json"
    human_game(log, 3)
    before = log.read_text()
    result = run("play", HAGAKURE, "--resume", str(log), "--agents", "random", "--log", str(other), "--quiet")
    assert result.exit_code == 0, result.output
    assert log.read_text() == before
    assert log_of(other)["over"] is True


@pytest.mark.parametrize("extra, message", [
    (["--players", "3"], "--players, --seed and --option come from the log: leave them out with --resume"),
    (["--seed", "1"], "--players, --seed and --option come from the log: leave them out with --resume"),
    ([NAISHI], "this log is a game of Hagakure, but " + NAISHI + " holds the rules of Naishi"),
])
def test_resume_refusals(tmp_path: Path, extra: list[str], message: str) -> None:
    log = tmp_path / "log.json"
    human_game(log, 2)
    before = log.read_text()
    result = run("play", "--resume", str(log), *extra)
    assert result.exit_code == 1
    assert result.stderr == f"error: {message}\n"
    assert log.read_text() == before


def test_resume_checks_every_step(tmp_path: Path) -> None:
    log = tmp_path / "log.json"
    human_game(log, 6)
    data = log_of(log)
    data["steps"][3]["action"] = "play 99"
    log.write_text(json.dumps(data))
    result = run("play", "--resume", str(log), "--agents", "random")
    assert result.exit_code == 1
    who = data["steps"][3]["player"]
    assert f"error: {log}: step 4 of {len(data['steps'])}: {who} 'play 99' is not legal" in result.stderr


def test_play_needs_rules_or_resume() -> None:
    result = run("play")
    assert result.exit_code == 2
    assert "give the rules FILE, or --resume LOG to continue a game" in result.stderr


def test_format_1_logs_are_still_read_and_resumed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A log of format 1 (made before the generator was named: the legacy one) replays, and
    resumed it goes on as format 3 naming that generator."""
    log = tmp_path / "log.json"
    made = json.loads((ROOT / "tests" / "legacy" / "hagakure-3p-seed11.log.json").read_text())
    steps = made["steps"][:15]  # stopped mid-round
    old = {"format": "ruleforge-log/1", "rules": HAGAKURE, "rules_digest": made["rules_digest"], "players": 3,
           "seed": 11, "options": {}, "steps": steps, "final_digest": steps[-1]["digest"]}
    log.write_text(json.dumps(old))
    assert run("replay", str(log)).exit_code == 0
    result = run("play", "--resume", str(log), "--quiet")  # no agents recorded: random
    assert result.exit_code == 0, result.output
    data = log_of(log)
    assert data["format"] == "ruleforge-log/3" and data["generator"] == "splitmix64-mt"
    assert data["steps"][:15] == steps and data["over"] is True
    assert run("replay", str(log)).exit_code == 0


# --- replay finds the rules ------------------------------------------------------------------------


def played_elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A game played in folder 'g' with rules 'h.rules' and its log in 'g/logs'; then cwd is 'x'."""
    game_dir = tmp_path / "g"
    (game_dir / "logs").mkdir(parents=True)
    shutil.copy(HAGAKURE, game_dir / "h.rules")
    monkeypatch.chdir(game_dir)
    assert run("play", "h.rules", "--quiet", "--log", "logs/game.json").exit_code == 0
    (tmp_path / "x").mkdir()
    monkeypatch.chdir(tmp_path / "x")
    return game_dir, game_dir / "logs" / "game.json"


def test_replay_from_another_folder_and_after_moving_both(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game_dir, log = played_elsewhere(tmp_path, monkeypatch)
    result = run("replay", str(log))
    assert result.exit_code == 0 and "identical" in result.stdout and result.stderr == ""
    moved = tmp_path / "moved"
    shutil.move(game_dir, moved)  # the absolute path is gone; the path from the log still holds
    result = run("replay", str(moved / "logs" / "game.json"))
    assert result.exit_code == 0, result.output
    assert "identical" in result.stdout


def test_replay_says_where_it_looked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game_dir, log = played_elsewhere(tmp_path, monkeypatch)
    (game_dir / "h.rules").unlink()
    result = run("replay", str(log))
    assert result.exit_code == 1
    assert result.stderr.startswith("error: cannot find the rules of Hagakure: looked for ")
    assert f"'{game_dir / 'h.rules'}'" in result.stderr and "'h.rules'" in result.stderr
    assert result.stderr.endswith("; give the rules file with --rules FILE\n")
    result = run("replay", str(log), "--rules", HAGAKURE)
    assert result.exit_code == 0 and "identical" in result.stdout


def test_replay_against_another_game_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    game_dir, log = played_elsewhere(tmp_path, monkeypatch)
    shutil.copy(NAISHI, game_dir / "h.rules")
    result = run("replay", str(log))
    assert result.exit_code == 1
    assert result.stderr == (f"error: this log is a game of Hagakure, but {game_dir / 'h.rules'} holds the rules "
                             f"of Naishi; give the rules file with --rules FILE\n")
    result = run("replay", str(log), "--rules", NAISHI)
    assert result.stderr == f"error: this log is a game of Hagakure, but {NAISHI} holds the rules of Naishi\n"


def test_replay_prefers_the_unchanged_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the copy beside the log was edited; the original at its absolute path is found instead
    game_dir, log = played_elsewhere(tmp_path, monkeypatch)
    data = log_of(log)
    data["rules_absolute"] = HAGAKURE
    log.write_text(json.dumps(data))
    with open(game_dir / "h.rules", "a") as f:
        f.write("\n# edited\n")
    result = run("replay", str(log))
    assert result.exit_code == 0 and result.stderr == ""
    Path(game_dir / "h.rules").write_text(Path(HAGAKURE).read_text() + "\n# edited\n")
    data["rules_absolute"] = str(game_dir / "h.rules")
    log.write_text(json.dumps(data))
    result = run("replay", str(log))
    assert result.exit_code == 0
    assert f"warning: '{game_dir / 'h.rules'}' has changed since the log was written" in result.stderr


# --- logs are checked field by field ---------------------------------------------------------------


GOOD = {"format": "ruleforge-log/2", "rules": HAGAKURE, "game": "Hagakure", "players": 3, "seed": 0,
        "options": {}, "agents": ["random"] * 3, "over": False,
        "steps": [{"player": "P1", "action": "pass"}] * 3}


@pytest.mark.parametrize("change, message", [
    ({"format": "ruleforge-log/9"}, "is not a ruleforge replay log (expected \"format\": \"ruleforge-log/3\")"),
    ({"players": "three"}, "replay log: 'players' must be a whole number, not 'three'"),
    ({"players": True}, "replay log: 'players' must be a whole number, not True"),
    ({"players": 0}, "replay log: 'players' must be at least 1, not 0"),
    ({"seed": None}, "replay log: 'seed' is missing"),
    ({"rules": 7}, "replay log: 'rules' must be text, not 7"),
    ({"game": ["Hagakure"]}, "replay log: 'game' must be text, not list"),
    ({"options": []}, "replay log: 'options' must be an object, not list"),
    ({"options": {"speed": [1]}}, "replay log: option 'speed' must be a number, true or false, or text, not list"),
    ({"agents": ["random", "robot", "random"]}, "replay log: 'agents' must be a list of 3 agent names"),
    ({"agents": ["random"]}, "replay log: 'agents' must be a list of 3 agent names"),
    ({"over": "no"}, "replay log: 'over' must be true or false, not 'no'"),
    ({"final_digest": 12}, "replay log: 'final_digest' must be text, not 12"),
    ({"steps": {}}, "replay log: 'steps' must be a list, not dict"),
    ({"steps": [{"player": "P1", "action": "pass"}, "pass"]},
     "replay log: step 2 must be an object with 'player' and 'action', not 'pass'"),
    ({"steps": [{"player": "P1", "action": "pass"}] * 2 + [{"player": "P1", "action": 5}]},
     "replay log: step 3: 'action' must be text, not 5"),
    ({"steps": [{"player": "P1"}]}, "replay log: step 1: 'action' is missing"),
    ({"steps": [{"player": "P4", "action": "pass"}]}, "replay log: step 1: 'player' must be a seat from P1 to P3"),
    ({"steps": [{"player": "P1", "action": "pass", "digest": 0}]}, "replay log: step 1: 'digest' must be text"),
])
def test_malformed_logs_name_the_field(tmp_path: Path, change: dict[str, Any], message: str) -> None:
    log = tmp_path / "log.json"
    log.write_text(json.dumps({**GOOD, **change}))
    for args in (("replay", str(log)), ("play", "--resume", str(log))):
        result = run(*args)
        assert result.exit_code == 1
        assert result.stderr.startswith("error: ")
        assert message.replace("replay log: ", f"replay log '{log}': ") in result.stderr  # which file, and where
        assert "Traceback" not in result.output


def test_a_game_stopped_at_a_decision_keeps_every_digest(tmp_path: Path) -> None:
    log = tmp_path / "long.json"
    long_rules = str(ROOT / "tests" / "synthetic" / "long.rules")
    result = run("play", long_rules, "--quiet", "--agents", "human,random", "--log", str(log), input="1\n" * 20)
    assert result.exit_code == 1 and "P1 stopped answering" in result.stderr
    data = log_of(log)
    steps = data["steps"]
    assert len(steps) == 40 and steps[-1]["player"] == "P2"
    game = ruleforge.load(long_rules).new_game(2, 0)
    for step in steps:  # every step, saved at once or not, records the state after it
        game.apply(step["action"])
        assert step["digest"] == game.digest()
    assert steps[-1]["digest"] == data["final_digest"] == game.digest()
