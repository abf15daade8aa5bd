"""The language server itself: pygls wiring around `analysis`, over stdio.

Every open document is checked in full on open and on each change (full sync), off the thread
that answers requests (`session`); the results are kept per document so that hover, outline,
definition, references and completion answer from them without checking again. A request about
a document the editor has not opened gets an empty answer: nothing is read from disk for it.
Each feature answers every request: nothing for a place it knows nothing of, InvalidParams for
a request it cannot read (`rpc`), and an internal error in one line (never a traceback) if a
bug of ruleforge raises. Written for pygls 2; the calls that changed since pygls 1 are looked up
either way.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import sys
from collections.abc import Callable
from typing import Any

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcInternalError, JsonRpcInvalidParams
from pygls.uris import from_fs_path

from ..diagnostics import RulesError
from ..formatter import FormatterBug, format_text
from ..limits import LIMITS
from ..parser import lark_parser
from . import analysis, completion, fixes, notes, signatures
from .analysis import Span, Symbol
from .facts import Facts
from .rpc import ChunkedInput
from .session import RulesServer, document_path, lsp_range

logger = logging.getLogger(__name__)

# What an outline shows each declaration as.
_SYMBOL_KINDS = {
    "enum": lsp.SymbolKind.Enum, "enum member": lsp.SymbolKind.EnumMember, "kind": lsp.SymbolKind.Class,
    "zone": lsp.SymbolKind.Array, "var": lsp.SymbolKind.Variable, "def": lsp.SymbolKind.Function,
    "action": lsp.SymbolKind.Method, "phase": lsp.SymbolKind.Event, "scoring": lsp.SymbolKind.Module,
    "option": lsp.SymbolKind.Property, "palette": lsp.SymbolKind.Constant,
}
# What a completion is shown as, by `completion.Item.what`.
_COMPLETION_KINDS = {
    "keyword": lsp.CompletionItemKind.Keyword, "kind": lsp.CompletionItemKind.Class,
    "enum": lsp.CompletionItemKind.Enum, "enum member": lsp.CompletionItemKind.EnumMember,
    "zone": lsp.CompletionItemKind.Struct, "var": lsp.CompletionItemKind.Variable,
    "def": lsp.CompletionItemKind.Function, "action": lsp.CompletionItemKind.Method,
    "phase": lsp.CompletionItemKind.Event, "scoring": lsp.CompletionItemKind.Module,
    "option": lsp.CompletionItemKind.Constant, "palette": lsp.CompletionItemKind.Color,
    "attribute": lsp.CompletionItemKind.Field, "property": lsp.CompletionItemKind.Property,
    "function": lsp.CompletionItemKind.Function, "constant": lsp.CompletionItemKind.Constant,
    "variable": lsp.CompletionItemKind.Variable, "local": lsp.CompletionItemKind.Variable,
    "type": lsp.CompletionItemKind.TypeParameter, "shape": lsp.CompletionItemKind.Value,
}


def _uri_of(symbol: Symbol, uri: str, path: str) -> str:
    return uri if symbol.file == path else (from_fs_path(symbol.file) or uri)


def answered(method: str, handler: Callable[..., Any]) -> Callable[..., Any]:
    """`handler`, with an exception it did not mean (a bug of ruleforge) answered as an
    internal error in one line: pygls would send the traceback along."""
    def internal(err: Exception) -> JsonRpcInternalError:
        logger.exception("%s failed", method)
        return JsonRpcInternalError(f"internal error in {method}: {type(err).__name__}: {str(err)[:300]}")

    if asyncio.iscoroutinefunction(handler):
        @functools.wraps(handler)
        async def run_async(ls: RulesServer, params: Any) -> Any:
            try:
                return await handler(ls, params)
            except JsonRpcException:
                raise
            except Exception as err:
                raise internal(err) from None
        return run_async

    @functools.wraps(handler)
    def run(ls: RulesServer, params: Any) -> Any:
        try:
            return handler(ls, params)
        except JsonRpcException:
            raise
        except Exception as err:
            raise internal(err) from None
    return run


def build() -> RulesServer:
    """A server with every feature registered."""
    server = RulesServer()

    def feature(method: str, options: Any = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def register(handler: Callable[..., Any]) -> Callable[..., Any]:
            server.feature(method, options)(answered(method, handler))
            return handler
        return register

    @feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: RulesServer, params: lsp.DidOpenTextDocumentParams) -> None:
        ls.changed(params.text_document.uri)

    @feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: RulesServer, params: lsp.DidChangeTextDocumentParams) -> None:
        ls.changed(params.text_document.uri)

    @feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: RulesServer, params: lsp.DidCloseTextDocumentParams) -> None:
        ls.closed(params.text_document.uri)

    @feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def document_symbol(ls: RulesServer, params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
        uri = params.text_document.uri
        if ls.text(uri) is None:
            return []
        path = document_path(uri)

        def convert(symbol: Symbol) -> lsp.DocumentSymbol:
            return lsp.DocumentSymbol(name=symbol.name, detail=symbol.word, kind=_SYMBOL_KINDS[symbol.word],
                                      range=lsp_range(symbol.whole), selection_range=lsp_range(symbol.span),
                                      children=[convert(c) for c in symbol.children] or None)

        return [convert(s) for s in ls.symbols(uri) if s.file == path]

    @feature(lsp.TEXT_DOCUMENT_HOVER)
    def hover(ls: RulesServer, params: lsp.HoverParams) -> lsp.Hover | None:
        uri = params.text_document.uri
        symbol = ls.symbol_at(uri, params.position)
        if symbol is not None:
            result = ls.results.get(uri)
            text = analysis.hover_text(symbol, result.facts if result else Facts())
        else:  # a keyword or a built-in: its passage of docs/language.md
            word = ls.word(uri, params.position)
            text = notes.notes().get(word or "", "")
            if not text:
                return None
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text))

    @feature(lsp.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: RulesServer, params: lsp.DefinitionParams) -> lsp.Location | None:
        uri = params.text_document.uri
        symbol = ls.symbol_at(uri, params.position)
        if symbol is None:
            return None
        return lsp.Location(uri=_uri_of(symbol, uri, document_path(uri)), range=lsp_range(symbol.span))

    @feature(lsp.TEXT_DOCUMENT_REFERENCES)
    async def references(ls: RulesServer, params: lsp.ReferenceParams) -> list[lsp.Location]:
        uses = await _uses(ls, params.text_document.uri, params.position, everywhere=True)
        return [lsp.Location(uri=where, range=lsp_range(span)) for where, span in uses]

    @feature(lsp.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT)
    async def highlight(ls: RulesServer, params: lsp.DocumentHighlightParams) -> list[lsp.DocumentHighlight]:
        """Every use in this document of the declared name under the cursor (found as references are)."""
        uses = await _uses(ls, params.text_document.uri, params.position, everywhere=False)
        return [lsp.DocumentHighlight(range=lsp_range(span)) for _, span in uses]

    @feature(lsp.TEXT_DOCUMENT_FOLDING_RANGE)
    async def folding(ls: RulesServer, params: lsp.FoldingRangeParams) -> list[lsp.FoldingRange]:
        """A fold for each pair of braces or brackets over several lines, and each run of comment lines."""
        text = ls.text(params.text_document.uri)
        if text is None:
            return []
        found = await ls.off_thread(lambda: analysis.folds(text))
        return [lsp.FoldingRange(start_line=a, end_line=b, kind=kind) for a, b, kind in found]

    @feature(lsp.TEXT_DOCUMENT_SIGNATURE_HELP, lsp.SignatureHelpOptions(trigger_characters=["(", ","]))
    async def signature_help(ls: RulesServer, params: lsp.SignatureHelpParams) -> lsp.SignatureHelp | None:
        """Inside a call: the def's or phase's parameters (the one being written active), or a
        built-in's passage of the language reference."""
        uri = params.text_document.uri
        text = ls.text(uri)
        if text is None:
            return None
        found = await ls.off_thread(lambda: _call_at(text, params.position))
        if found is None:
            return None
        name, argument = found
        symbol = analysis.find(ls.symbols(uri), name)
        header = signatures.declared(symbol) if symbol is not None else None
        if header is not None:
            label, names = header
            signature = lsp.SignatureInformation(label=label, parameters=[lsp.ParameterInformation(label=n)
                                                                          for n in names])
            return lsp.SignatureHelp(signatures=[signature], active_signature=0,
                                     active_parameter=min(argument, max(len(names) - 1, 0)))
        note = notes.notes().get(name) if symbol is None else None
        if not note:
            return None
        documentation = lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=note)
        return lsp.SignatureHelp(signatures=[lsp.SignatureInformation(label=f"{name}(...)",
                                                                      documentation=documentation)])

    @feature(lsp.TEXT_DOCUMENT_RENAME)
    async def rename(ls: RulesServer, params: lsp.RenameParams) -> lsp.WorkspaceEdit | None:
        """Every use of a name this document declares, renamed (by name, as references are
        found) in it and in the open documents that extend it; a name declared in a base file
        is renamed there, not here: refused (other variants of the base may use it)."""
        uri = params.text_document.uri
        symbol = ls.symbol_at(uri, params.position)
        if symbol is None:
            return None
        problem = analysis.rename_problem(symbol, document_path(uri), params.new_name)
        if problem is not None:
            raise JsonRpcInvalidParams(problem)
        texts = ls.texts_using(uri, with_bases=False)

        def edits() -> dict[str, list[lsp.TextEdit]]:
            return {where: [lsp.TextEdit(range=lsp_range(span), new_text=params.new_name)
                            for span in analysis.occurrences(text, symbol.name)] for where, text in texts.items()}

        changes = await ls.off_thread(edits)
        return lsp.WorkspaceEdit(changes={where: found for where, found in changes.items() if found})

    @feature(lsp.TEXT_DOCUMENT_COMPLETION)
    async def complete(ls: RulesServer, params: lsp.CompletionParams) -> lsp.CompletionList:
        """What the grammar accepts at the cursor: its keywords, and the names that fit there."""
        uri = params.text_document.uri
        text = ls.text(uri)
        if text is None:
            return lsp.CompletionList(is_incomplete=False, items=[])
        result = ls.results.get(uri)
        symbols, facts = ls.symbols(uri), result.facts if result else Facts()
        line, character = params.position.line, params.position.character
        found = await ls.off_thread(lambda: completion.complete(text, line, character, symbols, facts))
        items = [lsp.CompletionItem(label=i.label, kind=_COMPLETION_KINDS.get(i.what, lsp.CompletionItemKind.Text),
                                    detail=i.detail, sort_text=f"{i.rank}{i.label}") for i in found]
        return lsp.CompletionList(is_incomplete=False, items=items)

    @feature(lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix]))
    def code_action(ls: RulesServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        """A quick fix for each of the diagnostics asked about whose hint is `did you mean 'X'?`."""
        uri = params.text_document.uri
        text = ls.text(uri)
        return [] if text is None else _quick_fixes(uri, text, params.context.diagnostics)

    @feature(lsp.TEXT_DOCUMENT_FORMATTING)
    async def formatting(ls: RulesServer, params: lsp.DocumentFormattingParams) -> list[lsp.TextEdit] | None:
        """The document in `ruleforge fmt`'s layout, as one edit of the whole text; nothing while
        it does not parse or is past `lsp_document_chars` (its diagnostics say why)."""
        uri = params.text_document.uri
        text = ls.text(uri)
        if text is None or len(text) > LIMITS.lsp_document_chars:
            return None
        return await ls.off_thread(lambda: _formatted(text, document_path(uri)))

    return server


async def _uses(ls: RulesServer, uri: str, position: lsp.Position, everywhere: bool) -> list[tuple[str, Span]]:
    """Each use of the declared name under the cursor, by name: (uri, span), in every text
    that uses the document's names (`texts_using`), or in the document alone."""
    symbol = ls.symbol_at(uri, position)
    if symbol is None:
        return []
    own = ls.text(uri)
    texts = ls.texts_using(uri) if everywhere else ({uri: own} if own is not None else {})
    return await ls.off_thread(lambda: [(where, span) for where, text in texts.items()
                                        for span in analysis.occurrences(text, symbol.name)])


def _call_at(text: str, position: lsp.Position) -> tuple[str, int] | None:
    lines = text.split("\n")
    number = position.line
    if not 0 <= number < len(lines):
        return None
    column = analysis.from_utf16(lines[number], position.character)
    return signatures.call_at("\n".join([*lines[:number], lines[number][:column]]))


def _quick_fixes(uri: str, text: str, diagnostics: list[lsp.Diagnostic]) -> list[lsp.CodeAction]:
    lines = text.split("\n")
    actions = []
    for diagnostic in diagnostics:
        number = diagnostic.range.start.line
        if diagnostic.source != "ruleforge" or not 0 <= number < len(lines):
            continue
        line = lines[number]
        start = analysis.from_utf16(line, diagnostic.range.start.character)
        end = (analysis.from_utf16(line, diagnostic.range.end.character)
               if diagnostic.range.end.line == number else len(line))
        hint = diagnostic.data.get("hint") if isinstance(diagnostic.data, dict) else None
        fix = fixes.quick_fix(diagnostic.message, hint if isinstance(hint, str) else None, line, start, end)
        if fix is None:
            continue
        a, b, word = fix
        where = lsp.Range(lsp.Position(number, analysis.utf16(line, a)), lsp.Position(number, analysis.utf16(line, b)))
        actions.append(lsp.CodeAction(
            title=f"Change '{line[a:b]}' to '{word}'", kind=lsp.CodeActionKind.QuickFix, diagnostics=[diagnostic],
            is_preferred=True, edit=lsp.WorkspaceEdit(changes={uri: [lsp.TextEdit(range=where, new_text=word)]})))
    return actions


def _formatted(text: str, path: str) -> list[lsp.TextEdit] | None:
    try:
        formatted = format_text(text, path)
    except (RulesError, FormatterBug):
        return None
    if formatted == text:
        return []
    lines = text.split("\n")
    end = lsp.Position(len(lines) - 1, analysis.utf16(lines[-1], len(lines[-1])))
    return [lsp.TextEdit(range=lsp.Range(lsp.Position(0, 0), end), new_text=formatted)]


# How often the interpreter lock passes between threads (Python's default: every 5 ms). The thread
# that reads and answers requests waits for it behind the checking threads; with two checks
# running, a hover took 300 ms at 5 ms, and 10 to 20 ms at 1 ms.
SWITCH_SECONDS = 0.001


def main() -> None:
    """Serve on stdin/stdout until the client says exit. The parser is built first, once, so
    that the threads that check and complete never race to build it."""
    lark_parser()
    sys.setswitchinterval(SWITCH_SECONDS)
    build().start_io(ChunkedInput(sys.stdin.buffer), sys.stdout.buffer)  # type: ignore[arg-type]
