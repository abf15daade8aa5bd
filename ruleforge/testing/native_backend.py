"""The native engine plays the reference engine's games: a decision-by-decision comparison.

`compare_native` plays one seeded game with the same random choices on the block machine (the
reference: what a rule means) and on the native engine (`ruleforge/native/`): at every decision
the same player chooses among the same legal actions in the same order; at the end the same
state (zones, where each component is and came from, variables, properties, score breakdown,
the random generator, the turn and the decision count), ranking keys and totals, all read from
C. A rules failure must be raised alike: the native engine traps and hands the game over, and
the reference engine's replay raises the error at its rule. `tests/test_native_engine.py` runs
it on a few hundred games per game; `bench/differential.py --engine native` on 10,000.
"""

from __future__ import annotations

import random
from typing import Any

from ..diagnostics import GameError
from ..engine import Game
from ..native.engine import native_engine
from ..native.game import NativeGame
from .backends import BackendsDiffer, _apply, _start


def compare_native(program: Any, seed: int, choices: random.Random) -> int:
    """Play one game with seed `seed` on the block machine and the native engine with the same
    choices; the number of decisions compared. BackendsDiffer at the first difference; a
    GameError of the rules is raised when both raise it alike. NativeRefused when the program
    has no native engine here."""
    engine = native_engine(program)
    reference, reference_error = _start(lambda: Game(program, seed))
    native, native_error = _start(lambda: NativeGame(program, seed, engine))
    _same_error(seed, 0, reference_error, native_error)
    if reference_error is not None:
        raise reference_error
    decisions = 0
    while True:
        _same_decision(seed, decisions, reference, native)
        if reference.is_over:
            break
        k = choices.randrange(len(reference._legal))
        reference_error = _apply(reference, k)
        native_error = _apply(native, k)
        decisions += 1
        _same_error(seed, decisions, reference_error, native_error)
        if reference_error is not None:
            raise reference_error
    _same_end(seed, decisions, reference, native)
    return decisions


def _same_error(seed: int, decision: int, reference: GameError | None, native: GameError | None) -> None:
    if (reference is None) != (native is None) or (reference is not None and str(reference) != str(native)):
        raise BackendsDiffer(f"seed {seed}, after decision {decision}: the reference engine raised {reference!s:.200} "
                             f"where the native engine raised {native!s:.200}")


def _same_decision(seed: int, decision: int, reference: Game, native: NativeGame) -> None:
    st = reference.state
    theirs = (native.is_over, native.current_player)
    ours = (st.over, None if st.over else st.chooser)
    if ours != theirs:
        raise BackendsDiffer(f"seed {seed}, decision {decision}: the reference engine is at (over, player) {ours}, "
                             f"the native engine at {theirs}")
    legal_a = [tuple(x) for x in reference._legal]
    legal_b = [tuple(x) for x in native._legal]
    if legal_a != legal_b:
        raise BackendsDiffer(f"seed {seed}, decision {decision}: legal actions differ: reference "
                             f"{legal_a[:8]}... ({len(legal_a)}), native {legal_b[:8]}... ({len(legal_b)})")


def _same_end(seed: int, decisions: int, reference: Game, native: NativeGame) -> None:
    if not native.on_native:
        raise BackendsDiffer(f"seed {seed}: the native engine handed the game over without a rules failure")
    engine = native._engine
    zones, w, f, v, p, b, rng = engine.module.read(native._buf)
    status = engine.module.status(native._buf)
    st = reference.state
    program = reference.program
    values = [engine.value(x, kind) for x, kind in zip(v[:len(st.v)], program.var_kinds)]
    props = [[engine.value(x, "any") for x in row] for row in p[:len(st.p)]]
    mine = {"z": zones, "w": w, "f": f, "v": values, "p": props, "b": b[:len(st.b)],
            "turn": status[4], "steps": status[3]}
    if isinstance(st.rng, tuple):
        mine["rng"] = tuple(rng)
    for field, value in mine.items():
        if getattr(st, field) != value:
            raise BackendsDiffer(f"seed {seed}: at the end, the state's '{field}' differs: reference "
                                 f"{getattr(st, field)!s:.200}, native {value!s:.200}")
    if reference.ranking_keys() != native.ranking_keys() or reference.totals() != native.totals():
        raise BackendsDiffer(f"seed {seed}: the ranking keys or totals differ at the end")
