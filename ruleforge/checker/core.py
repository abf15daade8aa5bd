"""The checker's driver: the passes in order, and how errors and hints are kept."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .. import ast
from ..diagnostics import Diagnostic, did_you_mean
from ..display import KindDisplay
from ..model import (
    FLAG,
    INT,
    PLAYER,
    Model,
    Type,
)
from ..nesting import too_deep_for_python
from .declarations import DeclarationChecks
from .display import DisplayChecks
from .expressions import ExpressionChecks
from .names import SUGGEST_BUDGET, Scope
from .statements import StatementChecks


class Checker(DeclarationChecks, DisplayChecks, StatementChecks, ExpressionChecks):
    """Checks a merged list of declarations; `errors` holds every problem found, `model`
    and the side tables (`types`, `res`) what the compiler reads."""

    def __init__(self, decls: list[ast.Decl], sources: dict[str, str] | None = None):
        self.decls = decls
        self.sources = sources or {}
        self.model = Model()
        self.errors: list[Diagnostic] = []
        self._reported: dict[Diagnostic, int] = {}  # each diagnostic's index in `errors`
        self._suggest_budget = SUGGEST_BUDGET
        self.types: dict[ast.Expr, Type] = {}
        self.res: dict[object, tuple] = {}
        self.def_types: dict[str, Type] = {}
        self._def_stack: list[str] = []
        self._player_var_writes: list[tuple[str, ast.Pos]] = []
        self.declared_twice: set[str] = set()  # names dropped as a second declaration: not reported again
        self._word_runs: dict[int, list] = {}  # a bare word starting a line of them -> the whole run
        self._phases_checked: set[str] = set()  # phases checked at a call (in the caller's scope)
        self._phase_stack: list[str] = []
        self._no_inline_phases = False  # a phase cycle or chain too deep: check each phase alone
        self._statements_checked = 0  # phases are checked where they are called: the work is bounded
        self.display_hints: dict[str, KindDisplay] = {}  # `display` blocks as data, by kind

    def error(self, pos: ast.Pos, message: str, hint: str | None = None) -> None:
        diag = Diagnostic(pos, message, hint)
        # A type resolved at each use is reported once. The index is checked against the list
        # (a caller may cut `errors` back) so that the test costs O(1), not a scan of the list.
        i = self._reported.get(diag)
        if i is not None and i < len(self.errors) and self.errors[i] == diag:
            return
        self._reported[diag] = len(self.errors)
        self.errors.append(diag)

    def suggest(self, name: str, candidates: Iterable[str] | Callable[[], Iterable[str]]) -> str | None:
        """A 'did you mean' hint, within a budget of names compared for the whole check: a file
        with thousands of unknown names against thousands of declared ones would otherwise take
        time in their product. `candidates` may be a function, so that once the budget is spent
        they are not even gathered."""
        if self._suggest_budget <= 0:
            return None
        pool = list(candidates() if callable(candidates) else candidates)
        self._suggest_budget -= len(pool)
        return did_you_mean(name, pool)

    # --- collecting declarations ---------------------------------------------------
    def run(self) -> Model:
        self.collect()
        self.check_kinds()
        self.check_displays()
        self.check_zones_vars()
        self.check_components()
        for d in self.model.defs.values():
            self.def_type(d.name)
        for a in self.model.actions.values():
            self.check_action(a)
        for s in self.model.scorings.values():
            self.check_scoring(s)
        for t in self.model.triggers:
            self.check_trigger(t)
        # Phases are inlined where they are called, so each call is checked in its caller's
        # scope (a phase called inside a turn may use `me` and `choose`); one never called is
        # checked on its own.
        self.check_phase_cycles()
        for phase in self.model.phases.values():
            self.check_phase_params(phase)
        if self.model.flow is None:
            self.error(ast.Pos(self.main_file(), 1, 1), "the rules have no 'flow' block",
                       "add 'flow { ... }' saying how a game runs")
        else:
            self.check_block(self.model.flow.body, Scope())
        for p in self.model.phases.values():
            if p.name not in self._phases_checked:
                self._phases_checked.add(p.name)
                self.check_block(p.body, self.phase_scope(p, Scope()))
        if self.model.ranking is not None:
            r = self.model.ranking
            scope = Scope(locals={r.player: PLAYER}, pure=True)
            for k in r.keys:
                self.expect(k, scope, INT, "a ranking key")
        for inv in self.model.invariants:
            scope = Scope(locals={inv.player: PLAYER} if inv.player else {}, pure=True)
            self.check_string(inv.message, scope)
            self.expect(inv.cond, scope, FLAG, "an invariant")
        for measure in self.model.measures.values():
            self.expect(measure.value, Scope(pure=True), INT, "a measure")
        for rule in self.model.end_rules:
            scope = Scope(has_me=True, pure=True)
            scope.locals["me"] = PLAYER
            self.expect(rule.cond, scope, FLAG, "an end condition")
            if rule.last is not None:
                self.expect(rule.last, scope, PLAYER, "whose turn is the last")
        for target, pos in self._player_var_writes:
            if target in self.model.score_targets:
                self.error(pos, f"'{target}' is kept by 'score ... into {target}'; changing it directly "
                           "would make the breakdown disagree with the total",
                           "add the points as an item of a scoring block instead")
        return self.model

    def main_file(self) -> str:
        """The file being checked, even when it declares nothing (an empty file)."""
        if self.decls:
            return self.decls[0].pos.file
        return next(iter(self.sources), "<rules>")



def check(decls: list[ast.Decl], sources: dict[str, str] | None = None) -> Checker:
    checker = Checker(decls, sources)
    try:
        checker.run()
    except RecursionError:  # nesting within raised limits, but beyond this Python's stack
        checker.errors.append(too_deep_for_python(checker.main_file()))
    return checker

