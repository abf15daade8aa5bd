"""Quick fixes: the checker's `did you mean 'X'?` hints, offered as an edit of the word it means.

The checker's messages quote the name they could not find (`unknown zone 'takn'`), and its
hint the closest declared one; the fix replaces that quoted word where it stands inside the
diagnostic's range (a call's range covers its arguments too, an attribute's the object before
the dot), and nothing when the word cannot be found there.
"""

from __future__ import annotations

import re

_SUGGESTION = re.compile(r"did you mean '([^'\n]+)'\?")
_QUOTED = re.compile(r"'([^'\n]+)'")


def quick_fix(message: str, hint: str | None, line: str, start: int, end: int) -> tuple[int, int, str] | None:
    """For a diagnostic on `line[start:end]` whose hint suggests a name: the columns of the
    misspelt word on the line and the word to write instead; None when there is nothing to fix."""
    suggested = _SUGGESTION.search(hint or "")
    if suggested is None:
        return None
    wanted = suggested.group(1)
    inside = line[start:end]
    for quoted in _QUOTED.findall(message):
        if quoted == wanted:
            continue
        found = re.search(rf"(?<![A-Za-z0-9_]){re.escape(quoted)}(?![A-Za-z0-9_])", inside)
        if found is not None:
            return start + found.start(), start + found.end(), wanted
    return None
