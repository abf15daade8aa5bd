"""Statements to blocks: which statements may stop for a decision, and the code of each."""

from __future__ import annotations

import re

from .. import ast
from ..checker import sub_blocks
from ..diagnostics import Diagnostic, RulesError
from ..limits import LIMITS, describe
from ..model import ANY, INT, PLAYER, ZONE, Type, element_of, list_of
from .program import Env
from .scoring import keeps_choices


class StatementCompiler:
    """The statements' part of `Compiler`."""

    # --- which statements may stop for a decision ------------------------------------------------
    def suspends(self, stmts) -> bool:
        return any(self.stmt_suspends(s) for s in stmts)

    def stmt_suspends(self, s: ast.Stmt) -> bool:
        """Whether a statement may stop for a decision (so it must be split into blocks)."""
        if isinstance(s, (ast.Choose, ast.EndGame)):
            return True
        if isinstance(s, ast.CallPhase):
            if s.name not in self.memo:
                self.memo[s.name] = False
                self.memo[s.name] = self.suspends(self.m.phases[s.name].body)
            return self.memo[s.name]
        if isinstance(s, ast.Move):
            return any(self.trigger_suspends(t) for t in self.triggers_for(s))
        return any(self.suspends(b) for b in sub_blocks(s))

    def trigger_suspends(self, t: ast.TriggerDecl) -> bool:
        key = ("trigger", id(t))
        if key not in self.memo:
            self.memo[key] = False  # a trigger's own moves may fire it again: assume not, then look
            self.memo[key] = self.suspends(t.body)
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
        for t in self.m.triggers:
            if t.event == "enter" and known and known != t.zone:
                continue
            if t.event == "enter" and t.other and source and source != t.other:
                continue
            if t.event == "leave" and source and source != t.zone:
                continue
            if t.event == "leave" and t.other and known and known != t.other:
                continue
            out.append(t)
        return out

    def trigger_condition(self, t: ast.TriggerDecl, src: str, dst: str) -> str:
        here, there = (dst, src) if t.event == "enter" else (src, dst)
        cond = f"ZNAME[{here}] == {t.zone!r} and {src} != {dst}"
        if t.other:
            cond += f" and ZNAME[{there}] == {t.other!r}"
        return cond

    def trigger_env(self, t: ast.TriggerDecl, env: Env, it: str, src: str, dst: str) -> Env:
        """`it` is the moved component; `me` the owner of the zone concerned (or the mover)."""
        inner = Env({}, env.me)
        inner.names["it"] = it
        if self.m.zones[t.zone].per_player:
            inner.names["me"] = f"ZOWNER[{dst if t.event == 'enter' else src}]"
        else:
            inner.names["me"] = env.me or "None"
        inner.me = inner.names["me"]
        return inner

    def count_firing(self, t: ast.TriggerDecl) -> None:
        """Inside a trigger's `if`: count the firing, only in a program compiled for statistics."""
        if self.count_triggers:
            index = next(i for i, u in enumerate(self.m.triggers) if u is t)
            self.emit(f"    FIRED[{index}] += 1")

    def compile_triggered_move(self, s: ast.Move, env: Env, triggers: list, persistent: bool) -> None:
        """A move that may fire triggers: one component at a time, each trigger right after it."""
        for t in triggers:
            if t in self.trigger_stack:
                raise RulesError([Diagnostic(t.pos, "this trigger may fire itself through its own moves",
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
        suspending = any(self.trigger_suspends(t) for t in triggers)
        if (kind != "comp" or s.top is not None) and suspending:
            raise RulesError([Diagnostic(s.pos, "a move of several components fired a trigger that makes a "
                                         "decision", "move the components one at a time")], self.ck.sources)
        bottom = ", True" if s.at_bottom else ""
        if kind != "comp" or s.top is not None:  # several components, no decision: a plain loop
            k = next(self.fresh)
            # the top N, top first; `max` so that N = 0 (or less) moves nothing, as move_top does
            items = (f"Z[{self.cx(s.what, env)}][::-1][:max(0, {self.cx(s.top, env)})]" if s.top is not None
                     else f"list({self.cx_iter(s.what, env)})")
            if s.at_bottom and s.top is None:
                items += "[::-1]"  # one at a time under the pile: the last first keeps the group's order
            e(f"_d{k} = {self.cx(s.dest, env)}", s.pos)
            e(f"for _c{k} in {items}:")
            self.indent += 1
            e(f"_s{k} = st.w[_c{k}]")
            e(f"move(st, _c{k}, _d{k}{bottom})")
            self.check_capacity(s.dest, f"_d{k}")
            for t in triggers:
                e(f"if {self.trigger_condition(t, f'_s{k}', f'_d{k}')}:")
                self.count_firing(t)
                self.plain_block(t.body, self.trigger_env(t, env, f"_c{k}", f"_s{k}", f"_d{k}"))
            self.indent -= 1
            return
        c, src, dst = (self.slot(Type("comp")), self.slot(ZONE), self.slot(ZONE)) if suspending else \
            tuple(f"_{x}{next(self.fresh)}" for x in "csd")
        e(f"{c} = {self.cx(s.what, env)}; {dst} = {self.cx(s.dest, env)}; {src} = st.w[{c}]", s.pos)
        e(f"move(st, {c}, {dst}{bottom})")
        self.check_capacity(s.dest, dst)
        for t in triggers:
            cond = self.trigger_condition(t, src, dst)
            inner = self.trigger_env(t, env, c, src, dst)
            if not self.trigger_suspends(t):
                e(f"if {cond}:", t.pos)
                self.count_firing(t)
                self.plain_block(t.body, inner)
                continue
            body, after = self.new_block(), self.new_block()
            e(f"if {cond}:", t.pos)
            self.count_firing(t)
            e(f"    return {body}")
            e(f"return {after}")
            end = self.compile_body(t.body, inner, body)
            self.start(end)
            self.emit(f"return {after}")
            self.start(after)

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

    def local(self, name: str, env: Env, persistent: bool, kind: Type | None = None) -> str:
        code = self.slot(kind or ANY) if persistent else f"v_{name}_{next(self.fresh)}"
        env.names[name] = code
        return code

    def compile_plain(self, s: ast.Stmt, env: Env, persistent: bool) -> None:
        """A statement with no decision inside: plain Python in the current block."""
        self.where = s.pos
        e = self.emit
        if isinstance(s, ast.Let):
            value = self.cx(s.value, env)
            target = self.local(s.name, env, persistent, self.ck.types.get(s.value))
            e(f"{target} = {value}", s.pos)
        elif isinstance(s, ast.Assign):
            e(f"{self.target(s.target, env)} {s.op} {self.cx(s.value, env)}", s.pos)
        elif isinstance(s, ast.Move) and self.triggers_for(s):
            self.compile_triggered_move(s, env, self.triggers_for(s), persistent)
        elif isinstance(s, ast.Move):
            bottom = ", True" if s.at_bottom else ""
            dest = self.cx(s.dest, env)
            if s.top is not None:
                top = self.cx(s.top, env)
                if top == "1" and not s.at_bottom:  # inline: the commonest case, one card off a pile
                    e(f"_z = Z[{self.cx(s.what, env)}]", s.pos)
                    e("if _z:")
                    e(f"    _c = _z.pop(); _d = {dest}; Z[_d].append(_c); st.f[_c] = st.w[_c]; st.w[_c] = _d")
                else:
                    e(f"move_top(st, {top}, {self.cx(s.what, env)}, {dest}{bottom})", s.pos)
            else:
                kind = self.ck.types[s.what].kind
                what = self.cx(s.what, env)
                if kind == "zone":
                    e(f"move_all(st, {what}, {dest}{bottom})", s.pos)
                elif kind == "list":
                    e(f"move_list(st, {what}, {dest}{bottom})", s.pos)
                elif s.at_bottom:
                    e(f"move(st, {what}, {dest}, True)", s.pos)
                else:  # inline: moving one component is the commonest effect of all
                    e(f"_c = {what}; _d = {dest}; W = st.w", s.pos)
                    e("_s = st.f[_c] = W[_c]; Z[_s].remove(_c); Z[_d].append(_c); W[_c] = _d")
            self.check_capacity(s.dest, dest)
        elif isinstance(s, ast.Deal):
            base = self.zone_base[s.zone]
            e(f"deal(st, {self.cx(s.count, env)}, {self.cx(s.source, env)}, {base}, {self.n})", s.pos)
            caps = {z.capacity for z in self.zones if z.name == s.zone}
            if caps != {None}:  # each player's zone may not hold more than its size
                e(f"for _zi in range({base}, {base + self.n}):")
                self.indent += 1
                self.emit_capacity_check("_zi", caps)
                self.indent -= 1
        elif isinstance(s, ast.Shuffle):
            e(f"shuffle(st, {self.cx(s.zone, env)})", s.pos)
        elif isinstance(s, ast.Swap):
            zones = self.ck.types[s.left].kind == "zone"
            left, right = self.cx(s.left, env), self.cx(s.right, env)
            e(f"{'swap_zones' if zones else 'swap_components'}(st, {left}, {right})", s.pos)
            if zones:  # whole contents trade places: each side must fit the other's zone
                self.check_capacity(s.left, left)
                self.check_capacity(s.right, right)
        elif isinstance(s, ast.Reveal):
            fn = "reveal_zone" if self.ck.types[s.what].kind == "zone" else "reveal_component"
            e(f"{fn}(st, {self.cx(s.what, env)}, {self.cx(s.to, env)})", s.pos)
        elif isinstance(s, ast.If):
            for i, (cond, body) in enumerate(s.branches):
                e(f"{'if' if i == 0 else 'elif'} {self.cx_test(cond, env)}:", cond.pos)
                self.plain_block(body, env)
            if s.otherwise:
                e("else:")
                self.plain_block(s.otherwise, env)
        elif isinstance(s, ast.For):
            inner = env.child()
            var = self.local(s.var, inner, False)
            source = self.cx_iter(s.source, env)
            src_type = self.ck.types.get(s.source)
            if src_type is not None and src_type.kind in ("zone", "any"):
                source = f"list({source})"  # the body may move components out of the zone
            if isinstance(s.source, ast.Range):
                source = self.bounded_rounds(source, s.pos)
            e(f"for {var} in {source}:", s.pos)
            self.plain_block(s.body, inner)
        elif isinstance(s, ast.Repeat):
            e(f"for _ in {self.bounded_rounds(f'range({self.cx(s.times, env)})', s.pos)}:", s.pos)
            self.plain_block(s.body, env)
        elif isinstance(s, ast.While):
            # bounded, so that a loop with no decision that never ends is an error, not a hang
            e("for _ in range(LIMITS.blocks_without_decision):", s.pos)
            e(f"    if not ({self.cx_test(s.cond, env)}):")
            e("        break")
            self.plain_block(s.body, env)
            e("else:")
            e("    raise rt.EndlessLoop()", s.pos)
        elif isinstance(s, ast.RepeatUntil):
            e("for _ in range(LIMITS.blocks_without_decision):", s.pos)
            self.indent += 1
            inner = env.child()
            for x in s.body:
                self.compile_plain(x, inner, False)
            e(f"if {self.cx_test(s.cond, inner)}:")
            e("    break")
            self.indent -= 1
            e("else:")
            e("    raise rt.EndlessLoop()", s.pos)
        elif isinstance(s, ast.Turn):
            inner = self.enter_turn(s, env)
            for x in s.body:
                self.compile_plain(x, inner, True)
            self.end_of_turn(inner)
        elif isinstance(s, ast.ScoreStmt):
            first, count = self.scoring_slots(s.scoring)
            base = self.var_base[s.into]
            e("_tot = []", s.pos)
            e(f"for _p in range({self.n}):")
            keep = ", True" if keeps_choices(self.m.scorings[s.scoring]) else ""
            e(f"    _items, _t = score_{s.scoring}(st, _p{keep})")
            e(f"    V[{base} + _p] += _t")
            e("    _tot.append(_t)")
            e("    B = st.b; _o = _p * NITEMS")
            for j in range(count):
                e(f"    B[_o + {first + j}] += _items[{j}]")
            e(f"st.log.append(('score', {list(self.m.scorings).index(s.scoring)}, tuple(_tot)))")
        elif isinstance(s, ast.Log):
            tid = len(self.log_templates)
            parts, values = self.template(s.text, env)
            self.log_templates.append(parts)
            e(f"st.log.append(('say', {tid}, ({values})))", s.pos)
        elif isinstance(s, ast.CallPhase):
            inner = env.child()
            for x in self.m.phases[s.name].body:
                self.compile_plain(x, inner, persistent)
        else:  # pragma: no cover
            raise AssertionError(f"unexpected plain statement {s}")

    def plain_block(self, body, env: Env) -> None:
        self.indent += 1
        inner = env.child()
        if not body:
            self.emit("pass")
        for x in body:
            self.compile_plain(x, inner, False)
        self.indent -= 1

    def check_capacity(self, dest: ast.Expr, code: str) -> None:
        """After a move: a zone with a capacity (`size N`) may not hold more."""
        if not self.may_be_limited(dest):
            return
        t = self.ck.types.get(dest)
        self.emit_capacity_check(code, {z.capacity for z in self.zones if t is not None and z.name == t.name})

    def emit_capacity_check(self, code: str, caps: set) -> None:
        """The check itself; `caps` are the capacities the zone may have (a constant if one)."""
        if len(caps) == 1 and None not in caps:  # a known zone: its capacity is a constant
            cap = caps.pop()
            self.emit(f"if len(Z[{code}]) > {cap}:")
            self.emit(f"    raise RuntimeError('zone ' + ZKEY[{code}] + ' holds at most {cap}')")
        else:
            self.emit(f"if CAP[{code}] is not None and len(Z[{code}]) > CAP[{code}]:")
            self.emit(f"    raise RuntimeError('zone ' + ZKEY[{code}] + ' holds at most ' + str(CAP[{code}]))")

    def may_be_limited(self, dest: ast.Expr) -> bool:
        """Whether a move's destination may have a capacity to check (unknown zones may)."""
        t = self.ck.types.get(dest)
        name = t.name if t is not None and t.kind == "zone" else ""
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
        e = self.emit
        ending, finished, last = (f"V[{self.end_base + i}]" for i in range(3))
        me = env.me
        e(f"if not {ending}:")
        for i, rule in enumerate(rules):
            e(f"    {'if' if i == 0 else 'elif'} {self.cx_test(rule.cond, env)}:", rule.pos)
            e(f"        {ending} = True")
            if rule.last is None:
                e(f"        {finished} = True")
            else:
                e(f"        {last} = {self.cx(rule.last, env)}")
                e(f"        if {last} == {me}:")
                e(f"            {finished} = True")
        e(f"elif not {finished} and {last} == {me}:")
        e(f"    {finished} = True")

    def enter_turn(self, s: ast.Turn, env: Env) -> Env:
        """A new turn (per-turn limits restart) whose player is `me` in the body."""
        self.emit("st.turn += 1", s.pos)
        inner = env.child()
        me = self.slot(PLAYER)
        inner.me = me
        inner.names["me"] = me
        self.emit(f"{me} = {self.cx(s.player, env)}")
        return inner

    def compile_suspending(self, s: ast.Stmt, env: Env) -> None:
        """A statement containing a decision: control flow through blocks."""
        self.where = s.pos
        e = self.emit
        if isinstance(s, ast.Choose):
            ids = tuple(self.action_ids[a] for a in s.actions)
            if ids not in self.points:
                self.points.append(ids)
            nxt = self.new_block()
            self.decision_pos[nxt] = s.pos
            e(f"st.chooser = {env.me}", s.pos)
            e(f"st.options = {ids!r}")
            e(f"st.pc = {nxt}")
            e("return -1")
            self.start(nxt)
        elif isinstance(s, ast.EndGame):
            e("st.over = True", s.pos)
            e("return -2")
            self.start(self.new_block())
        elif isinstance(s, ast.CallPhase):
            phase = self.m.phases[s.name]
            nxt = self.new_block()
            e(f"return {nxt}", s.pos)
            end = self.compile_body(phase.body, env, nxt)
            self.start(end)
        elif isinstance(s, ast.Turn):
            inner = self.enter_turn(s, env)
            body = self.new_block()
            e(f"return {body}")
            end = self.compile_body(s.body, inner, body)
            self.scoped([inner.me], body)
            self.start(end)
            self.end_of_turn(inner)
        elif isinstance(s, ast.If):
            targets = []
            for i, (cond, body) in enumerate(s.branches):
                b = self.new_block()
                targets.append((b, body))
                e(f"{'if' if i == 0 else 'elif'} {self.cx_test(cond, env)}:", cond.pos)
                e(f"    return {b}")
            other = self.new_block()
            targets.append((other, s.otherwise))
            e(f"return {other}")
            after = self.new_block()
            for b, body in targets:
                end = self.compile_body(body, env, b)
                self.start(end)
                self.emit(f"return {after}")
            self.start(after)
        elif isinstance(s, (ast.For, ast.Repeat, ast.While, ast.RepeatUntil)):
            self.compile_loop(s, env)
        elif isinstance(s, ast.Move):
            self.compile_triggered_move(s, env, self.triggers_for(s), True)
        else:  # pragma: no cover
            raise AssertionError(f"unexpected suspending statement {s}")

    def compile_loop(self, s: ast.Stmt, env: Env) -> None:
        e = self.emit
        head = self.new_block()
        after = self.new_block()
        body = self.new_block()
        inner = env.child()
        if isinstance(s, ast.For):
            items, idx = self.slot(list_of(ANY)), self.slot(INT)
            source = self.cx_iter(s.source, env)
            if isinstance(s.source, ast.Range):  # a round a decision: more than a game has, refused
                source = self.bounded_rounds(source, s.pos, "decisions_per_game")
            e(f"{items} = list({source})", s.pos)
            e(f"{idx} = 0")
            e(f"return {head}")
            var = self.local(s.var, inner, True, element_of(self.ck.types.get(s.source) or ANY))
            self.start(head)
            e(f"if {idx} < len({items}):")
            e(f"    {var} = {items}[{idx}]")
            e(f"    {idx} += 1")
            e(f"    return {body}")
            e(f"return {after}")
            stmts = s.body
        elif isinstance(s, ast.Repeat):
            left = self.slot(INT)
            e(f"{left} = {self.cx(s.times, env)}", s.pos)
            e(f"return {head}")
            self.start(head)
            e(f"if {left} > 0:")
            e(f"    {left} -= 1")
            e(f"    return {body}")
            e(f"return {after}")
            stmts = s.body
        elif isinstance(s, ast.While):
            e(f"return {head}", s.pos)
            self.start(head)
            e(f"if {self.cx_test(s.cond, env)}:")
            e(f"    return {body}")
            e(f"return {after}")
            stmts = s.body
        else:  # RepeatUntil: the condition sees the body's locals
            e(f"return {body}", s.pos)
            end = self.compile_body(s.body, inner, body, new_scope=False)
            self.start(end)
            e(f"if {self.cx_test(s.cond, inner)}:", s.cond.pos)
            e(f"    return {after}")
            e(f"return {body}")
            self.start(after)
            return
        end = self.compile_body(stmts, inner, body)
        self.scoped([items, idx] if isinstance(s, ast.For) else [left] if isinstance(s, ast.Repeat) else [],
                    head)
        self.start(end)
        e(f"return {head}")
        self.start(after)

    def bounded_rounds(self, rounds: str, pos: ast.Pos, limit: str = "blocks_without_decision") -> str:
        """The range a loop runs over, refused when longer than a limit allows: while compiling
        when it is written as numbers, else when the loop starts (`rt.rounds`)."""
        fixed = re.fullmatch(r"range\((-?\d+)(?:, (-?\d+) \+ 1)?\)", rounds)
        if fixed is None:
            return f"rt.rounds({rounds}, {limit!r})"
        low, high = (0, int(fixed[1])) if fixed[2] is None else (int(fixed[1]), int(fixed[2]) + 1)
        if high - low > getattr(LIMITS, limit):
            raise RulesError([Diagnostic(pos, f"this loop would run {high - low:,} rounds ({describe(limit)})")],
                             self.ck.sources)
        return rounds

    def target(self, t: ast.Expr, env: Env) -> str:
        res = self.ck.res.get(t)
        if isinstance(t, ast.Name):
            if res and res[0] == "local":
                return env.names[t.ident]
            return f"V[{self.var_base[t.ident]}]"
        if isinstance(t, ast.Call):
            return f"V[{self.var_base[t.func]} + {self.cx(t.args[0], env)}]"
        if isinstance(t, ast.Attr):
            return f"P[{self.prop_index[t.attr]}][{self.cx(t.obj, env)}]"
        raise AssertionError(t)  # pragma: no cover

