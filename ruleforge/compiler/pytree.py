"""Building the generated Python as trees of Python's own `ast` nodes.

The compiler never writes Python as text: every piece of code is a node made here, and every
text that comes from a rules file (a label, a log line, an enum member, a zone's name) enters
the tree as a `Constant`, so no text can ever become code. These are the constructors, the
small questions the optimisations ask of a piece of code, and the last pass that numbers the
statements for the source map (generated line -> rules position).
"""

from __future__ import annotations

import ast as py
from collections.abc import Iterable, Iterator

Code = py.expr

_BINARY = {"+": py.Add, "-": py.Sub, "*": py.Mult, "//": py.FloorDiv, "%": py.Mod, "/": py.Div}
_COMPARE = {"==": py.Eq, "!=": py.NotEq, "<": py.Lt, "<=": py.LtE, ">": py.Gt, ">=": py.GtE,
            "in": py.In, "not in": py.NotIn, "is": py.Is, "is not": py.IsNot}
POS = "_rf_pos"  # the attribute of a statement naming the rule it was made for
# the attribute of an operation that may fail on none (`a + b`, `a < b`, `xs[i]`): what it
# is and where its operands are, so that a runtime error can point at the one that was none
OPERANDS = "_rf_operands"


def operands(node: Code, what: str, *places) -> Code:
    """Mark an operation with what it is and its operands' rules positions (for errors)."""
    setattr(node, OPERANDS, (what, places))
    return node


# --- expressions -------------------------------------------------------------------------------
def name(ident: str) -> py.Name:
    return py.Name(ident, py.Load())


def const(value) -> py.Constant:
    return py.Constant(value)


def code(value: Code | str | int) -> Code:
    """A node as it is; a compiler-made identifier as a name; an int as a constant."""
    if isinstance(value, py.AST):
        return value
    if isinstance(value, str):
        assert value.isidentifier(), value  # only the compiler's own names come here
        return name(value)
    return const(value)


def sub(value: Code | str, index: Code | str | int) -> py.Subscript:
    return py.Subscript(code(value), code(index), py.Load())


def attr(value: Code | str, field: str) -> py.Attribute:
    return py.Attribute(code(value), field, py.Load())


def call(func: Code | str, *args: Code | str | int, **keywords: Code) -> py.Call:
    return py.Call(code(func), [code(a) for a in args], [py.keyword(k, v) for k, v in keywords.items()])


def binop(left: Code, op: str, right: Code) -> py.BinOp:
    return py.BinOp(code(left), _BINARY[op](), code(right))


def add(*terms: Code | int) -> Code:
    """`a + b + c`, left to right."""
    out = code(terms[0])
    for term in terms[1:]:
        out = binop(out, "+", code(term))
    return out


def compare(left: Code, op: str, right: Code) -> py.Compare:
    return py.Compare(code(left), [_COMPARE[op]()], [code(right)])


def chain(left: Code, *pairs: tuple[str, Code]) -> py.Compare:
    """`a <= b <= c`: one comparison of several operators."""
    return py.Compare(code(left), [_COMPARE[op]() for op, _ in pairs], [code(v) for _, v in pairs])


def and_(*values: Code) -> Code:
    return values[0] if len(values) == 1 else py.BoolOp(py.And(), list(values))


def or_(*values: Code) -> Code:
    return values[0] if len(values) == 1 else py.BoolOp(py.Or(), list(values))


def boolop(op: str, left: Code, right: Code) -> py.BoolOp:
    return py.BoolOp(py.And() if op == "and" else py.Or(), [left, right])


def not_(value: Code) -> py.UnaryOp:
    return py.UnaryOp(py.Not(), value)


def neg(value: Code) -> py.UnaryOp:
    return py.UnaryOp(py.USub(), value)


def ifexp(test: Code, body: Code, orelse: Code) -> py.IfExp:
    return py.IfExp(test, body, orelse)


def tuple_(items: Iterable[Code]) -> py.Tuple:
    return py.Tuple([code(i) for i in items], py.Load())


def list_(items: Iterable[Code]) -> py.List:
    return py.List([code(i) for i in items], py.Load())


def starred(value: Code) -> py.Starred:
    return py.Starred(value, py.Load())


def named(target: str, value: Code) -> py.NamedExpr:
    return py.NamedExpr(py.Name(target, py.Store()), value)


def comp(target: Code | str, source: Code, ifs: Iterable[Code] = ()) -> py.comprehension:
    return py.comprehension(store(code(target)), source, list(ifs), 0)


def listcomp(item: Code, generators: list[py.comprehension]) -> py.ListComp:
    return py.ListComp(item, generators)


def genexp(item: Code, generators: list[py.comprehension]) -> py.GeneratorExp:
    return py.GeneratorExp(item, generators)


def setcomp(item: Code, generators: list[py.comprehension]) -> py.SetComp:
    return py.SetComp(item, generators)


def lambda_(params: list[str], body: Code) -> py.Lambda:
    return py.Lambda(_arguments(params, {}), body)


def store(target: Code) -> Code:
    """The same place as an assignment's target (Python marks targets apart from reads)."""
    if isinstance(target, py.Name):
        return py.Name(target.id, py.Store())
    if isinstance(target, py.Subscript):
        return py.Subscript(target.value, target.slice, py.Store())
    if isinstance(target, py.Attribute):
        return py.Attribute(target.value, target.attr, py.Store())
    if isinstance(target, py.Tuple):
        return py.Tuple([store(t) for t in target.elts], py.Store())
    raise AssertionError(f"not a target: {py.dump(target)}")


# --- statements --------------------------------------------------------------------------------
def assign(target: Code | str, value: Code) -> py.Assign:
    return py.Assign([store(code(target))], code(value))


def augassign(target: Code | str, op: str, value: Code) -> py.AugAssign:
    return py.AugAssign(store(code(target)), _BINARY[op](), code(value))


def expr(value: Code) -> py.Expr:
    return py.Expr(value)


def if_(test: Code, body: list[py.stmt], orelse: list[py.stmt] | None = None) -> py.If:
    return py.If(test, body, orelse or [])


def for_(target: Code | str, source: Code, body: list[py.stmt], orelse: list[py.stmt] | None = None) -> py.For:
    return py.For(store(code(target)), source, body, orelse or [])


def ret(value: Code | int | None = None) -> py.Return:
    return py.Return(None if value is None else code(value))


def raise_(exc: Code) -> py.Raise:
    return py.Raise(exc, None)


def break_() -> py.Break:
    return py.Break()


def continue_() -> py.Continue:
    return py.Continue()


def pass_() -> py.Pass:
    return py.Pass()


def function(fname: str, params: list[str], body: list[py.stmt], defaults: dict | None = None) -> py.FunctionDef:
    return py.FunctionDef(name=fname, args=_arguments(params, defaults or {}), body=body, decorator_list=[],
                          returns=None)


def _arguments(params: list[str], defaults: dict) -> py.arguments:
    return py.arguments(posonlyargs=[], args=[py.arg(p) for p in params], kwonlyargs=[], kw_defaults=[],
                        defaults=[const(defaults[p]) for p in params if p in defaults])


def at(stmt: py.stmt, pos) -> py.stmt:
    """Mark a statement as made for the rule at `pos` (for runtime errors)."""
    if pos is not None:
        setattr(stmt, POS, pos)
    return stmt


# --- questions about code ----------------------------------------------------------------------
def int_value(node: Code) -> int | None:
    """The whole number a piece of code is, when it is a literal one (`3`, `-3`)."""
    if isinstance(node, py.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, py.UnaryOp) and isinstance(node.op, py.USub):
        inner = int_value(node.operand)
        return None if inner is None else -inner
    return None


def is_slot(node: Code, base: str = "L") -> bool:
    """`L[3]` (a persistent local) or, with base `args`, an argument of a label."""
    return isinstance(node, py.Subscript) and isinstance(node.value, py.Name) and node.value.id == base \
        and isinstance(node.slice, py.Constant) and type(node.slice.value) is int


def is_constant(node: Code) -> bool:
    """A literal: a number, a text, none, true or false."""
    return int_value(node) is not None or (isinstance(node, py.Constant)
                                           and (node.value is None or isinstance(node.value, (str, bool))))


def is_simple(node: Code) -> bool:
    """Code that costs nothing to repeat and reads nothing that changes while it runs: a name, a
    literal, a persistent local or a label's argument."""
    return isinstance(node, py.Name) or is_constant(node) or is_slot(node) or is_slot(node, "args")


def is_cheap(node: Code) -> bool:
    """A name, a slot, a number, or a grid position looked up from one (`ROW[c]`)."""
    if isinstance(node, py.Subscript) and isinstance(node.value, py.Name) \
            and node.value.id in ("ROW", "COL", "ZOWNER"):
        return isinstance(node.slice, py.Name) or is_slot(node.slice)
    return isinstance(node, py.Name) or is_slot(node) or int_value(node) is not None


_MISSING = object()


def nodes(node: py.AST) -> Iterator[py.AST]:
    """Every node of a tree, in no particular order (`ast.walk` without its generators)."""
    todo = [node]
    pop, push, extend = todo.pop, todo.append, todo.extend
    while todo:
        n = pop()
        if not isinstance(n, py.AST):
            continue  # a name in `global`, a missing key of a dict
        yield n
        for field in n._fields:
            value = getattr(n, field, None)
            if type(value) is list:
                extend(value)
            elif isinstance(value, py.AST):
                push(value)


def names_in(node: py.AST) -> set[str]:
    return {n.id for n in nodes(node) if type(n) is py.Name}


def draws(node: py.AST) -> bool:
    """Whether code draws at random (each copy of it would draw anew)."""
    return any(type(n) is py.Name and n.id.startswith("rand_") for n in nodes(node))


def calls(node: py.AST, fname: str) -> bool:
    return isinstance(node, py.Call) and isinstance(node.func, py.Name) and node.func.id == fname


def same(a: py.AST, b: py.AST) -> bool:
    return py.dump(a) == py.dump(b)


def depth(node: py.AST) -> int:
    """How deeply nodes nest in a piece of code."""
    best, todo = 0, [(node, 1)]
    while todo:
        x, d = todo.pop()
        best = max(best, d)
        todo.extend((c, d + 1) for c in py.iter_child_nodes(x))
    return best


def size(node: py.AST) -> int:
    return sum(1 for _ in nodes(node))


def count_statements(body: list[py.stmt]) -> int:
    """Statements in a body, those inside compound ones too (what a block costs to copy)."""
    return sum(1 for s in body for n in nodes(s) if isinstance(n, py.stmt))


# --- copying ------------------------------------------------------------------
def clone(node):
    """A copy of a tree (of a list of them): a node may stand in one place only. Nodes without
    fields or positions (`Load`, `Add`) hold nothing and are shared."""
    if type(node) is list:
        return [clone(x) for x in node]
    if not isinstance(node, py.AST):
        return node
    cls = node.__class__
    if not cls._fields and not cls._attributes:
        return node
    out = cls.__new__(cls)
    for field in cls._fields:
        value = getattr(node, field, _MISSING)
        if value is _MISSING:
            continue
        if type(value) is list:
            value = [clone(x) for x in value]
        elif isinstance(value, py.AST):
            value = clone(value)
        setattr(out, field, value)
    pos = getattr(node, POS, None)
    if pos is not None:
        setattr(out, POS, pos)
    marked = getattr(node, OPERANDS, None)
    if marked is not None:
        setattr(out, OPERANDS, marked)
    return out


def literal_code(value) -> Code:
    """Code giving a value of the rules (a number, a text, none, a flag, a list or a range)."""
    if isinstance(value, (list, tuple)):
        items = [literal_code(v) for v in value]
        return list_(items) if isinstance(value, list) else tuple_(items)
    if isinstance(value, range):
        return call("range", const(value.start), const(value.stop))
    assert value is None or isinstance(value, (bool, int, str)), value
    return const(value)


def compile_expression(node: Code, filename: str = "<ruleforge>"):
    """Python's compile() of one expression's tree (a copy: locations are filled in)."""
    tree = py.Expression(clone(node))
    py.fix_missing_locations(tree)
    return compile(tree, filename, "eval")


# --- the module --------------------------------------------------------------------------------
def number_lines(module: py.Module, operand_map: dict | None = None) -> dict[int, object]:
    """Give every statement a line of its own, in the order it is written, and every node in it
    that line; returns the line map (line -> the position of the nearest rule above it in the
    same function). A node found twice is copied: the result is a tree. An operation marked
    with `operands` gets a column of its own, and `operand_map` keeps (line, column) -> its mark:
    Python's positions of the failing instruction find it again."""
    line_map: dict[int, object] = {}
    columns = iter(range(2, 1 << 62))
    seen: set[int] = set()
    counter = iter(range(1, 1 << 62))

    def unshare(node):
        key = id(node)
        if key in seen:
            return clone(node)
        seen.add(key)
        return node

    def place_field(node: py.AST, field: str, value, line: int) -> None:
        """`line` for every node in one field of `node` (a copy put in for a node seen before)."""
        if isinstance(value, list):
            value[:] = [unshare(v) if isinstance(v, py.AST) else v for v in value]
            for v in value:
                if isinstance(v, py.AST):
                    place(v, line)
        elif isinstance(value, py.AST):
            value = unshare(value)
            setattr(node, field, value)
            place(value, line)

    def place(node: py.AST, line: int) -> None:
        for field in node._fields:
            value = getattr(node, field, None)
            if value is not None and (type(value) is list or isinstance(value, py.AST)):
                place_field(node, field, value, line)
        if node._attributes:
            node.lineno = node.end_lineno = line
            marked = getattr(node, OPERANDS, None)
            if marked is not None and operand_map is not None:
                column = next(columns)
                node.col_offset, node.end_col_offset = column, column + 1
                operand_map[(line, column)] = marked
            else:
                node.col_offset, node.end_col_offset = 0, 1

    def statements(body: list[py.stmt], last):
        body[:] = [unshare(s) for s in body]
        for stmt in body:
            if isinstance(stmt, py.FunctionDef):
                last = None  # a function starts with no rule above it
            last = getattr(stmt, POS, None) or last
            line = next(counter)
            if last is not None:
                line_map[line] = last
            stmt.lineno = stmt.end_lineno = line
            stmt.col_offset, stmt.end_col_offset = 0, 1
            for field, value in py.iter_fields(stmt):  # the header's parts on its line, bodies on theirs
                if isinstance(value, list) and value and isinstance(value[0], py.stmt):
                    last = statements(value, last)
                else:
                    place_field(stmt, field, value, line)
            if isinstance(stmt, py.FunctionDef):
                last = None
        return last

    statements(module.body, None)
    return line_map


def walk_statements(body: list[py.stmt]) -> Iterator[list[py.stmt]]:
    """Every list of statements in a body, the body itself first."""
    yield body
    for stmt in body:
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if inner:
                yield from walk_statements(inner)
