"""The opt-in compiled build (ruleforge/compiled/): the same games as the ordinary build,
decision by decision; built once and imported from a private cache after; without Cython or a
C compiler, one warning and the ordinary build.

Building a module takes the C compiler seconds (Tic-Tac-Toe) to most of a minute (Naishi), so
few are built: the larger games' comparison is marked `slow`."""

from __future__ import annotations

import os
import random
import stat
import subprocess
import sys
import warnings
from pathlib import Path

import attrs
import pytest

import ruleforge
from ruleforge.cli import main
from ruleforge.testing.backends import compare_backends

pytest.importorskip("Cython")

from click.testing import CliRunner  # noqa: E402

from ruleforge import compiled  # noqa: E402
from ruleforge.compiled import CompiledBuildWarning  # noqa: E402

ROOT = Path(__file__).parents[1]
TICTACTOE = str(ROOT / "games" / "tictactoe.rules")


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One private cache for the module's tests: each module is built once in this file."""
    folder = tmp_path_factory.mktemp("compiled") / "cache"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RULEFORGE_CACHE", str(folder))
        yield folder


@pytest.fixture
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache, and a process that has not yet given up on building."""
    monkeypatch.setenv("RULEFORGE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(compiled, "_unavailable", None)
    return tmp_path / "cache"


def _same_games(stem: str, players: int, seeds: int) -> None:
    rules = ruleforge.load(str(ROOT / "games" / f"{stem}.rules"))
    plain = rules.program(players)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CompiledBuildWarning)
        built = rules.program(players, compiled=True)
    assert built.native is not None and built.flow is not None
    choices = random.Random(players)
    for seed in range(seeds):  # each back end of the compiled build against the other's ordinary one
        compare_backends(plain, seed, choices, flow_program=built)
        compare_backends(built, seed, choices, flow_program=plain)


def _exec_made(value: object, depth: int = 2) -> list[str]:
    """The functions `exec` made from generated code inside `value` (lists, tuples, dicts)."""
    code = getattr(value, "__code__", None)
    if code is not None and code.co_filename.startswith("<ruleforge:"):
        return [code.co_name]
    if depth == 0 or isinstance(value, str):
        return []
    items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else ()
    return [name for item in items for name in _exec_made(item, depth - 1)]


def test_compiled_tictactoe_plays_the_same_games(cache: Path) -> None:
    _same_games("tictactoe", 2, 60)
    program = ruleforge.load(TICTACTOE).program(2, compiled=True)
    left = [name for field in attrs.fields(type(program)) if field.name not in ("compiler", "model", "module")
            for name in _exec_made(getattr(program, field.name))]
    assert left == []  # every function the program holds (blocks, legal, labels, scorings, generators) is built
    assert stat.S_IMODE(os.stat(cache).st_mode) == 0o700
    for built in cache.iterdir():
        assert not os.stat(built).st_mode & (stat.S_IWGRP | stat.S_IWOTH)


@pytest.mark.slow
@pytest.mark.parametrize(("stem", "players"), [("naishi", 2), ("hagakure", 3)])
def test_compiled_larger_games_play_the_same_games(cache: Path, stem: str, players: int) -> None:
    _same_games(stem, players, 12)


def test_a_built_module_is_imported_without_building(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ruleforge.load(TICTACTOE).program(2, compiled=True)  # built (or already built) here

    def no_build(*_args: object) -> None:
        raise AssertionError("built again")

    monkeypatch.setattr(compiled, "_build", no_build)
    rules = ruleforge.load(TICTACTOE)  # the same rules once more: the same module, imported again
    game = rules.new_game(2, seed=3, compiled=True)
    assert game.program.native is not None
    assert game.program.native is not ruleforge.load(TICTACTOE).program(2, compiled=True).native  # one each
    plain = rules.new_game(2, seed=3)
    while not game.is_over:
        game.apply(game.legal_actions()[0])
        plain.apply(plain.legal_actions()[0])
    assert game.digest() == plain.digest()


def test_a_rule_failing_in_a_compiled_game_is_told_at_its_rule(cache: Path, tmp_path: Path) -> None:
    path = tmp_path / "c.rules"
    path.write_text('game "c"\nplayers 2\nvar items: list of int\naction b "b" { log "{count(items)}" }\n'
                    'action c "c" { }\nflow { turn first(players): c  turn first(players): b }\n')
    told = []
    for build in (False, True):
        game = ruleforge.load(path).new_game(2, seed=0, compiled=build)
        game.apply(game.legal_actions()[0])
        with pytest.raises(ruleforge.GameError) as caught:
            game.apply(game.legal_actions()[0])
        told.append(str(caught.value))
    assert told[0] == told[1] and told[1].startswith(f"{path}:4:")


def test_two_processes_building_the_same_module_at_once(fresh: Path) -> None:
    script = ("import warnings, ruleforge; warnings.simplefilter('error');"
              f"print(ruleforge.load({TICTACTOE!r}).program(2, compiled=True).native is not None)")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    builders = [subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [builder.communicate(timeout=600) for builder in builders]
    assert [out for out, _err in outputs] == ["True\n", "True\n"], outputs
    from ruleforge.compiled.cache import SUFFIX

    built = list(fresh.iterdir())  # one module, and no build folder left behind
    assert len(built) == 1 and built[0].name.startswith("rf_") and built[0].name.endswith(SUFFIX)


def test_without_a_c_compiler_one_warning_and_the_ordinary_build(fresh: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CC", "/nonexistent/cc")
    rules = ruleforge.load(TICTACTOE)
    with pytest.warns(CompiledBuildWarning, match="not available .*building it failed") as caught:
        game = rules.new_game(2, seed=1, compiled=True)
        rules.program(2, count_triggers=True, compiled=True)  # not tried again, not said again
    assert len(caught) == 1
    assert game.program.native is None
    plain = ruleforge.load(TICTACTOE).new_game(2, seed=1)
    while not game.is_over:
        game.apply(game.legal_actions()[-1])
        plain.apply(plain.legal_actions()[-1])
    assert game.digest() == plain.digest()


def test_without_cython_one_warning_naming_the_extra(fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "Cython", None)  # import Cython raises ImportError
    with pytest.warns(CompiledBuildWarning, match=r"pip install 'ruleforge\[compiled\]'"):
        assert ruleforge.load(TICTACTOE).program(2, compiled=True).native is None


def test_a_cache_folder_others_may_write_is_not_used(fresh: Path) -> None:
    fresh.mkdir(mode=0o700)
    fresh.chmod(0o777)
    with pytest.warns(CompiledBuildWarning, match="no private cache folder"):
        assert ruleforge.load(TICTACTOE).program(2, compiled=True).native is None


def test_a_module_in_the_cache_that_others_may_write_is_not_imported(fresh: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from ruleforge.compiled import cache as compiled_cache

    fresh.mkdir(mode=0o700)
    imported: list[Path] = []
    monkeypatch.setattr(compiled_cache, "_import", lambda path, name: imported.append(path))
    monkeypatch.setattr(compiled, "_build", lambda *args: None)  # builds nothing: the planted file stays
    monkeypatch.setattr(compiled_cache, "module_name", lambda *args: "rf_planted")
    planted = compiled_cache.built_path(fresh, "rf_planted")
    planted.write_bytes(b"not a module")
    planted.chmod(0o666)
    with pytest.warns(CompiledBuildWarning, match="could not be imported"):
        assert ruleforge.load(TICTACTOE).program(2, compiled=True).native is None
    assert imported == []


def test_simulate_compiled_without_a_compiler_warns_once_and_plays(fresh: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CC", "/nonexistent/cc")
    result = CliRunner().invoke(main, ["simulate", TICTACTOE, "-n", "20", "--compiled", "--json"])
    assert result.exit_code == 0, result.output
    warned = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    assert len(warned) == 1 and "compiled build is not available" in warned[0]
    assert result.stderr.startswith("note: building the compiled build for 2 players")  # a first build is said
    assert "Traceback" not in result.output
    plain = CliRunner().invoke(main, ["simulate", TICTACTOE, "-n", "20", "--json"])
    assert _without_timing(result.stdout) == _without_timing(plain.stdout)


def test_simulate_compiled_gives_the_same_statistics(cache: Path) -> None:
    runs = [CliRunner().invoke(main, ["simulate", TICTACTOE, "-n", "50", "--json", *flag])
            for flag in ((), ("--compiled",))]
    assert all(run.exit_code == 0 for run in runs), runs[1].output
    assert "warning" not in runs[1].stderr
    assert _without_timing(runs[0].stdout) == _without_timing(runs[1].stdout)


def _without_timing(text: str) -> list[str]:
    return [line for line in text.splitlines() if '"seconds"' not in line and '"games_per_second"' not in line]
