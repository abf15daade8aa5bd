"""Tokens and comments to lines: the canonical layout.

What is decided here, whatever the text looked like:
- every declaration, and every member of a body (`{ ... }` of a block, a kind, `components`,
  a scoring, a display), starts its own line; a body's `}` ends on a line of its own, at the
  indentation of the line that opened it; an empty body is `{}`;
- a body's `{` stays on its header's line, and `else`, `elif` and `until` on the `}` before;
- two spaces per level; one space between tokens, none inside brackets, before `,` `:` `)`
  `]` `.`, after `.`, around `..`, after a unary `-`, or before the `(` of a call;
- at most one blank line in a row, none at the start or end of a body or of the file;
- comments stay where they were: on their own line (indented as the code after them), or at
  the end of a line, where the comments of neighbouring lines line up;
- the lines from a `# fmt: off` to a `# fmt: on` (each alone on its line) stay as written.

A line break inside a declaration or a statement is the writer's: it is kept, and the line goes
on at the column just after the bracket left open on an earlier line, or two spaces in from
where the bracket's line starts when nothing followed it, or else two spaces in from the line
the declaration or statement started on.
"""

from __future__ import annotations

import attrs

from .roles import CLOSERS, OPENERS, Role

INDENT = 2
_NO_SPACE_BEFORE = frozenset({",", ")", "]", ".", ":", ".."})
_NO_SPACE_AFTER = frozenset({"(", "[", ".", ".."})


@attrs.define
class Comment:
    text: str
    own_line: bool  # alone on its line in the source (else at the end of a line of code)
    line: int = 0  # where it is in the source, counted from 1

    @property
    def switch(self) -> str | None:
        """`off` or `on` for a `# fmt: off` or `# fmt: on` alone on its line (`#fmt:off` too),
        else None."""
        said = "".join(self.text[1:].split())
        return said[4:] if self.own_line and said in ("fmt:off", "fmt:on") else None


@attrs.define
class Event:
    """A token or a comment, with the line ends the source had just before it."""

    item: Role | Comment
    newlines: int


@attrs.define
class Line:
    indent: int
    code: str = ""
    comment: str | None = None
    made_by: Comment | None = None  # the comment alone on this line
    verbatim: str | None = None  # source lines written as they were (`# fmt: off` ... `# fmt: on`)


@attrs.define
class _Bracket:
    body: bool
    line_indent: int  # indentation of the line the bracket is on
    column: int | None = None  # where the first token after it on the same line starts
    awaiting: bool = True  # the next token may still set `column`


@attrs.define
class _Level:
    """One level of bodies: the indentation of its members and of the member under way."""

    base: int
    member: int


def events(text: str, tokens: list[Role]) -> list[Event]:
    """The tokens and the comments between them, in order. What lies between two tokens is
    only white space and comments (the grammar ignores nothing else)."""
    found: list[Event] = []
    position = 0
    line = 1  # where the gap starts
    for role in [*tokens, None]:
        end = role.token.start_pos if role is not None else len(text)
        gap = text[position:end]
        comments, rest = _gap_comments(gap, after_code=position > 0, line=line)
        found.extend(comments)
        if role is not None:
            found.append(Event(role, gap.count("\n", rest)))
            position = role.token.end_pos
            line = role.token.end_line
    return found


def _gap_comments(gap: str, after_code: bool, line: int) -> tuple[list[Event], int]:
    """The comments in the white space between two tokens (which starts on source line `line`),
    each with the line ends before it, and where the last of them ends."""
    found: list[Event] = []
    start = 0
    while (at := gap.find("#", start)) >= 0:
        end = gap.find("\n", at)
        end = len(gap) if end < 0 else end
        newlines = gap.count("\n", start, at)
        line += newlines
        found.append(Event(Comment(gap[at:end].rstrip(), newlines > 0 or not after_code, line), newlines))
        start = end
    return found, start


class Layout:
    """Lays out events one after the other (see the module's docstring for the rules)."""

    def __init__(self) -> None:
        self.lines: list[Line] = []
        self.current: Line | None = None
        self.brackets: list[_Bracket] = []
        self.levels: list[_Level] = [_Level(0, 0)]
        self.previous: Role | None = None
        self.break_next = False  # after a comment at the end of a line, the next token starts a line

    def run(self, stream: list[Event]) -> list[Line]:
        following: Role | None = None  # the next token after each event, found from the end
        next_tokens: list[Role | None] = []
        for event in reversed(stream):
            next_tokens.append(following)
            if isinstance(event.item, Role):
                following = event.item
        next_tokens.reverse()
        for event, after in zip(stream, next_tokens, strict=True):
            if isinstance(event.item, Comment):
                self.comment(event.item, event.newlines, after)
            else:
                self.token(event.item, event.newlines)
        self.close_line()
        return self.lines

    # --- tokens ----------------------------------------------------------------------------

    def token(self, role: Role, newlines: int) -> None:
        if self.current is None or self.starts_line(role, newlines):
            if role.member and newlines >= 2 and not self.at_body_start():
                self.blank_line()
            self.new_line(self.indent_for(role))
            if role.member:
                self.levels[-1].member = self.current.indent
        else:
            if self.space_between(self.previous, role):
                self.current.code += " "
        self.note_column()
        self.current.code += role.text
        self.previous = role
        self.track_brackets(role)

    def starts_line(self, role: Role, newlines: int) -> bool:
        if self.break_next:
            return True
        if role.join:
            return False
        if role.body_close:
            return not (self.previous is not None and self.previous.body_open)
        return role.member or newlines > 0

    def indent_for(self, role: Role) -> int:
        """The indentation of a line that starts with this token."""
        if role.member:
            return self.levels[-1].base
        if role.body_close:
            return self.levels[-1].base - INDENT
        if role.join:
            return self.levels[-1].member
        if role.text in CLOSERS and self.brackets and not self.brackets[-1].body:
            return self.brackets[-1].line_indent
        return self.continuation()

    def continuation(self) -> int:
        """The indentation of a line that goes on with the declaration or statement above."""
        if self.brackets and not self.brackets[-1].body:
            bracket = self.brackets[-1]
            return bracket.column if bracket.column is not None else bracket.line_indent + INDENT
        return self.levels[-1].member + INDENT

    def track_brackets(self, role: Role) -> None:
        text = role.text
        if role.body_open:
            self.brackets.append(_Bracket(True, self.current.indent))
            self.levels.append(_Level(self.levels[-1].member + INDENT, self.levels[-1].member + INDENT))
        elif role.body_close:
            self.brackets.pop()
            self.levels.pop()
        elif text in OPENERS:
            self.brackets.append(_Bracket(False, self.current.indent))
        elif text in CLOSERS:
            self.brackets.pop()

    def note_column(self) -> None:
        """The first token after an opening bracket, on its line, is where the lines that go
        on inside that bracket start."""
        if self.brackets and self.brackets[-1].awaiting:
            bracket = self.brackets[-1]
            bracket.awaiting = False
            if self.current.code:
                bracket.column = self.current.indent + len(self.current.code)

    @staticmethod
    def space_between(before: Role | None, after: Role) -> bool:
        if before is None:
            return False
        left, right = before.text, after.text
        if right in _NO_SPACE_BEFORE or left in _NO_SPACE_AFTER:
            return False
        if left == "{" and right == "}":
            return False
        if right == "(":
            return before.token.type != "NAME"
        if right == "[":
            return after.parent != "index"
        if before.parent == "neg" and left == "-":
            return False
        return not (after.parent == "at_least_entry" and right == "+")

    # --- comments ----------------------------------------------------------------------------

    def comment(self, comment: Comment, newlines: int, following: Role | None) -> None:
        if self.brackets and self.brackets[-1].awaiting:
            self.brackets[-1].awaiting = False
        if not comment.own_line and self.current is not None:
            self.current.comment = comment.text
            self.break_next = True
            return
        if newlines >= 2 and self.lines and not self.at_body_start():
            self.blank_line()
        self.new_line(self.comment_indent(following))
        self.current.comment = comment.text
        self.current.made_by = comment
        self.break_next = True

    def comment_indent(self, following: Role | None) -> int:
        """A comment alone on its line is indented as the code after it; before a body's `}`,
        as the body's members."""
        if following is None:
            return 0
        if following.member or following.body_close:
            return self.levels[-1].base
        return self.indent_for(following)

    # --- lines -------------------------------------------------------------------------------

    def new_line(self, indent: int) -> None:
        self.close_line()
        self.current = Line(indent)
        self.break_next = False

    def close_line(self) -> None:
        if self.current is not None:
            self.lines.append(self.current)
            self.current = None

    def blank_line(self) -> None:
        self.close_line()
        if self.lines and (self.lines[-1].code or self.lines[-1].comment is not None):
            self.lines.append(Line(0))

    def at_body_start(self) -> bool:
        """Whether nothing has been written since a body's `{` (no blank line goes there)."""
        return self.previous is not None and self.previous.body_open and self.last_line_ends_code()

    def last_line_ends_code(self) -> bool:
        line = self.current or (self.lines[-1] if self.lines else None)
        return line is not None and line.code.endswith("{")


def render(lines: list[Line]) -> str:
    """The lines as text. The comments at the ends of neighbouring lines line up, two spaces
    after the longest code among them."""
    out: list[str] = []
    run: list[Line] = []
    for line in [*lines, Line(0)]:
        if line.code and line.comment is not None:
            run.append(line)
            continue
        if run:
            column = max(other.indent + len(other.code) for other in run) + 2
            out.extend(f"{' ' * other.indent}{other.code}".ljust(column) + str(other.comment) for other in run)
            run.clear()
        if line.verbatim is not None:
            out.append(line.verbatim)
        elif line.code:
            out.append(" " * line.indent + line.code)
        elif line.comment is not None:
            out.append(" " * line.indent + line.comment)
        else:
            out.append("")
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n" if out else ""


def keep_unformatted(lines: list[Line], source: str) -> list[Line]:
    """Each region from a `# fmt: off` alone on its line to the next `# fmt: on` (or to the end
    of the file) as the source has it: for a table aligned by hand, say. The regions' tokens were
    laid out like the rest, so the code after a region goes on at the right indentation."""
    source_lines = source.split("\n")
    kept: list[Line] = []
    first: int | None = None  # the source line of the open region's `# fmt: off`
    for line in lines:
        made = line.made_by
        if first is None:
            if made is not None and made.switch == "off":
                first = made.line
            else:
                kept.append(line)
        elif made is not None and made.switch == "on":
            kept.append(_verbatim(source_lines[first - 1:made.line]))
            first = None
    if first is not None:
        rest = source_lines[first - 1:]
        while rest and not rest[-1].strip():
            rest.pop()
        kept.append(_verbatim(rest))
    return kept


def _verbatim(source_lines: list[str]) -> Line:
    return Line(0, verbatim="\n".join(text.rstrip() for text in source_lines))
