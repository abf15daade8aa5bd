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
)
from .names import DECLARATION_WORDS, Scope


class StatementChecks:
    """The statements' part of `Checker`."""

    # --- statements --------------------------------------------------------------------
    def check_block(self, body: tuple, scope: Scope) -> None:
        inner = scope.child()
        for s in body:
            self.stmt(s, inner)

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
            for x in s.body:
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
        elif isinstance(s, ast.Choose):
            if not scope.has_me:
                self.error(s.pos, "'choose' needs a player", "use it inside a 'turn' or an action")
            for name, pos in zip(s.actions, s.action_pos):
                if name != "pass" and name not in m.actions:
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
                hint = self.suggest(s.name, m.phases)
                if s.name in DECLARATION_WORDS:
                    hint = f"'{s.name}' starts a declaration: declarations belong at the top level, not in a block"
                if s.name in m.actions:
                    hint = f"'{s.name}' is an action: offer it with 'turn p: {s.name}' or 'choose: {s.name}'"
                self.error(s.pos, f"unknown phase '{s.name}'", hint)
            elif self._statements_checked > LIMITS.compiled_statements and not self._no_inline_phases:
                # phases each calling the one before twice: checking each call would never end
                self._no_inline_phases = True
                self.error(s.pos, f"the rules compile to more than {LIMITS.compiled_statements:,} statements: "
                           f"phases are called here too many times over ({describe('compiled_statements')})",
                           "call a phase from fewer places, or make a repeated part an action")
            elif s.name not in self._phase_stack and not self._no_inline_phases:
                self._phases_checked.add(s.name)
                self._phase_stack.append(s.name)
                self.check_block(m.phases[s.name].body, scope)
                self._phase_stack.pop()
        else:  # pragma: no cover - the parser builds no other statement
            self.error(s.pos, f"unsupported statement {type(s).__name__}")

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



def sub_blocks(s: ast.Stmt) -> list[tuple]:
    """The statement blocks nested directly inside a statement."""
    if isinstance(s, ast.If):
        return [b for _, b in s.branches] + [s.otherwise]
    if isinstance(s, (ast.For, ast.Repeat, ast.While, ast.Turn)):
        return [s.body]
    if isinstance(s, ast.RepeatUntil):
        return [s.body]
    return []

