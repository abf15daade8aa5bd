"""The `ruleforge` command line: check, play, simulate, score and replay games, draw a replay or
a position as a picture, test their scoring examples, record a playthrough, count the decision
sequences to a depth (perft), mutate rules to see what the tests miss, and format rules files.

Every command turns bad input into one clear `error: ...` line (or the rules file's
diagnostics) and a non-zero exit; a traceback only ever means a bug in ruleforge. One
module per command; `common` holds what they share.
"""

from __future__ import annotations

import importlib
from typing import Any, NoReturn

import click

from .. import __version__
from ..__main__ import EXIT_INTERRUPTED
from .common import check_environment

# Each command's module and function, imported only when the command runs (or help lists it):
# `ruleforge check` should not pay for importing the statistics, the tests and mutation.
COMMANDS = {
    "check": "check:check", "play": "play:play", "simulate": "simulate:simulate", "score": "score:score",
    "replay": "replay:replay", "test": "examples:test", "playthrough": "playthrough:playthrough",
    "compare": "compare:compare", "mutate": "mutate:mutate", "serve": "serve:serve", "view": "view:view",
    "perft": "perft:perft", "lsp": "lsp:lsp", "fmt": "fmt:fmt",
}


class LazyGroup(click.Group):
    """A group whose commands are imported on first use (click's own recipe for big CLIs), and
    where Ctrl-C while the command line is read or the command imported is `interrupted` and
    exit status 130 (click's own answer is 'Aborted!' and 1)."""

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except KeyboardInterrupt:
            _interrupted()

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            _interrupted()

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return super().get_command(ctx, cmd_name)
        module, name = COMMANDS[cmd_name].split(":")
        command = getattr(importlib.import_module(f"{__name__}.{module}"), name)
        assert isinstance(command, click.Command) and command.name == cmd_name, cmd_name
        return command


def _interrupted() -> NoReturn:
    click.echo("interrupted", err=True)
    raise click.exceptions.Exit(EXIT_INTERRUPTED) from None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="ruleforge")
def main() -> None:
    """Write a tabletop game's rules as text; check, play, simulate, compare, score, replay, view, test and
    mutate it."""
    check_environment()


__all__ = ["COMMANDS", "main"]
