"""`ruleforge score`: the scores of a saved state or of a position written by hand."""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from typing import Any

import click

from ..diagnostics import GameError
from ..engine import STATE_FORMAT, STATE_FORMATS, Game, player_name
from ..position import POSITION_FORMAT
from ..rules import Rules
from ..scoresheet import final_scorings, preview_rows, scoring_choices, show_choice
from .common import cell, echo, fail, guarded, load_rules, out_console, read_json, score_table, winner_line


@click.command()
@click.argument("file")
@click.argument("state_file", metavar="STATE.json")
@click.option("--explain", is_flag=True, help="Show every scoring item's points for every player.")
@click.option("--json", "as_json", is_flag=True,
              help="Print the scores as JSON, every item's points included.")
@click.option("--scoring", "scorings", multiple=True, metavar="NAME",
              help="Score by this scoring (repeatable) instead of the final ones, as it would score now.")
@guarded
def score(file: str, state_file: str, explain: bool, as_json: bool, scorings: tuple[str, ...]) -> None:
    """Score a saved game state or a hand-written position: totals, or every item with --explain.

    A position (docs/positions.md) is scored by every scoring declared `final`, or by the
    ones named with --scoring, as they would score it now, without playing on.
    """
    rules = load_rules(file)
    names = _scoring_names(rules, scorings)
    data = read_json(state_file, "state file")
    if isinstance(data, dict) and data.get("format") == POSITION_FORMAT:
        _show_preview(rules, _in_file(state_file, rules.position, data), names or _final_names(rules), bool(names),
                      explain, as_json)
        if explain and not as_json:
            echo(picture_line(file, state_file))
        return
    if not isinstance(data, dict) or data.get("format") not in STATE_FORMATS:
        fail(f"'{state_file}' is not a saved ruleforge state nor a position "
             f"(expected \"format\": \"{STATE_FORMAT}\" or \"{POSITION_FORMAT}\")")
    if isinstance(data, dict) and isinstance(data.get("game"), str) and data["game"] != rules.title:
        fail(f"'{state_file}' is a saved {data['game']} game, but '{file}' is the rules of {rules.title}")
    game = _in_file(state_file, rules.load_game, data)
    if scorings:  # a saved state scored by chosen scorings: a preview, as a position is
        _show_preview(rules, game, names, True, explain, as_json, position=False)
        if explain and not as_json:
            echo(picture_line(file, state_file))
        return
    if as_json:
        winners = set(game.winners())
        rows = []
        for s in game.scores():
            rows.append({"player": player_name(s["player"]), "total": s["total"],
                         "winner": s["player"] in winners, "breakdown": s["breakdown"]})
        echo(json.dumps({"game": rules.title, "over": game.is_over, "scores": rows}, indent=2))
        return
    state = "final scores" if game.is_over else "scores so far (the game is not over)"
    echo(f"{rules.title}: {state}")
    out_console().print(score_table(game, explain=explain))
    echo(winner_line(game))
    if explain:
        echo(picture_line(file, state_file))


def picture_line(rules_file: str, state_file: str) -> str:
    """Where `--explain` points for a picture of what it scored."""
    return f"For a picture: ruleforge view {shlex.quote(rules_file)} {shlex.quote(state_file)}"


def _in_file(path: str, read: Callable[[dict[str, Any]], Game], data: dict[str, Any]) -> Game:
    """The game a state or position describes; what is wrong in it is reported with the file's name."""
    try:
        return read(data)
    except GameError as err:
        fail(f"{path}: {err}")


def _scoring_names(rules: Rules, chosen: tuple[str, ...]) -> list[str]:
    """The scorings asked for, each once; an unknown name stops with the list of them (before
    the file is read: a typo in the command is reported first)."""
    declared = rules.model.scorings
    for name in chosen:
        if name not in declared:
            listed = ", ".join(f"{n} (final)" if d.final else n for n, d in declared.items()) or "none"
            fail(f"no scoring named '{name}'; the scorings of {rules.title}: {listed}")
    return list(dict.fromkeys(chosen))


def _final_names(rules: Rules) -> list[str]:
    """The scorings a position is scored by when none is named."""
    names = final_scorings(rules.model)
    if not names:
        fail(f"{rules.title} declares no final scoring, so a position cannot be scored "
             f"(name one with --scoring)")
    return names


def _show_preview(rules: Rules, game: Game, names: list[str], chosen: bool, explain: bool, as_json: bool,
                  position: bool = True) -> None:
    """A position (or a saved state scored by chosen scorings) as `names` would score it now:
    nothing is applied, so an intermediate scoring can be checked at any point of play."""
    rows = preview_rows(game, names, so_far=not chosen)
    choices = scoring_choices(game, names)
    best = max(row["total"] for row in rows)
    leaders = [p for p, row in enumerate(rows) if row["total"] == best]
    if as_json:
        out = []
        for p, row in enumerate(rows):
            out.append({"player": player_name(p), "total": row["total"], "highest": p in leaders,
                        "breakdown": {k: v for k, v in row.items() if k != "total"}})
            if choices[p]:
                out[-1]["choices"] = choices[p]
        echo(json.dumps({"game": rules.title, "position": position, "scorings": names, "scores": out},
                              indent=2))
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
    what = "a position" if position else "a saved state"
    when = "as of now; nothing is applied" if chosen else "as if the game ended now"
    echo(f"{rules.title}: {what} scored by {', '.join(names)} ({when})")
    out_console().print(table)
    if explain:
        for p, chosen_values in enumerate(choices):
            for var, value in chosen_values.items():
                echo(f"{player_name(p)} {var}: {show_choice(value)}")
    who = ", ".join(player_name(p) for p in leaders)
    echo(f"Highest total: {who} ({best} points)" if len(leaders) == 1
         else f"Tied on total: {who} ({best} points; the tie-break is not applied to positions)")


