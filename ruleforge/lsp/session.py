"""What the language server holds between requests: the texts the editor sent, their checks,
and each open document's last analysis.

**Only what the editor sent is read.** A request names a document by URI; pygls's
`workspace.get_text_document` hands back, for a URI never opened, a document that reads the
file from disk when its text is asked for (`file:///dev/zero` read until memory ran out, a pipe
waited for ever, `/etc/passwd` was read). Here `text(uri)` is the text of an open document or
None, and every feature answers None or nothing for the latter. The only files read from disk
are the bases named by `extends`, by the loader, under the rule of `named_files`.

**Checks run off the answering thread.** A document is checked on a `Workers` thread when it is
opened and at each change; a newer version replaces one not yet started, and a result is
published (on the event loop, where all this state is changed) only if no change came since:
a stale result is never shown. A document past `lsp_document_chars` is not checked: its one
diagnostic says so at once. Work that grows with the document on a request (formatting, a
completion's parse, references) runs on other worker threads through `off_thread`; the event
loop, which reads and answers every message, only ever does work bounded by a line or two.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import unquote

from lsprotocol import types as lsp

try:
    from pygls.lsp.server import LanguageServer
except ImportError:  # pygls 1.x
    from pygls.server import LanguageServer  # type: ignore[no-redef]
from pygls.uris import from_fs_path, to_fs_path

from .. import __version__
from . import analysis
from .analysis import Analysis, Span, Symbol
from .rpc import AnsweringProtocol, converter
from .workers import Workers

T = TypeVar("T")

CHECK_THREADS = 2  # a long check of one document leaves a thread to check the others
REQUEST_THREADS = 2  # a long formatting leaves a thread to complete in another document


def document_path(uri: str) -> str:
    """The path a document is checked as (`analysis.document_path`), for any URI."""
    try:
        fs_path = to_fs_path(uri)
    except Exception:  # a URI pygls cannot read: an unsaved buffer's name
        fs_path = None
    return analysis.document_path(fs_path, uri)


class RulesServer(LanguageServer):
    """Keeps each open document's last analysis (and its last symbols that parsed: a half-typed
    line should not empty the outline and the completions)."""

    def __init__(self) -> None:
        super().__init__("ruleforge", __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Full,
                         protocol_cls=AnsweringProtocol, converter_factory=converter)
        self.results: dict[str, Analysis] = {}
        self.generations: dict[str, int] = {}  # uri -> the newest change's number: which result is not stale
        self._changes = itertools.count(1)  # never reset: a document closed and opened again is a new one
        self.checks = Workers(CHECK_THREADS, "ruleforge-check")
        self.requests = Workers(REQUEST_THREADS, "ruleforge-request")

    # --- the texts the editor sent ---------------------------------------------------------

    def text(self, uri: str) -> str | None:
        """The text of the open document `uri`, or None: never read from disk (see above)."""
        document = self._document(uri)
        return None if document is None else document.source

    def _document(self, uri: str) -> Any:
        """pygls's record of the open document `uri` (None if it was not opened, or before
        `initialize`); only one whose text came from the editor, whose `.source` is that text
        (pygls's `.source` reads the file when it has none)."""
        try:
            documents = self.workspace.text_documents
        except (RuntimeError, AttributeError):  # not initialized yet
            return None
        if not isinstance(uri, str):
            return None
        document = documents.get(uri) or documents.get(unquote(uri))
        return document if isinstance(getattr(document, "_source", None), str) else None

    # --- checks ------------------------------------------------------------------------------

    def changed(self, uri: str) -> None:
        """A document was opened or changed: check its text off this thread (at once, if it is
        past the size bound: it is not checked)."""
        document = self._document(uri)
        if document is None:
            return
        text, version = document.source, document.version
        generation = self.generations[uri] = next(self._changes)
        oversized = analysis.too_large(text)
        if oversized is not None:
            self.checks.discard(uri)
            self._publish(uri, generation, version, oversized, False)
            return
        path = document_path(uri)
        loop = _running_loop()

        def check() -> None:
            try:
                result, parsed = analysis.analyse(path, text)
            except Exception as err:  # never silence: the editor is told the check failed
                result, parsed = analysis.failed(err), False
            _hand_back(loop, self._publish, uri, generation, version, result, parsed)

        if loop is None:  # no event loop (used as a library): check here and now
            check()
        else:
            self.checks.submit(uri, check)

    def closed(self, uri: str) -> None:
        self.generations.pop(uri, None)
        self.results.pop(uri, None)
        self.checks.discard(uri)

    def _publish(self, uri: str, generation: int, version: int | None, result: Analysis, parsed: bool) -> None:
        """Keep and publish a check's result, unless the document changed or closed since."""
        if self.generations.get(uri) != generation:
            return
        if not parsed and uri in self.results:
            last = self.results[uri]
            result.symbols, result.facts, result.bases = last.symbols, last.facts, last.bases
        self.results[uri] = result
        diagnostics = [diagnostic(p) for p in result.problems]
        params = lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
        publish = getattr(self, "text_document_publish_diagnostics", None)
        if publish is not None:
            publish(params)
        else:  # pygls 1.x
            self.publish_diagnostics(uri, diagnostics)  # type: ignore[attr-defined]

    async def off_thread(self, job: Callable[[], T]) -> T:
        """`job()` on a request thread, awaited here: the event loop answers others meanwhile.
        A request cancelled before its job starts skips it."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()

        def run() -> None:
            if future.cancelled():
                return
            try:
                outcome: tuple[Any, Exception | None] = (job(), None)
            except Exception as err:
                outcome = (None, err)
            _hand_back(loop, _settle, future, *outcome)

        self.requests.submit(object(), run)
        return await future

    # --- what the features ask --------------------------------------------------------------

    def symbols(self, uri: str) -> list[Symbol]:
        result = self.results.get(uri)
        return result.symbols if result else []

    def word(self, uri: str, position: lsp.Position) -> str | None:
        text = self.text(uri)
        return None if text is None else analysis.word_at(text, position.line, position.character)

    def texts_using(self, uri: str, with_bases: bool = True) -> dict[str, str]:
        """Where the names of a document are used: the document, the files it extends (as last
        read) and the open documents that extend it; uri -> text."""
        own = self.text(uri)
        if own is None:
            return {}
        texts = {uri: own}
        path = document_path(uri)
        result = self.results.get(uri)
        if with_bases and result is not None:
            for file, text in result.bases.items():
                texts.setdefault(from_fs_path(file) or file, text)
        for other_uri, other in list(self.results.items()):
            other_text = self.text(other_uri)
            if (other_uri not in texts and other_text is not None
                    and any(analysis.same_file(file, path) for file in other.bases)):
                texts[other_uri] = other_text
        return texts

    def symbol_at(self, uri: str, position: lsp.Position) -> Symbol | None:
        """The declaration of the name under the cursor, if the document (or its base) has one."""
        name = self.word(uri, position)
        return analysis.find(self.symbols(uri), name) if name else None


def diagnostic(problem: analysis.Problem) -> lsp.Diagnostic:
    """The hint goes into the message (what every client shows) and into `data` (for a client
    that wants it apart)."""
    message = problem.message if not problem.hint else f"{problem.message}\nhint: {problem.hint}"
    data: Any = {"hint": problem.hint} if problem.hint else None
    return lsp.Diagnostic(range=lsp_range(problem.span), message=message, severity=lsp.DiagnosticSeverity.Error,
                          source="ruleforge", data=data)


def lsp_range(span: Span) -> lsp.Range:
    return lsp.Range(lsp.Position(span.line, span.character), lsp.Position(span.end_line, span.end_character))


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _hand_back(loop: asyncio.AbstractEventLoop | None, callback: Callable[..., None], *args: Any) -> None:
    """Run `callback(*args)` on the event loop's thread (here, without one); nothing once the
    loop has closed (the server is exiting)."""
    if loop is None:
        callback(*args)
        return
    with contextlib.suppress(RuntimeError):  # the loop closed
        loop.call_soon_threadsafe(callback, *args)


def _settle(future: asyncio.Future[Any], result: Any, error: Exception | None) -> None:
    if future.done():  # cancelled meanwhile
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)
