"""Lowering the generated Python's statements, and the flow's decisions, to C statements."""

from __future__ import annotations

import ast as py

from ..compiler.pytree import POS
from . import ctree as c
from .choices import ChoiceLowering
from .common import ST, NotLowered, call, form, is_name, pusher, st_field
from .expressions import ExpressionLowering
from .paths import PathLowering

# `Z = st.z` and the like: read through the state
_ALIASES = {"z": "Z", "v": "V", "p": "P", "b": "B", "w": "W", "f": "F"}
_STATE_FIELDS = {"turn", "chooser", "over", "pc"}
REENTRY_DEPTH = 4  # an action's effect that takes itself is pasted in this many times, nested
_UNKEPT = {"reveal_component"}  # what a player saw of one component: no search reads it (determinize.py)


class StatementLowering(ChoiceLowering, PathLowering, ExpressionLowering):
    """Statements of a function body, in the scope being lowered."""

    def body(self, stmts: list[py.stmt]) -> tuple[c.Stmt, ...]:
        out: list[c.Stmt] = []
        at = 0
        while at < len(stmts):
            try:
                block = self.best_block(stmts, at)  # a best choice: several statements read as one
            except NotLowered as err:
                if err.where is None:
                    err.where = getattr(stmts[at], POS, None)
                raise
            if block is not None:
                used, lowered = block
                out.extend(lowered)
                at += used
                continue
            out.extend(self.stmt(stmts[at]))
            at += 1
        return tuple(out)

    def stmt(self, s: py.stmt) -> list[c.Stmt]:
        method = getattr(self, f"st_{type(s).__name__}", None)
        try:
            if method is None:
                raise NotLowered(f"the statement form {type(s).__name__}")
            return method(s)
        except NotLowered as err:
            if err.where is None:
                err.where = getattr(s, POS, None)
            raise

    def st_Pass(self, s: py.Pass) -> list[c.Stmt]:
        return []

    def st_Continue(self, s: py.Continue) -> list[c.Stmt]:
        return [c.Jump("continue")]

    def st_Break(self, s: py.Break) -> list[c.Stmt]:
        return [c.Jump("break")]

    def st_Raise(self, s: py.Raise) -> list[c.Stmt]:
        """Every error the generated code raises stops the native game: the reference engine
        replays it and raises that error at its rule."""
        return [c.Do(call("rf_trap", ST, c.Name("RF_TRAP_UNREACHABLE")))]

    def st_If(self, s: py.If) -> list[c.Stmt]:
        dispatch = self.action_dispatch(s)
        if dispatch is not None:
            return dispatch
        return [c.If(self.test(s.test), self.body(s.body), self.body(s.orelse))]

    # --- taking the action chosen ------------------------------------------------------------------
    def action_dispatch(self, s: py.If) -> list[c.Stmt] | None:
        """`if ACTG[_a[0]] is None: ACTF[_a[0]](st, me, *_a[1]) else: yield from ACTG[...](...)`:
        the chosen action's effect, as a chain over the actions this decision offers: a direct
        action's function called, an action that decides inside its effect pasted in here."""
        test = s.test
        if not (isinstance(test, py.Compare) and isinstance(test.left, py.Subscript)
                and is_name(test.left.value, "ACTG") and isinstance(test.left.slice, py.Subscript)
                and isinstance(test.left.slice.value, py.Name)):
            return None
        action = test.left.slice.value
        direct = s.body[0].value if s.body and isinstance(s.body[0], py.Expr) else None
        if not isinstance(direct, py.Call) or len(direct.args) != 3:
            raise NotLowered("a way of taking an action")
        return self.dispatch(action, direct.args[1], s.orelse[1:])

    def dispatch(self, action: py.Name, me_node: py.expr, after: list[py.stmt]) -> list[c.Stmt]:
        """The chosen action's effect, as a chain over the actions this decision offers; `after`
        follows an effect that may end the game (`if st.over: return`)."""
        me = self.scalar(me_node)
        aid_of = call("rf_act_aid", self.scalar(action))
        chain: tuple[c.Stmt, ...] = (c.Do(call("rf_trap", ST, c.Name("RF_TRAP_UNREACHABLE"))),)
        for aid in reversed(self.scope.options or range(len(self.program.actions))):
            taken = self.take_action(aid, action, me, after)
            chain = (c.If(c.Binary("==", aid_of, c.Int(aid)), tuple(taken), chain),)
        return list(chain)

    def take_action(self, aid: int, action: py.Name, me: c.Expr, after: list[py.stmt]) -> list[c.Stmt]:
        args = [call("rf_act_arg", self.scalar(action), c.Int(k)) for k in range(self.n_params(aid))]
        if aid in self.program.compiler.deciding_aids:
            return self.inline_generator(f"flow_act_{aid}", me, args) + list(self.body(after))
        function = self.direct_actions[aid]
        name = getattr(function, "__name__", "")
        if name == "_stay":
            return []
        if not name.startswith("act_"):
            raise NotLowered("an action entered on the block machine")
        return [c.Do(c.Call(self.want(name), (ST, me, *args)))]

    def n_params(self, aid: int) -> int:
        decl = self.program.actions[aid].decl
        return 0 if decl is None else len(decl.params)

    def inline_generator(self, name: str, me: c.Expr, args: list[c.Expr]) -> list[c.Stmt]:
        """A generator of the flow (an action's effect that decides) pasted in where it is
        taken, its names its own, its `return` a jump to its end."""
        f = self.defined.get(name)
        if f is None:
            raise NotLowered(f"the function {name}")
        pasted = [outer for outer, _ in self.inlining]
        if pasted.count(name) >= REENTRY_DEPTH or len(pasted) >= 8:
            if name not in pasted:
                raise NotLowered("actions nested too deeply")
            # an effect that takes itself, deeper than pasted: the game hands over to the reference engine
            return [c.Do(call("rf_trap", ST, c.Name("RF_TRAP_DEPTH")))]
        params = [a.arg for a in f.args.args]
        if params[:2] != ["st", "me"] or len(params) != 2 + len(args):
            raise NotLowered(f"the signature of {name}")
        saved = self.scope.save()
        bound: list[c.Stmt] = []
        values = [me, *args]
        places = [self.scope.slot() for _ in values]
        bound = [c.Assign(place, value) for place, value in zip(places, values)]
        self.scope.fresh({p: place for p, place in zip(params[1:], places)})
        end = f"end{next(self.counter)}"
        self.inlining.append((name, end))
        try:
            body = self.body(f.body)
        finally:
            self.inlining.pop()
            self.scope.restore(saved)
        return [*bound, *body, c.Label(end)]

    def st_While(self, s: py.While) -> list[c.Stmt]:
        if s.orelse:
            raise NotLowered("while ... else")
        return [c.While(self.test(s.test), self.body(s.body))]

    def st_For(self, s: py.For) -> list[c.Stmt]:
        if s.orelse:
            raise NotLowered("for ... else")
        pre = self.pre_index(s.iter)
        if isinstance(s.target, py.Tuple) and pre is not None:
            return self.grouped_loop(s, pre)
        if isinstance(s.target, py.Name):
            self.scope.local(s.target.id)  # before its body reads it
            self.bind_target(s.target, s.iter)
            if pre is not None or isinstance(s.iter, py.Name) and s.iter.id in self.scope.action_lists:
                self.scope.actions.add(s.target.id)
        elif isinstance(s.target, py.Tuple) and all(isinstance(e, py.Name) for e in s.target.elts):
            for e in s.target.elts:
                self.scope.local(e.id)
        return self.iterate(s.target, s.iter, self.body(s.body), persistent=True)

    def pre_index(self, node: py.expr) -> int | None:
        """k of `PRE[k][me]`, the state-free legal actions a lister goes through."""
        if isinstance(node, py.Subscript) and isinstance(node.value, py.Subscript) and is_name(node.value.value, "PRE"):
            return self.static_int(node.value.slice)
        return None

    def grouped_loop(self, s: py.For, k: int) -> list[c.Stmt]:
        """`for first, actions in PRE[k][me]`: the legal actions grouped by their first argument,
        so that a condition on it alone is tried once per group."""
        first, actions = s.target.elts
        if not (isinstance(first, py.Name) and isinstance(actions, py.Name)):
            raise NotLowered("a loop over groups of actions of another shape")
        at, firsts, starts, ids = self.grouped_table(k)
        me = call("rf_at", ST, self.scalar(s.iter.slice), c.Name("NPLAYERS"))
        g, end, start, length = (self.scope.slot() for _ in range(4))
        self.scope.lists[actions.id] = (c.Binary("+", ids, start), length)
        self.scope.action_lists.add(actions.id)
        first_place = self.scope.local(first.id)
        body = self.body(s.body)
        return [c.Assign(end, c.Index(at, c.Binary("+", me, c.Int(1)))),
                c.For(c.Assign(g, c.Index(at, me)), c.Binary("<", g, end), c.Assign(g, c.Int(1), "+="),
                      (c.Assign(first_place, c.Index(firsts, g)), c.Assign(start, c.Index(starts, g)),
                       c.Assign(length, c.Binary("-", c.Index(starts, c.Binary("+", g, c.Int(1))), start)), *body))]

    def st_Return(self, s: py.Return) -> list[c.Stmt]:
        return self.returned(s.value)

    def returned(self, value: py.expr | None) -> list[c.Stmt]:
        if value is None:
            return [c.Return()]
        return [c.Return(self.scalar(value))]

    def st_Expr(self, s: py.Expr) -> list[c.Stmt]:
        node = s.value
        if not isinstance(node, py.Call):
            raise NotLowered(f"the statement {form(s)}")
        func = node.func
        if isinstance(func, py.Attribute) and func.attr == "append":
            owner = func.value
            if isinstance(owner, py.Attribute) and is_name(owner.value, "st") and owner.attr == "log":
                return []  # the log is the reference engine's: rendered from its replay when read
            if isinstance(owner, py.Name) and owner.id in self.scope.sinks:
                return []
            if isinstance(owner, py.Name) and owner.id == "out" and self.scope.legal_out:
                return [c.Do(call("rf_legal_add", ST, self.scalar(node.args[0])))]
            if self.is_zone(owner):
                return [c.Do(call("rf_append", ST, self.zone(owner), self.scalar(node.args[0])))]
        if (isinstance(func, py.Attribute) and func.attr == "extend" and is_name(func.value, "out")
                and self.scope.legal_out and len(node.args) == 1):
            return self.each(node.args[0], lambda a: (c.Do(call("rf_legal_add", ST, a)),), False)
        if isinstance(func, py.Attribute) and func.attr == "remove" and self.is_zone(func.value):
            return [c.Do(call("rf_remove", ST, self.zone(func.value), self.scalar(node.args[0])))]
        if isinstance(func, py.Attribute) and func.attr == "pop" and self.is_zone(func.value) and not node.args:
            return [c.Do(call("rf_pop", ST, self.zone(func.value)))]
        if (isinstance(func, py.Subscript) and is_name(func.value, "ACTF") and isinstance(func.slice, py.Subscript)
                and isinstance(func.slice.value, py.Name) and len(node.args) == 3):
            return self.dispatch(func.slice.value, node.args[1], [])  # `ACTF[_a[0]](st, me, *_a[1])`
        if is_name(func, "move_list") and len(node.args) == 3:  # the components listed, moved one by one
            bottom = any(kw.arg == "bottom" for kw in node.keywords)
            if bottom and not all(isinstance(kw.value, py.Constant) for kw in node.keywords):
                raise NotLowered("a move to the bottom decided while the game runs")
            if any(kw.arg != "bottom" for kw in node.keywords):
                raise NotLowered("move_list with other keywords")
            bottom = bottom and bool(node.keywords[0].value.value)
            array, length = self.scope.buffer()
            dst, k = self.scope.temp(), self.scope.temp()
            source = node.args[1]
            fill = self.fill(source, array, length) if self.is_list(source) else \
                [c.Assign(length, c.Int(0)), *self.each(source, pusher(array, length), False)]
            move = c.Do(call("rf_move", ST, call("rf_comp", ST, c.Index(array, k)), dst, c.Int(int(bottom))))
            loop = (c.For(c.Assign(k, c.Binary("-", length, c.Int(1))), c.Binary(">=", k, c.Int(0)),
                          c.Assign(k, c.Int(1), "-="), (move,)) if bottom else
                    c.For(c.Assign(k, c.Int(0)), c.Binary("<", k, length), c.Assign(k, c.Int(1), "+="), (move,)))
            return [*fill, c.Assign(dst, call("rf_zone", ST, self.scalar(node.args[2]))), loop]
        if is_name(func, "sort_zone") and len(node.args) == 3:  # `sort c in Z by key`
            array, length = self.scope.buffer()
            zone = self.scope.temp()
            return [c.Assign(zone, call("rf_zone", ST, self.scalar(node.args[1]))),
                    *self.fill(node.args[2], array, length),
                    c.Do(call("rf_sort_zone", ST, zone, array, length))]
        if isinstance(func, py.Name):
            if func.id in _UNKEPT:
                return []
            if func.id == "reveal_zone":
                return self.reveal(node)
            if func.id in self._MOVES:
                return [c.Do(self.runtime_call(func.id, node))]
            if func.id.startswith(("legal_point_", "legal_")) and self.scope.in_flow:
                self.last_lister = func.id
                return [c.Do(c.Call(self.want(func.id), (ST, self.scalar(node.args[1]))))]
        return [c.Do(self.scalar(node))]

    # the runtime's moves: their arguments after `st`, and whether a last `bottom` may follow
    _MOVES = {"move_all": (2, True), "move_top": (3, True), "move": (2, True), "deal": (4, False),
              "shuffle": (1, False), "swap_zones": (2, False), "swap_components": (2, False)}

    def runtime_call(self, name: str, node: py.Call) -> c.Expr:
        count, may_bottom = self._MOVES[name]
        given = node.args[1:]
        bottom_node = given[count] if len(given) == count + 1 and may_bottom else None
        for kw in node.keywords:
            if kw.arg != "bottom" or not may_bottom or bottom_node is not None:
                raise NotLowered(f"{name} with {kw.arg}=")
            bottom_node = kw.value
        if len(given) not in (count, count + (bottom_node is not None and not node.keywords)):
            raise NotLowered(f"{name} with {len(given)} arguments")
        args = [self.scalar(a) for a in given[:count]]
        bottom = self.test(bottom_node) if bottom_node is not None else c.Int(0)

        def zone(index: c.Expr) -> c.Expr:
            return call("rf_zone", ST, index)

        if name == "shuffle":
            return call("rf_shuffle", ST, zone(args[0]))
        if name == "deal":
            n, src, base, players = args
            return call("rf_deal", ST, n, zone(src), base, players)
        if name == "swap_components":
            return call("rf_swap_components", ST, *args)
        if name == "swap_zones":
            return call("rf_swap_zones", ST, zone(args[0]), zone(args[1]))
        if name == "move":
            comp, dst = args
            return call("rf_move", ST, call("rf_comp", ST, comp), zone(dst), bottom)
        if name == "move_all":
            src, dst = args
            return call("rf_move_all", ST, zone(src), zone(dst), bottom)
        n, src, dst = args
        return call("rf_move_top", ST, n, zone(src), zone(dst), bottom)

    def st_AugAssign(self, s: py.AugAssign) -> list[c.Stmt]:
        op = {py.Add: "rf_add", py.Sub: "rf_sub", py.Mult: "rf_mul"}.get(type(s.op))
        if op is None:
            raise NotLowered(f"the assignment {type(s.op).__name__}=")
        target = self.place(s.target)
        return [c.Assign(target, call(op, ST, target, self.scalar(s.value)))]

    def st_Assign(self, s: py.Assign) -> list[c.Stmt]:
        if len(s.targets) != 1:  # `a = b[i] = v`: v worked out once, assigned left to right
            if not all(isinstance(t, (py.Name, py.Subscript)) for t in s.targets):
                raise NotLowered("a chained assignment")
            temp = self.scope.temp()
            return [c.Assign(temp, self.scalar(s.value)), *(c.Assign(self.place(t), temp) for t in s.targets)]
        target, value = s.targets[0], s.value
        if isinstance(target, py.Name):
            return self.assign_name(target.id, value)
        if isinstance(target, py.Tuple):
            return self.unpack(target, value)
        if isinstance(target, py.Attribute) and is_name(target.value, "st") and target.attr == "options":
            # the block machine's record of the decision's action set: what a dispatch may meet
            if isinstance(value, py.Constant) and isinstance(value.value, tuple):
                offered = value.value
            elif isinstance(value, py.Tuple) and all(isinstance(e, py.Constant) for e in value.elts):
                offered = tuple(e.value for e in value.elts)
            else:
                offered = ()
            self.scope.options = offered or None
            return []
        return [c.Assign(self.place(target), self.scalar(value))]

    def assign_name(self, name: str, value: py.expr) -> list[c.Stmt]:
        if isinstance(value, py.Attribute) and is_name(value.value, "st") and _ALIASES.get(value.attr) == name:
            return []
        if isinstance(value, py.List) and not value.elts:
            if name == "_o" and self.scope.in_flow:
                return [c.Assign(st_field("nlegal"), c.Int(0))]
            self.scope.sinks.add(name)
            # perhaps a box for a part worked out once (`box[0] if box else shared(box, x)`): not yet
            done = self.scope.local(f"{name}#done")  # no Python name holds '#': these are its own
            self.scope.kept[name] = (done, self.scope.local(f"{name}#value"))
            return [c.Assign(done, c.Int(0))]
        if name in self.scope.arrays and isinstance(value, py.BinOp) and isinstance(value.op, py.Mult):
            array, size = self.scope.arrays[name]  # `out = [0] * n`
            i = self.scope.temp()
            end = c.Int(size) if isinstance(size, int) else c.Name(size)
            return [c.For(c.Assign(i, c.Int(0)), c.Binary("<", i, end), c.Assign(i, c.Int(1), "+="),
                          (c.Assign(c.Index(array, i), c.Int(0)),))]
        lookup = self.action_lookup(value) if isinstance(value, (py.Subscript, py.Name)) else None
        if lookup is not None and lookup[2] < self.n_params(int(lookup[0][4:])):
            place = self.scope.slot()
            self.scope.rows[name] = (lookup[0], place, lookup[2])
            return [c.Assign(place, lookup[1])]
        if isinstance(value, py.Call) and is_name(value.func, "split_by") and len(value.args) == 2:
            items, attribute = value.args  # components by an attribute's value: kept whole, filtered when read
            if not isinstance(attribute, py.Name):
                raise NotLowered("a split by something other than an attribute")
            array, length = self.scope.list_local(name)
            self.scope.splits[name] = attribute
            return [c.Assign(length, c.Int(0)), *self.each(items, pusher(array, length), False)]
        if isinstance(value, py.Call) and is_name(value.func, "extent"):
            work, low, high = self.extent_of(value)
            places = (self.scope.slot(), self.scope.slot())
            self.scope.extents[name] = places
            return [*work, c.Assign(places[0], low), c.Assign(places[1], high)]
        if self.is_list(value):
            array, length = self.scope.list_local(name)
            return self.fill(value, array, length)
        if self.is_zone(value):
            self.scope.zones.add(name)
            return [c.Assign(self.scope.local(name), self.zone(value))]
        if isinstance(value, py.Yield):
            return self.decision(name, value)
        if name in self.scope.zones:
            raise NotLowered("a local that holds a zone and then something else")
        return [c.Assign(self.scope.local(name), self.scalar(value))]

    def place(self, target: py.expr) -> c.Expr:
        """Where an assignment writes."""
        if isinstance(target, py.Name):
            if target.id in self.scope.zones:
                raise NotLowered(f"arithmetic on the zone local {target.id}")
            return self.scope.local(target.id)
        if isinstance(target, py.Attribute) and is_name(target.value, "st") and target.attr in _STATE_FIELDS:
            return st_field(target.attr)
        if isinstance(target, py.Subscript):
            held = self.state_item(target.value, target.slice)
            if held is not None:
                return held
        if isinstance(target, py.Attribute) and is_name(target.value, "st") and target.attr == "turn":
            return st_field("turn")
        raise NotLowered(f"an assignment to {form(target)}")

    def unpack(self, target: py.Tuple, value: py.expr) -> list[c.Stmt]:
        names = target.elts
        # `a_x, = action[1]`: the arguments of a listed action
        if (isinstance(value, py.Subscript) and isinstance(value.value, py.Name)
                and value.value.id in self.scope.actions and isinstance(value.slice, py.Constant)
                and value.slice.value == 1 and len(names) <= self.n_args):
            action = self.scalar(value.value)
            return [c.Assign(self.place(n), call("rf_act_arg", action, c.Int(k))) for k, n in enumerate(names)]
        # `_items, _t = score_x(st, p)`
        if (isinstance(value, py.Call) and isinstance(value.func, py.Name) and value.func.id.startswith("score_")
                and len(names) == 2 and all(isinstance(n, py.Name) for n in names)):
            items, total = names
            array = self.scope.array(items.id, self.n_items)
            func = self.want(value.func.id)
            args = self.call_args(value.func.id, value)
            return [c.Assign(self.place(total), c.Call(func, (ST, *args, array)))]
        raise NotLowered(f"the unpacking {form(target)} = {form(value)}")

    def action_part(self, node: py.Subscript) -> c.Expr | None:
        """`_a[0]` (the action's id in the program) and `_a[1][k]` (its k-th argument)."""
        base, index = node.value, node.slice
        if isinstance(base, py.Name) and base.id in self.scope.actions and isinstance(index, py.Constant):
            if index.value == 0:
                return call("rf_act_aid", self.scalar(base))
        if (isinstance(base, py.Subscript) and isinstance(base.value, py.Name) and base.value.id in self.scope.actions
                and isinstance(base.slice, py.Constant) and base.slice.value == 1 and isinstance(index, py.Constant)
                and type(index.value) is int and 0 <= index.value < self.n_args):
            return call("rf_act_arg", self.scalar(base.value), c.Int(index.value))
        return None

    # --- the flow's decisions --------------------------------------------------------------------
    def decision(self, name: str, value: py.Yield) -> list[c.Stmt]:
        """`_a = (yield _o)`: with legal actions listed, stop here and give them to the caller,
        which resumes at this point with the one taken; with none, the decision is skipped (as
        the generator back end's caller skips it), at most `skips_in_a_row` in a row."""
        if not self.scope.in_flow or not is_name(value.value, "_o"):
            raise NotLowered("a decision outside the flow")
        point = next(self.resume_points)
        self.listed_at(point)
        self.scope.actions.add(name)
        skip = (c.Do(call("rf_skip", ST)), c.Assign(st_field("action"), c.Int(-1)))
        wait = (c.Assign(st_field("resume"), c.Int(point)), c.Return(st_field("nlegal")), c.Case(point))
        chosen = c.Cond(c.Binary("<", st_field("action"), c.Int(0)), c.Name("RF_NONE"), st_field("action"))
        return [c.If(c.Binary("==", st_field("nlegal"), c.Int(0)), skip, wait),
                c.Assign(self.scope.local(name), chosen)]
