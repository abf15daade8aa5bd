"""`ruleforge lsp` checks off the thread that answers: while a long check runs, requests about
other documents are answered and other documents are checked; only the newest version of a
document is checked and published, never a stale one; and a document past `lsp_document_chars`
is not checked at all: it gets one diagnostic at once, saying so and how to raise the limit.

Which came first is read from the order of the server's messages (one stream), never from a
clock; the deadlines are hang guards.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from test_lsp import BROKEN, DEADLINE, GOOD, _at

from ruleforge.limits import ENV_PREFIX, LIMITS

from .test_lsp_requests import published, reply, request_params, started

pytest.importorskip("pygls")

PUBLISHED = "textDocument/publishDiagnostics"
# A line of arithmetic: the slowest text to check found (about 90 µs a character, 10 s for
# 100,000 characters on the machine this was written on; within the default bound).
SLOW_LINE = "def o{k} = 1+2*3-4+5*6-7+8*9-1+2*3-4+5*6-7+8*9\n"
SLOW_CHARS = 100_000


def slow_text(chars: int = SLOW_CHARS) -> str:
    parts, size, k = [GOOD], len(GOOD), 0
    while size < chars:
        line = SLOW_LINE.format(k=k)
        parts.append(line)
        size += len(line)
        k += 1
    return "".join(parts)


def _open(client, uri: str, text: str, version: int = 1) -> None:
    """`didOpen`, without waiting for its diagnostics."""
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "ruleforge",
                                                            "version": version, "text": text}})


def _published_so_far(client, uri: str) -> list[dict]:
    return [m for m in client.pending if m.get("method") == PUBLISHED and m["params"]["uri"] == uri]


def test_a_long_check_leaves_other_documents_answered_and_checked(tmp_path: Path) -> None:
    slow, small = (tmp_path / "slow.rules").as_uri(), (tmp_path / "small.rules").as_uri()
    with started() as client:
        _open(client, slow, slow_text())
        _open(client, small, BROKEN)
        # the small document, opened after, is checked while the slow one still is
        assert len(published(client, small)["diagnostics"]) == 2
        assert _published_so_far(client, slow) == []
        client.notify("textDocument/didChange", {"textDocument": {"uri": small, "version": 2},
                                                 "contentChanges": [{"text": GOOD}]})
        assert published(client, small)["diagnostics"] == []
        # and requests about it are answered meanwhile: hover, completion, formatting, references
        hovered = client.request("textDocument/hover", request_params("textDocument/hover", small, 3, 6))
        assert "kind `Chip`" in hovered["contents"]["value"]
        completed = client.request("textDocument/completion", request_params("textDocument/completion", small))
        assert "kind" in {item["label"] for item in completed["items"]}
        assert client.request("textDocument/formatting", request_params("textDocument/formatting", small)) == []
        refs = client.request("textDocument/references", {**request_params("textDocument/references", small),
                                                          "position": _at(GOOD, "zone kept", 6)})
        assert len(refs) == 3
        assert _published_so_far(client, slow) == [], "the slow check ended first: make SLOW_CHARS larger"
        # then the slow document's own diagnostics come (it is a good file)
        assert published(client, slow, deadline=300)["diagnostics"] == []


def test_only_the_newest_version_is_checked_and_published(tmp_path: Path) -> None:
    """Versions sent while a check runs replace one another: the first diagnostics published
    are the newest version's, and the version checked first (stale by then) is never shown."""
    uri = (tmp_path / "typing.rules").as_uri()
    newest = BROKEN.replace("sum(zzz + c.value", "sum(c.value")  # one mistake left
    with started() as client:
        _open(client, uri, slow_text(30_000))  # seconds to check: the changes below arrive meanwhile
        for version, text in ((2, slow_text(30_000) + "def late = nope\n"), (3, BROKEN), (4, newest)):
            client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                     "contentChanges": [{"text": text}]})
        first = published(client, uri, deadline=300)
        assert first["version"] == 4 and len(first["diagnostics"]) == 1 and "kep" in first["diagnostics"][0]["message"]
        # nothing else comes for it: a request answered after a later change shows only that one
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 5},
                                                 "contentChanges": [{"text": GOOD}]})
        last = published(client, uri)
        assert last["version"] == 5 and last["diagnostics"] == []
        client.request("textDocument/hover", request_params("textDocument/hover", uri))
        assert _published_so_far(client, uri) == []


def _too_large(found: list[dict], chars: int, limit: int) -> None:
    [diagnostic] = found
    assert diagnostic["range"]["start"] == {"line": 0, "character": 0}
    message = diagnostic["message"]
    assert message.startswith(f"this document has {chars:,} characters, too many for the language server to check")
    assert f"(limit lsp_document_chars = {limit:,}; raise it with {ENV_PREFIX}LSP_DOCUMENT_CHARS)" in message


def test_a_document_past_the_bound_gets_one_diagnostic_at_once(tmp_path: Path) -> None:
    """A document of the slowest text, just past the default bound, would take minutes to
    check: it is not checked. Its diagnostic comes before a document opened after it is
    checked, and requests about it are answered (formatting: nothing)."""
    big, small = (tmp_path / "big.rules").as_uri(), (tmp_path / "small.rules").as_uri()
    limit = LIMITS.lsp_document_chars
    text = slow_text(limit + 1)
    with started() as client:
        _open(client, big, text)
        _open(client, small, BROKEN)
        _too_large(published(client, big)["diagnostics"], len(text), limit)
        assert _published_so_far(client, small) == []  # answered before any check of the other
        assert len(published(client, small)["diagnostics"]) == 2
        assert client.request("textDocument/formatting", request_params("textDocument/formatting", big)) is None
        hovered = client.request("textDocument/hover", request_params("textDocument/hover", big, 3, 6))
        assert hovered is None or "Chip" not in hovered["contents"]["value"]  # no symbols: not checked
        # back within the bound, it is checked again
        client.notify("textDocument/didChange", {"textDocument": {"uri": big, "version": 2},
                                                 "contentChanges": [{"text": BROKEN}]})
        assert len(published(client, big)["diagnostics"]) == 2


def test_the_bound_is_raised_and_lowered_in_the_environment(tmp_path: Path) -> None:
    uri = (tmp_path / "fewest.rules").as_uri()
    with started(env={f"{ENV_PREFIX}LSP_DOCUMENT_CHARS": "400"}) as client:
        _too_large(client.open(uri, GOOD), len(GOOD), 400)
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                                 "contentChanges": [{"text": GOOD[:400]}]})
        assert published(client, uri)["diagnostics"] != []  # checked: cut short, it does not parse
        client.send({"id": "late", "method": "textDocument/formatting",
                     "params": request_params("textDocument/formatting", uri)})
        assert "error" not in reply(client, "late")


def test_workers_run_the_newest_job_of_a_key_one_at_a_time() -> None:
    """The threads under the checks: a job waiting is replaced by a newer one of its key, two
    jobs of one key never run at once, another key is not held up, a failing job is survived."""
    from ruleforge.lsp.workers import Workers

    workers = Workers(2, "test-workers")
    running, release, other_ran, last_ran = threading.Event(), threading.Event(), threading.Event(), threading.Event()
    ran: list[str] = []

    def first() -> None:
        running.set()
        assert release.wait(DEADLINE)
        ran.append("v1")

    def fails() -> None:
        raise RuntimeError("a job's own failure")

    workers.submit("doc", first)
    assert running.wait(DEADLINE)
    workers.submit("doc", lambda: ran.append("v2"))
    workers.submit("doc", lambda: (ran.append("v3"), last_ran.set()))
    workers.submit("other", fails)
    workers.submit("gone", lambda: ran.append("never"))
    workers.discard("gone")
    workers.submit("other-2", lambda: (ran.append("other"), other_ran.set()))
    assert other_ran.wait(DEADLINE)
    assert ran == ["other"]  # v2 and v3 wait for v1: one job of a key at a time
    release.set()
    assert last_ran.wait(DEADLINE)
    assert ran == ["other", "v1", "v3"]  # v2 was replaced by v3 before it started
