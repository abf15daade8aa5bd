"""The native engine's build (ruleforge/native/build.py, bounds.py) is bounded like everything else
a rules file can make ruleforge do: a C source past `compiled_source_bytes` is refused before the
compiler sees it, and a build that runs past `build_seconds` is killed with every process it
started (the build process, the C compiler, the compiler's own children). Either is the rules
file's doing: the refusal names the limit, those rules play on the reference engine, and the
next rules file is built as usual.

The compile bomb here is the one docs/security.md describes: a phase calling the one before it
twice, 11 deep, is 2,048 copies of a four-statement phase pasted in. `check` accepts it in a couple
of seconds and the reference engine plays it at once; its C source is larger than any game's.

tests/test_native_build.py has the bounds of `load_native` itself, on small stand-in sources."""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

import ruleforge
from ruleforge import limits
from ruleforge.cli import main
from ruleforge.flowplay import flow_main
from ruleforge.native import NativeEngineWarning, build
from ruleforge.native.ctree import emit
from ruleforge.native.engine import NativeRefused, native_engine
from ruleforge.native.game import NativeGame
from ruleforge.native.lower import lower

ROOT = Path(__file__).parents[2]
TICTACTOE = ROOT / "games" / "tictactoe.rules"

needs_cc = pytest.mark.skipif(
    not any(shutil.which(cc) for cc in ("cc", "gcc", "clang"))
    or not (Path(sysconfig.get_paths()["include"]) / "Python.h").is_file(),
    reason="no C compiler or no Python headers")
pytestmark = pytest.mark.skipif(not hasattr(os, "pidfd_open") or os.name == "nt",
                                reason="waits for processes on a pidfd and kills process groups (Linux)")


def bomb(levels: int) -> str:
    """A small rules file whose generated code doubles with each level."""
    phases = [f"phase p{k} {{ p{k - 1} p{k - 1} }}" for k in range(1, levels + 1)]
    return "\n".join([
        'game "Bomb"', "players 2", "var x: int = 0", "var y per player: int = 0",
        "phase p0 { x += 1  y(first(players)) = x * 3  if x > 5 { x -= 2 }  "
        "if y(first(players)) > 7 { y(first(players)) -= x } }", *phases,
        f"flow {{ p{levels}  turn first(players): go }}", 'action go "go" { x += 1 }', "ranking for p { x }", ""])


def source_size(rules: ruleforge.Rules, players: int) -> int:
    """Bytes of the C source the native engine gives the compiler for these rules."""
    program = rules.program(players)
    flow_main(program)  # as native_engine does: the generator back end's verdict first
    return len(emit(lower(program).unit).encode())


@pytest.fixture
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty private cache, and a process that has not given up on building."""
    monkeypatch.setenv("RULEFORGE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(build, "_unavailable", None)
    return tmp_path / "cache"


@pytest.fixture
def groups(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The process ids of the builds started in this process: each leads a process group."""
    started: list[int] = []
    real = subprocess.Popen

    class Told(real):  # type: ignore[misc, valid-type]
        def __init__(self, args, *rest, **kwargs) -> None:
            super().__init__(args, *rest, **kwargs)
            if "ruleforge.native.build" in list(args):
                started.append(self.pid)

    monkeypatch.setattr(subprocess, "Popen", Told)
    return started


def ended(pid: int, within: float = 60.0) -> bool:
    """Whether process `pid` has ended (or ends within `within` seconds: a process killed with
    SIGKILL may take a moment to go); waited for on a pidfd, never by sleeping."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([fd], [], [], within)[0])
    finally:
        os.close(fd)


def group_ended(group: int, within: float = 60.0) -> bool:
    """Whether no process of process group `group` is left (or none is within `within` seconds)."""
    deadline = time.monotonic() + within
    while True:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


def slow_cc(tmp_path: Path, pids: Path) -> Path:
    """A C compiler that says its version, then starts a child of its own and never ends; both
    write their process ids to `pids`."""
    cc = tmp_path / "cc"
    cc.write_text('#!/bin/sh\nif [ "$1" = --version ]; then echo "never 1.0"; exit 0; fi\n'
                  f'echo $$ >> "{pids}"\n'
                  f'"{sys.executable}" -c "import os, signal; open(\'{pids}\', \'a\').write(f\'{{os.getpid()}}\\n\'); '
                  'signal.pause()" &\nwait\n')
    cc.chmod(0o755)
    return cc


# --- the size of the source -----------------------------------------------------------------------


def test_a_compile_bomb_is_small_and_checked_but_its_source_is_larger_than_any_games(tmp_path: Path) -> None:
    path = tmp_path / "bomb.rules"
    path.write_text(bomb(11))
    assert path.stat().st_size < 600
    rules = ruleforge.load(path)
    rules.check_player_counts(trial_games=1)
    sizes = {}
    for game in sorted((ROOT / "games").glob("*.rules")):
        loaded = ruleforge.load(game)
        with contextlib.suppress(Exception):  # a game that does not lower (Sushi Go) builds nothing
            sizes[game.stem] = source_size(loaded, loaded.player_range[1])
    assert len(sizes) >= 8, sizes
    assert source_size(rules, 2) > max(sizes.values()) * 1.3 > 100_000
    assert max(sizes.values()) * 3 < limits.Limits().compiled_source_bytes, sizes  # far within the default


@needs_cc
def test_a_source_past_the_limit_is_refused_before_anything_is_built(tmp_path: Path, fresh: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "bomb.rules"
    path.write_text(bomb(6))
    size = source_size(ruleforge.load(path), 2)

    def no_build(*_args: object) -> None:
        raise AssertionError("built")

    with monkeypatch.context() as patch, limits.raised(compiled_source_bytes=size - 1):
        patch.setattr(build, "_build", no_build)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            game = ruleforge.load(path).new_game(2, seed=1, engine="native")
    assert [str(w.message) for w in caught if issubclass(w.category, NativeEngineWarning)] == [
        f"the code generated for 2 players is {size:,} bytes, too large for the native engine to build (limit "
        f"compiled_source_bytes = {size - 1:,}; raise it with RULEFORGE_MAX_COMPILED_SOURCE_BYTES); playing "
        "on the reference engine"]
    assert not isinstance(game, NativeGame) and game.legal_actions()
    assert not fresh.exists() or not any(fresh.iterdir())
    assert build._unavailable is None  # the rules file's doing: the next one is built as usual
    assert isinstance(ruleforge.load(TICTACTOE).new_game(2, engine="native"), NativeGame)


def test_simulate_says_the_limit_and_plays_on_the_reference_engine(tmp_path: Path, fresh: Path) -> None:
    path = tmp_path / "bomb.rules"
    path.write_text(bomb(6))
    with limits.raised(compiled_source_bytes=1_000):
        result = CliRunner().invoke(main, ["simulate", str(path), "-n", "5", "--engine", "native", "--json"])
    assert result.exit_code == 0 and "Traceback" not in result.output, result.output
    assert [line for line in result.stderr.splitlines() if line.strip()] == [
        f"note: the native engine counts no games here (the code generated for 2 players is "
        f"{source_size(ruleforge.load(path), 2):,} bytes, too large for the native engine to build (limit "
        "compiled_source_bytes = 1,000; raise it with RULEFORGE_MAX_COMPILED_SOURCE_BYTES)): playing "
        "on the reference engine"]
    assert '"games": 5' in result.stdout


# --- the time of the build -------------------------------------------------------------------------


def test_a_build_past_the_limit_is_killed_with_every_process_it_started(tmp_path: Path, fresh: Path,
                                                                         groups: list[int],
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The build process runs the compiler, which starts a child of its own and never ends: the
    whole group goes, three levels down."""
    pids = tmp_path / "pids"
    monkeypatch.setenv("CC", str(slow_cc(tmp_path, pids)))
    with limits.raised(build_seconds=3), pytest.raises(NativeRefused) as caught:
        native_engine(ruleforge.load(TICTACTOE).program(2))
    assert str(caught.value) == (
        "building the native engine for 2 players took more than 3 seconds, and was stopped (limit build_seconds = "
        "3; raise it with RULEFORGE_MAX_BUILD_SECONDS)")
    started = [int(pid) for pid in pids.read_text().split()]  # the compiler had started its child
    assert len(started) == 2 and len(groups) == 1
    assert all(ended(pid) for pid in [*groups, *started]) and group_ended(groups[0])
    assert [entry.name for entry in fresh.iterdir()] == []  # no build folder left behind
    assert build._unavailable is None


@needs_cc
def test_a_real_build_past_the_limit_stops_and_leaves_nothing(fresh: Path, groups: list[int]) -> None:
    """Naishi with Legends, the largest C source of the games here, takes the C compiler seconds:
    a limit of one second stops it midway, the compiler's own processes (cc1, as) with it."""
    program = ruleforge.load(ROOT / "games" / "naishi_legends.rules").program(2)
    with limits.raised(build_seconds=1), pytest.raises(NativeRefused, match="took more than 1 second, and was stopped"):
        native_engine(program)
    assert len(groups) == 1 and group_ended(groups[0])
    assert [entry.name for entry in fresh.iterdir()] == []


# A program building Tic-Tac-Toe natively that says its build process's id as soon as it has one.
TELLING_BUILDER = """
import subprocess, sys
import ruleforge

class Told(subprocess.Popen):
    def __init__(self, args, *rest, **kwargs):
        super().__init__(args, *rest, **kwargs)
        if "ruleforge.native.build" in list(args):
            print(self.pid, flush=True)

subprocess.Popen = Told
ruleforge.load(sys.argv[1]).new_game(2, engine="native")
"""


def test_a_build_ends_when_ruleforge_is_killed(tmp_path: Path, fresh: Path) -> None:
    """SIGKILL leaves ruleforge no time to end its build: the build, in a process group of its
    own, sees its pipe from ruleforge end and kills its group itself. Its C compiler here never
    ends: a build left behind would run for ever."""
    pids = tmp_path / "pids"
    env = dict(os.environ, PYTHONPATH=str(ROOT), CC=str(slow_cc(tmp_path, pids)))
    group = None
    with subprocess.Popen([sys.executable, "-c", TELLING_BUILDER, str(TICTACTOE)], env=env, stdout=subprocess.PIPE,
                          text=True) as builder:
        try:
            group = int(builder.stdout.readline())
            deadline = time.monotonic() + 60
            while len(pids.read_text().split() if pids.exists() else []) < 2 and time.monotonic() < deadline:
                time.sleep(0.05)  # until the compiler has started its child
        finally:
            builder.kill()
    try:
        assert ended(group) and group_ended(group)
        assert all(ended(int(pid)) for pid in pids.read_text().split())
    finally:  # the test ends what it started, should the build have outlived ruleforge
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signal.SIGKILL)
    left = [entry.name for entry in fresh.iterdir()]  # only the build folder, which its builder would have removed
    assert all(name.startswith(".build-") for name in left), left
