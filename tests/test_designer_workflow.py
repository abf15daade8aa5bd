"""A designer's folder, as docs/testing.md builds one: a variant of Naishi, its examples, a
test file using the plugin; `pytest` run there in a subprocess, as the designer runs it.

The variant "Paddies": each Rice Field in the Hand scores `paddy_points` more (2). The
example's territory is the rulings' §8 example 1 (62 by hand: Mountain 5, Fort 12, Sentinel
7, Advisor 7, Banner 3, Naishi 8, Rice Field 20), whose Hand holds 2 Rice Fields: Paddies 4,
total 66. Changing `paddy_points` to 3 moves Paddies to 6 and the total to 68.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
EXAMPLE_1 = json.loads((ROOT / "docs" / "examples" / "naishi_example1.json").read_text())

VARIANT = """extends "naishi.rules"
game "Naishi: Paddies"

# Each Rice Field in the Hand scores paddy_points more.
def paddy_points = 2

extend scoring points for p {
  "Paddies": paddy_points * count(c for c in territory(p) if c is RiceField and row(c) == 2)
}
"""

TEST_FILE = """import pytest


@pytest.mark.ruleforge_rules("paddies.rules")
def test_breakdown(ruleforge_example, breakdown_snapshot):
    assert ruleforge_example.breakdown() == breakdown_snapshot


def test_a_position(ruleforge_position, breakdown_snapshot):
    game = ruleforge_position("paddies.rules", "example1.json")
    assert game.preview_scoring("points")[0]["Paddies"] >= 4
    assert game == breakdown_snapshot


def test_the_rules(ruleforge_rules):
    assert ruleforge_rules("paddies.rules").title == "Naishi: Paddies"
"""


def examples(paddies: int, total: int) -> dict:
    return {"format": "ruleforge-examples/1", "examples": [
        {"name": "rice in the hand", "source": "ours: rulings §8 example 1 with Paddies",
         "note": "62 by the rulings, plus 2 Rice Fields in the Hand",
         "position": "example1.json", "expect": {"P1": {"Rice Field": 20, "Paddies": paddies, "total": total}}},
    ]}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    shutil.copy(ROOT / "games" / "naishi.rules", tmp_path / "naishi.rules")
    (tmp_path / "paddies.rules").write_text(VARIANT)
    (tmp_path / "example1.json").write_text(json.dumps(EXAMPLE_1))
    (tmp_path / "paddies.examples.json").write_text(json.dumps(examples(4, 66), indent=2))
    (tmp_path / "test_paddies.py").write_text(TEST_FILE)
    return tmp_path


def pytest_in(folder: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1", COLUMNS="120")
    for name in ("PYTEST_ADDOPTS", "CI", "BUILD_NUMBER"):  # pytest on CI neither truncates nor shortens output
        env.pop(name, None)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", *args], cwd=folder,
                          env=env, capture_output=True, text=True, timeout=300)


def test_the_designers_workflow(folder: Path) -> None:
    # the first run records the snapshots; the next one is green
    first = pytest_in(folder, "--snapshot-update")
    assert first.returncode == 0, first.stdout + first.stderr
    assert "2 snapshots generated" in first.stdout
    snapshots = (folder / "__snapshots__" / "test_paddies.scores").read_text()
    assert "P1 Paddies = 4\n" in snapshots and "P1 total = 66\n" in snapshots
    green = pytest_in(folder)
    assert green.returncode == 0, green.stdout
    # each example is an item of its own, and the test asking for ruleforge_example runs once per example
    assert "PASSED paddies.examples.json::rice in the hand" in green.stdout
    assert "PASSED test_paddies.py::test_breakdown[rice in the hand]" in green.stdout
    assert "4 passed" in green.stdout

    # one scoring value changed: the example and both snapshots fail, naming the item that moved
    variant = folder / "paddies.rules"
    variant.write_text(variant.read_text().replace("def paddy_points = 2", "def paddy_points = 3"))
    red = pytest_in(folder)
    assert red.returncode == 1
    out = red.stdout
    assert "FAILED paddies.examples.json::rice in the hand" in out
    assert "P1 Paddies            4       6  <- +2" in out
    assert "P1 total             66      68  <- +2" in out
    assert "FAILED test_paddies.py::test_breakdown[rice in the hand]" in out
    assert "FAILED test_paddies.py::test_a_position" in out
    assert out.count("P1 Paddies: 4 -> 6 (+2)") == 2
    assert out.count("P1 total: 66 -> 68 (+2)") == 2
    assert "Rice Field: 20 ->" not in out  # only what moved is named

    # accepted: the example says the new numbers, the snapshots are recorded again
    (folder / "paddies.examples.json").write_text(json.dumps(examples(6, 68), indent=2))
    accepted = pytest_in(folder, "--snapshot-update")
    assert accepted.returncode == 0, accepted.stdout
    assert "2 snapshots updated" in accepted.stdout
    assert "P1 Paddies = 6\n" in (folder / "__snapshots__" / "test_paddies.scores").read_text()
    assert pytest_in(folder).returncode == 0


def test_a_broken_examples_file_fails_saying_why_and_the_rest_runs(folder: Path) -> None:
    (folder / "paddies.examples.json").write_text('{"format": "ruleforge-examples/1", "examples": [{"name": 1}]}')
    ran = pytest_in(folder)
    assert ran.returncode == 1
    assert "example #1: 'name' must be a text" in ran.stdout
    assert "FAILED paddies.examples.json::examples" in ran.stdout
    assert "PASSED test_paddies.py::test_the_rules" in ran.stdout  # the other tests still run
    assert "Traceback" not in ran.stdout


def test_a_broken_variant_shows_its_diagnostics(folder: Path) -> None:
    variant = folder / "paddies.rules"
    variant.write_text(variant.read_text().replace("paddy_points *", "padi_points *"))
    ran = pytest_in(folder, "paddies.examples.json")
    assert ran.returncode == 1
    assert "paddies.rules:" in ran.stdout and "padi_points" in ran.stdout
    assert "Traceback" not in ran.stdout
