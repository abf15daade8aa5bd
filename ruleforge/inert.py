"""Text from a file, made inert for a terminal: every control character shown as an escape.

A rules file, a log, a state, a position or a record may come from a stranger, and a title or a
label holding ESC, an OSC sequence (`ESC ] 0 ; title BEL` retitles the window, `ESC ] 52`
writes the clipboard), a C1 control such as CSI (U+009B) or a bidirectional override
(U+202E) would act on the terminal instead of being read. Everything ruleforge prints passes
through `inert`, which shows such a character as a Python-style escape (`\\x1b`, `\\x9b`,
`\\u202e`), the way `repr` would. Newlines and tabs stay as they are: they are layout, and no
string of the language can hold one. The files ruleforge writes keep the exact text; this is for
display only.
"""

from __future__ import annotations

import json
from typing import Any


def _escape(code: int) -> str:
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


# C0 controls but newline and tab, DEL, C1 controls, the bidirectional controls (embeddings,
# overrides, isolates, marks) and the Unicode line and paragraph separators.
_SHOWN: frozenset[int] = frozenset(
    {*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0), 0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F),
     *range(0x2066, 0x206A), 0x2028, 0x2029} - {ord("\n"), ord("\t")})
_TABLE: dict[int, str] = {code: _escape(code) for code in _SHOWN}
_JSON_TABLE: dict[int, str] = {code: f"\\u{code:04x}" for code in _SHOWN}


def inert(text: str) -> str:
    """`text` with every control character escaped: safe to print on any terminal."""
    return text.translate(_TABLE)


def is_inert(text: str) -> bool:
    """Whether `text` prints as itself (nothing in it would be escaped)."""
    return not any(ord(ch) in _SHOWN for ch in text)


def inert_json(data: Any, **dumps: Any) -> str:
    """`json.dumps(data, ...)` safe to print: the control characters that `ensure_ascii=False`
    leaves raw (DEL, C1, bidi) written as JSON `\\u` escapes, so the text stays valid JSON that
    reads back to the same data."""
    return json.dumps(data, **dumps).translate(_JSON_TABLE)


__all__ = ["inert", "inert_json", "is_inert"]
