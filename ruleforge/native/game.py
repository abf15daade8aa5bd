"""Games played on the native engine, handed to the reference engine for anything else.

A `NativeGame` is a `Game` whose state lives in C (a bytearray the module reads and writes).
The calls a playout makes (`legal_actions`, `apply`, `is_over`, `current_player`, `clone`,
and the scores once the game is over) are answered by the module, one call each. Everything else
(views, the log, labels, saving, editing, determinizing, a trap inside the rules) reads `state`,
which first hands the game over: the actions taken so far are replayed on the reference engine,
which goes on from there, as the generator back end hands over to the block machine
(flowplay.py). The native engine keeps no log: the replay makes it, so what people read of a
game is the reference engine's, word for word.
"""

from __future__ import annotations

from typing import Any

from ..engine import Game
from ..runtime import Action, State
from .engine import NativeEngine


class NativeGame(Game):
    """A game on the native engine until something needs the reference engine's state."""

    __slots__ = ("_buf", "_engine", "_history", "_st")

    def __init__(self, program, seed: int, engine: NativeEngine):  # noqa: D107 - Game's fields, then C's
        self.program = program
        self.seed = seed
        self._labels = None
        self._placed = set()
        self._log_text = None
        self._engine = engine
        self._history: list[Action] = []
        self._st: State | None = None
        self._buf, legal = engine.module.start(seed)
        self._took(legal)

    def _took(self, legal: list | None) -> None:
        """The legal actions the module gave after a step: a list (empty once over), or None
        after a trap, which hands the game over (and the reference engine raises the rule's
        error, as it would have)."""
        if legal is None:
            self._on_reference()
            return
        self._legal = legal if not self._engine.blocks else self._engine.decoded(legal)

    # --- the reference engine's state ----------------------------------------------------------
    @property
    def state(self) -> State:
        self._on_reference()
        return self._st

    @state.setter
    def state(self, value: State) -> None:
        self._st = value

    def _on_reference(self) -> None:
        """Become a game on the reference engine: replay the actions so far from the start."""
        if self._buf is None:
            return
        history = self._history
        self._buf = None
        game = Game(self.program, self.seed)
        for action in history:
            Game._apply_unchecked(game, action)
        self._st = game.state
        self._legal = game._legal
        self._labels = None

    @property
    def on_native(self) -> bool:
        """Whether the game still runs in C."""
        return self._buf is not None

    # --- what a playout calls ------------------------------------------------------------------
    @property
    def is_over(self) -> bool:
        if self._buf is None:
            return self._st.over
        return not self._legal  # natively a decision that offers nothing is skipped: none left is the end

    @property
    def current_player(self) -> int | None:
        if self._buf is None:
            return Game.current_player.fget(self)
        chooser = self._engine.module.chooser(self._buf)
        return None if chooser < 0 else chooser

    def apply(self, action: Action | tuple | str) -> None:
        if self._buf is not None:
            legal = self._legal
            try:
                k = legal.index(action)  # an action of legal_actions(): found by identity at once
            except ValueError:
                k = -1
            if k >= 0:
                self._history.append(legal[k])
                legal = self._engine.step(self._buf, k)
                if legal.__class__ is list and self._engine.plain:  # the usual case, kept short
                    self._legal = legal
                else:
                    self._took(legal)
                return
        Game.apply(self, action)  # a label, a pair from JSON, an illegal action: as Game says

    def _apply_unchecked(self, action: tuple) -> None:
        if self._buf is not None:
            try:
                k = self._legal.index(action)
            except ValueError:
                k = -1
            if k >= 0:
                self._take(k, self._legal[k])
                return
        Game._apply_unchecked(self, action)

    def _take(self, k: int, action: Action) -> None:
        self._history.append(action)
        self._labels = None
        self._took(self._engine.module.step(self._buf, k))

    def clone(self) -> Game:
        if self._buf is None:
            return Game.clone(self)
        g = NativeGame.__new__(NativeGame)
        g.program = self.program
        g.seed = self.seed
        g._labels = None
        g._placed = set(self._placed)
        g._log_text = None
        g._engine = self._engine
        g._history = list(self._history)
        g._st = None
        g._buf = bytearray(self._buf)
        g._legal = self._legal
        return g

    # --- the end, read from C --------------------------------------------------------------------
    def ranking_keys(self) -> list[tuple[int, ...]]:
        if self._buf is not None and self.is_over:
            keys = self._engine.module.ranks(self._buf)
            if keys is not None:
                return [tuple(self._engine.value(x, "int") for x in key) for key in keys]
        return Game.ranking_keys(self)

    def totals(self) -> list[int]:
        if self._buf is not None and self.is_over:
            v = self._engine.module.read(self._buf)[3]
            prog = self.program
            bases = [prog.var_base[t] for t in prog.model.score_targets]
            return [sum(v[b + p] for b in bases) for p in range(prog.players)]
        return Game.totals(self)

    def to_json(self) -> dict[str, Any]:
        self._on_reference()
        return Game.to_json(self)

    def digest(self) -> str:
        self._on_reference()
        return Game.digest(self)

    # --- move counts ---------------------------------------------------------------------------
    def native_counts(self, depth: int, left: int) -> tuple[list[int], int] | None:
        """perft's counts to `depth` walked in C from here, and the positions left of `left`
        (below 0: the walk passed its budget where the reference walk would); None when the walk
        met something the native engine hands over (the reference engine then counts)."""
        if self._buf is None:
            return None
        found, left, how = self._engine.module.counts(self._buf, depth, left)
        return None if how == "trapped" else (found, left)
