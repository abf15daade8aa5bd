"""C as a tree, and the one emitter that writes it out.

The native engine never writes C by pasting text: the lowering builds these nodes, and
`emit` is the only code that turns them into characters. What a node can hold is narrow on
purpose: names are identifiers the lowering made (checked here: ASCII, no keyword of C), and
the only constants are whole numbers. There is no node for a string literal, so no text of a
rules file can ever reach the C compiler.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import attrs

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1

_C_WORDS = frozenset(
    "auto break case char const continue default do double else enum extern float for goto if inline int "
    "long register restrict return short signed sizeof static struct switch typedef union unsigned void "
    "volatile while".split())


def ident(name: str) -> str:
    """A name the lowering made, refused if it could be anything but a plain C identifier."""
    if not (name.isascii() and name.isidentifier()) or name in _C_WORDS:
        raise ValueError(f"not a C identifier the lowering makes: {name!r}")
    return name


# --- expressions ---------------------------------------------------------------------------------
@attrs.frozen
class Int:
    """A 64-bit whole-number constant."""

    value: int = attrs.field()

    @value.validator
    def _in_range(self, _attribute, value) -> None:
        if type(value) is not int or not INT64_MIN <= value <= INT64_MAX:
            raise ValueError(f"not a 64-bit whole number: {value!r}")


@attrs.frozen
class Name:
    name: str = attrs.field(converter=ident)


@attrs.frozen
class Index:
    base: Expr
    index: Expr


@attrs.frozen
class Arrow:
    """`base->field`."""

    base: Expr
    field: str = attrs.field(converter=ident)


@attrs.frozen
class Call:
    func: str = attrs.field(converter=ident)
    args: tuple[Expr, ...] = ()


@attrs.frozen
class Unary:
    op: str = attrs.field(validator=attrs.validators.in_({"-", "!", "~", "&", "*"}))
    operand: Expr


_BINARY = {"+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "&", "|", "^", "<<", ">>"}


@attrs.frozen
class Binary:
    op: str = attrs.field(validator=attrs.validators.in_(_BINARY))
    left: Expr
    right: Expr


@attrs.frozen
class Cond:
    """`test ? then : orelse`."""

    test: Expr
    then: Expr
    orelse: Expr


@attrs.frozen
class Cast:
    ctype: str = attrs.field(validator=attrs.validators.in_({"int64_t", "int32_t", "uint64_t", "int"}))
    operand: Expr


@attrs.frozen
class StmtExpr:
    """GNU C's statement expression `({ body; value; })`: a loop inside an expression."""

    body: tuple[Stmt, ...]
    value: Expr


Expr = Int | Name | Index | Arrow | Call | Unary | Binary | Cond | Cast | StmtExpr


# --- statements ----------------------------------------------------------------------------------
_TYPES = {"int64_t", "int32_t", "uint64_t", "int"}


@attrs.frozen
class Decl:
    ctype: str = attrs.field(validator=attrs.validators.in_(_TYPES))
    name: str = attrs.field(converter=ident)
    init: Expr | None = None
    size: int | str | None = None  # an array of this many (a number, or a name defined as one)


@attrs.frozen
class Assign:
    target: Expr
    value: Expr
    op: str = attrs.field(default="=", validator=attrs.validators.in_({"=", "+=", "-="}))


@attrs.frozen
class Do:
    """An expression evaluated for its effect."""

    expr: Expr


@attrs.frozen
class If:
    test: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...] = ()


@attrs.frozen
class While:
    test: Expr
    body: tuple[Stmt, ...]


@attrs.frozen
class For:
    """`for (init; test; step) { body }`: a counted loop whose `continue` still steps."""

    init: Stmt
    test: Expr
    step: Stmt
    body: tuple[Stmt, ...]


@attrs.frozen
class Return:
    value: Expr | None = None


@attrs.frozen
class Jump:
    word: str = attrs.field(validator=attrs.validators.in_({"break", "continue"}))


@attrs.frozen
class Block:
    body: tuple[Stmt, ...]


@attrs.frozen
class Switch:
    """The resumable function's dispatch: `switch (on) { case 0: ... }` with `Case` labels
    anywhere inside the body (a coroutine, as the lowered generator resumes)."""

    on: Expr
    body: tuple[Stmt, ...]


@attrs.frozen
class Case:
    value: int


@attrs.frozen
class Goto:
    """`goto label;`: the end of an inlined generator, which its `return` jumps to."""

    label: str = attrs.field(converter=ident)


@attrs.frozen
class Label:
    label: str = attrs.field(converter=ident)


Stmt = Decl | Assign | Do | If | While | For | Return | Jump | Block | Switch | Case | Goto | Label


# --- the unit ------------------------------------------------------------------------------------
@attrs.frozen
class Define:
    name: str = attrs.field(converter=ident)
    value: int


@attrs.frozen
class Table:
    """`static const int64_t name[] = {...};` (at least one entry: C has no empty array)."""

    name: str = attrs.field(converter=ident)
    values: tuple[int, ...]
    ctype: str = attrs.field(default="int64_t", validator=attrs.validators.in_({"int64_t", "int32_t"}))


@attrs.frozen
class Function:
    name: str = attrs.field(converter=ident)
    params: tuple[tuple[str, str], ...]  # (C type, name)
    returns: str
    body: tuple[Stmt, ...]


@attrs.frozen
class Include:
    """One of the native engine's own files (never a path from anywhere else)."""

    name: str = attrs.field(validator=attrs.validators.in_({"rf_runtime.h", "rf_actions.h", "rf_module.c"}))


@attrs.frozen
class Unit:
    parts: tuple[Define | Table | Function | Include, ...]


# --- the emitter ---------------------------------------------------------------------------------
_PARAM_TYPES = {"State *", "int64_t", "int32_t", "int", "int64_t *"}
_RETURN_TYPES = {"int64_t", "int32_t", "int", "void"}


def emit(unit: Unit) -> str:
    """The C text of a unit: the only place characters of C are made."""
    return "".join(_Writer().unit(unit))


class _Writer:
    def unit(self, unit: Unit) -> Iterator[str]:
        yield "/* generated by ruleforge: do not edit */\n"
        for part in unit.parts:
            if isinstance(part, Include):
                yield f'#include "{part.name}"\n'
            elif isinstance(part, Define):
                yield f"#define {part.name} ({self.number(part.value)})\n"
            elif isinstance(part, Table):
                values = part.values or (0,)
                rows = (", ".join(self.number(v) for v in values[i:i + 16]) for i in range(0, len(values), 16))
                yield f"static const {part.ctype} {part.name}[{len(values)}] = {{\n    " + ",\n    ".join(rows) + "};\n"
            elif isinstance(part, Function):
                yield from self.function(part)
            else:  # pragma: no cover - the lowering makes no other part
                raise TypeError(part)

    def function(self, f: Function) -> Iterator[str]:
        if f.returns not in _RETURN_TYPES:
            raise ValueError(f.returns)
        params = []
        for ctype, name in f.params:
            if ctype not in _PARAM_TYPES:
                raise ValueError(ctype)
            params.append(f"{ctype}{'' if ctype.endswith('*') else ' '}{ident(name)}")
        yield f"\nstatic {f.returns} {f.name}({', '.join(params) or 'void'}) {{\n"
        for depth, line in self.lines(f.body, 1):
            yield "    " * depth + line + "\n"
        yield "}\n"

    def lines(self, stmts: Iterable[Stmt], depth: int) -> Iterator[tuple[int, str]]:
        """Each statement's lines with their depth of nesting."""
        for s in stmts:
            yield from self.stmt(s, depth)

    def stmt(self, s: Stmt, depth: int) -> Iterator[tuple[int, str]]:
        if isinstance(s, Decl | Assign | Do):
            yield depth, self.simple(s) + ";"
        elif isinstance(s, If):
            yield depth, f"if ({self.expr(s.test)}) {{"
            yield from self.lines(s.body, depth + 1)
            if s.orelse:
                yield depth, "} else {"
                yield from self.lines(s.orelse, depth + 1)
            yield depth, "}"
        elif isinstance(s, While):
            yield depth, f"while ({self.expr(s.test)}) {{"
            yield from self.lines(s.body, depth + 1)
            yield depth, "}"
        elif isinstance(s, For):
            yield depth, f"for ({self.simple(s.init)}; {self.expr(s.test)}; {self.simple(s.step)}) {{"
            yield from self.lines(s.body, depth + 1)
            yield depth, "}"
        elif isinstance(s, Return):
            yield depth, f"return{'' if s.value is None else ' ' + self.expr(s.value)};"
        elif isinstance(s, Jump):
            yield depth, f"{s.word};"
        elif isinstance(s, Block | Switch):
            yield depth, "{" if isinstance(s, Block) else f"switch ({self.expr(s.on)}) {{"
            yield from self.lines(s.body, depth + 1)
            yield depth, "}"
        elif isinstance(s, Case):
            yield depth, f"case {self.number(s.value)}:;"
        elif isinstance(s, Goto):
            yield depth, f"goto {s.label};"
        elif isinstance(s, Label):
            yield depth, f"{s.label}:;"
        else:  # pragma: no cover - the lowering makes no other statement
            raise TypeError(s)

    def simple(self, s: Stmt) -> str:
        """A declaration, assignment or expression statement, without its semicolon."""
        if isinstance(s, Decl):
            size = "" if s.size is None else f"[{ident(s.size) if isinstance(s.size, str) else self.number(s.size)}]"
            init = f" = {self.expr(s.init)}" if s.init is not None else ""
            return f"{s.ctype} {s.name}{size}{init}"
        if isinstance(s, Assign):
            return f"{self.expr(s.target)} {s.op} {self.expr(s.value)}"
        if isinstance(s, Do):
            return self.expr(s.expr)
        raise TypeError(s)  # pragma: no cover - For's parts are simple statements

    def expr(self, e: Expr) -> str:
        if isinstance(e, Int):
            return self.number(e.value)
        if isinstance(e, Name):
            return e.name
        if isinstance(e, Index):
            return f"{self.expr(e.base)}[{self.expr(e.index)}]"
        if isinstance(e, Arrow):
            return f"{self.expr(e.base)}->{e.field}"
        if isinstance(e, Call):
            return f"{e.func}({', '.join(self.expr(a) for a in e.args)})"
        if isinstance(e, Unary):
            return f"({e.op}{self.expr(e.operand)})"
        if isinstance(e, Binary):
            return f"({self.expr(e.left)} {e.op} {self.expr(e.right)})"
        if isinstance(e, Cond):
            return f"({self.expr(e.test)} ? {self.expr(e.then)} : {self.expr(e.orelse)})"
        if isinstance(e, Cast):
            return f"(({e.ctype}){self.expr(e.operand)})"
        if isinstance(e, StmtExpr):
            inner = " ".join(line for _, line in self.lines(e.body, 0))
            return f"({{ {inner} {self.expr(e.value)}; }})"
        raise TypeError(e)  # pragma: no cover

    @staticmethod
    def number(value: int) -> str:
        if type(value) is not int or not INT64_MIN <= value <= INT64_MAX:
            raise ValueError(value)
        if value == INT64_MIN:
            return "INT64_MIN"
        return f"INT64_C({value})" if not -(1 << 31) < value < (1 << 31) else str(value)
