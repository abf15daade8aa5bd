"""The best-choice scorings: a choice nobody made, tried every way, the best total kept.

compiler/scoring.py writes them in two fixed shapes: `emit_best` (every combination of a
property's options for some components, `for combo in product(*opts)`) and `emit_best_value`
(each value of a sequence for a name, held in a variable meanwhile when the rules say `into`).
Each is read here whole, from its first statement to the `out, t = (best[0], best[1])` that
ends it: the combinations are gone through as an odometer (the last place turning fastest, as
`product` turns), the properties put back after, and each total weighed with the ranking as
Python weighs tuples (`rf_key_greater`: the first unequal place decides; none there is a
TypeError, a trap). A shape other than these two is refused as a whole.
"""

from __future__ import annotations

import ast as py

from . import ctree as c
from .common import NONE, ST, NotLowered, call, is_const, is_name, pusher, st_field

_RESULT_NAMES = ("out", "t")


def _assigned(s: py.stmt) -> str | None:
    """The name a plain `name = value` assigns, or None."""
    if isinstance(s, py.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], py.Name):
        return s.targets[0].id
    return None


def _is_result(s: py.stmt, best: str) -> bool:
    """`out, t = (best[0], best[1])`."""
    return (isinstance(s, py.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], py.Tuple)
            and [getattr(e, "id", None) for e in s.targets[0].elts] == list(_RESULT_NAMES)
            and isinstance(s.value, py.Tuple) and len(s.value.elts) == 2
            and all(isinstance(e, py.Subscript) and is_name(e.value, best) and is_const(e.slice, i)
                    for i, e in enumerate(s.value.elts)))


def _or_none(node: py.expr) -> py.expr | None:
    """SRC of `list(SRC) or [None]` (a best value's options), else None."""
    if (isinstance(node, py.BoolOp) and isinstance(node.op, py.Or) and len(node.values) == 2
            and isinstance(node.values[0], py.Call) and is_name(node.values[0].func, "list")
            and len(node.values[0].args) == 1 and isinstance(node.values[1], py.List)
            and len(node.values[1].elts) == 1 and is_const(node.values[1].elts[0], None)):
        return node.values[0].args[0]
    return None


class _Weighing:
    """What trying every way keeps: the best items, total and key so far, and what made them."""

    def __init__(self, lowering, k: str):
        scope = lowering.scope
        self.n_items = lowering.n_items
        self.items = scope.arrays["out"][0]
        self.total = scope.local("t")
        self.base = scope.array(f"base{k}", self.n_items)
        self.base_total = scope.temp()
        self.best = scope.array(f"best{k}", self.n_items)
        self.best_total, self.found, self.many, self.chosen = (scope.temp() for _ in range(4))
        self.key = scope.array(f"key{k}", "NKEY")
        self.best_key = scope.array(f"bestkey{k}", "NKEY")
        self.pick: c.Expr = NONE  # the options of one value each, by place
        self.var_slot: c.Expr = scope.temp()  # `into`: the variable the value tried stands in
        self.saved_value: c.Expr | tuple[c.Expr, c.Expr] = NONE  # its value before (a list: items, length)

    def start(self) -> list[c.Stmt]:
        """`base = (list(out), t)`, `best = None`."""
        return [c.Do(call("rf_copy", self.base, self.items, c.Int(self.n_items))),
                c.Assign(self.base_total, self.total), c.Assign(self.found, c.Int(0)), c.Assign(self.chosen, NONE)]

    def restart(self) -> list[c.Stmt]:
        """`out = list(base[0])`, `t = base[1]`: the items before the choice, as they were."""
        return [c.Do(call("rf_copy", self.items, self.base, c.Int(self.n_items))),
                c.Assign(self.total, self.base_total)]

    def result(self) -> list[c.Stmt]:
        """`out, t = (best[0], best[1])`: nothing tried is Python's TypeError (None[0])."""
        return [c.If(c.Unary("!", self.found), (c.Do(call("rf_trap", ST, c.Name("RF_TRAP_NONE"))),)),
                c.Do(call("rf_copy", self.items, self.best, c.Int(self.n_items))),
                c.Assign(self.total, self.best_total)]


class ChoiceLowering:
    """The two shapes of a best choice in a scoring (mixed into the statement lowering)."""

    def best_block(self, stmts: list[py.stmt], at: int) -> tuple[int, list[c.Stmt]] | None:
        """(statements read, their C) when a best choice starts at `stmts[at]`, else None."""
        name = _assigned(stmts[at]) or ""
        for kind in ("sel", "opts"):  # the compiler's names: sel<k> (a best choice), opts<k> (a best value)
            k = name[len(kind):]
            if name.startswith(kind) and k.isascii() and k.isdigit():
                break
        else:
            return None
        if kind == "sel":
            return self.best_choice(stmts, at, k)
        if _or_none(stmts[at].value) is not None:
            return self.best_value(stmts, at, k)
        return None

    # --- every combination of a property's options -----------------------------------------
    def best_choice(self, stmts: list[py.stmt], at: int, k: str) -> tuple[int, list[c.Stmt]]:
        """`sel = [...]; opts = [list(X) or [P[i][g]] for g in sel]; saved = ...; base = ...;
        best = None; many = ...; for combo in product(*opts): ...; put back; out, t = best`."""
        names = [f"{x}{k}" for x in ("sel", "opts", "saved", "base", "best", "many")]
        head = stmts[at:at + 6]
        if len(stmts) < at + 9 or [_assigned(s) for s in head] != names:
            raise NotLowered("a best choice of another shape")
        loop, restore, result = stmts[at + 6:at + 9]
        opts = head[1].value
        if not (isinstance(loop, py.For) and is_name(loop.target, f"combo{k}") and isinstance(restore, py.For)
                and _is_result(result, names[4]) and isinstance(opts, py.ListComp) and len(loop.body) >= 5):
            raise NotLowered("a best choice of another shape")
        scope = self.scope
        weigh = _Weighing(self, k)
        sel = scope.lists[names[0]] = scope.buffer()
        flat, n_flat = scope.buffer()
        starts, n_starts = scope.buffer()
        lens, n_lens = scope.buffer()
        saved = scope.lists[names[2]] = scope.buffer()
        first, j, go = scope.temp(), scope.temp(), scope.temp()

        def options(element: py.expr) -> tuple[c.Stmt, ...]:
            return (c.Assign(first, n_flat), *self.first_of(element, flat, n_flat, first),
                    c.Do(call("rf_push", ST, starts, c.Unary("&", n_starts), first)),
                    c.Do(call("rf_push", ST, lens, c.Unary("&", n_lens), c.Binary("-", n_flat, first))))

        out: list[c.Stmt] = [*self.fill(head[0].value, *sel), c.Assign(n_flat, c.Int(0)),
                             c.Assign(n_starts, c.Int(0)), c.Assign(n_lens, c.Int(0)), *self.over(opts, options),
                             *self.fill(head[2].value, *saved), *weigh.start()]
        # many: some component has more than one option; go: none has none (product is empty)
        out += [c.Assign(weigh.many, c.Int(0)), c.Assign(go, c.Int(1)),
                self.count_loop(j, n_lens, (
                    c.If(c.Binary(">", c.Index(lens, j), c.Int(1)), (c.Assign(weigh.many, c.Int(1)),)),
                    c.If(c.Binary("==", c.Index(lens, j), c.Int(0)), (c.Assign(go, c.Int(0)),))))]
        # the odometer: a place per component, the last turning fastest
        at_, turn = scope.buffer()[0], scope.temp()
        out.append(self.count_loop(j, n_lens, (c.Assign(c.Index(at_, j), c.Int(0)),)))
        chosen = self.assign_each(loop.body[0], f"combo{k}", sel, lambda i: c.Index(
            flat, c.Binary("+", c.Index(starts, i), c.Index(at_, i))))
        body = [*chosen, *self.restarted(loop.body[1:3], weigh), *self.body(loop.body[3:-2]),
                *self.keep_best(loop.body[-2], loop.body[-1], names, weigh, None)]
        odometer = c.While(c.Binary(">=", turn, c.Int(0)), (
            c.Assign(c.Index(at_, turn), c.Int(1), "+="),
            c.If(c.Binary("<", c.Index(at_, turn), c.Index(lens, turn)), (c.Jump("break"),)),
            c.Assign(c.Index(at_, turn), c.Int(0)), c.Assign(turn, c.Int(1), "-=")))
        body += [c.Assign(turn, c.Binary("-", n_lens, c.Int(1))), odometer,
                 c.If(c.Binary("<", turn, c.Int(0)), (c.Jump("break"),))]
        out.append(c.If(go, (c.While(c.Int(1), tuple(body)),)))
        out += self.assign_each(restore, names[2], sel, lambda i: c.Index(saved[0], i))
        return 9, out + weigh.result()

    def first_of(self, node: py.expr, array: c.Expr, length: c.Expr, first: c.Expr) -> list[c.Stmt]:
        """`a or b or ...` of lists, appended: a's items, else (none added) b's, and so on."""
        parts = node.values if isinstance(node, py.BoolOp) and isinstance(node.op, py.Or) else [node]
        out: list[c.Stmt] = []
        for part in reversed(parts):
            items = self.each(part, pusher(array, length), False)
            out = items + ([c.If(c.Binary("==", length, first), tuple(out))] if out else [])
        return out

    def assign_each(self, s: py.stmt, values: str, names: tuple[c.Expr, c.Expr], value_at) -> list[c.Stmt]:
        """`for g, v in zip(sel, values): P[i][g] = v`, each v `value_at(place)`."""
        if not (isinstance(s, py.For) and isinstance(s.target, py.Tuple) and len(s.target.elts) == 2
                and all(isinstance(e, py.Name) for e in s.target.elts) and isinstance(s.iter, py.Call)
                and is_name(s.iter.func, "zip") and len(s.iter.args) == 2 and is_name(s.iter.args[1], values)
                and not s.orelse):
            raise NotLowered("a best choice of another shape")
        g, v = (self.scope.local(e.id) for e in s.target.elts)
        j = self.scope.temp()
        items, length = names
        return [self.count_loop(j, length, (c.Assign(g, c.Index(items, j)), c.Assign(v, value_at(j)),
                                            *self.body(s.body)))]

    @staticmethod
    def count_loop(j: c.Expr, n: c.Expr, body: tuple[c.Stmt, ...]) -> c.For:
        return c.For(c.Assign(j, c.Int(0)), c.Binary("<", j, n), c.Assign(j, c.Int(1), "+="), body)

    def restarted(self, stmts: list[py.stmt], weigh: _Weighing) -> list[c.Stmt]:
        """`out = list(base[0]); t = base[1]`."""
        if [_assigned(s) for s in stmts] != list(_RESULT_NAMES):
            raise NotLowered("a best choice of another shape")
        return weigh.restart()

    def keep_best(self, key_s: py.stmt, keep_s: py.stmt, names: list[str], weigh: _Weighing,
                  chosen: c.Expr | None) -> list[c.Stmt]:
        """`key = (t, rank_key(st, p)) if many else (t,)`; `if best is None or key > best[2]:
        best = (out, t, key, ...)`: the total, then the ranking when there was a choice to weigh."""
        key = key_s.value if _assigned(key_s) is not None else None
        if not (isinstance(key, py.IfExp) and is_name(key.test, names[5]) and isinstance(key.body, py.Tuple)
                and len(key.body.elts) == 2 and isinstance(key.body.elts[1], py.Call)
                and is_name(key.body.elts[1].func, "rank_key") and len(key.body.elts[1].args) == 2
                and isinstance(keep_s, py.If)):
            raise NotLowered("a best choice of another shape")
        self.want("rank_key")
        player = self.scalar(key.body.elts[1].args[1])
        width = c.Cond(weigh.many, c.Name("NKEY"), c.Int(1))
        better = c.Binary("||", c.Unary("!", weigh.found),
                          call("rf_key_greater", ST, weigh.key, weigh.best_key, width))
        kept: list[c.Stmt] = [c.Do(call("rf_copy", weigh.best, weigh.items, c.Int(weigh.n_items))),
                              c.Assign(weigh.best_total, weigh.total),
                              c.Do(call("rf_copy", weigh.best_key, weigh.key, c.Name("NKEY"))),
                              c.Assign(weigh.found, c.Int(1))]
        if chosen is not None:
            kept.append(c.Assign(weigh.chosen, chosen))
        return [c.Assign(c.Index(weigh.key, c.Int(0)), weigh.total),
                c.If(weigh.many, (c.Do(c.Call("rf_rank", (ST, player, c.Binary("+", weigh.key, c.Int(1))))),)),
                c.If(better, tuple(kept))]

    # --- each value of a sequence ----------------------------------------------------------------
    def best_value(self, stmts: list[py.stmt], at: int, k: str) -> tuple[int, list[c.Stmt]]:
        """`opts = list(SRC) or [None]; [saved = V[i]]; base = ...; best = None; many = ...;
        for g in opts: [V[i] = g] ...; [V[i] = best[3] if keep else saved]; out, t = best`."""
        names = {x: f"{x}{k}" for x in ("opts", "saved", "base", "best", "many")}
        i = at + 1
        saved_s = stmts[i] if i < len(stmts) and _assigned(stmts[i]) == names["saved"] else None
        i += saved_s is not None
        if [_assigned(s) for s in stmts[i:i + 3]] != [names["base"], names["best"], names["many"]]:
            raise NotLowered("a best value of another shape")
        loop = stmts[i + 3] if i + 3 < len(stmts) else None
        if not (isinstance(loop, py.For) and isinstance(loop.target, py.Name) and is_name(loop.iter, names["opts"])
                and not loop.orelse and len(loop.body) >= 4):
            raise NotLowered("a best value of another shape")
        i += 4
        restore = None
        if i < len(stmts) and not _is_result(stmts[i], names["best"]):
            restore, i = stmts[i], i + 1
        if i >= len(stmts) or not _is_result(stmts[i], names["best"]):
            raise NotLowered("a best value of another shape")
        source = _or_none(stmts[at].value)
        into = loop.body[0] if isinstance(loop.body[0], py.Assign) and isinstance(
            loop.body[0].targets[0], py.Subscript) else None
        if (into is None) != (saved_s is None) or (into is None) != (restore is None):
            raise NotLowered("a best value of another shape")
        slot = into.targets[0] if into is not None else None
        if slot is not None and not (is_name(slot.value, "V") and is_name(into.value, loop.target.id)):
            raise NotLowered("a best value held in something other than a variable")
        scope = self.scope
        weigh = _Weighing(self, k)
        j, n_opts = scope.temp(), scope.temp()
        if self.is_paths(source):
            options, value_at, keep_at = self.path_options(source, loop.target.id, n_opts, j)
            tried = None
        else:
            array, length = scope.buffer()
            var = scope.local(loop.target.id)
            options = [c.Assign(length, c.Int(0)), *self.each(source, pusher(array, length), False),
                       c.If(c.Binary("==", length, c.Int(0)), (c.Do(call("rf_push", ST, array, c.Unary("&", length),
                                                                             NONE)),)),
                       c.Assign(n_opts, length)]
            value_at = [c.Assign(var, c.Index(array, j))]
            keep_at = None
            tried = var
            weigh.pick = array
        out: list[c.Stmt] = [*options]
        body_from = 0
        if slot is not None:
            out += self.save_var(slot, saved_s, keep_at is not None, weigh)
            body_from = 1
        out += [*weigh.start(), c.Assign(weigh.many, c.Binary(">", n_opts, c.Int(1)))]
        body = [*value_at]
        if slot is not None:
            body += self.set_var(j, keep_at, tried, weigh)
        body += [*self.restarted(loop.body[body_from:body_from + 2], weigh),
                 *self.body(loop.body[body_from + 2:-2]),
                 *self.keep_best(loop.body[-2], loop.body[-1],
                                 [None, None, None, None, None, names["many"]], weigh, j)]
        out.append(self.count_loop(j, n_opts, tuple(body)))
        if restore is not None:
            out += self.restore_var(slot, restore, names, weigh, keep_at)
        return i + 1 - at, out + weigh.result()

    def save_var(self, slot: py.Subscript, saved_s: py.stmt, is_list: bool, weigh: _Weighing) -> list[c.Stmt]:
        """`saved = V[i]`: the variable's value (a list's items) kept to put back."""
        if not (isinstance(saved_s.value, py.Subscript) and is_name(saved_s.value.value, "V")
                and py.dump(saved_s.value.slice) == py.dump(slot.slice)):
            raise NotLowered("a best value of another shape")
        out: list[c.Stmt] = [c.Assign(weigh.var_slot, self.scalar(slot.slice))]
        if not is_list:
            weigh.saved_value = self.scope.temp()
            return out + [c.Assign(weigh.saved_value, c.Index(st_field("v"), call("rf_at", ST, weigh.var_slot,
                                                                               c.Name("NV"))))]
        weigh.saved_value = self.scope.buffer()
        items, length = weigh.saved_value
        return out + [c.Assign(length, call("rf_vlist_get", ST, weigh.var_slot, self.vlist_table(), items))]

    def set_var(self, j: c.Expr, keep_at, tried: c.Expr | None, weigh: _Weighing) -> list[c.Stmt]:
        """`V[i] = g`: the value tried stands in the variable (a list: option j's items)."""
        if keep_at is None:
            place = c.Index(st_field("v"), call("rf_at", ST, weigh.var_slot, c.Name("NV")))
            return [c.Do(call("rf_vlist_check", ST, weigh.var_slot, self.vlist_table(), c.Int(0))),
                    c.Assign(place, tried)]
        items, length = keep_at(j)
        return [c.Do(call("rf_vlist_set", ST, weigh.var_slot, self.vlist_table(), items, length))]

    def restore_var(self, slot: py.Subscript, s: py.stmt, names: dict, weigh: _Weighing, keep_at) -> list[c.Stmt]:
        """`V[i] = best[3] if keep else saved`: the best value kept (`keep`), else put back."""
        value = s.value if isinstance(s, py.Assign) and len(s.targets) == 1 else None
        if not (isinstance(value, py.IfExp) and isinstance(value.body, py.Subscript)
                and is_name(value.body.value, names["best"]) and is_const(value.body.slice, 3)
                and is_name(value.orelse, names["saved"]) and isinstance(s.targets[0], py.Subscript)
                and is_name(s.targets[0].value, "V") and py.dump(s.targets[0].slice) == py.dump(slot.slice)):
            raise NotLowered("a best value of another shape")
        keep = self.test(value.test)
        nothing = c.If(c.Unary("!", weigh.found), (c.Do(call("rf_trap", ST, c.Name("RF_TRAP_NONE"))),))
        if keep_at is None:
            place = c.Index(st_field("v"), call("rf_at", ST, weigh.var_slot, c.Name("NV")))
            kept: c.Stmt = c.Assign(place, c.Index(weigh.pick, weigh.chosen))
            return [c.If(keep, (nothing, kept), (c.Assign(place, weigh.saved_value),))]
        kept_items, kept_length = keep_at(weigh.chosen)
        saved_items, saved_length = weigh.saved_value
        table = self.vlist_table()
        return [c.If(keep, (nothing, c.Do(call("rf_vlist_set", ST, weigh.var_slot, table, kept_items, kept_length))),
                     (c.Do(call("rf_vlist_set", ST, weigh.var_slot, table, saved_items, saved_length)),))]
