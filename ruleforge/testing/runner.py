"""Everything `ruleforge test` runs, as one call: a rules file's scoring examples (its bases'
too), then its recorded playthroughs, then the move counts kept beside it (`foo.perft.json`).
`ruleforge mutate` calls it in-process on each mutant, so it returns results instead of
printing them."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any

import attrs

from ..rules import Rules
from .checks import Outcome, run_example
from .examples import Example, load_examples
from .perft_files import PerftEntry, PerftOutcome, perft_file, read_perft, run_perft
from .playthroughs import PlaythroughOutcome, playthroughs_of, run_playthrough


@attrs.frozen(eq=False)
class TestResult:
    """One test `ruleforge test` ran: an example or a recorded playthrough."""

    __test__ = False  # not a pytest test class

    kind: str  # "example", "playthrough" or "perft"
    outcome: Outcome | PlaythroughOutcome | PerftOutcome

    @property
    def name(self) -> str:
        """As `-k` matches it: the example's name, `playthrough 2p-seed1`, or `perft 3p seed 0`."""
        if isinstance(self.outcome, Outcome):
            return self.outcome.example.name
        if isinstance(self.outcome, PerftOutcome):
            return self.outcome.name
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
    """The results of one `run_tests`, examples first, move counts last."""

    __test__ = False

    title: str
    examples: tuple[Example, ...]
    playthroughs: tuple[Path, ...]
    results: tuple[TestResult, ...]
    perfts: tuple[PerftEntry, ...] = ()

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
                "perft": [r.outcome.as_json() for r in self.results if r.kind == "perft"],
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


def select_perft(rules: Rules, path: str | Path | None = None, pattern: str | None = None) -> list[PerftEntry]:
    """The move counts kept beside the rules file (only its own: a variant's moves are not its
    base's), `pattern` applied to their names (`perft 3p seed 0`). PerftError for a file that
    cannot be read."""
    target = perft_file(Path(path) if path is not None else rules.files[0])
    entries = read_perft(target) if target.exists() else []
    if pattern is not None:
        entries = [e for e in entries if pattern.lower() in e.name.lower()]
    return entries


def run_tests(rules: Rules, path: str | Path | None = None, *, pattern: str | None = None,
              examples: str | Path | None = None, stop_at_first_failure: bool = False,
              trusted_agents: Collection[str] = (), perft: bool = True) -> TestRun:
    """Run what `ruleforge test` runs against `rules`: the examples of `path` (default: the
    rules' own file) and of the files it extends, then the playthroughs recorded beside `path`.

    `rules` need not be `path` itself: a mutant of it, loaded from another file, runs the
    original's tests. `pattern` keeps the tests whose name holds it (any case); `examples` is
    the file's own examples file instead of the one beside it; `stop_at_first_failure` stops
    after the first test that fails (a mutant is caught: no need to run the rest);
    `trusted_agents` are the agents of code a record may name (given with `--agents`); `perft`
    False leaves the move counts out (mutation testing: see ruleforge/mutation/runner.py).
    ExamplesError for an examples file that cannot be read, PerftError for a counts file; a
    record that cannot be replayed, or a count that cannot be made, is a result with status
    "error"."""
    found, records = select(rules, path, pattern, examples)
    counted = select_perft(rules, path, pattern) if perft else []
    rules_file = str(path) if path is not None else str(rules.files[0])
    results: list[TestResult] = []
    for item in [*found, *records, *counted]:
        outcome: Outcome | PlaythroughOutcome | PerftOutcome
        if isinstance(item, Example):
            kind, outcome = "example", run_example(rules, item)
        elif isinstance(item, PerftEntry):
            kind, outcome = "perft", run_perft(rules, item, rules_file)
        else:
            kind, outcome = "playthrough", run_playthrough(rules, item, trusted_agents)
        results.append(TestResult(kind, outcome))
        if stop_at_first_failure and not outcome.passed:
            break
    return TestRun(rules.title, tuple(found), tuple(records), tuple(results), tuple(counted))
