"""`ruleforge replay`: check a log step by step against its rules."""

from __future__ import annotations

import shlex

import click

from .common import echo, guarded
from .gamelog import find_rules, logged_game, read_log, replay_steps


@click.command()
@click.argument("log_file", metavar="LOG.json")
@click.option("--rules", "rules_path", metavar="FILE",
              help="The rules to replay with [default: the rules the log names, looked for beside the log, "
                   "at their absolute path, then as typed].")
@click.option("--verbose", "-v", is_flag=True, help="Print the game's log while replaying.")
@guarded
def replay(log_file: str, rules_path: str | None, verbose: bool) -> None:
    """Replay a log written by `play --log` and check that every step gives the same state."""
    record = read_log(log_file)
    rules, _path = find_rules(record, rules_path)
    game = logged_game(rules, record)
    shown = 0

    def show() -> None:
        nonlocal shown
        if verbose:
            for line in game.log_lines(shown):
                echo(line)
        shown = len(game.state.log)

    replay_steps(game, record, before_step=show)
    show()
    note = "" if game.is_over else (f" (the log stops before the end of the game; continue it with: "
                                    f"ruleforge play --resume {shlex.quote(log_file)})")
    echo(f"replayed {len(record.steps)} steps: identical{note}")
