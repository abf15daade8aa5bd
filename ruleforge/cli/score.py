"""`ruleforge score`: the scores of a saved state or of a position written by hand."""

from __future__ import annotations

import json
from typing import Any

import click

from ..engine import STATE_FORMAT, player_name
from ..position import POSITION_FORMAT
from ..rules import Rules
from .common import cell, fail, guarded, load_rules, out_console, read_json, score_table, winner_line


@click.command()
@click.argument("file")
@click.argument("state_file", metavar="STATE.json")
@click.option("--explain", is_flag=True, help="Show every scoring item's points for every player.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the scores as JSON, every item's points included.")
@guarded
def score(file: str, state_file: str, explain: bool, as_json: bool) -> None:
    """Score a saved game state or a hand-written position: totals, or every item with --explain.

    A position (docs/positions.md) is scored by every scoring declared `final`, as it
    would be scored now, without playing on.
    """
    rules = load_rules(file)
    data = read_json(state_file, "state file")
    if isinstance(data, dict) and data.get("format") == POSITION_FORMAT:
        _score_position(rules, data, explain, as_json)
        return
    if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
        fail(f"'{state_file}' is not a saved ruleforge state nor a position "
             f"(expected \"format\": \"{STATE_FORMAT}\" or \"{POSITION_FORMAT}\")")
    if isinstance(data, dict) and isinstance(data.get("game"), str) and data["game"] != rules.title:
        fail(f"'{state_file}' is a saved {data['game']} game, but '{file}' is the rules of {rules.title}")
    game = rules.load_game(data)
    if as_json:
        winners = set(game.winners())
        rows = []
        for s in game.scores():
            rows.append({"player": player_name(s["player"]), "total": s["total"],
                         "winner": s["player"] in winners, "breakdown": s["breakdown"]})
        click.echo(json.dumps({"game": rules.title, "over": game.is_over, "scores": rows}, indent=2))
        return
    state = "final scores" if game.is_over else "scores so far (the game is not over)"
    click.echo(f"{rules.title}: {state}")
    out_console().print(score_table(game, explain=explain))
    click.echo(winner_line(game))


def position_scores(rules: Rules, data: dict[str, Any]) -> tuple[list[str], list[dict[str, int]]]:
    """The final scorings' names, and per player each item's points plus "total".

    With several final scorings an item's label is prefixed by its scoring's name; the
    total is the sum of every final scoring's total.
    """
    game = rules.position(data)
    names = [name for name, decl in game.program.model.scorings.items() if decl.final]
    if not names:
        fail(f"{rules.title} declares no final scoring, so a position cannot be scored")
    rows: list[dict[str, int]] = [{} for _ in range(game.players)]
    totals = [0] * game.players
    for name in names:
        for p, preview in enumerate(game.preview_scoring(name)):
            for item, points in preview.items():
                if item == "total":
                    totals[p] += points
                else:
                    rows[p][item if len(names) == 1 else f"{name}: {item}"] = points
    for p, row in enumerate(rows):
        row["total"] = totals[p]
    return names, rows


def _score_position(rules: Rules, data: dict[str, Any], explain: bool, as_json: bool) -> None:
    names, rows = position_scores(rules, data)
    best = max(row["total"] for row in rows)
    leaders = [p for p, row in enumerate(rows) if row["total"] == best]
    if as_json:
        out = []
        for p, row in enumerate(rows):
            out.append({"player": player_name(p), "total": row["total"], "highest": p in leaders,
                        "breakdown": {k: v for k, v in row.items() if k != "total"}})
        click.echo(json.dumps({"game": rules.title, "position": True, "scorings": names, "scores": out}, indent=2))
        return
    from rich.table import Table

    table = Table()
    if explain:
        table.add_column("")
        for p in range(len(rows)):
            table.add_column(f"{player_name(p)} *" if p in leaders else player_name(p), justify="right")
        for item in [k for k in rows[0] if k != "total"]:
            table.add_row(cell(item), *(cell(row[item]) for row in rows))
        table.add_section()
        table.add_row(cell("total", "bold"), *(cell(row["total"], "bold") for row in rows))
        table.caption = "* highest total"
    else:
        table.add_column("player")
        table.add_column("total", justify="right")
        table.add_column("")
        for p, row in enumerate(rows):
            table.add_row(cell(player_name(p)), cell(row["total"]), cell("highest" if p in leaders else ""))
    click.echo(f"{rules.title}: a position scored by {', '.join(names)} (as if the game ended now)")
    out_console().print(table)
    who = ", ".join(player_name(p) for p in leaders)
    click.echo(f"Highest total: {who} ({best} points)" if len(leaders) == 1
               else f"Tied on total: {who} ({best} points; the tie-break is not applied to positions)")


