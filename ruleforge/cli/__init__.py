"""The `ruleforge` command line: check, play, simulate, score and replay games, test their
scoring examples, record a playthrough, and mutate rules to see what the tests miss.

Every command turns bad input into one clear `error: ...` line (or the rules file's
diagnostics) and a non-zero exit; a traceback only ever means a bug in ruleforge. One
module per command; `common` holds what they share.
"""

from __future__ import annotations

import click

from .. import __version__
from . import check, compare, examples, mutate, play, playthrough, replay, score, simulate
from .common import check_environment


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ruleforge")
def main() -> None:
    """Write a tabletop game's rules as text; check, play, simulate, compare, score, replay, test and mutate it."""
    check_environment()


for command in (check.check, play.play, simulate.simulate, score.score, replay.replay, examples.test,
                playthrough.playthrough, compare.compare, mutate.mutate):
    main.add_command(command)

__all__ = ["main"]
