"""The playtest server's routes (Starlette): the host's page, the seats' pages and their API.

A seat is reached only through its token: a request with a wrong one learns nothing and changes
nothing, and every answer to a seat is made from that seat's view alone (`seat_state`). Pages
change live by long polling: a page asks for anything newer than the version it has, and the
server answers as soon as the game changes (or after a while with nothing new).
"""

from __future__ import annotations

import contextlib
import functools
import hmac
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from ..cli.common import CommandFailed
from ..diagnostics import GameError
from ..rules import Rules
from . import pages
from .seat_state import seat_state
from .tables import Table, Tables

MOST_BODY = 64 * 1024  # bytes in a request's body: an action's label or the host's form
POLL_SECONDS = 20.0  # a page's wait for news before the server answers "nothing new"
STATIC = Path(__file__).parent / "static"
STATIC_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
SECURITY_HEADERS = {
    "Content-Security-Policy": ("default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                                "img-src 'self' data:; connect-src 'self'; form-action 'self'; "
                                "base-uri 'none'; frame-ancestors 'none'"),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",  # a seat's address holds its token: never pass it on
    "Cache-Control": "no-store",
}


def headers(response: Response) -> Response:
    response.headers.update(SECURITY_HEADERS)
    return response


def problem(message: str, status: int = 400) -> Response:
    """A refused request: a clear message, and nothing changed."""
    return headers(JSONResponse({"error": message}, status_code=status))


Draw = Callable[[Table, dict, set[str]], str]  # (table, a seat's view, the keys its actions point at) -> HTML


def create_app(rules: Rules, rules_path: str, folder: Path, host_token: str, draw: Draw, stylesheet: str,
               warn: Callable[[str], None] = print) -> Starlette:
    """The server of one rules file, its games kept in `folder` (resumed from there at start)."""
    tables = Tables(rules, rules_path, folder, warn)

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        for table in tables.resume_all():
            table.start_bots()
        yield

    def is_host(request: Request) -> bool:
        return hmac.compare_digest(request.path_params["token"].encode(), host_token.encode())

    def seat(request: Request) -> tuple[Table, int] | None:
        return tables.seat_of(request.path_params["token"])

    def base_url(request: Request) -> str:
        return str(request.base_url)

    async def front(request: Request) -> Response:
        return headers(HTMLResponse(pages.front_page(rules)))

    async def host(request: Request) -> Response:
        if not is_host(request):
            return headers(HTMLResponse(pages.error_page("Not found", "There is nothing here."), status_code=404))
        return headers(HTMLResponse(pages.host_page(rules, request.url.path, list(tables.by_id.values()),
                                                    base_url(request))))

    async def start(request: Request) -> Response:
        if not is_host(request):
            return headers(HTMLResponse(pages.error_page("Not found", "There is nothing here."), status_code=404))
        host_path = request.url.path.removesuffix("/games")
        try:
            form = await read_form(request)
            table = tables.create(*game_request(rules, form))
        except (GameError, CommandFailed) as err:  # CommandFailed: its files could not be written
            page = pages.host_page(rules, host_path, list(tables.by_id.values()), base_url(request), str(err))
            return headers(HTMLResponse(page, status_code=400))
        table.start_bots()
        return headers(RedirectResponse(f"{host_path}#game-{table.id}", status_code=303))

    async def seat_page(request: Request) -> Response:
        if seat(request) is None:
            return headers(HTMLResponse(pages.error_page("Not found", "No seat has this link."), status_code=404))
        return headers(HTMLResponse(pages.seat_page(rules.title)))

    async def state(request: Request) -> Response:
        found = seat(request)
        if found is None:
            return problem("no seat has this link", 404)
        table, player = found
        after = request.query_params.get("after", "")
        if after:
            if not after.isdigit() or len(after) > 12:
                return problem("'after' must be a version number")
            await table.wait_newer(int(after), 0.0 if tables.closing else POLL_SECONDS)
        async with table.lock:
            return headers(JSONResponse(seat_state(table, player, functools.partial(draw, table))))

    async def act(request: Request) -> Response:
        found = seat(request)
        if found is None:
            return problem("no seat has this link", 404)
        table, player = found
        try:
            raw = await read_body(request)
        except GameError as err:  # too large: refused before it is read whole
            return problem(str(err), 413)
        try:
            body = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            return problem("the request must be JSON: {\"action\": label}")
        label = body.get("action") if isinstance(body, dict) else None
        if not isinstance(label, str):
            return problem("the request must name an action: {\"action\": label}")
        try:
            await table.act(player, label)
        except GameError as err:
            return problem(str(err), 409)
        async with table.lock:
            return headers(JSONResponse(seat_state(table, player, functools.partial(draw, table))))

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name == "picture.css":
            return headers(Response(stylesheet, media_type=STATIC_TYPES[".css"]))
        path = STATIC / name
        if "/" in name or path.suffix not in STATIC_TYPES or not path.is_file():
            return problem("no such file", 404)
        return headers(Response(path.read_bytes(), media_type=STATIC_TYPES[path.suffix]))

    routes = [
        Route("/", front), Route("/host/{token}", host), Route("/host/{token}/games", start, methods=["POST"]),
        Route("/seat/{token}", seat_page), Route("/api/seat/{token}", state),
        Route("/api/seat/{token}/act", act, methods=["POST"]), Route("/static/{name}", static),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.tables = tables
    return app


async def read_body(request: Request) -> bytes:
    """The body, refused past MOST_BODY bytes (a stranger may send anything)."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MOST_BODY:
            raise GameError(f"the request is larger than {MOST_BODY // 1024} KB")
    return body


async def read_form(request: Request) -> dict[str, str]:
    """A form as posted by the host page (url-encoded), one value per field."""
    try:
        text = (await read_body(request)).decode("utf-8")
    except UnicodeDecodeError:
        raise GameError("the form must be sent as UTF-8") from None
    return {key: values[-1] for key, values in parse_qs(text, max_num_fields=200).items()}


def game_request(rules: Rules, form: dict[str, str]) -> tuple[int, int | None, dict[str, Any], list[str]]:
    """Players, seed, options and seats from the host's form; GameError names what is wrong."""
    players_text = form.get("players", "")
    if not players_text.isdigit() or len(players_text) > 3:
        raise GameError("choose a number of players")
    players = int(players_text)
    low, high = rules.player_range
    if not low <= players <= high:
        raise GameError(f"{rules.title} is for {low} to {high} players, not {players}")
    seed_text = form.get("seed", "").strip()
    if seed_text and (not seed_text.isdigit() or len(seed_text) > 12):
        raise GameError(f"the seed must be a whole number of at most 12 digits, not '{seed_text[:20]}'")
    options: dict[str, Any] = {}
    for name, decl in rules.model.options.items():
        raw = form.get(f"option-{name}", "").strip()
        kind = decl.type.name
        if kind == "flag":
            if raw:
                options[name] = raw == "true"
        elif raw and kind == "int":
            if not raw.lstrip("-").isdigit() or len(raw) > 12:
                raise GameError(f"option '{name}' takes a whole number, not '{raw[:20]}'")
            options[name] = int(raw)
        elif raw:
            options[name] = raw[:200]
    agents = [form.get(f"seat{seat}", "random") for seat in range(players)]
    return players, int(seed_text) if seed_text else None, options, agents
