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

from .. import geometry
from ..runtime import NO_ENTRY, Action
from . import ctree as c
from .common import (
    NONE,
    ST,
    NotLowered,
    call,
    form,
    is_const,
    is_name,
    pusher,
    safe_name,
    st_field,
    truth,
)
from .scope import Scope
from .sequences import SequenceLowering, kept_copy, unshared

_ARITH = {py.Add: "rf_add", py.Sub: "rf_sub", py.Mult: "rf_mul", py.FloorDiv: "rf_floordiv", py.Mod: "rf_mod"}
_ORDER = {py.Lt: "<", py.LtE: "<=", py.Gt: ">", py.GtE: ">="}
_EQUAL = {py.Eq: "==", py.NotEq: "!=", py.Is: "==", py.IsNot: "!="}

class ExpressionLowering(SequenceLowering):
    """Expressions, read in the scope of the function being lowered (`self.scope`)."""

    # set by the driver (lower.py)
    ns: dict
    scope: Scope
    defined: dict

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
        number = self.texts.get(text)
        if number is None:  # every text was numbered, in order, before lowering began
            raise NotLowered("a text made while the game runs")
        return number

    def const(self, v) -> c.Expr:
        n = self.value(v)
        return NONE if n == c.INT64_MIN else c.Int(n)

    # --- scalars -----------------------------------------------------------------------------
    def scalar(self, node: py.expr) -> c.Expr:
        """A Python expression whose value is one value of the rules."""
        kept = self.kept_once(node)
        if kept is not None:
            return kept
        node = unshared(node)
        method = getattr(self, f"s_{type(node).__name__}", None)
        if method is None:
            raise NotLowered(f"the expression form {type(node).__name__}")
        return method(node)

    def kept_once(self, node: py.expr) -> c.Expr | None:
        """A value the compiler works out once and keeps, worked out once here too: `box[0] if
        box else shared(box, x)` (the box made in this function: `box = []`) or `m if m is not
        UNSET else (m := x)`. Else None, and the part is worked out where it is read
        (`unshared`), which gives the same value, only more slowly."""
        if not (isinstance(node, py.IfExp) and kept_copy(node)):
            return None
        test = node.test
        if isinstance(test, py.Name) and test.id in self.scope.kept:
            done, value = self.scope.kept[test.id]
            part = node.orelse.args[1]  # type: ignore[attr-defined]
            work = (c.Assign(value, self.scalar(part)), c.Assign(done, c.Int(1)))
            return c.StmtExpr((c.If(c.Unary("!", done), work),), value)
        if isinstance(test, py.Compare) and isinstance(test.left, py.Name) and test.left.id in self.scope.names \
                and isinstance(node.orelse, py.NamedExpr):
            held = self.scope.names[test.left.id]
            return c.StmtExpr((c.If(c.Binary("==", held, c.Name("RF_UNSET")),
                                    (c.Assign(held, self.scalar(node.orelse.value)),)),), held)
        return None

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
            if node.id == "UNSET":  # a lifted part not worked out yet: a value no rule can make
                return c.Name("RF_UNSET")
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
        left, right = self.scalar(node.left), self.scalar(node.right)
        folded = _folded(type(node.op), left, right)
        if folded is not None:
            return folded
        return call(func, ST, left, right)

    def s_BoolOp(self, node: py.BoolOp) -> c.Expr:
        """`a or b` gives back `a` when it is true, else `b` (and `and` the other way round);
        between flags (comparisons, `not`, any...) that is C's `&&` and `||`."""
        if all(_is_flag(v) for v in node.values):
            return self.test(node)
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
        if len(operands) == 2 and isinstance(node.ops[0], (py.In, py.NotIn)):
            found = self.member(self.scalar(operands[0]), operands[1])
            return c.Unary("!", found) if isinstance(node.ops[0], py.NotIn) else found
        if any(isinstance(op, (py.In, py.NotIn)) for op in node.ops):
            raise NotLowered("a chain of comparisons with 'in'")
        if len(operands) == 2 or all(isinstance(o, (py.Name, py.Constant)) for o in operands):
            values = [self.scalar(o) for o in operands]  # plain names: read in any order, as often as need be
            out = self.compare(node.ops[0], values[0], values[1])
            for op, left, right in zip(node.ops[1:], values[1:], values[2:]):
                out = c.Binary("&&", out, self.compare(op, left, right))
            return out
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

    def member(self, value: c.Expr, source: py.expr) -> c.Expr:
        """`value in seq`: Python's `==` against each item, stopping at the first."""
        if isinstance(source, (py.List, py.Tuple)) and all(isinstance(e, py.Constant) for e in source.elts):
            held = self.scope.temp()
            test: c.Expr = c.Int(0)
            for e in reversed(source.elts):
                test = c.Binary("||", c.Binary("==", held, self.const(e.value)), test)
            return c.StmtExpr((c.Assign(held, value),), test)
        held, found = self.scope.temp(), self.scope.temp()
        def step(item: c.Expr) -> tuple[c.Stmt, ...]:
            return (c.If(c.Binary("==", item, held), (c.Assign(found, c.Int(1)), c.Jump("break"))),)

        return c.StmtExpr((c.Assign(held, value), c.Assign(found, c.Int(0)), *self.each(source, step, False)), found)

    def compare(self, op: py.cmpop, left: c.Expr, right: c.Expr) -> c.Expr:
        if type(op) in _EQUAL:
            return c.Binary(_EQUAL[type(op)], left, right)
        if type(op) in _ORDER:
            return c.Binary(_ORDER[type(op)], self.ordered(left), self.ordered(right))
        raise NotLowered(f"the comparison {type(op).__name__}")

    @staticmethod
    def ordered(value: c.Expr) -> c.Expr:
        """A value compared by order: none is Python's TypeError (a constant needs no check)."""
        if isinstance(value, c.Int) and value.value != c.INT64_MIN:
            return value
        return call("rf_ord", ST, value)

    def s_Subscript(self, node: py.Subscript) -> c.Expr:
        base, index = node.value, node.slice
        # `(Z[i] or NOIDX)[-1]`: the top of a zone, or the none slot
        if (isinstance(base, py.BoolOp) and isinstance(base.op, py.Or) and len(base.values) == 2
                and self.is_zone(base.values[0]) and is_name(base.values[1], "NOIDX")
                and (is_const(index, -1) or is_const(index, 0))):
            end = "rf_top_or_slot" if is_const(index, -1) else "rf_bottom_or_slot"
            return call(end, ST, self.zone(base.values[0]))
        # `(seq or NOTHING)[-1]`: the last item, none of nothing (NOIDX: the slot tables read for none)
        if (isinstance(base, py.BoolOp) and isinstance(base.op, py.Or) and len(base.values) == 2
                and (is_name(base.values[1], "NOTHING") or is_name(base.values[1], "NOIDX"))
                and (is_const(index, -1) or is_const(index, 0))):
            empty = NONE if is_name(base.values[1], "NOTHING") else c.Name("NONE_SLOT")
            return self.end_of(base.values[0], last=is_const(index, -1), empty=empty)
        if self.is_zone(base):
            return call("rf_item", ST, self.zone(base), self.scalar(index))
        if isinstance(base, py.Attribute) and is_name(base.value, "st") and base.attr == "opt":
            return c.Index(self.options_table(), self.checked(index, max(1, len(self.program.option_values))))
        held = self.state_item(base, index)
        if held is not None:
            return held
        if (isinstance(base, py.Name) and isinstance(self.ns.get(base.id), dict) and base.id not in self.scope.names
                and not base.id.startswith("ACT_")):
            table, low, span = self.dict_table(base.id)
            return call("rf_dict_get", ST, table, self.scalar(index), c.Int(low), c.Int(span))
        if isinstance(base, py.Name) and isinstance(self.ns.get(base.id), (list, tuple)):
            table, size = self.table(base.id)
            return c.Index(table, self.checked(index, size))
        action = self.action_part(node)
        if action is not None:
            return action
        ready = self.ready_action(node)
        if ready is not None:
            return ready
        raise NotLowered(f"the subscript {form(node)}")

    def ready_action(self, node: py.Subscript) -> c.Expr | None:
        """`ACT_<aid>[x][y]...`: the program's ready-made action for these arguments, as its id
        in the catalogue (a dense table over the arguments' values; one not listed, an error).
        Fewer keys than the action has parameters make a row, whose place in the table a local
        holds (`row = ACT_1[c]`, then `row[o][r]`)."""
        found = self.action_lookup(node)
        if found is None:
            return None
        table, index, depth = found
        aid = int(table[4:])
        if depth != self.n_params(aid):
            raise NotLowered("a row of ready-made actions used as a value")
        if aid in self.program.compiler.lazy_tables:  # an action of a block numbered by its arguments
            return c.Binary("+", c.Int(self.lazy_block(aid)[0]), index)
        return call("rf_listed", ST, c.Index(c.Name(f"ACTT{self.act_table_ids[table]}"), index))

    def action_lookup(self, node: py.expr) -> tuple[str, c.Expr, int] | None:
        """(`ACT_<aid>`, the place in its table so far, the number of arguments given) of a
        chain of subscripts on a ready-made action table or on a local row of one."""
        keys: list[py.expr] = []
        base: py.expr = _made_row(node)
        while isinstance(base, py.Subscript):
            keys.append(base.slice)
            base = _made_row(base.value)
        keys.reverse()
        if isinstance(base, py.Name) and base.id in self.scope.rows:
            table, start, given = self.scope.rows[base.id]
        elif isinstance(base, py.Name) and base.id.startswith("ACT_") and base.id[4:].isdigit():
            table, start, given = base.id, c.Int(0), 0
        else:
            return None
        depth = self.n_params(int(table[4:]))
        if given + len(keys) > depth:
            raise NotLowered("a ready-made action table indexed too deeply")
        aid = int(table[4:])
        if aid in self.program.compiler.lazy_tables:
            lows, spans, nones = self.lazy_block(aid)[1:4]
        else:
            _, lows, spans, nones = self.action_table(table, depth)
        index = start
        for level, key in enumerate(keys, given):
            index = call("rf_add", ST, call("rf_mul", ST, index, c.Int(spans[level])),
                         call("rf_key", ST, self.scalar(key), c.Int(lows[level]), c.Int(spans[level]),
                              c.Int(int(nones[level]))))
        return table, index, given + len(keys)

    def state_item(self, base: py.expr, index: py.expr) -> c.Expr | None:
        """`base[index]` where it is a place of the state or of the function (read or written
        alike): where a component is or came from, a variable, a score item, a trigger's count,
        a local array, a property; None for any other subscript."""
        if (isinstance(base, py.Attribute) and is_name(base.value, "st") and base.attr in ("w", "f")
                or is_name(base, "W") or is_name(base, "F")):
            field = base.attr if isinstance(base, py.Attribute) else base.id.lower()
            return c.Index(st_field(field), call("rf_comp", ST, self.scalar(index)))
        if is_name(base, "V"):
            listed = self.list_vars()
            if not listed:
                return c.Index(st_field("v"), self.checked(index, self.n_vars))
            if isinstance(index, py.Constant) and index.value in listed:
                raise NotLowered("a variable that holds a list read as one value")
            return c.Index(st_field("v"), call("rf_vscalar", ST, self.scalar(index), self.vlist_table()))
        if is_name(base, "B"):
            return c.Index(st_field("b"), self.checked(index, self.n_breakdown))
        if is_name(base, "FIRED"):  # a trigger's firings, counted for the statistics
            return c.Index(st_field("fired"), self.checked(index, max(1, len(self.ns["FIRED"]))))
        if isinstance(base, py.Name) and base.id in self.scope.arrays:
            array, size = self.scope.arrays[base.id]
            return c.Index(array, self.checked(index, size))
        if isinstance(base, py.Subscript) and is_name(base.value, "P"):
            prop = self.static_int(base.slice)
            return c.Index(c.Index(st_field("p"), c.Int(prop)), self.checked(index, "NC"))
        return None

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
        if is_name(node.value, "st") and node.attr in ("turn", "steps", "chooser", "over", "pc"):
            return st_field(node.attr)
        if is_name(node.value, "LIMITS"):
            return c.Int(self.value(getattr(self.ns["LIMITS"], node.attr)))
        raise NotLowered(f"the attribute {form(node)}")

    def s_Call(self, node: py.Call) -> c.Expr:
        func = node.func
        if (isinstance(func, py.Attribute) and func.attr == "get" and isinstance(func.value, py.Attribute)
                and is_name(func.value.value, "st") and func.value.attr == "used"):
            return self.uses(node)
        if isinstance(func, py.Attribute) and func.attr == "pop" and self.is_zone(func.value) and not node.args:
            return call("rf_pop", ST, self.zone(func.value))
        name = func.id if isinstance(func, py.Name) else None
        if name is None:
            raise NotLowered(f"the call {form(func)}")
        handler: Callable | None = getattr(self, f"call_{name}", None)
        if handler is not None:
            return handler(node)
        if name.startswith("d_") and not node.keywords:
            return c.Call(self.want(name), (ST, *self.call_args(name, node)))
        raise NotLowered(f"the function {safe_name(name)}")

    def call_args(self, name: str, node: py.Call) -> list[c.Expr]:
        """The arguments after `st` of a call of a generated function, its defaults filling in
        those left out (`keep=False` of a scoring)."""
        f = self.defined.get(name)
        if f is None or node.keywords:
            raise NotLowered(f"this call of {safe_name(name)}")
        params, defaults = f.args.args[1:], f.args.defaults
        given = node.args[1:]
        if len(given) > len(params) or len(given) < len(params) - len(defaults):
            raise NotLowered(f"this call of {safe_name(name)}")
        args = [self.scalar(a) for a in given]
        args += [self.scalar(d) for d in defaults[len(defaults) - (len(params) - len(given)):]]
        return args

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
        if isinstance(node, py.Compare) or _is_flag(node):
            return self.scalar(node)
        return truth(self.scalar(node))

    # --- zones -------------------------------------------------------------------------------
    def is_zone(self, node: py.expr) -> bool:
        """`Z[i]`, or a local that holds one (`_z = Z[i]`)."""
        if isinstance(node, py.Name):
            return node.id in self.scope.zones
        return (isinstance(node, py.Subscript) and is_name(node.value, "Z")
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
        if isinstance(arg, py.Name) and arg.id in self.scope.lists:
            return self.scope.lists[arg.id][1]
        if isinstance(arg, py.Subscript) and is_name(arg.value, "V") and self.list_vars():
            i = self.scope.temp()
            return c.StmtExpr((c.Assign(i, call("rf_at", ST, self.scalar(arg.slice), c.Name("NV"))),
                               c.Do(call("rf_vlist_slot", ST, i, self.vlist_table()))),
                              call("rf_listlen", ST, c.Index(st_field("v"), i)))
        if isinstance(arg, py.SetComp):  # how many distinct values
            array, length = self.scope.buffer()
            fill = self.fill(py.ListComp(arg.elt, arg.generators), array, length)
            return c.StmtExpr(tuple(fill), call("rf_distinct", array, length))
        if isinstance(arg, py.ListComp):
            return self.fold(arg, "count")
        if self.is_list(arg) or self.is_list_def(arg):
            array, length = self.scope.buffer()
            fill = self.inlined_list(arg, array, length) if self.is_list_def(arg) else self.fill(arg, array, length)
            return c.StmtExpr(tuple(fill), length)
        raise NotLowered(f"len of {form(arg)}")

    def call_any(self, node: py.Call) -> c.Expr:
        [arg] = node.args
        if isinstance(arg, (py.GeneratorExp, py.ListComp)):
            return self.fold(arg, "any")
        if (isinstance(arg, py.Call) and is_name(arg.func, "map") and len(arg.args) == 2
                and isinstance(arg.args[0], py.Attribute) and arg.args[0].attr == "__getitem__"
                and is_name(arg.args[0].value, "Z")):  # any(map(Z.__getitem__, cells)): a cell not empty
            found = self.scope.temp()

            def step(cell: c.Expr) -> tuple[c.Stmt, ...]:
                occupied = c.Binary("!=", c.Index(st_field("zn"), call("rf_zone", ST, cell)), c.Int(0))
                return (c.If(occupied, (c.Assign(found, c.Int(1)), c.Jump("break"))),)

            return c.StmtExpr((c.Assign(found, c.Int(0)), *self.each(arg.args[1], step, False)), found)
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
        keywords = {kw.arg: kw.value for kw in node.keywords}
        if set(keywords) - {"default", "key"}:
            raise NotLowered("max/min with other keywords")
        default, key = keywords.get("default"), keywords.get("key")
        if key is not None:
            return self.best_by_key(node, better, key, default)
        if len(node.args) == 1 and isinstance(node.args[0], (py.GeneratorExp, py.ListComp)):
            return self.fold(node.args[0], "max" if better == ">" else "min", default)
        if len(node.args) == 1 and default is not None:
            return self.best_by_key(node, better, None, default)
        if len(node.args) >= 2 and default is None:
            best = self.scope.temp()
            body: list[c.Stmt] = [c.Assign(best, call("rf_ord", ST, self.scalar(node.args[0])))]
            for arg in node.args[1:]:
                temp = self.scope.temp()
                body.append(c.Assign(temp, call("rf_ord", ST, self.scalar(arg))))
                body.append(c.If(c.Binary(better, temp, best), (c.Assign(best, temp),)))
            return c.StmtExpr(tuple(body), best)
        raise NotLowered("this form of max/min")

    def best_by_key(self, node: py.Call, better: str, key: py.expr | None, default: py.expr | None) -> c.Expr:
        """`max(seq, key=lambda x: k(x), default=d)`: the first item whose key is greatest."""
        if len(node.args) != 1:
            raise NotLowered("max/min of several sequences")
        if key is not None and not (isinstance(key, py.Lambda) and len(key.args.args) == 1
                                    and not key.args.defaults):
            raise NotLowered("a key that is not a one-argument lambda")
        item, best, found, value = (self.scope.temp() for _ in range(4))

        def step(x: c.Expr) -> tuple[c.Stmt, ...]:
            if key is None:
                score: c.Expr = call("rf_ord", ST, x)
                return (c.Assign(value, score),
                        c.If(c.Binary("||", c.Unary("!", found), c.Binary(better, value, best)),
                             (c.Assign(best, value), c.Assign(item, x), c.Assign(found, c.Int(1)))))
            name = key.args.args[0].arg
            with self.scope.comprehension(py.Name(name)):
                bound = self.scope.names[name]
                score = call("rf_ord", ST, self.scalar(key.body))
            return (c.Assign(bound, x), c.Assign(value, score),
                    c.If(c.Binary("||", c.Unary("!", found), c.Binary(better, value, best)),
                         (c.Assign(best, value), c.Assign(item, x), c.Assign(found, c.Int(1)))))

        body: list[c.Stmt] = [c.Assign(found, c.Int(0)), c.Assign(best, c.Int(0)), c.Assign(item, NONE),
                              *self.each(node.args[0], step, False)]
        if default is None:
            body.append(c.If(c.Unary("!", found), (c.Do(call("rf_trap", ST, c.Name("RF_TRAP_EMPTY"))),)))
        else:
            body.append(c.If(c.Unary("!", found), (c.Assign(item, self.scalar(default)),)))
        return c.StmtExpr(tuple(body), item)

    def call_sum(self, node: py.Call) -> c.Expr:
        [arg] = node.args
        # sum(map(len, Z[a:b])): the components in a run of zones
        if (isinstance(arg, py.Call) and is_name(arg.func, "map") and len(arg.args) == 2
                and is_name(arg.args[0], "len") and isinstance(arg.args[1], py.Subscript)
                and is_name(arg.args[1].value, "Z") and isinstance(arg.args[1].slice, py.Slice)):
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

    def call_rand_choice(self, node: py.Call) -> c.Expr:
        """`random(seq)`: one of the sequence's items, drawn with the game's generator
        (docs/random.md); from nothing, an error."""
        _, source = node.args
        array, length = self.scope.buffer()
        push = pusher(array, length)
        fill = [c.Assign(length, c.Int(0)), *self.each(source, push, False)]
        pick = c.Index(array, call("rf_draw_index", ST, length))
        return c.StmtExpr(tuple(fill), pick)

    def call__first(self, node: py.Call) -> c.Expr:
        [arg] = node.args
        return self.end_of(arg, last=False)

    def call__last(self, node: py.Call) -> c.Expr:
        [arg] = node.args
        return self.end_of(arg, last=True)

    def end_of(self, source: py.expr, last: bool, empty: c.Expr = NONE) -> c.Expr:
        """The first or last item of a sequence, `empty` (none) when it has none."""
        if self.is_zone(source):
            zi = self.scope.temp()
            n = c.Index(st_field("zn"), zi)
            at = c.Binary("-", n, c.Int(1)) if last else c.Int(0)
            item = c.Cond(c.Binary(">", n, c.Int(0)), c.Index(c.Index(st_field("z"), zi), at), empty)
            return c.StmtExpr((c.Assign(zi, self.zone(source)),), item)
        result = self.scope.temp()
        found = self.scope.temp()

        def step(value: c.Expr) -> tuple[c.Stmt, ...]:
            if last:
                return (c.Assign(result, value),)
            return (c.If(c.Unary("!", found), (c.Assign(result, value), c.Assign(found, c.Int(1)))),)

        body: list[c.Stmt] = [c.Assign(result, empty), c.Assign(found, c.Int(0))]
        if isinstance(source, py.ListComp):
            body += self.over(source, lambda element: step(self.scalar(element)))
        else:
            body += self.each(source, step, False)
        return c.StmtExpr(tuple(body), result)

    def call_next(self, node: py.Call) -> c.Expr:
        """`next(x for x in ... if ..., default)`: the first item that qualifies."""
        if node.keywords or not node.args or not isinstance(node.args[0], py.GeneratorExp) or len(node.args) > 2:
            raise NotLowered("this form of next")
        return self.fold(node.args[0], "first", node.args[1] if len(node.args) == 2 else None)

    def call_neighbour_of(self, node: py.Call) -> c.Expr:
        """`neighbour(x, side)`: the cell beyond that side, none at an edge, off a grid or for
        no side; a side that is no side's name, Python's KeyError."""
        near, zone, side = node.args
        if not is_name(near, "NEAR"):
            raise NotLowered("a neighbour table of another name")
        table = self.neighbour_table()
        z, sd, k = self.scope.temp(), self.scope.temp(), self.scope.temp()
        sides = list(geometry.SIDE_INDEX)
        which: c.Expr = call("rf_trap_value", ST, c.Name("RF_TRAP_INDEX"))
        for i in reversed(range(len(sides))):
            which = c.Cond(c.Binary("==", sd, c.Int(self.text_id(sides[i]))), c.Int(i), which)
        stride = len(sides) + 1  # each zone's row: its neighbours by side, then whether it is a cell
        found = c.Index(table, c.Binary("+", c.Binary("*", k, c.Int(stride)), which))
        has_near = c.Binary("!=", c.Index(table, c.Binary("+", c.Binary("*", k, c.Int(stride)),
                                                              c.Int(len(sides)))), c.Int(0))
        body = (c.Assign(z, self.scalar(zone)), c.Assign(sd, self.scalar(side)), c.Assign(k, c.Int(0)))
        value = c.Cond(c.Binary("==", z, NONE), NONE,
                       c.StmtExpr((c.Assign(k, call("rf_zone", ST, z)),),
                                  c.Cond(c.Binary("||", c.Unary("!", has_near), c.Binary("==", sd, NONE)), NONE,
                                         found)))
        return c.StmtExpr(body, value)

    def lookup(self, table: py.Name, index: c.Expr) -> c.Expr:
        """`T[i]` of a constant list of the namespace, i already lowered."""
        if not isinstance(self.ns.get(table.id), (list, tuple)) or table.id in self.scope.names:
            raise NotLowered(f"a lookup in {form(table)}")
        cname, size = self.table(table.id)
        return c.Index(cname, call("rf_at", ST, index, c.Int(size)))

    def extent_of(self, node: py.expr) -> tuple[list[c.Stmt], c.Expr, c.Expr]:
        """`extent(Z, first, size, POS)` (or a local holding one): the lowest and highest
        position of the occupied cells, as (statements, low, high); low is none for no cell."""
        if isinstance(node, py.Name) and node.id in self.scope.extents:
            low, high = self.scope.extents[node.id]
            return [], low, high
        if not (isinstance(node, py.Call) and is_name(node.func, "extent") and len(node.args) == 4
                and is_name(node.args[0], "Z") and isinstance(node.args[3], py.Name)):
            raise NotLowered("this form of a grid's extent")
        _, first, size, position = node.args
        table, length = self.table(position.id)
        low, high = self.scope.temp(), self.scope.temp()
        work = c.Do(call("rf_extent", ST, self.scalar(first), self.scalar(size), table, c.Int(length),
                         c.Unary("&", low), c.Unary("&", high)))
        return [work], low, high

    def call_span_with(self, node: py.Call) -> c.Expr:
        box, extra, first, size, position = node.args
        if not isinstance(position, py.Name):
            raise NotLowered("this form of a grid's span")
        work, low, high = self.extent_of(box)
        table, length = self.table(position.id)
        span = call("rf_span_with", ST, low, high, self.scalar(extra), self.scalar(first), self.scalar(size),
                    table, c.Int(length))
        return c.StmtExpr(tuple(work), span) if work else span

    def call_table_lookup(self, node: py.Call) -> c.Expr:
        """A step table of constants: exact keys first, then `k+` keys from the highest down,
        then the default (none given: Python's error, a trap)."""
        table, key = node.args
        if not (isinstance(table, py.Subscript) and is_name(table.value, "TBL")):
            raise NotLowered("a step table of another form")
        exact, at_least, default = self.ns["TBL"][self.static_int(table.slice)]
        x = self.scope.temp()
        out: c.Expr = (call("rf_trap_value", ST, c.Name("RF_TRAP_INDEX")) if default is NO_ENTRY
                       else self.const(default))
        for low, value in reversed(at_least):
            out = c.Cond(c.Binary(">=", call("rf_ord", ST, x), self.const(low)), self.const(value), out)
        for k, value in reversed(list(exact.items())):
            out = c.Cond(c.Binary("==", x, self.const(k)), self.const(value), out)
        return c.StmtExpr((c.Assign(x, self.scalar(key)),), out)

    def uses(self, node: py.Call) -> c.Expr:
        """`st.used.get((aid, st.turn), 0)` (uses this turn) or `st.used.get((aid, -1 - me), 0)`
        (a player's uses this game): what engine.record_action counted against a limit."""
        key = node.args[0] if node.args else None
        if not (isinstance(key, py.Tuple) and len(key.elts) == 2 and isinstance(key.elts[0], py.Constant)
                and len(node.args) == 2 and is_const(node.args[1], 0)):
            raise NotLowered("a count of uses of another form")
        aid, scope = c.Int(self.static_int(key.elts[0])), key.elts[1]
        if not 0 <= aid.value < len(self.program.actions):
            raise NotLowered("a count of uses of no action")
        if isinstance(scope, py.Attribute) and is_name(scope.value, "st") and scope.attr == "turn":
            stamped = c.Binary("==", c.Index(st_field("used_stamp"), aid), st_field("turn"))
            return c.Cond(stamped, c.Index(st_field("used_turn"), aid), c.Int(0))
        if (isinstance(scope, py.BinOp) and isinstance(scope.op, py.Sub) and is_const(scope.left, -1)):
            player = call("rf_at", ST, self.scalar(scope.right), c.Name("NPLAYERS"))
            return c.Index(c.Index(st_field("used_game"), aid), player)
        raise NotLowered("a count of uses of another scope")

    def call_index_in_zone(self, node: py.Call) -> c.Expr:
        """`index_in_zone(st, x)`: x's place in its zone, bottom first."""
        x = self.scope.temp()
        return c.StmtExpr((c.Assign(x, self.scalar(node.args[1])),),
                          c.Cast("int64_t", call("rf_index_in", ST, c.Index(st_field("w"), call("rf_comp", ST, x)), x)))

    def call_cell_at(self, node: py.Call) -> c.Expr:
        return call("rf_cell_at", ST, *(self.scalar(a) for a in node.args))

    # --- comprehensions ------------------------------------------------------------------------
    def fold(self, comp: py.GeneratorExp | py.ListComp, how: str, default: py.expr | None = None) -> c.Expr:
        """A comprehension folded as it is gone through: a count, any, all, a sum, max or min."""
        result, found, value = self.scope.temp(), self.scope.temp(), self.scope.temp()
        better = ">" if how == "max" else "<"

        def step(element: py.expr) -> tuple[c.Stmt, ...]:
            if how == "count":
                return (c.Assign(result, c.Int(1), "+="),)
            if how == "any":
                return (c.If(self.test(element), (c.Assign(result, c.Int(1)), c.Jump("break"))),)
            if how == "all":
                return (c.If(c.Unary("!", self.test(element)), (c.Assign(result, c.Int(0)), c.Jump("break"))),)
            if how == "first":
                return (c.If(c.Unary("!", found), (c.Assign(result, self.scalar(element)), c.Assign(found, c.Int(1)),
                                                    c.Jump("break"))),)
            if how == "sum":
                return (c.Assign(result, call("rf_add", ST, result, self.scalar(element))),)
            return (c.Assign(value, call("rf_ord", ST, self.scalar(element))),
                    c.If(c.Binary("||", c.Unary("!", found), c.Binary(better, value, result)),
                         (c.Assign(result, value), c.Assign(found, c.Int(1)))))

        loop = self.over(comp, step)
        start = {"count": 0, "any": 0, "all": 1, "sum": 0}.get(how, 0)
        body: list[c.Stmt] = [c.Assign(result, c.Int(start)),
                              c.Assign(found, c.Int(0)), *loop]
        if how in ("max", "min", "first"):
            if default is None:  # Python: ValueError on an empty sequence
                body.append(c.If(c.Unary("!", found), (c.Do(call("rf_trap", ST, c.Name("RF_TRAP_EMPTY"))),)))
            else:
                body.append(c.If(c.Unary("!", found), (c.Assign(result, self.scalar(default)),)))
        return c.StmtExpr(tuple(body), result)


def _made_row(node: py.expr) -> py.expr:
    """`(row or (row := ACT_ROW_3(x)))` and `(row[t] or ACT_ROW_3(x, t))`: a row of an action
    with too many argument values to make at once, made in Python when first listed; in C the
    row is its place among the arguments, so only the first operand counts."""
    if (isinstance(node, py.BoolOp) and isinstance(node.op, py.Or) and len(node.values) == 2
            and any(isinstance(n, py.Call) and isinstance(n.func, py.Name) and n.func.id.startswith("ACT_ROW_")
                    for n in py.walk(node.values[1]))):
        return node.values[0]
    return node


_FLAG_CALLS = {"any", "all"}


def _is_flag(node: py.expr) -> bool:
    """Whether an expression's value is a flag (0 or 1) whatever its operands: a comparison,
    `not`, True or False, any/all, and `and`/`or` of these."""
    if isinstance(node, (py.Compare,)) or isinstance(node, py.UnaryOp) and isinstance(node.op, py.Not):
        return True
    if isinstance(node, py.Constant) and isinstance(node.value, bool):
        return True
    if isinstance(node, py.BoolOp):
        return all(_is_flag(v) for v in node.values)
    return isinstance(node, py.Call) and isinstance(node.func, py.Name) and node.func.id in _FLAG_CALLS


def _folded(op: type, left: c.Expr, right: c.Expr) -> c.Expr | None:
    """Arithmetic on two constants worked out now, as Python would (None: left to C, which
    checks it: none, division by zero, a result past 64 bits)."""
    if not (isinstance(left, c.Int) and isinstance(right, c.Int)):
        return None
    a, b = left.value, right.value
    if c.INT64_MIN in (a, b) or (op in (py.FloorDiv, py.Mod) and b == 0):
        return None
    value = {py.Add: a + b, py.Sub: a - b, py.Mult: a * b}.get(op)
    if value is None:
        value = a // b if op is py.FloorDiv else a % b
    return c.Int(value) if c.INT64_MIN + 1 < value <= c.INT64_MAX else None
