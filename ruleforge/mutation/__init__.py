"""Mutation testing of rules files (`ruleforge mutate`): single-point changes made in the
syntax tree, kept when the checker accepts them, run against the author's tests.

`operators` finds the changes, `mutants` makes and describes them, `runner` runs the tests
under limits of decisions and time, `command` runs an author's own command instead, and
`report` says what survived, and `explained` reads the survivors an author gave a reason for
(`foo.mutants.json`). Guide: docs/testing.md."""

from __future__ import annotations

from . import explained
from .mutants import Mutant, generate, sample, source_text
from .operators import OPERATORS
from .report import Report
from .runner import Result, Settings, default_test, hint, results, run_mutant

__all__ = ["OPERATORS", "Mutant", "Report", "Result", "Settings", "default_test", "explained", "generate", "hint",
           "results", "run_mutant", "sample", "source_text"]
