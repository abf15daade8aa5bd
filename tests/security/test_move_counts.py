"""A move-count file (`foo.perft.json`) may come from a stranger's pull request: whatever it asks,
counting stops at the limit `counted_positions` (the entries of one file together) with an error
naming the file and the entry, never a walk of billions of positions; the command printed after a
failed count holds every value of the file quoted for the shell, and printed inert."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import ruleforge
from ruleforge import limits
from ruleforge.cli import main
from ruleforge.limits import LIMITS, describe
from ruleforge.perft import Budget, TooManyPositions, counts, divide, perft
from ruleforge.testing import read_perft, run_tests
from ruleforge.testing.perft_files import PerftEntry, PerftOutcome

ROOT = Path(__file__).parents[2]
NIM = ROOT / "tests" / "synthetic" / "nim.rules"
NIM_COUNTS = [2, 4, 4, 1]  # tests/test_perft.py counts them by hand: 11 positions in all
# 300 choices a decision for 100 decisions: depth 5 is 300**5, 2.4 trillion sequences
WIDE = '''game "Wide"
players 2

option width: int = 300
option who: text = "x"

var turns: int = 0

flow {
  let p = first(players)
  repeat {
    turn p: pick
    p = next(p)
  } until turns >= 100
}

action pick(k in 1..width) "pick {k}" {
  turns += 1
}

ranking for p { 0 }
'''


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def with_counts(folder: Path, entries: list[dict], text: str = WIDE, stem: str = "wide") -> Path:
    rules = folder / f"{stem}.rules"
    rules.write_text(text)
    full = [{"players": 2, "seed": 0, "options": {}, **entry} for entry in entries]
    (folder / f"{stem}.perft.json").write_text(json.dumps(
        {"format": "ruleforge-perft/1", "rules": rules.name, "counts": full}))
    return rules


def test_a_deep_count_of_a_wide_game_stops_at_the_limit_naming_file_and_entry(tmp_path: Path) -> None:
    rules = with_counts(tmp_path, [{"depth": [300, 90_000]}, {"seed": 1, "depth": [300, 90_000, 1, 1, 1]}])
    start = time.process_time()
    result = run("test", str(rules))  # the default limit: a few seconds, where the walk would take years
    assert time.process_time() - start < 120
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "PASS  perft 2p seed 0" in result.stdout and "ERROR perft 2p seed 1" in result.stdout
    counts_file = tmp_path / "wide.perft.json"
    assert (f"error: {counts_file}: entry #2: counting visited more than {LIMITS.counted_positions:,} positions, "
            f"90,300 of them by the entries before this one in its file ({describe('counted_positions')})"
            in result.stdout), result.stdout
    as_json = json.loads(run("test", str(rules), "--json").stdout)
    assert [entry["status"] for entry in as_json["perft"]] == ["pass", "error"]


def test_the_limit_is_the_sum_of_the_counts_at_every_depth(tmp_path: Path) -> None:
    game = ruleforge.load(NIM).new_game(2, 0)
    assert counts(game, 4, Budget(sum(NIM_COUNTS))) == NIM_COUNTS  # 11 positions: just within
    given = r"^counting visited more than 10 positions \(the budget the count was given\)$"
    with pytest.raises(TooManyPositions, match=given):
        counts(game, 4, Budget(sum(NIM_COUNTS) - 1))
    with limits.raised(counted_positions=10):  # the default budget is the limit in force
        with pytest.raises(TooManyPositions, match=r"limit counted_positions = 10; raise it with "
                                                   "RULEFORGE_MAX_COUNTED_POSITIONS"):
            perft(game, 4)
        with pytest.raises(TooManyPositions):
            divide(game, 4)
        assert divide(game, 3) == [("take 1", 3), ("take 2", 1)]  # 2 + 4 + 4 positions


def test_the_entries_of_one_file_share_the_limit(tmp_path: Path) -> None:
    """A thousand entries each just within the limit would take a thousand times as long as one:
    the file's entries count within one budget, and those after it is spent are not counted."""
    entries = [{"seed": seed, "depth": [300, 90_000]} for seed in range(6)]
    rules = with_counts(tmp_path, entries)
    with limits.raised(counted_positions=200_000):  # two entries and some
        run_tests_result = run_tests(ruleforge.load(rules), rules)
    statuses = [r.outcome.status for r in run_tests_result.results]
    assert statuses == ["pass", "pass", "error", "error", "error", "error"]
    errors = [r.outcome.error for r in run_tests_result.results[2:]]
    assert errors[0].endswith("entry #3: counting visited more than 200,000 positions, 180,600 of them by the "
                              "entries before this one in its file (limit counted_positions = 200,000; raise it "
                              "with RULEFORGE_MAX_COUNTED_POSITIONS)")
    assert all("not counted: the entries before this one in its file visited more than the 200,000" in e
               for e in errors[1:])
    assert read_perft(tmp_path / "wide.perft.json")[0].budget.spent == 0  # a file read again: a fresh budget


def test_the_pytest_plugin_reports_the_limit_and_ends(tmp_path: Path) -> None:
    with_counts(tmp_path, [{"depth": [300, 90_000, 1, 1, 1]}])
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1", COLUMNS="200",
               RULEFORGE_MAX_COUNTED_POSITIONS="50000")
    for name in ("PYTEST_ADDOPTS", "CI", "BUILD_NUMBER"):
        env.pop(name, None)
    ran = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)
    assert ran.returncode == 1, ran.stdout
    assert "1 failed" in ran.stdout and "wide.perft.json::perft 2p seed 0" in ran.stdout
    assert "entry #1: counting visited more than 50,000 positions (limit counted_positions = 50,000" in ran.stdout


@pytest.mark.parametrize("flags", [(), ("--divide",), ("--write",)])
def test_the_command_line_stops_at_the_limit_and_writes_nothing(tmp_path: Path, flags: tuple[str, ...]) -> None:
    rules = tmp_path / "wide.rules"
    rules.write_text(WIDE)
    with limits.raised(counted_positions=50_000):
        result = run("perft", str(rules), "--depth", "5", *flags)
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == (f"error: {rules}: depth 5: counting visited more than 50,000 positions "
                             "(limit counted_positions = 50,000; raise it with RULEFORGE_MAX_COUNTED_POSITIONS)\n")
    assert not (tmp_path / "wide.perft.json").exists()
    with limits.raised(counted_positions=90_300):  # raised: depth 2 is 300 + 90,000 positions
        assert run("perft", str(rules), "--depth", "2", "--divide").exit_code == 0


def test_every_games_counts_stay_far_within_the_default() -> None:
    default = limits.Limits().counted_positions
    for path in sorted((ROOT / "games").glob("*.perft.json")):
        together = sum(sum(entry.depth) for entry in read_perft(path))
        assert together * 5 <= default, (path.name, together)


# --- the command printed after a failed count ---------------------------------------------------

HOSTILE = "x; touch PWNED #"


def test_the_suggested_command_quotes_the_files_values_and_runs_as_one_argument(tmp_path: Path) -> None:
    rules = with_counts(tmp_path, [{"options": {"who": HOSTILE, "width": 3}, "depth": [3, 10]}])
    result = run("test", str(rules))
    assert result.exit_code == 1
    [line] = [line for line in result.stdout.splitlines() if "write the counts again:" in line]
    command = line.split("write the counts again: ", 1)[1]
    assert shlex.split(command) == ["ruleforge", "perft", str(rules), "--players", "2", "--seed", "0",
                                    "-o", f"who={HOSTILE}", "-o", "width=3", "--depth", "2", "--write"]
    # pasted into a shell as printed: the counts are written, nothing else runs
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    shell = subprocess.run(["sh", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert shell.returncode == 0, shell.stderr
    assert not (tmp_path / "PWNED").exists()
    written = json.loads((tmp_path / "wide.perft.json").read_text())["counts"]
    assert written == [{"players": 2, "seed": 0, "generator": "xoshiro256**", "options": {"who": HOSTILE, "width": 3},
                        "depth": [3, 9]}]


def test_the_suggested_command_is_printed_inert() -> None:
    origin = Path("games") / "x.perft.json"
    entry = PerftEntry(players=2, seed=0, options={"who": "\x1b]0;owned\x07\u202e"}, depth=(1, 2), origin=origin,
                       index=1)
    lines = PerftOutcome(entry, "-x.rules", actual=(1, 3)).report()
    assert not any(ch in "".join(lines) for ch in "\x1b\x07\u202e")
    assert lines[-1].endswith("ruleforge perft ./-x.rules --players 2 --seed 0 "
                              "-o 'who=\\x1b]0;owned\\x07\\u202e' --depth 2 --write")
    assert shlex.split(PerftOutcome(entry, "-x.rules", actual=(1, 3)).command())[2:3] == ["./-x.rules"]


def test_a_rules_file_name_is_quoted_too(tmp_path: Path) -> None:
    folder = tmp_path / "a b;c"
    folder.mkdir()
    shutil.copy(NIM, folder / "nim.rules")
    rules = with_counts(folder, [{"depth": [2, 5]}], text=NIM.read_text(), stem="nim")
    result = run("test", str(rules))
    [line] = [line for line in result.stdout.splitlines() if "write the counts again:" in line]
    assert shlex.split(line.split("write the counts again: ", 1)[1])[2] == str(rules)
