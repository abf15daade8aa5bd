"""Walks over a grid's cells that skip the empty ones at C speed (docs/design.md).

`x for x in cells(G) if count(x) > 0 ...` compiles to a clause over `range(a, a + n)` whose
first test is `Z[x]`: Python pays a round of bytecode per cell, and on a sparse grid most of
them are empty. `compress(range(a, a + n), Z[a:a + n])` gives the indices of the non-empty
ones, in the same order, without a bytecode per cell (`reversed` on both sides for a search
from the end), and the test is dropped. What is then read of each cell by a table
(`min(COL[x] for x in ...)`) is `map(COL.__getitem__, ...)`, with no generator to resume.
The cells of a grid are zone indices in range, so the slice holds exactly the zones tested.
"""

from __future__ import annotations

import ast as py
from collections.abc import Callable

from . import pytree as t
from .rewrites import fixed_range

# tables indexed by a zone: reading one of a cell's index never fails
ZONE_TABLES = frozenset({"ROW", "COL", "ZOWNER", "ZNAME", "ADJ", "NEAR", "CAP", "Z"})


def skip_empty(clause: py.comprehension) -> py.comprehension:
    """The clause going through the non-empty cells only, when it goes through a range of
    cells (or one backwards) and its first test is that the cell is non-empty; else as is."""
    if not clause.ifs or not isinstance(clause.target, py.Name):
        return clause
    source, backwards = clause.iter, False
    if t.calls(source, "reversed") and len(source.args) == 1:
        source, backwards = source.args[0], True
    if not (t.calls(source, "range") and fixed_range(source) is not None and all(map(_pure, source.args))):
        return clause  # (a range of known length from a zone index: the cells of a grid)
    var = clause.target.id
    rest = _without_first(clause.ifs[0], lambda test: _nonempty(test, var))
    if rest is False:
        return clause
    low, high = source.args
    zones: t.Code = t.sub("Z", py.Slice(t.clone(low), t.clone(high), None))
    indices: t.Code = t.clone(source)
    if backwards:
        indices, zones = t.call("reversed", indices), t.call("reversed", zones)
    ifs = ([rest] if rest is not None else []) + clause.ifs[1:]
    ifs = [_TopOfNonEmpty(var).visit(test) for test in ifs]  # `(Z[x] or NOTHING)[-1]` is `Z[x][-1]`
    return t.comp(var, t.call("compress", indices, zones), ifs)


def never_none(clause: py.comprehension) -> py.comprehension:
    """A clause whose items are never none (a zone's contents, component ids; cells; numbers
    worked out) with its leading test that the item is not none dropped (`t is not None and
    KIND[t] == ...`, the code of `t is K`; `x != None`)."""
    if not clause.ifs or not isinstance(clause.target, py.Name) or not _some(clause.iter):
        return clause
    var = clause.target.id
    rest = _without_first(clause.ifs[0], lambda test: _not_none(test, var))
    if rest is False:
        return clause
    return t.comp(var, clause.iter, ([rest] if rest is not None else []) + clause.ifs[1:])


def _some(source: t.Code) -> bool:
    """Whether every item of a clause's source is surely a value, never none: a zone's contents,
    a walk over cells, a range, a join of those, or a list comprehension giving its own
    variable over one of those or a sum of numbers (a cell's index worked out)."""
    if isinstance(source, py.Subscript) and isinstance(source.value, py.Name) and source.value.id == "Z":
        return not isinstance(source.slice, py.Slice)
    if t.calls(source, "compress") or t.calls(source, "range"):
        return True
    if isinstance(source, py.BinOp) and isinstance(source.op, py.Add):
        return _some(source.left) and _some(source.right)
    if isinstance(source, py.ListComp):
        item = source.elt
        if isinstance(item, py.BinOp) and isinstance(item.op, (py.Add, py.Sub, py.Mult)):
            return True
        return isinstance(item, py.Name) and any(
            isinstance(g.target, py.Name) and g.target.id == item.id and _some(g.iter) for g in source.generators)
    return False


def over_nonempty(f: str, item: t.Code, generators: list[py.comprehension]) -> t.Code | None:
    """Aggregate `f` of `item` over a walk of the non-empty cells with no other test, from the
    list of those cells (`list(compress(...))`): one slice of the state, the same list in every
    copy of the walk, so that a part listed once per decision lists the cells once for all its
    aggregates (the first and last rows and the least and greatest columns of a grid's occupied
    box). None when the generator is not such a walk, or `f` or `item` are not simple."""
    if len(generators) != 1 or generators[0].ifs or not t.calls(generators[0].iter, "compress") \
            or not isinstance(generators[0].target, py.Name) or t.calls(generators[0].iter.args[0], "reversed"):
        return None
    var, cells = generators[0].target.id, t.call("list", t.clone(generators[0].iter))
    if f == "count":
        return t.call("len", cells)
    if isinstance(item, py.Name) and item.id == var:
        values, table = cells, None
    elif isinstance(item, py.Subscript) and isinstance(item.value, py.Name) and item.value.id in ZONE_TABLES \
            and isinstance(item.slice, py.Name) and item.slice.id == var:
        table = item.value.id
        values = t.call("map", t.attr(table, "__getitem__"), cells)
    else:
        return None
    if f in ("first", "last"):
        if table is None:
            return t.call("_first" if f == "first" else "_last", cells)
        ordered = values if f == "first" else t.call("map", t.attr(table, "__getitem__"), t.call("reversed", cells))
        return t.call("next", ordered, t.const(None))
    if f in ("min", "max"):
        return t.call(f, values, default=t.const(0))
    if f in ("sum", "any"):
        return t.call(f, values)
    if f == "every":
        return t.call("all", values)
    return None


def _without_first(test: t.Code, found: Callable[[t.Code], bool]) -> t.Code | None | bool:
    """The test with its leading part that `found` recognises taken off: None when nothing is
    left, False when it does not start with one."""
    if found(test):
        return None
    if isinstance(test, py.BoolOp) and isinstance(test.op, py.And):
        head = _without_first(test.values[0], found)
        if head is False:
            return False
        rest = test.values[1:] if head is None else [head, *test.values[1:]]
        return t.and_(*rest)
    return False


def _nonempty(test: t.Code, var: str) -> bool:
    """`Z[var]`: the cell holds something."""
    return isinstance(test, py.Subscript) and isinstance(test.value, py.Name) and test.value.id == "Z" \
        and isinstance(test.slice, py.Name) and test.slice.id == var and isinstance(test.ctx, py.Load)


def _not_none(test: t.Code, var: str) -> bool:
    """`var is not None` or `var != None`."""
    return isinstance(test, py.Compare) and isinstance(test.left, py.Name) and test.left.id == var \
        and len(test.ops) == 1 and isinstance(test.ops[0], (py.IsNot, py.NotEq)) \
        and isinstance(test.comparators[0], py.Constant) and test.comparators[0].value is None


class _TopOfNonEmpty(py.NodeTransformer):
    """`(Z[x] or NOTHING)` and `(Z[x] or NOIDX)` (the guard of an empty zone's top) as `Z[x]`,
    where x is a cell known to hold something."""

    def __init__(self, var: str):
        self.var = var

    def visit_BoolOp(self, node: py.BoolOp) -> t.Code:
        self.generic_visit(node)
        if isinstance(node.op, py.Or) and len(node.values) == 2 and _nonempty(node.values[0], self.var) \
                and isinstance(node.values[1], py.Name) and node.values[1].id in ("NOTHING", "NOIDX"):
            return node.values[0]
        return node


def _pure(code: t.Code) -> bool:
    """Code that may be evaluated twice with the same value: names, numbers, arithmetic."""
    return all(isinstance(n, (py.Name, py.Constant, py.BinOp, py.UnaryOp, py.operator, py.unaryop,
                              py.expr_context)) for n in t.nodes(code))
