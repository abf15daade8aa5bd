"""Games played on the generator back end (ruleforge/compiler/flow.py): playouts at full speed.

A `FlowGame` is a `Game` whose rules run as one Python generator instead of the block machine:
the same state, the same log, the same legal actions at every decision, so everything that reads
a game (scores, views, labels, the log, records) works on it unchanged. What a generator cannot
do is be copied, saved or rewound. So the first call that needs the block machine's part of the
state (`clone`, `to_json`, `determinize`, editing the state, reading `game.state` while the game
runs, a runtime error to be named at its rule) replays the game's actions so far on the block
machine, which takes over from then on: the same game, on the machine that can stop anywhere.

Rules the generator back end does not compile (`turn together`) make an ordinary `Game`.
"""

from __future__ import annotations

from typing import Any

from . import chance
from .compiler.flow import compile_failed
from .compiler.program import UNCOMPILED
from .engine import Game, as_action, record_action
from .limits import LIMITS


def flow_main(program) -> Any:
    """The program's generator `flow_main(st)`, compiled the first time it is asked for (None
    when its rules play only on the block machine)."""
    if program.flow is not UNCOMPILED:
        return program.flow
    made = None
    compiler = program.compiler
    if compiler is not None:
        try:
            module = compiler.compile_generators()
            code = compile(module, "<ruleforge:flow>", "exec")
        except Exception as err:  # noqa: BLE001 - what the pass refuses plays on the block machine
            if not compile_failed(err):
                raise
        else:
            ns = program.namespace
            ns["ACTF"] = direct_actions(program)
            exec(code, ns)  # noqa: S102 - a tree the compiler built; texts of the rules are constants in it
            ns["ACTG"] = action_generators(program, ns)
            made = ns["flow_main"]
    program.flow = made
    return made


def direct_actions(program) -> tuple:
    """`ACTF`, what the generators call to take an action: per action id its entry function
    (`enter_N`), or None for an action that decides inside its effect (a generator of its own)."""
    deciding = program.compiler.deciding_aids
    return tuple(None if aid in deciding else record[1] for aid, record in enumerate(program.apply_records))


def action_generators(program, defined: dict[str, Any]) -> tuple:
    """`ACTG`: per action id its generator `flow_act_N` among the names `defined`, else None."""
    return tuple(defined.get(f"flow_act_{aid}") for aid in range(len(program.apply_records)))


def new_flow_game(program, seed: int, generator: str = chance.GENERATOR) -> Game:
    """A game on the generator back end when its rules compile there, else on blocks; its
    chance from `generator` (see `chance`)."""
    if flow_main(program) is None:
        return Game(program, seed, generator=generator)
    return FlowGame(program, seed, generator)


class FlowGame(Game):
    """A game run by the generator back end until something needs the block machine.

    Its state is `_st`. Reading `state` from outside hands over to the block machine first
    (the state's `l` and `stack` are the block machine's, and only a replay fills them), except
    once the game is over, when nothing runs on and the state as it is answers every question.
    The calls a playout makes (`legal_actions`, `apply`, `is_over`, `current_player`) read
    `_st` and hand over nothing."""

    __slots__ = ("_gen", "_st")

    def __init__(self, program, seed: int, generator: str = chance.GENERATOR):  # noqa: D107 - Game's fields, then the generator
        self.program = program
        self.seed = seed
        self._labels = None
        self._placed = set()
        self._log_text = None
        self._st = self._initial_state(seed, generator)
        self._legal = []
        flow = flow_main(program)
        if flow is None:
            raise ValueError("these rules play on the block machine only (new_flow_game makes a Game for them)")
        self._gen = flow(self._st)
        self._go_on(None)

    @property
    def state(self):
        if self._gen is not None and not self._st.over:
            self._on_blocks()
        return self._st

    @state.setter
    def state(self, value) -> None:
        self._st = value

    @property
    def generator(self) -> str:
        return chance.generator_of(self._st.rng)  # the state's own: no hand-over

    @property
    def is_over(self) -> bool:
        return self._st.over

    @property
    def current_player(self) -> int | None:
        st = self._st
        return None if st.over else st.chooser

    def _skipping(self) -> list:
        """Decisions that offer nothing are skipped (and logged), as the block machine does."""
        st = self._st
        skipped = 0
        while True:
            st.log.append(("skip", st.chooser))
            skipped += 1
            if skipped >= LIMITS.skips_in_a_row:
                raise _Stop
            out = self._gen.send(None)
            if out:
                return out

    def apply(self, action: tuple | str) -> None:
        """`Game.apply`, with a playout's usual case (an action of `legal_actions()`, the
        generator running) taken without the calls in between; anything else as Game does."""
        st = self._st
        if self._gen is not None and not st.over and st.steps < LIMITS.decisions_per_game:
            legal = self._legal
            if action in legal or not isinstance(action, str) and (action := as_action(action)) in legal:
                record_action(self.program, st, action)  # (as_action: a pair read from JSON, say)
                self._go_on(action)
                return
        Game.apply(self, action)

    def _apply_unchecked(self, action: tuple) -> None:
        st = self._st
        if self._gen is None or st.steps >= LIMITS.decisions_per_game:  # the block machine goes on, or says so
            self._on_blocks()
            Game._apply_unchecked(self, action)
            return
        record_action(self.program, st, action)
        self._go_on(action)

    def _go_on(self, action: tuple | None) -> None:
        """Send the generator the action taken (None to start) and run the rules to the next
        decision that offers something, or to the end."""
        self._labels = None
        try:
            out = self._gen.send(action)
            if not out:
                out = self._skipping()
        except StopIteration:
            self._legal = []
            return
        except Exception:  # noqa: BLE001 - the block machine names the rule that failed
            self._fail()
        self._legal = out

    def _fail(self) -> None:
        """Something went wrong on the generator back end: replay on the block machine, which
        raises the same error at the same decision, told at its rule."""
        self._on_blocks()
        raise AssertionError("the generator back end failed where the block machine did not")  # pragma: no cover

    def _on_blocks(self) -> None:
        """Become a game on the block machine: replay the actions so far from the start (skips
        replay themselves). A replay that fails raises that error, as the block machine tells it."""
        if self._gen is None:
            return
        history = [(e[2], e[3]) for e in self._st.log if e[0] == "act"]
        self._gen = None
        game = Game(self.program, self.seed, generator=self.generator)
        for action in history:
            _apply_on_blocks(game, action)
        self._st = game.state
        self._legal = game._legal
        self._labels = None

    # --- what needs the block machine even once the game is over -------------------------------
    def clone(self) -> Game:
        self._on_blocks()
        return Game.clone(self)

    def to_json(self) -> dict[str, Any]:
        self._on_blocks()
        return Game.to_json(self)

    def digest(self) -> str:
        self._on_blocks()
        return Game.digest(self)


_apply_on_blocks = Game._apply_unchecked  # a replay is not a decision taken: code that wraps the method sees none


class _Stop(Exception):
    """No one could act for too long: the block machine's replay names it."""
