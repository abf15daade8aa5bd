"""`ruleforge simulate`: many games between automatic agents, summarised. A game that fails
is reported and the batch goes on; Ctrl-C summarises the games finished so far."""

from __future__ import annotations

import json
import math
import statistics
import time
from typing import Any

import attrs
import click

from .. import limits
from ..agents import agent_names, make_agents
from ..diagnostics import GameError
from ..engine import Game, player_name
from ..rules import Rules
from .common import (
    EXIT_INTERRUPTED,
    cell,
    decisions,
    err_console,
    fail,
    game_limits,
    game_options,
    guarded,
    limit_options,
    load_rules,
    out_console,
    parse_options,
    resolve_players,
    too_many_decisions,
)


@attrs.define
class Tally:
    """The outcomes of the games finished so far, and the games that failed."""

    players: int
    wins: list[float] = attrs.Factory(list)
    totals: list[list[int]] = attrs.Factory(list)
    lengths: list[int] = attrs.Factory(list)
    failed: list[dict[str, Any]] = attrs.Factory(list)

    def __attrs_post_init__(self) -> None:
        self.wins = [0.0] * self.players
        self.totals = [[] for _ in range(self.players)]

    @property
    def finished(self) -> int:
        return len(self.lengths)

    def add(self, game: Game) -> None:
        winners = game.winners()
        for p in winners:
            self.wins[p] += 1 / len(winners)
        for s in game.scores():
            self.totals[s["player"]].append(s["total"])
        self.lengths.append(decisions(game))

    def seat(self, p: int, agent: str) -> dict[str, Any]:
        """A seat's statistics; None where the games finished do not define one (no game, one game)."""
        totals = self.totals[p]
        return {
            "seat": player_name(p), "agent": agent, "wins": round(self.wins[p], 6),
            "win_rate": self.wins[p] / self.finished if self.finished else None,
            "mean_total": statistics.fmean(totals) if totals else None,
            "sd_total": statistics.stdev(totals) if len(totals) > 1 else None,
        }

    def length(self) -> dict[str, Any]:
        lengths = self.lengths
        if not lengths:
            return {"mean": None, "min": None, "max": None}
        return {"mean": statistics.fmean(lengths), "min": min(lengths), "max": max(lengths)}


def play_one(rules: Rules, players: int, seed: int, options: dict[str, Any], agents: str) -> Game:
    """One game to its end; GameError if it fails or passes the decisions limit."""
    game = rules.new_game(players, seed, options)
    seats = make_agents(agents, players, seed)
    limit = limits.LIMITS.decisions_per_game  # read per game: `--max-decisions` raises it
    count = 0
    while not game.is_over:
        if count >= limit:
            raise GameError(too_many_decisions(count))
        game.apply(seats[game.current_player].choose(game))  # type: ignore[index]
        count += 1
    return game


def run_batch(rules: Rules, players: int, seed: int, games: int, options: dict[str, Any], agents: str,
              tally: Tally) -> bool:
    """Play the games into `tally`, a progress bar on a terminal; False if Ctrl-C stopped them."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    err = err_console()
    with Progress(TextColumn("simulating"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=err, transient=True, disable=not err.is_terminal) as progress:
        task = progress.add_task("games", total=games)
        try:
            for i in range(games):
                game_seed = seed + i
                try:
                    tally.add(play_one(rules, players, game_seed, options, agents))
                except GameError as e:
                    tally.failed.append({"game": i + 1, "seed": game_seed, "error": str(e)})
                    progress.console.print(cell(f"error: game {i + 1} (seed {game_seed}): {e}"), soft_wrap=True)
                progress.advance(task)
        except KeyboardInterrupt:
            return False
    return True


def print_table(summary: dict[str, Any]) -> None:
    from rich.table import Table

    def number(value: float | None, form: str) -> str:
        return "-" if value is None else format(value, form)

    table = Table()
    for head in ("seat", "agent", "win rate", "mean total", "sd"):
        table.add_column(head, justify="left" if head in ("seat", "agent") else "right")
    for s in summary["seats"]:
        table.add_row(cell(s["seat"]), cell(s["agent"]), cell(number(s["win_rate"], ".1%")),
                      cell(number(s["mean_total"], ".2f")), cell(number(s["sd_total"], ".2f")))
    done, asked, first = summary["games"], summary["requested"], summary["seed"]
    count = f"{done} games" if done == asked else f"{done} of {asked} games"
    if summary["interrupted"]:
        count += " (interrupted)"
    last = first + done + len(summary["failed"]) - 1  # the games played, finished or failed
    seeds = f", seeds {first}..{last}" if last >= first else ""
    click.echo(f"{summary['game']}: {count}, {summary['players']} players{seeds}")
    out_console().print(table)
    ln = summary["length"]
    if done:
        click.echo(f"games: {done}   decisions per game: mean {ln['mean']:.1f}, min {ln['min']}, max {ln['max']}")
    if summary["failed"]:
        seeds = ", ".join(str(f["seed"]) for f in summary["failed"])
        click.echo(f"failed: {len(summary['failed'])} games (seeds {seeds})")
    click.echo(f"time: {summary['seconds']:.2f} s   ({summary['games_per_second']:.1f} games/s)")


@click.command()
@click.argument("file")
@click.option("-n", "--games", "games", type=click.IntRange(min=1), default=1000, show_default=True,
              help="How many games; game i uses seed SEED+i.")
@game_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of a table.")
@limit_options
@guarded
def simulate(file: str, games: int, players: int | None, seed: int | None, agents: str | None,
             option: tuple[str, ...], as_json: bool, max_decisions: int | None, max_skips: int | None) -> None:
    """Play many games between automatic agents and summarise who wins and by how much.

    A game that fails is reported with its seed and the others go on (exit status 1 at the
    end); Ctrl-C prints the summary of the games finished so far (exit status 130).
    """
    rules = load_rules(file)
    n = resolve_players(rules, players)
    options = parse_options(rules, option)
    rules.program(n, options)  # a bad player count or option fails before any game starts
    names = agent_names(agents or "random", n)
    if "human" in names:
        fail("simulate plays automatic agents only; use `ruleforge play` for a human seat")
    seed = 0 if seed is None else seed
    tally = Tally(n)
    start = time.perf_counter()
    with game_limits(max_decisions, max_skips):
        completed = run_batch(rules, n, seed, games, options, ",".join(names), tally)
    elapsed = time.perf_counter() - start
    summary = {
        "rules": file, "game": rules.title, "players": n, "options": options, "seed": seed,
        "requested": games, "games": tally.finished, "interrupted": not completed, "failed": tally.failed,
        "seats": [tally.seat(p, names[p]) for p in range(n)], "length": tally.length(),
        "seconds": elapsed, "games_per_second": tally.finished / elapsed if elapsed > 0 else math.inf,
    }
    if as_json:
        click.echo(json_text(summary))
    else:
        print_table(summary)
    if not completed:
        raise click.exceptions.Exit(EXIT_INTERRUPTED)
    if tally.failed:
        click.echo(f"error: {len(tally.failed)} of {games} games failed", err=True)
        raise click.exceptions.Exit(1)


def json_text(summary: dict[str, Any]) -> str:
    """The summary as JSON; an infinite rate (no time measured) is written as null."""
    if summary["games_per_second"] == math.inf:
        summary = {**summary, "games_per_second": None}
    return json.dumps(summary, indent=2)
