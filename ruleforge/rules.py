"""The entry point of the Python API: load a rules file, start, restore and replay games."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from . import chance, simultaneous
from .ast import Pos
from .checker import check
from .compiler import Program, compile_program
from .diagnostics import Diagnostic, GameError, RulesError
from .display import KindDisplay
from .engine import STATE_FORMAT, STATE_FORMATS, Game
from .flowplay import new_flow_game
from .loader import load_source
from .runtime import State

TRIAL_WORK = 1_000_000
"""Legal actions a trial game of `check` may list before it stops, without an error: a
trial of a game with thousands of components in hand would otherwise take minutes."""


class Rules:
    """A checked rules file. Compiles once per player count and options, then plays fast."""

    def __init__(self, path: str | Path, text: str | None = None):
        """`text`, when given, is the file's contents instead of what is on disk at `path`
        (bases and relative paths still resolve from `path`)."""
        self.path = str(path)
        decls, self.sources = load_source(path, text)
        self.checker = check(decls, self.sources)
        if self.checker.errors:
            raise RulesError(self.checker.errors, self.sources)
        self.model = self.checker.model
        self._programs: dict[tuple, Program] = {}

    @property
    def title(self) -> str:
        return self.model.title

    @property
    def display(self) -> dict[str, KindDisplay]:
        """How the rules ask for each kind to be drawn (`display` blocks, merged over a base's):
        kind name -> hints; empty when the file gives none. Plain data: no game code reads it."""
        return dict(self.checker.display_hints)

    @property
    def files(self) -> list[Path]:
        """The rules file and the files it extends, the file first (its base next)."""
        return [Path(name) for name in self.sources]

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
                extras: tuple[str, ...] = (), count_triggers: bool = False) -> Program:
        """The program for a player count and options, compiled once."""
        lo, hi = self.model.players
        if not lo <= players <= hi:
            span = f"{lo}" if lo == hi else f"{lo} to {hi}"
            raise GameError(f"{self.title} is for {span} players, not {players}")
        options = dict(options or {})
        for name, value in options.items():
            self._check_option(name, value)
        key: tuple = (players, tuple(sorted(options.items())), extras)
        if count_triggers:  # a program of its own: the usual one runs no counting code
            key += ("count_triggers",)
        prog = self._programs.get(key)
        if prog is None:
            if extras:  # programs for hand-built positions: keep only the latest few
                for old in [k for k in self._programs if k[2]][:-7]:
                    del self._programs[old]
            prog = compile_program(self.checker, players, options, extras, count_triggers)
            self._programs[key] = prog
        return prog

    def _check_option(self, name: str, value: Any) -> None:
        """An option must be one the rules declare, with a value of its declared type."""
        from .state_io import option_problem

        decl = self.model.options.get(name)
        if decl is None:
            known = ", ".join(self.model.options) or "none"
            raise GameError(f"unknown option '{name}' (options of {self.title}: {known})")
        problem = option_problem(self.checker.resolve_type(decl.type), value, self.model)
        if problem:
            raise GameError(f"option '{name}' {problem}")

    def position(self, data: dict[str, Any]) -> Game:
        """A game in a position written by hand (see docs/positions.md); GameError if malformed."""
        from .position import build_position

        return build_position(self, data)

    def check_player_counts(self, trial_games: int = 1, seed: int = 0) -> None:
        """Find what only shows for a given player count, for every count the game allows:
        setup values and tables, then what `trial_games` games of random legal actions per
        count run into (a rule failing at run time, a game that cannot go on or never ends).
        Trial game k uses seed `seed + k`, for its deal and for its choices; 0 trials skips them.
        A trial stops early, quietly, once it has listed `TRIAL_WORK` legal actions.
        Raises RulesError, each problem at its rules position."""
        from .compiler import check_setup

        lo, hi = self.model.players
        for n in range(lo, hi + 1):
            if trial_games > 0:
                self.program(n)  # compiling checks all that check_setup checks, and more
            elif not any(key[0] == n for key in self._programs):
                check_setup(self.checker, n)
        for n in range(lo, hi + 1):
            for k in range(trial_games):
                self._trial_game(n, seed + k)

    def _trial_game(self, players: int, seed: int) -> None:
        """Play one game of random legal actions, reading labels, views and scores as a
        player would; a GameError becomes a RulesError at the rule it names. The actions are
        drawn as a random agent draws them (`chance.Stream`)."""
        pick = chance.Stream(seed).below
        listed = 0
        try:
            game = Game(self.program(players), seed)  # it reads labels and views as it goes: the block machine
            while not game.is_over:
                legal = game._legal
                listed += len(legal)
                if listed > TRIAL_WORK:  # a huge game: what it has shown so far must do
                    break
                action = legal[pick(len(legal))]
                game.label(action)
                game._apply_unchecked(action)
            game.scores()
            game.winners()
            game.log_lines()
            for p in range(players):
                game.view(p)
        except GameError as err:
            raise self._trial_failure(err, players, seed) from None

    def _trial_failure(self, err: GameError, players: int, seed: int) -> RulesError:
        pos = err.pos or Pos(self.path, 0, 0)
        text = str(err)
        where = f"{pos.file}:{pos.line}:{pos.column}: "
        if text.startswith(where):
            text = text[len(where):]
        people = "1 player" if players == 1 else f"{players} players"
        message = f"in a trial game with {people} (seed {seed}, random legal actions): {text}"
        return RulesError([Diagnostic(pos, message)], self.sources)

    def new_game(self, players: int, seed: int = 0, options: dict[str, Any] | None = None,
                 compiled: bool = False, generator: str = chance.GENERATOR, engine: str = "reference") -> Game:
        """A new game. Its chance comes from `generator` seeded with `seed`: xoshiro256**, or the
        legacy splitmix64-mt to replay a game made with it (see ruleforge/chance.py). `engine`:
        "reference" (Python), "native" or "auto" (the native engine, ruleforge/native/, where these
        rules lower and a C compiler builds them; else the reference engine and one
        NativeEngineWarning saying why). `compiled=True` is kept as an alias of engine="auto"."""
        if type(seed) is not int:
            raise GameError(f"the seed must be a whole number, not {seed!r}")
        check_generator(generator)
        if engine not in ENGINES:
            raise GameError(f"no engine named {engine!r}: the engines are {', '.join(ENGINES)}")
        if compiled and engine == "reference":
            engine = "auto"
        prog = None if options else self._programs.get((players, (), ()))  # simulations: no checks again
        prog = prog or self.program(players, options)
        if engine != "reference" and generator == chance.GENERATOR:
            from .native import new_native_game

            return new_native_game(prog, seed)
        return new_flow_game(prog, seed, generator)

    def load_game(self, data: dict[str, Any]) -> Game:
        """Restore a game saved with `Game.to_json`; malformed data raises GameError."""
        from .state_io import check_game_header, state_from_json

        if not isinstance(data, dict) or data.get("format") not in STATE_FORMATS:
            raise GameError(f"not a saved ruleforge state (expected \"format\": \"{STATE_FORMAT}\")")
        players, seed, options, generator = check_game_header(self.model.players, data)
        try:
            prog = self.program(players, options)
        except GameError as err:
            raise GameError(f"saved state: 'options': {err}") from None
        state: State = state_from_json(prog, data.get("state"), generator)
        game = Game(prog, seed, state)
        problems = game.invariant_problems()
        if problems:
            raise GameError(f"saved state: {problems[0]}")
        problem = simultaneous.pending_problem(game)
        if problem:
            raise GameError(f"saved state: 'sim' {problem}")
        if not state.over and not game._legal:
            raise GameError(f"saved state: P{state.chooser + 1} is to decide but has no legal action "
                            "(check 'z', 'v', 'p' and 'options')")
        return game


def check_generator(generator: Any, where: str = "") -> str:
    """`generator` if it names one of ruleforge's generators, else GameError (`where` before it)."""
    if generator not in chance.GENERATORS:
        known = ", ".join(f'"{name}"' for name in chance.GENERATORS)
        shown = repr(generator) if len(repr(generator)) <= 40 else repr(generator)[:37] + "..."
        raise GameError(f"{where}unknown generator {shown} (generators: {known})")
    return generator


ENGINES = ("reference", "native", "auto")


def load(path: str | Path) -> Rules:
    """Load and check a rules file; raises RulesError listing every problem."""
    return Rules(path)
