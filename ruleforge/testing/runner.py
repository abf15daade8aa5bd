"""Everything `ruleforge test` runs, as one call: a rules file's scoring examples (its bases'
too), then its recorded playthroughs. `ruleforge mutate` calls it in-process on each mutant,
so it returns results instead of printing them."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any

import attrs

from ..rules import Rules
from .checks import Outcome, run_example
from .examples import Example, load_examples
from .playthroughs import PlaythroughOutcome, playthroughs_of, run_playthrough


@attrs.frozen(eq=False)
class TestResult:
    """One test `ruleforge test` ran: an example or a recorded playthrough."""

    __test__ = False  # not a pytest test class

    kind: str  # "example" or "playthrough"
    outcome: Outcome | PlaythroughOutcome

    @property
    def name(self) -> str:
        """As `-k` matches it: the example's name, or `playthrough 2p-seed1`."""
        if isinstance(self.outcome, Outcome):
            return self.outcome.example.name
        return f"playthrough {self.outcome.name}"

    @property
    def status(self) -> str:
        return self.outcome.status

    @property
    def passed(self) -> bool:
        return self.outcome.passed

    def report(self) -> list[str]:
        """Why it failed (the checks side by side, or the diff), or nothing."""
        return [] if self.passed else self.outcome.report()


@attrs.frozen(eq=False)
class TestRun:
    """The results of one `run_tests`, examples first."""

    __test__ = False

    title: str
    examples: tuple[Example, ...]
    playthroughs: tuple[Path, ...]
    results: tuple[TestResult, ...]

    @property
    def passed(self) -> bool:
        """Every test ran and passed (and there was at least one)."""
        return bool(self.results) and all(r.passed for r in self.results)

    @property
    def failures(self) -> list[TestResult]:
        return [r for r in self.results if not r.passed]

    def counts(self) -> dict[str, int]:
        return {s: sum(r.status == s for r in self.results) for s in ("pass", "fail", "error")}

    def as_json(self) -> dict[str, Any]:
        counts = self.counts()
        return {"game": self.title,
                "examples": [r.outcome.as_json() for r in self.results if r.kind == "example"],
                "playthroughs": [r.outcome.as_json() for r in self.results if r.kind == "playthrough"],
                "passed": counts["pass"], "failed": counts["fail"], "errors": counts["error"]}


def select(rules: Rules, path: str | Path | None = None, pattern: str | None = None,
           examples: str | Path | None = None) -> tuple[list[Example], list[Path]]:
    """The examples and recorded playthroughs `run_tests` runs, `pattern` applied (any case,
    a playthrough's name being `playthrough NAME`). ExamplesError for an unreadable examples file."""
    own = Path(path) if path is not None else rules.files[0]
    found = load_examples([own, *rules.files[1:]], examples)
    records = playthroughs_of(own)
    if pattern is not None:
        low = pattern.lower()
        found = [e for e in found if low in e.name.lower()]
        records = [r for r in records if low in f"playthrough {r.stem}".lower()]
    return found, records


def run_tests(rules: Rules, path: str | Path | None = None, *, pattern: str | None = None,
              examples: str | Path | None = None, stop_at_first_failure: bool = False,
              trusted_agents: Collection[str] = ()) -> TestRun:
    """Run what `ruleforge test` runs against `rules`: the examples of `path` (default: the
    rules' own file) and of the files it extends, then the playthroughs recorded beside `path`.

    `rules` need not be `path` itself: a mutant of it, loaded from another file, runs the
    original's tests. `pattern` keeps the tests whose name holds it (any case); `examples` is
    the file's own examples file instead of the one beside it; `stop_at_first_failure` stops
    after the first test that fails (a mutant is caught: no need to run the rest);
    `trusted_agents` are the agents of code a record may name (given with `--agents`).
    ExamplesError for an examples file that cannot be read; a record that cannot be replayed is
    a result with status "error"."""
    found, records = select(rules, path, pattern, examples)
    results: list[TestResult] = []
    for example in found:
        results.append(TestResult("example", run_example(rules, example)))
        if stop_at_first_failure and not results[-1].passed:
            break
    else:
        for record in records:
            results.append(TestResult("playthrough", run_playthrough(rules, record, trusted_agents)))
            if stop_at_first_failure and not results[-1].passed:
                break
    return TestRun(rules.title, tuple(found), tuple(records), tuple(results))
