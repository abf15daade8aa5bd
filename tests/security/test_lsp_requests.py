"""`ruleforge lsp` answers every request, whatever its shape: a request whose parameters cannot
be read (a string for a line, a line of -1, a character of 2^40, a field missing, no params at
all) gets InvalidParams with its own id, at once, and the server goes on answering; a position
past the end of an open document gets an empty answer. Driven over stdio with raw JSON-RPC, as
an editor (or a broken one) would send it; every read has a deadline and the server is ended
whatever happens.

The helpers here (`started`, `reply`, `request_params`) serve the other tests of the language
server in this folder too.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import queue
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from stopping import ROOT
from test_lsp import BROKEN, DEADLINE, GOOD, Client, serving

pytest.importorskip("pygls")

INVALID_PARAMS, INVALID_REQUEST = -32602, -32600


@contextlib.contextmanager
def started(env: dict[str, str] | None = None, code: str | None = None) -> Iterator[Client]:
    """A server for one test (`ruleforge lsp`, or `python -c code`), initialized, its client,
    and at the end the protocol's goodbye (shutdown, exit, exit status 0); killed whatever
    happened."""
    argv = [sys.executable, "-c", code] if code else None
    with serving(argv, env, initialized=True) as client:
        yield client


def reply(client: Client, msg_id: Any, deadline: float = DEADLINE) -> dict[str, Any]:
    """The server's answer to the request `msg_id` (sent with `client.send`), waited for with a
    deadline; the notifications read meanwhile are kept."""
    until = time.monotonic() + deadline
    while True:
        for k, message in enumerate(client.pending):
            if "method" not in message and message.get("id") == msg_id:
                return client.pending.pop(k)
        try:
            client.pending.append(client._next(until))
        except queue.Empty:
            pytest.fail(f"no answer to request {msg_id!r} within {deadline} s")


def published(client: Client, uri: str, deadline: float = DEADLINE) -> dict[str, Any]:
    """The first diagnostics published for `uri` not yet taken, waited for with a deadline."""
    until = time.monotonic() + deadline
    while True:
        for k, message in enumerate(client.pending):
            if message.get("method") == "textDocument/publishDiagnostics" and message["params"]["uri"] == uri:
                return client.pending.pop(k)["params"]
        try:
            client.pending.append(client._next(until))
        except queue.Empty:
            pytest.fail(f"no diagnostics for {uri} within {deadline} s")


def request_params(method: str, uri: str, line: int = 0, character: int = 0) -> dict[str, Any]:
    """Well-formed params of each request the server answers about a document."""
    doc = {"textDocument": {"uri": uri}}
    at = {**doc, "position": {"line": line, "character": character}}
    place = {"start": {"line": line, "character": character}, "end": {"line": line, "character": character}}
    return {
        "textDocument/hover": at, "textDocument/definition": at, "textDocument/documentHighlight": at,
        "textDocument/signatureHelp": at, "textDocument/completion": at,
        "textDocument/references": {**at, "context": {"includeDeclaration": True}},
        "textDocument/rename": {**at, "newName": "renamed"},
        "textDocument/documentSymbol": doc, "textDocument/foldingRange": doc,
        "textDocument/formatting": {**doc, "options": {"tabSize": 2, "insertSpaces": True}},
        "textDocument/codeAction": {**doc, "range": place, "context": {"diagnostics": [
            {"range": place, "message": "unknown zone 'x'", "source": "ruleforge", "severity": 1,
             "data": {"hint": "did you mean 'pool'?"}}]}},
    }[method]


def registered_requests() -> tuple[list[str], list[str]]:
    """The request methods the server registers: those about a document, and the others."""
    from lsprotocol.types import METHOD_TO_TYPES

    from ruleforge.lsp.server import build

    features = build().protocol.fm
    methods = sorted(m for m in {*features.features, *features.builtin_features}
                     if METHOD_TO_TYPES.get(m, (None, None))[1] is not None)
    about_documents = [m for m in methods if m.startswith("textDocument/")]
    return about_documents, [m for m in methods if m not in about_documents]


def test_every_feature_has_params_here() -> None:
    """A feature added to the server must be added to `request_params`, and so to these tests."""
    about_documents, others = registered_requests()
    assert len(about_documents) >= 11
    for method in about_documents:
        request_params(method, "file:///x.rules")
    assert set(others) == {"initialize", "shutdown", "workspace/executeCommand"}


def _wrong_shapes(method: str, uri: str) -> list[Any]:
    """Params no request of `method` may have; `...` stands for no params at all."""
    shapes: list[Any] = ["a string", [], 12, {}, ...]
    if method.startswith("textDocument/"):
        good = request_params(method, uri)
        shapes.append({k: v for k, v in good.items() if k != "textDocument"})
        shapes.append({**good, "textDocument": "file:///x.rules"})
        if "position" in good:
            shapes += [{**good, "position": position} for position in (
                {"line": "1", "character": 0}, {"line": -1, "character": 0}, {"line": 0, "character": 2**40},
                {"line": 0}, [0, 0], {"line": 1.5, "character": 0}, {"line": True, "character": 0},
                {"line": 2**31, "character": 0})]
    return shapes


def test_a_request_of_the_wrong_shape_is_answered_with_invalid_params(tmp_path: Path) -> None:
    uri = (tmp_path / "fewest.rules").as_uri()
    about_documents, others = registered_requests()
    ids = itertools.count(1000)
    with started() as client:
        client.open(uri, GOOD)
        sent: list[tuple[Any, str, Any]] = []
        for method in [*about_documents, *[m for m in others if m != "shutdown"]]:
            for shape in _wrong_shapes(method, uri):
                number = next(ids)
                msg_id = number if number % 2 else f"id-{number}"  # ids of both kinds come back as sent
                message = {"id": msg_id, "method": method}
                if shape is not ...:
                    message["params"] = shape
                client.send(message)
                sent.append((msg_id, method, shape))
        for msg_id, method, shape in sent:
            answer = reply(client, msg_id)
            assert "error" in answer, (method, shape, answer)
            assert answer["error"]["code"] == INVALID_PARAMS, (method, shape, answer)
            assert answer["error"]["message"].startswith(f"invalid params for {method}: "), answer
            assert "Traceback" not in str(answer)
        # the worst of them are named by field, in the protocol's own words
        client.send({"id": 1, "method": "textDocument/hover", "params": {"textDocument": {"uri": uri},
                                                                       "position": {"line": -1, "character": 0}}})
        assert "$.params.position" in reply(client, 1)["error"]["message"]
        client.send({"id": 2, "method": "textDocument/hover", "params": {"position": {"line": 0, "character": 0}}})
        assert "$.params.textDocument: required field missing" in reply(client, 2)["error"]["message"]

        # the server goes on: a good request, a change and its diagnostics
        hovered = client.request("textDocument/hover", request_params("textDocument/hover", uri, 3, 6))
        assert "kind `Chip`" in hovered["contents"]["value"]
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                                 "contentChanges": [{"text": BROKEN}]})
        assert len(published(client, uri)["diagnostics"]) == 2


def test_a_message_that_is_no_request_is_answered_as_one_when_it_has_an_id(tmp_path: Path) -> None:
    uri = (tmp_path / "fewest.rules").as_uri()
    with started() as client:
        client.open(uri, GOOD)
        good = request_params("textDocument/hover", uri)
        client.send({"id": {"not": "an id"}, "method": "textDocument/hover", "params": good})
        assert reply(client, None)["error"]["code"] == INVALID_REQUEST  # an id it cannot name: null
        client.send({"id": 3, "method": 5, "params": good})
        assert reply(client, 3)["error"]["code"] == INVALID_REQUEST
        body = b'{"jsonrpc": "1.0", "id": 4, "method": "textDocument/hover", "params": {}}'
        assert client.proc.stdin is not None
        client.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        client.proc.stdin.flush()
        assert reply(client, 4)["error"]["code"] == INVALID_REQUEST
        client.send({"id": 5, "method": "no/suchMethod"})
        assert reply(client, 5)["error"]["code"] == -32601  # MethodNotFound, even without params
        # notifications of the wrong shape are dropped (they have no answer); the server goes on
        client.notify("textDocument/didOpen", {"textDocument": {"uri": 5}})
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri}, "contentChanges": "x"})
        client.send({"method": 7})
        assert client.request("textDocument/hover", request_params("textDocument/hover", uri, 3, 6)) is not None


def test_a_position_past_the_end_gets_an_empty_answer(tmp_path: Path) -> None:
    """A line or a character past the end of the document, up to the largest the protocol
    allows, is answered with nothing, not an error."""
    uri = (tmp_path / "fewest.rules").as_uri()
    about_documents, _ = registered_requests()
    with started() as client:
        client.open(uri, GOOD)
        lines = GOOD.split("\n")
        for line, character in ((2**31 - 1, 0), (0, 2**31 - 1), (len(lines), 5), (len(lines) - 1, 2**31 - 1)):
            for method in about_documents:
                answer = client.answer(method, request_params(method, uri, line, character))
                assert "error" not in answer, (method, line, character, answer)


def test_a_request_before_initialize_and_after_shutdown_is_answered() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "ruleforge", "lsp"], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        client = Client(proc)
        uri = "file:///nowhere/fewest.rules"
        before = client.answer("textDocument/hover", request_params("textDocument/hover", uri))
        assert before.get("result") is None  # nothing known yet: an empty answer
        client.start()
        assert client.request("shutdown", None) is None
        after = client.answer("textDocument/hover", request_params("textDocument/hover", uri))
        assert after["error"]["code"] == INVALID_REQUEST and "shutting down" in after["error"]["message"]
        client.notify("exit", {})
        assert proc.wait(timeout=DEADLINE) == 0
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("length", [b"100000000000000", b"9" * 5000], ids=["15 digits", "5,000 digits"])
def test_a_message_claiming_to_be_huge_allocates_nothing(length: bytes) -> None:
    """`Content-Length: 10^14` once made the server allocate that much at once and die with
    MemoryError (5,000 digits: with Python's ValueError on such a number); the body is read as
    it arrives, and the input's end ends the server."""
    proc = subprocess.Popen([sys.executable, "-m", "ruleforge", "lsp"], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        _, err = proc.communicate(b"Content-Length: " + length + b"\r\n\r\n{}", timeout=DEADLINE)
        assert proc.returncode == 0, err
        assert b"MemoryError" not in err and b"Traceback" not in err and b"internal error" not in err, err
    finally:
        proc.kill()
        proc.wait()
