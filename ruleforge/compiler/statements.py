"""Statements to blocks: which statements may stop for a decision, and the code of each."""

from __future__ import annotations

import ast as py

from .. import ast
from ..checker import sub_blocks
from ..diagnostics import Diagnostic, RulesError
from ..limits import LIMITS, describe
from ..model import ANY, INT, PLAYER, ZONE, Type, element_of, list_of
from . import pytree as t
from .expressions import product
from .program import Env, effects_of
from .scoring import keeps_choices


class StatementCompiler:
    """The statements' part of `Compiler`."""

    # --- which statements may stop for a decision ------------------------------------------------
    def suspends(self, stmts) -> bool:
        return any(self.stmt_suspends(s) for s in stmts)

    def stmt_suspends(self, s: ast.Stmt) -> bool:
        """Whether a statement may stop for a decision (so it must be split into blocks)."""
        if isinstance(s, (ast.Choose, ast.EndGame, ast.Together)):
            return True
        if isinstance(s, ast.CallPhase):
            if s.name not in self.memo:
                self.memo[s.name] = False
                self.memo[s.name] = self.suspends(self.m.phases[s.name].body)
            return self.memo[s.name]
        if isinstance(s, ast.Move):
            return any(self.trigger_suspends(trigger) for trigger in self.triggers_for(s))
        return any(self.suspends(b) for b in sub_blocks(s))

    def trigger_suspends(self, trigger: ast.TriggerDecl) -> bool:
        key = ("trigger", id(trigger))
        if key not in self.memo:
            self.memo[key] = False  # a trigger's own moves may fire it again: assume not, then look
            self.memo[key] = self.suspends(trigger.body)
        return self.memo[key]

    def triggers_for(self, s: ast.Move) -> list[ast.TriggerDecl]:
        """The triggers a move may fire, as far as the destination's zone is known statically."""
        if not self.m.triggers:
            return []
        dest = self.ck.types.get(s.dest)
        known = dest.name if dest is not None and dest.kind == "zone" else ""
        # Moving a zone's contents (or its top N), the source zone is known too.
        what = self.ck.types.get(s.what)
        source = what.name if what is not None and what.kind in ("zone", "grid") else ""
        out = []
        for trigger in self.m.triggers:
            if trigger.event == "enter" and known and known != trigger.zone:
                continue
            if trigger.event == "enter" and trigger.other and source and source != trigger.other:
                continue
            if trigger.event == "leave" and source and source != trigger.zone:
                continue
            if trigger.event == "leave" and trigger.other and known and known != trigger.other:
                continue
            out.append(trigger)
        return out

    def trigger_condition(self, trigger: ast.TriggerDecl, src: t.Code, dst: t.Code) -> t.Code:
        here, there = (dst, src) if trigger.event == "enter" else (src, dst)
        parts = [t.compare(t.sub("ZNAME", t.clone(here)), "==", t.const(trigger.zone)),
                 t.compare(t.clone(src), "!=", t.clone(dst))]
        if trigger.other:
            parts.append(t.compare(t.sub("ZNAME", t.clone(there)), "==", t.const(trigger.other)))
        return t.and_(*parts)

    def trigger_env(self, trigger: ast.TriggerDecl, env: Env, it: t.Code, src: t.Code, dst: t.Code) -> Env:
        """`it` is the moved component; `me` the owner of the zone concerned (or the mover)."""
        inner = Env({}, env.me)
        inner.bind("it", it)
        if self.m.zones[trigger.zone].per_player:
            inner.bind("me", t.sub("ZOWNER", t.clone(dst if trigger.event == "enter" else src)))
        else:
            inner.bind("me", env.me if env.me is not None else t.const(None))
        inner.me = inner.names["me"]
        return inner

    def count_firing(self, trigger: ast.TriggerDecl) -> None:
        """Inside a trigger's `if`: count the firing, only in a program compiled for statistics."""
        if self.count_triggers:
            index = next(i for i, u in enumerate(self.m.triggers) if u is trigger)
            self.emit(t.augassign(t.sub("FIRED", index), "+", t.const(1)))

    def compile_triggered_move(self, s: ast.Move, env: Env, triggers: list, persistent: bool) -> None:
        """A move that may fire triggers: one component at a time, each trigger right after it."""
        for trigger in triggers:
            if trigger in self.trigger_stack:
                raise RulesError([Diagnostic(trigger.pos, "this trigger may fire itself through its own moves",
                                             "narrow it with 'from' / 'into', or move to a zone it does not watch")],
                                 self.ck.sources)
        self.trigger_stack.extend(triggers)
        try:
            self._compile_triggered_move(s, env, triggers)
        finally:
            del self.trigger_stack[-len(triggers):]

    def _compile_triggered_move(self, s: ast.Move, env: Env, triggers: list) -> None:
        e = self.emit
        kind = self.ck.types[s.what].kind
        suspending = any(self.trigger_suspends(trigger) for trigger in triggers)
        if (kind != "comp" or s.top is not None) and suspending:
            raise RulesError([Diagnostic(s.pos, "a move of several components fired a trigger that makes a "
                                         "decision", "move the components one at a time")], self.ck.sources)
        bottom = [t.const(True)] if s.at_bottom else []
        if kind != "comp" or s.top is not None:  # several components, no decision: a plain loop
            k = next(self.fresh)
            c, src, dst = (t.name(f"_{x}{k}") for x in "csd")
            # the top N, top first; `max` so that N = 0 (or less) moves nothing, as move_top does
            if s.top is not None:
                top = t.call("max", t.const(0), self.cx(s.top, env))
                items = t.sub(t.sub(t.sub("Z", self.cx(s.what, env)), _slice(step=-1)), _slice(upper=top))
            else:
                items = t.call("list", self.cx_iter(s.what, env))
            if s.at_bottom and s.top is None:
                items = t.sub(items, _slice(step=-1))  # one at a time under the pile: the last first keeps order
            e(t.assign(dst, self.cx(s.dest, env)), s.pos)
            loop = e(t.for_(c, items, []))
            with self.into(loop.body):
                e(t.assign(src, t.sub(t.attr("st", "w"), c)))
                e(t.expr(t.call("move", "st", c, dst, *bottom)))
                self.check_capacity(s.dest, dst)
                for trigger in triggers:
                    fire = e(t.if_(self.trigger_condition(trigger, src, dst), []))
                    with self.into(fire.body):
                        self.count_firing(trigger)
                        self.plain_block(trigger.body, self.trigger_env(trigger, env, c, src, dst))
            return
        c, src, dst = (self.slot(Type("comp")), self.slot(ZONE), self.slot(ZONE)) if suspending else \
            tuple(t.name(f"_{x}{next(self.fresh)}") for x in "csd")
        self.move_one(s, env, c, src, dst)
        for trigger in triggers:
            cond = self.trigger_condition(trigger, src, dst)
            inner = self.trigger_env(trigger, env, c, src, dst)
            if not self.trigger_suspends(trigger):
                fire = e(t.if_(cond, []), trigger.pos)
                with self.into(fire.body):
                    self.count_firing(trigger)
                    self.plain_block(trigger.body, inner)
                continue
            body, after = self.new_block(), self.new_block()
            fire = e(t.if_(cond, []), trigger.pos)
            with self.into(fire.body):
                self.count_firing(trigger)
                e(t.ret(body))
            e(t.ret(after))
            end = self.compile_body(trigger.body, inner, body)
            self.start(end)
            self.emit(t.ret(after))
            self.start(after)

    def move_one(self, s: ast.Move, env: Env, c: t.Code, src: t.Code, dst: t.Code) -> None:
        """Move the one component of `s` (into `c`), from `src` to `dst`, checking the room there."""
        e = self.emit
        e(t.assign(t.clone(c), self.cx(s.what, env)), s.pos)
        e(t.assign(t.clone(dst), self.cx(s.dest, env)))
        e(t.assign(t.clone(src), t.sub(t.attr("st", "w"), t.clone(c))))
        e(t.expr(t.call("move", "st", t.clone(c), t.clone(dst), *([t.const(True)] if s.at_bottom else []))))
        self.check_capacity(s.dest, dst)

    # --- statements ---------------------------------------------------------------------------
    def compile_body(self, stmts, env: Env, block: int, new_scope: bool = True) -> int:
        """Emit stmts starting in `block`; return the block where control continues."""
        env = env.child() if new_scope else env
        suspending = self.suspends(stmts)
        self.start(block)
        for s in stmts:
            block = self.compile_stmt(s, env, suspending)
        return self.cur

    def compile_stmt(self, s: ast.Stmt, env: Env, in_suspending: bool) -> int:
        if self.stmt_suspends(s):
            self.compile_suspending(s, env)
        else:
            self.compile_plain(s, env, in_suspending)
        return self.cur

    def local(self, name: str, env: Env, persistent: bool, kind: Type | None = None) -> t.Code:
        code = self.slot(kind or ANY) if persistent else t.name(f"v_{name}_{next(self.fresh)}")
        env.bind(name, code)
        return code

    def compile_plain(self, s: ast.Stmt, env: Env, persistent: bool) -> None:
        """A statement with no decision inside: plain Python in the current block."""
        self.where = s.pos
        self.count_statement(s)
        e = self.emit
        if isinstance(s, ast.Let):
            value = self.cx(s.value, env)
            self.note_nullable(s.name, s.value, value, env, env)
            target = self.local(s.name, env, persistent, self.ck.types.get(s.value))
            e(t.assign(t.clone(target), value), s.pos)
        elif isinstance(s, ast.Assign):
            target = self.target(s.target, env)
            value = self.cx(s.value, env)
            if s.op == "*=" and t.int_value(value) is None:  # a product of unknowns is checked for size
                e(t.assign(target, product(t.clone(target), value)), s.pos)
            else:
                e(t.assign(target, value) if s.op == "=" else t.augassign(target, s.op[0], value), s.pos)
        elif isinstance(s, ast.Move) and self.triggers_for(s):
            self.compile_triggered_move(s, env, self.triggers_for(s), persistent)
        elif isinstance(s, ast.Move):
            self.compile_move(s, env)
        elif isinstance(s, ast.Deal):
            base = self.zone_base[s.zone]
            e(t.expr(t.call("deal", "st", self.cx(s.count, env), self.cx(s.source, env), base, self.n)), s.pos)
            caps = {z.capacity for z in self.zones if z.name == s.zone}
            if caps != {None}:  # each player's zone may not hold more than its size
                loop = e(t.for_("_zi", t.call("range", base, base + self.n), []))
                with self.into(loop.body):
                    self.emit_capacity_check(t.name("_zi"), caps)
        elif isinstance(s, ast.Shuffle):
            e(t.expr(t.call("shuffle", "st", self.cx(s.zone, env))), s.pos)
        elif isinstance(s, ast.Sort):
            zone = t.name(f"_sz{next(self.fresh)}")
            e(t.assign(t.clone(zone), self.cx(s.zone, env)), s.pos)
            inner = env.child()
            var = f"g_{s.var}_{next(self.fresh)}"
            inner.bind(s.var, t.name(var))
            keys = t.listcomp(self.cx(s.key, inner), [t.comp(var, t.sub("Z", t.clone(zone)), [])])
            e(t.expr(t.call("sort_zone", "st", t.clone(zone), keys)), s.pos)
        elif isinstance(s, ast.Swap):
            zones = self.ck.types[s.left].kind == "zone"
            left, right = self.cx(s.left, env), self.cx(s.right, env)
            e(t.expr(t.call("swap_zones" if zones else "swap_components", "st", left, right)), s.pos)
            if zones:  # whole contents trade places: each side must fit the other's zone
                self.check_capacity(s.left, left)
                self.check_capacity(s.right, right)
        elif isinstance(s, ast.Reveal):
            fn = "reveal_zone" if self.ck.types[s.what].kind == "zone" else "reveal_component"
            e(t.expr(t.call(fn, "st", self.cx(s.what, env), self.cx(s.to, env))), s.pos)
        elif isinstance(s, ast.If):
            self.compile_plain_if(s, env)
        elif isinstance(s, ast.For):
            inner = env.child()
            var = self.local(s.var, inner, False)
            source = self.loop_source(s.source, env)
            src_type = self.ck.types.get(s.source)
            if src_type is not None and src_type.kind in ("zone", "any"):
                source = t.call("list", source)  # the body may move components out of the zone
            if isinstance(s.source, ast.Range):
                source = self.bounded_rounds(source, s.pos)
            loop = e(t.for_(t.clone(var), source, []), s.pos)
            self.plain_block(s.body, inner, loop.body)
        elif isinstance(s, ast.Repeat):
            rounds = self.bounded_rounds(t.call("range", self.cx(s.times, env)), s.pos)
            loop = e(t.for_("_", rounds, []), s.pos)
            self.plain_block(s.body, env, loop.body)
        elif isinstance(s, ast.While):
            # bounded, so that a loop with no decision that never ends is an error, not a hang
            loop = e(t.for_("_", t.call("range", t.attr("LIMITS", "blocks_without_decision")), [],
                            [t.at(t.raise_(t.call(t.attr("rt", "EndlessLoop"))), s.pos)]), s.pos)
            loop.body.append(t.if_(t.not_(self.cx_test(s.cond, env)), [t.break_()]))
            self.plain_block(s.body, env, loop.body)
        elif isinstance(s, ast.RepeatUntil):
            loop = e(t.for_("_", t.call("range", t.attr("LIMITS", "blocks_without_decision")), [],
                            [t.at(t.raise_(t.call(t.attr("rt", "EndlessLoop"))), s.pos)]), s.pos)
            inner = env.child()
            with self.into(loop.body):
                for x in s.body:
                    self.compile_plain(x, inner, False)
                e(t.if_(self.cx_test(s.cond, inner), [t.break_()]))
        elif isinstance(s, ast.Turn):
            inner = self.enter_turn(s, env)
            for x in s.body:
                self.compile_plain(x, inner, True)
            self.end_of_turn(inner)
        elif isinstance(s, ast.ScoreStmt):
            self.compile_score(s)
        elif isinstance(s, ast.Log):
            parts, values = self.template(s.text, env)
            tid = self.log_template(s, parts)
            entry = t.tuple_([t.const("say"), t.const(tid), t.tuple_(values)])
            e(t.expr(t.call(t.attr(t.attr("st", "log"), "append"), entry)), s.pos)
        elif isinstance(s, ast.CallPhase):
            inner = self.phase_env(s, env, persistent)
            for x in self.m.phases[s.name].body:
                self.compile_plain(x, inner, persistent)
        else:  # pragma: no cover
            raise AssertionError(f"unexpected plain statement {s}")

    def phase_env(self, s: ast.CallPhase, env: Env, persistent: bool) -> Env:
        """The names a called phase's body sees: its parameters, set to the call's arguments
        (all worked out before any is set, so `swap_turn(b, a)` reads the caller's values)."""
        inner = env.child()
        params = self.m.phases[s.name].params
        values = [self.cx(a, env) for a in s.args]
        for param, value, arg in zip(params, values, s.args):
            self.note_nullable(param.name, arg, value, env, inner)
            target = self.local(param.name, inner, persistent, self.ck.types.get(arg))
            self.emit(t.assign(t.clone(target), value), s.pos)
        return inner

    def note_nullable(self, name: str, e: ast.Expr, code: t.Code, env: Env, into: Env) -> None:
        """A local given a component that may be none: its attributes are read with a guard."""
        if self.may_be_none(e, code, env):
            into.nullable.add(name)
        else:
            into.nullable.discard(name)

    def compile_plain_if(self, s: ast.If, env: Env) -> None:
        """`if ... elif ... else` with no decision inside, as one Python `if` chain."""
        body = self.out
        for cond, branch in s.branches:
            node = t.at(t.if_(self.cx_test(cond, env), []), cond.pos)
            body.append(node)
            self.plain_block(branch, env, node.body)
            body = node.orelse
        if s.otherwise:
            self.plain_block(s.otherwise, env, body)

    def compile_move(self, s: ast.Move, env: Env) -> None:
        """A move that fires no trigger; one component, the commonest effect of all, inline."""
        e = self.emit
        bottom = [t.const(True)] if s.at_bottom else []
        dest = self.cx(s.dest, env)
        if s.top is not None:
            top = self.cx(s.top, env)
            if t.int_value(top) == 1 and not s.at_bottom:  # inline: one card off a pile
                e(t.assign("_z", t.sub("Z", self.cx(s.what, env))), s.pos)
                e(t.if_(t.name("_z"), [
                    t.assign("_c", t.call(t.attr("_z", "pop"))), t.assign("_d", t.clone(dest)),
                    t.expr(t.call(t.attr(t.sub("Z", "_d"), "append"), "_c")),
                    t.assign(t.sub(t.attr("st", "f"), "_c"), t.sub(t.attr("st", "w"), "_c")),
                    t.assign(t.sub(t.attr("st", "w"), "_c"), "_d")]))
            else:
                e(t.expr(t.call("move_top", "st", top, self.cx(s.what, env), t.clone(dest), *bottom)), s.pos)
        else:
            kind = self.ck.types[s.what].kind
            what = self.cx(s.what, env)
            if kind == "zone":
                e(t.expr(t.call("move_all", "st", what, t.clone(dest), *bottom)), s.pos)
            elif kind == "list":
                e(t.expr(t.call("move_list", "st", what, t.clone(dest), *bottom)), s.pos)
            elif s.at_bottom:
                e(t.expr(t.call("move", "st", what, t.clone(dest), t.const(True))), s.pos)
            else:  # inline: moving one component is the commonest effect of all
                e(t.assign("_c", what), s.pos)
                e(t.assign("_d", t.clone(dest)))
                e(t.assign("W", t.attr("st", "w")))
                e(py.Assign([t.store(t.name("_s")), t.store(t.sub(t.attr("st", "f"), "_c"))], t.sub("W", "_c")))
                e(t.expr(t.call(t.attr(t.sub("Z", "_s"), "remove"), "_c")))
                e(t.expr(t.call(t.attr(t.sub("Z", "_d"), "append"), "_c")))
                e(t.assign(t.sub("W", "_c"), "_d"))
        self.check_capacity(s.dest, dest)

    def compile_score(self, s: ast.ScoreStmt) -> None:
        """`score S into v`: each player's items into the breakdown, their total into v."""
        first, count = self.scoring_slots(s.scoring)
        base = self.var_base[s.into]
        keep = [t.const(True)] if keeps_choices(self.m.scorings[s.scoring]) else []
        body = [
            t.assign(t.tuple_(["_items", "_t"]), t.call(f"score_{s.scoring}", "st", "_p", *keep)),
            t.augassign(t.sub("V", t.binop(t.const(base), "+", t.name("_p"))), "+", t.name("_t")),
            t.expr(t.call(t.attr("_tot", "append"), "_t")),
            t.assign("B", t.attr("st", "b")), t.assign("_o", t.binop(t.name("_p"), "*", t.name("NITEMS"))),
        ]
        body += [t.augassign(t.sub("B", t.binop(t.name("_o"), "+", t.const(first + j))), "+",
                             t.sub("_items", j)) for j in range(count)]
        self.emit(t.assign("_tot", t.list_([])), s.pos)
        self.emit(t.for_("_p", t.call("range", self.n), body))
        entry = t.tuple_([t.const("score"), t.const(list(self.m.scorings).index(s.scoring)),
                          t.call("tuple", "_tot")])
        self.emit(t.expr(t.call(t.attr(t.attr("st", "log"), "append"), entry)))

    def count_statement(self, s: ast.Stmt) -> None:
        """Phases and triggers are compiled where they are called: a chain of phases each calling
        the next twice would make code without end, so the statements compiled are counted."""
        self.statements_compiled += 1
        if self.statements_compiled > LIMITS.compiled_statements:
            raise RulesError([Diagnostic(s.pos, f"the rules compile to more than {LIMITS.compiled_statements:,} "
                                         f"statements with {self.n} players: phases or triggers are called here "
                                         f"too many times over ({describe('compiled_statements')})",
                                         "call a phase from fewer places, or make a repeated part an action")],
                             self.ck.sources)

    def plain_block(self, body, env: Env, into: list | None = None) -> None:
        """Statements with no decision inside, in a scope of their own, into `into` (else
        where the compiler stands)."""
        inner = env.child()
        with self.into(self.out if into is None else into):
            if not body:
                self.emit(t.pass_())
            for x in body:
                self.compile_plain(x, inner, False)

    def check_capacity(self, dest: ast.Expr, zone: t.Code) -> None:
        """After a move: a zone with a capacity (`size N`) may not hold more."""
        if not self.may_be_limited(dest):
            return
        kind = self.ck.types.get(dest)
        self.emit_capacity_check(zone, {z.capacity for z in self.zones if kind is not None and z.name == kind.name})

    def emit_capacity_check(self, zone: t.Code, caps: set) -> None:
        """The check itself; `caps` are the capacities the zone may have (a constant if one)."""
        def key() -> t.Code:
            return t.sub("ZKEY", t.clone(zone))

        held = t.call("len", t.sub("Z", t.clone(zone)))
        if len(caps) == 1 and None not in caps:  # a known zone: its capacity is a constant
            cap = caps.pop()
            message = t.add(t.const("zone "), key(), t.const(f" holds at most {cap}"))
            self.emit(t.if_(t.compare(held, ">", t.const(cap)), [t.raise_(t.call("RuntimeError", message))]))
        else:
            cap = t.sub("CAP", t.clone(zone))
            message = t.add(t.const("zone "), key(), t.const(" holds at most "), t.call("str", t.clone(cap)))
            test = t.and_(t.compare(cap, "is not", t.const(None)), t.compare(held, ">", t.clone(cap)))
            self.emit(t.if_(test, [t.raise_(t.call("RuntimeError", message))]))

    def may_be_limited(self, dest: ast.Expr) -> bool:
        """Whether a move's destination may have a capacity to check (unknown zones may)."""
        kind = self.ck.types.get(dest)
        name = kind.name if kind is not None and kind.kind == "zone" else ""
        limited = {z.name for z in self.zones if z.capacity is not None}
        return bool(limited) and (not name or name in limited)

    def end_of_turn(self, env: Env) -> None:
        """`end when` rules, checked as each turn is over (`me` is the player whose turn it was).

        The first rule found true starts the ending; without `then after turn of P` the game
        is finished at once, with it when P's turn is over (at once if this was P's turn).
        """
        rules = self.m.end_rules
        if not rules:
            return
        ending, finished, last = (t.sub("V", self.end_base + i) for i in range(3))
        me = env.me
        chain: list[py.stmt] = []
        body = chain
        for rule in rules:
            then = [t.assign(t.clone(ending), t.const(True))]
            if rule.last is None:
                then.append(t.assign(t.clone(finished), t.const(True)))
            else:
                then.append(t.assign(t.clone(last), self.cx(rule.last, env)))
                then.append(t.if_(t.compare(t.clone(last), "==", t.clone(me)),
                                  [t.assign(t.clone(finished), t.const(True))]))
            node = t.at(t.if_(self.cx_test(rule.cond, env), then), rule.pos)
            body.append(node)
            body = node.orelse
        last_turn = t.if_(t.and_(t.not_(t.clone(finished)), t.compare(t.clone(last), "==", t.clone(me))),
                          [t.assign(t.clone(finished), t.const(True))])
        self.emit(t.if_(t.not_(t.clone(ending)), chain, [last_turn]))

    def enter_turn(self, s: ast.Turn, env: Env) -> Env:
        """A new turn (per-turn limits restart) whose player is `me` in the body."""
        self.emit(t.augassign(t.attr("st", "turn"), "+", t.const(1)), s.pos)
        inner = env.child()
        me = self.slot(PLAYER)
        inner.me = me
        inner.bind("me", me)
        self.emit(t.assign(t.clone(me), self.cx(s.player, env)))
        return inner

    def compile_suspending(self, s: ast.Stmt, env: Env) -> None:
        """A statement containing a decision: control flow through blocks."""
        self.where = s.pos
        self.count_statement(s)
        e = self.emit
        if isinstance(s, ast.Choose):
            ids = tuple(self.action_ids[a] for a in s.actions)
            if ids not in self.points:
                self.points.append(ids)
            nxt = self.new_block()
            self.decision_pos[nxt] = s.pos
            self.note_site(s, nxt)
            if s.prompt is not None:  # plain text (checked): known without running the rules
                self.decision_prompt[nxt] = "".join(s.prompt.parts)
            e(t.assign(t.attr("st", "chooser"), t.clone(env.me)), s.pos)
            e(t.assign(t.attr("st", "options"), t.const(ids)))
            e(t.assign(t.attr("st", "pc"), t.const(nxt)))
            e(t.ret(-1))
            self.start(nxt)
        elif isinstance(s, ast.Together):
            self.compile_together(s, env)
        elif isinstance(s, ast.EndGame):
            e(t.assign(t.attr("st", "over"), t.const(True)), s.pos)
            e(t.ret(-2))
            self.start(self.new_block())
        elif isinstance(s, ast.CallPhase):
            phase = self.m.phases[s.name]
            inner = self.phase_env(s, env, True)
            nxt = self.new_block()
            e(t.ret(nxt), s.pos)
            end = self.compile_body(phase.body, inner, nxt)
            self.scoped([inner.names[p.name] for p in phase.params], nxt)
            self.start(end)
        elif isinstance(s, ast.Turn):
            inner = self.enter_turn(s, env)
            body = self.new_block()
            e(t.ret(body))
            end = self.compile_body(s.body, inner, body)
            self.scoped([inner.me], body)
            self.start(end)
            self.end_of_turn(inner)
        elif isinstance(s, ast.If):
            targets = []
            chain = self.out
            for cond, body in s.branches:
                b = self.new_block()
                targets.append((b, body))
                node = t.at(t.if_(self.cx_test(cond, env), [t.ret(b)]), cond.pos)
                chain.append(node)
                chain = node.orelse
            other = self.new_block()
            targets.append((other, s.otherwise))
            e(t.ret(other))
            after = self.new_block()
            for b, body in targets:
                end = self.compile_body(body, env, b)
                self.start(end)
                self.emit(t.ret(after))
            self.start(after)
        elif isinstance(s, (ast.For, ast.Repeat, ast.While, ast.RepeatUntil)):
            self.compile_loop(s, env)
        elif isinstance(s, ast.Move):
            self.compile_triggered_move(s, env, self.triggers_for(s), True)
        else:  # pragma: no cover
            raise AssertionError(f"unexpected suspending statement {s}")

    def compile_together(self, s: ast.Together, env: Env) -> None:
        """`turn together S: a, b`: one new turn, then the choosers' decision; the engine collects
        the choices (ruleforge/simultaneous.py) and runs them before going on at the next block."""
        for name, pos in zip(s.actions, s.action_pos):
            decl = self.m.actions.get(name)
            if decl is not None and self.suspends(effects_of(decl)):
                raise RulesError([Diagnostic(pos, f"action '{name}' decides inside its effect (a 'choose', or a "
                                             "trigger that chooses): 'turn together' runs the choices one after "
                                             "another once all are in, with no decision between them",
                                             "offer it in a 'turn' or 'choose' instead")], self.ck.sources)
        ids = tuple(self.action_ids[a] for a in s.actions)
        if ids not in self.points:
            self.points.append(ids)
        nxt = self.new_block()
        self.decision_pos[nxt] = s.pos
        self.emit(t.augassign(t.attr("st", "turn"), "+", t.const(1)), s.pos)
        self.emit(t.ret(t.call(t.attr("rt", "together"), "st", self.cx(s.players, env), t.const(ids),
                               t.const(nxt))))
        self.start(nxt)

    def compile_loop(self, s: ast.Stmt, env: Env) -> None:
        e = self.emit
        head = self.new_block()
        after = self.new_block()
        body = self.new_block()
        inner = env.child()
        if isinstance(s, ast.For):
            items, idx = self.slot(list_of(ANY)), self.slot(INT)
            source = self.loop_source(s.source, env)
            if isinstance(s.source, ast.Range):  # a round a decision: more than a game has, refused
                source = self.bounded_rounds(source, s.pos, "decisions_per_game")
            e(t.assign(t.clone(items), t.call("list", source)), s.pos)
            e(t.assign(t.clone(idx), t.const(0)))
            e(t.ret(head))
            var = self.local(s.var, inner, True, element_of(self.ck.types.get(s.source) or ANY))
            self.start(head)
            e(t.if_(t.compare(t.clone(idx), "<", t.call("len", t.clone(items))), [
                t.assign(t.clone(var), t.sub(t.clone(items), t.clone(idx))),
                t.augassign(t.clone(idx), "+", t.const(1)),
                t.ret(body)]))
            e(t.ret(after))
            stmts = s.body
        elif isinstance(s, ast.Repeat):
            left = self.slot(INT)
            e(t.assign(t.clone(left), self.cx(s.times, env)), s.pos)
            e(t.ret(head))
            self.start(head)
            e(t.if_(t.compare(t.clone(left), ">", t.const(0)), [
                t.augassign(t.clone(left), "-", t.const(1)), t.ret(body)]))
            e(t.ret(after))
            stmts = s.body
        elif isinstance(s, ast.While):
            e(t.ret(head), s.pos)
            self.start(head)
            e(t.if_(self.cx_test(s.cond, env), [t.ret(body)]))
            e(t.ret(after))
            stmts = s.body
        else:  # RepeatUntil: the condition sees the body's locals
            e(t.ret(body), s.pos)
            end = self.compile_body(s.body, inner, body, new_scope=False)
            self.start(end)
            e(t.if_(self.cx_test(s.cond, inner), [t.ret(after)]), s.cond.pos)
            e(t.ret(body))
            self.start(after)
            return
        end = self.compile_body(stmts, inner, body)
        self.scoped([items, idx] if isinstance(s, ast.For) else [left] if isinstance(s, ast.Repeat) else [],
                    head)
        self.start(end)
        e(t.ret(head))
        self.start(after)

    def bounded_rounds(self, rounds: t.Code, pos: ast.Pos, limit: str = "blocks_without_decision") -> t.Code:
        """The range a loop runs over, refused when longer than a limit allows: while compiling
        when it is written as numbers, else when the loop starts (`rt.rounds`)."""
        if t.calls(rounds, "range") and all(t.int_value(a) is not None or _plus_one(a) is not None
                                            for a in rounds.args):
            ends = [t.int_value(a) if t.int_value(a) is not None else _plus_one(a) + 1 for a in rounds.args]
            low, high = (0, ends[0]) if len(ends) == 1 else ends
            if high - low > getattr(LIMITS, limit):
                raise RulesError([Diagnostic(pos, f"this loop would run {high - low:,} rounds ({describe(limit)})")],
                                 self.ck.sources)
            return rounds
        return t.call(t.attr("rt", "rounds"), rounds, t.const(limit))

    def target(self, target: ast.Expr, env: Env) -> t.Code:
        res = self.ck.res.get(target)
        if isinstance(target, ast.Name):
            if res and res[0] == "local":
                return t.clone(env.names[target.ident])
            return t.sub("V", self.var_base[target.ident])
        if isinstance(target, ast.Call):
            return t.sub("V", t.binop(t.const(self.var_base[target.func]), "+", self.cx(target.args[0], env)))
        if isinstance(target, ast.Attr):
            return t.sub(t.sub("P", self.prop_index[target.attr]), self.cx(target.obj, env))
        raise AssertionError(target)  # pragma: no cover


def _plus_one(node: t.Code) -> int | None:
    """k, for the code `k + 1` of a literal k (a range's end, written `a..k`)."""
    if isinstance(node, py.BinOp) and isinstance(node.op, py.Add) and t.int_value(node.right) == 1:
        return t.int_value(node.left)
    return None


def _slice(lower: t.Code | None = None, upper: t.Code | None = None, step: int | None = None) -> py.Slice:
    return py.Slice(lower, upper, None if step is None else t.const(step))
