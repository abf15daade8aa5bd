"""The playtest server's routes (Starlette): the host's page, the seats' pages and their API.

A seat is reached only through its token: a request with a wrong one learns nothing and changes
nothing, and every answer to a seat is made from that seat's view alone (`seat_state`). Pages
change live by long polling: a page asks for anything newer than the version it has, and the
server answers as soon as the game changes (or after a while with nothing new).

A request is refused before its text is converted, with a 4xx that changes nothing: its body
past `body_bytes` or `body_seconds`, JSON nested past `json_depth`, a number not of ASCII digits,
a form of too many fields; and a seat's requests past `seat_requests` (or the server's long polls
past `polls`) are refused at once, so that no seat can hold the server's connections (bounds.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hmac
from collections.abc import AsyncIterator, Callable, Coroutine
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from ..cli.common import CommandFailed
from ..diagnostics import GameError
from ..rules import Rules
from . import pages
from .bounds import DEFAULT, SeatRequests, ServerBounds, read_json, whole_number
from .seat_state import seat_state
from .tables import Table, Tables

MOST_BODY = DEFAULT.body_bytes  # bytes in a request's body: an action's label or the host's form
POLL_SECONDS = DEFAULT.poll_seconds  # a page's wait for news before the server answers "nothing new"
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


class Refused(GameError):
    """A request refused before it did anything, with the status that says why."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


Draw = Callable[[Table, dict, set[str]], str]  # (table, a seat's view, the keys its actions point at) -> HTML


def create_app(rules: Rules, rules_path: str, folder: Path, host_token: str, draw: Draw, stylesheet: str,
               warn: Callable[[str], None] = print, bounds: ServerBounds = DEFAULT) -> Starlette:
    """The server of one rules file, its games kept in `folder` (resumed from there at start)."""
    tables = Tables(rules, rules_path, folder, warn, json_depth=bounds.json_depth)
    in_progress = SeatRequests(bounds)

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        if not tables.resumed:  # `serve` resumes them before it starts, to warn before it serves
            tables.resume_all()
        for table in tables.by_id.values():
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
            form = await read_form(request, bounds)
            table = tables.create(*game_request(rules, form, bounds.number_digits))
        except (GameError, CommandFailed) as err:  # CommandFailed: its files could not be written
            page = pages.host_page(rules, host_path, list(tables.by_id.values()), base_url(request), str(err))
            return headers(HTMLResponse(page, status_code=err.status if isinstance(err, Refused) else 400))
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
        after_text = request.query_params.get("after", "")
        after = whole_number(after_text, bounds.number_digits)
        if after_text and after is None:
            return problem("'after' must be a version number")
        refusal = in_progress.refusal((table.id, player), poll=after is not None)
        if refusal is not None:
            return problem(*refusal)
        with in_progress.admit((table.id, player), poll=after is not None):
            if after is not None:
                await until_left(request, table.wait_newer(after, 0.0 if tables.closing else bounds.poll_seconds))
            async with table.lock:
                return headers(JSONResponse(seat_state(table, player, functools.partial(draw, table))))

    async def act(request: Request) -> Response:
        found = seat(request)
        if found is None:
            return problem("no seat has this link", 404)
        table, player = found
        refusal = in_progress.refusal((table.id, player), poll=False)
        if refusal is not None:
            return problem(*refusal)
        with in_progress.admit((table.id, player), poll=False):
            try:
                body = read_json(await read_body(request, bounds), bounds.json_depth, "the request")
            except Refused as err:  # too large or too slow: refused before it is read whole
                return problem(str(err), err.status)
            except GameError as err:
                return problem(f"{err}: send {{\"action\": label}}")
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


async def until_left(request: Request, waiting: Coroutine[Any, Any, None]) -> None:
    """Await `waiting`, or less if the page goes away meanwhile: a closed page's poll then
    gives its place back at once instead of holding it for the rest of its wait."""

    async def left() -> None:
        while (await request.receive())["type"] != "http.disconnect":
            pass

    tasks = [asyncio.ensure_future(waiting), asyncio.ensure_future(left())]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()


async def read_body(request: Request, bounds: ServerBounds) -> bytes:
    """The body, refused past `body_bytes` bytes or `body_seconds` seconds (a stranger may send
    anything, or send it a byte a minute); Refused says which."""
    most = bounds.body_bytes

    async def read() -> bytes:
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > most:
                raise Refused(f"the request is larger than {most // 1024} KB", 413)
        return body

    try:
        return await asyncio.wait_for(read(), bounds.body_seconds)
    except asyncio.TimeoutError:
        raise Refused(f"the request's body took more than {bounds.body_seconds:g} seconds to arrive", 408) from None
    except ClientDisconnect:
        raise Refused("the connection closed before the request's body arrived") from None


async def read_form(request: Request, bounds: ServerBounds) -> dict[str, str]:
    """A form as posted by the host page (url-encoded), one value per field."""
    try:
        text = (await read_body(request, bounds)).decode("utf-8")
    except UnicodeDecodeError:
        raise GameError("the form must be sent as UTF-8") from None
    try:
        fields = parse_qs(text, max_num_fields=bounds.form_fields)
    except ValueError:  # more fields than max_num_fields
        raise GameError(f"the form has more than {bounds.form_fields} fields") from None
    return {key: values[-1] for key, values in fields.items()}


def game_request(rules: Rules, form: dict[str, str], digits: int = DEFAULT.number_digits,
                 ) -> tuple[int, int | None, dict[str, Any], list[str]]:
    """Players, seed, options and seats from the host's form; GameError names what is wrong."""
    players = whole_number(form.get("players", ""), 3)
    if players is None:
        raise GameError("choose a number of players")
    low, high = rules.player_range
    if not low <= players <= high:
        raise GameError(f"{rules.title} is for {low} to {high} players, not {players}")
    seed_text = form.get("seed", "").strip()
    seed = whole_number(seed_text, digits)
    if seed_text and seed is None:
        raise GameError(f"the seed must be a whole number of at most {digits} digits, not '{seed_text[:20]}'")
    options: dict[str, Any] = {}
    for name, decl in rules.model.options.items():
        raw = form.get(f"option-{name}", "").strip()
        kind = decl.type.name
        if kind == "flag":
            if raw:
                options[name] = raw == "true"
        elif raw and kind == "int":
            number = whole_number(raw, digits, signed=True)
            if number is None:
                raise GameError(f"option '{name}' takes a whole number, not '{raw[:20]}'")
            options[name] = number
        elif raw:
            options[name] = raw[:200]
    agents = [form.get(f"seat{seat}", "random") for seat in range(players)]
    return players, seed, options, agents
