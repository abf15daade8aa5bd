"""`ruleforge serve`: a playtest server for one rules file, on this machine unless told otherwise.

Its games folder holds secrets (the host page's token, which lists every seat's link; the seats'
tokens; the logs, which tell every hidden card), so it must be the user's own and private, and a
file in it is believed only if no one else could have put it there (`ruleforge.private_folders`).
"""

from __future__ import annotations

import asyncio
import os
import secrets
import socket
from pathlib import Path

import click

from ..diagnostics import GameError
from ..private_folders import UnsafeFolder, file_refusal, private_folder, read_private_text
from .common import echo, fail, guarded, load_rules

LOOPBACK = ("127.0.0.1", "localhost", "::1")


HOST_TOKEN = "host-token.json"


def games_folder(path: str) -> Path:
    """The folder of the server's games: the user's own and private (made 0700 if others could
    only read it, and said), else the command fails saying why."""
    try:
        folder, was = private_folder(path, "games folder")
    except UnsafeFolder as err:
        fail(str(err))
    if was is not None:
        echo(f"made the games folder '{path}' private (mode 0700, it was {was:04o}): its seat links and logs "
             "are for you alone", err=True)
    return folder


def host_token(folder: Path) -> str:
    """The host page's secret, kept in the games folder so that its link survives a restart; a
    new one (with a warning naming the file) when the file there is not one this user wrote."""
    from ..web.bounds import DEFAULT, read_json
    from ..web.tables import TOKEN, TOKEN_BYTES, write_private

    path = folder / HOST_TOKEN
    if os.path.lexists(path):
        why = file_refusal(path)
        try:
            if why is None:
                data = read_json(read_private_text(path, ".json", "host token file"), DEFAULT.json_depth, "it")
                token = data.get("token") if isinstance(data, dict) else None
                if isinstance(token, str) and TOKEN.fullmatch(token):
                    return token
                why = "it holds no host token"
        except GameError as err:
            why = str(err)
        echo(f"warning: not using '{path}' ({why}): a new host token replaces it", err=True)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    write_private(path, {"token": token}, "the host token file")  # a new file renamed over a planted one
    return token


def listening_socket(host: str, port: int, backlog: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as err:
        sock.close()
        fail(f"cannot listen on {host}:{port}: {err.strerror}")
    sock.listen(backlog)
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
        from ..web.bounds import DEFAULT, raise_open_files
        from ..web.connections import server_config
        from ..web.drawing import seat_drawing
    except ImportError as err:
        fail(f"ruleforge serve needs the web extra ({err.name} is missing): pip install 'ruleforge[web]'")
    rules = load_rules(file)
    folder = games_folder(games_path)
    token = host_token(folder)
    bounds = DEFAULT.within_open_files(raise_open_files())
    sock = listening_socket(host, port, bounds.backlog)
    actual = sock.getsockname()[1]
    shown_host = f"[{host}]" if ":" in host else host
    base = f"http://{shown_host}:{actual}/"
    draw, stylesheet = seat_drawing(rules)
    app = create_app(rules, file, folder, token, draw, stylesheet, warn=lambda line: echo(line, err=True),
                     bounds=bounds)
    app.state.tables.resume_all()  # its warnings (a file skipped, and why) before the server's addresses
    echo(f"serving {rules.title} at {base}")
    echo(f"host page (start games, get the seats' links; keep it private): {base}host/{token}")
    echo(f"games are kept in {os.path.abspath(folder)}; Ctrl-C stops the server, a restart resumes them")
    if host not in LOOPBACK:
        echo(f"note: listening on {host}, not only on this machine: anyone who can reach port {actual} sees the "
             "front page; a seat is played only through its link, and the host page only through its link. "
             "Open the host page at this machine's network address so that the links it shows work for others.")
    server = uvicorn.Server(server_config(app, bounds))
    stopping = server.handle_exit

    def handle_exit(sig: int, frame: object) -> None:
        """Ctrl-C or a kill: answer the pages' long polls at once, then stop as uvicorn does."""
        loop = asyncio.get_running_loop()  # the signal arrives on the thread that runs the server
        loop.call_soon_threadsafe(app.state.tables.wake_all)
        stopping(sig, frame)

    server.handle_exit = handle_exit  # type: ignore[method-assign]
    server.run(sockets=[sock])
