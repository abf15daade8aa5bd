"""What the compiler hands the engine (`Program`, the layout records) and the names an
expression is compiled in (`Env`)."""

from __future__ import annotations

import ast as py

import attrs

from .. import ast
from ..model import Model
from . import pytree


@attrs.define
class ZoneInfo:
    """One zone instance: a shared zone, one player's zone, or one cell of a grid."""

    name: str
    owner: int | None
    visibility: str
    shape: str
    row: int | None = None  # 1-based, for a grid's cells
    column: int | None = None
    rules: tuple = ()  # (visibility, index of its condition function or None)
    capacity: int | None = None  # `size N` on a pile, hand or row: at most N components

    @property
    def key(self) -> str:
        text = self.name if self.owner is None else f"{self.name}(P{self.owner + 1})"
        return text if self.row is None else f"{text}[{self.row},{self.column}]"


@attrs.define
class ActionInfo:
    name: str
    decl: ast.ActionDecl | None
    me_slot: int = -1
    param_slots: list = attrs.Factory(list)
    entry: int = -1
    limits: list = attrs.Factory(list)  # [(times, scope)]
    slot_end: int = -1
    ret_slot: int = -1  # where a run that cannot meet itself keeps its return block (else: a frame)


UNCOMPILED = "not compiled yet"  # Program.flow before the generator back end is asked for
NOT_TRIED = "native engine not tried yet"  # Program.native_engine before it is asked for


@attrs.define
class Program:
    """A compiled game for one player count: generated functions and layout tables."""

    players: int
    model: Model
    module: py.Module  # the generated code's tree (compiled as it is; `source` shows it as text)
    namespace: dict
    blocks: list
    zones: list[ZoneInfo]
    zone_base: dict[str, int]
    var_base: dict[str, int]
    var_names: list[tuple[str, int | None]]
    var_kinds: list[str]
    var_shown: list[tuple[str, str]]  # per slot: who sees it in views, and what its values are
    props: list[str]
    comp_kind: list[str]
    comp_label: list[str]
    comp_start: list[int]
    actions: list[ActionInfo]
    action_ids: dict[str, int]
    legal_funcs: list
    point_legal: dict  # action set offered by a decision -> its legal actions, in one function
    label_funcs: list
    items: list[tuple[str, str]]  # (scoring, item label)
    scorings: dict[str, tuple[int, int]]  # name -> (first item index, count)
    score_funcs: dict[str, object]
    log_templates: list
    var_init: list
    prop_init: list
    n_locals: int
    rank_func: object
    line_map: dict[int, ast.Pos]
    option_names: list[str]
    option_values: list
    compiler: object = None
    public_label_funcs: list = attrs.Factory(list)  # per action: what others see, if secret
    vis_funcs: list = attrs.Factory(list)  # conditions of `visible ... if cond`
    invariants: list = attrs.Factory(list)  # (pos, per player, test(st, p), message(st, p)) per `invariant`
    measures: list = attrs.Factory(list)  # (name, pos, value(st)) per `measure`
    initial: object = None  # the state before the flow starts, made by the engine on first use
    hidden_cache: dict = attrs.Factory(dict)  # per seat: zones hidden for good, zones hidden by a condition
    state_labels: list = attrs.Factory(list)  # per action: its label reads the state (log it as text)
    # per action, what applying it needs, in one tuple (the engine's hot path unpacks it):
    # (label reads the state, its entry function `enter(st, me, *args) -> next block`, limits)
    apply_records: list = attrs.Factory(list)
    # per action, its parameters as (name, kind of the values it takes: comp, zone, player, flag, ...)
    action_params: list = attrs.Factory(list)
    decision_pos: dict = attrs.Factory(dict)  # block resuming after a decision -> its choose/turn statement
    decision_prompt: dict = attrs.Factory(dict)  # block resuming after a decision -> its prompt text, if any
    plain_actions: bool = False  # some actions are listed as plain (aid, args) pairs, not as `Action`s
    slot_types: list = attrs.Factory(list)  # per persistent local (`st.l`): the type of what it holds
    slot_scope: dict = attrs.Factory(dict)  # local -> the blocks [first, end) where it always holds a value
    # per component: None, or the function `(st, c) -> text` of a label that reads properties,
    # rendered when the component is shown (`comp_label` holds its label as built, its name)
    live_labels: list = attrs.Factory(list)
    operand_map: dict = attrs.Factory(dict)  # (line, column) -> (what, operands' positions): see pytree.operands
    # the generator back end (compiler/flow.py, run by flowplay.py): `flow_main`, made when first
    # asked for; None when these rules play on the block machine only
    flow: object = UNCOMPILED
    # a log entry ("act", player, action, arguments) -> label, for the actions whose label reads
    # no state: the statistics of `simulate` name every choice taken in a game (balance/records.py)
    label_cache: dict = attrs.Factory(dict)
    # what every record of `simulate` names the same way (actions, players, triggers): worked
    # out on the first record of this program (balance/records.py)
    record_names: object = None
    # the native engine (ruleforge/native/engine.py): made when first asked for, or why there is none
    native_engine: object = NOT_TRIED

    def shown_label(self, st, c: int) -> str:
        """A component as people see it now: its label, rendered afresh if it reads properties."""
        live = self.live_labels[c] if self.live_labels else None
        return self.comp_label[c] if live is None else live(st, c)

    @property
    def source(self) -> str:
        """The generated code as Python text, for people to read (it is never compiled)."""
        return py.unparse(self.module)


def effects_of(decl) -> list:
    """An action's statements that act (its `require`s only decide whether it is legal)."""
    return [s for s in decl.body if not isinstance(s, ast.Require)]


class Env:
    """Local names visible to generated code, and the code that reaches each one (a tree; a
    compiler-made identifier given as a str stands for that name)."""

    def __init__(self, names: dict | None = None, me=None, types: dict | None = None):
        self.names = {k: pytree.code(v) for k, v in (names or {}).items()}
        self.me = None if me is None else pytree.code(me)
        self.types = dict(types or {})  # an inlined def's parameters: the arguments' own types
        self.nullable: set[str] = set()  # locals that may hold none (a `let` of an empty zone's top)
        self.bounds: dict[str, tuple[int, int]] = {}  # locals known to hold an int in [low, high]

    def child(self) -> Env:
        inner = Env(self.names, self.me, self.types)
        inner.nullable = set(self.nullable)
        inner.bounds = dict(self.bounds)
        return inner

    def bind(self, name: str, code, bounds: tuple[int, int] | None = None) -> None:
        """`name` now stands for `code` (an int in `bounds`, when they are known)."""
        self.names[name] = pytree.code(code)
        if bounds is None:
            self.bounds.pop(name, None)
        else:
            self.bounds[name] = bounds


