"""The pytest plugin's items for recorded playthroughs: `foo.playthroughs/NAME.txt` is a test
file of one item, `playthrough`, which replays the game against `foo.rules` and fails with the
same diff `ruleforge test` prints (ruleforge/testing/plugin.py collects them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..diagnostics import RulesError
from ..inert import inert
from .playthroughs import PlaythroughOutcome, rules_file_of_record, run_playthrough


class RecordFailed(Exception):
    def __init__(self, outcome: PlaythroughOutcome):
        super().__init__(outcome.name)
        self.outcome = outcome


class RecordFile(pytest.File):
    """A recorded playthrough: one item."""

    def collect(self) -> Any:
        yield RecordItem.from_parent(self, name="playthrough")


class RecordItem(pytest.Item):
    """Replays the record's game and compares the text, line by line."""

    @property
    def rules_path(self) -> Path:
        return rules_file_of_record(self.path)

    def runtest(self) -> None:
        from .plugin import load_cached  # the session's cache of loaded rules

        if not self.rules_path.is_file():
            raise Unplayable(f"{self.path.name}: no rules file '{self.rules_path.name}' beside its folder "
                             f"(a record in foo.playthroughs/ belongs to foo.rules)")
        try:
            rules = load_cached(self.config, self.rules_path)
        except RulesError as err:
            raise Unplayable(err.render()) from None
        trusted = [n.strip() for n in self.config.getoption("--ruleforge-agents", "").split(",") if n.strip()]
        outcome = run_playthrough(rules, self.path, trusted)
        if not outcome.passed:
            raise RecordFailed(outcome)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, RecordFailed):
            outcome = excinfo.value.outcome
            where = f"{self.path.parent.name}/{self.path.name}"
            head = f"playthrough {outcome.name} ({where}) against {self.rules_path.name}:"
            return inert("\n".join([head, *outcome.report()]))  # from files: shown inert
        if isinstance(excinfo.value, Unplayable):
            return inert(str(excinfo.value))
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"playthrough: {self.path.stem}"


class Unplayable(Exception):
    """Why a record cannot be replayed, worded for its author."""
