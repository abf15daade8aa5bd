"""Move counts (ruleforge/perft.py, `ruleforge perft`, games/*.perft.json): the counts of a game
small enough to count by hand, the edge cases of depth 0 and 1 and of a game over, divide
summing to the total, chance fixed by the seed, the command's output and errors, and a counts
file checked by `ruleforge test` and the pytest plugin: a tampered count fails naming the depth,
expected and actual, and the rules; a malformed file is refused saying what is wrong."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from baselines import load_baseline
from click.testing import CliRunner, Result

import ruleforge
from ruleforge.cli import main
from ruleforge.diagnostics import GameError
from ruleforge.perft import MAX_DEPTH, counts, divide, perft
from ruleforge.testing import PerftError, read_perft, run_tests

ROOT = Path(__file__).resolve().parents[1]
SYNTHETIC = ROOT / "tests" / "synthetic"
NIM = SYNTHETIC / "nim.rules"
# Nim of four tokens, one or two taken a turn, until none is left. Sequences of takes whose
# running sum stays below 4 before the last take and reaches at most 4 with it:
# depth 1: 1, 2; depth 2: all four pairs (sums 2..4); depth 3: 1+1+1, 1+1+2, 1+2+1, 2+1+1
# (2+2 has ended the game); depth 4: 1+1+1+1; depth 5: none (every game is over by then).
NIM_COUNTS = [2, 4, 4, 1, 0]


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def nim() -> ruleforge.Game:
    return ruleforge.load(NIM).new_game(2, 0)


# --- counting ---------------------------------------------------------------------------------


def test_nim_counts_are_the_hand_counts() -> None:
    game = nim()
    assert [perft(game, d) for d in range(1, 6)] == NIM_COUNTS
    assert counts(game, 5) == NIM_COUNTS


def test_depth_0_is_one_and_depth_1_is_the_legal_actions() -> None:
    game = nim()
    assert perft(game, 0) == 1 and counts(game, 0) == []
    assert perft(game, 1) == len(game.legal_actions()) == 2


def test_a_finished_game_counts_1_at_depth_0_and_0_deeper() -> None:
    game = nim()
    for label in ("take 2", "take 2"):
        game.apply(label)
    assert game.is_over
    assert perft(game, 0) == 1 and perft(game, 1) == 0 and perft(game, 3) == 0
    assert counts(game, 2) == [0, 0]


def test_a_bad_depth_is_refused() -> None:
    for bad in (-1, 1.5, True):
        with pytest.raises(GameError, match="depth"):
            perft(nim(), bad)  # type: ignore[arg-type]
    with pytest.raises(GameError, match="at least 1"):
        divide(nim(), 0)


def test_divide_sums_to_the_total_in_the_order_of_the_labels() -> None:
    game = nim()
    assert divide(game, 3) == [("take 1", 3), ("take 2", 1)]
    hagakure = ruleforge.load(ROOT / "games" / "hagakure.rules").new_game(4, 0)
    parts = divide(hagakure, 3)
    assert [label for label, _ in parts] == hagakure.legal_labels()
    assert sum(c for _, c in parts) == perft(hagakure, 3)


def test_counting_changes_nothing_in_the_game() -> None:
    game = ruleforge.load(SYNTHETIC / "chance.rules").new_game(2, 3)
    before = game.digest()
    perft(game, 3)
    divide(game, 2)
    assert game.digest() == before


def test_chance_is_the_seeds_a_fresh_game_playing_the_first_move_counts_the_same() -> None:
    """Each child is a clone with the action applied: its chance is what a fresh game of the
    same seed draws after that action, so divide agrees with games played from the start."""
    rules = ruleforge.load(ROOT / "games" / "love_letter.rules")
    game = rules.new_game(3, 5)
    for label, count in divide(game, 3):
        fresh = rules.new_game(3, 5)
        fresh.apply(label)
        assert counts(fresh, 2)[-1] == count, label
    assert counts(rules.new_game(3, 5), 3) == counts(game, 3)


# --- the command --------------------------------------------------------------------------------


def test_the_command_prints_each_depth_and_divides() -> None:
    result = run("perft", str(NIM), "--depth", "4", "--divide")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "Nim, 2 players, seed 0:", "depth 1: 2", "depth 2: 4", "depth 3: 4", "depth 4: 1",
        "each first move at depth 4:", "  take 1  1", "  take 2  0", "total: 1"]


def test_the_command_writes_big_counts_with_separators() -> None:
    result = run("perft", str(ROOT / "games" / "nakasendo.rules"), "--players", "3", "--depth", "3")
    assert result.exit_code == 0, result.output
    assert "depth 3: 15,529" in result.stdout.splitlines()


@pytest.mark.parametrize(("args", "message"), [
    (["--depth", "-1"], "error: --depth must be at least 1, not -1"),
    (["--depth", "0"], "error: --depth must be at least 1, not 0"),
    (["--depth", str(MAX_DEPTH + 1)], f"error: --depth {MAX_DEPTH + 1} is more than {MAX_DEPTH}, the most"),
    (["--players", "5"], "error: Nim is for 2 players, not 5"),
    (["-o", "nope=1"], "error: unknown option 'nope'"),
])
def test_bad_input_is_one_error_line(args: list[str], message: str) -> None:
    result = run("perft", str(NIM), *args)
    assert result.exit_code == 1
    assert result.stderr.startswith(message), result.stderr
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.output


def test_a_missing_rules_file_is_one_error_line(tmp_path: Path) -> None:
    result = run("perft", str(tmp_path / "none.rules"))
    assert result.exit_code == 1 and "cannot read rules file" in result.stderr
    assert "Traceback" not in result.output


def test_write_keeps_other_entries_and_replaces_its_own(tmp_path: Path) -> None:
    rules = tmp_path / "nim.rules"
    shutil.copy(NIM, rules)
    assert run("perft", str(rules), "--depth", "2", "--write").exit_code == 0
    assert run("perft", str(rules), "--depth", "3", "--seed", "4", "--write").exit_code == 0
    assert run("perft", str(rules), "--depth", "4", "--write").exit_code == 0
    data = json.loads((tmp_path / "nim.perft.json").read_text())
    assert data == {"format": "ruleforge-perft/1", "rules": "nim.rules", "counts": [
        {"players": 2, "seed": 0, "generator": "xoshiro256**", "options": {}, "depth": [2, 4, 4, 1]},
        {"players": 2, "seed": 4, "generator": "xoshiro256**", "options": {}, "depth": [2, 4, 4]}]}
    assert [e.name for e in read_perft(tmp_path / "nim.perft.json")] == ["perft 2p seed 0", "perft 2p seed 4"]


def test_write_leaves_a_broken_file_alone(tmp_path: Path) -> None:
    rules = tmp_path / "nim.rules"
    shutil.copy(NIM, rules)
    (tmp_path / "nim.perft.json").write_text("{not json")
    result = run("perft", str(rules), "--write")
    assert result.exit_code == 1 and "nothing written" in result.stderr and "is not valid JSON" in result.stderr
    assert (tmp_path / "nim.perft.json").read_text() == "{not json"


# --- counts files, checked by `ruleforge test` and the plugin --------------------------------------


def nim_with_counts(folder: Path, depth: list[int], **entry: object) -> Path:
    rules = folder / "nim.rules"
    shutil.copy(NIM, rules)
    data = {"format": "ruleforge-perft/1", "rules": "nim.rules",
            "counts": [{"players": 2, "seed": 0, "options": {}, "depth": depth, **entry}]}
    (folder / "nim.perft.json").write_text(json.dumps(data))
    return rules


def test_ruleforge_test_checks_the_counts(tmp_path: Path) -> None:
    rules = nim_with_counts(tmp_path, NIM_COUNTS[:4])
    result = run("test", str(rules))
    assert result.exit_code == 0, result.output
    assert "PASS  perft 2p seed 0  (depth 4: 1)" in result.stdout and "1 passed" in result.stdout


def test_a_tampered_count_fails_naming_the_depth_the_counts_and_the_rules(tmp_path: Path) -> None:
    rules = nim_with_counts(tmp_path, [2, 5, 4])
    result = run("test", str(rules))
    assert result.exit_code == 1
    assert "FAIL  perft 2p seed 0" in result.stdout
    assert f"move counts of {rules} differ from {tmp_path / 'nim.perft.json'}: entry #1" in result.stdout
    assert "depth 2: expected 5, actual 4" in result.stdout and "depth 3:" not in result.stdout
    assert "--write" in result.stdout and "1 failed" in result.stdout
    outcome = run_tests(ruleforge.load(rules), rules).results[0]
    assert outcome.kind == "perft" and outcome.status == "fail"


def test_a_player_count_the_rules_refuse_is_an_error_not_a_crash(tmp_path: Path) -> None:
    rules = nim_with_counts(tmp_path, [2], players=3)
    result = run("test", str(rules))
    assert result.exit_code == 1 and "ERROR perft 3p seed 0" in result.stdout
    assert "entry #1: Nim is for 2 players, not 3" in result.stdout


@pytest.mark.parametrize(("change", "message"), [
    ({"format": "ruleforge-perft/9"}, "not a ruleforge move counts file"),
    ({"rules": "other.rules"}, "'rules' must name the rules file it belongs to, \"nim.rules\", not 'other.rules'"),
    ({"extra": 1}, "unknown key 'extra'"),
    ({"counts": []}, "'counts' must be a list of entries"),
    ({"counts": [{"players": 2, "seed": 0, "depth": [2, -4]}]}, "entry #1: 'depth' must be a list of counts"),
    ({"counts": [{"players": 2, "seed": 0, "depth": [1] * (MAX_DEPTH + 1)}]},
     f"more than the {MAX_DEPTH} (depth 1 to {MAX_DEPTH})"),
    ({"counts": [{"players": "2", "depth": [2]}]}, "entry #1: 'players' must be a whole number of players, not '2'"),
    ({"counts": [{"players": 2, "seed": 1.5, "depth": [2]}]}, "entry #1: 'seed' must be a whole number"),
    ({"counts": [{"players": 2, "options": [], "depth": [2]}]}, "entry #1: 'options' must be an object"),
    ({"counts": [{"players": 2, "depht": [2]}]}, "unknown key 'depht'; did you mean 'depth'?"),
    ({"counts": [{"players": 2, "depth": [2]}, {"players": 2, "depth": [2, 4]}]},
     "entry #2: the same players, seed and options as entry #1"),
    ({"counts": ["x"]}, "entry #1: an entry is an object"),
])
def test_a_malformed_counts_file_is_refused_clearly(tmp_path: Path, change: dict, message: str) -> None:
    rules = nim_with_counts(tmp_path, [2])
    data = json.loads((tmp_path / "nim.perft.json").read_text())
    (tmp_path / "nim.perft.json").write_text(json.dumps({**data, **change}))
    with pytest.raises(PerftError) as caught:
        read_perft(tmp_path / "nim.perft.json")
    assert message in str(caught.value)
    result = run("test", str(rules))
    assert result.exit_code == 1 and message in result.stderr and "Traceback" not in result.output


def test_the_plugin_collects_each_entry_and_reports_a_mismatch(tmp_path: Path) -> None:
    nim_with_counts(tmp_path, [2, 4, 4])
    data = json.loads((tmp_path / "nim.perft.json").read_text())
    data["counts"].append({"players": 2, "seed": 1, "options": {}, "depth": [2, 4, 3]})
    (tmp_path / "nim.perft.json").write_text(json.dumps(data))
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1", COLUMNS="120")
    for name in ("PYTEST_ADDOPTS", "CI", "BUILD_NUMBER"):
        env.pop(name, None)
    ran = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120)
    assert ran.returncode == 1, ran.stdout
    assert "1 failed, 1 passed" in ran.stdout, ran.stdout
    assert "nim.perft.json::perft 2p seed 1" in ran.stdout
    assert "depth 3: expected 3, actual 4" in ran.stdout


def test_every_game_keeps_its_counts_for_every_player_count() -> None:
    for path in sorted((ROOT / "games").glob("*.rules")):
        entries = read_perft(path.with_name(path.stem + ".perft.json"))
        low, high = ruleforge.load(path).player_range
        seeded = {e.players for e in entries if e.seed == 0 and not e.options}
        assert seeded == set(range(low, high + 1)), path.name
        assert all(len(e.depth) >= 2 for e in entries), path.name


# --- against the hand-written engines (bench/perft_crosscheck.py) ----------------------------------


def test_the_hand_written_engines_count_the_same(capsys: pytest.CaptureFixture[str]) -> None:
    """Tic-Tac-Toe and Connect Four exactly at depth 3 (no chance); Hagakure at depth 2, whose
    first decisions do not depend on the deal (the cross-check says so, or the row is not
    `the same`). The full table: `python bench/perft_crosscheck.py`."""
    crosscheck = load_baseline("perft_crosscheck")
    assert crosscheck.main(["tictactoe", "connect_four", "--depth", "3"]) == 0
    assert crosscheck.main(["hagakure", "--depth", "2"]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if line[:1].isalpha()]
    verdicts = {(row[0], row[1]): " ".join(row[-2:]) for row in rows if row[0] != "game"}
    assert verdicts == {("tictactoe", "2"): "the same", ("connect_four", "2"): "the same",
                        ("hagakure", "3"): "the same", ("hagakure", "4"): "the same", ("hagakure", "5"): "the same"}
