"""Rule authors test their rules: scoring examples beside a rules file (`foo.examples.json`),
recorded playthroughs (`foo.playthroughs/*.txt`) and move counts (`foo.perft.json`), run by
`ruleforge test` (`run_tests`) and collected by the pytest plugin (`ruleforge.testing.plugin`).
Guide: docs/testing.md."""

from __future__ import annotations

from pathlib import Path

from ..rules import Rules
from ..scoresheet import Breakdown
from .checks import Check, Outcome, example_game, run_example
from .examples import (
    EXAMPLES_FORMAT,
    Example,
    ExamplesError,
    examples_file,
    load_examples,
    read_examples,
    rules_file_of,
)
from .perft_files import PERFT_FORMAT, PerftEntry, PerftError, PerftOutcome, perft_file, read_perft, run_perft
from .playthroughs import PlaythroughOutcome, playthroughs_dir, playthroughs_of, record_name, run_playthrough
from .runner import TestResult, TestRun, run_tests


def examples_of(rules: Rules, own: str | Path | None = None) -> list[Example]:
    """Every example `rules` runs: its bases' (for a variant) and its own, beside the file or
    in `own`."""
    return load_examples(rules.files, own)


__all__ = ["EXAMPLES_FORMAT", "Breakdown", "Check", "Example", "ExamplesError", "Outcome", "example_game",
           "examples_file", "examples_of", "load_examples", "read_examples", "rules_file_of", "run_example",
           "PlaythroughOutcome", "TestResult", "TestRun", "playthroughs_dir", "playthroughs_of", "record_name",
           "run_playthrough", "run_tests", "PERFT_FORMAT", "PerftEntry", "PerftError", "PerftOutcome", "perft_file",
           "read_perft", "run_perft"]
