"""`ruleforge playthrough`: one seeded game between automatic agents, printed as a record that
is the same on every run (see ruleforge/playthrough.py), for snapshots that guard every rule."""

from __future__ import annotations

import click

from ..playthrough import Playthrough, PlaythroughError
from ..playthrough import playthrough as record_game
from .common import (
    fail,
    game_limits,
    game_options,
    guarded,
    limit_options,
    load_rules,
    parse_options,
    resolve_players,
    too_many_decisions,
)


def _print(record: Playthrough, as_json: bool) -> None:
    if as_json:
        click.echo(record.json_text(), nl=False)
    else:
        click.echo(record.text(), nl=False)


@click.command()
@click.argument("file")
@game_options
@click.option("--json", "as_json", is_flag=True, help="Print the record as one JSON document.")
@limit_options
@guarded
def playthrough(file: str, players: int | None, seed: int | None, agents: str | None, option: tuple[str, ...],
                as_json: bool, max_decisions: int | None, max_skips: int | None) -> None:
    """Play one game between automatic agents and print every decision (who, among how many
    legal actions, which), the log as each player sees it, and the final scores.

    The same rules, players, seed and agents print the same record, byte for byte. A game
    that fails or passes --max-decisions prints the record so far and exits with status 1.
    """
    rules = load_rules(file)
    n = resolve_players(rules, players)
    options = parse_options(rules, option)
    with game_limits(max_decisions, max_skips):
        try:
            record = record_game(rules, n, 0 if seed is None else seed, agents, options)
        except PlaythroughError as err:
            if err.playthrough is not None:
                _print(err.playthrough, as_json)
            fail(str(err))
        problem = too_many_decisions(len(record.decisions)) if record.stopped else None
    _print(record, as_json)
    if problem:
        fail(problem)
