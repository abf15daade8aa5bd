"""`ruleforge serve`: a playtest server for one rules file, on this machine unless told otherwise."""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
from pathlib import Path

import click

from .common import echo, fail, guarded, load_rules

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def private_folder(path: str) -> Path:
    """The folder of the server's games (logs and seat tokens), made readable by its owner alone."""
    folder = Path(path)
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as err:
        fail(f"cannot make the games folder '{path}': {err.strerror}")
    if not folder.is_dir():
        fail(f"the games folder '{path}' is not a folder")
    return folder


def host_token(folder: Path) -> str:
    """The host page's secret, kept in the games folder so that its link survives a restart."""
    from ..web.tables import TOKEN_BYTES, write_private

    path = folder / "host-token.json"
    try:
        import json

        token = json.loads(path.read_text(encoding="utf-8"))["token"]
        if isinstance(token, str) and len(token) >= 16 and token.replace("-", "").replace("_", "").isalnum():
            return token
    except (OSError, ValueError, KeyError, TypeError):
        pass
    token = secrets.token_urlsafe(TOKEN_BYTES)
    write_private(path, {"token": token})
    return token


def listening_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as err:
        sock.close()
        fail(f"cannot listen on {host}:{port}: {err.strerror}")
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


@click.command()
@click.argument("file", metavar="RULES")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on. 0.0.0.0 lets other machines of your network in.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535),
              help="The port (0: any free one).")
@click.option("--games", "games_path", default="ruleforge-games", show_default=True, metavar="FOLDER",
              help="Where each game's log and seat links are kept; a restarted server resumes them.")
@guarded
def serve(file: str, host: str, port: int, games_path: str) -> None:
    """Serve RULES for playtests in a browser: start games from the host page, send each person
    the private link of their seat."""
    try:
        import uvicorn

        from ..web.app import create_app
        from ..web.drawing import seat_drawing
    except ImportError as err:
        fail(f"ruleforge serve needs the web extra ({err.name} is missing): pip install 'ruleforge[web]'")
    rules = load_rules(file)
    folder = private_folder(games_path)
    token = host_token(folder)
    sock = listening_socket(host, port)
    actual = sock.getsockname()[1]
    shown_host = f"[{host}]" if ":" in host else host
    base = f"http://{shown_host}:{actual}/"
    draw, stylesheet = seat_drawing(rules)
    app = create_app(rules, file, folder, token, draw, stylesheet, warn=lambda line: echo(line, err=True))
    echo(f"serving {rules.title} at {base}")
    echo(f"host page (start games, get the seats' links; keep it private): {base}host/{token}")
    echo(f"games are kept in {os.path.abspath(folder)}; Ctrl-C stops the server, a restart resumes them")
    if host not in LOOPBACK:
        echo(f"note: listening on {host}, not only on this machine: anyone who can reach port {actual} sees the "
             "front page; a seat is played only through its link, and the host page only through its link. "
             "Open the host page at this machine's network address so that the links it shows work for others.")
    config = uvicorn.Config(app, log_level="warning", access_log=False, timeout_graceful_shutdown=5,
                            lifespan="on")
    server = uvicorn.Server(config)
    stopping = server.handle_exit

    def handle_exit(sig: int, frame: object) -> None:
        """Ctrl-C or a kill: answer the pages' long polls at once, then stop as uvicorn does."""
        loop = asyncio.get_running_loop()  # the signal arrives on the thread that runs the server
        loop.call_soon_threadsafe(app.state.tables.wake_all)
        stopping(sig, frame)

    server.handle_exit = handle_exit  # type: ignore[method-assign]
    server.run(sockets=[sock])
