"""`simulate -n N` in memory that does not grow with N (issue 20): the statistics are counted as
games end and `--records` streams its lines to a temporary file renamed at the end, which
nothing that stops the command early leaves behind."""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from stopping import GUARD, ruleforge_child_ready_after_a_game, wait_until

from ruleforge import GameError
from ruleforge.balance import runner
from ruleforge.balance.intervals import mean_interval
from ruleforge.balance.stats import QUANTILES, Values, quantile, quantiles
from ruleforge.cli import common, main
from ruleforge.cli import simulate as simulate_module

ROOT = Path(__file__).parents[1]
HAGAKURE = str(ROOT / "games" / "hagakure.rules")
QUICK = str(ROOT / "tests" / "synthetic" / "unexercised.rules")  # a game of a few decisions

# `python -c PEAK ARGS...`: runs ARGS and prints the child's peak resident memory (KiB on Linux).
PEAK = """
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def temporary_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


# --- memory --------------------------------------------------------------------------------------


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss in KiB, as Linux gives it")
def test_peak_memory_does_not_grow_with_the_number_of_games(tmp_path: Path) -> None:
    """Ten times the games, the same peak: 18,000 more records kept (the old way) came to
    about 85 MB here, far more than the allowance for the noise of the allocator."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    peaks = {}
    for games in (2_000, 20_000):
        records = tmp_path / f"{games}.jsonl"
        command = [sys.executable, "-m", "ruleforge", "simulate", QUICK, "-n", str(games), "--json",
                   "--records", str(records)]
        proc = subprocess.run([sys.executable, "-c", PEAK, *command], env=env, cwd=ROOT, capture_output=True,
                              text=True, timeout=GUARD)
        assert proc.returncode == 0, proc.stderr[-2000:]
        peaks[games] = int(proc.stdout)
        assert len(records.read_text().splitlines()) == games
    assert peaks[20_000] - peaks[2_000] < 10 * 1024, peaks


def test_values_give_the_statistics_of_the_list() -> None:
    """Counts of each value in place of the list: the same floats, bit for bit."""
    data = [3, 7, 7, 1, 12, 7, 3, 0, 5, 5, 9, 7, 2, 11]
    values = Values(data)
    assert len(values) == len(data) and len(values.counts) == 9
    assert (statistics.fmean(values), statistics.stdev(values)) == (statistics.fmean(data), statistics.stdev(data))
    assert mean_interval(values) == mean_interval(data)
    assert quantiles(values) == {name: quantile(sorted(data), q) for name, q in QUANTILES.items()}
    assert [values.ordered()[i] for i in range(len(data))] == sorted(data)


# --- --records, streamed -------------------------------------------------------------------------


def test_records_file_holds_each_game_record_a_line(tmp_path: Path) -> None:
    """The file is what the records were always written as: one compact JSON line each, in seed order."""
    path = tmp_path / "r.jsonl"
    result = run("simulate", HAGAKURE, "-n", "12", "--seed", "3", "--jobs", "2", "--records", str(path))
    assert result.exit_code == 0, result.output
    rules = runner.rules_for(HAGAKURE)
    runner.remember(HAGAKURE, rules)
    batch = runner.Batch(HAGAKURE, 3, {}, "random,random,random")
    expected = "".join(json.dumps(r, separators=(",", ":")) + "\n" for _, r in runner.outcomes(batch, 3, 12))
    assert path.read_text() == expected
    assert temporary_files(tmp_path) == []


def test_ctrl_c_in_the_batch_keeps_the_games_finished(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real, played = runner.play_game, []

    def play_game(*args: Any) -> Any:
        played.append(1)
        if len(played) == 4:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(runner, "play_game", play_game)
    path = tmp_path / "r.jsonl"
    result = run("simulate", HAGAKURE, "-n", "50", "--records", str(path), "--json")
    assert result.exit_code == 130
    assert [json.loads(line)["seed"] for line in path.read_text().splitlines()] == [0, 1, 2]
    assert temporary_files(tmp_path) == []


@pytest.mark.parametrize("stop", [GameError("the summary failed"), KeyboardInterrupt()])
def test_a_failure_after_the_games_leaves_the_old_records_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               stop: BaseException) -> None:
    """Written whole or not at all: the records of a run that fails never replace the last ones."""
    path = tmp_path / "r.jsonl"
    assert run("simulate", HAGAKURE, "-n", "2", "--records", str(path)).exit_code == 0
    before = path.read_bytes()

    def summary_of(*args: Any) -> Any:
        raise stop

    monkeypatch.setattr(simulate_module, "summary_of", summary_of)
    result = run("simulate", HAGAKURE, "-n", "5", "--seed", "9", "--records", str(path))
    assert result.exit_code == (130 if isinstance(stop, KeyboardInterrupt) else 1)
    assert path.read_bytes() == before
    assert temporary_files(tmp_path) == []


class FullDisk:
    """A file on a disk that fills up at the third write."""

    def __init__(self, file: Any) -> None:
        self.file, self.writes = file, 0

    def write(self, text: str) -> int:
        self.writes += 1
        if self.writes == 3:
            raise OSError(28, "No space left on device")
        return self.file.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.file, name)


def test_a_records_file_that_cannot_be_written_stops_the_batch(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    real, files = common.AtomicFile.__init__, []

    def init(self: common.AtomicFile, *args: Any) -> None:
        real(self, *args)
        self.file = FullDisk(self.file)
        files.append(self.file)

    monkeypatch.setattr(common.AtomicFile, "__init__", init)
    path = tmp_path / "r.jsonl"
    result = run("simulate", HAGAKURE, "-n", "50", "--records", str(path))
    assert result.exit_code == 1
    assert result.stderr == f"error: cannot write records file '{path}': No space left on device\n"
    assert files[0].writes == 3  # the batch stopped at the line that failed
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_terminated_while_streaming_records_leaves_no_temporary_file(tmp_path: Path, jobs: str) -> None:
    """SIGTERM half-way through a million games: the lines were on their way to disk (the
    temporary file has grown), and the process exits 143 having removed it."""
    ready, path = tmp_path / "played", tmp_path / "r.jsonl"
    with ruleforge_child_ready_after_a_game(ready, "simulate", HAGAKURE, "-n", "1000000", "--jobs", jobs,
                                            "--records", str(path)) as proc:
        wait_until(lambda: any(p.stat().st_size > 0 for p in tmp_path.glob(".r.jsonl.*.tmp")), proc,
                   "records were streamed to the temporary file")
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=GUARD)
    assert proc.returncode == 143, err
    assert "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["played"]
