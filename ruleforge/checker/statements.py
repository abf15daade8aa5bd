"""Checking statements: blocks, assignments, moves, turns and the rest."""

from __future__ import annotations

from .. import ast
from ..limits import LIMITS, describe
from ..model import (
    ANY,
    FLAG,
    INT,
    PLAYER,
    ZONE,
    Type,
    compatible,
    list_of,
)
from .names import CONSTANTS, DECLARATION_WORDS, Scope


class StatementChecks:
    """The statements' part of `Checker`."""

    # --- statements --------------------------------------------------------------------
    def check_block(self, body: tuple, scope: Scope) -> None:
        inner = scope.child()
        for s in self.statements(body):
            self.stmt(s, inner)

    def statements(self, body: tuple) -> list[ast.Stmt]:
        """The statements of a block to check, with a run of bare words on one line that starts
        with an unknown one (`sort pool by n`: the grammar reads four phase calls) folded into
        its first word, reported once for the whole run."""
        out: list[ast.Stmt] = []
        phases = self.model.phases
        i = 0
        while i < len(body):
            s = body[i]
            out.append(s)
            i += 1
            if _bare_word(s) and s.name not in phases and s.name not in self.declared_twice:
                run = [s]
                while i < len(body) and _bare_word(body[i]) and body[i].pos.line == s.pos.line \
                        and body[i].name not in phases:
                    run.append(body[i])
                    i += 1
                if len(run) > 1:
                    self._word_runs[id(s)] = run
        return out

    def stmt(self, s: ast.Stmt, scope: Scope) -> None:
        m = self.model
        self._statements_checked += 1
        if isinstance(s, ast.Let):
            t = self.expr(s.value, scope)
            scope.locals[s.name] = t
        elif isinstance(s, ast.Assign):
            self.assign(s, scope)
        elif isinstance(s, ast.Move):
            if s.top is not None:
                self.expect(s.top, scope, INT, "a number of components")
                self.expect(s.what, scope, ZONE, "the zone to move from")
            else:
                t = self.expr(s.what, scope)
                if t.kind not in ("comp", "zone", "list", "any"):
                    self.error(s.what.pos, f"can only move a component, a zone's contents or a list, not {t}")
            self.expect(s.dest, scope, ZONE, "the destination")
        elif isinstance(s, ast.Deal):
            self.expect(s.count, scope, INT, "a number of components to deal")
            self.expect(s.source, scope, ZONE, "the zone to deal from")
            z = m.zones.get(s.zone)
            if z is None:
                self.error(s.pos, f"unknown zone '{s.zone}'", self.suggest(s.zone, m.zones))
            elif not z.per_player:
                self.error(s.pos, f"'deal' needs a per-player zone; '{s.zone}' is shared")
        elif isinstance(s, ast.Shuffle):
            self.expect(s.zone, scope, ZONE, "the zone to shuffle")
        elif isinstance(s, ast.Sort):
            zone = self.expect(s.zone, scope, ZONE, "the zone to sort")
            inner = scope.child(pure=True)
            inner.locals[s.var] = Type("comp") if zone.kind == "zone" else ANY
            self.expect(s.key, inner, INT, "a sort key")
        elif isinstance(s, ast.Swap):
            a = self.expr(s.left, scope)
            b = self.expr(s.right, scope)
            if not ((a.kind in ("zone", "any") and b.kind in ("zone", "any"))
                    or (a.kind in ("comp", "any") and b.kind in ("comp", "any"))):
                self.error(s.pos, f"'swap' exchanges two zones' contents or two components, not {a} and {b}")
        elif isinstance(s, ast.Reveal):
            t = self.expr(s.what, scope)
            if t.kind not in ("zone", "comp", "any"):
                self.error(s.what.pos, f"can only reveal a zone or a component, not {t}")
            self.expect(s.to, scope, PLAYER, "the player who sees it")
        elif isinstance(s, ast.If):
            for cond, body in s.branches:
                self.expect(cond, scope, FLAG, "a condition")
                self.check_block(body, scope)
            self.check_block(s.otherwise, scope)
        elif isinstance(s, ast.For):
            inner = scope.child()
            inner.locals[s.var] = self.loop_element(s.source, scope)
            self.check_block(s.body, inner)
        elif isinstance(s, ast.Repeat):
            self.expect(s.times, scope, INT, "a number of times")
            self.check_block(s.body, scope)
        elif isinstance(s, ast.RepeatUntil):
            inner = scope.child()
            for x in self.statements(s.body):
                self.stmt(x, inner)
            self.expect(s.cond, inner, FLAG, "a condition")
        elif isinstance(s, ast.While):
            self.expect(s.cond, scope, FLAG, "a condition")
            self.check_block(s.body, scope)
        elif isinstance(s, ast.Turn):
            self.expect(s.player, scope, PLAYER, "whose turn it is")
            inner = scope.child(has_me=True, in_turn=True)
            inner.locals["me"] = PLAYER
            self.check_block(s.body, inner)
        elif isinstance(s, ast.Together):
            if scope.has_me:
                self.error(s.pos, "'turn together' cannot stand inside a turn, an action or a trigger",
                           "write it in the flow or in a phase the flow calls")
            self.expect(s.players, scope, list_of(PLAYER), "the players who choose together")
            for name, pos in zip(s.actions, s.action_pos):
                if name != "pass" and name not in m.actions:
                    self.error(pos, f"unknown action '{name}'", self.suggest(name, list(m.actions) + ["pass"]))
        elif isinstance(s, ast.Choose):
            if not scope.has_me:
                self.error(s.pos, "'choose' needs a player", "use it inside a 'turn' or an action")
            for name, pos in zip(s.actions, s.action_pos):
                if name != "pass" and name not in m.actions and name not in self.declared_twice:
                    self.error(pos, f"unknown action '{name}'", self.suggest(name, list(m.actions) + ["pass"]))
            if s.prompt is not None:
                self.check_prompt(s.prompt)
        elif isinstance(s, ast.ScoreStmt):
            if s.scoring not in m.scorings:
                self.error(s.pos, f"unknown scoring '{s.scoring}'", self.suggest(s.scoring, m.scorings))
            v = m.vars.get(s.into)
            if v is None or not v.per_player or self.resolve_type(v.type) != INT:
                self.error(s.pos, f"'score ... into' needs a per-player int var; '{s.into}' is not one",
                           self.suggest(s.into, lambda: [n for n, d in m.vars.items() if d.per_player and n != s.into]))
            elif s.into not in m.score_targets:
                m.score_targets.append(s.into)
        elif isinstance(s, ast.Log):
            self.check_string(s.text, scope)
        elif isinstance(s, ast.Require):
            self.error(s.pos, "'require' belongs at the top of an action")
        elif isinstance(s, ast.EndGame):
            pass
        elif isinstance(s, ast.CallPhase):
            if s.name not in m.phases:
                for a in s.args:
                    self.expr(a, scope)
                if s.name in self.declared_twice:
                    return
                run = self._word_runs.get(id(s))
                if run is not None:
                    self.unknown_words(run)
                    return
                hint = self.suggest(s.name, m.phases)
                if s.name in DECLARATION_WORDS:
                    hint = f"'{s.name}' starts a declaration: declarations belong at the top level, not in a block"
                if s.name in m.actions:
                    hint = f"'{s.name}' is an action: offer it with 'turn p: {s.name}' or 'choose: {s.name}'"
                if s.name in m.defs:
                    hint = f"'{s.name}' is a def, a value: use it in an expression ('let x = {s.name}...')"
                self.error(s.pos, f"unknown phase '{s.name}'", hint)
                return
            phase = m.phases[s.name]
            if len(s.args) != len(phase.params):
                wanted = ", ".join(f"{p.name}: {self.resolve_type(p.type)}" for p in phase.params)
                self.error(s.pos, f"phase '{s.name}' takes {len(phase.params)} argument(s), {len(s.args)} given",
                           f"call it as {s.name}({wanted})" if phase.params else f"call it as {s.name}")
            for param, a in zip(phase.params, s.args):
                self.expect(a, scope, self.resolve_type(param.type), f"argument '{param.name}' of phase '{s.name}'")
            if self._statements_checked > LIMITS.compiled_statements and not self._no_inline_phases:
                # phases each calling the one before twice: checking each call would never end
                self._no_inline_phases = True
                self.error(s.pos, f"the rules compile to more than {LIMITS.compiled_statements:,} statements: "
                           f"phases are called here too many times over ({describe('compiled_statements')})",
                           "call a phase from fewer places, or make a repeated part an action")
            elif s.name not in self._phase_stack and not self._no_inline_phases:
                self._phases_checked.add(s.name)
                self._phase_stack.append(s.name)
                self.check_block(phase.body, self.phase_scope(phase, scope))
                self._phase_stack.pop()
        else:  # pragma: no cover - the parser builds no other statement
            self.error(s.pos, f"unsupported statement {type(s).__name__}")

    def unknown_words(self, run: list[ast.CallPhase]) -> None:
        """One error for a line of words the grammar read as phase calls."""
        first, last = run[0], run[-1]
        pos = ast.Pos(first.pos.file, first.pos.line, first.pos.column, last.pos.end_line, last.pos.end_column)
        words = " ".join(s.name for s in run)
        hint = self.suggest(first.name, self.model.phases) or (
            "a statement starts with a keyword (let, move, deal, if, for, repeat, while, turn, choose, score, log, "
            "...), a variable to assign, or the name of a phase")
        self.error(pos, f"'{words}' is not a statement: no statement starts with '{first.name}', "
                        f"and no phase is called '{first.name}'", hint)

    def phase_scope(self, phase: ast.PhaseDecl, scope: Scope) -> Scope:
        """Where a phase's body is checked: the caller's scope with the parameters bound."""
        if not phase.params:
            return scope
        inner = scope.child()
        for param in phase.params:
            inner.locals[param.name] = self.resolve_type(param.type)
        return inner

    def check_phase_params(self, phase: ast.PhaseDecl) -> None:
        """A parameter is a new local name: not `me` or `it`, not a built-in, not twice."""
        seen: set[str] = set()
        for param in phase.params:
            if param.name in ("me", "it") or param.name in CONSTANTS:
                self.error(param.pos, f"'{param.name}' is a built-in name and cannot be a parameter")
            elif param.name in seen:
                self.error(param.pos, f"phase '{phase.name}' has two parameters called '{param.name}'")
            seen.add(param.name)

    def assign(self, s: ast.Assign, scope: Scope) -> None:
        m = self.model
        target = s.target
        value_t = self.expr(s.value, scope)
        want: Type = ANY
        if isinstance(target, ast.Name):
            v = m.vars.get(target.ident)
            if target.ident in scope.locals:
                want = scope.locals[target.ident]
                self.res[target] = ("local", target.ident)
            elif v is None:
                self.error(target.pos, f"unknown variable '{target.ident}'", self.suggest(target.ident, m.vars))
            elif v.per_player:
                self.error(target.pos, f"'{target.ident}' is per player", f"write '{target.ident}(p) {s.op} ...'")
            else:
                want = self.resolve_type(v.type)
                self.res[target] = ("var", v)
        elif isinstance(target, ast.Call):
            v = m.vars.get(target.func)
            if v is None or not v.per_player:
                self.error(target.pos, f"'{target.func}' is not a per-player variable",
                           self.suggest(target.func, lambda: [n for n, d in m.vars.items() if d.per_player]))
            else:
                want = self.resolve_type(v.type)
                self.res[target] = ("var_p", v)
                self._player_var_writes.append((target.func, target.pos))
            self.expect(target.args[0], scope, PLAYER, "a player")
        elif isinstance(target, ast.Attr):
            self.expr(target.obj, scope)
            at = m.attr_types.get(target.attr)
            if at is None or not at[1]:
                hint = "declare it with 'var' in the kind to make it changeable" if at else None
                self.error(target.pos, f"'{target.attr}' is not a changeable property", hint)
            else:
                want = at[0]
        if s.op != "=" and want not in (INT, ANY):
            self.error(s.pos, f"'{s.op}' needs a number, not {want}")
        if not compatible(want, value_t):
            self.error(s.value.pos, f"expected {want}, got {value_t}")

    def check_prompt(self, prompt: ast.StrLit) -> None:
        """A decision's prompt names the decision for tools and people: a fixed text, so that it
        is known without running the rules (`Game.decision()` reads it from the program)."""
        if any(not isinstance(part, str) for part in prompt.parts):
            self.error(prompt.pos, "a decision's prompt is plain text: it cannot show values",
                       "drop the {...}; the legal actions' labels can show them")
        elif not "".join(prompt.parts).strip():
            self.error(prompt.pos, "a decision's prompt is empty", "write what the decision asks, or leave it out")



def _bare_word(s: ast.Stmt) -> bool:
    """A statement that is one name alone: what the grammar makes of any word it cannot place."""
    return isinstance(s, ast.CallPhase) and not s.args


def sub_blocks(s: ast.Stmt) -> list[tuple]:
    """The statement blocks nested directly inside a statement."""
    if isinstance(s, ast.If):
        return [b for _, b in s.branches] + [s.otherwise]
    if isinstance(s, (ast.For, ast.Repeat, ast.While, ast.Turn)):
        return [s.body]
    if isinstance(s, ast.RepeatUntil):
        return [s.body]
    return []

