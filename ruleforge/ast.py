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

# --- types --------------------------------------------------------------------


@attrs.frozen
class TypeRef:
    """A type as written: `int`, `Card`, `player`, `list of Card`."""

    name: str
    pos: Pos = attrs.field(eq=False)
    element: TypeRef | None = None


# --- expressions ----------------------------------------------------------------


@attrs.frozen(eq=False)
class Expr:
    pos: Pos


@attrs.frozen(eq=False)
class IntLit(Expr):
    value: int


@attrs.frozen(eq=False)
class StrLit(Expr):
    """A string; `{expr}` parts are interpolated (parts alternate text, Expr)."""

    parts: tuple


@attrs.frozen(eq=False)
class Name(Expr):
    ident: str


@attrs.frozen(eq=False)
class Attr(Expr):
    obj: Expr
    attr: str


@attrs.frozen(eq=False)
class Call(Expr):
    func: str
    args: tuple


@attrs.frozen(eq=False)
class GenCall(Expr):
    """`func(item for var in source if cond by key)`: an aggregate over a source."""

    func: str
    item: Expr
    var: str
    source: Expr
    cond: Expr | None
    key: Expr | None
    more: tuple = ()  # further `for var in source if cond` clauses, nested in order


@attrs.frozen(eq=False)
class Players(Expr):
    start: Expr | None


@attrs.frozen(eq=False)
class ListLit(Expr):
    items: tuple


@attrs.frozen(eq=False)
class TableEntry:
    key: int | None  # None for `else`
    at_least: bool
    value: Expr


@attrs.frozen(eq=False)
class Table(Expr):
    subject: Expr
    entries: tuple


@attrs.frozen(eq=False)
class IfExpr(Expr):
    cond: Expr
    then: Expr
    other: Expr


@attrs.frozen(eq=False)
class BoolOp(Expr):
    op: str  # "and" | "or"
    left: Expr
    right: Expr


@attrs.frozen(eq=False)
class Not(Expr):
    operand: Expr


@attrs.frozen(eq=False)
class Compare(Expr):
    op: str
    left: Expr
    right: Expr


@attrs.frozen(eq=False)
class Range(Expr):
    low: Expr
    high: Expr


@attrs.frozen(eq=False)
class BinOp(Expr):
    op: str
    left: Expr
    right: Expr


@attrs.frozen(eq=False)
class Neg(Expr):
    operand: Expr


# --- statements -------------------------------------------------------------------


@attrs.frozen(eq=False)
class Stmt:
    pos: Pos


@attrs.frozen(eq=False)
class Let(Stmt):
    name: str
    value: Expr


@attrs.frozen(eq=False)
class Assign(Stmt):
    """`target op value`; target is a Name, a Call `var(player)` or an Attr (property)."""

    target: Expr
    op: str
    value: Expr


@attrs.frozen(eq=False)
class Move(Stmt):
    what: Expr
    dest: Expr
    top: Expr | None = None  # `move top N of zone`
    at_bottom: bool = False


@attrs.frozen(eq=False)
class Deal(Stmt):
    count: Expr
    source: Expr
    zone: str


@attrs.frozen(eq=False)
class Shuffle(Stmt):
    zone: Expr


@attrs.frozen(eq=False)
class Swap(Stmt):
    left: Expr
    right: Expr


@attrs.frozen(eq=False)
class Reveal(Stmt):
    what: Expr
    to: Expr


@attrs.frozen(eq=False)
class If(Stmt):
    branches: tuple  # ((cond, body), ...)
    otherwise: tuple


@attrs.frozen(eq=False)
class For(Stmt):
    var: str
    source: Expr
    body: tuple


@attrs.frozen(eq=False)
class Repeat(Stmt):
    times: Expr
    body: tuple


@attrs.frozen(eq=False)
class RepeatUntil(Stmt):
    body: tuple
    cond: Expr


@attrs.frozen(eq=False)
class While(Stmt):
    cond: Expr
    body: tuple


@attrs.frozen(eq=False)
class Turn(Stmt):
    """A player's turn: its body runs with `me` bound; limits per turn reset."""

    player: Expr
    body: tuple


@attrs.frozen(eq=False)
class Choose(Stmt):
    """A decision: the player (of the turn or action) picks one of these actions."""

    actions: tuple  # names, with their positions
    action_pos: tuple


@attrs.frozen(eq=False)
class ScoreStmt(Stmt):
    scoring: str
    into: str


@attrs.frozen(eq=False)
class Log(Stmt):
    text: StrLit


@attrs.frozen(eq=False)
class Require(Stmt):
    cond: Expr


@attrs.frozen(eq=False)
class EndGame(Stmt):
    pass


@attrs.frozen(eq=False)
class CallPhase(Stmt):
    name: str


# --- declarations -----------------------------------------------------------------


@attrs.frozen(eq=False)
class Decl:
    pos: Pos

    @property
    def key(self) -> tuple[str, str]:
        """Identity used by variants to replace or remove a declaration."""
        return (type(self).__name__, getattr(self, "name", ""))


@attrs.frozen(eq=False)
class GameDecl(Decl):
    title: str

    @property
    def key(self) -> tuple[str, str]:
        return ("GameDecl", "")


@attrs.frozen(eq=False)
class PlayersDecl(Decl):
    low: int
    high: int

    @property
    def key(self) -> tuple[str, str]:
        return ("PlayersDecl", "")


@attrs.frozen(eq=False)
class ExtendsDecl(Decl):
    path: str


@attrs.frozen(eq=False)
class OptionDecl(Decl):
    name: str
    type: TypeRef
    default: Expr


@attrs.frozen(eq=False)
class EnumDecl(Decl):
    name: str
    members: tuple


@attrs.frozen(eq=False)
class AttrDecl:
    pos: Pos
    name: str
    type: TypeRef
    default: Expr | None
    mutable: bool


@attrs.frozen(eq=False)
class KindDecl(Decl):
    name: str
    attrs: tuple
    label: StrLit | None
    counts_as: tuple = ()  # names of enum-valued attributes / properties: what `is` tests


@attrs.frozen(eq=False)
class ComponentEntry:
    pos: Pos
    copies: Expr | None
    kind: str
    args: tuple  # ((name, Expr, pos), ...)
    zone: str
    zone_pos: Pos
    each_player: bool
    cond: Expr | None


@attrs.frozen(eq=False)
class ComponentsDecl(Decl):
    entries: tuple

    @property
    def key(self) -> tuple[str, str]:
        return ("ComponentsDecl", "")


@attrs.frozen(eq=False)
class ZoneDecl(Decl):
    name: str
    per_player: bool
    shape: str
    visibility: str
    size: tuple | None
    # extra visibility rules: (visibility, row or None, condition or None)
    rules: tuple = ()


@attrs.frozen(eq=False)
class VarDecl(Decl):
    name: str
    per_player: bool
    type: TypeRef
    default: Expr | None


@attrs.frozen(eq=False)
class Param:
    pos: Pos
    name: str
    type: TypeRef


@attrs.frozen(eq=False)
class DefDecl(Decl):
    name: str
    params: tuple
    body: Expr


@attrs.frozen(eq=False)
class PhaseDecl(Decl):
    name: str
    body: tuple


@attrs.frozen(eq=False)
class FlowDecl(Decl):
    body: tuple

    @property
    def key(self) -> tuple[str, str]:
        return ("FlowDecl", "")


@attrs.frozen(eq=False)
class ActionParam:
    pos: Pos
    name: str
    domain: Expr


@attrs.frozen(eq=False)
class Limit:
    pos: Pos
    times: int
    scope: str  # "turn" | "game"


@attrs.frozen(eq=False)
class ActionDecl(Decl):
    name: str
    params: tuple
    label: StrLit | None
    limits: tuple
    body: tuple
    secret: bool = False
    public_label: StrLit | None = None  # what the other players see of a secret action


@attrs.frozen(eq=False)
class TriggerDecl(Decl):
    event: str  # "enter" | "leave"
    zone: str
    body: tuple
    other: str | None = None  # `into Z from OTHER` / `out of Z into OTHER`

    @property
    def key(self) -> tuple[str, str]:
        return ("TriggerDecl", f"{self.event}:{self.zone}:{self.other or ''}")


@attrs.frozen(eq=False)
class ScoreItem:
    pos: Pos
    label: str
    mode: str  # "points" | "double" | "zero" | "multiply"
    value: Expr | None
    cond: Expr | None


@attrs.frozen(eq=False)
class BestChoice:
    """`best c.prop in options for c in source if cond`: a choice the engine makes for the
    player at scoring time, trying every combination and keeping the best total."""

    pos: Pos
    var: str
    prop: str
    options: Expr
    source: Expr
    cond: Expr | None
    source_var: str


@attrs.frozen(eq=False)
class ScoringDecl(Decl):
    name: str
    player: str
    final: bool
    items: tuple


@attrs.frozen(eq=False)
class EndDecl(Decl):
    """`end when COND (then after turn of P)`: checked when each turn is over."""

    cond: Expr
    last: Expr | None

    @property
    def key(self) -> tuple[str, str]:
        return ("EndDecl", f"{self.pos.line}:{self.pos.column}")


@attrs.frozen(eq=False)
class RankingDecl(Decl):
    player: str
    keys: tuple

    @property
    def key(self) -> tuple[str, str]:
        return ("RankingDecl", "")


@attrs.frozen(eq=False)
class RemoveDecl(Decl):
    kind: str
    name: str


@attrs.frozen(eq=False)
class ReplaceDecl(Decl):
    decl: Decl


@attrs.frozen(eq=False)
class ExtendScoringDecl(Decl):
    """`extend scoring NAME for P { items }` in a variant: items added after the base's."""

    name: str
    player: str
    items: tuple


@attrs.frozen(eq=False)
class RulesFile:
    path: str
    source: str
    decls: tuple


AnyDecl = Union[Decl]
