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
from .common import NONE, ST, NotLowered, call, form, is_const, is_name, pusher, st_field

Loop = list[c.Stmt]


class SequenceLowering:
    """Loops over sequences and lists made from them (mixed into the expression lowering)."""

    ns: dict

    def iterate(self, target: py.expr, source: py.expr, body: tuple[c.Stmt, ...],
                persistent: bool = False) -> Loop:
        """`for target in source: body`; a `persistent` loop (one a decision may stop inside)
        keeps its counters and any snapshot in the state."""
        if isinstance(target, py.Tuple):
            return self.each_tuple(target, source, body, persistent)
        if not isinstance(target, py.Name):
            raise NotLowered("a loop over tuples")
        if self.is_groups(source):
            return self.each_group(target, source, body)
        var = self.scope.local(target.id)
        return self.each(source, lambda value: (c.Assign(var, value), *body), persistent)

    def each_tuple(self, target: py.Tuple, source: py.expr, body: tuple[c.Stmt, ...], persistent: bool) -> Loop:
        """`for a, b in [(x, y) for ...]`: the tuples made first (a snapshot, k values each in one
        buffer), then gone through, each value bound to its name."""
        source = unshared(source)
        width = len(target.elts)
        if not (all(isinstance(e, py.Name) for e in target.elts) and isinstance(source, py.ListComp)
                and isinstance(source.elt, py.Tuple) and len(source.elt.elts) == width):
            raise NotLowered("a loop over tuples")
        if persistent and self.scope.in_flow:
            raise NotLowered("a loop over tuples in the flow")
        array = self.scope.array(f"tuples{next(self.counter)}", "PATHCAP")
        length, k = self.scope.temp(), self.scope.temp()

        def push(element: py.Tuple) -> tuple[c.Stmt, ...]:
            return tuple(c.Do(call("rf_push_to", ST, array, c.Unary("&", length), c.Name("PATHCAP"), self.scalar(e)))
                         for e in element.elts)

        names = [self.scope.local(e.id) for e in target.elts]
        bind = tuple(c.Assign(place, c.Index(array, c.Binary("+", k, c.Int(i)))) for i, place in enumerate(names))
        return [c.Assign(length, c.Int(0)), *self.over(source, push),
                c.For(c.Assign(k, c.Int(0)), c.Binary("<", k, length), c.Assign(k, c.Int(width), "+="), bind + body)]

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
        placed = (isinstance(where, py.Attribute) and is_name(where.value, "st") and where.attr == "w"
                  or is_name(where, "W"))  # components, grouped by the cells they are in
        if not (is_const(where, None) or placed) or not is_name(adjacency, "ADJ"):
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
        cells = items
        if placed:
            cells = self.scope.buffer()[0]
            fill.append(c.For(c.Assign(i, c.Int(0)), c.Binary("<", i, n), c.Assign(i, c.Int(1), "+="),
                              (c.Assign(c.Index(cells, i),
                                        c.Index(st_field("w"), call("rf_comp", ST, c.Index(items, i)))),)))
        return [*fill, c.Assign(count, call("rf_groups", ST, cells, n, offsets, near, gid)),
                c.For(c.Assign(which, c.Int(0)), c.Binary("<", which, count), c.Assign(which, c.Int(1), "+="),
                      (c.Assign(group_n, c.Int(0)), collect, *body))]

    def kept_range(self, source: py.expr) -> tuple | None:
        """`h[k] if k in h else keep(h, k, range(a, b))` with `h` a box of this comprehension: the
        range's bounds worked out once (done, low, high and the two bounds' C), else None."""
        if not (isinstance(source, py.IfExp) and kept_copy(source) and isinstance(source.orelse, py.Call)
                and is_name(source.orelse.func, "keep")):
            return None
        box, key, made = source.orelse.args
        kept = self.scope.kept_ranges.get(box.id) if isinstance(box, py.Name) else None
        if (kept is None or not isinstance(key, py.Constant) or not isinstance(made, py.Call)
                or not is_name(made.func, "range") or made.keywords or not 1 <= len(made.args) <= 2):
            return None
        if key.value not in kept:
            kept[key.value] = (self.scope.slot(), self.scope.slot(), self.scope.slot())
        done, low, high = kept[key.value]
        bounds = [c.Int(0), *(self.scalar(a) for a in made.args)][-2:]
        return done, low, high, bounds[0], bounds[1]

    def each(self, source: py.expr, step: Callable[[c.Expr], tuple[c.Stmt, ...]], persistent: bool) -> Loop:
        """A loop that runs `step(value)` for each value of `source`, in Python's order."""
        new = self.scope.slot if persistent else self.scope.temp
        kept = self.kept_range(source)
        if kept is not None:
            done, low, high, low_value, high_value = kept
            i = new()
            work = (c.Assign(low, call("rf_num", ST, low_value)), c.Assign(high, call("rf_num", ST, high_value)),
                    c.Assign(done, c.Int(1)))
            return [c.If(c.Unary("!", done), work),
                    c.For(c.Assign(i, low), c.Binary("<", i, high), c.Assign(i, c.Int(1), "+="), step(i))]
        source = unshared(source)
        if isinstance(source, py.Tuple) and len(source.elts) == 1 and isinstance(source.elts[0], py.Dict):
            return list(step(c.Int(0)))  # `for _h in ({},)`: a box for parts worked out once, gone through once
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
        if isinstance(source, py.Subscript) and is_name(source.value, "V") and self.list_vars():
            i, slot, k = new(), new(), new()  # a variable that holds a list (none: Python's TypeError)
            return [c.Assign(i, call("rf_at", ST, self.scalar(source.slice), c.Name("NV"))),
                    c.Assign(slot, call("rf_vlist_slot", ST, i, self.vlist_table())),
                    c.For(c.Assign(k, c.Int(0)), c.Binary("<", k, call("rf_listlen", ST, c.Index(st_field("v"), i))),
                          c.Assign(k, c.Int(1), "+="), step(c.Index(c.Index(st_field("vl"), slot), k)))]
        if isinstance(source, py.IfExp):  # `a if c else b`: the one chosen gone through
            return [c.If(self.test(source.test), tuple(self.each(source.body, step, persistent)),
                         tuple(self.each(source.orelse, step, persistent)))]
        if self.is_list_def(source):
            array, length = self.scope.buffer(persistent)
            k = new()
            return [*self.inlined_list(source, array, length),
                    c.For(c.Assign(k, c.Int(0)), c.Binary("<", k, length), c.Assign(k, c.Int(1), "+="),
                          step(c.Index(array, k)))]
        if isinstance(source, py.Call) and is_name(source.func, "counted_as") and len(source.args) == 4:
            return self.counted_as(source, step, persistent)
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

    def counted_as(self, source: py.Call, step: Callable[[c.Expr], tuple[c.Stmt, ...]], persistent: bool) -> Loop:
        """`counted_as(P, x, CS, CP)`: every value a component counts as, without repeats: its
        fixed values (`CS[x]`), then each set changeable one (`CP[x]`) not among them yet."""
        props, comp, static, indexes = source.args
        if not (is_name(props, "P") and is_name(static, "CS") and is_name(indexes, "CP")):
            raise NotLowered("counted_as of other tables")
        array, length = self.scope.buffer(persistent)
        x, j, v, k = self.scope.temp(), self.scope.temp(), self.scope.temp(), self.new_slot(persistent)
        at_s, items_s = self.rows_table("CS", self.ns["CS"])
        at_p, items_p = self.rows_table("CP", self.ns["CP"])
        row_s = call("rf_at", ST, x, c.Int(len(self.ns["CS"])))
        row_p = call("rf_at", ST, x, c.Int(len(self.ns["CP"])))
        value = c.Index(c.Index(st_field("p"), call("rf_at", ST, c.Index(items_p, j), c.Name("NPROP"))),
                        call("rf_comp", ST, x))
        def row(at: c.Name, which: c.Expr, body: tuple[c.Stmt, ...]) -> c.For:
            end = c.Index(at, c.Binary("+", which, c.Int(1)))
            return c.For(c.Assign(j, c.Index(at, which)), c.Binary("<", j, end), c.Assign(j, c.Int(1), "+="), body)

        push = pusher(array, length)
        fresh = c.Binary("&&", c.Binary("!=", v, NONE), c.Unary("!", call("rf_has", array, length, v)))
        fill = [c.Assign(length, c.Int(0)), row(at_s, row_s, push(c.Index(items_s, j))),
                row(at_p, row_p, (c.Assign(v, value), c.If(fresh, push(v))))]
        return [c.Assign(x, self.scalar(comp)),
                c.If(c.Binary("==", x, NONE), (c.Assign(length, c.Int(0)),), tuple(fill)),
                c.For(c.Assign(k, c.Int(0)), c.Binary("<", k, length), c.Assign(k, c.Int(1), "+="),
                      step(c.Index(array, k)))]

    def is_list_def(self, node: py.expr) -> bool:
        """A call of a def of the rules that gives a list (its body one `return` of a list)."""
        if not (isinstance(node, py.Call) and isinstance(node.func, py.Name) and node.func.id.startswith("d_")):
            return False
        f = self.defined.get(node.func.id)
        returned = _returned(f) if f is not None else None
        return returned is not None and self.makes_list(returned)

    def makes_list(self, node: py.expr) -> bool:
        """Whether an expression's value is a new list (what a def of a list returns)."""
        if isinstance(node, py.IfExp):
            return self.makes_list(node.body) and self.makes_list(node.orelse)
        if isinstance(node, (py.List, py.ListComp)):
            return True
        return self.is_list(node) or self.is_list_def(node)

    def inlined_list(self, node: py.Call, array: c.Expr, length: c.Expr) -> Loop:
        """A def's list made into a buffer: its `return` read where it is called, its
        parameters bound to the arguments (worked out first, in order)."""
        name = node.func.id
        f = self.defined[name]
        args = self.call_args(name, node)
        if self.list_depth >= 8:
            raise NotLowered("defs of lists nested too deeply")
        places = [self.scope.temp() for _ in args]
        bound: Loop = [c.Assign(place, value) for place, value in zip(places, args)]
        saved = self.scope.save()
        self.scope.fresh({p.arg: place for p, place in zip(f.args.args[1:], places)})
        self.list_depth += 1
        try:
            returned = _returned(f)
            fill = [c.Assign(length, c.Int(0)), *self.each(returned, pusher(array, length), False)]
        finally:
            self.list_depth -= 1
            self.scope.restore(saved)
        return bound + fill

    list_depth = 0

    def new_slot(self, persistent: bool) -> c.Expr:
        return self.scope.slot() if persistent else self.scope.temp()

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
                box = _dict_box(gen)
                if box is not None:  # `for h in ({},)`: ranges kept in it are worked out once
                    self.scope.kept_ranges[box] = {}
                inner = make_step(comp.elt) if i == len(gens) - 1 else tuple(clause(i + 1))
                for condition in reversed(gen.ifs):
                    inner = (c.If(self.test(condition), inner),)
                if box is not None:
                    made = self.scope.kept_ranges.pop(box)
                    inner = (*(c.Assign(done, c.Int(0)) for done, _low, _high in made.values()), *inner)
                return self.iterate(gen.target, gen.iter, inner)

        return clause(0)

    # --- lists ---------------------------------------------------------------------------------
    def is_list(self, node: py.expr) -> bool:
        """Whether `node` makes a new list (a snapshot): `list(x)`, a list comprehension, a sorting,
        lists joined with `+`."""
        node = unshared(node)
        if isinstance(node, py.BinOp) and isinstance(node.op, py.Add):
            return all(self.is_list(side) or isinstance(side, py.List) or self.is_zone(side)
                       or isinstance(side, py.Name) and side.id in self.scope.lists or self.is_list_def(side)
                       for side in (node.left, node.right))
        if isinstance(node, py.ListComp) or isinstance(node, py.Call) and (
                is_name(node.func, "sorted_by_key") or is_name(node.func, "grid_items")):
            return True
        return isinstance(node, py.Call) and is_name(node.func, "list") and len(node.args) == 1 and not node.keywords

    def fill(self, node: py.expr, array: c.Expr, length: c.Expr) -> Loop:
        """Make the list `node` (`list(x)` or `[e for v in x if ...]`) into a buffer."""
        node = unshared(node)
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


def _returned(f: py.FunctionDef) -> py.expr | None:
    """What a def returns when its body is the state's names (`Z = st.z`) and one `return`."""
    *head, last = f.body
    if not isinstance(last, py.Return) or last.value is None:
        return None
    for s in head:
        if not (isinstance(s, py.Assign) and isinstance(s.value, py.Attribute) and is_name(s.value.value, "st")):
            return None
    return last.value


def _dict_box(gen: py.comprehension) -> str | None:
    """The name of `for h in ({},)`: a box the compiler keeps parts of a comprehension in."""
    source = gen.iter
    if (isinstance(gen.target, py.Name) and isinstance(source, py.Tuple) and len(source.elts) == 1
            and isinstance(source.elts[0], py.Dict) and not source.elts[0].keys):
        return gen.target.id
    return None


def unshared(node: py.expr) -> py.expr:
    """A part the compiler works out once and keeps (`box[0] if box else shared(box, x)`,
    `h[k] if k in h else keep(h, k, x)`, `m if m is not UNSET else (m := x)`) read as `x`:
    worked out again where it is read. Where the compiler keeps them (a lister, an expression)
    the state does not change between the reads, so the value is the same."""
    while True:
        if isinstance(node, py.Call) and (is_name(node.func, "shared") and len(node.args) == 2
                                          or is_name(node.func, "keep") and len(node.args) == 3):
            node = node.args[-1]
        elif isinstance(node, py.IfExp) and kept_copy(node):
            node = node.orelse.value if isinstance(node.orelse, py.NamedExpr) else node.orelse
        else:
            return node


def kept_copy(node: py.IfExp) -> bool:
    """`box[0] if box else shared(box, x)`, `h[k] if k in h else keep(h, k, x)` or
    `m if m is not UNSET else (m := x)`."""
    test, body, orelse = node.test, node.body, node.orelse
    if isinstance(test, py.Name) and isinstance(orelse, py.Call) and is_name(orelse.func, "shared"):
        return is_name(orelse.args[0], test.id) and isinstance(body, py.Subscript) and is_name(body.value, test.id)
    if (isinstance(test, py.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], py.In)
            and isinstance(orelse, py.Call) and is_name(orelse.func, "keep")):
        box = test.comparators[0]
        return isinstance(box, py.Name) and is_name(orelse.args[0], box.id)
    if (isinstance(test, py.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], py.IsNot)
            and is_name(test.comparators[0], "UNSET") and isinstance(test.left, py.Name)
            and isinstance(orelse, py.NamedExpr)):
        return orelse.target.id == test.left.id and is_name(body, test.left.id)
    return False
