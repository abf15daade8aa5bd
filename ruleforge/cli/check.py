"""`ruleforge check`: every problem of some rules files, with its line and column."""

from __future__ import annotations

import click

from ..diagnostics import RulesError
from .common import echo, echo_rules_error, guarded, load_rules


@click.command()
@click.argument("files", nargs=-1, required=True)
@click.option("--trials", type=click.IntRange(min=0), default=1, show_default=True,
              help="Trial games of random legal actions played per player count (0: none).")
@guarded
def check(files: tuple[str, ...], trials: int) -> None:
    """Check rules files and report every problem with its line and column.

    Every player count is compiled and played in trial games, so that what a game would run
    into (a rule failing, a loop that never ends, a game no one can go on with) is reported
    here, at its rule, before any game is played for real.
    """
    failed = 0
    for path in files:
        try:
            rules = load_rules(path)
            rules.check_player_counts(trial_games=trials)
        except RulesError as err:
            echo_rules_error(err)
            failed += 1
            continue
        lo, hi = rules.player_range
        span = f"{lo}" if lo == hi else f"{lo}-{hi}"
        opts = f", options: {', '.join(rules.model.options)}" if rules.model.options else ""
        echo(f"{path}: ok ({span} players, {rules.title}{opts})")
    if failed:
        echo(f"{failed} of {len(files)} file(s) have errors", err=True)
        raise click.exceptions.Exit(1)
