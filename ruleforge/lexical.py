"""Text as editors save it: decoding, line endings, and what a character the grammar cannot
take really is (an unterminated string, a curly quote, an invisible character, ...).

Only the error path pays for the descriptions here; reading a good file costs a decode and
two replaces.
"""

from __future__ import annotations

import codecs
import re
import unicodedata

import attrs

BOM = "\ufeff"
_LINE = re.compile(r"[^\n]*\n|[^\n]+$")

# Byte-order marks that say how a file is encoded; UTF-32 first (its mark starts like UTF-16's).
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))

_CURLY_QUOTES = {"\u201c": "\u201d", "\u2018": "\u2019", "\u201e": "\u201c", "\u201a": "\u2018",
                 "\u00ab": "\u00bb", "\u2039": "\u203a", "\u201d": "\u201d", "\u2019": "\u2019",
                 "\u201f": "\u201d", "\u201b": "\u2019", "\u00bb": "\u00ab", "\u203a": "\u2039"}
# Characters word processors and keyboards put in place of the ASCII ones the language uses.
_LOOKALIKES = {"\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2212": "-",
               "\u00d7": "*", "\u00f7": "//", "\u2264": "<=", "\u2265": ">=", "\u2260": "!=",
               "\u2026": "..", "\u2192": "to", "\u00b7": "."}
_ASCII_HINTS = {
    "!": ("'!' is not an operator", "write 'not' to negate, '!=' for 'not equal'"),
    "&": ("'&' is not an operator", "write 'and'"),
    "|": ("'|' is not an operator", "write 'or'"),
    "/": ("'/' is not an operator", "whole-number division is '//'"),
    ";": ("';' is not needed", "statements end without ';': remove it"),
    "`": ("'`' is not a quote mark", "strings use straight quotes: \" or '"),
    "\\": ("'\\' is not part of the language", "strings have no escapes: a backslash is only text inside one"),
}


class UndecodableFile(Exception):
    """A file that is not text in an encoding ruleforge reads; says where decoding fails."""

    def __init__(self, message: str, hint: str, line: int, column: int, text: str):
        super().__init__(message)
        self.message, self.hint, self.line, self.column, self.text = message, hint, line, column, text


def decode(data: bytes) -> str:
    """The text of a rules file: UTF-8 (a byte-order mark is dropped), or UTF-16 or UTF-32
    when a byte-order mark says so; raises UndecodableFile naming the line and byte."""
    encoding = next((enc for bom, enc in _BOMS if data.startswith(bom)), "utf-8")
    try:
        text = normalize(data.decode(encoding))
    except UnicodeDecodeError as err:
        raise _undecodable(data, encoding, err) from None
    if "\0" in text:  # valid UTF-8, but no text file has NULs: binary, or UTF-16 without a mark
        at = text.index("\0")
        line = text.count("\n", 0, at) + 1
        column = at - (text.rfind("\n", 0, at) + 1) + 1
        raise UndecodableFile(f"it is not text: it has a NUL character at line {line}, column {column}",
                              "a rules file is text, saved as UTF-8 (this may be UTF-16 without a byte-order mark)",
                              line, column, text.replace("\0", "\ufffd"))
    return text


def _undecodable(data: bytes, encoding: str, err: UnicodeDecodeError) -> UndecodableFile:
    text = normalize(data.decode(encoding, errors="replace"))
    if encoding != "utf-8":
        return UndecodableFile(f"it starts with a {encoding.upper()} byte-order mark but byte {err.start} "
                               f"is not {encoding.upper()}", "save the file again, as UTF-8", 0, 0, text)
    before = data[:err.start]
    line = before.count(b"\n") + 1
    column = len(before[before.rfind(b"\n") + 1:].decode("utf-8")) + 1
    return UndecodableFile(f"it is not UTF-8 text: byte 0x{data[err.start]:02X} at line {line}, column {column} "
                           f"(byte {err.start} of the file) cannot be read",
                           "save the file as UTF-8 (it may be Latin-1 or Windows-1252)", line, column, text)


def normalize(text: str) -> str:
    """Drop a leading byte-order mark; make CRLF and lone CR line ends '\\n', the only line end
    the parser counts (columns are unchanged: the removed characters end lines)."""
    if text.startswith(BOM):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def lines(text: str, keepends: bool = False) -> list[str]:
    """The lines of a rules text as the parser counts them: only '\\n' ends a line. A form
    feed, a vertical tab, U+001C-U+001E, U+0085, U+2028 and U+2029 do not, though
    `str.splitlines` breaks at each: line N here is line N of every diagnostic."""
    if keepends:
        return _LINE.findall(text)
    parts = text.split("\n")
    return parts[:-1] if parts[-1] == "" else parts  # a final newline ends a line, starts none


@attrs.frozen
class Lexical:
    """What a character the grammar cannot take is, and a hint."""

    message: str
    hint: str | None = None


def describe(text: str, index: int) -> Lexical:
    """Describe the character at `text[index]`, where lexing stopped."""
    ch = text[index]
    if ch in "\"'":  # a string that ends would have been read: this one does not, on its line
        return Lexical("unterminated string", f"a string ends on the line it starts on, with the {ch} it starts with")
    if ch in _CURLY_QUOTES:
        return _curly_quote(text, index)
    if ch in _ASCII_HINTS:
        message, hint = _ASCII_HINTS[ch]
        return Lexical(message, hint)
    category = unicodedata.category(ch)
    if category == "Cf" or ch == BOM:
        return Lexical(f"invisible character {_name(ch)}", "delete it: most editors do not show it")
    if category == "Cc":
        hint = "the file may not be text" + (" (or be UTF-16 without a byte-order mark)" if ch == "\0" else "")
        return Lexical(f"control character {_name(ch)}", hint)
    if ch in _LOOKALIKES:
        return Lexical(f"unexpected character {_name(ch)}",
                       f"write '{_LOOKALIKES[ch]}' (a word processor may have replaced it)")
    if category[0] in "LMN":
        return _non_ascii_in_name(text, index)
    ascii_form = unicodedata.normalize("NFKC", ch)
    if ascii_form.isascii() and ascii_form.isprintable() and ascii_form.strip():
        return Lexical(f"unexpected character {_name(ch)}", f"write '{ascii_form}'")
    return Lexical(f"unexpected character {_name(ch)}")


def _name(ch: str) -> str:
    """`'§' (U+00A7 SECTION SIGN)`; a control or invisible character by its code point only."""
    code = f"U+{ord(ch):04X}"
    name = unicodedata.name(ch, "")
    shown = f"'{ch}' " if ch.isprintable() and unicodedata.category(ch) != "Cf" else ""
    return f"{shown}({code}{' ' + name if name else ''})"


def _curly_quote(text: str, index: int) -> Lexical:
    ch = text[index]
    end = text.find("\n", index)
    line_rest = text[index + 1:end if end >= 0 else len(text)]
    close = _CURLY_QUOTES[ch]
    hint = "strings use straight quotes: \" or '"
    if close in line_rest:
        inner = line_rest[:line_rest.index(close)]
        if "\"" not in inner:
            hint = f"strings use straight quotes: write \"{inner}\" instead of {ch}{inner}{close}"
    return Lexical(f"curly quote {_name(ch)}", hint)


def _non_ascii_in_name(text: str, index: int) -> Lexical:
    start = index
    while start > 0 and _wordlike(text[start - 1]):
        start -= 1
    end = index
    while end < len(text) and _wordlike(text[end]):
        end += 1
    word = text[start:end]
    kind = "digit" if unicodedata.category(text[index]).startswith("N") else "letter"
    return Lexical(f"non-ASCII {kind} {_name(text[index])} in the name '{word}'",
                   "names use the ASCII letters A-Z and a-z, digits and '_'")


def _wordlike(ch: str) -> bool:
    return ch == "_" or unicodedata.category(ch)[0] in "LMN"
