"""A log or a recorded playthrough may come from a stranger: it may name only ruleforge's own
agents, `mcts:N` within the `search_iterations` limit; an agent module or file is imported only
when `--agents` on the command line names it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from ruleforge.cli import main
from ruleforge.limits import LIMITS
from ruleforge.rules import Rules
from ruleforge.testing.playthroughs import run_playthrough

ROOT = Path(__file__).parents[2]
PICK = ROOT / "tests" / "synthetic" / "pick.rules"

# Importing this module leaves a file beside it: the proof that a stranger's code ran.
EVIL = '''
from pathlib import Path
Path(__file__).with_name("imported").write_text("ran")

class Evil:
    def __init__(self, seed=0):
        self.seed = seed
    def choose(self, game):
        return game.legal_actions()[0]
'''


def run(*args: str, cwd: Path | None = None) -> Result:
    back = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        return CliRunner().invoke(main, list(args))
    finally:
        os.chdir(back)


@pytest.fixture
def evil(tmp_path: Path) -> Path:
    path = tmp_path / "evil.py"
    path.write_text(EVIL)
    return path


def write_log(path: Path, agents: list[str]) -> Path:
    """A log of no steps yet of the two-player game Pick, with these agents."""
    path.write_text(json.dumps({"format": "ruleforge-log/2", "rules": str(PICK), "players": 2, "seed": 1,
                                "options": {}, "agents": agents, "steps": []}))
    return path


# --- play --resume -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["{evil}:Evil", "evil:Evil"])
def test_resuming_a_log_naming_an_agent_of_code_imports_nothing(tmp_path: Path, evil: Path, name: str) -> None:
    name = name.format(evil=evil)
    log = write_log(tmp_path / "game.json", ["random", name])
    result = run("play", "--resume", str(log), "--quiet", cwd=tmp_path)
    assert result.exit_code == 1
    assert f"replay log '{log}': P2's agent '{name}' is code" in result.stderr
    assert f"give --agents random,{name}" in result.stderr
    assert "Traceback" not in result.output
    assert not (tmp_path / "imported").exists()
    assert json.loads(log.read_text())["steps"] == []  # nothing played, nothing written


def test_resuming_with_agents_on_the_command_line_plays_them(tmp_path: Path, evil: Path) -> None:
    log = write_log(tmp_path / "game.json", ["random", f"{evil}:Evil"])
    result = run("play", "--resume", str(log), "--quiet", "--agents", f"random,{evil}:Evil", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "imported").read_text() == "ran"


def test_a_log_asking_for_an_endless_search_is_refused(tmp_path: Path) -> None:
    log = write_log(tmp_path / "game.json", ["random", "mcts:1000000000000"])
    result = run("play", "--resume", str(log), "--quiet")
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: replay log '{log}': P2's agent 'mcts:1000000000000': a search of more than "
        f"{LIMITS.search_iterations:,} iterations a decision (limit search_iterations = "
        f"{LIMITS.search_iterations:,}; raise it with RULEFORGE_MAX_SEARCH_ITERATIONS)\n")


def test_a_search_past_the_limit_on_the_command_line_is_an_error_too() -> None:
    digits = "9" * 5000  # more digits than Python converts: no ValueError either
    for budget in ("1000000000000", digits):
        result = run("playthrough", str(PICK), "--agents", f"mcts:{budget}")
        assert result.exit_code == 1
        assert "a search of more than" in result.stderr and "RULEFORGE_MAX_SEARCH_ITERATIONS" in result.stderr
        assert len(result.stderr) < 300


# --- recorded playthroughs ---------------------------------------------------------------------


def record_folder(tmp_path: Path, agents: str) -> Path:
    """pick.rules copied into `tmp_path` with one record whose first line names `agents`."""
    shutil.copy(PICK, tmp_path / "pick.rules")
    folder = tmp_path / "pick.playthroughs"
    folder.mkdir()
    (folder / "2p-seed1.txt").write_text(f"Pick: 2 players, seed 1, agents {agents}\n1. P1 (2 legal): take 1\n")
    return tmp_path / "pick.rules"


def test_a_record_naming_an_agent_file_is_an_error_naming_both(tmp_path: Path, evil: Path) -> None:
    rules = record_folder(tmp_path, f"P1 random, P2 {evil}:Evil")
    result = run("test", str(rules), cwd=tmp_path)
    assert result.exit_code == 1
    record = tmp_path / "pick.playthroughs" / "2p-seed1.txt"
    assert f"error: {record}: line 1: P2's agent '{evil}:Evil' is code" in result.output
    assert f"--agents {evil}:Evil" in result.output
    assert not (tmp_path / "imported").exists()


def test_ruleforge_test_agents_lets_a_record_name_that_agent(tmp_path: Path, evil: Path) -> None:
    rules = record_folder(tmp_path, f"P1 random, P2 {evil}:Evil")
    result = run("test", str(rules), "--agents", f"{evil}:Evil", cwd=tmp_path)
    assert (tmp_path / "imported").exists()  # trusted on the command line: imported and played
    assert "is code" not in result.output


def test_a_record_asking_for_an_endless_search_is_an_error_at_line_1(tmp_path: Path) -> None:
    rules = record_folder(tmp_path, "mcts:1000000000000")
    outcome = run_playthrough(Rules(rules), tmp_path / "pick.playthroughs" / "2p-seed1.txt")
    assert outcome.status == "error"
    assert "line 1: P1's agent 'mcts:1000000000000': a search of more than" in outcome.error


def test_the_pytest_plugin_refuses_a_record_naming_an_agent_file(tmp_path: Path, evil: Path) -> None:
    record_folder(tmp_path, f"{evil}:Evil")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stdout
    assert f"P1's agent '{evil}:Evil' is code" in done.stdout
    assert "--ruleforge-agents" in done.stdout
    assert not (tmp_path / "imported").exists()


def test_an_agent_name_with_control_characters_is_shown_escaped(tmp_path: Path) -> None:
    log = write_log(tmp_path / "game.json", ["random", "\x1b[2Jmine.py:Evil"])
    result = run("play", "--resume", str(log), "--quiet")
    assert result.exit_code == 1
    assert "\x1b" not in result.stderr and "'\\x1b[2Jmine.py:Evil' is code" in result.stderr


def test_mutate_takes_agents_of_code_only_from_its_own_option(tmp_path: Path, evil: Path) -> None:
    rules = record_folder(tmp_path, f"P1 random, P2 {evil}:Evil")
    result = run("mutate", str(rules), "--sample", "1", "--hint-seeds", "0", cwd=tmp_path)
    assert result.exit_code == 1 and f"P2's agent '{evil}:Evil' is code" in result.output
    assert not (tmp_path / "imported").exists()
    run("mutate", str(rules), "--sample", "1", "--hint-seeds", "0", "--agents", f"{evil}:Evil", cwd=tmp_path)
    assert (tmp_path / "imported").exists()  # named on the command line: trusted, imported
