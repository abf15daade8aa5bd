"""`ruleforge test`: run a rules file's scoring examples, one line per example; a failure
shows every checked item expected and actual side by side."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..testing import Example, Outcome, examples_file, examples_of, run_example
from .common import fail, guarded, load_rules

MARK = {"pass": "PASS ", "fail": "FAIL ", "error": "ERROR"}


@click.command("test")
@click.argument("file")
@click.option("--examples", "examples_path", metavar="FILE",
              help="The rules file's own examples from FILE instead of the .examples.json beside it.")
@click.option("-k", "pattern", metavar="TEXT", help="Run only the examples whose name contains TEXT (any case).")
@click.option("--json", "as_json", is_flag=True, help="Print every example's checks and scores as JSON.")
@guarded
def test(file: str, examples_path: str | None, pattern: str | None, as_json: bool) -> None:
    """Run the scoring examples of a rules file (and of the files it extends).

    The examples live beside the rules: `foo.rules` -> `foo.examples.json` (docs/testing.md).
    Exit status 1 if any example fails or cannot run.
    """
    rules = load_rules(file)
    if examples_path is not None and not Path(examples_path).is_file():
        fail(f"cannot read examples file '{examples_path}': no such file")
    examples = examples_of(rules, examples_path)
    if not examples:
        looked = [str(examples_file(f)) for f in rules.files]
        fail(f"no examples for {rules.title}: none in {', '.join(looked)} (docs/testing.md shows how to write them)")
    if pattern is not None:
        examples = [e for e in examples if pattern.lower() in e.name.lower()]
        if not examples:
            fail(f"no example's name contains '{pattern}'")
    own = Path(examples_path) if examples_path else examples_file(rules.files[0])
    outcomes = [run_example(rules, e) for e in examples]
    counts = {s: sum(o.status == s for o in outcomes) for s in ("pass", "fail", "error")}
    if as_json:
        click.echo(json.dumps({"game": rules.title, "rules": file, "examples": [o.as_json() for o in outcomes],
                               "passed": counts["pass"], "failed": counts["fail"], "errors": counts["error"]},
                              indent=2, ensure_ascii=False))
    else:
        click.echo(f"{rules.title}: {_how_many(len(outcomes))} ({_sources(examples, own)})")
        for outcome in outcomes:
            click.echo(_line(outcome, own))
            if not outcome.passed:
                for line in outcome.report():
                    click.echo(f"      {line}")
        click.echo(_summary(counts))
    if counts["fail"] or counts["error"]:
        raise click.exceptions.Exit(1)


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
