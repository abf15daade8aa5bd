"""Text as editors save it: encodings, line ends, odd spaces, and each lexical error named."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

import ruleforge
from ruleforge.cli import main
from ruleforge.diagnostics import Diagnostic, RulesError

HEAD = 'game "t"\nplayers 2\nvar x: int = 0\n'


def load_bytes(tmp_path: Path, data: bytes) -> ruleforge.Rules:
    path = tmp_path / "t.rules"
    path.write_bytes(data)
    return ruleforge.load(path)


def only_error(tmp_path: Path, data: bytes) -> tuple[Diagnostic, RulesError]:
    with pytest.raises(RulesError) as caught:
        load_bytes(tmp_path, data)
    err = caught.value
    assert len(err.diagnostics) == 1, err.render()
    return err.diagnostics[0], err


def where(d: Diagnostic) -> tuple[int, int]:
    return d.pos.line, d.pos.column


# --- accepted as whitespace, positions unchanged ----------------------------------------


def test_byte_order_mark_is_dropped_and_columns_stay_right(tmp_path: Path) -> None:
    d, _ = only_error(tmp_path, ("\ufeff" + 'game "t" players 2 flow { log "{yy}" }').encode())
    assert d.message == "unknown name 'yy'"
    assert where(d) == (1, 33)


@pytest.mark.parametrize("end", ["\r\n", "\r"])
def test_crlf_and_lone_cr_end_lines(tmp_path: Path, end: str) -> None:
    text = (HEAD + "# a comment ends at the line end\nflow {\n  x = yy\n}\n").replace("\n", end)
    d, err = only_error(tmp_path, text.encode())
    assert (d.message, where(d)) == ("unknown name 'yy'", (6, 7))
    assert "\n      x = yy\n          ^^\n" in err.render() + "\n"


def test_tabs_form_feeds_and_unicode_spaces_are_whitespace(tmp_path: Path) -> None:
    spaces = "\t\f\u00a0\u2003\u3000\u2028\u202f\v"
    rules = load_bytes(tmp_path, (HEAD + f"flow {{{spaces}x{spaces}={spaces}1{spaces}}}\n").encode())
    assert rules.title == "t"


def test_a_form_feed_does_not_shift_the_line_shown(tmp_path: Path) -> None:
    d, err = only_error(tmp_path, (HEAD + "\f\nflow {\n x = \fyy }\n").encode())
    assert where(d) == (6, 7)
    assert "\n     x =  yy }\n          ^^\n" in err.render() + "\n"  # the form feed shown as a space


def test_the_caret_under_a_tabbed_line_keeps_the_tabs(tmp_path: Path) -> None:
    d, err = only_error(tmp_path, (HEAD + "flow {\n\t\tx = yy\n}\n").encode())
    assert where(d) == (5, 7)  # a tab is one column
    assert "\n    \t\tx = yy\n    \t\t    ^^" in err.render()


# --- lexical errors, each named -------------------------------------------------------


@pytest.mark.parametrize(("line", "col", "message", "hint"), [
    ('flow { log "Hello }', 12, "unterminated string", "a string ends on the line it starts on"),
    ("flow { log 'Hello }", 12, "unterminated string", "with the ' it starts with"),
    ("flow { log \u201cHello\u201d }", 12, "curly quote '\u201c' (U+201C LEFT DOUBLE QUOTATION MARK)",
     'write "Hello" instead of \u201cHello\u201d'),
    ("flow { log \u2018Hi }", 12, "curly quote '\u2018' (U+2018 LEFT SINGLE QUOTATION MARK)",
     "strings use straight quotes"),
    ("flow { x\u200b = 1 }", 9, "invisible character (U+200B ZERO WIDTH SPACE)", "most editors do not show it"),
    ("flow { x = 1 \ufeff}", 14, "invisible character (U+FEFF ZERO WIDTH NO-BREAK SPACE)", "delete it"),
    ("flow { x = 1 \x07}", 14, "control character (U+0007)", "may not be text"),
    ("var café: int = 0 flow { }", 8,
     "non-ASCII letter 'é' (U+00E9 LATIN SMALL LETTER E WITH ACUTE) in the name 'café'", "ASCII letters"),
    ("var école: int = 0 flow { }", 5,
     "non-ASCII letter 'é' (U+00E9 LATIN SMALL LETTER E WITH ACUTE) in the name 'école'", "ASCII letters"),
    ("flow { x = 1 § }", 14, "unexpected character '§' (U+00A7 SECTION SIGN)", None),
    ("flow { x = 1 \u2013 1 }", 14, "unexpected character '\u2013' (U+2013 EN DASH)", "write '-'"),
    ("flow { x \uff1d 1 }", 10, "unexpected character '\uff1d' (U+FF1D FULLWIDTH EQUALS SIGN)", "write '='"),
    ("flow { if !x { } }", 11, "'!' is not an operator", "write 'not'"),
    ("flow { x = 1; }", 13, "';' is not needed", "remove it"),
    ("flow { x = 4 / 2 }", 14, "'/' is not an operator", "'//'"),
    ("flow { x = 12.5 }", 12, "numbers are whole: there is no decimal point", "scale the quantity"),
    ('flow { log "a {x \u2013 1}" }', 18, "unexpected character '\u2013' (U+2013 EN DASH)", "write '-'"),
])
def test_each_lexical_error_is_named(tmp_path: Path, line: str, col: int, message: str,
                                     hint: str | None) -> None:
    d, _ = only_error(tmp_path, (HEAD + line + "\n").encode())
    assert (d.message, where(d)) == (message, (4, col))
    if hint is None:
        assert d.hint is None
    else:
        assert d.hint is not None and hint in d.hint


def test_a_decimal_is_underlined_whole(tmp_path: Path) -> None:
    d, _ = only_error(tmp_path, (HEAD + "flow { x = 12.5 }\n").encode())
    assert (d.pos.column, d.pos.end_column) == (12, 16)


# --- encodings ------------------------------------------------------------------------


def test_latin1_file_is_reported_at_the_first_bad_byte(tmp_path: Path) -> None:
    d, err = only_error(tmp_path, (HEAD + "# café\nflow { }\n").encode("latin-1"))
    assert where(d) == (4, 6)
    assert "it is not UTF-8 text: byte 0xE9 at line 4, column 6 (byte 39 of the file)" in d.message
    assert d.hint is not None and "UTF-8" in d.hint
    assert "\n    # caf\ufffd\n         ^" in err.render()


def test_a_bad_byte_after_wide_characters_is_counted_in_characters(tmp_path: Path) -> None:
    d, _ = only_error(tmp_path, HEAD.encode() + "# éé".encode() + b"\xff\n")
    assert where(d) == (4, 5)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32", "utf-8-sig"])
def test_files_with_a_byte_order_mark_are_decoded(tmp_path: Path, encoding: str) -> None:
    rules = load_bytes(tmp_path, (HEAD + "flow { x = 1 }\n").encode(encoding))
    assert rules.title == "t"


def test_utf16_without_a_mark_is_not_text(tmp_path: Path) -> None:
    d, _ = only_error(tmp_path, (HEAD + "flow { }\n").encode("utf-16-le"))
    assert d.message.endswith("it is not text: it has a NUL character at line 1, column 2")
    assert d.hint is not None and "UTF-16 without a byte-order mark" in d.hint


def test_cli_reports_lexical_errors_without_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "t.rules"
    path.write_bytes((HEAD + "flow { log \u201cHi\u201d }\n").encode())
    result = CliRunner().invoke(main, ["check", str(path)])
    assert result.exit_code == 1
    assert f"{path}:4:12: error: curly quote" in result.output
    assert "Traceback" not in result.output and "internal error" not in result.output


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_is_refused_not_waited_on(tmp_path: Path) -> None:
    path = tmp_path / "pipe.rules"
    os.mkfifo(path)
    with pytest.raises(RulesError) as caught:
        ruleforge.load(path)  # opening it for reading would wait for a writer for ever
    assert caught.value.diagnostics[0].message == f"cannot read rules file '{path}': it is a named pipe"
