"""The server's connections, bounded: uvicorn's HTTP/1.1 protocol (h11) with a cap on open
connections and a deadline for a request's headers.

uvicorn closes a kept-alive connection that stays silent after an answer (`timeout_keep_alive`),
but its timer starts only once an answer is sent: a connection that never sends a byte, or
sends its headers a byte at a time, stays open for ever, and a thousand of them use up the
process's file descriptors (asyncio then logs `socket.accept() out of system resource` and
accepts nothing, the host page included). Here a connection must send a whole request head
within `header_seconds` of connecting or of its last answer, and past `connections` open ones a
new connection closes the connection that has waited longest without a request in progress
(never a page being answered), or, if every one is busy, is answered 503 and closed at once.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from .bounds import ServerBounds

BUSY_TEXT = b"the server has as many connections as it may: try again in a moment\n"
BUSY = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
        b"content-length: %d\r\nconnection: close\r\n\r\n%s" % (len(BUSY_TEXT), BUSY_TEXT))


class BoundedH11(H11Protocol):
    """One connection; `bounds` is set on the subclass `protocol_class` makes for a server."""

    bounds: ServerBounds = ServerBounds()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.header_timer: asyncio.TimerHandle | None = None
        self.idle_since = time.monotonic()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.start_header_timer()
        if open_count(self.connections) > self.bounds.connections and not self.evict_one():
            transport.write(BUSY)
            transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.stop_header_timer()
        super().connection_lost(exc)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self.start_header_timer()

    def busy(self) -> bool:
        """Whether a request of this connection is being answered."""
        return self.cycle is not None and not self.cycle.response_complete

    def is_open(self) -> bool:
        """Not closed, nor being closed (a closed one leaves uvicorn's set a moment later)."""
        return self.transport is not None and not self.transport.is_closing()

    def start_header_timer(self) -> None:
        """From now, the next request's headers must be in within `header_seconds`."""
        self.stop_header_timer()
        self.idle_since = time.monotonic()
        self.header_timer = self.loop.call_later(self.bounds.header_seconds, self.headers_late, self.cycle)

    def stop_header_timer(self) -> None:
        if self.header_timer is not None:
            self.header_timer.cancel()
            self.header_timer = None

    def headers_late(self, cycle_then: Any) -> None:
        """No new request since the timer started (the same cycle, or none): close the connection,
        unsent bytes and all (a client that reads nothing would hold a closing one open)."""
        self.header_timer = None
        if self.cycle is cycle_then and not self.busy():
            self.transport.abort()

    def evict_one(self) -> bool:
        """Close the connection, other than this one, that has waited longest without a request in
        progress; False if every other one is being answered."""
        idle = [c for c in self.connections
                if c is not self and isinstance(c, BoundedH11) and c.is_open() and not c.busy()]
        if not idle:
            return False
        oldest = min(idle, key=lambda c: c.idle_since)
        oldest.stop_header_timer()
        oldest.transport.abort()
        return True


def open_count(connections: Any) -> int:
    """The connections of a server that are open (`BoundedH11.is_open`)."""
    return sum(1 for c in connections if not isinstance(c, BoundedH11) or c.is_open())


def protocol_class(bounds: ServerBounds) -> type[BoundedH11]:
    return type("BoundedH11", (BoundedH11,), {"bounds": bounds})


def server_config(app: Any, bounds: ServerBounds) -> uvicorn.Config:
    """uvicorn's settings for the app under `bounds`. `limit_concurrency` is uvicorn's own
    backstop (a 503 once as many connections or requests run), far past what the cap lets in:
    its count includes connections closed a moment ago, of which a burst of new ones leaves many."""
    return uvicorn.Config(app, http=protocol_class(bounds), log_level="warning", access_log=False,
                          timeout_graceful_shutdown=5, lifespan="on", backlog=bounds.backlog,
                          timeout_keep_alive=bounds.idle_seconds,  # type: ignore[arg-type]  # a float works
                          limit_concurrency=2 * bounds.connections + bounds.polls,
                          h11_max_incomplete_event_size=bounds.header_bytes)
