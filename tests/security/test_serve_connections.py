"""One seat cannot take the playtest server down: its connections, long polls and idle sockets
are bounded (ruleforge/web/bounds.py, docs/limits.md), and the host page still answers while a
seat floods. The server runs in a thread of this process with small bounds (the same uvicorn
settings `ruleforge serve` uses, `connections.server_config`), so that a flood is a few dozen
sockets to 127.0.0.1 and never a thousand; every socket and the server are closed at the end."""

from __future__ import annotations

import http.client
import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

import uvicorn  # noqa: E402

import ruleforge  # noqa: E402
from ruleforge.web.app import create_app  # noqa: E402
from ruleforge.web.bounds import FD_RESERVE, ServerBounds, raise_open_files  # noqa: E402
from ruleforge.web.connections import BoundedH11, open_count, server_config  # noqa: E402
from ruleforge.web.drawing import seat_drawing  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
NAISHI = str(ROOT / "games" / "naishi.rules")
HOST = "host-token-for-tests-0123456789"
DEADLINE = 20.0  # seconds: a hang guard for what must happen within a second or two
SMALL = ServerBounds(connections=12, polls=5, seat_requests=2, header_seconds=1.0, idle_seconds=1.0,
                     poll_seconds=60.0, body_seconds=1.0)


def wait_for(condition: Any, what: str, within: float = DEADLINE) -> None:
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {within} s: {what}")
        time.sleep(0.02)  # a poll interval of a wait with a deadline, not a timing


Served = tuple[uvicorn.Server, int, list[int]]


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[Served]:
    """A server of Naishi under SMALL on 127.0.0.1, in a thread, stopped and joined at the end;
    with the most connections it ever held open at once."""
    rules = ruleforge.load(NAISHI)
    draw, css = seat_drawing(rules)
    app = create_app(rules, NAISHI, tmp_path, HOST, draw, css, warn=lambda line: None, bounds=SMALL)
    config = server_config(app, SMALL)
    most_open = [0]
    made = config.http.connection_made  # type: ignore[union-attr]

    def counted(self: BoundedH11, transport: Any) -> None:
        made(self, transport)
        most_open[0] = max(most_open[0], open_count(self.connections))

    config.http.connection_made = counted  # type: ignore[union-attr]  # this server's own subclass
    running = uvicorn.Server(config)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    thread = threading.Thread(target=running.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        wait_for(lambda: running.started, "the server started")
        yield running, sock.getsockname()[1], most_open
    finally:
        running.should_exit = True
        thread.join(DEADLINE)
        sock.close()
    assert not thread.is_alive()


def get(port: int, path: str) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=DEADLINE)
    try:
        conn.request("GET", path)
        answer = conn.getresponse()
        return answer.status, answer.read().decode()
    finally:
        conn.close()


def new_game(port: int) -> list[str]:
    """A game of two people started from the host page: its seats' tokens."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=DEADLINE)
    try:
        conn.request("POST", f"/host/{HOST}/games", body="players=2&seed=3&seat0=human&seat1=human",
                     headers={"content-type": "application/x-www-form-urlencoded"})
        assert conn.getresponse().status == 303
    finally:
        conn.close()
    return re.findall(r'class="rf-seat-link" href="http://[^"]+/seat/([^"]+)"', get(port, f"/host/{HOST}")[1])


def raw(port: int, sent: bytes = b"") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=DEADLINE)
    if sent:
        sock.sendall(sent)
    return sock


def poll_request(token: str, after: int) -> bytes:
    return f"GET /api/seat/{token}?after={after} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()


def closed_by_server(sock: socket.socket) -> bool:
    """Whether the server closed `sock` (read to its end: a 503 it was told first is fine)."""
    sock.settimeout(0.0)
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                return True
    except (BlockingIOError, InterruptedError):
        return False
    except OSError:  # reset: an aborted connection
        return True


def status_of(sock: socket.socket) -> int:
    sock.settimeout(DEADLINE)
    head = sock.recv(65536)
    return int(head.split(b" ", 2)[1])


def test_a_seat_flooding_polls_and_idle_sockets_leaves_the_host_page_reachable(
        server: Served) -> None:
    running, port, most_open = server
    tokens = new_game(port)
    version = 0  # a new game's: a poll after it waits for the next change (two people: none comes)
    sockets: list[socket.socket] = []
    try:
        # a seat's long polls: SMALL.seat_requests wait; the next is refused at once with 429
        polls = [raw(port, poll_request(tokens[0], version)) for _ in range(SMALL.seat_requests)]
        sockets += polls
        wait_for(lambda: sum(c.busy() for c in running.server_state.connections) == len(polls),
                 "the seat's polls are waiting")
        extra = raw(port, poll_request(tokens[0], version))
        sockets.append(extra)
        assert status_of(extra) == 429
        wait_for(lambda: sum(c.busy() for c in running.server_state.connections) == len(polls),
                 "the refused poll is answered")
        # another seat is not held back by the first one's polls
        other = raw(port, poll_request(tokens[1], version))
        sockets.append(other)
        wait_for(lambda: sum(c.busy() for c in running.server_state.connections) == len(polls) + 1,
                 "the other seat's poll is waiting")
        # three times the cap of connections that never send a byte, and one that never ends its headers
        idle = [raw(port) for _ in range(3 * SMALL.connections)]
        idle.append(raw(port, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "))
        sockets += idle
        status, page = get(port, f"/host/{HOST}")  # the host page answers in the middle of the flood
        assert status == 200 and tokens[0] in page
        wait_for(lambda: all(closed_by_server(s) for s in idle), "every idle socket was closed by the server",
                 within=SMALL.header_seconds + DEADLINE)
        # the polls being answered were never taken for idle ones
        assert not any(closed_by_server(s) for s in [*polls, other])
        assert open_count(running.server_state.connections) <= SMALL.connections
        assert most_open[0] <= SMALL.connections
        # a seat whose pages close their polls gets its places back at once, not after the polls' wait
        for sock in polls:
            sock.close()
        wait_for(lambda: get(port, f"/api/seat/{tokens[0]}")[0] == 200, "the seat is served again")
    finally:
        for sock in sockets:
            sock.close()


def test_the_long_polls_of_all_seats_are_bounded(server: Served) -> None:
    running, port, _ = server
    sockets: list[socket.socket] = []
    try:
        games = [new_game(port) for _ in range(3)]  # 6 seats, each within its own bound
        waiting = 0
        for tokens in games:
            for token in tokens:
                sock = raw(port, poll_request(token, 10**6))  # a version from before a restart: answered at once
                sockets.append(sock)
                assert status_of(sock) == 200
        seats = [token for tokens in games for token in tokens]
        for token in seats[:SMALL.polls]:
            sockets.append(raw(port, poll_request(token, 0)))
            waiting += 1
        wait_for(lambda: sum(c.busy() for c in running.server_state.connections) == waiting, "the polls wait")
        past = raw(port, poll_request(seats[SMALL.polls], 0))
        sockets.append(past)
        assert status_of(past) == 503
        assert get(port, f"/host/{HOST}")[0] == 200
    finally:
        for sock in sockets:
            sock.close()


def test_a_connection_past_the_cap_with_every_other_busy_is_refused_at_once(tmp_path: Path) -> None:
    """When no connection is idle, a new one is answered 503 and closed, never left waiting."""
    bounds = ServerBounds(connections=3, polls=3, seat_requests=3, header_seconds=30.0, poll_seconds=60.0)
    rules = ruleforge.load(NAISHI)
    draw, css = seat_drawing(rules)
    app = create_app(rules, NAISHI, tmp_path, HOST, draw, css, warn=lambda line: None, bounds=bounds)
    running = uvicorn.Server(server_config(app, bounds))
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    port = listener.getsockname()[1]
    thread = threading.Thread(target=running.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    sockets: list[socket.socket] = []
    try:
        wait_for(lambda: running.started, "the server started")
        token = new_game(port)[0]
        sockets += [raw(port, poll_request(token, 0)) for _ in range(3)]
        wait_for(lambda: sum(c.busy() for c in running.server_state.connections) == 3, "three polls wait")
        refused = raw(port)
        sockets.append(refused)
        assert status_of(refused) == 503
        wait_for(lambda: closed_by_server(refused), "the refused connection is closed")
    finally:
        for sock in sockets:
            sock.close()
        running.should_exit = True
        thread.join(DEADLINE)
        listener.close()
    assert not thread.is_alive()


def test_the_command_serves_with_these_bounds_well_below_its_open_files() -> None:
    soft = raise_open_files()
    bounds = ServerBounds().within_open_files(soft)
    assert soft >= 1024 and bounds.connections + FD_RESERVE + bounds.backlog <= soft
    assert bounds.polls <= bounds.connections // 2
    assert bounds.seat_requests * 10 <= bounds.polls  # one seat's flood is a small part of what all may hold
    assert ServerBounds().within_open_files(1024).connections == 1024 - FD_RESERVE - 128
    config = server_config(object(), bounds)
    assert issubclass(config.http, BoundedH11) and config.http.bounds == bounds  # type: ignore[union-attr]
    assert config.timeout_keep_alive == bounds.idle_seconds
    assert config.h11_max_incomplete_event_size == bounds.header_bytes and config.backlog == bounds.backlog


def test_docs_list_every_bound_of_the_server() -> None:
    """docs/limits.md's table of the playtest server names each bound of ServerBounds with its value."""
    import attrs

    text = (ROOT / "docs" / "limits.md").read_text(encoding="utf-8")
    section = text.split("## The playtest server", 1)[1].split("\n## ", 1)[0]
    rows = dict(re.findall(r"^\| `(\w+)` \| ([^|]+?) \|", section, re.M))
    for field in attrs.fields(ServerBounds):
        assert field.name in rows, field.name
        shown = rows[field.name].replace(",", "")
        number = float(re.match(r"[\d.]+", shown).group(0))  # type: ignore[union-attr]
        if "KB" in shown:
            number *= 1024
        assert number == field.default, (field.name, rows[field.name])
