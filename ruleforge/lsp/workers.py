"""Work done off the thread that answers the editor: a few daemon threads taking jobs by key.

A check of a large document takes seconds (about 25 µs a character), and formatting one longer
still; done on the thread that reads and answers requests, it would leave every hover and
completion of every other document waiting. So such work goes to `Workers`, whose jobs are
plain callables that hand their outcome back themselves (the server posts it to its event loop).

Jobs are keyed (a document's URI for its check): a job submitted while another of the same key
is still waiting replaces it, so that only the newest version of a document is checked, however
fast the editor sends changes; and two jobs of one key never run at once, so that one document
being typed in cannot take every thread. A job of a key of its own (`object()`) simply waits its
turn. The threads are daemons: a check still running when the editor says `exit` does not keep
the process alive.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Hashable

logger = logging.getLogger(__name__)

# The stack of each worker thread: as deep as the main thread's usual 8 MB and more, so that a
# check nested up to the limits never runs out of C stack where the main thread would not.
STACK_BYTES = 32 * 1024 * 1024


class Workers:
    """`count` daemon threads, started on the first job, running jobs by key as described above."""

    def __init__(self, count: int, name: str):
        self.count = count
        self.name = name
        self._waiting: dict[Hashable, Callable[[], None]] = {}  # in order of arrival
        self._running: set[Hashable] = set()
        self._ready = threading.Condition()
        self._threads: list[threading.Thread] = []

    def submit(self, key: Hashable, job: Callable[[], None]) -> None:
        """Run `job` on a worker thread, in place of the job of `key` still waiting, if any."""
        with self._ready:
            self._waiting.pop(key, None)  # the newest goes to the back of the queue
            self._waiting[key] = job
            if len(self._threads) < self.count:
                self._start()
            self._ready.notify_all()

    def discard(self, key: Hashable) -> None:
        """Forget the job of `key` that has not started (a closed document is not checked)."""
        with self._ready:
            self._waiting.pop(key, None)

    def _start(self) -> None:
        old = threading.stack_size()
        try:
            threading.stack_size(STACK_BYTES)
        except (ValueError, RuntimeError):  # a platform that sets no stack size: its default
            old = None
        try:
            thread = threading.Thread(target=self._work, name=f"{self.name}-{len(self._threads) + 1}", daemon=True)
            thread.start()
        finally:
            if old is not None:
                threading.stack_size(old)
        self._threads.append(thread)

    def _next(self) -> tuple[Hashable, Callable[[], None]]:
        """The oldest waiting job whose key is not running, waiting for one."""
        with self._ready:
            while True:
                for key in self._waiting:
                    if key not in self._running:
                        self._running.add(key)
                        return key, self._waiting.pop(key)
                self._ready.wait()

    def _work(self) -> None:
        while True:
            key, job = self._next()
            try:
                job()
            except Exception:  # a job reports its own failures; this keeps the thread alive
                logger.exception("a job of %s failed", self.name)
            finally:
                with self._ready:
                    self._running.discard(key)
                    self._ready.notify_all()
