"""The compiled build (ruleforge/compiled/) is bounded like everything else a rules file can make
ruleforge do: a module whose generated source is past `compiled_source_bytes` is refused before
Cython sees it, and a build that runs past `build_seconds` is killed with every process it
started (cythonize's process, the C compiler, the compiler's own children). Either is an error
at the rules file naming the limit, never a warning that hides it nor a build that goes on.

The compile bomb here is the one docs/security.md describes: a phase calling the one before it
twice, 11 deep, is 2,048 copies of a three-line phase pasted in. `check` accepts it in a couple
of seconds and the ordinary build plays it at once; its generated source is larger than any
game's, and Cython and gcc would take minutes over it."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import ruleforge
from ruleforge import limits
from ruleforge.cli import main
from ruleforge.diagnostics import RulesError

pytest.importorskip("Cython")

from ruleforge import compiled  # noqa: E402
from ruleforge.compiled import _generators  # noqa: E402
from ruleforge.compiled.source import defined_names, extension_source, provided_names  # noqa: E402

ROOT = Path(__file__).parents[2]
TICTACTOE = ROOT / "games" / "tictactoe.rules"


def bomb(levels: int) -> str:
    """A small rules file whose generated code doubles with each level."""
    phases = [f"phase p{k} {{ p{k - 1} p{k - 1} }}" for k in range(1, levels + 1)]
    return "\n".join([
        'game "Bomb"', "players 2", "var x: int = 0", "var y per player: int = 0",
        "phase p0 { x += 1  y(first(players)) = x * 3 + count(players)  if x > 5 { x -= 2 } }", *phases,
        f"flow {{ p{levels}  turn first(players): go }}", 'action go "go" { x += 1 }', "ranking for p { x }", ""])


def source_size(rules: ruleforge.Rules, players: int) -> int:
    """Bytes of the source the compiled build would give Cython (as ruleforge/compiled/ writes it)."""
    program = rules.program(players, count_triggers=True)
    flow = _generators(program)
    modules = [program.module, *([flow] if flow is not None else [])]
    text, _ = extension_source(program.module, flow, provided_names(program.namespace, defined_names(*modules)))
    return len(text.encode())


@pytest.fixture
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty private cache, and a process that has not given up on building."""
    monkeypatch.setenv("RULEFORGE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(compiled, "_unavailable", None)
    return tmp_path / "cache"


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


def processes_naming(text: str) -> list[int]:
    """The processes whose command line holds `text` (this one left out)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if text in line:
                found.append(int(entry.name))
    return found


# --- the size of the source -----------------------------------------------------------------------


def test_a_compile_bomb_is_small_and_checked_but_its_source_is_larger_than_any_games(tmp_path: Path) -> None:
    path = tmp_path / "bomb.rules"
    path.write_text(bomb(11))
    assert path.stat().st_size < 600
    rules = ruleforge.load(path)
    rules.check_player_counts(trial_games=1)
    sizes = {game.stem: source_size(ruleforge.load(game), ruleforge.load(game).player_range[1])
             for game in sorted((ROOT / "games").glob("*.rules"))}
    assert source_size(rules, 2) > max(sizes.values()) > 200_000
    assert max(sizes.values()) * 5 < limits.Limits().compiled_source_bytes, sizes  # far within the default


def test_a_source_past_the_limit_is_refused_before_anything_is_built(tmp_path: Path, fresh: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "bomb.rules"
    path.write_text(bomb(6))
    size = source_size(ruleforge.load(path), 2)

    def no_build(*_args: object) -> None:
        raise AssertionError("built")

    monkeypatch.setattr(compiled, "_build", no_build)
    with limits.raised(compiled_source_bytes=size - 1), pytest.raises(RulesError) as caught:
        ruleforge.load(path).program(2, compiled=True)
    assert str(caught.value) == (
        f"{path}: error: the code generated for 2 players is {size:,} bytes, too large for the compiled build to "
        f"build (limit compiled_source_bytes = {size - 1:,}; raise it with RULEFORGE_MAX_COMPILED_SOURCE_BYTES); "
        "without --compiled it plays on the ordinary build")
    assert compiled._unavailable is None  # the rules file's doing: the next one is built as usual
    assert not fresh.exists() or not any(fresh.iterdir())


def test_simulate_compiled_reports_the_limit_and_plays_nothing(tmp_path: Path, fresh: Path) -> None:
    path = tmp_path / "bomb.rules"
    path.write_text(bomb(6))
    with limits.raised(compiled_source_bytes=1_000):
        result = CliRunner().invoke(main, ["simulate", str(path), "-n", "5", "--compiled", "--json"])
    assert result.exit_code == 1 and result.stdout == "" and "Traceback" not in result.output
    assert result.stderr.startswith(f"{path}: error: the code generated for 2 players is ")
    assert "(limit compiled_source_bytes = 1,000; raise it with RULEFORGE_MAX_COMPILED_SOURCE_BYTES)" in result.stderr


# --- the time of the build -------------------------------------------------------------------------

# A build that never ends, and starts a process that never ends either: it writes both ids to
# the file $FAKE_BUILD_PIDS (the build's first), then waits for ever.
FAKE_BUILD = """
import os, signal, subprocess, sys
child = subprocess.Popen([sys.executable, "-c", "import signal; signal.pause()"])
with open(os.environ["FAKE_BUILD_PIDS"], "w") as out:
    out.write(f"{os.getpid()} {child.pid}\\n")
signal.pause()
"""


def test_a_build_past_the_limit_is_killed_with_every_process_it_started(tmp_path: Path, fresh: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / "fake_build.py"
    script.write_text(FAKE_BUILD)
    pids = tmp_path / "pids"
    monkeypatch.setattr(compiled, "BUILD_SCRIPT", script)
    monkeypatch.setenv("FAKE_BUILD_PIDS", str(pids))
    with limits.raised(build_seconds=3), pytest.raises(RulesError) as caught:
        ruleforge.load(TICTACTOE).program(2, compiled=True)
    assert str(caught.value) == (
        f"{TICTACTOE}: error: building the compiled build for 2 players took more than 3 seconds, and was stopped "
        "(limit build_seconds = 3; raise it with RULEFORGE_MAX_BUILD_SECONDS); without --compiled it plays on the "
        "ordinary build")
    started = [int(pid) for pid in pids.read_text().split()]  # the build had started its child
    assert len(started) == 2
    assert all(ended(pid) for pid in started)
    assert [entry.name for entry in fresh.iterdir()] == []  # no build folder left behind
    assert compiled._unavailable is None


def test_a_real_build_past_the_limit_stops_and_leaves_nothing(fresh: Path) -> None:
    """Tic-Tac-Toe takes Cython and gcc seconds: a limit of one second stops it midway."""
    with limits.raised(build_seconds=1), pytest.raises(RulesError, match="took more than 1 second, and was stopped"):
        ruleforge.load(TICTACTOE).program(2, compiled=True)
    assert all(ended(pid) for pid in processes_naming(str(fresh)))
    assert [entry.name for entry in fresh.iterdir()] == []


# A program building Tic-Tac-Toe that says its build process's id as soon as it has one.
TELLING_BUILDER = """
import subprocess, sys
import ruleforge

class Told(subprocess.Popen):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        print(self.pid, flush=True)

subprocess.Popen = Told
ruleforge.load(sys.argv[1]).program(2, compiled=True)
"""


def test_a_build_ends_when_ruleforge_is_killed(tmp_path: Path, fresh: Path) -> None:
    """SIGKILL leaves ruleforge no time to end its build: the build, in a process group of its
    own, sees its pipe from ruleforge end and kills its group itself. Its C compiler here never
    ends: a build left behind would run for ever."""
    cc = tmp_path / "cc"
    cc.write_text(f'#!/bin/sh\nexec "{sys.executable}" -c "import signal; signal.pause()"\n')
    cc.chmod(0o755)
    env = dict(os.environ, PYTHONPATH=str(ROOT), CC=str(cc))
    build = None
    with subprocess.Popen([sys.executable, "-c", TELLING_BUILDER, str(TICTACTOE)], env=env, stdout=subprocess.PIPE,
                          text=True) as builder:
        try:
            build = int(builder.stdout.readline())
        finally:
            builder.kill()
    try:
        assert ended(build)
        assert all(ended(pid) for pid in processes_naming(str(fresh)))
    finally:  # the test ends what it started, should the build have outlived ruleforge
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(build, signal.SIGKILL)
    left = [entry.name for entry in fresh.iterdir()]  # only the build folder, which its builder would have removed
    assert all(name.startswith(".build-") for name in left), left


@pytest.mark.slow
def test_a_c_compiler_past_the_limit_is_killed_with_its_children(tmp_path: Path, fresh: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The real build (build.py: cythonize, then setuptools runs $CC), with a C compiler that
    starts a child of its own and never ends: the whole group goes, three levels down."""
    pids = tmp_path / "pids"
    cc = tmp_path / "cc"
    cc.write_text(f'#!/bin/sh\necho $$ >> "{pids}"\n'
                  f'"{sys.executable}" -c "import os, signal; open(\'{pids}\', \'a\').write(f\'{{os.getpid()}}\\n\'); '
                  'signal.pause()" &\nwait\n')
    cc.chmod(0o755)
    monkeypatch.setenv("CC", str(cc))
    with limits.raised(build_seconds=25), pytest.raises(RulesError, match="took more than 25 seconds"):
        ruleforge.load(ROOT / "tests" / "synthetic" / "nim.rules").program(2, compiled=True)
    started = [int(pid) for pid in pids.read_text().split()]
    assert len(started) == 2, "the C compiler had not started within the limit"
    assert all(ended(pid) for pid in started)
    assert [entry.name for entry in fresh.iterdir()] == []
