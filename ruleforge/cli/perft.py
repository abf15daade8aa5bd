"""`ruleforge perft`: count the decision sequences of a game to a depth (ruleforge/perft.py),
per first move with `--divide`, and keep the counts beside the rules with `--write`, where
`ruleforge test` checks them (docs/testing.md, "Move counts")."""

from __future__ import annotations

import warnings
from typing import Any

import click

from ..diagnostics import GameError
from ..native import NativeEngineWarning
from ..perft import MAX_DEPTH, TooManyPositions, counts, divide
from ..testing.perft_files import perft_file, perft_text, read_perft, shown_value, with_entry
from .common import echo, fail, guarded, load_rules, parse_options, resolve_players, write_atomic


@click.command("perft")
@click.argument("file")
@click.option("--players", "-p", type=int, default=None,
              help="Number of players [default: the fewest the game allows].")
@click.option("--depth", "-d", type=int, default=3, show_default=True,
              help=f"Count sequences of 1 to this many decisions (at most {MAX_DEPTH}).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the game: it fixes every chance.")
@click.option("-o", "--option", "option", multiple=True, metavar="NAME=VALUE", help="Set a game option (repeatable).")
@click.option("--divide", "split", is_flag=True,
              help="Also each first move's count at the deepest depth (in the order `play` lists them).")
@click.option("--write", is_flag=True,
              help="Keep the counts beside the rules (foo.rules -> foo.perft.json), where `ruleforge test` "
                   "checks them: the entry of these players, seed and options is replaced, the others kept.")
@click.option("--engine", type=click.Choice(["reference", "native", "auto"]), default="reference",
              show_default=True,
              help="native or auto: count in C where the rules lower and a C compiler builds them "
                   "(docs/native.md); the counts are the same.")
@guarded
def perft(file: str, players: int | None, depth: int, seed: int, option: tuple[str, ...], split: bool,
          write: bool, engine: str) -> None:
    """Count the decision sequences of a game: how many ways there are to take 1, 2, ... DEPTH
    decisions from the start ("perft", as chess programs call it).

    Chance is fixed by the seed, so the counts are the same on every run: a rules change that
    moves one changed what can be played. A game over before DEPTH decisions counts 0 there.
    A count stops with an error once its counts, all depths together, pass the limit
    counted_positions (docs/limits.md; RULEFORGE_MAX_COUNTED_POSITIONS raises it).
    """
    if depth < 1:
        fail(f"--depth must be at least 1, not {depth}")
    if depth > MAX_DEPTH:
        fail(f"--depth {depth} is more than {MAX_DEPTH}, the most perft counts to (a count grows about as "
             f"the number of moves to the power of the depth)")
    rules = load_rules(file)
    n = resolve_players(rules, players)
    options = parse_options(rules, option)
    existing = _existing(file) if write else []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", NativeEngineWarning)
        game = rules.new_game(n, seed, options or None, engine=engine)
    for warning in caught:
        echo(f"note: {warning.message}", err=True)
    try:
        found = counts(game, depth)
    except TooManyPositions as err:  # nothing printed but this, nothing written
        fail(f"{file}: depth {depth}: {err}")
    shown = "".join(f", {name}={shown_value(value)}" for name, value in options.items())
    echo(f"{rules.title}, {n} players, seed {seed}{shown}:")
    for d, count in enumerate(found, 1):
        echo(f"depth {d}: {count:,}")
    if split:
        echo(f"each first move at depth {depth}:")
        parts = divide(game, depth)  # the same walk as counts': within the same bound
        width = max((len(label) for label, _ in parts), default=0)
        for label, count in parts:
            echo(f"  {label:<{width}}  {count:,}")
        echo(f"total: {sum(c for _, c in parts):,}")
    if write:
        target = perft_file(file)
        entry = {"players": n, "seed": seed, "generator": game.generator, "options": options, "depth": found}
        write_atomic(str(target), perft_text(file, with_entry(existing, entry)), "move counts file")
        echo(f"wrote depth 1-{depth} of {n} players, seed {seed} to {target}")


def _existing(file: str) -> list[Any]:
    """The entries already beside the rules, kept by `--write`; a file that cannot be read is
    refused rather than overwritten (it may hold counts someone wants)."""
    target = perft_file(file)
    if not target.exists():
        return []
    try:
        return read_perft(target)
    except GameError as err:  # PerftError, or a file that is not JSON
        fail(f"{err}\n(nothing written: {target} is left as it is; fix or remove it)")
