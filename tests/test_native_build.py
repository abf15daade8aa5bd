"""Building the native engine's C source (ruleforge/native/build.py): built once into a private
cache and imported after, a failure said in a few words, and bounded in size and time
(tests/security/test_build_bounds.py has more of the bounds).

The sources here include small stand-ins for the runtime (tests/native_build_fixtures/): a source
defines `rf_answer`, and the glue exports it as the module's `answer`."""

from __future__ import annotations

import os
import select
import shutil
import sys
import sysconfig
from pathlib import Path

import pytest

from ruleforge import limits
from ruleforge.native import build
from ruleforge.native.bounds import BuildTooLarge, BuildTooLong
from ruleforge.native.build import NativeUnavailable, load_native

FIXTURES = Path(__file__).with_name("native_build_fixtures")
SIX = '#include "rf_runtime.h"\nstatic int64_t rf_answer(int64_t x) { return x * 6 + 1; }\n#include "rf_module.c"\n'
SEVEN = SIX.replace("x * 6", "x * 7")
BROKEN = SIX.replace("x * 6 + 1", "x * ")

needs_cc = pytest.mark.skipif(
    not any(shutil.which(cc) for cc in ("cc", "gcc", "clang"))
    or not (Path(sysconfig.get_paths()["include"]) / "Python.h").is_file(),
    reason="no C compiler or no Python headers")


@pytest.fixture
def builds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[None]:
    """An empty private cache, a process that has not given up on building, and the builds
    started (one None each, told by the on_build hook)."""
    monkeypatch.setenv("RULEFORGE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(build, "_unavailable", None)
    started: list[None] = []
    monkeypatch.setattr(build, "on_build", lambda: started.append(None))
    return started


def native(source: str) -> object:
    return load_native(source, 2, include_dir=FIXTURES)


def ended(pid: int, within: float = 60.0) -> bool:
    """Whether process `pid` has ended, or ends within `within` seconds (awaited on a pidfd)."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([fd], [], [], within)[0])
    finally:
        os.close(fd)


@needs_cc
def test_a_source_is_built_once_and_imported_from_the_cache_after(builds: list[None], tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    module = native(SIX)
    assert module.answer(7) == 43 and len(builds) == 1
    assert module.__name__.startswith("rfn_")
    assert sorted(path.name for path in (tmp_path / "cache").iterdir()) == [Path(module.__file__).name]

    def no_build(*_args: object) -> None:
        raise AssertionError("the compiler was run")

    monkeypatch.setattr(build, "run_bounded", no_build)
    again = native(SIX)
    assert again.answer(-1) == -5 and again.__name__ == module.__name__ and len(builds) == 1


@needs_cc
def test_a_different_source_is_a_different_module(builds: list[None]) -> None:
    six, seven = native(SIX), native(SEVEN)
    assert (six.answer(2), seven.answer(2)) == (13, 15)
    assert six.__name__ != seven.__name__ and len(builds) == 2


def test_a_missing_compiler_is_said_and_not_looked_for_again(builds: list[None],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CC", "/nonexistent")
    with pytest.raises(NativeUnavailable) as caught:
        native(SIX)
    assert str(caught.value) == "the C compiler CC names (/nonexistent) was not found"
    monkeypatch.delenv("CC")
    with pytest.raises(NativeUnavailable) as again:  # for the rest of the process
        native(SIX)
    assert str(again.value) == str(caught.value) and builds == []


@needs_cc
def test_a_source_that_does_not_compile_names_its_first_error(builds: list[None], tmp_path: Path) -> None:
    with pytest.raises(NativeUnavailable) as caught:
        native(BROKEN)
    message = str(caught.value)
    assert message.startswith("building it failed: rfn_") and ".c:2:" in message, message
    assert "error: expected expression" in message, message
    assert build._unavailable is None  # the next source is tried
    assert list((tmp_path / "cache").iterdir()) == []  # no build folder left behind
    assert native(SIX).answer(0) == 1


@needs_cc
def test_a_source_past_the_limit_is_refused_before_it_is_built(builds: list[None], tmp_path: Path) -> None:
    size = len(SIX.encode())
    with limits.raised(compiled_source_bytes=size - 1), pytest.raises(BuildTooLarge) as caught:
        native(SIX)
    assert str(caught.value) == (
        f"the code generated for 2 players is {size:,} bytes, too large for the native engine to build (limit "
        f"compiled_source_bytes = {size - 1:,}; raise it with RULEFORGE_MAX_COMPILED_SOURCE_BYTES)")
    assert builds == [] and list((tmp_path / "cache").iterdir()) == []


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="waits for the compiler on a pidfd (Linux)")
@needs_cc
def test_a_compiler_that_never_ends_is_killed(builds: list[None], tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    pids = tmp_path / "pids"
    cc = tmp_path / "cc"
    cc.write_text('#!/bin/sh\nif [ "$1" = --version ]; then echo "never 1.0"; exit 0; fi\n'
                  f'echo $$ > "{pids}"\nexec "{sys.executable}" -c "import signal; signal.pause()"\n')
    cc.chmod(0o755)
    monkeypatch.setenv("CC", str(cc))
    with limits.raised(build_seconds=2), pytest.raises(BuildTooLong) as caught:
        native(SIX)
    assert str(caught.value) == (
        "building the native engine for 2 players took more than 2 seconds, and was stopped (limit build_seconds "
        "= 2; raise it with RULEFORGE_MAX_BUILD_SECONDS)")
    assert ended(int(pids.read_text()))  # the compiler had started, and is gone
    assert list((tmp_path / "cache").iterdir()) == [] and len(builds) == 1
