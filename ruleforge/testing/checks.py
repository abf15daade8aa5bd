"""Running a scoring example against a rules file, and telling what it found: each checked
item expected and actual side by side, so a failure says what moved and by how much."""

from __future__ import annotations

from typing import Any

import attrs

from ..diagnostics import GameError, RulesError
from ..engine import Game, player_name
from ..rules import Rules
from ..scoresheet import Breakdown, final_scorings
from .examples import Example, suggest


@attrs.frozen
class Check:
    """One thing an example checks: a player's item (or total), a choice or a value."""

    player: int | None
    what: str  # "item", "choice", "value", "legal" or "refused"
    key: str
    expected: Any
    actual: Any

    @property
    def passed(self) -> bool:
        return self.expected == self.actual

    @property
    def label(self) -> str:
        return self.key if self.player is None else f"{player_name(self.player)} {self.key}"


@attrs.frozen(eq=False)
class Outcome:
    """What running an example found: every check, or the error that kept it from running."""

    example: Example
    checks: tuple[Check, ...] = ()
    breakdown: Breakdown | None = None
    error: str | None = None

    @property
    def passed(self) -> bool:
        return self.error is None and all(c.passed for c in self.checks)

    @property
    def status(self) -> str:
        return "error" if self.error is not None else "pass" if self.passed else "fail"

    @property
    def failed_checks(self) -> list[Check]:
        return [c for c in self.checks if not c.passed]

    def report(self) -> list[str]:
        """Expected and actual side by side, every check of the example, the ones that
        differ marked with the difference; or the error."""
        if self.error is not None:
            return [f"error: {line}" for line in self.error.splitlines()]
        rows = [("", "expected", "actual", "")]
        for c in self.checks:
            mark = "" if c.passed else "  <- " + _difference(c.expected, c.actual)
            rows.append((c.label, _shown(c.expected), _shown(c.actual), mark))
        width = [max(len(r[i]) for r in rows) for i in range(3)]
        return [f"{r[0]:<{width[0]}}  {r[1]:>{width[1]}}  {r[2]:>{width[2]}}{r[3]}".rstrip() for r in rows]

    def as_json(self) -> dict[str, Any]:
        ex = self.example
        out: dict[str, Any] = {"name": ex.name, "source": ex.source, "file": str(ex.origin), "status": self.status}
        if self.error is not None:
            out["error"] = self.error
        out["checks"] = [{"player": player_name(c.player) if c.player is not None else None, "what": c.what,
                          "key": c.key, "expected": c.expected, "actual": c.actual, "passed": c.passed}
                         for c in self.checks]
        if self.breakdown is not None:
            out["scores"] = self.breakdown.as_json()["scores"]
        return out


def _shown(value: Any) -> str:
    if isinstance(value, list):
        return " → ".join(map(str, value)) if len(value) > 3 else str(value)
    return "true" if value is True else "false" if value is False else "none" if value is None else str(value)


def _difference(expected: Any, actual: Any) -> str:
    """`+5` for points that moved; otherwise a plain mark."""
    if type(expected) is int and type(actual) is int:
        return f"{actual - expected:+d}"
    return "differs"


def example_game(rules: Rules, example: Example) -> Game:
    """The example's position as a game (GameError if the position does not fit the rules)."""
    return rules.position(example.position)


def run_example(rules: Rules, example: Example) -> Outcome:
    """Score the example's position and compare every expectation; never raises for a bad
    example: what keeps it from running is the outcome's error."""
    if example.refused is not None:
        return _refusal(rules, example)
    try:
        game = example_game(rules, example)
        if example.play or example.offered or example.not_offered:
            _play(game, example.play)  # a position only scored stays where setup left it
        missing = [n for n in example.scorings if n not in rules.model.scorings]
        if missing:
            known = ", ".join(rules.model.scorings) or "none"
            return Outcome(example, error=f"no scoring named '{missing[0]}'; the scorings of {rules.title}: {known}")
        checks: list[Check] = []
        breakdown = None
        if example.expect or example.choices or example.scorings or final_scorings(rules.model):
            breakdown = Breakdown.of(game, example.scorings or None)  # an example of values only needs none
            checks += _item_checks(example, breakdown, game.players)
            checks += _choice_checks(example, breakdown, game.players)
        checks += _value_checks(example, game)
        checks += _legal_checks(example, game)
    except _Unrunnable as err:
        return Outcome(example, error=str(err))
    except RulesError as err:
        return Outcome(example, error="; ".join(d.message for d in err.diagnostics))
    except GameError as err:
        return Outcome(example, error=str(err))
    return Outcome(example, tuple(checks), breakdown)


def _refusal(rules: Rules, example: Example) -> Outcome:
    """An example of a position the rules must refuse (an invariant, a layout no game reaches)."""
    try:
        example_game(rules, example)
        said = "accepted"
    except GameError as err:
        said = str(err)
    wanted = example.refused or ""
    return Outcome(example, (Check(None, "refused", "refused", wanted, wanted if wanted in said else said),))


class _Unrunnable(Exception):
    """An expectation that names what is not there: a seat, an item, a variable."""


def _seat(p: int, players: int, where: str) -> None:
    if p >= players:
        raise _Unrunnable(f"{where}: no seat {player_name(p)} in a {players}-player position")


def _item_checks(example: Example, breakdown: Breakdown, players: int) -> list[Check]:
    out = []
    for p, items in example.expect.items():
        _seat(p, players, "expect")
        row = breakdown.row(p)
        for item in items:
            if item not in row:
                raise _Unrunnable(f"expect: {player_name(p)}: no item '{item}'{suggest(item, list(row))} "
                                  f"(items: {', '.join(row)})")
        # in the scoring's order, the total last, as `ruleforge score --explain` lists them
        out += [Check(p, "item", item, items[item], points) for item, points in row.items() if item in items]
    return out


def _choice_checks(example: Example, breakdown: Breakdown, players: int) -> list[Check]:
    out = []
    for p, chosen in example.choices.items():
        _seat(p, players, "choices")
        made = dict(breakdown.choices[p]) if breakdown.choices else {}
        for var, value in chosen.items():
            if var not in made:
                listed = ", ".join(made) or "none (no `best ... into` in these scorings)"
                raise _Unrunnable(f"choices: {player_name(p)}: the scorings choose no '{var}' (they choose: {listed})")
            out.append(Check(p, "choice", var, value, made[var]))
    return out


def _value_checks(example: Example, game: Game) -> list[Check]:
    out = []
    for text, value in example.values.items():
        out.append(Check(None, "value", text, value, _evaluate(game, text)))
    for p, entries in example.player_values.items():
        _seat(p, game.players, "values")
        for text, value in entries.items():
            out.append(Check(p, "value", text, value, _evaluate(game, text, p=p)))
    return out


def _evaluate(game: Game, text: str, **bindings: Any) -> Any:
    try:
        return game.evaluate_shown(text, **bindings)
    except RulesError as err:
        raise _Unrunnable(f"values: {text!r}: " + "; ".join(d.message for d in err.diagnostics)) from None
    except GameError as err:
        raise _Unrunnable(f"values: {err}") from None


def _play(game: Game, labels: tuple[str, ...]) -> None:
    """Play the example's actions from its position, each by the label `ruleforge play`
    prints; a decision that offers nothing is gone past first, as in play."""
    for step, label in enumerate(labels, 1):
        game.skip_empty_decision()
        if game.is_over:
            raise _Unrunnable(f"play: step {step} '{label}': the game is over")
        labels_now = game.legal_labels()
        if label not in labels_now:
            raise _Unrunnable(f"play: step {step} '{label}' is not legal for {player_name(game.current_player)}; "
                              f"legal: {', '.join(labels_now)}")
        game.apply(label)
    game.skip_empty_decision()


def _legal_checks(example: Example, game: Game) -> list[Check]:
    """Is each action the example names offered at the decision reached, or not?"""
    offered = set(game.legal_labels())
    p = game.current_player
    return [Check(p, "legal", label, wanted, "offered" if label in offered else "not offered")
            for wanted, labels in (("offered", example.offered), ("not offered", example.not_offered))
            for label in labels]
