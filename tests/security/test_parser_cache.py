"""The saved parser is a pickle, which runs code when loaded: it is kept in the user's own
cache folder (0700) and loaded only from a folder and a file that are the user's and that no
one else may write; never from the shared temporary folder."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from ruleforge.parser_cache import cache_file, cached_lark

GRAMMAR = 'start: "a"+\n'
OPTIONS = {"parser": "lalr"}
OTHER_UID = 54321  # someone else: root can give a file away


class Planted:
    """What another user of the machine might leave: loading it runs their code."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self) -> tuple:
        return (exec, (f"open({str(self.marker)!r}, 'w').write('ran')",))


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


def plant(cache_home: Path, marker: Path) -> Path:
    folder = cache_home / "ruleforge"
    folder.mkdir(parents=True, mode=0o700, exist_ok=True)
    path = cache_file(folder, GRAMMAR, OPTIONS)
    path.write_bytes(pickle.dumps(Planted(marker)))
    path.chmod(0o600)
    return path


def parses() -> bool:
    return cached_lark(GRAMMAR, **OPTIONS).parse("aaa").data == "start"


def test_a_file_of_the_users_own_is_loaded(cache_home: Path, tmp_path: Path) -> None:
    """The control: the checks below, not luck, are what keep a planted file from loading."""
    plant(cache_home, tmp_path / "ran")
    assert parses()  # the pickle is no parser: built afresh
    assert (tmp_path / "ran").read_text() == "ran"


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_file_owned_by_someone_else_is_not_loaded(cache_home: Path, tmp_path: Path) -> None:
    path = plant(cache_home, tmp_path / "ran")
    os.chown(path, OTHER_UID, OTHER_UID)
    assert parses() and not (tmp_path / "ran").exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user needs root")
def test_a_folder_owned_by_someone_else_is_not_loaded_from(cache_home: Path, tmp_path: Path) -> None:
    path = plant(cache_home, tmp_path / "ran")
    os.chown(path.parent, OTHER_UID, OTHER_UID)
    assert parses() and not (tmp_path / "ran").exists()
    assert path.read_bytes().startswith(b"\x80")  # and not written over either: it is not ours


@pytest.mark.parametrize("folder_mode, file_mode", [(0o777, 0o600), (0o770, 0o600), (0o700, 0o666),
                                                    (0o700, 0o620)])
def test_a_folder_or_file_others_may_write_is_not_loaded(cache_home: Path, tmp_path: Path,
                                                         folder_mode: int, file_mode: int) -> None:
    path = plant(cache_home, tmp_path / "ran")
    path.chmod(file_mode)
    path.parent.chmod(folder_mode)
    assert parses() and not (tmp_path / "ran").exists()


def test_a_symbolic_link_is_not_followed(cache_home: Path, tmp_path: Path) -> None:
    planted = plant(cache_home, tmp_path / "ran")
    elsewhere = tmp_path / "elsewhere.pickle"
    planted.rename(elsewhere)
    planted.symlink_to(elsewhere)
    assert parses() and not (tmp_path / "ran").exists()


def test_the_cache_is_made_private_and_the_temporary_folder_is_left_alone(tmp_path: Path) -> None:
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = {**os.environ, "TMPDIR": str(temporary), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    rules = Path(__file__).parents[2] / "games" / "hagakure.rules"
    for _ in range(2):  # built and saved, then loaded
        done = subprocess.run([sys.executable, "-m", "ruleforge", "check", str(rules)], env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    folder = tmp_path / "cache" / "ruleforge"
    assert folder.stat().st_mode & 0o777 == 0o700
    saved = list(folder.iterdir())
    assert len(saved) == 1 and saved[0].stat().st_mode & 0o777 == 0o600
    assert list(temporary.iterdir()) == []
