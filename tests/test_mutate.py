"""`ruleforge mutate`: the mutants of tests/synthetic/mutants.rules, what its examples catch
and what survives (worked out by hand below), the limits, --jobs, --sample, --json,
--test-command and bad input."""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import ruleforge
from ruleforge.cli import main
from ruleforge.mutation import OPERATORS, Settings, generate, run_mutant, sample, source_text
from ruleforge.mutation.runner import default_test

ROOT = Path(__file__).resolve().parents[1]
RULES = "tests/synthetic/mutants.rules"
SYNTHETIC = Path(__file__).parent / "synthetic"

# What the examples leave loose, by hand. They pin every scoring item down, so every change to
# `scoring points` (and to `reds`, and to `final`, which the total reads) is caught. They say
# nothing of play: the hoard's size (4; 3 rounds fill 3), the starting round, the gems in the
# box beyond those the examples name, the take's `require` (no worth-3 gem in round 0), its limit,
# where a gem goes in the hoard, and the number of rounds. The table's `0:` and `1:` made `0+:`
# and `1+:` are equivalent: an exact key wins over an open one. `rounds += 1` made `-= 1` or
# `+= 0` never ends: caught as endless.
SURVIVORS = [
    (16, "4 -> 3"), (16, "4 -> 5"),  # zone hoard ..., size 4
    (19, "0 -> 1"),  # var rounds: int = 0
    (23, "1 -> 0"), (23, "3 -> 4"), (24, "1 -> 0"), (24, "3 -> 4"),  # Gem(..., worth: 1..3)
    (29, "per turn -> per game"),
    (30, "require dropped"), (30, "not dropped"), (30, "== -> !="), (30, "3 -> 2"), (30, "3 -> 4"),
    (30, "and -> or"), (30, "== -> !="), (30, "0 -> 1"),
    (31, "at bottom -> at top"),
    (35, "< -> <="), (35, "< -> >="), (35, "3 -> 2"), (35, "3 -> 4"),  # while rounds < 3
    (39, "1 -> 2"),  # rounds += 1
    (46, "0: -> 0+:"), (46, "1: -> 1+:"),
]


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def report() -> dict:
    result = run("mutate", RULES, "--hint-seeds", "5", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_survivors_are_the_rules_the_examples_leave_loose(report: dict) -> None:
    assert [(s["line"], s["change"]) for s in report["survivors"]] == SURVIVORS
    assert report["run"] == report["caught"] + report["survived"]
    assert report["generated"] == report["refused"] + report["run"]
    assert report["score"] == round(100 * report["caught"] / report["run"], 2)


def test_every_operator_makes_mutants() -> None:
    mutants = generate(ruleforge.load(RULES))
    assert {m.operator for m in mutants} == set(OPERATORS)
    assert len({m.apply(source_text(ruleforge.load(RULES))) for m in mutants}) == len(mutants)  # no duplicates


def test_a_mutant_is_one_splice_of_the_file_text() -> None:
    rules = ruleforge.load(RULES)
    text = source_text(rules)
    for m in generate(rules):
        mutated = m.apply(text)
        assert mutated[:m.start] == text[:m.start] and mutated[m.start + len(m.new):] == text[m.end:]
        line = text.splitlines()[m.line - 1]
        assert line[m.column - 1:].startswith(text[m.start:m.end])


def test_checker_refused_mutants_are_dropped_from_the_score(report: dict) -> None:
    refused = [m for m in report["mutants"] if m["status"] == "refused"]
    assert {(m["line"], m["change"]) for m in refused} == {(46, "0 -> 1"), (46, "1 -> 0"), (46, "1 -> 2"),
                                                          (46, "2 -> 1")}
    assert all("a table has the same key twice" in m["reason"] for m in refused)


def test_an_endless_mutant_is_caught_quickly_as_endless(report: dict) -> None:
    endless = [m for m in report["mutants"] if m.get("caught_by") == "endless"]
    assert [(m["line"], m["change"]) for m in endless] == [(39, "+= -> -="), (39, "1 -> 0")]
    assert all(m["reason"] == f"endless: more than {report['max_decisions']:,} decisions" for m in endless)
    rules = ruleforge.load(RULES)
    settings = Settings(RULES, source_text(rules), 100, 30.0, 0)
    mutant = next(m for m in generate(rules) if m.what == "+= -> -=")
    start = time.perf_counter()
    assert run_mutant(settings, mutant).kind == "endless"
    assert time.perf_counter() - start < 5


def test_a_mutant_past_its_time_is_stopped_and_caught() -> None:
    rules = ruleforge.load(RULES)
    settings = Settings(RULES, source_text(rules), 100, 0.3, 0)

    def forever(rules: object, path: str) -> list[str]:
        while True:
            pass

    start = time.perf_counter()
    result = run_mutant(settings, generate(rules)[0], test=forever)
    assert (result.status, result.kind, result.reason) == ("caught", "timeout", "timed out after 0.3 s")
    assert time.perf_counter() - start < 3


def test_hints(report: dict) -> None:
    hints = {(s["line"], s["change"]): s["hint"] for s in report["survivors"]}
    assert hints[(16, "4 -> 3")] == "looks equivalent: identical playthroughs over 5 games"
    assert hints[(30, "require dropped")] == "plays differently: seed 0, 2 players, from decision 1"
    assert hints[(31, "at bottom -> at top")] == "plays differently: seed 0, 2 players, in the final position or scores"


def test_survivor_diff(report: dict) -> None:
    survivor = next(s for s in report["survivors"] if s["change"] == "not dropped")
    assert survivor["diff"].splitlines() == [
        "--- tests/synthetic/mutants.rules",
        f"+++ tests/synthetic/mutants.rules (mutant {survivor['index']})",
        "@@ -29,3 +29,3 @@",
        ' action take(g in pool) "take {g}" once per turn {',
        "-  require not (g.worth == 3 and rounds == 0)",
        "+  require (g.worth == 3 and rounds == 0)",
        "   move g to hoard(me) at bottom",
    ]


def test_text_report_lists_each_survivor_with_place_and_diff() -> None:
    result = run("mutate", RULES, "--operators", "not,require", "--hint-seeds", "2")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "Mutants: tests/synthetic/mutants.rules: 2 mutants"
    assert lines[2] == ("refused by the checker: 0   run: 2   caught: 0 (endless: 0, timed out: 0)   survived: 2")
    assert lines[3] == "mutation score: 0.0% (0 of 2 caught)"
    assert ("tests/synthetic/mutants.rules:30:11  not  not dropped  plays differently: seed 0, 2 players, "
            "from decision 1") in lines
    assert "    -  require not (g.worth == 3 and rounds == 0)" in lines


def _without_time(data: dict) -> dict:
    """A report without what depends on the machine's speed: the time taken, the jobs, and the
    timeout (ten times what the original's tests took, when not given)."""
    return {k: v for k, v in data.items() if k not in ("seconds", "jobs", "timeout")}


def test_jobs_give_the_same_report(report: dict) -> None:
    result = run("mutate", RULES, "--hint-seeds", "5", "--json", "--jobs", "2")
    assert result.exit_code == 0, result.output
    assert _without_time(json.loads(result.stdout)) == _without_time(report)


def test_sample_is_deterministic() -> None:
    first = json.loads(run("mutate", RULES, "--sample", "6", "--seed", "3", "--hint-seeds", "1", "--json").stdout)
    again = json.loads(run("mutate", RULES, "--sample", "6", "--seed", "3", "--hint-seeds", "1", "--json").stdout)
    other = json.loads(run("mutate", RULES, "--sample", "6", "--seed", "4", "--hint-seeds", "1", "--json").stdout)
    assert _without_time(first) == _without_time(again)
    assert first["sampled"] == 6 and len(first["mutants"]) == 6
    assert [m["index"] for m in first["mutants"]] != [m["index"] for m in other["mutants"]]
    mutants = list(range(20))
    assert sample(mutants, 5, 1) == sorted(sample(mutants, 5, 1)) and sample(mutants, 50, 1) == mutants


def test_fail_under() -> None:
    assert run("mutate", RULES, "--operators", "not", "--hint-seeds", "0", "--fail-under", "50").exit_code == 1
    assert run("mutate", RULES, "--operators", "aggregate", "--hint-seeds", "0", "--fail-under", "50").exit_code == 0


def test_test_command_runs_in_a_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("mutants.rules", "mutants.examples.json"):
        shutil.copy(ROOT / "tests/synthetic" / name, tmp_path / name)
    before = (tmp_path / "mutants.rules").read_bytes()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    tempfile.tempdir = None
    try:
        # survives unless the round counter's `+=` changed; that one sleeps past its time
        command = "grep -q 'rounds -= 1' mutants.rules && sleep 20 || grep -q 'rounds += 1' mutants.rules"
        result = run("mutate", "mutants.rules", "--operators", "arithmetic", "--test-command", command,
                     "--timeout", "0.5", "--hint-seeds", "0", "--jobs", "2", "--json")
    finally:
        tempfile.tempdir = None
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert {(m["change"], m["status"], m.get("reason")) for m in data["mutants"]} == {
        ("+= -> -=", "caught", "timed out after 0.5 s"), ("- -> +", "survived", None)}
    assert data["tests"] == f"`{command}`"
    assert (tmp_path / "mutants.rules").read_bytes() == before
    assert list((tmp_path / "tmp").iterdir()) == []  # the copies are gone


def test_test_command_failing_on_the_original(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copy(ROOT / RULES, tmp_path / "mutants.rules")
    monkeypatch.chdir(tmp_path)
    result = run("mutate", "mutants.rules", "--test-command", "exit 3")
    assert result.exit_code == 1
    assert result.stderr == ("error: the test command fails on the original mutants.rules (exit status 3): "
                             "mutants would all look caught\n")


def test_original_must_pass_its_tests(tmp_path: Path) -> None:
    shutil.copy(ROOT / RULES, tmp_path / "mutants.rules")
    examples = json.loads((ROOT / "tests/synthetic/mutants.examples.json").read_text())
    examples["examples"][0]["expect"]["P1"]["total"] = 12
    (tmp_path / "mutants.examples.json").write_text(json.dumps(examples))
    result = run("mutate", str(tmp_path / "mutants.rules"))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: the tests fail on the original {tmp_path / 'mutants.rules'}: "
                                    "example 'two reds and a blue' (mutants.examples.json): P1 total 12 -> 11")
    assert len(result.stderr.splitlines()) == 1


@pytest.mark.parametrize(("args", "message"), [
    (["nowhere.rules"], "error: cannot read rules file 'nowhere.rules': no such file"),
    (["tests"], "error: cannot read rules file 'tests': it is not a file"),
    ([RULES, "--operators", "frobnicate"], "error: --operators: no operator 'frobnicate'; operators: "
                                           + ", ".join(OPERATORS)),
    ([RULES, "--test-command", " "], "error: --test-command is empty"),
])
def test_bad_input_is_one_line_and_status_2(args: list[str], message: str) -> None:
    result = run("mutate", *args)
    assert result.exit_code == 2
    assert result.stderr == message + "\n"


def test_more_jobs_than_cores_run_one_worker_per_core(monkeypatch: pytest.MonkeyPatch) -> None:
    from ruleforge.balance import runner

    monkeypatch.setattr(runner, "cores", lambda: 2)
    result = run("mutate", RULES, "--sample", "3", "--hint-seeds", "0", "--jobs", "1000", "--json")
    assert result.exit_code == 0, result.output
    assert result.stderr == ("note: --jobs 1,000 is more than the 2 core(s) this process may use: "
                             "using 2 process(es)\n")
    assert json.loads(result.stdout)["jobs"] == 2


def test_bad_flag_values_are_refused_by_click() -> None:
    for args in (["--sample", "0"], ["--jobs", "0"], ["--timeout", "-1"], ["--fail-under", "101"]):
        result = run("mutate", RULES, *args)
        assert result.exit_code == 2 and "Traceback" not in result.output
        assert result.stderr.splitlines()[-1].startswith("Error: Invalid value")


def test_rules_file_outside_the_folder_with_test_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = run("mutate", str(ROOT / RULES), "--test-command", "true")
    assert result.exit_code == 1
    assert "must be inside the current folder" in result.stderr and len(result.stderr.splitlines()) == 1


def test_default_test_names_failing_checks() -> None:
    rules = ruleforge.load(RULES)
    assert default_test(rules, RULES) == []
    mutant = next(m for m in generate(rules) if m.what == "min -> max")
    bad = ruleforge.rules.Rules(RULES, mutant.apply(source_text(rules)))
    failing = default_test(bad, RULES)
    assert failing[0].startswith("example 'two reds and a blue' (mutants.examples.json): P1 worth 5 -> 3")


def test_every_operator_is_documented() -> None:
    docs = (ROOT / "docs/testing.md").read_text()
    for name, what in OPERATORS.items():
        assert f"| `{name}` | {what} |" in docs


def test_a_crash_of_ruleforge_on_a_mutant_is_reported_and_the_run_goes_on() -> None:
    rules = ruleforge.load(RULES)
    settings = Settings(RULES, source_text(rules), 100, 5.0, 0)

    def broken(rules: object, path: str) -> list[str]:
        raise KeyError("oops")

    result = run_mutant(settings, generate(rules)[0], test=broken)
    assert (result.status, result.kind, result.reason) == ("caught", "crash", "crashed: KeyError: 'oops'")


def test_no_hint_when_no_games_are_asked_for() -> None:
    result = run("mutate", RULES, "--operators", "not", "--hint-seeds", "0")
    assert "tests/synthetic/mutants.rules:30:11  not  not dropped" in result.stdout.splitlines()
    data = json.loads(run("mutate", RULES, "--operators", "not", "--hint-seeds", "0", "--json").stdout)
    assert "hint" not in data["survivors"][0]


def test_a_variant_mutates_only_its_own_file_and_its_mutants_load_over_the_base() -> None:
    path = "docs/examples/paddies/paddies.rules"
    rules = ruleforge.load(path)
    mutants = generate(rules)
    assert {m.file for m in mutants} == {path}
    assert [(m.line, m.what) for m in mutants] == [(5, "15 -> 14"), (5, "15 -> 16"), (8, "* -> //"),
                                                   (8, "RiceField -> Banner"), (8, ">= -> <"), (8, ">= -> >"),
                                                   (8, "5 -> 4"), (8, "5 -> 6")]
    mutant = ruleforge.rules.Rules(path, mutants[0].apply(source_text(rules)))
    assert mutant.model.defs["paddy_bonus"] is not None and len(mutant.files) == 2
    assert Path(ROOT / path).read_text() == source_text(rules)  # nothing written


def test_ctrl_c_keeps_the_mutants_run_so_far(monkeypatch: pytest.MonkeyPatch) -> None:
    """A full run takes minutes: Ctrl-C stops it, and the report covers what was run (exit 130)."""
    from ruleforge.cli import mutate as command

    real = command.results

    def stopped_after_five(settings: Settings, mutants: list, jobs: int):
        for n, result in enumerate(real(settings, mutants, jobs)):
            if n == 5:
                raise KeyboardInterrupt
            yield result

    monkeypatch.setattr(command, "results", stopped_after_five)
    text = run("mutate", RULES, "--hint-seeds", "0")
    assert text.exit_code == 130
    total = len(generate(ruleforge.load(RULES)))
    assert f"interrupted: the report covers the 5 of {total} mutants run before Ctrl-C" in text.stdout.splitlines()
    data = json.loads(run("mutate", RULES, "--hint-seeds", "0", "--json").stdout)
    assert (data["interrupted"], data["planned"], len(data["mutants"])) == (True, total, 5)
    assert data["run"] == data["caught"] + data["survived"] <= 5


def test_a_whole_run_says_it_was_not_interrupted(report: dict) -> None:
    assert (report["interrupted"], report["planned"]) == (False, None)


def test_the_move_counts_beside_the_rules_catch_mutants(tmp_path: Path) -> None:
    """`ruleforge test` checks the move counts kept beside a rules file, so mutation testing
    runs them too: a file with no examples and no records, only its counts, catches the mutants
    that change what can be played, each caught naming the depths that moved."""
    path = tmp_path / "pick.rules"
    shutil.copy(SYNTHETIC / "pick.rules", path)
    rules = ruleforge.load(path)
    mutant = next(m for m in generate(rules) if m.what == "3 -> 4")  # a fourth token in the pool
    bad = ruleforge.rules.Rules(str(path), mutant.apply(source_text(rules)))
    assert default_test(bad, str(path)) == []  # nothing to catch it yet
    result = run("perft", str(path), "--depth", "2", "--write")
    assert result.exit_code == 0, result.output
    assert default_test(rules, str(path)) == []
    assert default_test(bad, str(path)) == ["perft 2p seed 0: depth 1: expected 3, actual 4; "
                                            "depth 2: expected 6, actual 12"]

