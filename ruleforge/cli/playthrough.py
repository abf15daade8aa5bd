"""`ruleforge playthrough`: one seeded game between automatic agents, printed as a record that
is the same on every run (see ruleforge/playthrough.py), or with `--record` kept beside the
rules file for `ruleforge test` to replay (ruleforge/testing/playthroughs.py)."""

from __future__ import annotations

from pathlib import Path

import click

from ..playthrough import Playthrough, PlaythroughError
from ..playthrough import playthrough as record_game
from ..testing.playthroughs import compare, playthroughs_dir, record_name
from .common import (
    echo,
    fail,
    game_limits,
    game_options,
    guarded,
    limit_options,
    load_rules,
    parse_options,
    resolve_players,
    too_many_decisions,
    write_atomic,
)


def _print(record: Playthrough, as_json: bool) -> None:
    if as_json:
        echo(record.json_text(), nl=False)
    else:
        echo(record.text(), nl=False)


@click.command()
@click.argument("file")
@game_options
@click.option("--json", "as_json", is_flag=True, help="Print the record as one JSON document.")
@click.option("--record", is_flag=True,
              help="Keep the record beside the rules file (FILE's stem + .playthroughs/) for `ruleforge test` to "
                   "replay, instead of printing it; read it before you trust it.")
@click.option("--update", is_flag=True, help="With --record: replace a recorded file that differs.")
@limit_options
@guarded
def playthrough(file: str, players: int | None, seed: int | None, agents: str | None, option: tuple[str, ...],
                as_json: bool, record: bool, update: bool, max_decisions: int | None, max_skips: int | None) -> None:
    """Play one game between automatic agents and print every decision (who, among how many
    legal actions, which), the log as each player sees it, and the final scores.

    The same rules, players, seed and agents print the same record, byte for byte. A game
    that fails or passes --max-decisions prints the record so far and exits with status 1.
    """
    if update and not record:
        fail("--update goes with --record")
    if record and as_json:
        fail("--record keeps the text record: leave out --json")
    rules = load_rules(file)
    n = resolve_players(rules, players)
    options = parse_options(rules, option)
    with game_limits(max_decisions, max_skips):
        try:
            played = record_game(rules, n, 0 if seed is None else seed, agents, options)
        except PlaythroughError as err:
            if err.playthrough is not None and not record:
                _print(err.playthrough, as_json)
            fail(str(err) + (": not recorded" if record else ""))
        problem = too_many_decisions(len(played.decisions)) if played.stopped else None
    if record:
        if problem:
            fail(f"{problem}: not recorded")
        _keep(played, playthroughs_dir(file) / record_name(played.players, played.seed, played.agents,
                                                           played.options), update)
        return
    _print(played, as_json)
    if problem:
        fail(problem)


def _keep(played: Playthrough, path: Path, update: bool) -> None:
    """Write the record to `path`; one that differs is replaced only with `update`, and
    its diff shown either way."""
    text = played.text()
    count = f"{len(played.decisions)} decisions"
    try:
        old = path.read_text(encoding="utf-8") if path.exists() else None
    except OSError as err:
        fail(f"cannot read '{path}': {err.strerror or err}")
    except UnicodeDecodeError:
        fail(f"cannot read '{path}': it is not UTF-8 text")
    if old == text:
        echo(f"unchanged: {path} ({count})")
        return
    if old is not None:
        diff, where = compare(old, text)
        for line in diff:
            echo(line)
        if not update:
            fail(f"{path} holds a different record (first difference at {where}): read the diff, then --update "
                 "to replace it")
    folder = path.parent
    if folder.exists() and not folder.is_dir():
        fail(f"cannot write '{path}': '{folder}' is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        fail(f"cannot write '{path}': {err.strerror or err}")
    write_atomic(str(path), text, "playthrough")  # never half a record, even on Ctrl-C
    verb = "wrote" if old is None else "updated"
    echo(f"{verb} {path} ({count}): read it before you trust it")
