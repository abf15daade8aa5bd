"""Balance statistics (ruleforge/balance): the intervals against worked values, the summary
against a direct computation from the game records, ties, the first player, rules never
used, `--records`, `--jobs`, and `ruleforge compare` finding a change where there is one."""

from __future__ import annotations

import json
import math
import multiprocessing
import multiprocessing.context
import os
import signal
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from stopping import ruleforge_child_ready_after_a_game, wait_until

from ruleforge.balance import runner
from ruleforge.balance.intervals import (
    mean_interval,
    paired_difference,
    proportion_difference,
    t975,
    welch_difference,
    wilson,
)
from ruleforge.balance.stats import histogram, quantile
from ruleforge.cli import main

ROOT = Path(__file__).parents[1]
HAGAKURE = str(ROOT / "games" / "hagakure.rules")
SHORT = str(ROOT / "tests" / "synthetic" / "hagakure_short.rules")  # 6 rounds at 3 players, not 9
UNUSED = str(ROOT / "tests" / "synthetic" / "unexercised.rules")
PICK = (ROOT / "tests" / "synthetic" / "pick.rules").read_text(encoding="utf-8")
TIMING_KEYS = ("seconds", "games_per_second", "jobs")


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def summary(*args: str) -> dict[str, Any]:
    result = run("simulate", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def records_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# --- intervals ---------------------------------------------------------------------------------


def test_wilson_at_none_half_and_all() -> None:
    assert wilson(0, 10) == pytest.approx((0.0, 0.277533), abs=1e-6)
    assert wilson(5, 10) == pytest.approx((0.236593, 0.763407), abs=1e-6)
    assert wilson(10, 10) == pytest.approx((0.722467, 1.0), abs=1e-6)
    assert wilson(0, 0) is None


def test_t_interval_on_a_worked_sample() -> None:
    # mean 5, sd sqrt(2.5), n 5: 5 ± 2.776445 · 1.581139 / √5 = 5 ± 1.963243
    assert mean_interval([3, 5, 4, 6, 7]) == pytest.approx((3.036757, 6.963243), abs=1e-6)
    assert mean_interval([4, 4, 4]) == (4, 4)
    assert mean_interval([4]) is None


def test_t_quantiles() -> None:
    assert t975(1) == pytest.approx(12.706205, abs=1e-6)
    assert t975(10) == pytest.approx(2.228139, abs=1e-6)
    assert t975(4.33) == t975(4)  # a fractional df is rounded down: the wider interval
    assert t975(64.17) == pytest.approx(1.997628, abs=1e-6)  # Cornish-Fisher beyond the table (scipy)
    assert t975(1000) == pytest.approx(1.962339, abs=1e-6)


def test_difference_intervals() -> None:
    # Newcombe (1998), his example: 56/70 against 48/80, difference 0.2, interval 0.0524 to 0.3339
    assert proportion_difference(48, 80, 56, 70) == pytest.approx((0.0524, 0.3339), abs=1e-4)
    a = list(range(1, 36))
    b = [x * 1.5 + 3 for x in range(40)]
    assert welch_difference(a, b) == pytest.approx((7.719405, 20.780595), abs=1e-5)  # scipy's, df 64.2
    # differences 1, 2, 2: mean 5/3, sd 0.57735, t(2) 4.302653
    assert paired_difference([1, 2, 3], [2, 4, 5]) == pytest.approx((0.232449, 3.100884), abs=1e-6)
    assert paired_difference([1, 2, 3], [1, 2, 3]) == (0, 0)


def test_quantiles_and_histogram() -> None:
    assert quantile([1, 2, 3, 4], 0.5) == 2.5 and quantile([1, 2, 3, 4], 0.1) == pytest.approx(1.3)
    h = histogram([3, 3, 4, 7])
    assert h == {"edges": [3, 4, 5, 6, 7, 8], "counts": [2, 1, 0, 0, 1]}
    wide = histogram(list(range(100)))
    assert sum(wide["counts"]) == 100 and len(wide["counts"]) == 20 and wide["edges"][-1] > 99  # type: ignore


# --- the summary against its records ----------------------------------------------------------


def test_the_summary_is_what_the_records_say(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    doc = summary(HAGAKURE, "-n", "30", "--players", "4", "--seed", "5", "--records", str(path))
    records = records_of(path)
    assert [r["seed"] for r in records] == list(range(5, 35)) and [r["game"] for r in records] == list(range(1, 31))
    n = len(records)
    for p, seat in enumerate(doc["seats"]):
        name = f"P{p + 1}"
        wins = sum(r["winners"] == [name] for r in records)
        shared = sum(len(r["winners"]) > 1 and name in r["winners"] for r in records)
        totals = [r["scores"][p] for r in records]
        assert (seat["wins"], seat["shared"]) == (wins, shared)
        assert seat["win_rate"] == wins / n and seat["tie_rate"] == shared / n
        assert seat["win_interval"] == pytest.approx(list(wilson(wins, n)))  # type: ignore[arg-type]
        assert seat["mean_total"] == pytest.approx(statistics.fmean(totals))
        assert seat["sd_total"] == pytest.approx(statistics.stdev(totals))
        assert seat["quantiles"]["median"] == statistics.median(totals)
        assert seat["quantiles"]["min"] == min(totals) and seat["quantiles"]["max"] == max(totals)
        assert sum(seat["histogram"]["counts"]) == n
        for item, stats in seat["items"].items():
            points = [r["breakdowns"][p][item] for r in records]
            assert stats["mean"] == pytest.approx(statistics.fmean(points))
        assert sum(r["breakdowns"][p][i] for r in records for i in seat["items"]) == sum(totals)
    ties = sum(len(r["winners"]) > 1 for r in records)
    assert doc["outcomes"] == {"decisive": (n - ties) / n, "ties": ties / n}
    margins = []
    for r in records:
        if len(r["winners"]) == 1:
            w = int(r["winners"][0][1:]) - 1
            margins.append(r["scores"][w] - max(s for i, s in enumerate(r["scores"]) if i != w))
    assert doc["margin"]["mean"] == pytest.approx(statistics.fmean(margins)) and min(margins) >= 0
    decisions = [r["decisions"] for r in records]
    assert (doc["length"]["mean"], doc["length"]["min"], doc["length"]["max"]) == (
        pytest.approx(statistics.fmean(decisions)), min(decisions), max(decisions))
    rounds = [r["rounds"] for r in records]  # the rules' `measure rounds`: 8 at 4 players, more after a tie
    assert rounds == [r["measures"]["rounds"] for r in records] and min(rounds) >= 8
    assert doc["length"]["rounds"]["mean"] == pytest.approx(statistics.fmean(rounds))
    assert doc["measures"]["rounds"]["max"] == max(rounds)
    assert all(r["turns"] <= r["decisions"] for r in records)
    legal = sum(r["branching"]["sum"] for r in records)
    assert doc["branching"]["mean"] == pytest.approx(legal / sum(decisions))
    taken = {name: sum(r["actions"].get(name, 0) for r in records) for name in doc["actions"]}
    assert {name: a["taken"] for name, a in doc["actions"].items()} == taken
    assert sum(taken.values()) == sum(decisions)
    first = doc["first_player"]
    won = sum(r["winners"] == [r["first"]] for r in records)
    assert first["win_rate"] == won / n and first["fair"] == 0.25
    assert first["advantage"] == pytest.approx(won / n - 0.25)
    assert sum(first["seat counts"].values()) == n


def test_ties_first_player_and_rules_never_used(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    doc = summary(UNUSED, "-n", "60", "--records", str(path))
    records = records_of(path)
    ties = [r for r in records if len(r["winners"]) > 1]
    assert 0 < len(ties) < 60  # equal totals happen: both seats share first place
    assert doc["outcomes"]["ties"] == len(ties) / 60
    assert [s["shared"] for s in doc["seats"]] == [len(ties), len(ties)]
    assert sum(s["wins"] for s in doc["seats"]) + len(ties) == 60  # a tie is nobody's win
    assert doc["first_player"]["seat counts"] == {"P1": 60, "P2": 0}  # P1 always decides first
    assert doc["first_player"]["win_rate"] == doc["seats"][0]["win_rate"]
    never = doc["unexercised"]
    assert never["actions_never_legal"] == ["steal"] and never["actions_never_taken"] == ["steal"]
    assert never["items_always_zero"] == ["vault"]
    assert never["triggers_never_fired"] == ["moved into vault (unexercised.rules:44)"]
    assert doc["actions"]["steal"] == {"taken": 0, "share": 0.0, "legal_share": 0.0}
    assert doc["actions"]["pass"]["legal_share"] == 1.0
    # every take moves a token into `taken`, and so fires that trigger once
    for r in records:
        assert r["triggers"] == {"moved into taken (unexercised.rules:40)": r["actions"].get("take", 0),
                                 "moved into vault (unexercised.rules:44)": 0}
        assert r["breakdowns"][0]["vault"] == 0 and r["decisions"] == 4
    table = run("simulate", UNUSED, "-n", "60").stdout
    assert "actions never legal: steal\n" in table and "scoring items always 0: vault\n" in table
    assert "triggers never fired: moved into vault (unexercised.rules:44)\n" in table


# --- many processes ---------------------------------------------------------------------------


def test_jobs_give_the_same_results_as_one_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "cores", lambda: 4)  # --jobs 3 is then 3 processes on any machine
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    args = (HAGAKURE, "-n", "23", "--players", "4", "--seed", "11", "--agents", "random,greedy")
    a = summary(*args, "--records", str(one))
    b = summary(*args, "--records", str(two), "--jobs", "2")
    assert b["jobs"] == 2
    assert {k: v for k, v in a.items() if k not in TIMING_KEYS} == {k: v for k, v in b.items() if k not in TIMING_KEYS}
    assert one.read_bytes() == two.read_bytes() and len(records_of(one)) == 23
    table_one = run("simulate", *args).stdout.splitlines()
    table_two = run("simulate", *args, "--jobs", "3").stdout.splitlines()
    assert table_one[:-1] == table_two[:-1] and table_two[-1].endswith("games/s, 3 processes)")


def test_more_jobs_than_cores_or_games_start_no_more_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "cores", lambda: 2)
    started: list[int] = []
    real_pool = multiprocessing.get_context("fork").Pool

    def pool(self: Any, processes: int, **kwargs: Any) -> Any:
        started.append(processes)
        return real_pool(processes, **kwargs)
    monkeypatch.setattr(multiprocessing.context.ForkContext, "Pool", pool)
    for command in ("simulate", "compare"):
        result = run(command, HAGAKURE, "-n", "3", "--jobs", "1000", "--json")
        assert result.exit_code == 0, result.output
        assert "note: --jobs 1,000 is more than the 2 core(s) this process may use: using 2 process(es)" \
            in result.stderr
    assert started and max(started) == 2
    monkeypatch.setattr(runner, "cores", lambda: 64)
    started.clear()
    assert run("simulate", HAGAKURE, "-n", "3", "--jobs", "50").exit_code == 0
    assert started == [3]  # one process per chunk of games at most


def test_a_batch_of_countless_games_starts_without_listing_them() -> None:
    """The seeds are made as they are played: 10**30 games start at once, in little memory."""
    script = f"""
import itertools, resource
resource.setrlimit(resource.RLIMIT_AS, (2 * 1024 ** 3, 2 * 1024 ** 3))
from ruleforge.balance import runner
batch = runner.Batch(path={HAGAKURE!r}, players=3, options={{}}, agents="random,random,random")
for jobs in (1, 2):
    got = list(itertools.islice(runner.outcomes(batch, 0, 10 ** 30, jobs), 3))
    assert [kind for kind, _ in got] == ["record"] * 3, got
print("ok")
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert proc.stdout == "ok\n", proc.stderr[-2000:]


def test_failed_games_with_jobs_are_reported_in_seed_order() -> None:
    result = run("simulate", HAGAKURE, "-n", "5", "--max-decisions", "10", "--jobs", "2")
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert [line.split(":")[1] for line in lines[:5]] == [f" game {i} (seed {i - 1})" for i in range(1, 6)]
    assert lines[-1] == "error: 5 of 5 games failed"
    both = run("compare", HAGAKURE, "-n", "2", "--max-decisions", "10", "--jobs", "2")
    assert both.exit_code == 1
    assert [line.split(":")[1] for line in both.stderr.splitlines()] == [
        " A, game 1 (seed 0)", " A, game 2 (seed 1)", " B, game 1 (seed 0)", " B, game 2 (seed 1)",
        " 4 of 4 games failed"]


def test_ctrl_c_stops_every_process(tmp_path: Path) -> None:
    ready = tmp_path / "played"
    with ruleforge_child_ready_after_a_game(ready, "simulate", HAGAKURE, "-n", "1000000", "--json",
                                            "--jobs", "2") as proc:
        wait_until(ready.exists, proc, "a game was played")  # a million games: it cannot be over
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal does: the whole process group
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    doc = json.loads(out)
    assert doc["interrupted"] is True and doc["games"] < 1_000_000
    assert "Traceback" not in err


# --- compare ----------------------------------------------------------------------------------


def compared(*args: str) -> dict[str, Any]:
    result = run("compare", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def rows(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["statistic"]: row for row in doc["differences"]}


def test_compare_a_game_with_itself_finds_no_change() -> None:
    doc = compared(HAGAKURE, HAGAKURE, "-n", "40")
    assert doc["same_seeds"] is True
    assert {row["verdict"] for row in doc["differences"]} == {"no evidence of change"}
    assert all(row["difference"] == 0 for row in doc["differences"])
    assert {"P1 win rate", "tie rate", "P3 mean total", "mean margin of victory", "first player win rate",
            "mean decisions", "legal actions per decision"} <= set(rows(doc))
    table = run("compare", HAGAKURE, "-n", "40").stdout  # B left out: A against itself
    assert "0 of 31 statistics changed" in table


def test_compare_finds_what_a_variant_changed(tmp_path: Path) -> None:
    doc = compared(HAGAKURE, SHORT, "-n", "60", "--jobs", "2")
    found = rows(doc)
    for statistic in ("P1 mean total", "P2 mean total", "mean decisions", "mean turns", "mean rounds"):
        row = found[statistic]
        assert row["verdict"] == "changed" and row["difference"] < 0 and row["interval"][1] < 0, row
    assert found["mean decisions"]["difference"] == pytest.approx(-54, abs=3)  # 3 rounds of 3 + 5·3 decisions less
    assert found["mean rounds"]["difference"] == pytest.approx(-3, abs=0.3)  # 6 rounds, not 9 (ties add a few)
    assert doc["a"]["game"] == "Hagakure" and doc["b"]["game"] == "Hagakure, short"
    table = run("compare", HAGAKURE, SHORT, "-n", "60").stdout
    assert any(line.startswith("│ mean decisions") and line.rstrip().endswith("changed               │")
               for line in table.splitlines()), table


def test_compare_one_file_under_two_options(tmp_path: Path) -> None:
    rules = tmp_path / "bonus.rules"
    rules.write_text(PICK.replace('ranking for p', 'option bonus: int = 0\n\nranking for p').replace(
        '"tokens": sum(t.value for t in taken(p))',
        '"tokens": sum(t.value for t in taken(p))\n  "bonus": if p == last(players) then bonus else 0'))
    doc = compared(str(rules), "-n", "50", "--b-option", "bonus=3")
    found = rows(doc)
    assert doc["a"]["options"] == {} and doc["b"]["options"] == {"bonus": 3}
    assert found["P2 mean total"]["difference"] == 3 and found["P2 mean total"]["verdict"] == "changed"
    assert found["P2 bonus"]["interval"] == [3, 3]
    assert found["P1 mean total"]["verdict"] == "no evidence of change"
    assert found["P2 win rate"]["difference"] > 0 and found["P2 win rate"]["verdict"] == "changed"


# --- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize(("args", "message"), [
    (["simulate", "no/such.rules"], "cannot read rules file 'no/such.rules'"),
    (["simulate", HAGAKURE, "--jobs", "0"], "Invalid value for '--jobs'"),
    (["simulate", HAGAKURE, "--records", "no/such/folder/r.jsonl"], "error: cannot write records file"),
    (["compare", HAGAKURE, "no/such.rules"], "cannot read rules file 'no/such.rules'"),
    (["compare", HAGAKURE, str(ROOT / "tests" / "synthetic" / "pick.rules")],
     "error: no player count fits both: "),
    (["compare", HAGAKURE, SHORT, "--players", "2"], "is for 3 to 5 players, not 2"),
    (["compare", HAGAKURE, "--b-option", "nope=1"], "error: unknown option 'nope'"),
    (["compare", HAGAKURE, "--agents", "human"], "error: compare plays automatic agents only"),
    (["compare", HAGAKURE, "--jobs", "x"], "Invalid value for '--jobs'"),
])
def test_bad_input_is_one_clear_message(args: list[str], message: str) -> None:
    result = run(*args)
    assert result.exit_code != 0
    assert isinstance(result.exception, SystemExit)  # no other exception escaped
    assert message in result.stderr
    assert "Traceback" not in result.output


def test_records_are_json_lines_for_pandas(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    assert run("simulate", HAGAKURE, "-n", "3", "--records", str(path)).exit_code == 0
    lines = path.read_text().splitlines()
    assert len(lines) == 3
    for line in lines:
        record = json.loads(line)
        assert set(record) >= {"game", "seed", "players", "agents", "scores", "breakdowns", "winners", "first",
                               "decisions", "turns", "rounds", "branching", "actions", "legal", "choices"}
        assert record["scores"] == [sum(b.values()) for b in record["breakdowns"]]
        assert sum(record["actions"].values()) == record["decisions"] == sum(record["choices"].values())
        assert not math.isnan(record["branching"]["sum"] / record["branching"]["count"])


def test_trigger_firings_are_the_game_s_not_an_agent_s_look_ahead(tmp_path: Path) -> None:
    # greedy tries every `take` on a copy of the game, which fires the trigger there too
    path = tmp_path / "games.jsonl"
    rules = str(ROOT / "tests" / "synthetic" / "triggers.rules")
    assert run("simulate", rules, "-n", "10", "--agents", "greedy", "--records", str(path)).exit_code == 0
    for r in records_of(path):
        assert r["triggers"]["moved into hand from river (triggers.rules:33)"] == r["actions"]["take"]


def test_only_a_program_compiled_for_statistics_counts_triggers() -> None:
    import ruleforge

    rules = ruleforge.load(UNUSED)
    assert "FIRED[" not in rules.program(2).source
    counted = rules.program(2, count_triggers=True)
    assert "FIRED[0] += 1" in counted.source
    assert "FIRED[1]" not in counted.source  # no move goes to the vault: that trigger is never compiled in
    assert counted is not rules.program(2)
