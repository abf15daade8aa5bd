"""Games on a Ray cluster (`--ray`): the same records as one process, and the rules' text
travelling with the batch so that machines without the files can play them.

The Ray test starts a local Ray instance (a few seconds). Ray is in the `dev` extra, so CI
runs it; where Ray is not installed it is skipped, except under CI, where it fails.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import ruleforge
from ruleforge.balance import runner
from ruleforge.cli import main

ROOT = Path(__file__).parents[1]


def simulate_json(*args: str) -> dict:
    result = CliRunner().invoke(main, ["simulate", *args, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    for key in ("seconds", "games_per_second", "jobs"):
        data.pop(key)
    return data


def test_ray_plays_the_same_games_as_one_process(monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        import ray  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip("Ray is not installed (pip install 'ruleforge[ray]')")
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    args = ["games/naishi_legends.rules", "-n", "30", "--seed", "5"]
    monkeypatch.chdir(ROOT)
    on_ray = simulate_json(*args, "--ray")
    here = simulate_json(*args)
    assert on_ray == here
    assert on_ray["games"] == 30 and not on_ray["failed"]


def test_the_rules_travel_with_the_batch(tmp_path: Path) -> None:
    """A variant and its base, loaded on a machine where neither file is: from their text."""
    rules = ruleforge.load(ROOT / "games" / "naishi_legends.rules")
    main_file, texts = runner.carried_sources(rules)
    assert set(texts) == {str((ROOT / "games" / f).resolve()) for f in ("naishi_legends.rules", "naishi.rules")}
    elsewhere = "/nowhere" + main_file  # the same files under a root this machine does not have
    moved = {"/nowhere" + name: text for name, text in texts.items()}
    loaded = runner.rules_for(elsewhere, moved)
    assert loaded.title == rules.title
    assert loaded.program(2).source == rules.program(2).source


def test_without_ray_the_command_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails as if it were not installed
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(main, ["simulate", "games/hagakure.rules", "-n", "3", "--ray"])
    assert result.exit_code == 1
    assert "error: --ray needs Ray: pip install 'ruleforge[ray]'" in result.output
    assert "Traceback" not in result.output


def test_an_address_that_answers_nothing_fails_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("ray")
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(main, ["simulate", "games/hagakure.rules", "-n", "3", "--ray", "127.0.0.1:1"])
    assert result.exit_code == 1
    assert "error: cannot reach the Ray cluster at '127.0.0.1:1'" in result.output
