"""One rule for files ruleforge was not given by name: a rules file, examples file, record or
move-count file found by walking a folder (`ruleforge fmt FOLDER`, `ruleforge test`'s files beside
the rules, pytest's collection) is read only if it is a regular file of its kind outside /proc,
/sys and /dev, no larger than `file_bytes`, and a refusal names the file without a line of it.
A loop of symbolic links is reported by name, on every Python (3.11's `Path.resolve` raised
RuntimeError for one).

A shared folder may hold links planted by anyone: a `x.rules` leading to a secret made a syntax
error quote the secret's first line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ruleforge.cli import main
from ruleforge.diagnostics import RulesError
from ruleforge.limits import raised
from ruleforge.named_files import RefusedFile, read_bytes, refusal
from ruleforge.rules import Rules

ROOT = Path(__file__).parents[2]
SECRET = "SECRET_TOKEN=hunter2"


@pytest.fixture
def shared(tmp_path: Path) -> Path:
    """A folder as a stranger left it: the secret is the user's own file elsewhere, and every
    file of the game beside the rules is a link to it."""
    secret = tmp_path / "home" / "secret.env"
    secret.parent.mkdir()
    secret.write_text(f"{SECRET}\n")
    folder = tmp_path / "shared"
    folder.mkdir()
    shutil.copy(ROOT / "games" / "tictactoe.rules", folder / "ok.rules")
    (folder / "x.rules").symlink_to(secret)
    counts = json.loads((ROOT / "games" / "tictactoe.perft.json").read_text())
    (folder / "x.perft.json").write_text(json.dumps({**counts, "rules": "x.rules"}))
    (folder / "ok.perft.json").symlink_to(secret)
    (folder / "ok.examples.json").symlink_to(secret)
    (folder / "ok.playthroughs").mkdir()
    (folder / "ok.playthroughs" / "2p-seed1.txt").symlink_to(secret)
    return folder


def test_fmt_of_a_folder_refuses_a_link_to_a_secret_by_name(shared: Path) -> None:
    result = CliRunner().invoke(main, ["fmt", "--check", str(shared)])
    assert result.exit_code == 1
    assert "x.rules': it is a symbolic link to a file whose name does not end in .rules" in result.stderr
    assert "hunter2" not in result.output + result.stderr


def test_ruleforge_test_reads_no_file_beside_the_rules_that_leads_to_a_secret(shared: Path) -> None:
    result = CliRunner().invoke(main, ["test", str(shared / "ok.rules")])
    assert result.exit_code == 1
    shown = result.output + result.stderr
    assert "hunter2" not in shown
    assert "it is a symbolic link to a file whose name does not end in .json" in shown


def test_pytest_on_the_folder_quotes_no_secret(shared: Path) -> None:
    """The counts file is fine; its rules file is the link. Each of the files beside `ok.rules`
    is a link too: every one fails by name."""
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                           str(shared)], capture_output=True, text=True, timeout=300, cwd=shared)
    shown = done.stdout + done.stderr
    assert done.returncode == 1, shown
    assert "hunter2" not in shown
    assert "x.rules': it is a symbolic link to a file whose name does not end in .rules" in shown
    assert "2p-seed1.txt': it is a symbolic link to a file whose name does not end in .txt" in shown


def test_a_link_to_the_environment_is_refused_as_a_file_of_proc(tmp_path: Path) -> None:
    (tmp_path / "env.rules").symlink_to("/proc/self/environ")
    assert refusal(tmp_path / "env.rules", ".rules") == "it is a file of /proc"  # looked at before its name
    result = CliRunner().invoke(main, ["fmt", "--check", str(tmp_path)])
    assert result.exit_code == 1
    assert "PATH=" not in result.output + result.stderr


def test_a_named_pipe_found_in_a_folder_is_never_waited_on(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.rules")
    done = subprocess.run([sys.executable, "-m", "ruleforge", "fmt", "--check", str(tmp_path)],
                          capture_output=True, text=True, timeout=120)  # a pipe opened would wait: killed then
    assert done.returncode == 1
    assert "pipe.rules': it is a named pipe" in done.stderr


def test_a_file_past_file_bytes_is_refused_before_it_is_read_whole(tmp_path: Path) -> None:
    big = tmp_path / "big.rules"
    big.write_text("# " + "x" * 5000 + "\n")
    with raised(file_bytes=1000):
        with pytest.raises(RefusedFile, match=r"it is larger than 1,000 bytes \(limit file_bytes = 1,000"):
            read_bytes(big, ".rules", "rules file")
        with pytest.raises(RulesError, match="larger than 1,000 bytes"):
            Rules(big)


def test_extends_through_a_loop_of_links_names_the_base(tmp_path: Path) -> None:
    (tmp_path / "a.rules").symlink_to(tmp_path / "b.rules")
    (tmp_path / "b.rules").symlink_to(tmp_path / "a.rules")
    (tmp_path / "v.rules").write_text('extends "a.rules"\n')
    result = CliRunner().invoke(main, ["check", str(tmp_path / "v.rules")])
    assert result.exit_code == 1
    assert "v.rules:1:1: error: 'a.rules' is not a rules file: its symbolic links make a loop" in result.stderr
    assert "internal error" not in result.output + result.stderr
    result = CliRunner().invoke(main, ["check", str(tmp_path / "a.rules")])
    assert result.exit_code == 1
    assert "cannot read rules file" in result.stderr and "its symbolic links make a loop" in result.stderr


def interpreter(version: str) -> str | None:
    """A Python of that version that runs: on the PATH, or one of pyenv's (whose shims on the
    PATH may refuse to run a version not selected)."""
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    candidates = [shutil.which(f"python{version}"), *sorted(map(str, root.glob(f"versions/{version}.*/bin/python")))]
    for found in filter(None, candidates):
        if subprocess.run([found, "-c", "pass"], capture_output=True, timeout=60).returncode == 0:
            return found
    return None


@pytest.mark.parametrize("version", ["3.11", "3.12", "3.13"])
def test_a_loop_of_links_is_reported_by_name_on_every_python(tmp_path: Path, version: str) -> None:
    """The rule's module needs only attrs besides the standard library, so it runs on each
    Python this machine has, with this one's attrs (3.11's `Path.resolve` raised RuntimeError
    for a loop, 3.13's returns a path)."""
    import attr
    import attrs

    python = interpreter(version)
    if python is None:
        pytest.skip(f"no Python {version} here")
    lib = tmp_path / "lib"
    lib.mkdir()
    for package in (attr, attrs):
        (lib / package.__name__).symlink_to(Path(package.__file__).parent)
    (tmp_path / "a.rules").symlink_to(tmp_path / "b.rules")
    (tmp_path / "b.rules").symlink_to(tmp_path / "a.rules")
    code = ("import sys; sys.path[:0] = sys.argv[1:3]; from ruleforge.named_files import refusal; "
            "print(refusal(sys.argv[3], '.rules'))")
    done = subprocess.run([python, "-I", "-c", code, str(ROOT), str(lib), str(tmp_path / "a.rules")],
                          capture_output=True, text=True, timeout=120)
    assert done.stdout == "its symbolic links make a loop\n", done.stderr
