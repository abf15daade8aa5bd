"""The flow as Python generators: the back end that playouts run on.

The block machine (`b0`, `b1`, ... returning where to go on) can stop at any decision, be
copied, saved and restored, because everything it needs lives in the state: the block to run
next in `st.pc`, the loop counters in `st.l`. That costs a function call per block and a list
slot per counter. A playout that is never copied needs none of it: here the same rules become
one generator, `flow_main(st)`, that runs from setup to the end and stops at each decision with
`yield` (loops are Python loops, counters are Python locals), and an action that decides inside
its effect becomes a generator `flow_act_N(st, me, *args)` of its own, run with `yield from`.

Everything else is shared with the block machine: the plain statements are compiled by the same
code into the same state, the legal actions are listed by the same functions, actions without
a decision inside run the same `act_N`. So the two back ends play the same games, which
`tests/test_flow_backend.py` checks decision by decision. What this back end cannot do is
stop and be copied: `ruleforge/flowplay.py` runs it, and replays a game on the block machine
whenever more than a playout is wanted.

A `turn together` is not compiled here (`Unsupported`): its rules play on the block machine.
"""

from __future__ import annotations

import ast as py

from .. import ast
from ..diagnostics import RulesError
from . import pytree as t
from .actions import param_bounds
from .folding import fold_constants
from .program import Env, effects_of
from .rewrites import READ_ALIASES, prologue

INLINED_STATEMENTS = 60  # statements of the actions of one decision, at most, to paste them where it is taken
BUDGET = "_n"  # loop rounds run since the last decision, bounded as the block machine bounds blocks
BUDGET_LIMIT = "_limit"  # the bound, read once as a generator starts


class Unsupported(Exception):
    """The rules use something the generator back end does not compile; they play on blocks."""


class FlowCompiler:
    """The generator back end's part of `Compiler`, run after the block machine is compiled."""

    # --- numbers both back ends give alike -----------------------------------------------------
    # The block machine numbers a `log` statement's template and a `choose` statement's resume
    # block once per place the statement is compiled (a phase called twice, twice); the
    # generators, compiled in the same order, take the same numbers back in turn, so that their
    # logs and their `st.pc` (which a view reads for the decision's prompt) are the same.
    def note_site(self, s: ast.Stmt, number: int) -> None:
        self.site_numbers.setdefault(id(s), []).append(number)

    def site_number(self, s: ast.Stmt, queues: dict[int, list[int]] | None = None) -> int:
        queue = (self.replayed_sites if queues is None else queues).get(id(s))
        if not queue:
            raise Unsupported("a statement compiled more often than the block machine did")
        return queue.pop(0)

    def log_template(self, s: ast.Stmt, parts: list) -> int:
        """The template number of a `log` statement compiled here. An action with no decision
        inside logs through its `act_N`'s numbers wherever the generators paste it in."""
        if self.replayed_sites is not None:
            return self.site_number(s, self.inlining)
        tid = len(self.log_templates)
        self.log_templates.append(parts)
        self.note_site(s, tid)
        if self.compiling_direct is not None:
            self.direct_numbers.setdefault(self.compiling_direct, {}).setdefault(id(s), []).append(tid)
        return tid

    # --- the pass --------------------------------------------------------------------------------
    def compile_generators(self) -> py.Module:
        """`flow_main` and one `flow_act_N` per action that decides inside its effect, as a
        module to run in the block program's namespace. Unsupported when the rules use what
        only the block machine does; RulesError when Python refuses the code (nested deeper
        than it allows), which the caller takes as Unsupported too."""
        self.replayed_sites = {k: list(v) for k, v in self.site_numbers.items()}
        saved = (self.out, self.cur, self.statements_compiled)
        self.statements_compiled = 0
        self.deciding_aids: set[int] = {  # actions that decide inside their effect: flow_act_N
            aid for aid, info in enumerate(self.actions) if info.decl is not None
            and self.suspends(effects_of(info.decl))}
        try:
            functions = [self.generator("flow_main", ["st"], self.flow_statements())]
            for aid, info in enumerate(self.actions):
                if info.decl is None:
                    continue
                if aid in self.deciding_aids:
                    env = Env({"me": "me", **{q.name: f"a_{q.name}" for q in info.decl.params}}, me="me")
                    env.bounds.update(param_bounds(info.decl.params))
                    body: list[py.stmt] = _budget()
                    with self.into(body):
                        self.gen_body(effects_of(info.decl), env)
                    params = ["st", "me", *(f"a_{q.name}" for q in info.decl.params)]
                    functions.append(self.generator(f"flow_act_{aid}", params, body))
        finally:
            self.out, self.cur, self.statements_compiled = saved
            self.replayed_sites = None
        return py.fix_missing_locations(py.Module(functions, []))

    def flow_statements(self) -> list[py.stmt]:
        body: list[py.stmt] = _budget()
        with self.into(body):
            if self.m.flow is not None:
                self.gen_body(self.m.flow.body, Env())
            self.emit(t.assign(t.attr("st", "over"), t.const(True)))
        return body

    def generator(self, fname: str, params: list[str], body: list[py.stmt]) -> py.FunctionDef:
        """A generator function: statement locals that live across decisions (`L[k]` in the
        block machine) become Python locals, and the state lists it reads get local aliases."""
        body = fold_constants(py.Module([_Locals().visit(s) for s in body], [])).body
        if not any(isinstance(n, (py.Yield, py.YieldFrom)) for s in body for n in py.walk(s)):
            body.append(t.if_(t.const(False), [t.expr(py.Yield(None))]))  # a generator all the same
        return t.function(fname, params, prologue(body, *READ_ALIASES) + body)

    # --- statements ------------------------------------------------------------------------------
    def gen_body(self, stmts, env: Env, new_scope: bool = True) -> None:
        env = env.child() if new_scope else env
        for s in stmts:
            if self.stmt_suspends(s):
                self.gen_suspending(s, env)
            else:
                self.compile_plain(s, env, False)

    def gen_suspending(self, s: ast.Stmt, env: Env) -> None:
        """A statement containing a decision, as structured Python around `yield`."""
        self.where = s.pos
        self.count_statement(s)
        e = self.emit
        if isinstance(s, ast.Choose):
            self.gen_choose(s, env)
        elif isinstance(s, ast.Together):
            raise Unsupported("turn together")
        elif isinstance(s, ast.EndGame):
            e(t.assign(t.attr("st", "over"), t.const(True)), s.pos)
            e(t.ret())
        elif isinstance(s, ast.CallPhase):
            inner = self.phase_env(s, env, False)
            self.gen_body(self.m.phases[s.name].body, inner)
        elif isinstance(s, ast.Turn):
            inner = self.enter_turn(s, env)
            self.gen_body(s.body, inner)
            self.end_of_turn(inner)
        elif isinstance(s, ast.If):
            chain: list[py.stmt] | None = None
            for cond, body in s.branches:
                node = t.at(t.if_(self.cx_test(cond, env), []), cond.pos)
                if chain is None:
                    e(node)
                else:
                    chain.append(node)
                with self.into(node.body):
                    self.gen_body(body, env)
                node.body = node.body or [t.pass_()]
                chain = node.orelse
            with self.into(chain):
                self.gen_body(s.otherwise, env)
        elif isinstance(s, (ast.For, ast.Repeat, ast.While, ast.RepeatUntil)):
            self.gen_loop(s, env)
        elif isinstance(s, ast.Move):
            self.gen_triggered_move(s, env)
        else:  # pragma: no cover
            raise AssertionError(f"unexpected suspending statement {s}")

    def gen_choose(self, s: ast.Choose, env: Env) -> None:
        """Set who decides among which actions, list the legal ones (the block machine's own
        listing), give them to the driver, and run the action it sends back (None: the
        decision offered nothing and was skipped)."""
        e = self.emit
        ids = tuple(self.action_ids[a] for a in s.actions)
        point = self.points.index(ids)
        e(t.assign(t.attr("st", "chooser"), t.clone(env.me)), s.pos)
        e(t.assign(t.attr("st", "options"), t.const(ids)))
        e(t.assign(t.attr("st", "pc"), t.const(self.site_number(s))))
        e(t.assign("_o", t.list_([])))
        e(t.expr(t.call(f"legal_point_{point}", "st", t.clone(env.me), "_o")))
        e(t.assign("_a", py.Yield(t.name("_o"))))
        e(t.assign(BUDGET, t.const(0)))
        args = t.starred(t.sub("_a", 1))
        direct = t.expr(t.call(t.sub("ACTF", t.sub("_a", 0)), "st", t.clone(env.me), args))
        deciding = [aid for aid in ids if aid in self.deciding_aids]
        inlined = None if deciding else self.inlined_actions(ids, env.me)
        if inlined is not None:
            run = inlined
        elif not deciding:
            run = [direct]
        else:
            nested = [t.expr(py.YieldFrom(t.call(t.sub("ACTG", t.sub("_a", 0)), "st", t.clone(env.me),
                                                 t.starred(t.sub("_a", 1))))),
                      t.if_(t.attr("st", "over"), [t.ret()])]
            run = [t.if_(t.compare(t.sub("ACTG", t.sub("_a", 0)), "is", t.const(None)), [direct], nested)]
        e(t.if_(t.compare(t.name("_a"), "is not", t.const(None)), run))

    def inlined_actions(self, ids: tuple[int, ...], me: t.Code) -> list[py.stmt] | None:
        """The effects of the actions a decision offers, pasted in where it is taken (a call
        and its arguments saved per decision), when none decides and they are small."""
        branches: list[tuple[int, list[py.stmt]]] = []
        size = 0
        for aid in ids:
            decl = self.actions[aid].decl
            body: list[py.stmt] = []
            if decl is not None:
                k = next(self.fresh)
                params = {q.name: t.name(f"a_{q.name}_{k}") for q in decl.params}
                for i, q in enumerate(decl.params):
                    body.append(t.assign(t.clone(params[q.name]), t.sub(t.sub("_a", 1), i)))
                env = Env({"me": t.clone(me), **params}, me=t.clone(me))
                env.bounds.update(param_bounds(decl.params))
                self.inlining = {k: list(v) for k, v in self.direct_numbers.get(aid, {}).items()}
                try:
                    with self.into(body):
                        for x in effects_of(decl):
                            self.compile_plain(x, env, False)
                finally:
                    self.inlining = None
            size += t.count_statements(body)
            if size > INLINED_STATEMENTS:
                return None
            branches.append((aid, body or [t.pass_()]))
        if len(branches) == 1:
            return branches[0][1]
        chain: list[py.stmt] = []
        out = chain
        for i, (aid, body) in enumerate(branches):
            if i == len(branches) - 1:
                out.extend(body)
                break
            node = t.if_(t.compare(t.sub("_a", 0), "==", t.const(aid)), body)
            out.append(node)
            out = node.orelse
        return chain

    def loop_budget(self) -> list[py.stmt]:
        """A loop round with no decision counts against the limit of work between decisions."""
        return [t.augassign(BUDGET, "+", t.const(1)),
                t.if_(t.compare(t.name(BUDGET), ">", t.name(BUDGET_LIMIT)),
                      [t.raise_(t.call(t.attr("rt", "EndlessLoop")))])]

    def gen_loop(self, s: ast.Stmt, env: Env) -> None:
        e = self.emit
        inner = env.child()
        k = next(self.fresh)
        if isinstance(s, ast.For):
            source = self.loop_source(s.source, env)
            if isinstance(s.source, ast.Range):
                source = self.bounded_rounds(source, s.pos, "decisions_per_game")
            items = t.name(f"_items{k}")
            e(t.assign(t.clone(items), t.call("list", source)), s.pos)
            var = self.local(s.var, inner, False, None)
            loop = e(t.for_(t.store(t.clone(var)), t.clone(items), self.loop_budget()))
            with self.into(loop.body):
                self.gen_body(s.body, inner)
        elif isinstance(s, ast.Repeat):
            left = t.name(f"_left{k}")
            e(t.assign(t.clone(left), self.cx(s.times, env)), s.pos)
            loop = e(py.While(t.compare(t.clone(left), ">", t.const(0)),
                              [t.augassign(t.clone(left), "-", t.const(1)), *self.loop_budget()], []))
            with self.into(loop.body):
                self.gen_body(s.body, inner)
        elif isinstance(s, ast.While):
            loop = e(py.While(self.cx_test(s.cond, env), self.loop_budget(), []), s.pos)
            with self.into(loop.body):
                self.gen_body(s.body, inner)
        else:  # RepeatUntil: the condition sees the body's locals
            loop = e(py.While(t.const(True), self.loop_budget(), []), s.pos)
            with self.into(loop.body):
                self.gen_body(s.body, inner, new_scope=False)
                e(t.at(t.if_(self.cx_test(s.cond, inner), [t.break_()]), s.cond.pos))

    def gen_triggered_move(self, s: ast.Move, env: Env) -> None:
        """A move of one component firing triggers, one of which decides (see
        `compile_triggered_move`, which refuses the other cases before this pass runs)."""
        triggers = self.triggers_for(s)
        self.trigger_stack.extend(triggers)
        try:
            e = self.emit
            k = next(self.fresh)
            c, src, dst = (t.name(f"_{x}{k}") for x in "csd")
            self.move_one(s, env, c, src, dst)
            for trigger in triggers:
                fire = e(t.if_(self.trigger_condition(trigger, src, dst), []), trigger.pos)
                inner = self.trigger_env(trigger, env, c, src, dst)
                with self.into(fire.body):
                    self.count_firing(trigger)
                    if self.trigger_suspends(trigger):
                        self.gen_body(trigger.body, inner)
                    else:
                        self.plain_block(trigger.body, inner)
                fire.body = fire.body or [t.pass_()]
        finally:
            del self.trigger_stack[-len(triggers):]


def _budget() -> list[py.stmt]:
    """A generator's first statements: no loop round run yet, and the bound on them."""
    return [t.assign(BUDGET, t.const(0)), t.assign(BUDGET_LIMIT, t.attr("LIMITS", "blocks_without_decision"))]


class _Locals(py.NodeTransformer):
    """`L[k]` (a constant k) becomes the Python local `l_k`."""

    def visit_Subscript(self, node: py.Subscript) -> py.AST:
        if isinstance(node.value, py.Name) and node.value.id == "L":
            index = node.slice
            if not (isinstance(index, py.Constant) and isinstance(index.value, int)):
                raise Unsupported("a statement local read by a computed index")
            return py.copy_location(py.Name(f"l_{index.value}", node.ctx), node)
        self.generic_visit(node)
        return node

    def visit_Name(self, node: py.Name) -> py.AST:
        if node.id == "L":
            raise Unsupported("the statement locals used as a whole")
        return node


def compile_failed(err: BaseException) -> bool:
    """Whether an error of this pass means only that the rules play on the block machine."""
    return isinstance(err, (Unsupported, RulesError, SyntaxError, RecursionError))
