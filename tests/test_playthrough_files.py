"""Recorded playthroughs beside a rules file (`foo.playthroughs/NAME.txt`): recorded by
`ruleforge playthrough --record`, replayed by `ruleforge test`, `ruleforge.testing.run_tests`
and the pytest plugin. Each test copies the games it needs into a temporary folder, records or
copies records there, and changes the rules the way a mutant would."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import ruleforge
from ruleforge.cli import main
from ruleforge.testing import record_name, run_tests
from ruleforge.testing.playthroughs import PlaythroughFileError, compare, decision_limit, parse_header

ROOT = Path(__file__).parents[1]
GAMES = ROOT / "games"
# The mutant of issue 11 no test caught: after every Develop from the River the Travellers'
# choice is opened even with no effect waiting, so the player is "skipped" there.
LEGENDS_CHOICE = "    if count(waiting(me)) > 0 {\n      choose: guest_swap"
LEGENDS_MUTANT = "    if count(waiting(me)) >= 0 {\n      choose: guest_swap"


def run(*args: str, cwd: Path) -> Any:
    """`ruleforge ARGS` from the folder `cwd` (paths in messages as a user there sees them)."""
    back = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, list(args), catch_exceptions=False)
    finally:
        os.chdir(back)


def copy_game(folder: Path, *names: str, records: bool = True) -> None:
    """games/NAME.rules into `folder`, with its examples and (if `records`) its records."""
    for name in names:
        shutil.copy(GAMES / f"{name}.rules", folder / f"{name}.rules")
        if records and (GAMES / f"{name}.playthroughs").is_dir():
            shutil.copytree(GAMES / f"{name}.playthroughs", folder / f"{name}.playthroughs")


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new))


# --- names and first lines -------------------------------------------------------------------------


def test_a_record_is_named_by_what_it_plays() -> None:
    assert record_name(2, 1, ("random", "random"), {}) == "2p-seed1.txt"
    assert record_name(3, 7, ("greedy",) * 3, {}) == "3p-seed7-greedy.txt"
    assert record_name(2, 0, ("mcts:50", "random"), {"big": True, "extra": 3}) == \
        "2p-seed0-mcts_50+random-big=true-extra=3.txt"


def test_the_first_line_is_read_back() -> None:
    head = parse_header("Naishi: Legends & Travellers: 2 players, seed 9, agents random", "x.txt")
    assert (head.title, head.players, head.seed, head.agents, head.options) == (
        "Naishi: Legends & Travellers", 2, 9, ("random", "random"), {})
    head = parse_header("Options: 2 players, seed 2, agents P1 random, P2 greedy, options extra=3 big=true", "x")
    assert (head.agents, head.options) == (("random", "greedy"), {"extra": "3", "big": "true"})
    with pytest.raises(PlaythroughFileError, match=r"^x.txt: line 1: not a playthrough's first line"):
        parse_header("Hagakure, seed 3", "x.txt")
    with pytest.raises(PlaythroughFileError, match="2 agents named for 3 players"):
        parse_header("G: 3 players, seed 1, agents P1 random, P2 greedy", "x")


def test_a_diff_names_the_decision_whose_log_changed() -> None:
    old = "G: 2 players, seed 1, agents random\n1. P1 (2 legal): a\n2. P2 (3 legal): b\n  P2 gets 1\n" \
          "game over after 2 decisions\nfinal scores:\n  total 1 2\n"
    extra = old.replace("1. P1 (2 legal): a\n", "1. P1 (2 legal): a\n  P1 has no legal action and is skipped\n")
    assert compare(old, extra)[1] == "decision 1"
    assert compare(old, old.replace("2. P2 (3 legal)", "2. P2 (4 legal)"))[1] == "decision 2"
    assert compare(old, old.replace("  P2 gets 1\n", ""))[1] == "decision 2"
    assert compare(old, old.replace("total 1 2", "total 1 3"))[1] == "the end (after decision 2)"
    diff, _ = compare(old, extra)
    assert diff[:3] == ["--- recorded", "+++ now", "@@ -1,4 +1,5 @@"]
    assert "+  P1 has no legal action and is skipped" in diff


# --- recording --------------------------------------------------------------------------------------


def test_record_writes_refuses_a_different_record_and_updates(tmp_path: Path) -> None:
    copy_game(tmp_path, "naishi", records=False)
    args = ("playthrough", "naishi.rules", "--players", "2", "--seed", "3", "--record")
    first = run(*args, cwd=tmp_path)
    path = tmp_path / "naishi.playthroughs" / "2p-seed3.txt"
    assert first.exit_code == 0, first.output
    assert first.output == "wrote naishi.playthroughs/2p-seed3.txt (35 decisions): read it before you trust it\n"
    assert path.read_text() == (GAMES / "naishi.playthroughs" / "2p-seed3.txt").read_text()
    again = run(*args, cwd=tmp_path)
    assert again.output == "unchanged: naishi.playthroughs/2p-seed3.txt (35 decisions)\n"
    # a record that differs from the game (as after a change of the rules) is kept until --update
    recorded = path.read_text()
    path.write_text(recorded.replace("2. P1 (2 legal): give Ninja", "2. P1 (2 legal): give Fort"))
    refused = run(*args, cwd=tmp_path)
    assert refused.exit_code == 1
    assert "-2. P1 (2 legal): give Fort\n+2. P1 (2 legal): give Ninja\n" in refused.output
    assert "error: naishi.playthroughs/2p-seed3.txt holds a different record (first difference at decision 2): " \
           "read the diff, then --update to replace it" in refused.output
    assert path.read_text() != recorded
    updated = run(*args, "--update", cwd=tmp_path)
    assert updated.exit_code == 0 and path.read_text() == recorded
    assert updated.output.endswith("updated naishi.playthroughs/2p-seed3.txt (35 decisions): read it before you "
                                   "trust it\n")


@pytest.mark.parametrize("extra, message", [
    (["--json"], "error: --record keeps the text record: leave out --json"),
    (["--max-decisions", "5"], "error: the game has not ended after 5 decisions"),
])
def test_record_refusals(tmp_path: Path, extra: list[str], message: str) -> None:
    copy_game(tmp_path, "naishi", records=False)
    result = run("playthrough", "naishi.rules", "--seed", "3", "--record", *extra, cwd=tmp_path)
    assert result.exit_code == 1 and message in result.output and "Traceback" not in result.output
    assert not (tmp_path / "naishi.playthroughs").exists()
    lone = run("playthrough", "naishi.rules", "--update", cwd=tmp_path)
    assert lone.exit_code == 1 and "error: --update goes with --record" in lone.output


def test_record_where_a_file_or_folder_is_in_the_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy_game(tmp_path, "naishi", records=False)
    args = ("playthrough", "naishi.rules", "--seed", "3", "--record")
    folder = tmp_path / "naishi.playthroughs"
    folder.write_text("not a folder")
    result = run(*args, cwd=tmp_path)
    assert result.output == ("error: cannot write 'naishi.playthroughs/2p-seed3.txt': 'naishi.playthroughs' is "
                             "a file, not a folder\n")
    folder.unlink()
    (folder / "2p-seed3.txt").mkdir(parents=True)
    result = run(*args, cwd=tmp_path)
    assert result.output == "error: cannot read 'naishi.playthroughs/2p-seed3.txt': Is a directory\n"
    (folder / "2p-seed3.txt").rmdir()
    (folder / "bad.txt").write_bytes(b"\xff\xfe")
    result = run("test", "naishi.rules", "-k", "playthrough", cwd=tmp_path)
    assert "error: cannot read playthrough 'naishi.playthroughs/bad.txt': it is not UTF-8 text (byte 0 cannot be " \
           "read)" in result.output
    (folder / "bad.txt").unlink()

    def stopped(*_args: Any, **_kwargs: Any) -> None:
        raise KeyboardInterrupt  # Ctrl-C while the record is written
    monkeypatch.setattr(os, "fsync", stopped)
    result = run(*args, cwd=tmp_path)
    assert result.exit_code == 130
    assert list(folder.iterdir()) == []  # no half record, no temporary file


def test_agents_and_options_are_recorded_and_replayed(tmp_path: Path) -> None:
    shutil.copy(ROOT / "tests" / "synthetic" / "options.rules", tmp_path / "options.rules")
    result = run("playthrough", "options.rules", "--players", "2", "--seed", "2", "--agents", "random,greedy",
                 "-o", "extra=3", "-o", "big=true", "--record", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    path = tmp_path / "options.playthroughs" / "2p-seed2-random+greedy-extra=3-big=true.txt"
    assert path.read_text().splitlines()[0] == \
        "Options: 2 players, seed 2, generator xoshiro256**, agents P1 random, P2 greedy, options extra=3 big=true"
    tested = run("test", "options.rules", cwd=tmp_path)
    assert tested.exit_code == 0, tested.output
    assert "PASS  playthrough 2p-seed2-random+greedy-extra=3-big=true  (0 decisions)" in tested.output
    # the same game with the option off: its record differs, so the option was replayed
    off = run("playthrough", "options.rules", "--players", "2", "--seed", "2", "--agents", "random,greedy",
              "-o", "extra=3", cwd=tmp_path)
    assert off.output != path.read_text()


# --- ruleforge test ---------------------------------------------------------------------------------


def test_ruleforge_test_runs_examples_then_playthroughs(tmp_path: Path) -> None:
    copy_game(tmp_path, "naishi", "naishi_legends")
    shutil.copy(GAMES / "naishi_legends.examples.json", tmp_path)
    result = run("test", "naishi_legends.rules", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    examples = json.loads((GAMES / "naishi_legends.examples.json").read_text())["examples"]
    assert lines[0] == f"Naishi: Legends & Travellers: {len(examples)} examples ({len(examples)} from " \
                       "naishi_legends.examples.json), 3 playthroughs (naishi_legends.playthroughs)"
    assert lines[-4:] == ["PASS  playthrough 2p-seed2  (51 decisions)", "PASS  playthrough 2p-seed36  (46 decisions)",
                          "PASS  playthrough 2p-seed794  (52 decisions)", f"{len(examples) + 3} passed"]
    assert all(line.startswith("PASS  ") for line in lines[1:-4])
    # -k: a playthrough's name is `playthrough NAME`
    only = run("test", "naishi_legends.rules", "-k", "SEED2", cwd=tmp_path)
    assert only.output.splitlines()[1:] == ["PASS  playthrough 2p-seed2  (51 decisions)", "1 passed"]
    data = json.loads(run("test", "naishi_legends.rules", "-k", "playthrough", "--json", cwd=tmp_path).output)
    assert (data["examples"], data["passed"], data["failed"], data["errors"]) == ([], 3, 0, 0)
    assert data["playthroughs"][0] == {"name": "2p-seed2", "file": "naishi_legends.playthroughs/2p-seed2.txt",
                                       "status": "pass", "recorded_decisions": 51, "played_decisions": 51,
                                       "decision_limit": 152}


def test_a_variant_does_not_run_its_bases_playthroughs(tmp_path: Path) -> None:
    """The base's records are its games; the variant plays differently (here: not at all
    differently, but a record is of one file's rules)."""
    copy_game(tmp_path, "naishi")
    (tmp_path / "plain.rules").write_text('extends "naishi.rules"\ngame "Naishi again"\n')
    result = run("test", "plain.rules", cwd=tmp_path)
    assert result.exit_code == 1
    assert result.output.startswith("error: no examples for Naishi again: none in plain.examples.json, ")
    assert ("naishi.examples.json, no playthroughs in plain.playthroughs and no move counts in plain.perft.json "
            "(docs/testing.md") in result.output
    records = len(list((GAMES / "naishi.playthroughs").glob("*.txt")))  # the base's own: all played
    assert run("test", "naishi.rules", cwd=tmp_path).output.splitlines()[-1] == f"{records} passed"


def test_the_legends_mutant_of_issue_11_is_caught(tmp_path: Path) -> None:
    """The mutant passes `ruleforge check` and every scoring example (they score positions, and
    it changes no score); the recorded playthroughs catch it, at the first River Develop."""
    folder = tmp_path / "games"  # the base's examples read ../docs/examples/naishi_example1.json
    folder.mkdir()
    copy_game(folder, "naishi", "naishi_legends")
    for name in ("naishi", "naishi_legends"):
        shutil.copy(GAMES / f"{name}.examples.json", folder)
    (tmp_path / "docs" / "examples").mkdir(parents=True)
    shutil.copy(ROOT / "docs" / "examples" / "naishi_example1.json", tmp_path / "docs" / "examples")
    assert run("test", "naishi_legends.rules", cwd=folder).exit_code == 0
    edit(folder / "naishi_legends.rules", LEGENDS_CHOICE, LEGENDS_MUTANT)
    assert run("check", "naishi_legends.rules", cwd=folder).exit_code == 0
    result = run("test", "naishi_legends.rules", cwd=folder)
    assert result.exit_code == 1
    lines = result.output.splitlines()
    failed = [line for line in lines if line.startswith(("FAIL", "ERROR"))]
    assert failed == ["FAIL  playthrough 2p-seed2", "FAIL  playthrough 2p-seed36", "FAIL  playthrough 2p-seed794"]
    at = lines.index("FAIL  playthrough 2p-seed2")
    assert lines[at + 1] == "      first difference at decision 3 (51 decisions played, 51 recorded)"
    assert lines[at + 2:at + 5] == ["      --- recorded", "      +++ now", "      @@ -5,32 +5,46 @@"]
    assert "      +  P1 has no legal action and is skipped" in lines[at + 5:at + 9]
    assert lines[-1].endswith("passed, 3 failed")


def test_an_endless_mutant_fails_fast(tmp_path: Path) -> None:
    """Hagakure whose round counter never advances never ends: the replay stops at twice the
    recorded decisions and 50 more (380), not at the default limit of a game (100,000)."""
    copy_game(tmp_path, "hagakure")
    edit(tmp_path / "hagakure.rules", "  rounds_played += 1\n", "  rounds_played += 0\n")
    result = run("test", "hagakure.rules", "-k", "3p-seed3", cwd=tmp_path)
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[1] == "FAIL  playthrough 3p-seed3"
    assert lines[2] == f"      first difference at the setup ({decision_limit(165)} decisions played, 165 recorded; " \
                       f"stopped at the limit of {decision_limit(165)})"
    assert lines[3:8] == ["      --- recorded", "      +++ now", "      @@ -1,5 +1,5 @@", "       Hagakure: 3 players, "
                          "seed 3, generator xoshiro256**, agents random", "       setup:"]
    assert lines[8:10] == ["      -  Round 1: P3 deals", "      +  Round 0: P3 deals"]


@pytest.mark.parametrize("first_line, message", [
    ("a playthrough", "line 1: not a playthrough's first line"),
    ("Naishi: 9 players, seed 1, agents random", "line 1: "),
    ("Naishi: 2 players, seed 1, agents nobody", "line 1: "),
    ("Naishi: 2 players, seed 1, agents random, options x=1", "line 1: unknown option 'x' (options of Naishi: none)"),
])
def test_a_record_that_cannot_be_replayed_is_an_error(tmp_path: Path, first_line: str, message: str) -> None:
    copy_game(tmp_path, "naishi")
    path = tmp_path / "naishi.playthroughs" / "2p-seed3.txt"
    rest = path.read_text().split("\n", 1)[1]
    path.write_text(first_line + "\n" + rest)
    result = run("test", "naishi.rules", "-k", "2p-seed3", cwd=tmp_path)  # the other records pass
    assert result.exit_code == 1 and "Traceback" not in result.output
    lines = result.output.splitlines()
    assert lines[1] == "ERROR playthrough 2p-seed3"
    assert lines[2].startswith("      error: naishi.playthroughs/2p-seed3.txt: ") and message in lines[2]
    assert lines[-1] == "0 passed, 1 could not run"


# --- in-process, as `ruleforge mutate` runs it ---------------------------------------------------------


def test_run_tests_runs_a_files_tests_against_other_rules(tmp_path: Path) -> None:
    """A mutant loaded from another file runs the original's examples and records."""
    copy_game(tmp_path, "naishi", "naishi_legends")
    original = tmp_path / "naishi_legends.rules"
    mutant = tmp_path / "mutant.rules"
    mutant.write_text(original.read_text().replace(LEGENDS_CHOICE, LEGENDS_MUTANT))
    good = run_tests(ruleforge.load(original))
    names = ["playthrough 2p-seed2", "playthrough 2p-seed36", "playthrough 2p-seed794"]
    assert good.passed and [r.name for r in good.results] == names
    bad = run_tests(ruleforge.load(mutant), original)
    assert not bad.passed and [(r.name, r.status) for r in bad.results] == [(name, "fail") for name in names]
    assert bad.results[0].report()[0] == "first difference at decision 3 (51 decisions played, 51 recorded)"
    first = run_tests(ruleforge.load(mutant), original, stop_at_first_failure=True)
    assert [r.name for r in first.results] == ["playthrough 2p-seed2"]
    assert run_tests(ruleforge.load(mutant)).results == ()  # the mutant's own file has none


# --- the pytest plugin --------------------------------------------------------------------------------


def pytest_in(folder: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1", COLUMNS="120")
    for name in ("PYTEST_ADDOPTS", "CI", "BUILD_NUMBER"):
        env.pop(name, None)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=folder,
                          env=env, capture_output=True, text=True, timeout=300)


def test_the_plugin_collects_a_record_as_an_item(tmp_path: Path) -> None:
    copy_game(tmp_path, "naishi", "naishi_legends")
    passed = pytest_in(tmp_path, "-q", "--collect-only")
    assert "naishi.playthroughs/2p-seed3.txt::playthrough" in passed.stdout
    assert "naishi_legends.playthroughs/2p-seed2.txt::playthrough" in passed.stdout
    ran = pytest_in(tmp_path, "-q")
    records = sum(len(list((GAMES / f"{name}.playthroughs").glob("*.txt"))) for name in ("naishi", "naishi_legends"))
    assert ran.returncode == 0 and f"{records} passed" in ran.stdout, ran.stdout
    edit(tmp_path / "naishi_legends.rules", LEGENDS_CHOICE, LEGENDS_MUTANT)
    failed = pytest_in(tmp_path, "-q", "naishi_legends.playthroughs/2p-seed2.txt")
    assert failed.returncode == 1
    out = failed.stdout
    assert "playthrough 2p-seed2 (naishi_legends.playthroughs/2p-seed2.txt) against naishi_legends.rules:\n" \
           "first difference at decision 3 (51 decisions played, 51 recorded)\n--- recorded\n+++ now\n" in out
    assert "\n+  P1 has no legal action and is skipped\n" in out and "Traceback" not in out


@pytest.mark.parametrize("old, new, record, where, failure", [
    ("  shuffle travellers\n", "  shuffle travellers\n  ryokan_side = 4 // (count(travellers) - 6)\n", "2p-seed2",
     "first difference at the setup (0 decisions played, 51 recorded)",
     "the game failed: setup: naishi_legends.rules:63:3: runtime error: ZeroDivisionError: "),
    ("  g.pending = 0\n  swap top_of(a)", "  g.pending = 0\n  ryokan_side = 4 // chain\n  swap top_of(a)", "2p-seed794",
     "first difference at decision 5 (4 decisions played, 52 recorded)",
     "the game failed: decision 5 (P1: Cherry Blossom Lady: swap Hand 4 and Hand 5): naishi_legends.rules:"),
])
def test_a_rule_failing_in_the_replay_is_named(tmp_path: Path, old: str, new: str, record: str, where: str,
                                              failure: str) -> None:
    """A mutant that breaks a rule (here a division by zero, at the setup or in the Cherry
    Blossom Lady's swap of decision 5) fails the playthrough, saying which rule failed where."""
    copy_game(tmp_path, "naishi", "naishi_legends")
    edit(tmp_path / "naishi_legends.rules", old, new)
    result = run("test", "naishi_legends.rules", "-k", record, cwd=tmp_path)
    assert result.exit_code == 1 and "Traceback" not in result.output
    lines = result.output.splitlines()
    assert lines[1:3] == [f"FAIL  playthrough {record}", f"      {where}"]
    assert lines[3].startswith(f"      {failure}")
    assert "ZeroDivisionError" in lines[3]
