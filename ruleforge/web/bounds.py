"""Every resource of the playtest server and its bound, in one place (docs/limits.md, "The
playtest server", lists them, and a test checks that table against this file).

The server answers whoever reaches its port, and one seat's link is enough to open connections
and long polls: each costs a file descriptor, and a process that runs out of them can accept
nothing more, not even the host page. So the connections are capped well below the open-file
limit, a connection that sends nothing is closed, and the long polls are capped per seat far
below the connection cap: one seat's flood is refused at once and leaves room for every other
page. A request's own text is bounded too (headers, body, the nesting of its JSON, the digits
of its numbers), and checked before it is converted, so that a bad one is a 4xx, never a 500.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from typing import Any

import attrs

from ..diagnostics import GameError

FD_RESERVE = 100  # open files kept for everything but connections: logs, rules, threads, the listening socket
FD_WANTED = 65_536  # the open-file limit asked for when the hard limit is unlimited


@attrs.frozen
class ServerBounds:
    """The bounds of one server; tests make a small one, the command `within_open_files`."""

    connections: int = 1000  # open connections; a new one past it closes the oldest idle one, or is refused
    backlog: int = 128  # connections waiting to be accepted: asyncio accepts up to this many before any is capped
    polls: int = 250  # long polls waiting in all (each holds a connection for up to poll_seconds)
    seat_requests: int = 4  # a seat's requests in progress at once (a page needs 2: a poll and an action)
    header_seconds: float = 10.0  # to send a request's headers, after connecting or after the last answer
    idle_seconds: float = 5.0  # a connection kept alive with nothing sent (uvicorn's timeout_keep_alive)
    body_seconds: float = 10.0  # to send a request's body once its headers are in
    poll_seconds: float = 20.0  # a page's wait for news before the server answers "nothing new"
    header_bytes: int = 16 * 1024  # a request's line and headers (h11's max_incomplete_event_size)
    body_bytes: int = 64 * 1024  # a request's body: an action's label or the host's form
    json_depth: int = 8  # lists and objects nested in a request's JSON or a file of the games folder
    form_fields: int = 200  # fields of the host's form
    number_digits: int = 12  # digits of a number in a request (a seed, an option, a version)

    def within_open_files(self, soft_limit: int) -> ServerBounds:
        """These bounds with the connections (and so the polls) well below `soft_limit` open files:
        room is left for a whole backlog accepted at once, and for FD_RESERVE files besides."""
        connections = max(8, min(self.connections, soft_limit - FD_RESERVE - self.backlog))
        return attrs.evolve(self, connections=connections, polls=min(self.polls, connections // 2))


DEFAULT = ServerBounds()


def raise_open_files() -> int:
    """Raise this process's soft limit of open files to its hard limit (many systems start at
    1,024); the soft limit now in force."""
    try:
        import resource
    except ImportError:  # not a POSIX system: no such limit to raise
        return FD_WANTED
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = FD_WANTED if hard == resource.RLIM_INFINITY else hard
    if soft != resource.RLIM_INFINITY and soft < wanted:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    return FD_WANTED if soft == resource.RLIM_INFINITY else soft


class SeatRequests:
    """The requests of each seat in progress, and the long polls of all seats: a request past a
    bound is refused at once (`admit` says why), so that no seat can hold the server's connections."""

    def __init__(self, bounds: ServerBounds):
        self.bounds = bounds
        self.by_seat: dict[tuple[str, int], int] = {}
        self.polls = 0

    def refusal(self, seat: tuple[str, int], poll: bool) -> tuple[str, int] | None:
        """Why a request of `seat` may not start now, with its status (429, 503), or None."""
        if self.by_seat.get(seat, 0) >= self.bounds.seat_requests:
            return (f"this seat has {self.bounds.seat_requests} requests in progress already: close its other "
                    "pages", 429)
        if poll and self.polls >= self.bounds.polls:
            return "the server is waiting on as many pages as it may: try again in a moment", 503
        return None

    @contextlib.contextmanager
    def admit(self, seat: tuple[str, int], poll: bool) -> Iterator[None]:
        """Count a request of `seat` (a long poll if `poll`) while it runs; `refusal` first."""
        self.by_seat[seat] = self.by_seat.get(seat, 0) + 1
        self.polls += poll
        try:
            yield
        finally:
            self.polls -= poll
            left = self.by_seat[seat] - 1
            if left:
                self.by_seat[seat] = left
            else:
                del self.by_seat[seat]


def whole_number(text: str, digits: int, signed: bool = False) -> int | None:
    """`text` as a whole number of at most `digits` ASCII digits (a `-` first if `signed`), else
    None. `"²".isdigit()` is true but `int("²")` fails, and `int` takes Arabic or Thai digits:
    a request's number is written in 0-9 or refused."""
    body = text[1:] if signed and text.startswith("-") else text
    if not (body.isascii() and body.isdigit()) or len(body) > digits:
        return None
    return int(text)


_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.S)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def json_depth(raw: bytes, most: int) -> int:
    """How deep lists and objects nest in the JSON text `raw`, counted without parsing it (its
    strings left out), and at most `most + 1`: Python's JSON reader recurses, and a document
    nested thousands deep would reach the recursion limit."""
    depth = deepest = 0
    for byte in _STRING.sub(b"", raw).translate(None, _NOT_BRACKETS):
        if byte in b"[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > most:
                    break
        else:
            depth -= 1
    return deepest


def read_json(raw: bytes | str, most_depth: int, what: str) -> Any:
    """The JSON document `raw` (a request's body, a file's text) nested at most `most_depth`
    deep; GameError saying what is wrong with it, never a RecursionError."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    if json_depth(data, most_depth) > most_depth:
        raise GameError(f"{what} nests lists or objects more than {most_depth} deep")
    try:
        return json.loads(data)
    except RecursionError:
        raise GameError(f"{what} nests lists or objects more than {most_depth} deep") from None
    except (ValueError, UnicodeDecodeError):  # JSONDecodeError, a number too long for int, bad UTF-8
        raise GameError(f"{what} is not JSON") from None
