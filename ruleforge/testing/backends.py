"""The two back ends play the same games: a decision-by-decision comparison.

A game runs on the block machine (which can be copied, saved and replayed) or on the generator
back end (`ruleforge/flowplay.py`, which playouts and `new_game` use). Both must give the same
game: at every decision the same player chooses among the same legal actions in the same order,
at the same decision point, and the log, scores and state agree at the end. `compare_backends`
plays seeded random games through both side by side and says where the first difference is.
`tests/test_flow_backend.py` runs it on every game and synthetic rules file;
`bench/differential.py` runs it for 10,000 games per game and player count.
"""

from __future__ import annotations

import random
from typing import Any

from ..diagnostics import GameError
from ..engine import Game
from ..flowplay import FlowGame, flow_main

# the state's fields that both back ends keep alike (`l` and `stack` are the block machine's own)
SHARED_FIELDS = ("z", "w", "f", "v", "p", "b", "rng", "turn", "used", "seen", "log", "chooser", "options", "over",
                 "opt", "steps", "sim", "pc")


class BackendsDiffer(AssertionError):
    """The back ends played differently: where and what."""


def compare_backends(program: Any, seed: int, choices: random.Random) -> int:
    """Play one game with seed `seed` on both back ends, taking the same random choices
    (drawn from `choices`); the number of decisions compared. BackendsDiffer at the first
    difference; a GameError of the rules is raised when both raise it alike."""
    if flow_main(program) is None:
        raise BackendsDiffer("these rules do not compile to the generator back end")
    blocks, blocks_error = _start(lambda: Game(program, seed))
    flow, flow_error = _start(lambda: FlowGame(program, seed))
    _same_error(seed, 0, blocks_error, flow_error)
    if blocks_error is not None:
        raise blocks_error
    decisions = 0
    while True:
        _same_decision(seed, decisions, blocks, flow)
        if blocks.is_over:
            break
        action = choices.randrange(len(blocks._legal))
        blocks_error = _apply(blocks, action)
        flow_error = _apply(flow, action)
        decisions += 1
        _same_error(seed, decisions, blocks_error, flow_error)
        if blocks_error is not None:
            raise blocks_error
    _same_end(seed, decisions, blocks, flow)
    return decisions


def _start(make) -> tuple[Any, GameError | None]:
    try:
        return make(), None
    except GameError as err:
        return None, err


def _apply(game: Game, index: int) -> GameError | None:
    try:
        game._apply_unchecked(game._legal[index])
    except GameError as err:
        return err
    return None


def _same_error(seed: int, decision: int, blocks: GameError | None, flow: GameError | None) -> None:
    if (blocks is None) != (flow is None) or (blocks is not None and str(blocks) != str(flow)):
        raise BackendsDiffer(f"seed {seed}, after decision {decision}: the block machine raised {blocks!s:.200} "
                             f"where the generators raised {flow!s:.200}")


def _same_decision(seed: int, decision: int, blocks: Game, flow: FlowGame) -> None:
    a, b = blocks.state, flow._st
    if (a.over, a.chooser, a.options, a.pc) != (b.over, b.chooser, b.options, b.pc):
        raise BackendsDiffer(f"seed {seed}, decision {decision}: block machine at (over {a.over}, player "
                             f"{a.chooser}, options {a.options}, pc {a.pc}), generators at (over {b.over}, player "
                             f"{b.chooser}, options {b.options}, pc {b.pc})")
    legal_a = [tuple(x) for x in blocks._legal]
    legal_b = [tuple(x) for x in flow._legal]
    if legal_a != legal_b:
        raise BackendsDiffer(f"seed {seed}, decision {decision}: legal actions differ: block machine "
                             f"{legal_a[:8]}... ({len(legal_a)}), generators {legal_b[:8]}... ({len(legal_b)})")


def _same_end(seed: int, decisions: int, blocks: Game, flow: FlowGame) -> None:
    if not flow.is_over:
        raise BackendsDiffer(f"seed {seed}: the block machine's game is over after {decisions} decisions, "
                             "the generators' is not")
    a, b = blocks.state, flow._st
    for field in SHARED_FIELDS:
        if getattr(a, field) != getattr(b, field):
            raise BackendsDiffer(f"seed {seed}: at the end, the state's '{field}' differs")
    if blocks.scores() != flow.scores():
        raise BackendsDiffer(f"seed {seed}: the scores differ at the end")
