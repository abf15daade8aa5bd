"""Lowering what the generated Python goes through: ranges, zones, grids, constant tables, the
precomputed legal actions, comprehensions, and lists kept in locals.

Python goes through a list by index, reading its length again at each step, so a loop over a
zone that the loop's body changes sees what Python sees; `list(x)` and a comprehension are
snapshots, made into a buffer first (a C array, or in the flow a list kept in the state, since
the flow may stop at a decision inside the loop and go on in a copy of the state).
"""

from __future__ import annotations

import ast as py
from collections.abc import Callable

from . import ctree as c
from .common import ST, NotLowered, call, form, is_name, pusher, st_field

Loop = list[c.Stmt]


class SequenceLowering:
    """Loops over sequences and lists made from them (mixed into the expression lowering)."""

    ns: dict

    def iterate(self, target: py.expr, source: py.expr, body: tuple[c.Stmt, ...],
                persistent: bool = False) -> Loop:
        """`for target in source: body`; a `persistent` loop (one a decision may stop inside)
        keeps its counters and any snapshot in the state."""
        if not isinstance(target, py.Name):
            raise NotLowered("a loop over tuples")
        if self.is_groups(source):
            return self.each_group(target, source, body)
        var = self.scope.local(target.id)
        return self.each(source, lambda value: (c.Assign(var, value), *body), persistent)

    # --- connected groups -----------------------------------------------------------------------
    @staticmethod
    def is_groups(node: py.expr) -> bool:
        return isinstance(node, py.Call) and is_name(node.func, "groups")

    def bind_target(self, target: py.expr, source: py.expr) -> None:
        """Before a loop's body is lowered: a loop over groups binds its name to a list."""
        if self.is_groups(source) and isinstance(target, py.Name):
            self.scope.lists[target.id] = self.scope.buffer()

    def each_group(self, target: py.Name, source: py.Call, body: tuple[c.Stmt, ...]) -> Loop:
        """`for g in groups(items, None, ADJ, GROUPS)`: the items (cells) split into orthogonally
        connected groups (union-find over the adjacency; cells shared join too), in the order
        runtime.groups gives them (by their first item, each in the items' order), which the
        differential test holds against networkx's."""
        items_node, where, adjacency, _cache = source.args
        if not (isinstance(where, py.Constant) and where.value is None and is_name(adjacency, "ADJ")):
            raise NotLowered("groups of components placed by a table")
        if target.id not in self.scope.lists:
            raise NotLowered("a loop over groups bound too late")
        group, group_n = self.scope.lists[target.id]
        items, n = self.scope.buffer()
        gid, count, which, i = self.scope.buffer()[0], self.scope.temp(), self.scope.temp(), self.scope.temp()
        offsets, near = self.rows_table("ADJ", self.ns["ADJ"])
        fill = self.fill(items_node, items, n) if self.is_list(items_node) else None
        if fill is None:
            raise NotLowered("groups of something other than a list")
        collect = c.For(c.Assign(i, c.Int(0)), c.Binary("<", i, n), c.Assign(i, c.Int(1), "+="),
                        (c.If(c.Binary("==", c.Index(gid, i), which),
                              (c.Do(call("rf_push", ST, group, c.Unary("&", group_n), c.Index(items, i))),)),))
        return [*fill, c.Assign(count, call("rf_groups", ST, items, n, offsets, near, gid)),
                c.For(c.Assign(which, c.Int(0)), c.Binary("<", which, count), c.Assign(which, c.Int(1), "+="),
                      (c.Assign(group_n, c.Int(0)), collect, *body))]

    def each(self, source: py.expr, step: Callable[[c.Expr], tuple[c.Stmt, ...]], persistent: bool) -> Loop:
        """A loop that runs `step(value)` for each value of `source`, in Python's order."""
        new = self.scope.slot if persistent else self.scope.temp
        if isinstance(source, py.Call) and is_name(source.func, "range") and not source.keywords:
            args = [self.scalar(a) for a in source.args]
            if len(args) == 1:
                args.insert(0, c.Int(0))
            if len(args) != 2:
                raise NotLowered("a range with a step")
            i, end = new(), new()
            return [c.Assign(end, call("rf_num", ST, args[1])),
                    c.For(c.Assign(i, call("rf_num", ST, args[0])), c.Binary("<", i, end),
                          c.Assign(i, c.Int(1), "+="), step(i))]
        if isinstance(source, py.Call) and is_name(source.func, "grid_items"):
            _, first, cells = source.args
            zi, k, last = new(), new(), new()
            inner = c.For(c.Assign(k, c.Int(0)), c.Binary("<", k, c.Index(st_field("zn"), zi)),
                          c.Assign(k, c.Int(1), "+="), step(c.Index(c.Index(st_field("z"), zi), k)))
            return [c.Assign(last, call("rf_add", ST, self.scalar(first), self.scalar(cells))),
                    c.If(c.Binary(">", last, c.Name("NZ")), (c.Do(call("rf_trap", ST, c.Name("RF_TRAP_INDEX"))),)),
                    c.For(c.Assign(zi, self.scalar(first)), c.Binary("<", zi, last), c.Assign(zi, c.Int(1), "+="),
                          (inner,))]
        if self.is_zone(source):
            zi, k = new(), new()
            return [c.Assign(zi, self.zone(source)),
                    c.For(c.Assign(k, c.Int(0)), c.Binary("<", k, c.Index(st_field("zn"), zi)),
                          c.Assign(k, c.Int(1), "+="), step(c.Index(c.Index(st_field("z"), zi), k)))]
        if (isinstance(source, py.Subscript) and isinstance(source.value, py.Subscript)
                and is_name(source.value.value, "PRE")):
            offsets, items = self.pre_table(self.static_int(source.value.slice))
            at = call("rf_at", ST, self.scalar(source.slice), c.Name("NPLAYERS"))
            k, end = new(), new()
            return [c.Assign(end, c.Index(offsets, c.Binary("+", at, c.Int(1)))),
                    c.For(c.Assign(k, c.Index(offsets, at)), c.Binary("<", k, end), c.Assign(k, c.Int(1), "+="),
                          step(c.Index(items, k)))]
        if isinstance(source, py.Name) and source.id in self.scope.lists:
            array, length = self.scope.lists[source.id]
            k = new()
            return [c.For(c.Assign(k, c.Int(0)), c.Binary("<", k, length), c.Assign(k, c.Int(1), "+="),
                          step(c.Index(array, k)))]
        rows = self.constant_rows(source)
        if rows is not None:
            offsets, items, row = rows
            k, end = new(), new()
            return [c.Assign(end, c.Index(offsets, c.Binary("+", row, c.Int(1)))),
                    c.For(c.Assign(k, c.Index(offsets, row)), c.Binary("<", k, end), c.Assign(k, c.Int(1), "+="),
                          step(c.Index(items, k)))]
        if isinstance(source, py.Call) and is_name(source.func, "list") and len(source.args) == 1:
            inner = source.args[0]
            if self.constant_rows(inner) is not None or (isinstance(inner, py.Call) and is_name(inner.func, "range")):
                return self.each(inner, step, persistent)  # nothing can change it: no snapshot needed
        if (isinstance(source, py.Call) and is_name(source.func, "map") and len(source.args) == 2
                and isinstance(source.args[0], py.Attribute) and source.args[0].attr == "__getitem__"
                and isinstance(source.args[0].value, py.Name)):  # map(T.__getitem__, xs): T[x] for each x
            table = source.args[0].value
            return self.each(source.args[1], lambda x: step(self.lookup(table, x)), persistent)
        if (isinstance(source, py.Call) and is_name(source.func, "compress") and len(source.args) == 2
                and isinstance(source.args[0], py.Call) and is_name(source.args[0].func, "range")
                and isinstance(source.args[1], py.Subscript) and is_name(source.args[1].value, "Z")
                and isinstance(source.args[1].slice, py.Slice)):  # compress(range(a, b), Z[a:b]): occupied cells
            def occupied(cell: c.Expr) -> tuple[c.Stmt, ...]:
                return (c.If(c.Binary("!=", c.Index(st_field("zn"), call("rf_zone", ST, cell)), c.Int(0)), step(cell)),)

            return self.each(source.args[0], occupied, persistent)
        if isinstance(source, py.Call) and is_name(source.func, "sorted_by_key"):
            array, length = self.scope.buffer(persistent)
            k = new()
            return [*self.sorted_pairs(source, array, length),
                    c.For(c.Assign(k, c.Int(0)), c.Binary("<", k, length), c.Assign(k, c.Int(1), "+="),
                          step(c.Index(array, k)))]
        if (isinstance(source, py.Call) and isinstance(source.func, py.Attribute) and source.func.attr == "get"
                and isinstance(source.func.value, py.Name) and source.func.value.id in self.scope.splits):
            split = source.func.value.id  # `parts.get(key, ())`: the components with that value, in order
            array, length = self.scope.lists[split]
            key, held, k = self.scope.temp(), self.scope.temp(), new()
            item = c.Index(array, k)
            value = self.lookup(self.scope.splits[split], item)
            return [c.Assign(key, self.scalar(source.args[0])),
                    c.For(c.Assign(k, c.Int(0)), c.Binary("<", k, length), c.Assign(k, c.Int(1), "+="),
                          (c.Assign(held, item), c.If(c.Binary("==", value, key), step(held))))]
        if isinstance(source, py.List) and any(isinstance(e, py.Starred) for e in source.elts):
            out: Loop = []  # `[*a, *b]`: each part gone through in turn
            for e in source.elts:
                out += self.each(e.value, step, persistent) if isinstance(e, py.Starred) else list(step(self.scalar(e)))
            return out
        if isinstance(source, (py.List, py.Tuple)):  # `[a, b, c]`: each worked out in turn, then gone through
            array, length = self.scope.buffer(persistent)
            k = new()
            push = [c.Do(call("rf_push", ST, array, c.Unary("&", length), self.scalar(e))) for e in source.elts]
            return [c.Assign(length, c.Int(0)), *push,
                    c.For(c.Assign(k, c.Int(0)), c.Binary("<", k, length), c.Assign(k, c.Int(1), "+="),
                          step(c.Index(array, k)))]
        if isinstance(source, (py.ListComp, py.Call, py.BinOp)) and self.is_list(source):
            array, length = self.scope.buffer(persistent)
            k = new()
            return [*self.fill(source, array, length),
                    c.For(c.Assign(k, c.Int(0)), c.Binary("<", k, length), c.Assign(k, c.Int(1), "+="),
                          step(c.Index(array, k)))]
        raise NotLowered(f"a loop over {form(source)}")

    def over(self, comp: py.ListComp | py.GeneratorExp,
             make_step: Callable[[py.expr], tuple[c.Stmt, ...]]) -> Loop:
        """The loops of a comprehension (its clauses nested, first outermost, each with its
        conditions), running `make_step(element)` innermost with every clause's name in scope."""
        gens = comp.generators
        if any(gen.is_async for gen in gens):
            raise NotLowered("an asynchronous comprehension")

        def clause(i: int) -> Loop:
            gen = gens[i]
            with self.scope.comprehension(gen.target):
                self.bind_target(gen.target, gen.iter)
                inner = make_step(comp.elt) if i == len(gens) - 1 else tuple(clause(i + 1))
                for condition in reversed(gen.ifs):
                    inner = (c.If(self.test(condition), inner),)
                return self.iterate(gen.target, gen.iter, inner)

        return clause(0)

    # --- lists ---------------------------------------------------------------------------------
    def is_list(self, node: py.expr) -> bool:
        """Whether `node` makes a new list (a snapshot): `list(x)`, a list comprehension, a sorting,
        lists joined with `+`."""
        if isinstance(node, py.BinOp) and isinstance(node.op, py.Add):
            return all(self.is_list(side) or isinstance(side, py.List) for side in (node.left, node.right))
        if isinstance(node, py.ListComp) or isinstance(node, py.Call) and (
                is_name(node.func, "sorted_by_key") or is_name(node.func, "grid_items")):
            return True
        return isinstance(node, py.Call) and is_name(node.func, "list") and len(node.args) == 1 and not node.keywords

    def fill(self, node: py.expr, array: c.Expr, length: c.Expr) -> Loop:
        """Make the list `node` (`list(x)` or `[e for v in x if ...]`) into a buffer."""
        push = pusher(array, length)
        if isinstance(node, py.Call) and is_name(node.func, "sorted_by_key"):
            return self.sorted_pairs(node, array, length)
        out: Loop = [c.Assign(length, c.Int(0))]
        if isinstance(node, py.BinOp):  # `a + b`: a's items, then b's
            return out + self.each(node.left, push, False) + self.each(node.right, push, False)
        if isinstance(node, py.ListComp):
            return out + self.over(node, lambda element: push(self.scalar(element)))
        if is_name(node.func, "grid_items"):
            return out + self.each(node, push, False)
        return out + self.each(node.args[0], push, False)

    def sorted_pairs(self, node: py.Call, array: c.Expr, length: c.Expr) -> Loop:
        """`sorted_by_key([(key, item) for ...])`: the items into `array`, by key (stable)."""
        [pairs] = node.args
        if not (isinstance(pairs, py.ListComp) and isinstance(pairs.elt, py.Tuple) and len(pairs.elt.elts) == 2):
            raise NotLowered("this form of sorting")
        keys, n_keys = self.scope.buffer()

        def step(element: py.Tuple) -> tuple[c.Stmt, ...]:
            key, item = element.elts
            return (c.Do(call("rf_push", ST, keys, c.Unary("&", n_keys), self.scalar(key))),
                    c.Do(call("rf_push", ST, array, c.Unary("&", length), self.scalar(item))))

        loop = self.over(pairs, step)
        return [c.Assign(length, c.Int(0)), c.Assign(n_keys, c.Int(0)), *loop,
                c.Do(call("rf_sort_pairs", keys, array, length))]

    def constant_rows(self, node: py.expr) -> tuple[c.Name, c.Name, c.Expr] | None:
        """A constant sequence of the program (`PLAYERS`, a row of `ROT`): its table of rows,
        as (row offsets, items, the row's index), or None."""
        if isinstance(node, (py.List, py.Tuple)) and all(isinstance(e, py.Constant) for e in node.elts):
            values = tuple(e.value for e in node.elts)
            offsets, items = self.rows_table(("literal", tuple(map(repr, values))), (values,))
            return offsets, items, c.Int(0)
        if isinstance(node, py.Name) and node.id not in self.scope.names:
            value = self.ns.get(node.id)
            if isinstance(value, (tuple, list)) and all(not isinstance(v, (tuple, list, dict)) for v in value):
                offsets, items = self.rows_table(node.id, (value,))
                return offsets, items, c.Int(0)
        if isinstance(node, py.Subscript) and isinstance(node.value, py.Name) and node.value.id not in self.scope.names:
            value = self.ns.get(node.value.id)
            if (isinstance(value, (tuple, list)) and value
                    and all(isinstance(row, (tuple, list)) for row in value)):
                offsets, items = self.rows_table(node.value.id, value)
                return offsets, items, call("rf_at", ST, self.scalar(node.slice), c.Int(len(value)))
        return None
