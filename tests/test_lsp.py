"""`ruleforge lsp`: the language server, driven over stdio as an editor drives it.

A minimal JSON-RPC client (Content-Length framing) is written here, so the test depends on no
LSP client library; every read has a deadline (a hang guard, not a timing) and the server is
killed when the test ends, whatever happened.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from stopping import ROOT

from ruleforge.formatter import format_text

pytest.importorskip("pygls")

DEADLINE = 60  # seconds: a hang guard

GOOD = """game "Fewest"
players 2

kind Chip {
  value: int
  label "{value}"
}

zone pool: pile, visible everyone
zone kept per player: pile, visible everyone

components {
  Chip(value: 0..15) in pool
}

var penalty per player: int = 0

flow {
  repeat 6 {
    for p in players {
      turn p: keep
    }
  }
  score penalties into penalty
}

action keep(c in pool) "keep {c}" {
  move c to kept(me)
}

scoring penalties for p final {
  "chips": sum(c.value for c in kept(p))
}
"""
# Two mistakes the checker reports together: a zone misspelt, an unknown name.
BROKEN = GOOD.replace("move c to kept(me)", "move c to kep(me)").replace("sum(c.value", "sum(zzz + c.value")


class Client:
    """Talks JSON-RPC to the server; notifications read while awaiting a reply are kept."""

    def __init__(self, proc: subprocess.Popen[bytes]):
        self.proc = proc
        self.messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.pending: list[dict[str, Any]] = []
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        while True:
            headers = {}
            while True:
                line = stream.readline()
                if not line:
                    self.messages.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                key, _, value = line.decode().partition(":")
                headers[key.strip().lower()] = value.strip()
            self.messages.put(json.loads(stream.read(int(headers["content-length"]))))

    def start(self) -> None:
        """`initialize` (asking for no capability of the client) and `initialized`."""
        self.request("initialize", {"processId": os.getpid(), "rootUri": None, "capabilities": {}})
        self.notify("initialized", {})

    def open(self, uri: str, text: str) -> list[dict[str, Any]]:
        """`didOpen`, and the diagnostics the server publishes for it."""
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "ruleforge",
                                                              "version": 1, "text": text}})
        return self.notification("textDocument/publishDiagnostics")["diagnostics"]

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self.send({"method": method, "params": params})

    def _next(self, deadline: float) -> dict[str, Any]:
        message = self.messages.get(timeout=max(deadline - time.monotonic(), 0.01))
        assert message is not None, "the server closed its output"
        return message

    def answer(self, method: str, params: Any) -> dict[str, Any]:
        """The server's whole answer to a request: its result or its error."""
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        deadline = time.monotonic() + DEADLINE
        while True:
            message = self._next(deadline)
            if message.get("id") == self.next_id and "method" not in message:
                return message
            self.pending.append(message)

    def request(self, method: str, params: Any) -> Any:
        message = self.answer(method, params)
        assert "error" not in message, message
        return message.get("result")

    def request_error(self, method: str, params: Any) -> dict[str, Any]:
        message = self.answer(method, params)
        assert "error" in message, message
        return message["error"]

    def notification(self, method: str) -> dict[str, Any]:
        """The first notification `method` not yet taken, waiting for it if need be."""
        deadline = time.monotonic() + DEADLINE
        while True:
            for k, message in enumerate(self.pending):
                if message.get("method") == method:
                    return self.pending.pop(k)["params"]
            self.pending.append(self._next(deadline))


def _start(argv: list[str] | None = None, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen(argv or [sys.executable, "-m", "ruleforge", "lsp"], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


@contextlib.contextmanager
def serving(argv: list[str] | None = None, env: dict[str, str] | None = None,
            initialized: bool = False) -> Iterator[Client]:
    """A server started for one test (`ruleforge lsp`, or `argv`), its client (initialized if
    asked), and at the end the protocol's own goodbye (shutdown, exit, exit status 0); killed
    whatever happened."""
    proc = _start(argv, env)
    try:
        client = Client(proc)
        if initialized:
            client.start()
        yield client
        assert client.request("shutdown", None) is None
        client.notify("exit", {})
        assert proc.wait(timeout=DEADLINE) == 0
    finally:
        proc.kill()
        proc.wait()


def _at(text: str, needle: str, offset: int = 0) -> dict[str, int]:
    """The LSP position of `needle`'s first occurrence (plus `offset` characters)."""
    before = text[:text.index(needle)]
    return {"line": before.count("\n"), "character": len(before.split("\n")[-1]) + offset}


def _range(text: str, needle: str, word: str) -> dict[str, Any]:
    start = _at(text, needle, needle.index(word))
    return {"start": start, "end": {"line": start["line"], "character": start["character"] + len(word)}}


def test_the_server_checks_outlines_and_answers(tmp_path: Path) -> None:
    path = tmp_path / "fewest.rules"
    path.write_text(GOOD, encoding="utf-8")
    uri = path.as_uri()
    with serving() as client:
        init = client.request("initialize", {"processId": os.getpid(), "rootUri": tmp_path.as_uri(),
                                             "capabilities": {}})
        capabilities = init["capabilities"]
        for feature in ("hoverProvider", "definitionProvider", "referencesProvider", "renameProvider",
                        "documentSymbolProvider", "documentFormattingProvider", "codeActionProvider",
                        "documentHighlightProvider", "foldingRangeProvider", "signatureHelpProvider",
                        "completionProvider"):
            assert capabilities.get(feature) is not None, feature
        client.notify("initialized", {})

        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "ruleforge",
                                                                "version": 1, "text": BROKEN}})
        published = client.notification("textDocument/publishDiagnostics")
        assert published["uri"] == uri
        found = sorted(published["diagnostics"], key=lambda d: d["range"]["start"]["line"])
        assert [d["range"] for d in found] == [_range(BROKEN, "kep(me)", "kep(me)"), _range(BROKEN, "zzz", "zzz")]
        assert "kep" in found[0]["message"] and "hint: did you mean 'kept'?" in found[0]["message"]
        assert found[0]["data"] == {"hint": "did you mean 'kept'?"} and "zzz" in found[1]["message"]
        assert all(d["source"] == "ruleforge" and d["severity"] == 1 for d in published["diagnostics"])

        # a quick fix for the hinted name: `kep` becomes `kept`, the call's arguments kept; none for `zzz`
        fixes = client.request("textDocument/codeAction", {
            "textDocument": {"uri": uri}, "range": found[0]["range"], "context": {"diagnostics": found}})
        assert [(a["title"], a["kind"]) for a in fixes] == [("Change 'kep' to 'kept'", "quickfix")]
        assert fixes[0]["edit"]["changes"][uri] == [{"range": _range(BROKEN, "kep(me)", "kep"), "newText": "kept"}]

        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                                 "contentChanges": [{"text": GOOD}]})
        assert client.notification("textDocument/publishDiagnostics")["diagnostics"] == []
        doc = {"textDocument": {"uri": uri}}

        outline = client.request("textDocument/documentSymbol", doc)
        assert [(s["name"], s["detail"]) for s in outline] == [
            ("Chip", "kind"), ("pool", "zone"), ("kept", "zone"), ("penalty", "var"), ("keep", "action"),
            ("penalties", "scoring")]
        assert outline[0]["selectionRange"] == _range(GOOD, "kind Chip", "Chip")

        hover = client.request("textDocument/hover", {**doc, "position": _at(GOOD, "kept(me)", 1)})
        assert "zone kept per player: pile, visible everyone" in hover["contents"]["value"]
        hovered = client.request("textDocument/hover", {**doc, "position": _at(GOOD, "into penalty", 6)})
        assert hovered["contents"]["value"].endswith("var `penalty`: int")
        hovered = client.request("textDocument/hover", {**doc, "position": _at(GOOD, "kind Chip", 6)})
        assert hovered["contents"]["value"].endswith("kind `Chip`\n- `value`: int")
        assert client.request("textDocument/hover", {**doc, "position": {"line": 0, "character": 8}}) is None

        where = client.request("textDocument/definition", {**doc, "position": _at(GOOD, "kept(me)", 2)})
        assert where == {"uri": uri, "range": _range(GOOD, "zone kept", "kept")}

        refs = client.request("textDocument/references", {**doc, "position": _at(GOOD, "zone kept", 6),
                                                          "context": {"includeDeclaration": True}})
        assert len(refs) == 3  # declared, moved into, counted
        # signature help: nothing outside a call; the header and the argument being written inside one
        assert client.request("textDocument/signatureHelp", {**doc, "position": _at(GOOD, "kept(me)", 0)}) is None
        builtin = client.request("textDocument/signatureHelp", {**doc, "position": _at(GOOD, "sum(c.value", 4)})
        [signature] = builtin["signatures"]
        assert signature["label"] == "sum(...)" and "sum" in signature["documentation"]["value"]
        marks = client.request("textDocument/documentHighlight", {**doc, "position": _at(GOOD, "kept(me)", 1)})
        assert [m["range"] for m in marks] == [r["range"] for r in refs]
        lines = GOOD.split("\n")
        folds = {(f["startLine"], f["endLine"]) for f in client.request("textDocument/foldingRange", doc)}
        kind, flow = lines.index("kind Chip {"), lines.index("flow {")
        assert {(kind, kind + 2), (flow, flow + 6)} <= folds  # up to the line before the closing brace

        renamed = client.request("textDocument/rename", {**doc, "position": _at(GOOD, "zone kept", 6),
                                                         "newName": "held"})
        edits = renamed["changes"][uri]
        assert len(edits) == 3 and {e["newText"] for e in edits} == {"held"}
        assert _range(GOOD, "zone kept", "kept") in [e["range"] for e in edits]
        refused = client.request_error("textDocument/rename", {**doc, "position": _at(GOOD, "zone kept", 6),
                                                               "newName": "zone"})
        assert "keyword" in refused["message"]

        completion = client.request("textDocument/completion", {**doc, "position": {"line": 0, "character": 0}})
        labels = {item["label"] for item in completion["items"]}
        assert {"action", "zone", "scoring"} <= labels and "repeat" not in labels  # what starts an item

        # formatting: one edit of the whole text, to `ruleforge fmt`'s layout; none while it does not parse
        messy = GOOD.replace("kind Chip {", "kind   Chip{") + "var   last : int=0"
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 3},
                                                 "contentChanges": [{"text": messy}]})
        client.notification("textDocument/publishDiagnostics")
        options = {**doc, "options": {"tabSize": 2, "insertSpaces": True}}
        [edit] = client.request("textDocument/formatting", options)
        lines = messy.split("\n")
        assert edit["range"] == {"start": {"line": 0, "character": 0},
                                 "end": {"line": len(lines) - 1, "character": len(lines[-1])}}
        assert edit["newText"] == format_text(messy)
        assert "kind Chip {\n" in edit["newText"] and edit["newText"].endswith("var last: int = 0\n")
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 4},
                                                 "contentChanges": [{"text": edit["newText"]}]})
        client.notification("textDocument/publishDiagnostics")
        assert client.request("textDocument/formatting", options) == []
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 5},
                                                 "contentChanges": [{"text": BROKEN + "kind {"}]})
        client.notification("textDocument/publishDiagnostics")
        assert client.request("textDocument/formatting", options) is None



def test_a_variant_is_checked_with_its_base(tmp_path: Path) -> None:
    """`extends` is read relative to the document's own folder; the base's names are defined there."""
    (tmp_path / "base.rules").write_text(GOOD, encoding="utf-8")
    variant = ('extends "base.rules"\ngame "Fewer"\n\nreplace var penalty per player: int = nope\n'
               'def left = count(pool)\n')
    uri = (tmp_path / "variant.rules").as_uri()  # never written: the editor's buffer is all there is
    with serving() as client:
        client.start()
        diagnostics = client.open(uri, variant)
        assert [d["range"] for d in diagnostics] == [_range(variant, "nope", "nope")]
        fixed = variant.replace("nope", "0")
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                                 "contentChanges": [{"text": fixed}]})
        assert client.notification("textDocument/publishDiagnostics")["diagnostics"] == []
        doc = {"textDocument": {"uri": uri}}
        own = client.request("textDocument/definition", {**doc, "position": _at(fixed, "penalty", 1)})
        assert own == {"uri": uri, "range": _range(fixed, "var penalty", "penalty")}
        base = client.request("textDocument/definition", {**doc, "position": _at(fixed, "pool", 1)})
        assert base == {"uri": (tmp_path / "base.rules").as_uri(), "range": _range(GOOD, "zone pool", "pool")}
        assert [s["name"] for s in client.request("textDocument/documentSymbol", doc)] == ["penalty", "left"]
        refused = client.request_error("textDocument/rename", {**doc, "position": _at(fixed, "pool", 1),
                                                               "newName": "bag"})
        assert "declared in" in refused["message"] and "base.rules" in refused["message"]

        # references reach across `extends`: from the variant into its base, and from the base
        # (once open) into the open variants that extend it; a rename in the base follows them
        base_uri = (tmp_path / "base.rules").as_uri()
        uses_in_base = len(re.findall(r"\bpool\b", GOOD))
        refs = client.request("textDocument/references", {**doc, "position": _at(fixed, "pool", 1),
                                                          "context": {"includeDeclaration": True}})
        assert sorted((r["uri"] == uri, r["range"]["start"]["line"]) for r in refs)[-1] == (True, 4)
        assert [r["uri"] for r in refs].count(base_uri) == uses_in_base and len(refs) == uses_in_base + 1
        client.open(base_uri, GOOD)
        from_base = {"textDocument": {"uri": base_uri}, "position": _at(GOOD, "zone pool", 6)}
        refs = client.request("textDocument/references", {**from_base, "context": {"includeDeclaration": True}})
        assert [r["uri"] for r in refs].count(uri) == 1 and len(refs) == uses_in_base + 1
        renamed = client.request("textDocument/rename", {**from_base, "newName": "bag"})["changes"]
        assert set(renamed) == {base_uri, uri} and len(renamed[base_uri]) == uses_in_base
        assert renamed[uri] == [{"range": _range(fixed, "count(pool)", "pool"), "newText": "bag"}]


def test_without_pygls_the_command_names_the_extra() -> None:
    blocker = ("import sys\nclass Block:\n    def find_spec(self, name, path=None, target=None):\n"
               "        if name.split('.')[0] == 'pygls':\n"
               "            raise ImportError(f'no {name}', name=name)\n"
               "sys.meta_path.insert(0, Block())\n"
               "sys.argv = ['ruleforge', 'lsp']\nfrom ruleforge.__main__ import run\nrun()\n")
    ran = subprocess.run([sys.executable, "-c", blocker], cwd=ROOT, capture_output=True, text=True,
                         timeout=DEADLINE, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=subprocess.DEVNULL)
    assert ran.returncode == 1
    assert ran.stderr.strip().splitlines() == [
        "error: ruleforge lsp needs the lsp extra (pygls is missing): pip install 'ruleforge[lsp]'"]


def test_ranges_count_utf16_units_as_lsp_does(tmp_path: Path) -> None:
    """An emoji is one character to the checker and two UTF-16 units to an editor."""
    from ruleforge.lsp.analysis import analyse, document_path, occurrences, word_at

    text = 'game "x"\nplayers 2\nvar x: int = "\U0001F600" + zz\nflow { }\n'
    result, parsed = analyse(str(tmp_path / "x.rules"), text)
    assert parsed
    spans = [(p.span.line, p.span.character, p.span.end_character) for p in result.problems]
    assert spans == [(2, 13, 17), (2, 20, 22)]  # the text, then the unknown name after it
    assert word_at(text, 2, 21) == "zz" and word_at(text, 2, 15) is None  # in a string: no name
    assert [(s.line, s.character) for s in occurrences(text, "x")] == [(2, 4)]  # not the "x" title
    assert document_path(None, "untitled:Untitled-1").endswith("untitled_Untitled-1")


def _end(text: str, needle: str) -> dict[str, int]:
    """The LSP position just after `needle`'s first occurrence (which may span lines)."""
    before = text[:text.index(needle) + len(needle)]
    return {"line": before.count("\n"), "character": len(before.split("\n")[-1])}


def _labels(client: Client, uri: str, text: str, needle: str) -> dict[str, dict[str, Any]]:
    """The completions at the end of `needle`'s first occurrence in `text`, by label."""
    position = _end(text, needle)
    found = client.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": position})
    return {item["label"]: item for item in found["items"]}


def test_completion_follows_the_grammar_and_hover_reads_the_docs(tmp_path: Path) -> None:
    """What is offered depends on where the cursor is: the grammar's keywords there and the
    names that fit; a keyword or a built-in hovered shows its passage of docs/language.md."""
    uri = (tmp_path / "fewest.rules").as_uri()
    with serving() as client:
        client.start()
        client.open(uri, GOOD)

        top = _labels(client, uri, GOOD, "")  # the start of a top-level item
        assert {"kind", "zone", "action", "scoring", "flow"} <= set(top) and not {"move", "deal", "Chip"} & set(top)
        assert top["zone"]["kind"] == 14  # CompletionItemKind.Keyword
        block = _labels(client, uri, GOOD, '"keep {c}" {\n  ')  # the start of a statement (an action's body)
        assert {"move", "deal", "turn", "shuffle"} <= set(block) and not {"kind", "zone", "pool"} & set(block)

        versions = iter(range(2, 100))

        def edit(text: str) -> None:
            client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": next(versions)},
                                                     "contentChanges": [{"text": text}]})

        dotted = GOOD + "\ndef red(c: Chip) = c."  # does not parse: the names of the last good text
        edit(dotted)
        members = _labels(client, uri, dotted, "= c.")
        assert set(members) == {"value"} and "Chip" in members["value"]["detail"]
        choosing = GOOD.replace("turn p: keep", "turn p: ke")  # a half-typed action's name
        edit(choosing)
        actions = _labels(client, uri, choosing, "turn p: ke")
        assert {"keep", "pass"} <= set(actions) and not {"pool", "kept", "penalty", "repeat"} & set(actions)
        assert actions["keep"]["kind"] == 2 and "action keep" in actions["keep"]["detail"]  # Method
        moving = GOOD.replace("move c to kept(me)", "move c to ")
        edit(moving)
        zones = _labels(client, uri, moving, "move c to ")
        assert zones["kept"]["sortText"] < zones["count"]["sortText"]  # zones first where one is expected
        broken = "zone )\n" + GOOD  # an error before the cursor: everything is offered
        edit(broken)
        assert {"kind", "move", "keep", "kept"} <= set(_labels(client, uri, broken, '"keep {c}" {\n  '))

        edit(GOOD)
        doc = {"textDocument": {"uri": uri}}
        keyword = client.request("textDocument/hover", {**doc, "position": _at(GOOD, "move c", 1)})
        assert "`move X to Z" in keyword["contents"]["value"]
        builtin = client.request("textDocument/hover", {**doc, "position": _at(GOOD, "sum(", 1)})
        assert "sum of ints" in builtin["contents"]["value"]
        declared = client.request("textDocument/hover", {**doc, "position": _at(GOOD, "kept(me)", 1)})
        assert "zone kept per player" in declared["contents"]["value"]  # a declared name wins


def test_completion_by_place() -> None:
    """The places the server test does not visit, on the pure function."""
    from ruleforge.lsp.analysis import analyse
    from ruleforge.lsp.completion import complete

    two_kinds = GOOD + "kind Marker { var spent: flag = false }\ndisplay Marker { turn 90 if spent }\n"
    result, parsed = analyse(str(ROOT / "fewest.rules"), two_kinds)
    assert parsed and not result.problems

    def offered(text: str, needle: str) -> dict[str, str]:
        position = _end(text, needle)
        items = complete(text, position["line"], position["character"], result.symbols, result.facts)
        return {i.label: i.what for i in items}

    for statement in ('choose "more?": ', "turn together players: keep, "):
        deciding = two_kinds.replace("turn p: keep", statement)
        assert offered(deciding, statement) == {"keep": "action", "pass": "action"}
    assert offered(GOOD, "score ") == {"penalties": "scoring"}
    assert offered(GOOD, "into ") == {"penalty": "var"}
    assert offered(GOOD, "zone pool: ") == {s: "shape" for s in ("pile", "hand", "row", "grid")}
    assert offered(GOOD, "Chip(") == {"value": "attribute"}
    assert set(offered(GOOD, "pile, visible everyone\n").values()) == {"keyword"}  # an item starts so
    typed = two_kinds + "def cheapest(cs: list of Chip) = count(c for c in cs if c."
    assert offered(typed, "if c.") == {"value": "attribute"}  # the loop's source is a list of Chip
    assert offered(two_kinds + "def any_value = count(c.", "(c.") == {"value": "attribute", "spent": "property"}
    assert offered(two_kinds, "90 if ") == {"spent": "property"}
    types = offered(GOOD.replace("value: int", "value: "), "value: ")
    assert {"int", "flag", "text", "Chip", "player", "list"} <= set(types) and "pool" not in types
    assert offered(GOOD + "\n# a comment ", "a comment ") == {}


def test_hover_notes_are_in_step_with_the_docs() -> None:
    """ruleforge/lsp/language_notes.json is docs/language.md's passages: written again with
    `python -m ruleforge.lsp.notes --write` after an edit of the docs."""
    from ruleforge.lsp import notes

    fresh = notes.dumps(notes.build((ROOT / "docs" / "language.md").read_text(encoding="utf-8")))
    committed = (ROOT / "ruleforge" / "lsp" / notes.NOTES_FILE).read_text(encoding="utf-8")
    assert fresh == committed, "run: python -m ruleforge.lsp.notes --write"
    table = notes.notes()
    assert {"zone", "turn", "move", "deal", "best", "count", "argmax", "pass", "me"} <= set(table)
    assert table["zone"].startswith("**`zone`**") and table["argmax"].startswith("**Aggregates**")
    assert all(len(note.split("\n")) <= notes.MAX_LINES for note in table.values())
    # that they name no game (the docs' examples do) is tests/test_engine_names_no_game.py's, which reads
    # every file ruleforge/ ships


@pytest.mark.parametrize("message,hint,line,span,fix", [
    ("unknown zone 'takn'", "did you mean 'taken'?", "  move t to takn(me)", (12, 20), (12, 16, "taken")),
    ("kind Card has no attribute 'valeu'", "did you mean 'value'?", "  c.valeu > 2", (2, 9), (4, 9, "value")),
    ("unknown colour 'forst'", "did you mean 'forest'?", '  colour "forst"', (9, 16), (10, 15, "forest")),
    ("unknown zone 'takn'", "use one of ...", "  move t to takn(me)", (12, 20), None),
    ("unknown zone 'takn'", "did you mean 'taken'?", "  move t to other(me)", (12, 21), None),
    ("unknown name 'ab'", "did you mean 'abc'?", "  cab + ab", (2, 10), (8, 10, "abc")),
])
def test_quick_fix_finds_the_quoted_word_in_the_range(message, hint, line, span, fix) -> None:
    from ruleforge.lsp.fixes import quick_fix
    assert quick_fix(message, hint, line, *span) == fix


def test_folds_follow_brackets_and_comment_runs_not_strings() -> None:
    from ruleforge.lsp.analysis import folds
    text = '# one\n# two\nkind A {\n  label "{x"  # a brace in a string and one in a comment {\n}\ndef f = g(\n  1)\n'
    assert folds(text) == [(0, 1, "comment"), (2, 3, None)]  # `g(` closes on the next line: nothing hidden


def test_signature_help_marks_the_argument_being_written(tmp_path: Path) -> None:
    """The header of the def called and the argument being written, also while the call is
    half-typed (the names of the last text that parsed); nothing inside a zone's brackets."""
    text = GOOD + "def worth(c: Chip, extra: int) = c.value + extra\ndef total = worth(first(pool), count(kept(P1)))\n"
    path = tmp_path / "worth.rules"
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    with serving() as client:
        client.start()
        client.open(uri, text)
        doc = {"textDocument": {"uri": uri}}

        def active(source: str, needle: str, offset: int) -> int:
            helped = client.request("textDocument/signatureHelp", {**doc, "position": _at(source, needle, offset)})
            [signature] = helped["signatures"]
            assert signature["label"] == "def worth(c: Chip, extra: int)"
            assert [p["label"] for p in signature["parameters"]] == ["c: Chip", "extra: int"]
            return helped["activeParameter"]

        assert active(text, "worth(first", 6) == 0
        assert active(text, "count(kept(P1))", 0) == 1
        assert client.request("textDocument/signatureHelp", {**doc, "position": _at(text, "kept(P1)", 5)}) is None
        typing = text.replace("count(kept(P1)))", "count(kept(P1)), ")  # a third argument begun: no parse
        client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                                 "contentChanges": [{"text": typing}]})
        client.notification("textDocument/publishDiagnostics")
        assert active(typing, "count(kept(P1)), ", 17) == 1  # past the last parameter: the last one


@pytest.mark.parametrize("before,call", [
    ("def x = may_play(c, ", ("may_play", 1)),
    ("def x = f(a, [1, 2", None),  # in a list: no call's argument
    ('def x = f(a, g(b), "(,", # (\n  c', ("f", 3)),  # brackets in strings and comments do not count
    ("kind A {", None),
    ("def x = (a, ", None),  # brackets that group: no call
])
def test_the_call_at_the_cursor(before, call) -> None:
    from ruleforge.lsp.signatures import call_at
    assert call_at(before) == call

