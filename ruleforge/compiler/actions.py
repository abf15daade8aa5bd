"""Actions: entry functions, legal-action listings (precomputed where they read no state),
labels and limits."""

from __future__ import annotations

import ast as pyast
import itertools
from typing import NamedTuple

from .. import ast, invariants
from ..checker import sub_blocks
from ..codegen import (
    conjuncts,
    nest_guards,
    placement,
    prologue,
    stateless,
    uses,
)
from ..diagnostics import Diagnostic, RulesError
from ..limits import LIMITS, describe
from ..model import ANY, PLAYER, Type, element_of
from .program import ActionInfo, Env


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
        effects = [s for s in d.body if not isinstance(s, ast.Require)]
        end = self.compile_body(effects, env, info.entry)
        self.scoped([me, *(env.names[p.name] for p in d.params)], info.entry)
        info.slot_end = self.n_locals  # [me_slot, slot_end): saved across a nested call of itself
        if d.name not in self.reentrant:
            info.ret_slot = self.n_locals
            self.slot(Type("resume"))
        self.start(end)
        self.emit("return pop_frame(st)" if info.ret_slot < 0 else f"return L[{info.ret_slot}]")
        if not self.suspends(effects):
            self.direct_src.append(self.compile_direct(info, effects))
        else:
            self.entries.append((self.action_ids[d.name], self.entry_head(info)))

    def entry_head(self, info: ActionInfo) -> list[str]:
        """The start of `enter_N(st, me, *args)`: where to return (a frame when the action
        may run inside itself, else one slot), `me` and the arguments into their slots, then
        on to the action's first block (which fusion pastes in)."""
        lines = []
        if info.ret_slot < 0:
            lines.append(f"    st.stack.append((st.pc, {info.me_slot}, L[{info.me_slot}:{info.slot_end}]))")
        else:
            lines.append(f"    L[{info.ret_slot}] = st.pc")
        lines.append(f"    L[{info.me_slot}] = me")
        for slot, q in zip(info.param_slots, info.decl.params):
            lines.append(f"    L[{slot}] = a_{q.name}")
        lines.append(f"    return {info.entry}")
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
                for t in self.triggers_for(s):
                    if id(t) not in visiting:
                        visiting.add(id(t))
                        out |= self.offered(t.body, visiting)
            for block in sub_blocks(s):
                out |= self.offered(block, visiting)
        return out

    def compile_direct(self, info: ActionInfo, effects: list) -> str:
        """An action with no decision inside, as one plain function: `act_N(st, me, *args)`.

        It returns where the game goes on, so applying it needs no call stack.
        """
        aid = self.action_ids[info.name]
        env = Env({"me": "me", **{q.name: f"a_{q.name}" for q in info.decl.params}}, me="me")
        params = "".join(f", a_{q.name}" for q in info.decl.params)
        saved = (self.blocks, self.cur, self.indent)
        self.blocks, self.cur, self.indent = [[]], 0, 1
        for s in effects:
            self.compile_plain(s, env, False)
        body = self.blocks[0]
        self.blocks, self.cur, self.indent = saved
        aliases = prologue(body, ("Z", "st.z"), ("V", "st.v"), ("P", "st.p"))
        return "\n".join([f"def act_{aid}(st, me{params}):", *aliases, *body, "    return st.pc"])

    def compile_legal(self, info: ActionInfo) -> str:
        aid = self.action_ids[info.name]
        lines = [f"def legal_{aid}(st, me, out):", "    Z = st.z; V = st.v; P = st.p"]
        return "\n".join(lines + self.legal_lines(info, "return"))

    def compile_point_legal(self, index: int, options: tuple[int, ...]) -> str:
        """All the legal actions of one decision point, in one function: a call per action saved.

        Each action's part runs inside a one-pass loop, so a failed requirement `break`s
        out of that action only.
        """
        lines = [f"def legal_point_{index}(st, me, out):", "    Z = st.z; V = st.v; P = st.p"]
        for aid in options:
            body = nest_guards(self.legal_lines(self.actions[aid], "break"), "break")
            if any(line.strip() == "break" for line in body):
                lines.append("    for _once in ONCE:")
                lines.extend("    " + line for line in body)
            else:
                lines.extend(body)
        return "\n".join(lines)

    def legal_lines(self, info: ActionInfo, terminal: str) -> list[str]:
        """The body of a legal-action enumeration; `terminal` leaves it when nothing is legal."""
        aid = self.action_ids[info.name]
        lines: list[str] = []
        if info.decl is None:
            return [f"    out.append(({aid}, ()))"]
        self.where = info.decl.pos
        for times, scope in info.limits:
            key = "st.turn" if scope == "turn" else "-1 - me"
            lines.append(f"    if st.used.get(({aid}, {key}), 0) >= {times}:")
            lines.append(f"        {terminal}")
        params = info.decl.params
        env = Env({"me": "me", **{q.name: f"a_{q.name}" for q in params}}, me="me")
        variables = [f"a_{q.name}" for q in params]
        conds = []
        for r in (s.cond for s in info.decl.body if isinstance(s, ast.Require)):
            self.where = r.pos
            conds += [(cond, self.tag(r.pos)) for cond in conjuncts(self.cx_test(r, env))]
        domains = [self.cx_iter(q.domain, env) for q in params]
        fixed = [c for c in conds if stateless(c[0]) and uses(pyast.parse(c[0], mode="eval"), variables)]
        if params and all(stateless(d) for d in domains):
            return lines + self.precomputed_legal(aid, variables, domains, fixed,
                                                  [c for c in conds if c not in fixed], terminal)
        # Each condition is tested in the outermost loop where all it reads is bound,
        # so a condition on the first parameter prunes before the second is enumerated.
        placed: dict[int, list[str]] = {}
        hoists = itertools.count()
        lifted_names = invariants.names(f"i{aid}_")
        for cond, tag in conds:
            if True:
                depth, hoisted, rest = placement(cond, variables)
                if hoisted is not None:
                    name = f"h{aid}_{next(hoists)}"
                    placed.setdefault(hoisted[0], []).append(f"{name} = {hoisted[1]}{tag}")
                    rest = f"{name} or {rest}"
                # costly parts reading fewer parameters: computed once where those are bound
                rest, lifted = invariants.lift_invariants(rest, variables, depth, lifted_names.__next__)
                for at, name in lifted:
                    placed.setdefault(at, []).insert(0, f"{name} = UNSET")
                placed.setdefault(depth, []).append(f"if not ({rest}):{tag}")
        domains = [self.cx_iter(q.domain, env) for q in params]
        suffix = self.invariant_suffix(params, domains, variables, placed)
        if suffix:
            # the last parameters, tested by nothing and listed from none of the ones before
            # them (a piece and its orientations, for every target cell): their combinations
            # are listed once, the first time they are reached, not once per earlier value
            k = len(params) - len(suffix) + 1
            name = next(lifted_names)
            placed.setdefault(0, []).insert(0, f"{name} = UNSET")
            combos = "[(" + "".join(f"{v}, " for v in variables[k - 1:]) + ") " + " ".join(
                f"for {v} in {domains[d - 1]}" for d, v in zip(range(k, len(params) + 1), variables[k - 1:])) + "]"
            domains = domains[:k - 1] + [invariants.lazy(name, combos)]
            params = [*params[:k - 1], Combined(params[k - 1].pos, variables[k - 1:])]
        for depth in range(2, len(params) + 1):
            q, domain = params[depth - 1], domains[depth - 1]
            at = uses(pyast.parse(domain, mode="eval"), variables)
            if at < depth - 1 and not isinstance(q, Combined) and not isinstance(q.domain, ast.Range) \
                    and invariants.costly_source(domain):
                # a source not reading the parameter just outside it: listed once, not per value
                name = next(lifted_names)
                placed.setdefault(at, []).insert(0, f"{name} = UNSET")
                domains[depth - 1] = invariants.lazy(name, domain if domain.startswith("[") else f"list({domain})")
        for depth in range(len(params) + 1):
            indent = "    " * (depth + 1)
            if depth:
                q = params[depth - 1]
                domain = domains[depth - 1]
                # a part the domain works out several times: once
                domain, boxes = invariants.share_repeated(domain, lifted_names.__next__)
                lines.extend("    " * depth + f"{box} = []" for box in boxes)
                target = ", ".join(q.names) if isinstance(q, Combined) else f"a_{q.name}"
                head = "    " * depth + f"for {target} in "
                if isinstance(q.domain, ast.Range):  # `a..b` worked out while playing: it may be huge
                    lines.append(f"{head}rt.bounded_choices({domain}):{self.tag(q.pos)}")
                else:  # zones, cells, players: bounded by the sizes of the game
                    lines.append(f"{head}{domain}:{self.tag(q.pos)}")
            for line in placed.get(depth, []):
                lines.append(indent + line)
                if line.startswith("if not"):
                    lines.append(indent + "    " + ("continue" if depth else terminal))
        args = "(" + "".join(f"{v}, " for v in variables) + ")"
        lines.append("    " * (len(params) + 1) + f"out.append(({aid}, {args}))")
        return lines

    @staticmethod
    def invariant_suffix(params: list, domains: list[str], variables: list[str], placed: dict) -> list[int]:
        """The depths of the longest run of last parameters (two or more) whose domains read
        no parameter before the run, with no requirement tested among them; [] when none."""
        best: list[int] = []
        for k in range(len(params) - 1, 0, -1):  # the run starts at depth k + 1
            depths = list(range(k + 1, len(params) + 1))
            if any(placed.get(d) for d in depths) or any(isinstance(params[d - 1].domain, ast.Range) for d in depths):
                break
            read = set()
            for d in depths:
                node = pyast.parse(domains[d - 1], mode="eval")
                read |= {i for i, v in enumerate(variables) if v in {n.id for n in pyast.walk(node)
                                                                    if isinstance(n, pyast.Name)}}
            if any(i < k for i in read) or any(isinstance(n, pyast.NamedExpr)
                                               for d in depths for n in pyast.walk(pyast.parse(domains[d - 1]))):
                continue
            if len(depths) >= 2:
                best = depths
        return best

    def too_many_choices(self, aid: int) -> RulesError:
        decl = self.actions[aid].decl
        return RulesError([Diagnostic(decl.pos, f"action '{decl.name}' has more than {LIMITS.choices:,} choices "
                                      f"of its arguments to try ({describe('choices')})",
                                      "narrow its parameters' domains")], self.ck.sources)

    def precomputed_legal(self, aid: int, variables: list[str], domains: list[str], fixed: list,
                          dynamic: list, terminal: str) -> list[str]:
        """Parameters whose domains and some conditions do not depend on the state (pairs of
        cells in one row, say) are enumerated once per player when the rules are compiled;
        only the conditions that read the state are tested while the game runs."""
        k = len(self.precomputed)
        pre = [f"def pre_{k}(me):", "    out = []", "    tried = 0"]
        depth = 1
        for var, dom in zip(variables, domains):
            pre.append("    " * depth + f"for {var} in {dom}:")
            depth += 1
            # every value tried counts, so that domains too large to list are refused, not listed
            pre.append("    " * depth + "tried += 1")
            pre.append("    " * depth + "if tried > LIMITS.choices:")
            pre.append("    " * depth + "    raise rt.TooManyChoices()")
            for cond, _tag in fixed:
                if uses(pyast.parse(cond, mode="eval"), variables) == depth - 1:
                    pre.append("    " * depth + f"if not ({cond}):")
                    pre.append("    " * depth + "    continue")
        pre.append("    " * depth + f"out.append(({aid}, (" + "".join(f"{v}, " for v in variables) + ")))")
        pre.append("    return out")
        self.precomputed.append("\n".join(pre))
        self.precomputed_aid.append(aid)
        lines = []
        for cond, tag in dynamic:  # conditions without parameters first: leave early
            if not uses(pyast.parse(cond, mode="eval"), variables):
                lines.append(f"    if not ({cond}):{tag}")
                lines.append(f"        {terminal}")
        inner = [(c, t) for c, t in dynamic if uses(pyast.parse(c, mode="eval"), variables)]
        if not inner:
            lines.append(f"    out.extend(PRE[{k}][me])")
            return lines
        first = [(c, t) for c, t in inner if uses(pyast.parse(c, mode="eval"), variables) == 1]
        if first and len(variables) > 1:
            # conditions on the first parameter alone: test them once per value, not per action
            self.grouped.add(k)
            lines.append(f"    for {variables[0]}, actions in PRE[{k}][me]:")
            for cond, tag in first:
                lines.append(f"        if not ({cond}):{tag}")
                lines.append("            continue")
            rest = [(c, t) for c, t in inner if (c, t) not in first]
            if not rest:
                lines.append("        out.extend(actions)")
                return lines
            lines.append("        for action in actions:")
            lines.append("            " + ", ".join(variables) + ", = action[1]")
            for cond, tag in rest:
                lines.append(f"            if not ({cond}):{tag}")
                lines.append("                continue")
            lines.append("            out.append(action)")
            return lines
        lines.append(f"    for action in PRE[{k}][me]:")
        lines.append("        " + ", ".join(variables) + ", = action[1]")
        for cond, tag in inner:
            lines.append(f"        if not ({cond}):{tag}")
            lines.append("            continue")
        lines.append("        out.append(action)")
        return lines

    def compile_public_label(self, info: ActionInfo) -> str:
        """What the other players see of a secret action (its own public label, or a default)."""
        aid = self.action_ids[info.name]
        d = info.decl
        lines = [f"def public_label_{aid}(st, me, args):", "    Z = st.z; V = st.v; P = st.p"]
        env = Env({"me": "me", **{q.name: f"args[{i}]" for i, q in enumerate(d.params)}}, me="me")
        text = self.cx_text(d.public_label, env) if d.public_label is not None else repr("acts in secret")
        lines.append(f"    return {text}")
        return "\n".join(lines)

    def compile_invariant(self, index: int, inv: ast.InvariantDecl) -> str:
        """An invariant's test and its message, each a function of the state and a seat."""
        self.where = inv.pos
        env = Env({inv.player: "p"} if inv.player else {})
        head = "    Z = st.z; V = st.v; P = st.p"
        return (f"def invariant_{index}(st, p):\n{head}\n    return {self.cx_test(inv.cond, env)}{self.tag(inv.pos)}\n"
                f"def invariant_text_{index}(st, p):\n{head}\n    return {self.cx_text(inv.message, env)}")

    def compile_measure(self, index: int, measure: ast.MeasureDecl) -> str:
        """A measure's value, a function of the state (read once, at the end of a game)."""
        self.where = measure.pos
        return (f"def measure_{index}(st):\n    Z = st.z; V = st.v; P = st.p\n"
                f"    return {self.cx(measure.value, Env())}{self.tag(measure.pos)}")

    def compile_visibility(self, index: int, cond: ast.Expr) -> str:
        self.where = cond.pos
        return f"def visible_{index}(st):\n    Z = st.z; V = st.v; P = st.p\n    return {self.cx(cond, Env())}"

    def compile_action_label(self, info: ActionInfo) -> str:
        aid = self.action_ids[info.name]
        lines = [f"def label_{aid}(st, me, args):", "    Z = st.z; V = st.v; P = st.p"]
        d = info.decl
        if d is None:
            lines.append("    return 'pass'")
            return "\n".join(lines)
        env = Env({"me": "me"}, me="me")
        for i, p in enumerate(d.params):
            env.names[p.name] = f"args[{i}]"
        if d.label is not None:
            lines.append(f"    return {self.cx_text(d.label, env)}")
        else:
            shown = " + ' ' + ".join(self.show(self.ck.types.get(p.domain), f"args[{i}]", elem=True)
                                      for i, p in enumerate(d.params))
            lines.append(f"    return {d.name!r}" + (f" + ' ' + {shown}" if shown else ""))
        return "\n".join(lines)

