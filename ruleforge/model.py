"""The symbol table of a rules file: every declaration by name, and the value types."""

from __future__ import annotations

import attrs

from . import ast

# --- value types ------------------------------------------------------------------


@attrs.frozen
class Type:
    """A value type. `kind` is int, flag, text, player, enum, comp, zone, list, none, any."""

    kind: str
    name: str = ""  # enum name, component kind name ("" = any kind)
    element: Type | None = None

    def __str__(self) -> str:
        if self.kind == "enum":
            return self.name
        if self.kind == "comp":
            return self.name or "component"
        if self.kind == "list":
            return f"list of {self.element}"
        return self.kind


INT = Type("int")
FLAG = Type("flag")
TEXT = Type("text")
PLAYER = Type("player")
ZONE = Type("zone")
NONE = Type("none")
ANY = Type("any")
COMP = Type("comp")


def list_of(t: Type) -> Type:
    return Type("list", element=t)


def element_of(t: Type) -> Type | None:
    """What iterating over a value of type t yields (None if not iterable)."""
    if t.kind in ("zone", "grid"):
        return COMP
    if t.kind == "list":
        return t.element
    if t.kind == "any":
        return ANY
    return None


def compatible(want: Type, got: Type) -> bool:
    if ANY in (want, got) or got == NONE:
        return True
    if want.kind == "comp" and got.kind == "comp":
        return not want.name or not got.name or want.name == got.name
    if want.kind == "list" and got.kind == "list":
        return compatible(want.element or ANY, got.element or ANY)
    if want.kind == "list" and got.kind == "zone":
        return compatible(want.element or ANY, COMP)
    if want.kind == "zone" and got.kind == "zone":
        return True  # a zone's name, where known, only narrows which triggers may fire
    return want == got


@attrs.define
class KindInfo:
    decl: ast.KindDecl
    attrs: dict[str, ast.AttrDecl]
    props: dict[str, ast.AttrDecl]


@attrs.define
class Model:
    """Declarations by name, after a variant has been merged over its base."""

    title: str = "untitled"
    players: tuple[int, int] = (2, 2)
    enums: dict[str, ast.EnumDecl] = attrs.Factory(dict)
    members: dict[str, str] = attrs.Factory(dict)  # enum member -> enum name
    kinds: dict[str, KindInfo] = attrs.Factory(dict)
    zones: dict[str, ast.ZoneDecl] = attrs.Factory(dict)
    vars: dict[str, ast.VarDecl] = attrs.Factory(dict)
    options: dict[str, ast.OptionDecl] = attrs.Factory(dict)
    defs: dict[str, ast.DefDecl] = attrs.Factory(dict)
    phases: dict[str, ast.PhaseDecl] = attrs.Factory(dict)
    actions: dict[str, ast.ActionDecl] = attrs.Factory(dict)
    scorings: dict[str, ast.ScoringDecl] = attrs.Factory(dict)
    triggers: list[ast.TriggerDecl] = attrs.Factory(list)
    components: list[ast.ComponentEntry] = attrs.Factory(list)
    flow: ast.FlowDecl | None = None
    ranking: ast.RankingDecl | None = None
    end_rules: list[ast.EndDecl] = attrs.Factory(list)
    invariants: list[ast.InvariantDecl] = attrs.Factory(list)
    measures: dict[str, ast.MeasureDecl] = attrs.Factory(dict)
    displays: dict[str, ast.DisplayDecl] = attrs.Factory(dict)  # by kind: drawing hints, never code
    colours: dict[str, ast.ColourDecl] = attrs.Factory(dict)  # by name: the colours hints may name
    # attribute name -> (type, is_mutable), merged over all kinds
    attr_types: dict[str, tuple[Type, bool]] = attrs.Factory(dict)
    score_targets: list[str] = attrs.Factory(list)  # vars that `score ... into` adds to

    def all_names(self) -> set[str]:
        return (set(self.enums) | set(self.members) | set(self.kinds) | set(self.zones) | set(self.vars)
                | set(self.options) | set(self.defs) | set(self.phases) | set(self.actions) | set(self.scorings))
