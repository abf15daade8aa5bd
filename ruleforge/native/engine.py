"""A program's native engine: lowered, built (or found in the cache) and imported, once.

`native_engine(program)` gives the program's `NativeEngine`, or raises `NativeRefused` saying
why these rules play on the reference engine instead: a form the lowering does not run yet (the
gate, `NotLowered`), or a machine that builds no module (`NativeUnavailable`). The answer is kept
on the program, so a program is lowered and built at most once per process.
"""

from __future__ import annotations

import types
from typing import Any

import attrs

from ..compiler.program import NOT_TRIED
from ..inert import inert
from ..limits import LIMITS
from ..rule_errors import where as _where
from ..runtime import Action
from . import build
from .bounds import BuildTooLarge, BuildTooLong
from .ctree import emit
from .lower import NotLowered, lower

BLOCK_BITS = 24  # an id from (k + 1) << 24 is an action of block k, numbered by its arguments (rf_actions.h)


class NativeRefused(Exception):
    """These rules do not play natively here: why, in a few words (a rules form or the machine)."""


@attrs.frozen
class NativeEngine:
    """The built module of one program and what reading its games back needs."""

    module: types.ModuleType
    catalogue: tuple[Action, ...]  # a legal action's id in C -> the program's Action
    index: dict  # an Action -> its id
    texts: dict[int, str]  # an interned text's id -> the text
    blocks: dict[int, tuple[int, list[int], list[list]]]  # actions numbered by their arguments (lower.py)
    limits: dict = attrs.field(factory=dict)  # the limits built in (decisions, skips, blocks without a decision)
    label_templates: dict = attrs.field(factory=dict)  # per action whose label reads the state (choice_keys.py)
    choice_keys_refused: str | None = None  # why simulate cannot count these rules' choices in C
    made: dict = attrs.field(factory=dict, eq=False)  # ids of blocks' actions -> the Action, made once
    step: Any = attrs.field(init=False, eq=False)  # module.step, looked up once
    plain: bool = attrs.field(init=False, eq=False)  # every legal action is listed (no blocks to decode)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "step", self.module.step)
        object.__setattr__(self, "plain", not self.blocks)

    def action(self, id_: int) -> Action:
        """The Action of a legal action's id in C."""
        if id_ < 1 << BLOCK_BITS:
            return self.catalogue[id_]
        made = self.made.get(id_)
        if made is None:
            aid, spans, values = self.blocks[id_ >> BLOCK_BITS << BLOCK_BITS]
            flat = id_ & ((1 << BLOCK_BITS) - 1)
            args = []
            for span, at in zip(reversed(spans), reversed(values)):
                args.append(at[flat % span])
                flat //= span
            made = self.made[id_] = Action((aid, tuple(reversed(args))))
        return made

    def decoded(self, legal: list) -> list[Action]:
        """Legal actions as the module lists them, each an Action (an int: an action numbered
        by its arguments, made here)."""
        return [a if a.__class__ is not int else self.action(a) for a in legal]

    def value(self, raw: int, kind: str):
        """A value read from C as the reference engine holds it: none, a flag, a text, a number."""
        if raw.__class__ is list:  # a variable that holds a list: its items
            return [self.value(x, "any") for x in raw]
        if raw == -(1 << 63):
            return None
        if kind == "flag":
            return bool(raw)
        text = self.texts.get(raw)
        return text if text is not None else raw


def native_engine(program) -> NativeEngine:
    """The program's native engine, made on first use; NativeRefused says why there is none."""
    made = getattr(program, "native_engine", NOT_TRIED)
    if made is NOT_TRIED:
        made = _make(program)
        program.native_engine = made
    if isinstance(made, NativeRefused):
        raise made
    return made


def built_limits() -> dict[str, int]:
    """The limits in force, as a module built now holds them."""
    return {name: getattr(LIMITS, name) for name in ("decisions_per_game", "skips_in_a_row", "blocks_without_decision")}


def _make(program) -> NativeEngine | NativeRefused:
    from ..flowplay import flow_main

    flow_main(program)  # the generator back end's verdict first: turn together plays on blocks
    try:
        lowered = lower(program)
    except NotLowered as err:
        where = f" (made for the rule at {_where(err.where)})" if err.where is not None else ""
        return NativeRefused(inert(f"the native engine does not run {err} yet{where}"))
    source = emit(lowered.unit)
    try:
        module = build.load_native(source, program.players)
    except build.NativeUnavailable as err:
        return NativeRefused(f"the native engine is not available here ({err})")
    except (BuildTooLarge, BuildTooLong) as err:
        return NativeRefused(str(err))
    module.bind(lowered.catalogue)
    return NativeEngine(module, lowered.catalogue, {a: i for i, a in enumerate(lowered.catalogue)},
                        {i: text for text, i in lowered.texts.items()}, lowered.blocks, built_limits(),
                        lowered.label_templates, lowered.choice_keys_refused)
