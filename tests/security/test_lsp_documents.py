"""`ruleforge lsp` reads only what the editor sends: a request about a document it was never
sent (`file:///dev/zero`, a named pipe, `/etc/passwd`, a secret next to the rules) gets an empty
answer, at once, and nothing of the file; the only files read are the bases named by `extends`,
under the rule for files named by another file (no pipe, device, /proc, or link loop). A check
that fails is shown as a diagnostic, never as silence.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from test_lsp import GOOD

from .test_lsp_requests import published, registered_requests, request_params, started

pytest.importorskip("pygls")

SECRET = "the-secret-is-swordfish"
SECRET_RULES = GOOD.replace('game "Fewest"', f'game "{SECRET}"')


def _empty(result: object) -> bool:
    """An answer that says nothing: no result, an empty list, an empty completion list."""
    if isinstance(result, dict) and "items" in result:
        return result["items"] == []
    return result in (None, [])


def test_a_document_never_opened_is_never_read(tmp_path: Path) -> None:
    (tmp_path / "secret.rules").write_text(SECRET_RULES, encoding="utf-8")
    os.mkfifo(tmp_path / "pipe.rules")  # opened for reading, it would wait for a writer for ever
    (tmp_path / "loop.rules").symlink_to("loop.rules")
    uris = ["file:///dev/zero", "file:///etc/passwd", "file:///proc/self/environ", (tmp_path / "pipe.rules").as_uri(),
            (tmp_path / "secret.rules").as_uri(), (tmp_path / "loop.rules").as_uri(), "file:///nowhere/x.rules",
            "untitled:Untitled-1", "not a uri at all"]
    about_documents, _ = registered_requests()
    opened = (tmp_path / "open.rules").as_uri()
    with started() as client:
        client.open(opened, GOOD)
        for uri in uris:
            for line, character in ((0, 0), (3, 6), (4, 2)):  # the start, `Chip` in `kind Chip`, a member
                for method in about_documents:
                    answer = client.answer(method, request_params(method, uri, line, character))
                    assert "error" not in answer and _empty(answer.get("result")), (uri, method, answer)
                    assert SECRET not in str(answer) and "root:" not in str(answer)
        # the open document is answered as before, and nothing of the others reached it
        hovered = client.request("textDocument/hover", request_params("textDocument/hover", opened, 3, 6))
        assert "kind `Chip`" in hovered["contents"]["value"]
        refs = client.request("textDocument/references", request_params("textDocument/references", opened, 8, 6))
        assert {r["uri"] for r in refs} == {opened}
        assert all(SECRET not in str(m) for m in client.pending)


def test_a_closed_document_is_forgotten_not_read_from_disk(tmp_path: Path) -> None:
    path = tmp_path / "secret.rules"
    path.write_text(SECRET_RULES, encoding="utf-8")
    uri = path.as_uri()
    with started() as client:
        client.open(uri, GOOD)
        assert client.request("textDocument/hover", request_params("textDocument/hover", uri, 3, 6)) is not None
        client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        for method in registered_requests()[0]:
            answer = client.answer(method, request_params(method, uri, 0, 7))
            assert "error" not in answer and _empty(answer.get("result")), (method, answer)
            assert SECRET not in str(answer)


def test_bases_are_read_under_the_rule_for_named_files(tmp_path: Path) -> None:
    """What `extends` names is read from disk on purpose, as `ruleforge check` reads it: a
    rules file, yes; a pipe, a device, a file of /proc or a loop of links, refused at the line."""
    (tmp_path / "base.rules").write_text(GOOD, encoding="utf-8")
    os.mkfifo(tmp_path / "pipe.rules")
    (tmp_path / "a.rules").symlink_to("b.rules")
    (tmp_path / "b.rules").symlink_to("a.rules")
    with started() as client:
        variant = 'extends "base.rules"\ngame "Fewer"\ndef left = count(pool)\n'
        assert client.open((tmp_path / "variant.rules").as_uri(), variant) == []
        for base, reason in (("pipe.rules", "named pipe"), ("/dev/zero", "device"),
                             ("/proc/self/environ", "/proc"), ("a.rules", "loop")):
            uri = (tmp_path / f"to_{reason.strip('/')}.rules").as_uri()
            text = f'game "Fewer"\n\nextends "{base}"\n'
            [found] = client.open(uri, text)
            assert found["range"]["start"]["line"] == 2, found  # at the extends line
            assert reason in found["message"] and "not a rules file" in found["message"], found


def test_extends_into_a_loop_of_links_is_a_diagnostic_at_the_extends(tmp_path: Path) -> None:
    """Python 3.11's `Path.resolve` raises on a loop of links: the check once failed there and
    the server published nothing. A document whose own name is such a loop is checked too."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "x.rules").symlink_to("y.rules")
    (tmp_path / "sub" / "y.rules").symlink_to("x.rules")
    (tmp_path / "self.rules").symlink_to("self.rules")
    with started() as client:
        text = GOOD.replace('players 2', 'players 2\nextends "sub/x.rules"')
        [found] = client.open((tmp_path / "variant.rules").as_uri(), text)
        assert found["range"]["start"]["line"] == 2 and "loop" in found["message"], found
        own = (tmp_path / "self.rules").as_uri()
        assert client.open(own, GOOD) == []
        refs = client.request("textDocument/references", request_params("textDocument/references", own, 8, 6))
        assert len(refs) == len(re.findall(r"\bpool\b", GOOD)) and {r["uri"] for r in refs} == {own}


FAILING_CHECK = """
import sys
import ruleforge.lsp.analysis as analysis

def fails(path, text):
    if "fail" in text:
        raise RuntimeError("Symlink loop from " + repr(path))
    return real(path, text)

def folds(text):
    raise RuntimeError("a bug in folding")

real, analysis.analyse, analysis.folds = analysis.analyse, fails, folds
sys.argv = ["ruleforge", "lsp"]
from ruleforge.__main__ import run
run()
"""


def test_a_check_that_fails_is_shown_never_silence(tmp_path: Path) -> None:
    """Whatever the check raises (here made to raise as the loader once did), the document gets
    a diagnostic saying the check failed; the server goes on checking. A feature that raises
    gets its answer too."""
    uri = (tmp_path / "v.rules").as_uri()
    with started(code=FAILING_CHECK) as client:
        [found] = client.open(uri, GOOD + "# fail\n")
        assert found["range"]["start"] == {"line": 0, "character": 0}
        assert found["message"].startswith("the check failed: internal error: RuntimeError: Symlink loop from ")
        assert "report it" in found["message"] and "Traceback" not in found["message"]
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                                 "contentChanges": [{"text": GOOD}]})
        assert published(client, uri)["diagnostics"] == []
        # a feature that raises is answered too: an internal error in one line, no traceback
        error = client.request_error("textDocument/foldingRange", {"textDocument": {"uri": uri}})
        assert error["code"] == -32603 and "data" not in error
        assert error["message"] == "internal error in textDocument/foldingRange: RuntimeError: a bug in folding"
