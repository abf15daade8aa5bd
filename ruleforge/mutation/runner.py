"""Running the tests against each mutant, with a limit on decisions and on time, in worker
processes; and the hint for a survivor (does it play like the original?).

A mutant is loaded from its text as if it were the file at the original path, so `extends`
and relative paths resolve as for the original; nothing is written to the user's files.
"""

from __future__ import annotations

import multiprocessing
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any

import attrs

from .. import limits
from ..diagnostics import GameError, RulesError
from ..playthrough import PlaythroughError, playthrough
from ..rules import Rules
from ..testing import Outcome, PerftOutcome
from ..testing.runner import TestResult, run_tests
from .mutants import Mutant

_ENDLESS = ("decisions and is not over", "never ends", "the game cannot go on")


@attrs.frozen
class Settings:
    """What every mutant is run with: the original, the limits and the hint's seeds."""

    path: str
    original: str  # the file's text, line ends made '\n'
    max_decisions: int  # a game longer than this counts as endless
    timeout: float  # seconds for a mutant's check and tests (and again for its hint)
    hint_seeds: int  # seeds per player count the hint plays
    command: str | None = None  # --test-command: run by the caller, not here
    agents: tuple[str, ...] = ()  # agents of code the recorded playthroughs may name (--agents)


@attrs.frozen
class Result:
    """What one mutant came to: `refused` (by the checker), `caught` or `survived`; `kind` says
    how a caught one was caught: `tests`, `endless`, `timeout`, or `crash` (ruleforge itself
    failed on it: a bug, counted as caught so that the run goes on)."""

    mutant: Mutant
    status: str
    reason: str = ""
    kind: str = ""
    hint: str | None = None

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {**self.mutant.as_json(), "status": self.status}
        if self.reason:
            out["reason"] = self.reason
        if self.kind:
            out["caught_by"] = self.kind
        if self.hint is not None:
            out["hint"] = self.hint
        return out


class TimedOut(BaseException):
    """The mutant's time ran out (a BaseException: rules code catching `Exception` cannot eat it)."""


# --- the default tests ------------------------------------------------------------------------

def default_test(rules: Rules, path: str, trusted_agents: tuple[str, ...] = ()) -> list[str]:
    """The checks that fail: what `ruleforge test` runs for the file (its examples and its
    bases', then the playthroughs and the move counts kept beside it), stopping at the first failure, and if
    all pass one trial game per player count as `ruleforge check` plays it. Each failing check
    is one line naming it; an empty list means every check passed. `trusted_agents` are the
    agents of code a record may name (a record names only built-in ones otherwise)."""
    # The move counts come last (run_tests' order): only a mutant every other test let through
    # pays for their walks.
    run = run_tests(rules, path, stop_at_first_failure=True, trusted_agents=trusted_agents)
    failing = [_failure(result) for result in run.results if not result.passed]
    if failing:
        return failing
    try:
        rules.check_player_counts(trial_games=1)
    except RulesError as err:
        failing.extend(d.message for d in err.diagnostics)
    return failing


def _failure(result: TestResult) -> str:
    """One line for a failed test: the example's checks that moved, or where a record differs."""
    outcome = result.outcome
    if isinstance(outcome, Outcome):
        detail = outcome.error if outcome.error is not None else ", ".join(
            f"{c.label} {c.expected} -> {c.actual}" for c in outcome.failed_checks)
        return f"example '{outcome.example.name}' ({outcome.example.origin.name}): {detail}"
    if isinstance(outcome, PerftOutcome):  # the depths whose counts moved, between the heading and the advice
        detail = outcome.error if outcome.error is not None else "; ".join(outcome.report()[1:-1])
    else:
        detail = outcome.error if outcome.error is not None else f"differs from {outcome.where}"
    return f"{result.name}: {detail}"


# --- one mutant -------------------------------------------------------------------------------

def checked(settings: Settings, mutant: Mutant) -> Rules | str:
    """The mutant's rules, or the checker's first complaint when it refuses them."""
    try:
        rules = Rules(settings.path, mutant.apply(settings.original))
        rules.check_player_counts(trial_games=0)  # what only compiling a player count finds
    except RulesError as err:
        first = err.diagnostics[0]
        return f"{first.pos.line}:{first.pos.column}: {first.message}"
    return rules


def run_mutant(settings: Settings, mutant: Mutant,
               test: Callable[[Rules, str], list[str]] = default_test) -> Result:
    """Check the mutant, run the tests on it under the limits, and hint at a survivor."""
    try:
        with _time_limit(settings.timeout), limits.raised(decisions_per_game=settings.max_decisions):
            rules = checked(settings, mutant)
            if isinstance(rules, str):
                return Result(mutant, "refused", rules)
            failing = test(rules, settings.path, settings.agents) if test is default_test \
                else test(rules, settings.path)
    except TimedOut:
        return Result(mutant, "caught", f"timed out after {settings.timeout:g} s", "timeout")
    except GameError as err:  # a rule failing outside the examples and trials: caught
        failing = [str(err)]
    except Exception as err:  # ruleforge itself failed on this mutant: say so, go on
        return Result(mutant, "caught", f"crashed: {type(err).__name__}: {err}", "crash")
    if failing:
        endless = next((f for f in failing if any(mark in f for mark in _ENDLESS)), None)
        if endless is not None and "decisions and is not over" in endless:
            return Result(mutant, "caught", f"endless: more than {settings.max_decisions:,} decisions", "endless")
        if endless is not None:
            return Result(mutant, "caught", f"endless: {endless}", "endless")
        more = f" (and {len(failing) - 1} more)" if len(failing) > 1 else ""
        return Result(mutant, "caught", failing[0] + more, "tests")
    return Result(mutant, "survived", hint=hint(settings, rules) if settings.hint_seeds else None)


# --- the hint for a survivor ------------------------------------------------------------------

_ORIGINAL_RECORDS: dict[tuple[str, int, int], list[str]] = {}


def hint(settings: Settings, rules: Rules) -> str:
    """Play the original and the mutant with the same seeds and compare every record:
    identical ones suggest the mutant is equivalent; the first difference says where to look."""
    games = 0
    try:
        with _time_limit(settings.timeout), limits.raised(decisions_per_game=settings.max_decisions):
            original = _original(settings)
            lo, hi = original.player_range
            for players in range(lo, hi + 1):
                for seed in range(settings.hint_seeds):
                    theirs = _record(rules, players, seed)
                    ours = _original_record(settings, original, players, seed)
                    games += 1
                    if theirs != ours:
                        return f"plays differently: seed {seed}, {players} players, {_where_differs(ours, theirs)}"
    except TimedOut:
        return f"no hint: playing took over {settings.timeout:g} s after {games} identical games"
    return f"looks equivalent: identical playthroughs over {games} games"


_ORIGINALS: dict[str, Rules] = {}


def _original(settings: Settings) -> Rules:
    if settings.path not in _ORIGINALS:
        _ORIGINALS[settings.path] = Rules(settings.path, settings.original)
    return _ORIGINALS[settings.path]


def _original_record(settings: Settings, original: Rules, players: int, seed: int) -> list[str]:
    key = (settings.path, players, seed)
    if key not in _ORIGINAL_RECORDS:
        _ORIGINAL_RECORDS[key] = _record(original, players, seed)
    return _ORIGINAL_RECORDS[key]


def _record(rules: Rules, players: int, seed: int) -> list[str]:
    """A random-agents playthrough as lines of text (a failure is its last line)."""
    try:
        return playthrough(rules, players, seed).text().splitlines()
    except PlaythroughError as err:
        return (err.playthrough.text().splitlines() if err.playthrough is not None
                else [f"failed at setup: {err}"])
    except GameError as err:
        return [f"cannot play: {err}"]


def _where_differs(ours: list[str], theirs: list[str]) -> str:
    """`from decision K` (the decision whose record first differs), `at setup`, or `in the end`
    (the same decisions, another final position or score)."""
    decision = 0
    for a, b in zip([*ours, ""], [*theirs, ""], strict=False):
        if a.startswith(_ENDINGS) and b.startswith(_ENDINGS) and a != b and a.split(" ", 1)[0] == b.split(" ", 1)[0]:
            return "in the final position or scores"
        for line in (a, b):
            number = line.split(".", 1)[0]
            if number.isdigit():
                decision = max(decision, int(number))
        if a != b:
            break
        if a.startswith(_ENDINGS):
            return "in the final position or scores"
    return "at setup" if decision == 0 else f"from decision {decision}"


_ENDINGS = ("game over", "stopped after", "failed:")


# --- limits on time ---------------------------------------------------------------------------

class _time_limit:
    """`with _time_limit(s):` raises TimedOut after `s` seconds: a signal timer, which stops
    even a rule looping for ever. Only the main thread gets signals: elsewhere (the threads of
    `--test-command`, whose commands have their own timeout) it does nothing."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.active = threading.current_thread() is threading.main_thread()

    def __enter__(self) -> None:
        if self.active:
            self.old = signal.signal(signal.SIGALRM, _alarm)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)

    def __exit__(self, *exc: object) -> None:
        if self.active:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.old)


def _alarm(signum: int, frame: object) -> None:
    raise TimedOut()


# --- many mutants -----------------------------------------------------------------------------

_SETTINGS: list[Settings] = []


def _start_worker(settings: Settings) -> None:
    """Workers leave Ctrl-C to the parent, which stops them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _SETTINGS[:] = [settings]


def _run_in_worker(mutant: Mutant) -> Result:
    return run_mutant(_SETTINGS[0], mutant)


def results(settings: Settings, mutants: list[Mutant], jobs: int) -> Iterator[Result]:
    """Each mutant's result in the mutants' order, run in `jobs` worker processes (here when 1)."""
    if jobs <= 1 or len(mutants) <= 1:
        for m in mutants:
            yield run_mutant(settings, m)
        return
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    pool = context.Pool(min(jobs, len(mutants)), initializer=_start_worker, initargs=(settings,), maxtasksperchild=50)
    try:
        yield from pool.imap(_run_in_worker, mutants)
        pool.close()
    finally:
        pool.terminate()
        pool.join()

