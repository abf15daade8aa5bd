"""Fuzzing what ruleforge reads besides rules: saved states, hand-written positions, replay logs.

Each input is a real document with one to three changes (a value replaced, nudged, deleted,
duplicated, nested deep or made huge; the text cut short). The oracle (tests/fuzz/worker.py)
runs `ruleforge score` (states, positions) or `ruleforge replay` (logs) on it, and the Python
API (`Rules.load_game`, `Rules.position`, then a short random game or the final scorings): each
must succeed or refuse clearly (`GameError`; the command's one `error:` line and exit 1), never
with a traceback, an internal error, a hang or a dead worker. The long run: see
tests/fuzz/test_rules_files.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

from . import strategies
from .conftest import Fuzzer, fuzz_settings

pytestmark = pytest.mark.fuzz


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, Any]]:
    return strategies.replay_logs(tmp_path_factory.mktemp("logs"))


def fuzz_documents(fuzzer: Fuzzer, kind: str, docs: list[tuple[str, Any]], default: int) -> None:
    @fuzz_settings(default)
    @given(strategies.mutated_json(docs))
    def judge(game_and_text: tuple[str, str]) -> None:
        fuzzer.judge(kind, game_and_text[1], game_and_text[0])

    judge()
    assert not fuzzer.found, "inputs without a clear answer:\n" + fuzzer.report()


def test_saved_states(fuzzer: Fuzzer) -> None:
    fuzz_documents(fuzzer, "state", strategies.saved_states(), 40)


def test_positions(fuzzer: Fuzzer) -> None:
    fuzz_documents(fuzzer, "position", strategies.positions(), 30)


def test_replay_logs(fuzzer: Fuzzer, logs: list[tuple[str, Any]]) -> None:
    fuzz_documents(fuzzer, "log", logs, 30)


def test_the_unchanged_documents_are_accepted(fuzzer: Fuzzer, logs: list[tuple[str, Any]], tmp_path: Path) -> None:
    """The oracle says ok to the real documents: a fuzz test whose oracle refuses everything finds nothing."""
    import json

    for kind, docs in (("state", strategies.saved_states()), ("position", strategies.positions()), ("log", logs)):
        for game, doc in docs:
            verdict = fuzzer.judge(kind, json.dumps(doc), game)
            assert verdict.verdict == "ok", (kind, game, verdict)
