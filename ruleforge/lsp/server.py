"""The language server itself: pygls wiring around `analysis`, over stdio.

Every open document is checked in full on open and on each change (full sync: a rules file is
small, and a 600-line game is checked in about 50 ms); the results are kept per document so that
hover, outline, definition, references and completion answer from them without checking again.
Written for pygls 2; the two calls that changed since pygls 1 are looked up either way.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types as lsp

try:
    from pygls.lsp.server import LanguageServer
except ImportError:  # pygls 1.x
    from pygls.server import LanguageServer  # type: ignore[no-redef]
from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import from_fs_path, to_fs_path

from .. import __version__
from ..diagnostics import RulesError
from ..formatter import FormatterBug, format_text
from . import analysis, completion, fixes, notes, signatures
from .analysis import Analysis, Span, Symbol
from .facts import Facts

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


def _range(span: Span) -> lsp.Range:
    return lsp.Range(lsp.Position(span.line, span.character), lsp.Position(span.end_line, span.end_character))


class RulesServer(LanguageServer):
    """Keeps each open document's last analysis (and its last symbols that parsed: a half-typed
    line should not empty the outline and the completions)."""

    def __init__(self) -> None:
        super().__init__("ruleforge", __version__, text_document_sync_kind=lsp.TextDocumentSyncKind.Full)
        self.results: dict[str, Analysis] = {}

    def refresh(self, uri: str) -> None:
        document = self.workspace.get_text_document(uri)
        path = analysis.document_path(to_fs_path(uri), uri)
        result, parsed = analysis.analyse(path, document.source)
        if not parsed and uri in self.results:
            last = self.results[uri]
            result.symbols, result.facts, result.bases = last.symbols, last.facts, last.bases
        self.results[uri] = result
        diagnostics = [_diagnostic(p) for p in result.problems]
        params = lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=document.version)
        publish = getattr(self, "text_document_publish_diagnostics", None)
        if publish is not None:
            publish(params)
        else:  # pygls 1.x
            self.publish_diagnostics(uri, diagnostics)  # type: ignore[attr-defined]

    def symbols(self, uri: str) -> list[Symbol]:
        result = self.results.get(uri)
        return result.symbols if result else []

    def word(self, uri: str, position: lsp.Position) -> str | None:
        text = self.workspace.get_text_document(uri).source
        return analysis.word_at(text, position.line, position.character)

    def texts_using(self, uri: str, with_bases: bool = True) -> dict[str, str]:
        """Where the names of a document are used: the document, the files it extends (as last
        read) and the open documents that extend it; uri -> text."""
        texts = {uri: self.workspace.get_text_document(uri).source}
        path = analysis.document_path(to_fs_path(uri), uri)
        result = self.results.get(uri)
        if with_bases and result is not None:
            for file, text in result.bases.items():
                texts.setdefault(from_fs_path(file) or file, text)
        for other_uri, other in self.results.items():
            if other_uri not in texts and any(analysis.same_file(file, path) for file in other.bases):
                texts[other_uri] = self.workspace.get_text_document(other_uri).source
        return texts

    def uses(self, uri: str, position: lsp.Position, everywhere: bool = True) -> list[tuple[str, Span]]:
        """Each use of the declared name under the cursor, by name: (uri, span), in every text
        that uses the document's names (`texts_using`), or in the document alone."""
        symbol = self.symbol_at(uri, position)
        if symbol is None:
            return []
        texts = self.texts_using(uri) if everywhere else {uri: self.workspace.get_text_document(uri).source}
        return [(where, span) for where, text in texts.items() for span in analysis.occurrences(text, symbol.name)]

    def symbol_at(self, uri: str, position: lsp.Position) -> Symbol | None:
        """The declaration of the name under the cursor, if the document (or its base) has one."""
        name = self.word(uri, position)
        return analysis.find(self.symbols(uri), name) if name else None


def _diagnostic(problem: analysis.Problem) -> lsp.Diagnostic:
    """The hint goes into the message (what every client shows) and into `data` (for a client
    that wants it apart)."""
    message = problem.message if not problem.hint else f"{problem.message}\nhint: {problem.hint}"
    data: Any = {"hint": problem.hint} if problem.hint else None
    return lsp.Diagnostic(range=_range(problem.span), message=message, severity=lsp.DiagnosticSeverity.Error,
                          source="ruleforge", data=data)


def _uri_of(symbol: Symbol, uri: str, path: str) -> str:
    return uri if symbol.file == path else (from_fs_path(symbol.file) or uri)


def build() -> RulesServer:
    """A server with every feature registered."""
    server = RulesServer()

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: RulesServer, params: lsp.DidOpenTextDocumentParams) -> None:
        ls.refresh(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: RulesServer, params: lsp.DidChangeTextDocumentParams) -> None:
        ls.refresh(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: RulesServer, params: lsp.DidCloseTextDocumentParams) -> None:
        ls.results.pop(params.text_document.uri, None)

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def document_symbol(ls: RulesServer, params: lsp.DocumentSymbolParams) -> list[lsp.DocumentSymbol]:
        uri = params.text_document.uri
        path = analysis.document_path(to_fs_path(uri), uri)

        def convert(symbol: Symbol) -> lsp.DocumentSymbol:
            return lsp.DocumentSymbol(name=symbol.name, detail=symbol.word, kind=_SYMBOL_KINDS[symbol.word],
                                      range=_range(symbol.whole), selection_range=_range(symbol.span),
                                      children=[convert(c) for c in symbol.children] or None)

        return [convert(s) for s in ls.symbols(uri) if s.file == path]

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
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

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: RulesServer, params: lsp.DefinitionParams) -> lsp.Location | None:
        uri = params.text_document.uri
        symbol = ls.symbol_at(uri, params.position)
        if symbol is None:
            return None
        path = analysis.document_path(to_fs_path(uri), uri)
        return lsp.Location(uri=_uri_of(symbol, uri, path), range=_range(symbol.span))

    @server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
    def references(ls: RulesServer, params: lsp.ReferenceParams) -> list[lsp.Location]:
        return [lsp.Location(uri=where, range=_range(span))
                for where, span in ls.uses(params.text_document.uri, params.position)]

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT)
    def highlight(ls: RulesServer, params: lsp.DocumentHighlightParams) -> list[lsp.DocumentHighlight]:
        """Every use in this document of the declared name under the cursor (found as references are)."""
        return [lsp.DocumentHighlight(range=_range(span))
                for _, span in ls.uses(params.text_document.uri, params.position, everywhere=False)]

    @server.feature(lsp.TEXT_DOCUMENT_FOLDING_RANGE)
    def folding(ls: RulesServer, params: lsp.FoldingRangeParams) -> list[lsp.FoldingRange]:
        """A fold for each pair of braces or brackets over several lines, and each run of comment lines."""
        text = ls.workspace.get_text_document(params.text_document.uri).source
        return [lsp.FoldingRange(start_line=a, end_line=b, kind=kind) for a, b, kind in analysis.folds(text)]

    @server.feature(lsp.TEXT_DOCUMENT_SIGNATURE_HELP, lsp.SignatureHelpOptions(trigger_characters=["(", ","]))
    def signature_help(ls: RulesServer, params: lsp.SignatureHelpParams) -> lsp.SignatureHelp | None:
        """Inside a call: the def's or phase's parameters (the one being written active), or a
        built-in's passage of the language reference."""
        uri = params.text_document.uri
        lines = ls.workspace.get_text_document(uri).source.split("\n")
        number = params.position.line
        if not 0 <= number < len(lines):
            return None
        column = analysis.from_utf16(lines[number], params.position.character)
        found = signatures.call_at("\n".join([*lines[:number], lines[number][:column]]))
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

    @server.feature(lsp.TEXT_DOCUMENT_RENAME)
    def rename(ls: RulesServer, params: lsp.RenameParams) -> lsp.WorkspaceEdit | None:
        """Every use of a name this document declares, renamed (by name, as references are
        found) in it and in the open documents that extend it; a name declared in a base file
        is renamed there, not here: refused (other variants of the base may use it)."""
        uri = params.text_document.uri
        symbol = ls.symbol_at(uri, params.position)
        if symbol is None:
            return None
        path = analysis.document_path(to_fs_path(uri), uri)
        problem = analysis.rename_problem(symbol, path, params.new_name)
        if problem is not None:
            raise JsonRpcInvalidParams(problem)
        changes = {where: [lsp.TextEdit(range=_range(span), new_text=params.new_name)
                           for span in analysis.occurrences(text, symbol.name)]
                   for where, text in ls.texts_using(uri, with_bases=False).items()}
        return lsp.WorkspaceEdit(changes={where: edits for where, edits in changes.items() if edits})

    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION)
    def complete(ls: RulesServer, params: lsp.CompletionParams) -> lsp.CompletionList:
        """What the grammar accepts at the cursor: its keywords, and the names that fit there."""
        uri = params.text_document.uri
        result = ls.results.get(uri)
        found = completion.complete(ls.workspace.get_text_document(uri).source, params.position.line,
                                    params.position.character, ls.symbols(uri), result.facts if result else Facts())
        items = [lsp.CompletionItem(label=i.label, kind=_COMPLETION_KINDS.get(i.what, lsp.CompletionItemKind.Text),
                                    detail=i.detail, sort_text=f"{i.rank}{i.label}") for i in found]
        return lsp.CompletionList(is_incomplete=False, items=items)

    @server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION,
                    lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix]))
    def code_action(ls: RulesServer, params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        """A quick fix for each of the diagnostics asked about whose hint is `did you mean 'X'?`."""
        uri = params.text_document.uri
        lines = ls.workspace.get_text_document(uri).source.split("\n")
        actions = []
        for diagnostic in params.context.diagnostics:
            number = diagnostic.range.start.line
            if diagnostic.source != "ruleforge" or not 0 <= number < len(lines):
                continue
            line = lines[number]
            start = analysis.from_utf16(line, diagnostic.range.start.character)
            end = (analysis.from_utf16(line, diagnostic.range.end.character)
                   if diagnostic.range.end.line == number else len(line))
            hint = diagnostic.data.get("hint") if isinstance(diagnostic.data, dict) else None
            fix = fixes.quick_fix(diagnostic.message, hint, line, start, end)
            if fix is None:
                continue
            a, b, word = fix
            where = lsp.Range(lsp.Position(number, analysis.utf16(line, a)),
                              lsp.Position(number, analysis.utf16(line, b)))
            actions.append(lsp.CodeAction(
                title=f"Change '{line[a:b]}' to '{word}'", kind=lsp.CodeActionKind.QuickFix, diagnostics=[diagnostic],
                is_preferred=True, edit=lsp.WorkspaceEdit(changes={uri: [lsp.TextEdit(range=where, new_text=word)]})))
        return actions

    @server.feature(lsp.TEXT_DOCUMENT_FORMATTING)
    def formatting(ls: RulesServer, params: lsp.DocumentFormattingParams) -> list[lsp.TextEdit] | None:
        """The document in `ruleforge fmt`'s layout, as one edit of the whole text; nothing while
        it does not parse (its diagnostics say why)."""
        uri = params.text_document.uri
        text = ls.workspace.get_text_document(uri).source
        try:
            formatted = format_text(text, analysis.document_path(to_fs_path(uri), uri))
        except (RulesError, FormatterBug):
            return None
        if formatted == text:
            return []
        lines = text.split("\n")
        end = lsp.Position(len(lines) - 1, analysis.utf16(lines[-1], len(lines[-1])))
        return [lsp.TextEdit(range=lsp.Range(lsp.Position(0, 0), end), new_text=formatted)]

    return server


def main() -> None:
    """Serve on stdin/stdout until the client says exit."""
    build().start_io()
