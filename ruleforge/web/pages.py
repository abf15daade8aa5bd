"""The server's HTML pages: the host's page (start a game, hand out its links), a seat's page
(a shell its script fills in), and the front page, which shows nothing to someone without a link.

Every text from the rules file or a request is escaped here; no page carries an inline script,
so the Content-Security-Policy can forbid them all.
"""

from __future__ import annotations

from html import escape
from typing import Any

from ..engine import player_name
from ..rules import Rules
from .tables import BOT_AGENTS, HUMAN, Table


def page(title: str, body: str, scripts: tuple[str, ...] = ()) -> str:
    tags = "".join(f'<script src="/static/{name}" defer></script>' for name in scripts)
    return (
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>{escape(title)}</title>"
        "<link rel=\"stylesheet\" href=\"/static/picture.css\"><link rel=\"stylesheet\" href=\"/static/seat.css\">"
        f"{tags}</head><body>{body}</body></html>\n"
    )


def front_page(rules: Rules) -> str:
    return page(f"{rules.title}: ruleforge playtest", (
        f"<main class=\"rf-narrow\"><h1>{escape(rules.title)}</h1>"
        "<p>This is a ruleforge playtest server. To play, open the private link of your seat that the "
        "host sent you. The host starts games from the host page, whose link the server printed "
        "when it started.</p></main>"))


def host_page(rules: Rules, host_path: str, tables: list[Table], base_url: str, error: str | None = None) -> str:
    """Start a game (players, seed, options, who sits where) and the private links of every game."""
    low, high = rules.player_range
    counts = "".join(f'<option value="{n}"{" selected" if n == low else ""}>{n}</option>'
                     for n in range(low, high + 1))
    seat_rows = "".join(
        f'<tr class="rf-seat-row" data-seat="{seat}"><td>{player_name(seat)}</td><td>'
        f'<select name="seat{seat}" id="seat{seat}">{_agent_options(seat)}</select></td></tr>'
        for seat in range(high))
    options = "".join(_option_field(name, decl) for name, decl in rules.model.options.items())
    problem = f'<p class="rf-error" role="alert">{escape(error)}</p>' if error else ""
    form = (
        f"<section><h2>Start a game</h2>{problem}"
        f'<form method="post" action="{escape(host_path)}/games" class="rf-form">'
        f'<label>Players <select name="players" id="players">{counts}</select></label>'
        '<label>Seed <input name="seed" id="seed" inputmode="numeric" placeholder="random"></label>'
        f"{options}<table class=\"rf-seats\"><tr><th>seat</th><th>played by</th></tr>{seat_rows}</table>"
        '<button type="submit" id="start">Start the game</button></form>'
        "<p class=\"rf-note rf-seats-note\">Seats beyond the player count are ignored.</p></section>")
    games = "".join(_game_entry(table, base_url) for table in reversed(tables)) or "<p>No game yet.</p>"
    return page(f"{rules.title}: host", (
        f"<main class=\"rf-narrow\"><h1>{escape(rules.title)}: host page</h1>"
        "<p class=\"rf-note\">Keep this page's address to yourself: it starts games and lists every "
        "seat's link. Send each person only the link of their own seat.</p>"
        f"{form}<section><h2>Games</h2>{games}</section></main>"), scripts=("host.js",))


def _agent_options(seat: int) -> str:
    choices = [HUMAN, *BOT_AGENTS, "mcts:200"]
    default = HUMAN if seat == 0 else "random"
    return "".join(f'<option value="{c}"{" selected" if c == default else ""}>'
                   f'{"a person (a link)" if c == HUMAN else "bot: " + c}</option>' for c in choices)


def _option_field(name: str, decl: Any) -> str:
    kind = decl.type.name
    field = f"option-{name}"
    if kind == "flag":
        return (f'<label><input type="checkbox" name="{escape(field)}" value="true"> '
                f"{escape(name)}</label>")
    return f'<label>{escape(name)} <input name="{escape(field)}" placeholder="default"></label>'


def _game_entry(table: Table, base_url: str) -> str:
    game = table.game
    status = ("over" if game.is_over else f"{player_name(game.current_player)} to act") + (
        f" ({table.failure})" if table.failure else "")
    links = "".join(
        f'<li>{player_name(seat)} ({"person" if agent == HUMAN else "bot " + escape(agent)}): '
        f'<a class="rf-seat-link" href="{escape(base_url)}seat/{escape(token)}">'
        f"{escape(base_url)}seat/{escape(token)}</a></li>"
        for seat, (agent, token) in enumerate(zip(table.agents, table.tokens)))
    return (f'<article class="rf-game" id="game-{escape(table.id)}"><h3>Game {escape(table.id)}: '
            f"{game.players} players, seed {game.seed}, {escape(status)}</h3><ul>{links}</ul></article>")


def seat_page(title: str) -> str:
    """The shell of a seat's page; seat.js reads the token from the address and fills it in."""
    return page(f"{title}: ruleforge", (
        '<header class="rf-bar"><h1 id="title"></h1><span id="turn" aria-live="polite"></span>'
        '<span id="connection"></span></header>'
        '<main class="rf-seat"><section id="picture" class="rf-picture"></section>'
        '<aside class="rf-side"><section id="decide" class="rf-decide"></section>'
        '<section id="scores" class="rf-scores"></section>'
        '<section><h2>Log</h2><ol id="log" class="rf-log"></ol></section></aside></main>'), scripts=("seat.js",))


def error_page(title: str, message: str) -> str:
    return page(title, f'<main class="rf-narrow"><h1>{escape(title)}</h1><p>{escape(message)}</p></main>')
