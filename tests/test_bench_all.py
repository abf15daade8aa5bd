"""bench/bench_all.py and bench/differential.py run, with tiny counts, and say what they measure."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from baselines import load_baseline

import ruleforge

ROOT = Path(__file__).parents[1]


@pytest.fixture()
def bench_path():
    sys.path.insert(0, str(ROOT / "bench"))
    yield
    sys.path.remove(str(ROOT / "bench"))


def test_the_table_has_every_measure_and_its_ratio(bench_path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_baseline("bench_all")
    assert bench.main(["--only", "tictactoe", "--only", "naishi_legends", "--scale", "0.002", "--repeat", "2",
                       "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["target"] == 1.0 and result["config"]["threads"] == 1
    legends, small = result["results"]  # in the order of the table
    assert (small["game"], small["players"], legends["game"]) == ("Tic-Tac-Toe", 2, "Naishi with Legends")
    for name in ("hand_written", "public_api", "simulate", "block_machine", "api_loop_alone"):
        assert len(small[name]["runs_s"]) == 2 and small[name]["games_per_s"] > 0
    # the loop alone takes the engine's decisions, no more and no fewer (speed is not asserted)
    assert small["api_loop_alone"]["decisions"] == small["public_api"]["decisions"] > 0
    ratio = small["public_api"]["games_per_s"] / small["hand_written"]["games_per_s"]
    assert small["public_api"]["ratio"] == pytest.approx(ratio)
    assert "hand_written" not in legends and "ratio" not in legends["public_api"]
    assert bench.main(["--only", "tictactoe", "--scale", "0.002", "--repeat", "1"]) == 0
    text = capsys.readouterr().out
    assert "Tic-Tac-Toe" in text and "hand-written" in text and "target 1.0x" in text and "API loop alone" in text


@pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None, reason="no C compiler")
def test_the_native_measures_and_ludii(bench_path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("RULEFORGE_CACHE", str(tmp_path / "cache"))  # built here, never in the user's cache
    bench = load_baseline("bench_all")
    assert bench.main(["--native", "--scale", "0.01", "--repeat", "1", "--only", "tictactoe", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["native_simulate_target"], result["native_api_target"], result["ludii_target"]) == (5.0, 1.0, 10.0)
    (small,) = result["results"]
    hand = small["hand_written"]["games_per_s"]
    for name in ("native_simulate", "native_api"):
        figures = small[name]
        assert figures["games_per_s"] > 0 and figures["ratio"] == pytest.approx(figures["games_per_s"] / hand)
        assert figures["build_or_import_s"] == small["native_build_or_import_s"] > 0
    native = small["native_simulate"]
    assert native["games_per_run"] == 50 * small["games_per_run"] and native["over_simulate"] > 0
    assert small["native_api"]["decisions"] == small["public_api"]["decisions"]  # the same games, through C
    assert small["ludii"]["published_playouts_per_s"] == 131_855
    assert small["ludii"]["native_simulate_over_ludii"] == pytest.approx(native["games_per_s"] / 131_855)
    assert "not_native" not in small and "native_failed" not in small
    assert bench.main(["--native", "--scale", "0.01", "--repeat", "1", "--only", "tictactoe"]) == 0
    text = capsys.readouterr().out
    assert "native simulate (x simulate)" in text and "target 5.0x" in text and "native API (x public API)" in text
    assert "Tic-Tac-Toe: Ludii 131,855/s; native simulate " in text and "1 thread" in text


def test_a_refusal_is_named_in_the_cells(bench_path) -> None:
    bench = load_baseline("bench_all")
    why = ("the native engine does not run a loop over an item of V yet "
           "(made for the rule at games/nakasendo.rules:1:1)")
    cells = bench.native_cells({"not_native": {"native_simulate": why, "native_api": why},
                                "native_build_or_import_s": 0.5})
    assert cells == ("not native: does not run a loop over an item of V yet", "-") * 2 + ("-",)
    assert bench.shortened("x" * 60) == "x" * 41 + "..."


def test_the_loop_alone_takes_the_engines_decisions(bench_path) -> None:
    bench = load_baseline("bench_all")
    rules = ruleforge.load(ROOT / "games" / "tictactoe.rules")
    new_game = bench.idle_games(rules, 2, 5, 100)
    _, engine_decisions = bench.run_engine_api(rules, 2, 5, 100)
    _, idle_decisions = bench.run_engine_api(rules, 2, 5, 100, new_game)
    assert idle_decisions == engine_decisions and 5 * 5 <= idle_decisions <= 5 * 9
    assert 1 <= len(new_game(100).legal_actions()) <= 9


def test_a_bad_option_is_one_line(bench_path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = load_baseline("bench_all")
    with pytest.raises(SystemExit) as stop:
        bench.main(["--only", "chess"])
    assert stop.value.code == 2 and "no such game" in capsys.readouterr().err


def test_the_differential_command_compares_and_reports(bench_path, capsys: pytest.CaptureFixture[str]) -> None:
    differential = load_baseline("differential")
    assert differential.main(["--games", "4", str(ROOT / "games" / "tictactoe.rules"),
                              str(ROOT / "games" / "sushi_go.rules")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:4] == ["tictactoe", "2p", "4", "games"] and lines[0].endswith("the same")
    assert all("block machine only" in line for line in lines[1:]) and len(lines) == 5


@pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None, reason="no C compiler")
def test_the_differential_command_holds_the_native_engine_to_the_reference(
        bench_path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("RULEFORGE_CACHE", str(tmp_path))
    differential = load_baseline("differential")
    assert differential.main(["--engine", "native", "--games", "6", str(ROOT / "games" / "connect_four.rules"),
                              str(ROOT / "games" / "sushi_go.rules")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:4] == ["connect_four", "2p", "6", "games"] and lines[0].endswith("the same")
    assert all("block machine only" in line for line in lines[1:]) and len(lines) == 5
