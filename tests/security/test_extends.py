"""`extends "..."` names only a rules file: a regular file whose name ends in `.rules`, never a
folder, a pipe, a device or a file of /proc, /sys or /dev, and the refusal quotes no line of
what it names. Chains are bounded (`extends_depth`) and loaded without recursion; a loop, through
symbolic links too, is an error naming it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

import ruleforge
from ruleforge import limits
from ruleforge.cli import main
from ruleforge.diagnostics import RulesError

ROOT = Path(__file__).parents[2]
PICK = (ROOT / "tests" / "synthetic" / "pick.rules").read_text()
VARIANT = 'extends "{base}"\ngame "Variant"\n'


def variant(folder: Path, base: str, name: str = "v.rules") -> Path:
    path = folder / name
    path.write_text(VARIANT.format(base=base))
    return path


def check(path: Path) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["check", str(path)])
    return result.exit_code, result.output


def up_to_root(folder: Path) -> str:
    return "../" * len(folder.resolve().parts)


@pytest.mark.parametrize("target, reason", [
    ("/proc/self/environ", "it is a file of /proc"),
    ("/dev/null", "it is a device"),
    ("/etc/passwd", "its name does not end in .rules"),
])
def test_a_base_that_is_no_rules_file_is_refused_without_a_line_of_it(tmp_path: Path, target: str,
                                                                       reason: str) -> None:
    for written in (target, up_to_root(tmp_path) + target.lstrip("/")):
        path = variant(tmp_path, written)
        code, out = check(path)
        assert code == 1
        assert f"{path}:1:1: error: '{written}' is not a rules file: {reason}" in out
        assert f'    extends "{written}"\n    ^^^' in out  # the caret under the extends, in the variant
        assert "PATH=" not in out and "root:" not in out  # nothing of the file itself
        assert "internal error" not in out and "Traceback" not in out


def test_a_folder_a_pipe_and_a_symbolic_link_out_are_refused(tmp_path: Path) -> None:
    (tmp_path / "folder.rules").mkdir()
    os.mkfifo(tmp_path / "pipe.rules")
    (tmp_path / "env.rules").symlink_to("/proc/self/environ")
    for base, reason in (("folder.rules", "it is a folder"), ("pipe.rules", "it is a named pipe"),
                         ("env.rules", "it is a file of /proc")):
        code, out = check(variant(tmp_path, base))
        assert code == 1 and f"'{base}' is not a rules file: {reason}" in out, out


def test_a_base_found_through_dot_dot_is_fine(tmp_path: Path) -> None:
    (tmp_path / "base.rules").write_text(PICK)
    (tmp_path / "deep" / "er").mkdir(parents=True)
    path = variant(tmp_path / "deep" / "er", "../../base.rules")
    assert ruleforge.load(path).title == "Variant"


def test_a_chain_of_a_thousand_bases_stops_at_the_limit(tmp_path: Path) -> None:
    (tmp_path / "f0.rules").write_text(PICK)
    for k in range(1, 1001):
        (tmp_path / f"f{k}.rules").write_text(f'extends "f{k - 1}.rules"\n')
    with pytest.raises(RulesError) as caught:
        ruleforge.load(tmp_path / "f1000.rules")
    depth = limits.LIMITS.extends_depth
    diagnostic = caught.value.diagnostics[0]
    assert diagnostic.pos.file == str(tmp_path / f"f{1000 - depth}.rules") and diagnostic.pos.line == 1
    assert diagnostic.message == (f"a chain of more than {depth} 'extends' "
                                  f"({limits.describe('extends_depth')})")
    with limits.raised(extends_depth=2000):  # loaded in a loop, not by recursion
        assert ruleforge.load(tmp_path / "f1000.rules").title == "Pick"


def test_a_loop_through_a_symbolic_link_is_named(tmp_path: Path) -> None:
    a = variant(tmp_path, "b.rules", "a.rules")
    (tmp_path / "b.rules").symlink_to(a)
    code, out = check(a)
    assert code == 1
    assert f"{a}:1:1: error: 'b.rules' extends itself through a loop: a.rules -> b.rules (a.rules)" in out
    assert "internal error" not in out


def test_a_loop_of_three_files_is_named(tmp_path: Path) -> None:
    a = variant(tmp_path, "b.rules", "a.rules")
    variant(tmp_path, "c.rules", "b.rules")
    variant(tmp_path, "a.rules", "c.rules")
    code, out = check(a)
    assert code == 1
    assert "'a.rules' extends itself through a loop: a.rules -> b.rules -> c.rules -> a.rules" in out
