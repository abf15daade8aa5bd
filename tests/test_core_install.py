"""What `pip install -e .` brings (lark, attrs, networkx, click, rich) is enough to simulate and to
play: the README's first command installs no extra. The extras' packages are made impossible to
import in a fresh interpreter, which then runs the commands a player starts with."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
EXTRAS = ["pytest", "syrupy", "hypothesis", "matplotlib", "ray", "ruff", "_pytest", "pluggy"]
BLOCK = f"""
import sys
class NoExtras:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {EXTRAS!r}:
            raise ImportError(f"{{name}} is an extra, not installed here")
sys.meta_path.insert(0, NoExtras())
"""
WITHOUT_EXTRAS = BLOCK + """
sys.argv = ["ruleforge", *sys.argv[1:]]
from ruleforge.__main__ import run
run()
"""


def run_core(*args: str, answers: str = "", **env_vars: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1", COLUMNS="100", **env_vars)
    env.pop("RULEFORGE_DEBUG", None)
    return subprocess.run([sys.executable, "-c", WITHOUT_EXTRAS, *args], cwd=ROOT, env=env, input=answers,
                          capture_output=True, text=True, timeout=300)


def test_the_blocker_blocks() -> None:
    """The check would pass for nothing if the extras could still be imported (pytest is, here)."""
    blocked = subprocess.run([sys.executable, "-c", BLOCK + "import pytest"], capture_output=True, text=True,
                             timeout=60)
    assert blocked.returncode == 1 and "pytest is an extra, not installed here" in blocked.stderr
    ran = run_core("simulate", "games/hagakure.rules", "-n", "2", "--report", "r.html")
    assert ran.returncode != 0 and "Traceback" not in ran.stderr
    assert "matplotlib" in ran.stderr + ran.stdout


def test_the_native_engine_needs_no_extra(tmp_path: Path) -> None:
    """`--engine auto` (and `--compiled`, its old alias) builds with the C compiler alone, or
    plays on the reference engine: either way no extra is asked for."""
    ran = run_core("simulate", "games/tictactoe.rules", "-n", "5", "--compiled", RULEFORGE_CACHE=str(tmp_path))
    assert ran.returncode == 0 and "Traceback" not in ran.stderr, ran.stderr
    assert "extra" not in ran.stderr and "pip install" not in ran.stderr, ran.stderr
    assert "5 games, 2 players" in ran.stdout


@pytest.mark.parametrize("args", [
    ("simulate", "games/hagakure.rules", "-n", "20", "--players", "5"),
    ("play", "tests/synthetic/tile_grid.rules", "--agents", "human,random", "--seed", "3"),
    ("check", "games/naishi.rules"),
])
def test_a_player_needs_no_extra(args: tuple[str, ...]) -> None:
    ran = run_core(*args, answers="1\n" * 50)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "Traceback" not in ran.stderr
    if args[0] == "simulate":
        assert "20 games, 5 players" in ran.stdout
    if args[0] == "play":
        assert "P1, choose an action:" in ran.stdout and "final scores after 8 decisions" in ran.stdout
