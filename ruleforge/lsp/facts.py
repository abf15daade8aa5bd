"""What completion needs to know of a checked rules file beyond its declared names: each kind's
attributes and properties, and the types of variables, defs and options.

Taken from the checker's model once per check and kept as plain data, so that completing a
half-typed line (which does not parse, so is not checked) answers from the last text that did.
"""

from __future__ import annotations

import attrs

from .. import ast
from ..checker import Checker


@attrs.frozen
class Member:
    """An attribute (`mutable` False) or a `var` property of a kind."""

    name: str
    type: str
    mutable: bool


@attrs.frozen
class Facts:
    kinds: dict[str, tuple[Member, ...]] = attrs.field(factory=dict)
    # a var, def or option's type: the kind name for one component ("Card"), "list of Card", "int"...
    types: dict[str, str] = attrs.field(factory=dict)
    per_player: frozenset[str] = frozenset()  # the per-player variables (what `score ... into` fills)


def type_text(t: ast.TypeRef | None) -> str:
    """A type as written: `list of Card`."""
    if t is None:
        return "any"
    if t.name == "list":
        return f"list of {type_text(t.element)}"
    return t.name


def facts_of(checker: Checker) -> Facts:
    model = checker.model
    kinds = {name: tuple(Member(a.name, type_text(a.type), a.mutable)
                         for a in (*info.attrs.values(), *info.props.values()))
             for name, info in model.kinds.items()}
    types = {name: type_text(v.type) for name, v in model.vars.items()}
    types.update({name: type_text(o.type) for name, o in model.options.items()})
    for name, t in checker.def_types.items():
        types.setdefault(name, str(t))
    return Facts(kinds, types, frozenset(n for n, v in model.vars.items() if v.per_player))
