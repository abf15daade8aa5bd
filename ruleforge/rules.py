"""The entry point of the Python API: load a rules file, start, restore and replay games."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from .checker import check
from .compiler import Program, compile_program
from .diagnostics import GameError, RulesError
from .engine import STATE_FORMAT, Game
from .loader import load_source
from .runtime import State


class Rules:
    """A checked rules file. Compiles once per player count and options, then plays fast."""

    def __init__(self, path: str | Path):
        self.path = str(path)
        decls, self.sources = load_source(path)
        self.checker = check(decls, self.sources)
        if self.checker.errors:
            raise RulesError(self.checker.errors, self.sources)
        self.model = self.checker.model
        self._programs: dict[tuple, Program] = {}

    @property
    def title(self) -> str:
        return self.model.title

    @property
    def player_range(self) -> tuple[int, int]:
        return self.model.players

    @property
    def digest(self) -> str:
        h = hashlib.sha256()
        for name in sorted(self.sources):
            h.update(self.sources[name].encode())
        return h.hexdigest()[:16]

    def program(self, players: int, options: dict[str, Any] | None = None,
                extras: tuple[str, ...] = ()) -> Program:
        lo, hi = self.model.players
        if not lo <= players <= hi:
            span = f"{lo}" if lo == hi else f"{lo} to {hi}"
            raise GameError(f"{self.title} is for {span} players, not {players}")
        options = dict(options or {})
        for name in options:
            if name not in self.model.options:
                known = ", ".join(self.model.options) or "none"
                raise GameError(f"unknown option '{name}' (options of {self.title}: {known})")
        key = (players, tuple(sorted(options.items())), extras)
        prog = self._programs.get(key)
        if prog is None:
            if extras:  # programs for hand-built positions: keep only the latest few
                for old in [k for k in self._programs if k[2]][:-7]:
                    del self._programs[old]
            prog = self._programs[key] = compile_program(self.checker, players, options, extras)
        return prog

    def position(self, data: dict[str, Any]) -> Game:
        """A game in a position written by hand (see docs/positions.md); GameError if malformed."""
        from .position import build_position

        return build_position(self, data)

    def check_player_counts(self) -> None:
        """Find what only shows for a given player count (setup values, tables), for every
        count the game allows; raises RulesError."""
        from .compiler import check_setup

        lo, hi = self.model.players
        for n in range(lo, hi + 1):
            if not any(key[0] == n for key in self._programs):
                check_setup(self.checker, n)

    def new_game(self, players: int, seed: int = 0, options: dict[str, Any] | None = None) -> Game:
        prog = None if options else self._programs.get((players, (), ()))  # simulations: no checks again
        return Game(prog or self.program(players, options), seed)

    def load_game(self, data: dict[str, Any]) -> Game:
        """Restore a game saved with `Game.to_json`; malformed data raises GameError."""
        from .state_io import state_from_json

        if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
            raise GameError(f"not a saved ruleforge state (expected \"format\": \"{STATE_FORMAT}\")")
        players = data.get("players")
        if not isinstance(players, int):
            raise GameError("saved state: 'players' must be a number")
        prog = self.program(players, data.get("options") or None)
        state: State = state_from_json(prog, data.get("state"))
        return Game(prog, int(data.get("seed", 0)), state)


def load(path: str | Path) -> Rules:
    """Load and check a rules file; raises RulesError listing every problem."""
    return Rules(path)
