"""The pytest plugin's items for move counts: `foo.perft.json` is a test file of one item per
entry (`perft 3p seed 0`), which counts the game against `foo.rules` and fails with the same
report `ruleforge test` prints (ruleforge/testing/plugin.py collects them)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..diagnostics import RulesError
from ..inert import inert
from .perft_files import PERFT_SUFFIX, PerftEntry, PerftError, PerftOutcome, read_perft, rules_file_of_perft, run_perft


class PerftFailed(Exception):
    def __init__(self, outcome: PerftOutcome):
        super().__init__(outcome.name)
        self.outcome = outcome


class Unreadable(Exception):
    """Why the counts of a file cannot be checked, worded for its author."""


class PerftFile(pytest.File):
    """A counts file: an item per entry; a file that cannot be read is one failing item saying
    why, and the rest of the run goes on."""

    @property
    def rules_path(self) -> Path:
        return rules_file_of_perft(self.path)

    def collect(self) -> Iterator[pytest.Item]:
        if not self.rules_path.is_file():
            yield PerftItem.from_parent(self, name="perft", entry=None, problem=(
                f"{self.path.name}: no rules file '{self.rules_path.name}' beside it "
                f"(a counts file foo{PERFT_SUFFIX} belongs to foo.rules)"))
            return
        try:
            entries = read_perft(self.path)
        except PerftError as err:
            yield PerftItem.from_parent(self, name="perft", entry=None, problem=str(err))
            return
        for entry in entries:
            yield PerftItem.from_parent(self, name=inert(entry.name), entry=entry, problem=None)


class PerftItem(pytest.Item):
    """One entry: the game counted to its depth, each count compared."""

    def __init__(self, *, entry: PerftEntry | None, problem: str | None, **kwargs: Any):
        super().__init__(**kwargs)
        self.entry = entry
        self.problem = problem

    def runtest(self) -> None:
        from .plugin import load_cached  # the session's cache of loaded rules

        if self.entry is None:
            raise Unreadable(self.problem or "")
        assert isinstance(self.parent, PerftFile)
        try:
            rules = load_cached(self.config, self.parent.rules_path)
        except RulesError as err:
            raise Unreadable(err.render()) from None
        outcome = run_perft(rules, self.entry, self.parent.rules_path)
        if not outcome.passed:
            raise PerftFailed(outcome)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        if isinstance(excinfo.value, PerftFailed):
            return inert("\n".join(excinfo.value.outcome.report()))  # from files: shown inert
        if isinstance(excinfo.value, Unreadable):
            return inert(str(excinfo.value))
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, self.name
