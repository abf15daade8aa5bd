"""Constant folding on the generated module: what compiling left known, worked out once.

Expressions are compiled piece by piece, so a piece often meets a number known only once its
neighbours are placed: a cell's range check `1 <= 3 <= 7`, the `x if True else None` it guards,
`2 - 1` for a column, `not not not ...` for a negated test. Python folds some arithmetic itself
but never a comparison or a conditional, so they run at every call. This pass replaces them by
their values (only on ints, bools and None, with the results Python would give) and keeps the
branch an `if` on a known test takes.
"""

from __future__ import annotations

import ast as py
import operator

from .pytree import POS

_ARITHMETIC = {py.Add: operator.add, py.Sub: operator.sub, py.Mult: operator.mul}
_COMPARE = {py.Eq: operator.eq, py.NotEq: operator.ne, py.Lt: operator.lt, py.LtE: operator.le,
            py.Gt: operator.gt, py.GtE: operator.ge}
_LARGEST = 1 << 62  # a folded product stays a small int


def fold_constants(module: py.Module) -> py.Module:
    """The module with every constant comparison, conditional, small sum and product and
    repeated `not` replaced by its value, and every `if` on a constant by the branch taken."""
    _Folder().fold(module)
    return module


def _known(node: py.AST) -> bool:
    return isinstance(node, py.Constant) and (node.value is None or type(node.value) in (int, bool))


def _number(node: py.AST) -> bool:
    return isinstance(node, py.Constant) and type(node.value) is int


class _Folder:
    """A bottom-up pass, as `ast.NodeTransformer` makes one, but visiting only the fields of
    each node that hold nodes, skipping those that hold nothing (`Load`, `Add`), and folding a
    node met twice (a tree shared by two places) once: its folded form is the same in both."""

    def __init__(self):
        # id of a node folded -> (the node, kept so that its id stays its own; what replaced it)
        self.folded: dict[int, tuple[py.AST, py.AST | list]] = {}

    def fold(self, node: py.AST) -> py.AST | list[py.stmt]:
        key = id(node)
        done = self.folded.get(key)
        if done is not None:
            return done[1]
        values = node.__dict__
        folded = self.folded
        for field in node._fields:
            old = values.get(field)
            if type(old) is list:
                if old:
                    self.fold_list(old)
            elif isinstance(old, py.AST) and old._fields:
                done = folded.get(id(old))  # (looked up here too: a shared part costs no call)
                new = self.fold(old) if done is None else done[1]
                if new is not old:
                    values[field] = new
        rule = _RULES.get(node.__class__)
        out = node if rule is None else rule(node)
        self.folded[key] = (node, out)
        return out

    def fold_list(self, items: list) -> None:
        out = []
        changed = False
        folded = self.folded
        for item in items:
            if isinstance(item, py.AST) and item._fields:
                done = folded.get(id(item))
                new = self.fold(item) if done is None else done[1]
                if new is not item:
                    changed = True
                    if type(new) is list:
                        out.extend(new)
                        continue
                out.append(new)
            else:
                out.append(item)
        if changed:
            items[:] = out


def _fold_ifexp(node: py.IfExp) -> py.AST:
    if _known(node.test):
        return node.body if node.test.value else node.orelse
    return node


def _fold_binop(node: py.BinOp) -> py.AST:
    op = _ARITHMETIC.get(type(node.op))
    if op is not None and _number(node.left) and _number(node.right):
        value = op(node.left.value, node.right.value)
        if -_LARGEST < value < _LARGEST:
            return py.copy_location(py.Constant(value), node)
    return node


def _fold_compare(node: py.Compare) -> py.AST:
    values = [node.left, *node.comparators]
    if all(_number(v) for v in values) and all(type(op) in _COMPARE for op in node.ops):
        result = all(_COMPARE[type(op)](a.value, b.value) for op, a, b in zip(node.ops, values, values[1:]))
        return py.copy_location(py.Constant(result), node)
    return node


def _fold_unaryop(node: py.UnaryOp) -> py.AST:
    if isinstance(node.op, py.Not):
        if _known(node.operand):
            return py.copy_location(py.Constant(not node.operand.value), node)
        inner = node.operand
        if (isinstance(inner, py.UnaryOp) and isinstance(inner.op, py.Not) and isinstance(inner.operand, py.UnaryOp)
                and isinstance(inner.operand.op, py.Not)):
            return inner.operand  # not not not x is not x
    return node


def _fold_boolop(node: py.BoolOp) -> py.AST:
    passing = isinstance(node.op, py.And)  # the operand value that `and` (`or`) goes on past
    values = list(node.values)
    while len(values) > 1 and _known(values[0]) and bool(values[0].value) == passing:
        values.pop(0)  # `True and x` is x; `False or x` is x
    if len(values) == 1:
        return values[0]
    node.values = values
    return node


def _fold_if(node: py.If) -> py.AST | list[py.stmt]:
    if not _known(node.test):
        return node
    taken = (node.body if node.test.value else node.orelse) or [py.Pass()]
    pos = getattr(node, POS, None)
    for stmt in taken:  # a runtime error there is told at the rule the `if` was made for
        if pos is not None and getattr(stmt, POS, None) is None:
            setattr(stmt, POS, pos)
    return taken


_RULES = {py.IfExp: _fold_ifexp, py.BinOp: _fold_binop, py.Compare: _fold_compare, py.UnaryOp: _fold_unaryop,
          py.BoolOp: _fold_boolop, py.If: _fold_if}
