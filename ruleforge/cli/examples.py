"""`ruleforge test`: run a rules file's scoring examples, replay its recorded playthroughs and
count its moves against the counts kept beside it, one line each; a failing example shows every
checked item expected and actual side by side, a failing playthrough the first lines that
differ, a failing count each depth that moved."""

from __future__ import annotations

from pathlib import Path

import click

from ..agents import agent_name
from ..inert import inert_json
from ..testing import Example, Outcome, examples_file
from ..testing.perft_files import PerftEntry, PerftOutcome, perft_file
from ..testing.playthroughs import PlaythroughOutcome, playthroughs_dir
from ..testing.runner import TestResult, run_tests, select, select_perft
from .common import echo, fail, guarded, load_rules

MARK = {"pass": "PASS ", "fail": "FAIL ", "error": "ERROR"}


@click.command("test")
@click.argument("file")
@click.option("--examples", "examples_path", metavar="FILE",
              help="The rules file's own examples from FILE instead of the .examples.json beside it.")
@click.option("-k", "pattern", metavar="TEXT",
              help="Run only the examples and playthroughs whose name contains TEXT (any case; a playthrough's "
                   "name is 'playthrough NAME').")
@click.option("--json", "as_json", is_flag=True, help="Print every example's checks and scores, and every "
                                                       "playthrough's result, as JSON.")
@click.option("--agents", "agents", metavar="NAME,...",
              help="Agents of your own (module:Class, file.py:Class) that the recorded playthroughs may name: "
                   "a record names only built-in agents otherwise, so that one from anyone runs no code.")
@guarded
def test(file: str, examples_path: str | None, pattern: str | None, as_json: bool, agents: str | None) -> None:
    """Run the scoring examples of a rules file (and of the files it extends), then replay its
    recorded playthroughs, then check its move counts.

    The examples live beside the rules: `foo.rules` -> `foo.examples.json`; the playthroughs in
    `foo.playthroughs/`, recorded by `ruleforge playthrough --record`; the move counts in
    `foo.perft.json`, written by `ruleforge perft --write` (docs/testing.md).
    Exit status 1 if any example, playthrough or count fails or cannot run.
    """
    rules = load_rules(file)
    if examples_path is not None and not Path(examples_path).is_file():
        why = "it is not a file" if Path(examples_path).exists() else "no such file"
        fail(f"cannot read examples file '{examples_path}': {why}")
    trusted = [agent_name(name) for name in agents.split(",")] if agents else []
    run = run_tests(rules, file, pattern=pattern, examples=examples_path, trusted_agents=trusted)
    examples, records, counted = list(run.examples), list(run.playthroughs), list(run.perfts)
    if not examples and not records and not counted:
        if pattern is not None and (any(select(rules, file, None, examples_path)) or select_perft(rules, file)):
            fail(f"no example's name contains '{pattern}' (nor any playthrough's or move count's)")
        looked = [str(examples_file(f)) for f in rules.files]
        fail(f"no examples for {rules.title}: none in {', '.join(looked)}, no playthroughs in "
             f"{playthroughs_dir(file)} and no move counts in {perft_file(file)} (docs/testing.md shows how to "
             "write them)")
    own = Path(examples_path) if examples_path else examples_file(file)
    if as_json:
        echo(inert_json({"game": rules.title, "rules": file, **run.as_json()}, indent=2, ensure_ascii=False))
    else:
        echo(f"{rules.title}: {_what(examples, records, own, file, counted)}")
        for result in run.results:
            echo(_line(result.outcome, own) if result.kind == "example" else _result_line(result))
            for line in result.report():
                echo(f"      {line}")
        echo(_summary(run.counts()))
    if not run.passed:
        raise click.exceptions.Exit(1)


def _what(examples: list[Example], records: list[Path], own: Path, file: str, counted: list[PerftEntry]) -> str:
    """`13 examples (2 from ..., 11 from ...), 2 playthroughs (games/x.playthroughs), 3 move
    counts (games/x.perft.json)`."""
    parts = [f"{_how_many(len(examples))} ({_sources(examples, own)})"] if examples else []
    if records:
        word = "playthrough" if len(records) == 1 else "playthroughs"
        parts.append(f"{len(records)} {word} ({_name(playthroughs_dir(file))})")
    if counted:
        word = "move count" if len(counted) == 1 else "move counts"
        parts.append(f"{len(counted)} {word} ({_name(perft_file(file))})")
    return ", ".join(parts)


def _result_line(result: TestResult) -> str:
    """A playthrough's or a move count's line: its mark and name and, when it passed, what it
    went through (`(88 decisions)`, `(depth 3: 7,386)`)."""
    outcome = result.outcome
    if not outcome.passed:
        return f"{MARK[outcome.status]} {result.name}"
    if isinstance(outcome, PerftOutcome):
        detail = f"depth {len(outcome.actual)}: {outcome.actual[-1]:,}"
    else:
        assert isinstance(outcome, PlaythroughOutcome)
        detail = f"{outcome.played} decisions"
    return f"{MARK['pass']} {result.name}  ({detail})"


def _how_many(n: int) -> str:
    return "1 example" if n == 1 else f"{n} examples"


def _sources(examples: list[Example], own: Path) -> str:
    """Which files the examples come from, the rules' own first."""
    files: dict[Path, int] = {}
    for e in examples:
        files[e.origin] = files.get(e.origin, 0) + 1
    ordered = sorted(files, key=lambda f: f != own)
    return ", ".join(f"{files[f]} from {_name(f)}" for f in ordered)


def _name(path: Path) -> str:
    """A file as short as it can be read: relative to the working folder when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _line(outcome: Outcome, own: Path) -> str:
    ex = outcome.example
    inherited = f"  [from {ex.origin.name}]" if ex.origin != own else \
        f"  [replaces {ex.replaces.name}'s]" if ex.replaces is not None else ""
    if outcome.status == "pass" and outcome.breakdown is not None and ex.expect:
        totals = outcome.breakdown.totals()
        shown = ", ".join(f"P{p + 1} {totals[p]}" for p in sorted(ex.expect))
        return f"{MARK['pass']} {ex.name}  ({shown}){inherited}"
    return f"{MARK[outcome.status]} {ex.name}{inherited}"


def _summary(counts: dict[str, int]) -> str:
    parts = [f"{counts['pass']} passed"]
    if counts["fail"]:
        parts.append(f"{counts['fail']} failed")
    if counts["error"]:
        parts.append(f"{counts['error']} could not run")
    return ", ".join(parts)
