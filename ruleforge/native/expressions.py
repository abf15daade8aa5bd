"""Lowering the generated Python's expressions to C expressions.

The generated Python is the compiler's tree (compiler/pytree.py) for the generator back end: a
small, regular subset of Python. Each form it makes is read here with Python's meaning kept:
every value is an int64_t (none is RF_NONE, a text an interned id, a flag 0 or 1), arithmetic
and indexing go through the runtime's checked functions, and `and`/`or` give back an operand
as Python does. A form not read here raises `NotLowered`, naming it: the game then plays on the
reference engine, never differently.
"""

from __future__ import annotations

import ast as py
from collections.abc import Callable

from ..runtime import Action
from . import ctree as c

NONE = c.Name("RF_NONE")
ST = c.Name("st")
TEXT_BASE = -(1 << 62)  # texts are ids from here up: far from any count or score a game keeps

_ARITH = {py.Add: "rf_add", py.Sub: "rf_sub", py.Mult: "rf_mul", py.FloorDiv: "rf_floordiv", py.Mod: "rf_mod"}
_ORDER = {py.Lt: "<", py.LtE: "<=", py.Gt: ">", py.GtE: ">="}
_EQUAL = {py.Eq: "==", py.NotEq: "!=", py.Is: "==", py.IsNot: "!="}


class NotLowered(Exception):
    """A form of the generated code the native engine does not run (yet): what it is, and the
    rule it was made for when known (`where`)."""

    where = None


def form(node: py.AST) -> str:
    """A piece of generated code named by its form, never by its text: a text of the rules
    would otherwise reach the terminal in a message."""
    if isinstance(node, py.Name):
        return safe_name(node.id)
    if isinstance(node, py.Call):
        return f"a call of {form(node.func)}"
    if isinstance(node, py.Attribute):
        return f"{form(node.value)}.{safe_name(node.attr)}"
    if isinstance(node, py.Subscript):
        return f"an item of {form(node.value)}"
    return f"a {type(node).__name__}"


def safe_name(name: str) -> str:
    """An identifier as plain ASCII (one from the rules may be any letters)."""
    return name.encode("ascii", "backslashreplace").decode("ascii")


def call(func: str, *args: c.Expr) -> c.Call:
    return c.Call(func, tuple(args))


def truth(e: c.Expr) -> c.Expr:
    return call("rf_truth", e)


def st_field(name: str) -> c.Arrow:
    return c.Arrow(ST, name)


class ExpressionLowering:
    """Expressions, read in the scope of the function being lowered (`self.scope`)."""

    # set by the driver (lower.py)
    ns: dict
    scope: Scope

    # --- values ------------------------------------------------------------------------------
    def value(self, v) -> int:
        """A constant of the rules as an int64_t."""
        if v is None:
            return c.INT64_MIN
        if isinstance(v, bool):
            return int(v)
        if isinstance(v, int):
            if not c.INT64_MIN < v <= c.INT64_MAX:
                raise NotLowered(f"the number {v} is beyond 64 bits")
            return v
        if isinstance(v, str):
            return self.text_id(v)
        raise NotLowered(f"a constant of type {type(v).__name__}")

    def text_id(self, text: str) -> int:
        if text == "":
            raise NotLowered("an empty text (its truth differs from every other text's)")
        if text not in self.texts:
            self.texts[text] = TEXT_BASE + len(self.texts)
        return self.texts[text]

    def const(self, v) -> c.Expr:
        n = self.value(v)
        return NONE if n == c.INT64_MIN else c.Int(n)

    # --- scalars -----------------------------------------------------------------------------
    def scalar(self, node: py.expr) -> c.Expr:
        """A Python expression whose value is one value of the rules."""
        method = getattr(self, f"s_{type(node).__name__}", None)
        if method is None:
            raise NotLowered(f"the expression form {type(node).__name__}")
        return method(node)

    def s_Constant(self, node: py.Constant) -> c.Expr:
        return self.const(node.value)

    def s_Name(self, node: py.Name) -> c.Expr:
        local = self.scope.names.get(node.id)
        if local is not None:
            return local
        if node.id in self.ns:
            value = self.ns[node.id]
            if value is None or isinstance(value, (bool, int, str)):
                return self.const(value)
            if isinstance(value, Action):  # a ready-made action without arguments
                return c.Int(self.catalogued(value))
        raise NotLowered(f"the name {safe_name(node.id)}")

    def s_NamedExpr(self, node: py.NamedExpr) -> c.Expr:
        target = self.scope.local(node.target.id)
        return c.StmtExpr((c.Assign(target, self.scalar(node.value)),), target)

    def s_UnaryOp(self, node: py.UnaryOp) -> c.Expr:
        if isinstance(node.op, py.Not):
            return c.Unary("!", self.test(node.operand))
        if isinstance(node.op, py.USub):
            if isinstance(node.operand, py.Constant) and type(node.operand.value) is int:
                return self.const(-node.operand.value)
            return call("rf_neg", ST, self.scalar(node.operand))
        if isinstance(node.op, py.UAdd):
            return call("rf_num", ST, self.scalar(node.operand))
        raise NotLowered(f"the operator {type(node.op).__name__}")

    def s_BinOp(self, node: py.BinOp) -> c.Expr:
        func = _ARITH.get(type(node.op))
        if func is None:
            raise NotLowered(f"the operator {type(node.op).__name__}")
        return call(func, ST, self.scalar(node.left), self.scalar(node.right))

    def s_BoolOp(self, node: py.BoolOp) -> c.Expr:
        """`a or b` gives back `a` when it is true, else `b` (and `and` the other way round)."""
        out = self.scalar(node.values[-1])
        for operand in reversed(node.values[:-1]):
            temp = self.scope.temp()
            keep = c.Unary("!", truth(temp)) if isinstance(node.op, py.And) else truth(temp)
            out = c.StmtExpr((c.Assign(temp, self.scalar(operand)),), c.Cond(keep, temp, out))
        return out

    def s_IfExp(self, node: py.IfExp) -> c.Expr:
        return c.Cond(self.test(node.test), self.scalar(node.body), self.scalar(node.orelse))

    def s_Compare(self, node: py.Compare) -> c.Expr:
        """A chain `a < b <= c`: each operand worked out once, left to right, stopping early."""
        operands = [node.left, *node.comparators]
        if len(operands) == 2:
            return self.compare(node.ops[0], self.scalar(operands[0]), self.scalar(operands[1]))
        # a simple operand is read where it stands; any other is worked out into a temporary
        # just before its comparison, so that a false comparison stops the chain there
        simple = [isinstance(o, (py.Name, py.Constant)) for o in operands]
        values = [self.scalar(o) if plain else self.scope.temp() for o, plain in zip(operands, simple)]
        result = self.scope.temp()
        inner: list[c.Stmt] = []
        for i in range(len(node.ops) - 1, -1, -1):
            step: list[c.Stmt] = []
            if not simple[i + 1]:
                step.append(c.Assign(values[i + 1], self.scalar(operands[i + 1])))
            test = self.compare(node.ops[i], values[i], values[i + 1])
            step.append(c.If(test, tuple(inner), (c.Assign(result, c.Int(0)),)))
            inner = step
        body: list[c.Stmt] = [c.Assign(result, c.Int(1))]
        if not simple[0]:
            body.append(c.Assign(values[0], self.scalar(operands[0])))
        return c.StmtExpr((*body, *inner), result)

    def compare(self, op: py.cmpop, left: c.Expr, right: c.Expr) -> c.Expr:
        if type(op) in _EQUAL:
            return c.Binary(_EQUAL[type(op)], left, right)
        if type(op) in _ORDER:
            return c.Binary(_ORDER[type(op)], call("rf_ord", ST, left), call("rf_ord", ST, right))
        raise NotLowered(f"the comparison {type(op).__name__}")

    def s_Subscript(self, node: py.Subscript) -> c.Expr:
        base, index = node.value, node.slice
        # `(Z[i] or NOIDX)[-1]`: the top of a zone, or the none slot
        if (isinstance(base, py.BoolOp) and isinstance(base.op, py.Or) and len(base.values) == 2
                and self.is_zone(base.values[0]) and _is_name(base.values[1], "NOIDX")
                and _is_const(index, -1)):
            return call("rf_top_or_slot", ST, self.zone(base.values[0]))
        if self.is_zone(base):
            return call("rf_item", ST, self.zone(base), self.scalar(index))
        if _is_name(base, "V"):
            return c.Index(st_field("v"), self.checked(index, self.n_vars))
        if isinstance(base, py.Attribute) and _is_name(base.value, "st") and base.attr in ("w", "f"):
            return c.Index(st_field(base.attr), call("rf_comp", ST, self.scalar(index)))
        if _is_name(base, "B"):
            return c.Index(st_field("b"), self.checked(index, self.n_breakdown))
        if isinstance(base, py.Name) and base.id in self.scope.arrays:
            array, size = self.scope.arrays[base.id]
            return c.Index(array, self.checked(index, size))
        if isinstance(base, py.Subscript) and _is_name(base.value, "P"):
            prop = self.static_int(base.slice)
            return c.Index(c.Index(st_field("p"), c.Int(prop)), self.checked(index, "NC"))
        if isinstance(base, py.Name) and isinstance(self.ns.get(base.id), (list, tuple)):
            table, size = self.table(base.id)
            return c.Index(table, self.checked(index, size))
        action = self.action_part(node)
        if action is not None:
            return action
        raise NotLowered(f"the subscript {form(node)}")

    def checked(self, index: py.expr, size: int | str) -> c.Expr:
        """An index as Python takes it (negative from the end, out of range an error);
        a constant in range needs no check."""
        if isinstance(index, py.Constant) and type(index.value) is int and isinstance(size, int):
            if 0 <= index.value < size:
                return c.Int(index.value)
        length = c.Int(size) if isinstance(size, int) else c.Name(size)
        return call("rf_at", ST, self.scalar(index), length)

    def static_int(self, node: py.expr) -> int:
        if isinstance(node, py.Constant) and type(node.value) is int:
            return node.value
        raise NotLowered(f"a computed property index {form(node)}")

    def s_Attribute(self, node: py.Attribute) -> c.Expr:
        if _is_name(node.value, "st") and node.attr in ("turn", "steps", "chooser", "over", "pc"):
            return st_field(node.attr)
        if _is_name(node.value, "LIMITS"):
            return c.Int(self.value(getattr(self.ns["LIMITS"], node.attr)))
        raise NotLowered(f"the attribute {form(node)}")

    def s_Call(self, node: py.Call) -> c.Expr:
        func = node.func
        if isinstance(func, py.Attribute) and func.attr == "pop" and self.is_zone(func.value) and not node.args:
            return call("rf_pop", ST, self.zone(func.value))
        name = func.id if isinstance(func, py.Name) else None
        if name is None:
            raise NotLowered(f"the call {form(func)}")
        handler: Callable | None = getattr(self, f"call_{name}", None)
        if handler is not None:
            return handler(node)
        if name.startswith("d_") and not node.keywords:
            return c.Call(self.want(name), (ST, *(self.scalar(a) for a in node.args[1:])))
        raise NotLowered(f"the function {safe_name(name)}")

    # --- truth -------------------------------------------------------------------------------
    def test(self, node: py.expr) -> c.Expr:
        """A Python expression as a condition (0 or 1)."""
        if isinstance(node, py.UnaryOp) and isinstance(node.op, py.Not):
            return c.Unary("!", self.test(node.operand))
        if isinstance(node, py.BoolOp):
            op = "&&" if isinstance(node.op, py.And) else "||"
            out = self.test(node.values[0])
            for operand in node.values[1:]:
                out = c.Binary(op, out, self.test(operand))
            return out
        if self.is_zone(node):
            return c.Binary("!=", c.Index(st_field("zn"), self.zone(node)), c.Int(0))
        if isinstance(node, py.Compare):
            return self.s_Compare(node)
        return truth(self.scalar(node))

    # --- zones -------------------------------------------------------------------------------
    def is_zone(self, node: py.expr) -> bool:
        """`Z[i]`, or a local that holds one (`_z = Z[i]`)."""
        if isinstance(node, py.Name):
            return node.id in self.scope.zones
        return (isinstance(node, py.Subscript) and _is_name(node.value, "Z")
                and not isinstance(node.slice, py.Slice))

    def zone(self, node: py.Subscript | py.Name) -> c.Expr:
        """The zone index of `Z[i]`, checked."""
        if isinstance(node, py.Name):
            return self.scope.names[node.id]
        index = node.slice
        if isinstance(index, py.Constant) and type(index.value) is int and 0 <= index.value < self.n_zones:
            return c.Int(index.value)
        return call("rf_zone", ST, self.scalar(index))

    # --- built-in functions of the generated code ----------------------------------------------
    def call_len(self, node: py.Call) -> c.Expr:
        [arg] = node.args
        if self.is_zone(arg):
            return c.Index(st_field("zn"), self.zone(arg))
        if isinstance(arg, py.ListComp) and len(arg.generators) == 1:
            return self.fold(arg, "count")
        raise NotLowered(f"len of {form(arg)}")

    def call_any(self, node: py.Call) -> c.Expr:
        [arg] = node.args
        if isinstance(arg, (py.GeneratorExp, py.ListComp)):
            return self.fold(arg, "any")
        raise NotLowered(f"any of {form(arg)}")

    def call_all(self, node: py.Call) -> c.Expr:
        [arg] = node.args
        if isinstance(arg, (py.GeneratorExp, py.ListComp)):
            return self.fold(arg, "all")
        raise NotLowered(f"all of {form(arg)}")

    def call_max(self, node: py.Call) -> c.Expr:
        return self.extreme(node, ">")

    def call_min(self, node: py.Call) -> c.Expr:
        return self.extreme(node, "<")

    def extreme(self, node: py.Call, better: str) -> c.Expr:
        default = None
        for kw in node.keywords:
            if kw.arg != "default":
                raise NotLowered(f"max/min with {kw.arg}=")
            default = kw.value
        if len(node.args) == 1 and isinstance(node.args[0], (py.GeneratorExp, py.ListComp)):
            return self.fold(node.args[0], "max" if better == ">" else "min", default)
        if len(node.args) >= 2 and default is None:
            values = [self.scalar(a) for a in node.args]
            out = values[0]
            body: list[c.Stmt] = []
            best = self.scope.temp()
            body.append(c.Assign(best, call("rf_ord", ST, out)))
            for v in values[1:]:
                temp = self.scope.temp()
                body.append(c.Assign(temp, call("rf_ord", ST, v)))
                body.append(c.If(c.Binary(better, temp, best), (c.Assign(best, temp),)))
            return c.StmtExpr(tuple(body), best)
        raise NotLowered("this form of max/min")

    def call_sum(self, node: py.Call) -> c.Expr:
        [arg] = node.args
        # sum(map(len, Z[a:b])): the components in a run of zones
        if (isinstance(arg, py.Call) and _is_name(arg.func, "map") and len(arg.args) == 2
                and _is_name(arg.args[0], "len") and isinstance(arg.args[1], py.Subscript)
                and _is_name(arg.args[1].value, "Z") and isinstance(arg.args[1].slice, py.Slice)):
            piece = arg.args[1].slice
            if piece.step is not None or piece.lower is None or piece.upper is None:
                raise NotLowered("a stepped slice of zones")
            lo, hi = self.static_int(piece.lower), self.static_int(piece.upper)
            if not 0 <= lo <= hi <= self.n_zones:
                raise NotLowered("a slice of zones out of range")
            i, total = self.scope.temp(), self.scope.temp()
            loop = c.For(c.Assign(i, c.Int(lo)), c.Binary("<", i, c.Int(hi)),
                         c.Assign(i, c.Int(1), "+="),
                         (c.Assign(total, c.Index(st_field("zn"), i), "+="),))
            return c.StmtExpr((c.Assign(total, c.Int(0)), loop), total)
        if isinstance(arg, (py.GeneratorExp, py.ListComp)):
            return self.fold(arg, "sum")
        raise NotLowered(f"sum of {form(arg)}")

    def call_cell_at(self, node: py.Call) -> c.Expr:
        return call("rf_cell_at", ST, *(self.scalar(a) for a in node.args))

    # --- comprehensions ------------------------------------------------------------------------
    def fold(self, comp: py.GeneratorExp | py.ListComp, how: str, default: py.expr | None = None) -> c.Expr:
        """A comprehension folded as it is gone through: a count, any, all, a sum, max or min."""
        if len(comp.generators) != 1 or comp.generators[0].is_async:
            raise NotLowered("a comprehension of several clauses")
        gen = comp.generators[0]
        result = self.scope.temp()
        found = self.scope.temp()
        with self.scope.comprehension(gen.target):
            element = comp.elt
            if how == "count":
                step: tuple[c.Stmt, ...] = (c.Assign(result, c.Int(1), "+="),)
            elif how == "any":
                step = (c.If(self.test(element), (c.Assign(result, c.Int(1)), c.Jump("break"))),)
            elif how == "all":
                step = (c.If(c.Unary("!", self.test(element)), (c.Assign(result, c.Int(0)), c.Jump("break"))),)
            elif how == "sum":
                step = (c.Assign(result, call("rf_add", ST, result, self.scalar(element))),)
            else:
                value = self.scope.temp()
                better = ">" if how == "max" else "<"
                step = (c.Assign(value, call("rf_ord", ST, self.scalar(element))),
                        c.If(c.Binary("||", c.Unary("!", found), c.Binary(better, value, result)),
                             (c.Assign(result, value), c.Assign(found, c.Int(1)))))
            for condition in reversed(gen.ifs):
                step = (c.If(self.test(condition), step),)
            loop = self.iterate(gen.target, gen.iter, step)
        start = {"count": 0, "any": 0, "all": 1, "sum": 0}.get(how, 0)
        body: list[c.Stmt] = [c.Assign(result, c.Int(start)),
                              c.Assign(found, c.Int(0)), *loop]
        if how in ("max", "min"):
            if default is None:  # Python: ValueError on an empty sequence
                body.append(c.If(c.Unary("!", found), (c.Do(call("rf_trap", ST, c.Name("RF_TRAP_EMPTY"))),)))
            else:
                body.append(c.If(c.Unary("!", found), (c.Assign(result, self.scalar(default)),)))
        return c.StmtExpr(tuple(body), result)

    def iterate(self, target: py.expr, source: py.expr, body: tuple[c.Stmt, ...],
                persistent: bool = False) -> list[c.Stmt]:
        """`for target in source: body`, for the sources the generated code goes through; a
        `persistent` loop (one a decision may stop inside) keeps its counters in slots."""
        new = self.scope.slot if persistent else self.scope.temp
        if not isinstance(target, py.Name):
            raise NotLowered("a loop over tuples")
        var = self.scope.local(target.id)
        if isinstance(source, py.Call) and _is_name(source.func, "range") and not source.keywords:
            args = [self.scalar(a) for a in source.args]
            if len(args) == 1:
                args.insert(0, c.Int(0))
            if len(args) != 2:
                raise NotLowered("a range with a step")
            i, end = new(), new()
            return [c.Assign(end, call("rf_num", ST, args[1])),
                    c.For(c.Assign(i, call("rf_num", ST, args[0])), c.Binary("<", i, end),
                          c.Assign(i, c.Int(1), "+="), (c.Assign(var, i), *body))]
        if isinstance(source, py.Call) and _is_name(source.func, "grid_items"):
            _, first, cells = source.args
            zi, k, last = new(), new(), new()
            lo = self.scalar(first)
            inner = c.For(c.Assign(k, c.Int(0)),
                          c.Binary("<", k, c.Index(st_field("zn"), zi)), c.Assign(k, c.Int(1), "+="),
                          (c.Assign(var, c.Index(c.Index(st_field("z"), zi), k)), *body))
            return [c.Assign(last, call("rf_add", ST, lo, self.scalar(cells))),
                    c.If(c.Binary(">", last, c.Name("NZ")), (c.Do(call("rf_trap", ST, c.Name("RF_TRAP_INDEX"))),)),
                    c.For(c.Assign(zi, lo), c.Binary("<", zi, last), c.Assign(zi, c.Int(1), "+="),
                          (inner,))]
        if self.is_zone(source):
            zi, k = new(), new()
            return [c.Assign(zi, self.zone(source)),
                    c.For(c.Assign(k, c.Int(0)),
                          c.Binary("<", k, c.Index(st_field("zn"), zi)), c.Assign(k, c.Int(1), "+="),
                          (c.Assign(var, c.Index(c.Index(st_field("z"), zi), k)), *body))]
        if (isinstance(source, py.Subscript) and isinstance(source.value, py.Subscript)
                and _is_name(source.value.value, "PRE")):
            offsets, items = self.pre_table(self.static_int(source.value.slice))
            self.scope.actions.add(target.id)
            me = self.scalar(source.slice)
            k, end = new(), new()
            at = call("rf_at", ST, me, c.Name("NPLAYERS"))
            return [c.Assign(k, c.Index(offsets, at)),
                    c.Assign(end, c.Index(offsets, c.Binary("+", at, c.Int(1)))),
                    c.For(c.Assign(k, k), c.Binary("<", k, end), c.Assign(k, c.Int(1), "+="),
                          (c.Assign(var, c.Index(items, k)), *body))]
        raise NotLowered(f"a loop over {form(source)}")


class Scope:
    """The names of the function being lowered: Python's locals and the C that holds them."""

    def __init__(self, lowering, names: dict[str, c.Expr]):
        self.lowering = lowering
        self.names = dict(names)
        self.arrays: dict[str, tuple[c.Expr, int | str]] = {}
        self.declared: list[str] = []  # C locals to declare at the top of the function
        self.sinks: set[str] = set()  # lists only ever appended to for the log (which C does not keep)
        self.zones: set[str] = set()  # locals holding a zone (`_z = Z[i]`): its index in C
        self.actions: set[str] = set()  # locals holding a legal action (its catalogue id)
        self.array_decls: list[tuple[str, int | str]] = []
        self.in_flow = False
        self.legal_out = False  # a lister: `out.append(action)` adds a legal action

    def temp(self) -> c.Name:
        """A C local of the function for a value that lives within one statement."""
        name = f"t{next(self.lowering.counter)}"
        self.declared.append(name)
        return c.Name(name)

    def slot(self) -> c.Expr:
        """A place for a value that may live across a decision (a loop's counter): a local,
        except in the flow, where it is kept in the state (`Flow` overrides this)."""
        return self.temp()

    def local(self, name: str) -> c.Expr:
        """The C place of a Python local, made on first use."""
        if name not in self.names:
            self.names[name] = self.place_for(name)
        return self.names[name]

    def place_for(self, name: str) -> c.Expr:
        """A numbered C local: a Python local's name may carry a name from the rules file,
        and no text of a rules file enters C."""
        return self.temp()

    def array(self, name: str, size: int | str) -> c.Expr:
        """A local array of int64_t (a scoring's items)."""
        if name not in self.arrays:
            cname = f"a{next(self.lowering.counter)}"
            self.array_decls.append((cname, size))
            self.arrays[name] = (c.Name(cname), size)
        return self.arrays[name][0]

    def comprehension(self, target: py.expr):
        return _Shadow(self, target)


class _Shadow:
    """A comprehension's variable: its own C local, the outer name restored after."""

    def __init__(self, scope: Scope, target: py.expr):
        self.scope = scope
        self.name = target.id if isinstance(target, py.Name) else None

    def __enter__(self):
        if self.name is not None:
            self.saved = self.scope.names.pop(self.name, None)
            self.scope.local(self.name)

    def __exit__(self, *exc):
        if self.name is not None:
            if self.saved is None:
                self.scope.names.pop(self.name, None)
            else:
                self.scope.names[self.name] = self.saved


def _is_name(node: py.expr, ident: str) -> bool:
    return isinstance(node, py.Name) and node.id == ident


def _is_const(node: py.expr, value) -> bool:
    return isinstance(node, py.Constant) and node.value == value and type(node.value) is type(value)
