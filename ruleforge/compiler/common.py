"""Constants and small helpers the compiler's parts share."""

from __future__ import annotations

import attrs

from .. import ast
from ..model import Type

PASS = "pass"
UNROLLED = ("count", "any", "every", "sum")  # generators written out term by term when short
MAX_UNROLLED = 10
MAX_UNROLLED_CODE = 400  # characters of the item and condition copied per value


def stay(st, me) -> int:
    """Applying `pass`: the game goes on where it was."""
    return st.pc


class SetupState:
    """Stands in for the state while setup-time expressions are evaluated."""

    def __init__(self, opt):
        self.opt = opt


def sub_expressions(e: ast.Expr) -> list[ast.Expr]:
    out: list[ast.Expr] = []
    for f in attrs.fields(type(e)):
        value = getattr(e, f.name)
        for item in value if isinstance(value, tuple) else (value,):
            if isinstance(item, ast.Expr):
                out.append(item)
            elif isinstance(item, ast.TableEntry):
                out.append(item.value)
    return out


def item_type(t: Type) -> Type:
    if t.kind == "list" and t.element is not None:
        return t.element
    if t.kind == "zone":
        return Type("comp")
    return t


def zero_value(t: Type):
    return {"int": 0, "flag": False, "text": ""}.get(t.kind)

