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


def _is_atom(cls: type) -> bool:
    """A node class without fields or positions (`Load`, `Add`): its nodes hold nothing."""
    return not cls._fields and not cls._attributes


def nodes(node: py.AST) -> Iterator[py.AST]:
    """Every node of a tree, in no particular order (`ast.walk` without its generators). The
    compiler keeps nothing but fields, positions and its marks on a node, so a node's children
    are the nodes among its `__dict__`'s values, read without a getattr per field."""
    todo = [node]
    pop, push, extend = todo.pop, todo.append, todo.extend
    ast_type = py.AST
    while todo:
        n = pop()
        if not isinstance(n, ast_type):
            continue  # a name in `global`, a missing key of a dict
        yield n
        for value in n.__dict__.values():
            if type(value) is list:
                extend(value)
            elif isinstance(value, ast_type):
                push(value)


def children(node: py.AST) -> list[py.AST]:
    """The nodes directly in a node, field by field (`ast.iter_child_nodes`, as a list)."""
    out: list[py.AST] = []
    values = node.__dict__
    for field in node._fields:
        value = values.get(field)
        if type(value) is list:
            out.extend(item for item in value if isinstance(item, py.AST))
        elif isinstance(value, py.AST):
            out.append(value)
    return out


def names_in(node: py.AST) -> set[str]:
    return {n.id for n in nodes(node) if type(n) is py.Name}


def names_among(body: list[py.stmt], wanted: set[str]) -> set[str]:
    """Which of the names `wanted` a body reads or sets, walking it only until all are found."""
    found: set[str] = set()
    todo: list = list(body)
    pop, push, extend = todo.pop, todo.append, todo.extend
    ast_type, name_type = py.AST, py.Name
    while todo:
        n = pop()
        if type(n) is name_type:
            if n.id in wanted:
                found.add(n.id)
                if len(found) == len(wanted):
                    break
            continue
        if not isinstance(n, ast_type):
            continue
        for value in n.__dict__.values():
            if type(value) is list:
                extend(value)
            elif isinstance(value, ast_type):
                push(value)
    return found


def draws(node: py.AST) -> bool:
    """Whether code draws at random (each copy of it would draw anew)."""
    return any(type(n) is py.Name and n.id.startswith("rand_") for n in nodes(node))


def calls(node: py.AST, fname: str) -> bool:
    return isinstance(node, py.Call) and isinstance(node.func, py.Name) and node.func.id == fname


def same(a: py.AST, b: py.AST) -> bool:
    """Whether two pieces of code are alike: what `ast.dump` writes of them is the same (a
    value compared as its repr, so `1` is not `True`), found without writing either out."""
    if a.__class__ is not b.__class__:
        return False
    if type(a) is list:
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if not isinstance(a, py.AST):
        return repr(a) == repr(b)
    return all(same(getattr(a, field, None), getattr(b, field, None)) for field in a._fields)


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
    """Statements in a body, those inside compound ones too (what a block costs to copy).
    Statements sit only in the statement lists of statements and handlers, never inside an
    expression, so only those lists are walked."""
    count = 0
    todo = list(body)
    while todo:
        node = todo.pop()
        if isinstance(node, py.stmt):
            count += 1
        for field in _STATEMENT_LISTS:
            inner = getattr(node, field, None)
            if type(inner) is list:
                todo.extend(inner)
    return count


_STATEMENT_LISTS = ("body", "orelse", "finalbody", "handlers", "cases")


# --- copying ------------------------------------------------------------------
def clone(node):
    """A copy of a tree (of a list of them): a node may stand in one place only. Nodes without
    fields or positions (`Load`, `Add`) hold nothing and are shared. Copied field by field
    through the nodes' `__dict__`s (a field never set stays unset), with the marks of `at` and
    `operands`: no getattr or setattr per field, as the compiler copies many nodes."""
    if type(node) is list:
        return [clone(x) for x in node]
    if not isinstance(node, py.AST):
        return node
    cls = node.__class__
    if cls in _ATOMS:
        return node
    out = cls.__new__(cls)
    source, target = node.__dict__, out.__dict__
    for field in cls._fields:
        value = source.get(field, _MISSING)
        if value is _MISSING:
            continue
        if type(value) is list:
            value = [clone(x) for x in value]
        elif isinstance(value, py.AST):
            value = clone(value)
        target[field] = value
    _copy_marks(source, target)
    return out


def _copy_marks(source: dict, target: dict) -> tuple | None:
    """The compiler's marks of a node (its rule, `at`; its operands) put on its copy, both
    given as `__dict__`s; the operands mark, if any."""
    pos = source.get(POS)
    if pos is not None:
        target[POS] = pos
    marked = source.get(OPERANDS)
    if marked is not None:
        target[OPERANDS] = marked
    return marked


# the commonest nodes, whose fields never hold a node that needs copying (a name's context is shared)
_LEAVES = frozenset((py.Name, py.Constant))
# node classes without fields or positions (contexts, operators)
_ATOMS: set[type] = {cls for cls in vars(py).values()
                     if isinstance(cls, type) and issubclass(cls, py.AST) and _is_atom(cls)}


def copy_statements(body: list[py.stmt]) -> list[py.stmt]:
    """A copy of a body's statements and of the statement lists inside them, sharing their
    expressions: what fusing blocks changes (which statements stand in which list, and the
    rule each is marked with) is copied, and nothing else. The passes after fusion change a
    shared expression the same way wherever it stands; numbering the lines copies it."""
    return [_copy_statement(stmt) for stmt in body]


def _copy_statement(stmt: py.stmt) -> py.stmt:
    cls = stmt.__class__
    out = cls.__new__(cls)
    source, target = stmt.__dict__, out.__dict__
    for field in cls._fields:
        value = source.get(field, _MISSING)
        if value is _MISSING:
            continue
        if type(value) is list:  # a list of its own: numbering puts copies in it
            value = [_copy_statement(s) if isinstance(s, py.stmt) else clone(s) for s in value] \
                if field in _BODIES else list(value)
        target[field] = value
    pos = source.get(POS)
    if pos is not None:
        target[POS] = pos
    return out


_BODIES = ("body", "orelse", "finalbody")  # the statement lists of a statement, in order


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
    return _Numbering(operand_map).number(module)


class _Numbering:
    """One pass over the module: statements get lines, the nodes in them their statement's
    line. Children are visited field by field in order, so marked operations get their columns
    in the order they are written; nodes that hold nothing (`Load`, `Add`) are skipped."""

    def __init__(self, operand_map: dict | None):
        self.operand_map = operand_map
        self.line_map: dict[int, object] = {}
        self.columns = iter(range(2, 1 << 62))
        self.counter = iter(range(1, 1 << 62))
        self.seen: set[int] = set()

    def number(self, module: py.Module) -> dict[int, object]:
        self.statements(module.body, None)
        return self.line_map

    def unshared(self, items: list) -> None:
        """Each node of a list once in the tree: one found before is replaced by a copy."""
        seen = self.seen
        for i, node in enumerate(items):
            if isinstance(node, py.AST) and node.__class__ not in _ATOMS:
                key = id(node)
                if key in seen:
                    items[i] = clone(node)
                else:
                    seen.add(key)

    def place_all(self, items: list, line: int) -> None:
        """`line` for the nodes of a list, those seen before replaced by placed copies (all
        are told apart first, as a node may stand both in the list and inside one of its items)."""
        seen = self.seen
        copies = set()
        for i, node in enumerate(items):
            if isinstance(node, py.AST) and node.__class__ not in _ATOMS:
                key = id(node)
                if key in seen:
                    copies.add(i)
                else:
                    seen.add(key)
        for i, node in enumerate(items):
            if i in copies:
                items[i] = self.placed_copy(node, line)
            elif isinstance(node, py.AST) and node.__class__ not in _ATOMS:
                self.place(node, line)

    def placed_copy(self, node: py.AST, line: int) -> py.AST:
        """`clone(node)` with `line` placed in it, in one walk (what `place` does to a copy)."""
        cls = node.__class__
        if cls in _ATOMS:
            return node
        out = cls.__new__(cls)
        source, target = node.__dict__, out.__dict__
        if cls in _LEAVES:  # nothing in it to copy: its entries as they are, the line below
            target.update(source)
            self.set_position(target, line, source.get(OPERANDS))
            return out
        copy, atoms, ast_type = self.placed_copy, _ATOMS, py.AST
        for field in cls._fields:
            value = source.get(field, _MISSING)
            if value is _MISSING:
                continue
            if type(value) is list:
                target[field] = [copy(x, line) if isinstance(x, ast_type) else x for x in value]
            elif isinstance(value, ast_type) and value.__class__ not in atoms:
                target[field] = copy(value, line)
            else:
                target[field] = value
        marked = _copy_marks(source, target)
        if cls._attributes:
            self.set_position(target, line, marked)
        return out

    def set_position(self, entries: dict, line: int, marked: tuple | None) -> None:
        """A node's position, given as its `__dict__`: the line, and a column of its own when it
        is a marked operation (recorded in the operand map), else columns 0 to 1."""
        entries["lineno"] = entries["end_lineno"] = line
        if marked is not None and self.operand_map is not None:
            column = next(self.columns)
            entries["col_offset"], entries["end_col_offset"] = column, column + 1
            self.operand_map[(line, column)] = marked
        else:
            entries["col_offset"], entries["end_col_offset"] = 0, 1

    def place(self, node: py.AST, line: int) -> None:
        """`line` for a node and everything in it (a copy put in for a node seen before)."""
        cls = node.__class__
        if cls._fields:
            values = node.__dict__
            for field in cls._fields:
                value = values.get(field)
                if type(value) is list:
                    self.place_all(value, line)
                elif isinstance(value, py.AST) and value.__class__ not in _ATOMS:
                    self.place_field(values, field, value, line)
        if cls._attributes:
            self.set_position(node.__dict__, line, node.__dict__.get(OPERANDS))

    def place_field(self, values: dict, field: str, value: py.AST, line: int) -> None:
        """`line` for the node in a field (`values` is its holder's `__dict__`): placed where it
        is the first time it is met, else replaced by a placed copy."""
        key = id(value)
        if key in self.seen:
            values[field] = self.placed_copy(value, line)
        else:
            self.seen.add(key)
            self.place(value, line)

    def statements(self, body: list[py.stmt], last):
        """Number a list of statements, each after the one before; `last` is the position of
        the nearest rule above, returned as it stands after the list."""
        self.unshared(body)
        for stmt in body:
            function = isinstance(stmt, py.FunctionDef)
            if function:
                last = None  # a function starts with no rule above it
            last = getattr(stmt, POS, None) or last
            line = next(self.counter)
            if last is not None:
                self.line_map[line] = last
            stmt.lineno = stmt.end_lineno = line
            stmt.col_offset, stmt.end_col_offset = 0, 1
            values = stmt.__dict__
            for field in stmt._fields:  # the header's parts on its line, bodies on theirs
                value = values.get(field)
                if type(value) is list and value and isinstance(value[0], py.stmt):
                    last = self.statements(value, last)
                elif type(value) is list:
                    self.place_all(value, line)
                elif isinstance(value, py.AST) and value.__class__ not in _ATOMS:
                    self.place_field(values, field, value, line)
            if function:
                last = None
        return last


def statement_lists(body: list[py.stmt]) -> list[list[py.stmt]]:
    """Every list of statements in a body, the body itself first, each before the lists inside
    it (fusing blocks asks for them at every round)."""
    out: list[list[py.stmt]] = []
    todo = [body]
    while todo:
        stmts = todo.pop()
        out.append(stmts)
        inner = [found for stmt in stmts if stmt.__class__ in _COMPOUND
                 for field in _BODIES if (found := getattr(stmt, field, None))]
        todo.extend(reversed(inner))
    return out


# the statements that hold statement lists (`try*` is left out: Python 3.10 has none, and the
# compiler writes none)
_COMPOUND = frozenset((py.If, py.For, py.While, py.FunctionDef, py.With, py.Try, py.AsyncFor, py.AsyncWith,
                       py.AsyncFunctionDef, py.ClassDef))
