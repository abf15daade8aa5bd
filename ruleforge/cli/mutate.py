"""`ruleforge mutate`: which wrong rules would the tests let through? Single-point mutants of
a rules file, run against its tests, and every survivor shown with its change and a hint."""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Iterator
from pathlib import Path

import click

from .. import limits
from ..agents import agent_name
from ..diagnostics import GameError
from ..inert import inert_json
from ..mutation import OPERATORS, Report, Settings, default_test, explained, generate, results, sample, source_text
from ..mutation.command import Workspace, baseline, command_results
from ..mutation.runner import Result
from ..playthrough import playthrough
from ..rules import Rules
from .common import EXIT_INTERRUPTED, echo, fail, guarded, load_rules
from .progress import ProgressBar
from .simulate import usable_jobs

DEFAULT_TESTS = ("the examples, the recorded playthroughs and the move counts (ruleforge test), "
                 "and a trial game per player count (ruleforge check)")


@click.command("mutate")
@click.argument("file")
@click.option("--sample", "sample_size", type=click.IntRange(min=1), default=None, metavar="N",
              help="Run N mutants drawn at random (with --seed) instead of all.")
@click.option("--seed", type=int, default=0, show_default=True, help="The seed of --sample.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=1, show_default=True, metavar="N",
              help="Run N mutants at a time, each in a process of its own (a thread with --test-command).")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None, metavar="S",
              help="Seconds a mutant's tests may take before it counts as caught "
                   "[default: 10 times the original's (loaded, checked and tested), at least 5].")
@click.option("--max-decisions", type=click.IntRange(min=1), default=None, metavar="N",
              help="Decisions a game may take before the mutant counts as endless "
                   "[default: 10 times the original's longest trial game, at least 100].")
@click.option("--hint-seeds", type=click.IntRange(min=0), default=20, show_default=True, metavar="N",
              help="Games per player count played to compare a survivor with the original (0: no hint).")
@click.option("--operators", metavar="A,B", default=None,
              help=f"Only these operators ({', '.join(OPERATORS)}).")
@click.option("--test-command", metavar="CMD", default=None,
              help="Run CMD (a shell command) for each mutant instead of the examples, in a copy of the "
                   "current folder with the mutant written over the rules file; exit status 0 = survived.")
@click.option("--fail-under", type=click.FloatRange(0, 100), default=None, metavar="P",
              help="Exit status 1 when the mutation score is below P percent.")
@click.option("--fail-on-unexplained", is_flag=True,
              help="Exit status 1 when a survivor has no written reason in FILE's .mutants.json.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as one JSON document.")
@click.option("--agents", "agents", metavar="NAME,...",
              help="Agents of your own (module:Class, file.py:Class) that the recorded playthroughs may name, "
                   "as for ruleforge test.")
@guarded
def mutate(file: str, sample_size: int | None, seed: int, jobs: int, timeout: float | None,
           max_decisions: int | None, hint_seeds: int, operators: str | None, test_command: str | None,
           fail_under: float | None, fail_on_unexplained: bool, as_json: bool, agents: str | None) -> None:
    """Mutation testing: change the rules one point at a time and see whether the tests notice.

    Every mutant the checker accepts is run against the tests (by default what `ruleforge test`
    runs, and a trial game per player count); a mutant they pass is a survivor, shown with its
    place, its change and whether it plays any differently. See docs/testing.md.
    """
    if not Path(file).is_file():
        _usage_error(f"cannot read rules file '{file}': "
                     + ("it is not a file" if Path(file).exists() else "no such file"))
    jobs = usable_jobs(jobs)  # a worker per core at most: --test-command copies the folder for each
    chosen = _operators(operators)
    if test_command is not None and not test_command.strip():
        _usage_error("--test-command is empty")
    started = time.perf_counter()
    trusted = tuple(agent_name(name) for name in agents.split(",")) if agents else ()
    rules = load_rules(file)
    original = source_text(rules)
    reasons = explained.read(explained.path_for(file))  # a bad file fails before any mutant runs
    decisions = max_decisions or _decisions(rules)
    workspace = Workspace(file, jobs) if test_command is not None else None
    try:
        took = _baseline(file, original, decisions, workspace, test_command, trusted)
        settings = Settings(file, original, decisions, timeout or max(5.0, math.ceil(10 * took)),
                            hint_seeds, test_command, trusted)
        every = generate(rules)
        mutants = [m for m in every if chosen is None or m.operator in chosen]
        picked = sample(mutants, sample_size, seed)
        if workspace is None:
            running = results(settings, picked, jobs)
        else:
            running = command_results(settings, workspace, picked, jobs)
        found, completed = _collect(running, len(picked))
    finally:
        if workspace is not None:
            workspace.close()
    tests = f"`{test_command}`" if test_command is not None else DEFAULT_TESTS
    survived = frozenset(r.mutant.index for r in found if r.status == "survived")
    named = explained.explain(every, original, reasons, survived)
    report = Report(rules.title, settings, len(mutants), found, sample_size, seed, tests,
                    time.perf_counter() - started, jobs, named,
                    tuple(e for e in reasons if e not in named.values()),
                    planned=None if completed else len(picked))
    echo(inert_json(report.as_json(), indent=2, ensure_ascii=False) if as_json else report.text())
    if not completed:
        raise click.exceptions.Exit(EXIT_INTERRUPTED)
    if fail_under is not None and report.score is not None and report.score < fail_under:
        raise click.exceptions.Exit(1)
    if fail_on_unexplained and report.unexplained:
        raise click.exceptions.Exit(1)


def _collect(running: Iterator[Result], total: int) -> tuple[tuple[Result, ...], bool]:
    """The results as they come, with a progress bar on a terminal (a full run takes minutes);
    Ctrl-C stops the run and keeps the results so far, which the report then covers."""
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn

    found: list[Result] = []
    columns = [TextColumn("mutating"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
               TimeRemainingColumn()]
    with ProgressBar(columns, total) as bar:
        try:
            with contextlib.closing(running):
                for result in running:
                    found.append(result)
                    bar.advance(f"survived {sum(r.status == 'survived' for r in found)}")
        except KeyboardInterrupt:
            return tuple(found), False
    return tuple(found), True


def _usage_error(message: str) -> None:
    echo(f"error: {message}", err=True)
    raise click.exceptions.Exit(2)


def _operators(spec: str | None) -> set[str] | None:
    if spec is None:
        return None
    names = {n.strip() for n in spec.split(",") if n.strip()}
    unknown = sorted(names - set(OPERATORS))
    if unknown or not names:
        _usage_error(f"--operators: no operator '{unknown[0] if unknown else spec}'; operators: {', '.join(OPERATORS)}")
    return names


def _decisions(rules: Rules) -> int:
    """10 times the longest trial game of the original (seed 0, each player count), at least 100."""
    lo, hi = rules.player_range
    longest = 0
    for players in range(lo, hi + 1):
        try:
            longest = max(longest, len(playthrough(rules, players, 0).decisions))
        except GameError:
            pass  # the original's own tests say what is wrong with it, next
    return max(100, 10 * longest)


def _baseline(file: str, original: str, decisions: int, workspace: Workspace | None,
              command: str | None, trusted: tuple[str, ...] = ()) -> float:
    """Run the tests on the original file, which must pass them; the seconds they took."""
    start = time.perf_counter()
    if workspace is not None and command is not None:
        settings = Settings(file, original, decisions, 0.0, 0, command)
        status, last = baseline(workspace, settings, timeout=3600)
        if status != 0:
            fail(f"the test command fails on the original {file} (exit status {status}"
                 f"{': ' + last if last else ''}): mutants would all look caught")
    else:  # timed as a mutant is run: loaded, checked and compiled afresh, then tested
        with limits.raised(decisions_per_game=decisions):
            fresh = Rules(file, original)
            fresh.check_player_counts(trial_games=0)
            failing = default_test(fresh, file, trusted)
        if failing:
            more = f" (and {len(failing) - 1} more)" if len(failing) > 1 else ""
            fail(f"the tests fail on the original {file}: {failing[0]}{more}; "
                 "fix them first (ruleforge test, ruleforge check)")
    return time.perf_counter() - start
