"""`ruleforge view`: a replay log as one HTML file to step through, or a position as a picture.

`ruleforge view LOG.json` replays the log (the same checks as `ruleforge replay`) and writes
every step's pictures into one self-contained HTML file: the whole table and each seat's own
view, the moves, the scores. `ruleforge view RULES POSITION.json` draws a hand-written
position (or a saved state) as an SVG document, or as an HTML page for an `.html` output.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ..diagnostics import GameError
from ..engine import STATE_FORMAT, STATE_FORMATS, Game, player_name
from ..position import POSITION_FORMAT
from ..rules import Rules
from .common import echo, fail, guarded, load_rules, read_json, write_atomic
from .gamelog import find_rules, read_log, replay_steps
from .outputs import check_outputs

VIEWERS_HELP = "table (everything, the default), spectator, or a seat: P1, P2, ..."


@click.command()
@click.argument("files", nargs=-1, required=True, metavar="LOG.json | RULES POSITION.json")
@click.option("--output", "-o", "output", metavar="OUT",
              help="The file to write [default: the log's or position's name with .html or .svg]; "
                   "a position is drawn as SVG, or as an HTML page when OUT ends in .html.")
@click.option("--rules", "rules_path", metavar="FILE",
              help="The rules to replay a log with [default: the rules the log names, found as replay finds them].")
@click.option("--viewer", metavar="WHO", default=None,
              help=f"Whose view to draw: {VIEWERS_HELP}. For a log, the view the page opens on.")
@guarded
def view(files: tuple[str, ...], output: str | None, rules_path: str | None, viewer: str | None) -> None:
    """Draw a replay log as an HTML page to step through, or a position as a picture.

    ruleforge view LOG.json: every step of the game, the whole table and each seat's view,
    the moves and the scores, in one HTML file that needs nothing else.

    ruleforge view RULES POSITION.json: a position (docs/positions.md) or a saved state as
    an SVG picture (or HTML, for an output ending in .html).
    """
    if len(files) == 1:
        _view_log(files[0], output, rules_path, viewer)
    elif len(files) == 2:
        if rules_path is not None:
            fail("--rules is for a log; the rules of a position are its first argument")
        _view_position(files[0], files[1], output, viewer)
    else:
        fail("give a log (ruleforge view LOG.json) or rules and a position (ruleforge view RULES POSITION.json)")


def _inputs(rules: Rules, *others: tuple[str, str]) -> list[tuple[Any, str]]:
    return [*others, *((path, "rules file") for path in rules.files)]


def _seat(viewer: str | None, players: int) -> int | None | str:
    """The view asked for: "table", None (a spectator) or a seat number."""
    if viewer is None or viewer == "table":
        return "table"
    if viewer == "spectator":
        return None
    seats = [player_name(p) for p in range(players)]
    if viewer not in seats:
        fail(f"--viewer must be table, spectator or a seat ({', '.join(seats)}), not '{viewer}'")
    return seats.index(viewer)


def _view_log(log_file: str, output: str | None, rules_path: str | None, viewer: str | None) -> None:
    from ..picture import make_picture
    from ..picture.replay_page import TABLE, ReplayBook

    record = read_log(log_file)
    rules, _path = find_rules(record, rules_path)
    seat = _seat(viewer, record.players)
    out = output or str(Path(log_file).with_suffix(".html"))
    check_outputs([(out, "picture", "--output")], _inputs(rules, (log_file, "replay log")))
    game = rules.new_game(record.players, record.seed, record.options or None)
    book = ReplayBook(make_picture(rules, record.players, record.options or None), record.players)
    moves = iter(record.steps)

    def add() -> None:
        step = next(moves, None) if book.steps else None
        book.add(game, None if step is None else f"{step['player']}: {step['action']}")

    replay_steps(game, record, before_step=add)
    add()
    first = TABLE if seat == "table" else "table" if seat is None else player_name(seat)
    write_atomic(out, book.html(rules.title, first), "picture")
    echo(f"{len(record.steps)} steps drawn: {out}")


def _view_position(rules_file: str, position_file: str, output: str | None, viewer: str | None) -> None:
    from ..picture import make_picture, render_position_svg, render_view, table_view
    from ..picture.replay_page import single_page

    rules = load_rules(rules_file)
    out = output or str(Path(position_file).with_suffix(".svg"))
    check_outputs([(out, "picture", "--output")], _inputs(rules, (position_file, "position")))
    data = read_json(position_file, "position")
    game = _game(rules, position_file, data)
    seat = _seat(viewer, game.players)
    shown = table_view(game) if seat == "table" else game.view(seat if isinstance(seat, int) else None,
                                                                properties=True)
    options = data.get("options") if isinstance(data.get("options"), dict) else None
    picture = make_picture(rules, game.players, options)
    if out.lower().endswith((".html", ".htm")):
        text = single_page(f"{rules.title}: {Path(position_file).name}", render_view(shown, picture))
    else:
        text = render_position_svg(shown, picture)
    write_atomic(out, text, "picture")
    echo(f"drawn: {out}")


def _game(rules: Rules, path: str, data: Any) -> Game:
    """The game a position or a saved state describes."""
    kind = data.get("format") if isinstance(data, dict) else None
    if kind != POSITION_FORMAT and kind not in STATE_FORMATS:
        fail(f"'{path}' is not a position nor a saved ruleforge state "
             f"(expected \"format\": \"{POSITION_FORMAT}\" or \"{STATE_FORMAT}\")")
    if kind in STATE_FORMATS and isinstance(data.get("game"), str) and data["game"] != rules.title:
        fail(f"'{path}' is a saved {data['game']} game, but the rules are those of {rules.title}")
    try:
        return rules.position(data) if kind == POSITION_FORMAT else rules.load_game(data)
    except GameError as err:
        fail(f"{path}: {err}")
