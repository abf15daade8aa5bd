"""The mutation report: counts, the score, and every survivor with its place, its change as a
diff and the hint; as text or as one JSON document, the same facts in both."""

from __future__ import annotations

from typing import Any

import attrs

from .. import lexical
from .explained import Explanation, path_for
from .runner import Result, Settings


@attrs.frozen
class Report:
    """Everything a run found, in the mutants' order."""

    title: str
    settings: Settings
    generated: int  # mutants of the file, duplicates dropped
    results: tuple[Result, ...]
    sample: int | None
    seed: int
    tests: str  # what the tests were, in words
    seconds: float = 0.0
    jobs: int = 1
    explained: dict[int, Explanation] = attrs.Factory(dict)  # mutant index -> its written reason
    unmatched: tuple[Explanation, ...] = ()  # reasons written for no mutant of the file
    planned: int | None = None  # the mutants a run stopped by Ctrl-C was to run; None: it ran them all

    def count(self, status: str, kind: str | None = None) -> int:
        return sum(r.status == status and (kind is None or r.kind == kind) for r in self.results)

    @property
    def run(self) -> int:
        return len(self.results) - self.count("refused")

    @property
    def score(self) -> float | None:
        """Caught mutants as a percentage of those run (refused ones count for nothing)."""
        return None if self.run == 0 else 100.0 * self.count("caught") / self.run

    @property
    def survivors(self) -> list[Result]:
        return [r for r in self.results if r.status == "survived"]

    @property
    def unexplained(self) -> list[Result]:
        """Survivors without a written reason: the gaps to look at."""
        return [r for r in self.survivors if r.mutant.index not in self.explained]

    @property
    def stale(self) -> list[tuple[Explanation, str]]:
        """Written reasons no longer needed, with why: their mutant is caught now, or no
        mutant of the file matches them (the rule changed)."""
        caught = [(self.explained[r.mutant.index], f"{r.mutant.where} is caught now")
                  for r in self.results if r.status == "caught" and r.mutant.index in self.explained]
        return caught + [(e, "no mutant of the file matches it") for e in self.unmatched]

    def text(self) -> str:
        s = self.settings
        sampled = (f", {self.sample} sampled (seed {self.seed})" if self.sample is not None
                   and self.sample < self.generated else "")
        score = "-" if self.score is None else f"{self.score:.1f}%"
        stopped = (f"interrupted: the report covers the {len(self.results)} of {self.planned} mutants run before "
                   "Ctrl-C" if self.planned is not None else None)
        lines = [
            f"{self.title}: {s.path}: {self.generated} mutants{sampled}",
            *([stopped] if stopped else []),
            f"tests: {self.tests}; a mutant is stopped after {s.max_decisions:,} decisions or {s.timeout:g} s",
            f"refused by the checker: {self.count('refused')}   run: {self.run}   "
            f"caught: {self.count('caught')} (endless: {self.count('caught', 'endless')}, "
            f"timed out: {self.count('caught', 'timeout')}{self._crashes()})   survived: {len(self.survivors)}"
            + (f" (with a written reason: {len(self.survivors) - len(self.unexplained)}, "
               f"without: {len(self.unexplained)})" if self.explained else ""),
            f"mutation score: {score}" + (f" ({self.count('caught')} of {self.run} caught)" if self.run else ""),
        ]
        if self.unexplained:
            lines += ["", "survivors:" if not self.explained else "survivors without a written reason:"]
        for r in self.unexplained:
            m = r.mutant
            lines.append(f"{m.where}  {m.operator}  {m.what}" + (f"  {r.hint}" if r.hint else ""))
            lines += ["    " + line for line in lexical.lines(m.diff(s.original))]  # a form feed ends no line
        reasoned = [r for r in self.survivors if r.mutant.index in self.explained]
        if reasoned:
            lines += ["", f"survivors with a written reason ({path_for(s.path)}):"]
            lines += [f"{r.mutant.where}  {r.mutant.operator}  {r.mutant.what}  "
                      f"{self.explained[r.mutant.index].reason}" for r in reasoned]
        if self.stale:
            lines += ["", f"written reasons no longer needed ({path_for(s.path)}):"]
            lines += [f"survivor #{e.entry} (line {e.line}, {e.operator} {e.change}): {why}" for e, why in self.stale]
        jobs = f" ({self.jobs} processes)" if self.jobs > 1 else ""
        lines.append(f"time: {self.seconds:.1f} s{jobs}")
        return "\n".join(lines)

    def _crashes(self) -> str:
        """Mutants ruleforge itself failed on (a bug to report), only when there are any."""
        n = self.count("caught", "crash")
        return f", ruleforge failed: {n}" if n else ""

    def _reason(self, r: Result) -> str | None:
        e = self.explained.get(r.mutant.index)
        return None if e is None else e.reason

    def as_json(self) -> dict[str, Any]:
        s = self.settings
        return {
            "game": self.title, "rules": s.path, "generated": self.generated,
            "sampled": self.sample if self.sample is not None and self.sample < self.generated else None,
            "seed": self.seed, "tests": self.tests, "max_decisions": s.max_decisions, "timeout": s.timeout,
            "refused": self.count("refused"), "run": self.run, "caught": self.count("caught"),
            "endless": self.count("caught", "endless"), "timed_out": self.count("caught", "timeout"),
            "crashed": self.count("caught", "crash"),
            "survived": len(self.survivors), "score": None if self.score is None else round(self.score, 2),
            "explained": len(self.survivors) - len(self.unexplained), "unexplained": len(self.unexplained),
            "survivors": [{**r.as_json(), "diff": r.mutant.diff(s.original),
                           "explained": self._reason(r)} for r in self.survivors],
            "stale": [{"entry": e.entry, "line": e.line, "operator": e.operator, "change": e.change, "why": why}
                      for e, why in self.stale],
            "mutants": [r.as_json() for r in self.results],
            "seconds": round(self.seconds, 3), "jobs": self.jobs,
            "interrupted": self.planned is not None, "planned": self.planned,
        }
