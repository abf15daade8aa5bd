"""`ruleforge check`: every problem of some rules files, with its line and column."""

from __future__ import annotations

import click

from ..diagnostics import RulesError
from .common import guarded, load_rules


@click.command()
@click.argument("files", nargs=-1, required=True)
@guarded
def check(files: tuple[str, ...]) -> None:
    """Check rules files and report every problem with its line and column."""
    failed = 0
    for path in files:
        try:
            rules = load_rules(path)
            rules.check_player_counts()  # setup-time values are only known per player count
        except RulesError as err:
            click.echo(err.render(), err=True)
            failed += 1
            continue
        lo, hi = rules.player_range
        span = f"{lo}" if lo == hi else f"{lo}-{hi}"
        opts = f", options: {', '.join(rules.model.options)}" if rules.model.options else ""
        click.echo(f"{path}: ok ({span} players, {rules.title}{opts})")
    if failed:
        click.echo(f"{failed} of {len(files)} file(s) have errors", err=True)
        raise click.exceptions.Exit(1)
