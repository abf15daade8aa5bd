"""The syntax tree of a rules file: frozen attrs nodes, each with its source position."""

from __future__ import annotations

from typing import Union

import attrs


@attrs.frozen
class Pos:
    """Where a node starts in its file (1-based line and column)."""

    file: str
    line: int
    column: int
    end_line: int = 0
    end_column: int = 0


NOWHERE = Pos("<builtin>", 0, 0)


class _Node:
    """Shared by every node: one `repr` for all, so that defining the ~70 node classes when
    ruleforge is imported (every `ruleforge check`) does not generate one per class."""

    __slots__ = ()

    def __repr__(self) -> str:
        fields = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in attrs.fields(type(self)))
        return f"{type(self).__name__}({fields})"


node = attrs.frozen(eq=False, repr=False)  # a node is compared by identity: the checker keys dicts by it

# --- types --------------------------------------------------------------------


@attrs.frozen
class TypeRef:
    """A type as written: `int`, `Card`, `player`, `list of Card`."""

    name: str
    pos: Pos = attrs.field(eq=False)
    element: TypeRef | None = None


# --- expressions ----------------------------------------------------------------


@node
class Expr(_Node):
    pos: Pos


@node
class IntLit(Expr):
    value: int


@node
class StrLit(Expr):
    """A string; `{expr}` parts are interpolated (parts alternate text, Expr)."""

    parts: tuple


@node
class Name(Expr):
    ident: str


@node
class Attr(Expr):
    obj: Expr
    attr: str


@node
class Index(Expr):
    """`xs[i]`: the item of a list at i, counted from 0."""

    obj: Expr
    index: Expr


@node
class Call(Expr):
    func: str
    args: tuple


@node
class GenCall(Expr):
    """`func(item for var in source if cond by key)`: an aggregate over a source."""

    func: str
    item: Expr
    var: str
    source: Expr
    cond: Expr | None
    key: Expr | None
    more: tuple = ()  # further `for var in source if cond` clauses, nested in order


@node
class Players(Expr):
    start: Expr | None


@node
class ListLit(Expr):
    items: tuple


@node
class TableEntry(_Node):
    key: int | None  # None for `else`
    at_least: bool
    value: Expr


@node
class Table(Expr):
    subject: Expr
    entries: tuple


@node
class IfExpr(Expr):
    cond: Expr
    then: Expr
    other: Expr


@node
class BoolOp(Expr):
    op: str  # "and" | "or"
    left: Expr
    right: Expr


@node
class Not(Expr):
    operand: Expr


@node
class Compare(Expr):
    op: str
    left: Expr
    right: Expr


@node
class Range(Expr):
    low: Expr
    high: Expr


@node
class BinOp(Expr):
    op: str
    left: Expr
    right: Expr


@node
class Neg(Expr):
    operand: Expr


# --- statements -------------------------------------------------------------------


@node
class Stmt(_Node):
    pos: Pos


@node
class Let(Stmt):
    name: str
    value: Expr


@node
class Assign(Stmt):
    """`target op value`; target is a Name, a Call `var(player)` or an Attr (property)."""

    target: Expr
    op: str
    value: Expr


@node
class Move(Stmt):
    what: Expr
    dest: Expr
    top: Expr | None = None  # `move top N of zone`
    at_bottom: bool = False


@node
class Deal(Stmt):
    count: Expr
    source: Expr
    zone: str


@node
class Shuffle(Stmt):
    zone: Expr


@node
class Sort(Stmt):
    """`sort c in Z by key`: Z's components reordered, smallest key at the bottom (stable)."""

    var: str
    zone: Expr
    key: Expr


@node
class Swap(Stmt):
    left: Expr
    right: Expr


@node
class Reveal(Stmt):
    what: Expr
    to: Expr


@node
class If(Stmt):
    branches: tuple  # ((cond, body), ...)
    otherwise: tuple


@node
class For(Stmt):
    var: str
    source: Expr
    body: tuple


@node
class Repeat(Stmt):
    times: Expr
    body: tuple


@node
class RepeatUntil(Stmt):
    body: tuple
    cond: Expr


@node
class While(Stmt):
    cond: Expr
    body: tuple


@node
class Turn(Stmt):
    """A player's turn: its body runs with `me` bound; limits per turn reset."""

    player: Expr
    body: tuple


@node
class Choose(Stmt):
    """A decision: the player (of the turn or action) picks one of these actions."""

    actions: tuple  # names, with their positions
    action_pos: tuple
    prompt: StrLit | None = None  # `choose "spend more?": ...`: what the decision asks, plain text


@node
class Together(Stmt):
    """A simultaneous decision: every player of `players` chooses among these actions at once;
    the choices run, in seat order, once all are in."""

    players: Expr
    actions: tuple  # names, with their positions
    action_pos: tuple


@node
class ScoreStmt(Stmt):
    scoring: str
    into: str


@node
class Log(Stmt):
    text: StrLit


@node
class Require(Stmt):
    cond: Expr


@node
class EndGame(Stmt):
    pass


@node
class CallPhase(Stmt):
    name: str
    args: tuple = ()  # the arguments of a phase with parameters, `deal_to(3, me)`


# --- declarations -----------------------------------------------------------------


@node
class Decl(_Node):
    pos: Pos

    @property
    def key(self) -> tuple[str, str]:
        """Identity used by variants to replace or remove a declaration."""
        return (type(self).__name__, getattr(self, "name", ""))


@node
class GameDecl(Decl):
    title: str

    @property
    def key(self) -> tuple[str, str]:
        return ("GameDecl", "")


@node
class PlayersDecl(Decl):
    low: int
    high: int

    @property
    def key(self) -> tuple[str, str]:
        return ("PlayersDecl", "")


@node
class ExtendsDecl(Decl):
    path: str


@node
class OptionDecl(Decl):
    name: str
    type: TypeRef
    default: Expr


@node
class EnumDecl(Decl):
    name: str
    members: tuple


@node
class AttrDecl(_Node):
    pos: Pos
    name: str
    type: TypeRef
    default: Expr | None
    mutable: bool


@node
class KindDecl(Decl):
    name: str
    attrs: tuple
    label: StrLit | None
    counts_as: tuple = ()  # names of enum-valued attributes / properties: what `is` tests


@node
class ComponentEntry(_Node):
    pos: Pos
    copies: Expr | None
    kind: str
    args: tuple  # ((name, Expr, pos), ...)
    zone: str
    zone_pos: Pos
    each_player: bool
    cond: Expr | None


@node
class ComponentsDecl(Decl):
    entries: tuple

    @property
    def key(self) -> tuple[str, str]:
        return ("ComponentsDecl", "")


@node
class ZoneDecl(Decl):
    name: str
    per_player: bool
    shape: str
    visibility: str
    size: tuple | None
    # extra visibility rules: (visibility, row or None, condition or None)
    rules: tuple = ()


@node
class VarDecl(Decl):
    name: str
    per_player: bool
    type: TypeRef
    default: Expr | None
    visible: str = "everyone"  # or "owner": only its player's views show it (per player)


@node
class Param(_Node):
    pos: Pos
    name: str
    type: TypeRef


@node
class DefDecl(Decl):
    name: str
    params: tuple
    body: Expr


@node
class PhaseDecl(Decl):
    name: str
    body: tuple
    params: tuple = ()  # typed like a def's: `phase deal_to(n: int, p: player) { ... }`


@node
class FlowDecl(Decl):
    body: tuple

    @property
    def key(self) -> tuple[str, str]:
        return ("FlowDecl", "")


@node
class ActionParam(_Node):
    pos: Pos
    name: str
    domain: Expr


@node
class Limit(_Node):
    pos: Pos
    times: int
    scope: str  # "turn" | "game"


@node
class ActionDecl(Decl):
    name: str
    params: tuple
    label: StrLit | None
    limits: tuple
    body: tuple
    secret: bool = False
    public_label: StrLit | None = None  # what the other players see of a secret action


@node
class TriggerDecl(Decl):
    event: str  # "enter" | "leave"
    zone: str
    body: tuple
    other: str | None = None  # `into Z from OTHER` / `out of Z into OTHER`

    @property
    def key(self) -> tuple[str, str]:
        return ("TriggerDecl", f"{self.event}:{self.zone}:{self.other or ''}")


@node
class ScoreItem(_Node):
    pos: Pos
    label: str
    mode: str  # "points" | "double" | "zero" | "multiply"
    value: Expr | None
    cond: Expr | None


@node
class BestChoice(_Node):
    """`best c.prop in options for c in source if cond`: a choice the engine makes for the
    player at scoring time, trying every combination and keeping the best total."""

    pos: Pos
    var: str
    prop: str
    options: Expr
    source: Expr
    cond: Expr | None
    source_var: str


@node
class BestValue(_Node):
    """`best name in source (into var)`: a value the engine chooses for the player at scoring
    time, trying each and keeping the best total; `into` keeps the choice in a variable."""

    pos: Pos
    var: str
    source: Expr
    into: str | None


@node
class ScoringDecl(Decl):
    name: str
    player: str
    final: bool
    items: tuple


@node
class MeasureDecl(Decl):
    """`measure NAME = EXPR`: a number the statistics work out at the end of every game. Its
    name is a label of its own (like a scoring item's), so it may match a variable's name."""

    label: str
    value: Expr

    @property
    def key(self) -> tuple[str, str]:
        return ("MeasureDecl", self.label)


@node
class InvariantDecl(Decl):
    """`invariant "message" (for p)? { cond }`: what every state of the game satisfies; a
    position or a saved state that breaks it is refused with the message."""

    message: StrLit
    player: str | None
    cond: Expr

    @property
    def key(self) -> tuple[str, str]:
        return ("InvariantDecl", f"{self.pos.file}:{self.pos.line}:{self.pos.column}")


@node
class EndDecl(Decl):
    """`end when COND (then after turn of P)`: checked when each turn is over."""

    cond: Expr
    last: Expr | None

    @property
    def key(self) -> tuple[str, str]:
        return ("EndDecl", f"{self.pos.line}:{self.pos.column}")


@node
class RankingDecl(Decl):
    player: str
    keys: tuple

    @property
    def key(self) -> tuple[str, str]:
        return ("RankingDecl", "")


@node
class HintEntry(_Node):
    """`Sea: "#3b82c4"` in a display table: a value as written (a name or digits) -> text."""

    pos: Pos
    key: str
    is_number: bool
    text: str
    text_pos: Pos


@node
class DisplayHint(_Node):
    """One line of a `display` block. `what` is colour, icon, path, turn or mark; `attr` the
    attribute or property it depends on (None for a fixed colour or icon); `text` a fixed
    colour, icon or mark glyph; `entries` the table of a `by`; `degrees` a turn's angle."""

    pos: Pos
    what: str
    attr: str | None
    attr_pos: Pos | None
    text: str | None = None
    text_pos: Pos | None = None
    entries: tuple = ()
    degrees: int = 0


@node
class ColourDecl(Decl):
    """`palette NAME = "#rrggbb"`: a colour named by the rules file, for its display hints to use
    by name (the engine knows no colour names of its own)."""

    name: str
    name_pos: Pos
    value: str
    value_pos: Pos


@node
class DisplayDecl(Decl):
    """`display KIND { ... }`: how components of a kind are drawn. Plain data for the pictures;
    it adds nothing to a game's code. (No `name` field: the kind's name is declared by the kind.)"""

    kind: str
    kind_pos: Pos
    hints: tuple

    @property
    def key(self) -> tuple[str, str]:
        return ("DisplayDecl", self.kind)


@node
class RemoveDecl(Decl):
    kind: str
    name: str


@node
class ReplaceDecl(Decl):
    decl: Decl


@node
class ExtendScoringDecl(Decl):
    """`extend scoring NAME for P { items }` in a variant: items added after the base's."""

    name: str
    player: str
    items: tuple


@node
class RulesFile(_Node):
    path: str
    source: str
    decls: tuple


AnyDecl = Union[Decl]
