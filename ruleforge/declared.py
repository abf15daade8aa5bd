"""What the rules say they may do, read off the merged model without playing: which variable
each `final` scoring goes into (for the agents' standing) and whether any decision offers
`pass` (for the statistics' actions never legal)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import attrs

from . import ast
from .model import Model


def _nodes(model: Model) -> Iterator[Any]:
    """Every syntax node of the rules' flow, phases, actions and triggers (depth first, by
    an explicit stack: a deep file cannot exhaust Python's)."""
    todo: list[Any] = [model.flow, *model.phases.values(), *model.actions.values(), *model.triggers]
    while todo:
        x = todo.pop()
        if isinstance(x, tuple):
            todo.extend(x)
        elif isinstance(x, ast._Node):
            yield x
            todo.extend(getattr(x, f.name) for f in attrs.fields(type(x)))


def final_targets(model: Model) -> list[tuple[str, str]]:
    """Each `final` scoring with the variable the rules score it into (`score S into v`),
    once per pair; a final scoring the rules never apply is left out."""
    finals = {name for name, decl in model.scorings.items() if decl.final}
    pairs = {(s.scoring, s.into) for s in _nodes(model) if isinstance(s, ast.ScoreStmt) and s.scoring in finals}
    return sorted(pairs)


def offers_pass(model: Model) -> bool:
    """Whether some decision of the rules (a `turn` or `choose`) lists `pass`."""
    return any(isinstance(s, ast.Choose) and "pass" in s.actions for s in _nodes(model))


def offered_actions(model: Model, actions: list[str]) -> list[str]:
    """`actions` (the program's, `pass` first) without `pass` when no decision lists it: the
    actions the rules could offer."""
    return actions if offers_pass(model) else [a for a in actions if a != "pass"]
