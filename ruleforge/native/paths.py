"""Lowering `longest_paths`: the longest runs of segments drawn on a grid's cells.

The reference engine asks networkx (geometry.longest_paths); the runtime's `rf_longest_paths`
gives the same paths in the same order, with its work bounded (past its caps it traps and the
reference engine answers). Its input is the items written flat as numbers, each
`cell, segments, (sides, side...)...`, a side as its place in `SIDE_INDEX` (-1: none); a side
that is no side's name is Python's KeyError there, a trap here.
"""

from __future__ import annotations

import ast as py
from collections.abc import Callable

from .. import geometry
from . import ctree as c
from .common import NONE, ST, NotLowered, call, is_name

Loop = list[c.Stmt]


class PathLowering:
    """`longest_paths(items, NEAR, PATHS)` as a best value's options (mixed into the lowering)."""

    @staticmethod
    def is_paths(node: py.expr) -> bool:
        return isinstance(node, py.Call) and is_name(node.func, "longest_paths") and len(node.args) == 3

    def path_options(self, source: py.Call, name: str, n_opts: c.Expr,
                     j: c.Expr) -> tuple[Loop, Loop, Callable[[c.Expr], tuple[c.Expr, c.Expr]]]:
        """The paths as a best value's options: (making them, binding option j to `name`, option
        k's items and length); no path is the one option none."""
        items, near, _cache = source.args
        if not is_name(near, "NEAR") or len(self.ns["NEAR"]) != self.n_zones:
            raise NotLowered("longest paths over another table of neighbours")
        scope = self.scope
        enc, n_enc = scope.array(f"paths{next(self.counter)}", "PATHCAP"), scope.temp()
        cells = scope.buffer()[0]
        starts, lens = scope.buffer()[0], scope.buffer()[0]
        made = [*self.paths_input(items, enc, n_enc),
                c.Assign(n_opts, call("rf_longest_paths", ST, enc, n_enc, self.neighbour_table(), cells, starts, lens)),
                c.If(c.Binary("==", n_opts, c.Int(0)),
                     (c.Assign(c.Index(starts, c.Int(0)), c.Int(0)), c.Assign(c.Index(lens, c.Int(0)), NONE),
                      c.Assign(n_opts, c.Int(1))))]
        start, length = scope.temp(), scope.temp()
        scope.lists[name] = (c.Binary("+", cells, start), call("rf_listlen", ST, length))
        bind = [c.Assign(start, c.Index(starts, j)), c.Assign(length, c.Index(lens, j))]

        def option(k: c.Expr) -> tuple[c.Expr, c.Expr]:
            return c.Binary("+", cells, c.Index(starts, k)), c.Index(lens, k)

        return made, bind, option

    def paths_input(self, node: py.expr, enc: c.Expr, n_enc: c.Expr) -> Loop:
        """`[(cell, segments) for ...]` written flat into `enc`."""
        if not (isinstance(node, py.ListComp) and isinstance(node.elt, py.Tuple) and len(node.elt.elts) == 2):
            raise NotLowered("longest paths of items of another form")

        def push(value: c.Expr) -> c.Stmt:
            return c.Do(call("rf_push_to", ST, enc, c.Unary("&", n_enc), c.Name("PATHCAP"), value))

        def item(element: py.expr) -> tuple[c.Stmt, ...]:
            cell, segments = element.elts
            count = self.scope.temp()
            return (push(self.scalar(cell)), c.Assign(count, n_enc), push(c.Int(0)),
                    *self.segments(segments, count, enc, n_enc, push))

        return [c.Assign(n_enc, c.Int(0)), *self.over(node, item)]

    def segments(self, node: py.expr, count: c.Expr, enc: c.Expr, n_enc: c.Expr,
                 push: Callable[[c.Expr], c.Stmt]) -> Loop:
        """A cell's segments (a list of lists of sides), each counted at `enc[count]`."""
        if isinstance(node, py.IfExp):
            return [c.If(self.test(node.test), tuple(self.segments(node.body, count, enc, n_enc, push)),
                         tuple(self.segments(node.orelse, count, enc, n_enc, push)))]

        def segment(sides: py.expr) -> tuple[c.Stmt, ...]:
            at = self.scope.temp()

            def side(value: c.Expr) -> tuple[c.Stmt, ...]:
                return (push(self.side_index(value)), c.Assign(c.Index(enc, at), c.Int(1), "+="))

            return (c.Assign(at, n_enc), push(c.Int(0)), *self.each(sides, side, False),
                    c.Assign(c.Index(enc, count), c.Int(1), "+="))

        if isinstance(node, py.List):
            return [s for e in node.elts for s in segment(e)]
        if isinstance(node, py.ListComp):
            return self.over(node, segment)
        raise NotLowered("segments of another form")

    def side_index(self, value: c.Expr) -> c.Expr:
        """A side's place in SIDE_INDEX, -1 for none; another value traps (Python's KeyError)."""
        held = self.scope.temp()
        out: c.Expr = c.Cond(c.Binary("==", held, NONE), c.Int(-1),
                             call("rf_trap_value", ST, c.Name("RF_TRAP_INDEX")))
        for name, i in reversed(list(geometry.SIDE_INDEX.items())):
            out = c.Cond(c.Binary("==", held, c.Int(self.text_id(name))), c.Int(i), out)
        return c.StmtExpr((c.Assign(held, value),), out)
