"""Actions: entry functions, legal-action listings (precomputed where they read no state),
labels and limits."""

from __future__ import annotations

import ast as py
import itertools
import math
from typing import NamedTuple

from .. import ast
from ..checker import sub_blocks
from ..diagnostics import Diagnostic, RulesError
from ..limits import LIMITS, describe
from ..model import ANY, PLAYER, Type, element_of
from . import invariants
from . import pytree as t
from .program import ActionInfo, Env, effects_of
from .rewrites import (
    READ_ALIASES,
    conjuncts,
    nest_guards,
    placement,
    prologue,
    state_aliases,
    stateless,
    uses,
)

ACTION_TABLE_SIZE = 4096
"""The most ready-made `Action`s a program makes for one action at once (the product of its
arguments' possible values): past it, they are made as they are first listed, those that
differ in the last argument only together. (A dict with `__missing__` instead of the test
`or` makes cost a grid game's listing 17% more: a dict subclass is looked up on Python's
slow path.)"""
LAZY_TABLE_SIZE = 1 << 18
"""The most `Action`s one action may come to keep as they are listed (about 150 bytes each);
past it, the action is listed as plain pairs."""


class Combined(NamedTuple):
    """Several last parameters gone through together, as one loop over their combinations."""

    pos: object
    names: list[str]
    domain: None = None


class ActionCompiler:
    """The actions' part of `Compiler`."""

    # --- actions ----------------------------------------------------------------------------
    def compile_action(self, info: ActionInfo) -> None:
        d = info.decl
        self.where = d.pos
        env = Env()
        info.me_slot = self.n_locals
        me = self.slot(PLAYER)
        env.me = me
        env.names["me"] = me
        for p in d.params:
            info.param_slots.append(self.n_locals)
            env.names[p.name] = self.slot(element_of(self.ck.types.get(p.domain) or ANY) or ANY)
        info.entry = self.new_block()
        effects = effects_of(d)
        end = self.compile_body(effects, env, info.entry)
        self.scoped([me, *(env.names[p.name] for p in d.params)], info.entry)
        info.slot_end = self.n_locals  # [me_slot, slot_end): saved across a nested call of itself
        if d.name not in self.reentrant:
            info.ret_slot = self.n_locals
            self.slot(Type("resume"))
        self.start(end)
        self.emit(t.ret(t.call("pop_frame", "st")) if info.ret_slot < 0 else t.ret(t.sub("L", info.ret_slot)))
        if not self.suspends(effects):
            self.direct_src.append(self.compile_direct(info, effects))
        else:
            self.entries.append((self.action_ids[d.name], self.entry_head(info)))

    def entry_head(self, info: ActionInfo) -> list[py.stmt]:
        """The start of `enter_N(st, me, *args)`: where to return (a frame when the action
        may run inside itself, else one slot), `me` and the arguments into their slots, then
        on to the action's first block (which fusion pastes in)."""
        lines: list[py.stmt] = []
        if info.ret_slot < 0:
            frame = t.tuple_([t.attr("st", "pc"), t.const(info.me_slot),
                              t.sub("L", py.Slice(t.const(info.me_slot), t.const(info.slot_end), None))])
            lines.append(t.expr(t.call(t.attr(t.attr("st", "stack"), "append"), frame)))
        else:
            lines.append(t.assign(t.sub("L", info.ret_slot), t.attr("st", "pc")))
        lines.append(t.assign(t.sub("L", info.me_slot), "me"))
        for slot, q in zip(info.param_slots, info.decl.params):
            lines.append(t.assign(t.sub("L", slot), f"a_{q.name}"))
        lines.append(t.ret(info.entry))
        return lines

    def reentrant_actions(self) -> set[str]:
        """Actions that may be offered again while they run (inside their own effect, or
        inside an action offered there): only these need a frame to keep their slots."""
        offered = {name: self.offered(a.body, set()) for name, a in self.m.actions.items()}
        out = set()
        for name, first in offered.items():
            seen: set[str] = set()
            todo = list(first)
            while todo:
                x = todo.pop()
                if x not in seen and x in offered:
                    seen.add(x)
                    todo.extend(offered[x])
            if name in seen:
                out.add(name)
        return out

    def offered(self, stmts, visiting: set) -> set[str]:
        """The actions that choose statements in these statements (and in the phases they
        call and the triggers their moves fire) may offer."""
        out: set[str] = set()
        for s in stmts:
            if isinstance(s, ast.Choose):
                out.update(s.actions)
            elif isinstance(s, ast.CallPhase) and s.name not in visiting:
                visiting.add(s.name)
                out |= self.offered(self.m.phases[s.name].body, visiting)
            elif isinstance(s, ast.Move):
                for trigger in self.triggers_for(s):
                    if id(trigger) not in visiting:
                        visiting.add(id(trigger))
                        out |= self.offered(trigger.body, visiting)
            for block in sub_blocks(s):
                out |= self.offered(block, visiting)
        return out

    def compile_direct(self, info: ActionInfo, effects: list) -> py.FunctionDef:
        """An action with no decision inside, as one plain function: `act_N(st, me, *args)`.

        It returns where the game goes on, so applying it needs no call stack.
        """
        aid = self.action_ids[info.name]
        env = Env({"me": "me", **{q.name: f"a_{q.name}" for q in info.decl.params}}, me="me")
        env.bounds.update(param_bounds(info.decl.params))
        body: list[py.stmt] = []
        self.compiling_direct = aid  # see FlowCompiler.log_template
        with self.into(body):
            for s in effects:
                self.compile_plain(s, env, False)
        self.compiling_direct = None
        aliases = prologue(body, *READ_ALIASES)
        params = ["st", "me", *(f"a_{q.name}" for q in info.decl.params)]
        return t.function(f"act_{aid}", params, [*aliases, *body, t.ret(t.attr("st", "pc"))])

    def compile_legal(self, info: ActionInfo) -> py.FunctionDef:
        aid = self.action_ids[info.name]
        body = self.legal_lines(info, "return")
        return t.function(f"legal_{aid}", ["st", "me", "out"], prologue(body, *READ_ALIASES) + body)

    def compile_point_legal(self, index: int, options: tuple[int, ...]) -> py.FunctionDef:
        """All the legal actions of one decision point, in one function: a call per action saved.

        Each action's part runs inside a one-pass loop, so a failed requirement `break`s
        out of that action only.
        """
        body: list[py.stmt] = []
        for aid in options:
            part = nest_guards(self.legal_lines(self.actions[aid], "break"))
            if any(isinstance(n, py.Break) for stmt in part for n in py.walk(stmt)):
                body.append(t.for_("_once", t.name("ONCE"), part))
            else:
                body.extend(part)
        return t.function(f"legal_point_{index}", ["st", "me", "out"], prologue(body, *READ_ALIASES) + body)

    def legal_lines(self, info: ActionInfo, terminal: str) -> list[py.stmt]:
        """The body of a legal-action enumeration; `terminal` (return or break) leaves it when
        nothing is legal."""
        def leave() -> py.stmt:
            return t.ret() if terminal == "return" else t.break_()

        aid = self.action_ids[info.name]
        lines: list[py.stmt] = []
        if info.decl is None:
            return [self.offer(aid, [])]
        self.where = info.decl.pos
        for times, scope in info.limits:
            key = t.attr("st", "turn") if scope == "turn" else t.binop(t.const(-1), "-", t.name("me"))
            used = t.call(t.attr(t.attr("st", "used"), "get"), t.tuple_([t.const(aid), key]), t.const(0))
            lines.append(t.if_(t.compare(used, ">=", t.const(times)), [leave()]))
        params = info.decl.params
        env = Env({"me": "me", **{q.name: f"a_{q.name}" for q in params}}, me="me")
        env.bounds.update(param_bounds(params))
        variables = [f"a_{q.name}" for q in params]
        conds: list[tuple[t.Code, ast.Pos]] = []
        for r in (s.cond for s in info.decl.body if isinstance(s, ast.Require)):
            self.where = r.pos
            conds += [(cond, r.pos) for cond in conjuncts(self.cx_test(r, env))]
        domains = [self.loop_source(q.domain, env) for q in params]
        fixed = [c for c in conds if stateless(c[0]) and uses(c[0], variables)]
        if params and all(stateless(d) for d in domains):
            return lines + self.precomputed_legal(aid, variables, domains, fixed,
                                                  [c for c in conds if c not in fixed], terminal)
        # Each condition is tested in the outermost loop where all it reads is bound,
        # so a condition on the first parameter prunes before the second is enumerated.
        placed: dict[int, list[py.stmt]] = {}
        hoists = itertools.count()
        lifted_names = invariants.names(f"i{aid}_")
        for cond, pos in conds:
            depth, hoisted, rest = placement(cond, variables)
            if hoisted is not None:
                name = f"h{aid}_{next(hoists)}"
                placed.setdefault(hoisted[0], []).append(t.at(t.assign(name, hoisted[1]), pos))
                rest = t.or_(t.name(name), rest)
            # costly parts reading fewer parameters: computed once where those are bound
            rest, lifted = invariants.lift_invariants(rest, variables, depth, lifted_names.__next__)
            for at, name in lifted:
                placed.setdefault(at, []).insert(0, _unset(name))
            guard = t.if_(t.not_(rest), [t.continue_() if depth else leave()])
            placed.setdefault(depth, []).append(t.at(guard, pos))
        domains = [self.loop_source(q.domain, env) for q in params]
        suffix = self.invariant_suffix(params, domains, variables, placed)
        if suffix:
            # the last parameters, tested by nothing and listed from none of the ones before
            # them (a piece and its orientations, for every target cell): their combinations
            # are listed once, the first time they are reached, not once per earlier value
            k = len(params) - len(suffix) + 1
            name = next(lifted_names)
            placed.setdefault(0, []).insert(0, _unset(name))
            combos = t.listcomp(t.tuple_(variables[k - 1:]),
                                [t.comp(v, domains[d - 1]) for d, v in zip(range(k, len(params) + 1),
                                                                           variables[k - 1:])])
            domains = domains[:k - 1] + [invariants.lazy(name, combos)]
            params = [*params[:k - 1], Combined(params[k - 1].pos, variables[k - 1:])]
        for depth in range(2, len(params) + 1):
            q, domain = params[depth - 1], domains[depth - 1]
            at = uses(domain, variables)
            if at < depth - 1 and not isinstance(q, Combined) and not isinstance(q.domain, ast.Range) \
                    and invariants.costly_source(domain):
                # a source not reading the parameter just outside it: listed once, not per value
                name = next(lifted_names)
                placed.setdefault(at, []).insert(0, _unset(name))
                listed = domain if isinstance(domain, (py.ListComp, py.List)) else t.call("list", domain)
                domains[depth - 1] = invariants.lazy(name, listed)
        loop_depths = [d for d, q in enumerate(params, 1) for _ in (q.names if isinstance(q, Combined) else [q])]
        rows = self.table_rows(aid, variables, loop_depths)
        for depth, row in rows.values():
            placed.setdefault(depth, []).append(row)
        body = lines
        for depth in range(len(params) + 1):
            if depth:
                q = params[depth - 1]
                # a part the domain works out several times: once
                domain, boxes = invariants.share_repeated(domains[depth - 1], lifted_names.__next__)
                body.extend(t.assign(box, t.list_([])) for box in boxes)
                target = t.tuple_(q.names) if isinstance(q, Combined) else t.name(f"a_{q.name}")
                if isinstance(q.domain, ast.Range):  # `a..b` worked out while playing: it may be huge
                    domain = t.call(t.attr("rt", "bounded_choices"), domain)
                loop = t.at(t.for_(target, domain, []), q.pos)  # zones, cells, players: bounded by the game
                body.append(loop)
                body = loop.body
            body.extend(placed.get(depth, []))
        body.append(self.offer(aid, variables, list(rows)))
        return lines

    def table_rows(self, aid: int, variables: list[str], depths: list[int]) -> dict[int, tuple[int, py.stmt]]:
        """The parts of the lookup in `ACT_<aid>` (offer) that read only parameters of outer
        loops, each named where its last one is bound (`row3_0 = ACT_3[a_x]` once per cell, not
        once per piece there). By the last argument read: (depth, assignment). Of a table made
        as listed, only the first argument's row, which the offer makes when it lists an
        action there and finds none (`row3_0 or (row3_0 := ACT_ROW_3(a_x))`)."""
        table = self.action_table(aid)
        if table is None:
            return {}
        lazy = math.prod(len(c) for c in table) > ACTION_TABLE_SIZE
        rows: dict[int, tuple[int, py.stmt]] = {}
        for j in range(1 if lazy else len(variables) - 1):
            if j < len(variables) - 1 and depths[j] < depths[j + 1]:  # the next one varies inside
                parent = t.name(f"row{aid}_{j - 1}") if j else t.name(f"ACT_{aid}")
                rows[j] = (depths[j], t.assign(f"row{aid}_{j}", t.sub(parent, variables[j])))
            else:
                break
        return rows

    def offer(self, aid: int, variables: list[str], rows: list[int] | None = None) -> py.stmt:
        """`out.append(...)` of the legal action `(aid, (variables...))`: the program's own,
        ready-made `Action` (`ACT_<aid>`, looked up by each argument) when its arguments'
        values are few and known, which costs less than making the tuples it is made of; else
        the plain pair, which `Game.legal_actions()` makes an `Action` of (the playouts of
        search use the pair as it is)."""
        table = self.action_table(aid)
        if table is None:
            return _offer(t.tuple_([t.const(aid), t.tuple_(variables)]))
        self.action_tables[aid] = table
        lazy = math.prod(len(c) for c in table) > ACTION_TABLE_SIZE
        if lazy and variables:
            self.lazy_tables.add(aid)
        return _offer(_looked_up(aid, variables, lazy, rows or []))

    def action_table(self, aid: int) -> list[list] | None:
        """The values each argument of action `aid` may take, when they are all known when
        compiling and their combinations few (ids of components and zones, seats, flags, enum
        members, ints from a list or range of numbers written out; `none` too); else None."""
        info = self.actions[aid]
        sizes = {"comp": len(self.comp_kind), "zone": len(self.zones), "player": self.n}
        choices: list[list] = []
        for (_name, kind), q in zip(self.param_kinds(info), info.decl.params if info.decl else ()):
            if kind == "flag":
                values: list | None = [False, True]
            elif kind in sizes:
                values = list(range(sizes[kind]))
            elif kind == "enum":
                element = element_of(self.ck.types.get(q.domain) or ANY)
                decl = self.m.enums.get(element.name) if element is not None else None
                values = [member for member, _pos in decl.members] if decl is not None else None
            elif kind == "int":
                values = written_numbers(q.domain)
            else:
                values = None
            if values is None:
                return None
            choices.append([*values, None])
        if math.prod(len(c) for c in choices) > LAZY_TABLE_SIZE:
            return None
        return choices

    @staticmethod
    def invariant_suffix(params: list, domains: list[t.Code], variables: list[str], placed: dict) -> list[int]:
        """The depths of the longest run of last parameters (two or more) whose domains read
        no parameter before the run, with no requirement tested among them; [] when none."""
        best: list[int] = []
        for k in range(len(params) - 1, 0, -1):  # the run starts at depth k + 1
            depths = list(range(k + 1, len(params) + 1))
            if any(placed.get(d) for d in depths) or any(isinstance(params[d - 1].domain, ast.Range) for d in depths):
                break
            read = set()
            for d in depths:
                names = t.names_in(domains[d - 1])
                read |= {i for i, v in enumerate(variables) if v in names}
            if any(i < k for i in read) or any(isinstance(n, py.NamedExpr)
                                               for d in depths for n in py.walk(domains[d - 1])):
                continue
            if len(depths) >= 2:
                best = depths
        return best

    def too_many_choices(self, aid: int) -> RulesError:
        decl = self.actions[aid].decl
        return RulesError([Diagnostic(decl.pos, f"action '{decl.name}' has more than {LIMITS.choices:,} choices "
                                      f"of its arguments to try ({describe('choices')})",
                                      "narrow its parameters' domains")], self.ck.sources)

    def precomputed_legal(self, aid: int, variables: list[str], domains: list[t.Code], fixed: list,
                          dynamic: list, terminal: str) -> list[py.stmt]:
        """Parameters whose domains and some conditions do not depend on the state (pairs of
        cells in one row, say) are enumerated once per player when the rules are compiled;
        only the conditions that read the state are tested while the game runs."""
        def leave() -> py.stmt:
            return t.ret() if terminal == "return" else t.break_()

        k = len(self.precomputed)
        pre: list[py.stmt] = [t.assign("out", t.list_([])), t.assign("tried", t.const(0))]
        body = pre
        for depth, (var, dom) in enumerate(zip(variables, domains), 1):
            loop = t.for_(var, dom, [])
            body.append(loop)
            body = loop.body
            # every value tried counts, so that domains too large to list are refused, not listed
            body.append(t.augassign("tried", "+", t.const(1)))
            body.append(t.if_(t.compare(t.name("tried"), ">", t.attr("LIMITS", "choices")),
                              [t.raise_(t.call(t.attr("rt", "TooManyChoices")))]))
            body.extend(t.if_(t.not_(cond), [t.continue_()]) for cond, _pos in fixed if uses(cond, variables) == depth)
        body.append(self.offer(aid, variables))
        pre.append(t.ret("out"))
        self.precomputed.append(t.function(f"pre_{k}", ["me"], pre))
        self.precomputed_aid.append(aid)
        offered = t.sub(t.sub("PRE", k), "me")
        lines: list[py.stmt] = []
        for cond, pos in dynamic:  # conditions without parameters first: leave early
            if not uses(cond, variables):
                lines.append(t.at(t.if_(t.not_(cond), [leave()]), pos))
        inner = [(c, pos) for c, pos in dynamic if uses(c, variables)]
        if not inner:
            lines.append(t.expr(t.call(t.attr("out", "extend"), offered)))
            return lines

        def guards(pairs: list) -> list[py.stmt]:
            return [t.at(t.if_(t.not_(c), [t.continue_()]), pos) for c, pos in pairs]

        def each_action(source: t.Code, pairs: list) -> py.For:
            unpack = t.assign(t.tuple_(variables), t.sub("action", 1))
            return t.for_("action", source, [unpack, *guards(pairs), _offer(t.name("action"))])

        first = [(c, pos) for c, pos in inner if uses(c, variables) == 1]
        if first and len(variables) > 1:
            # conditions on the first parameter alone: test them once per value, not per action
            self.grouped.add(k)
            loop = t.for_(t.tuple_([variables[0], "actions"]), offered, guards(first))
            rest = [(c, pos) for c, pos in inner if (c, pos) not in first]
            if not rest:
                loop.body.append(t.expr(t.call(t.attr("out", "extend"), "actions")))
            else:
                loop.body.append(each_action(t.name("actions"), rest))
            lines.append(loop)
            return lines
        lines.append(each_action(offered, inner))
        return lines

    def compile_public_label(self, info: ActionInfo) -> py.FunctionDef:
        """What the other players see of a secret action (its own public label, or a default)."""
        aid = self.action_ids[info.name]
        d = info.decl
        env = Env({"me": "me", **{q.name: t.sub("args", i) for i, q in enumerate(d.params)}}, me="me")
        text = self.cx_text(d.public_label, env) if d.public_label is not None else t.const("acts in secret")
        return t.function(f"public_label_{aid}", ["st", "me", "args"], state_aliases() + [t.ret(text)])

    def compile_invariant(self, index: int, inv: ast.InvariantDecl) -> list[py.FunctionDef]:
        """An invariant's test and its message, each a function of the state and a seat."""
        self.where = inv.pos
        env = Env({inv.player: "p"} if inv.player else {})
        test = t.function(f"invariant_{index}", ["st", "p"],
                          state_aliases() + [t.at(t.ret(self.cx_test(inv.cond, env)), inv.pos)])
        text = t.function(f"invariant_text_{index}", ["st", "p"],
                          state_aliases() + [t.ret(self.cx_text(inv.message, env))])
        return [test, text]

    def compile_measure(self, index: int, measure: ast.MeasureDecl) -> py.FunctionDef:
        """A measure's value, a function of the state (read once, at the end of a game)."""
        self.where = measure.pos
        return t.function(f"measure_{index}", ["st"],
                          state_aliases() + [t.at(t.ret(self.cx(measure.value, Env())), measure.pos)])

    def compile_visibility(self, index: int, cond: ast.Expr) -> py.FunctionDef:
        self.where = cond.pos
        return t.function(f"visible_{index}", ["st"], state_aliases() + [t.ret(self.cx(cond, Env()))])

    def compile_action_label(self, info: ActionInfo) -> py.FunctionDef:
        aid = self.action_ids[info.name]
        d = info.decl
        if d is None:
            text = t.const("pass")
        else:
            env = Env({"me": "me", **{p.name: t.sub("args", i) for i, p in enumerate(d.params)}}, me="me")
            if d.label is not None:
                text = self.cx_text(d.label, env)
            else:
                shown = [part for i, p in enumerate(d.params) for part in
                         (t.const(" "), self.show(self.ck.types.get(p.domain), t.sub("args", i), elem=True))]
                text = t.add(t.const(d.name), *shown)
        return t.function(f"label_{aid}", ["st", "me", "args"], state_aliases() + [t.ret(text)])


def param_bounds(params) -> dict[str, tuple[int, int]]:
    """The least and greatest value of each parameter whose domain is written as numbers: an
    action is applied only with arguments from its domain (apply takes legal actions only)."""
    out = {}
    for q in params:
        values = written_numbers(q.domain)
        if values:
            out[q.name] = (min(values), max(values))
    return out


def written_numbers(domain: ast.Expr) -> list[int] | None:
    """The ints of a domain written out as numbers (`[1, 2]`, `1..4`), else None."""
    if isinstance(domain, ast.ListLit) and all(isinstance(i, ast.IntLit) for i in domain.items):
        return [i.value for i in domain.items]
    if isinstance(domain, ast.Range) and isinstance(domain.low, ast.IntLit) and isinstance(domain.high, ast.IntLit) \
            and domain.high.value - domain.low.value < ACTION_TABLE_SIZE:
        return list(range(domain.low.value, domain.high.value + 1))
    return None


def _looked_up(aid: int, variables: list[str], lazy: bool, rows: list[int]) -> t.Code:
    """`ACT_<aid>` looked up by the arguments, from the last row named before (`row<aid>_<j>`,
    by the arguments up to j: table_rows). A lazy table makes what it lacks as listed,
    `((ACT_5[x] or ACT_ROW_5(x))[t] or ACT_ROW_5(x, t))[f]`: the last argument's `Action`s
    are made together; of it only the first argument's row is named, and made the first time
    an action is listed there (`row5_0 or (row5_0 := ACT_ROW_5(x))`)."""
    if not rows:
        found: t.Code = t.name(f"ACT_{aid}")
    elif lazy:
        row = f"row{aid}_0"
        found = t.or_(t.name(row), t.named(row, t.call(f"ACT_ROW_{aid}", variables[0])))
    else:
        found = t.name(f"row{aid}_{rows[-1]}")
    for depth in range(rows[-1] + 1 if rows else 0, len(variables)):
        found = t.sub(found, variables[depth])
        if lazy and depth < max(1, len(variables) - 1):
            found = t.or_(found, t.call(f"ACT_ROW_{aid}", *variables[:depth + 1]))
    return found


def _offer(action: t.Code) -> py.stmt:
    """`out.append(action)`: a legal action found."""
    return t.expr(t.call(t.attr("out", "append"), action))


def _unset(name: str) -> py.stmt:
    """`name = UNSET`: a lifted part to work out again where its parameters change."""
    return t.assign(name, t.name("UNSET"))
