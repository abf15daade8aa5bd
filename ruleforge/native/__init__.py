"""The native engine: a compiled game lowered to C (`lower`, `ctree`), built as an extension module
(`build`), and played one call per decision (`game`) or whole games at a time (`engine`).

Rules the lowering does not run yet, or a machine with no C compiler, play on the reference
engine: `new_native_game` says so once per program, in a NativeEngineWarning.
"""

from __future__ import annotations

import warnings


class NativeEngineWarning(UserWarning):
    """The native engine was asked for and these rules play on the reference engine: why."""


def new_native_game(program, seed: int):
    """A game on the native engine where the program has one, else on the reference engine
    (warned once per program)."""
    from ..flowplay import new_flow_game
    from .engine import NativeRefused, native_engine
    from .game import NativeGame

    try:
        engine = native_engine(program)
    except NativeRefused as refused:
        if not getattr(refused, "said", False):
            refused.said = True
            warnings.warn(f"{refused}; playing on the reference engine", NativeEngineWarning, stacklevel=3)
        return new_flow_game(program, seed)
    return NativeGame(program, seed, engine)
