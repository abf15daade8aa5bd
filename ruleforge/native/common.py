"""What every part of the lowering shares: the refusal, a few C shapes, and how to name a form."""

from __future__ import annotations

import ast as py

from . import ctree as c

NONE = c.Name("RF_NONE")
ST = c.Name("st")
TEXT_BASE = -(1 << 62)  # texts are ids from here up: far from any count or score a game keeps



class NotLowered(Exception):
    """A form of the generated code the native engine does not run (yet): what it is, and the
    rule it was made for when known (`where`)."""

    where = None


def form(node: py.AST) -> str:
    """A piece of generated code named by its form, never by its text: a text of the rules
    would otherwise reach the terminal in a message."""
    if isinstance(node, py.Name):
        return safe_name(node.id)
    if isinstance(node, py.Call):
        return f"a call of {form(node.func)}"
    if isinstance(node, py.Attribute):
        return f"{form(node.value)}.{safe_name(node.attr)}"
    if isinstance(node, py.Subscript):
        return f"an item of {form(node.value)}"
    return f"a {type(node).__name__}"


def safe_name(name: str) -> str:
    """An identifier as plain ASCII (one from the rules may be any letters)."""
    return name.encode("ascii", "backslashreplace").decode("ascii")


def call(func: str, *args: c.Expr) -> c.Call:
    return c.Call(func, tuple(args))


def truth(e: c.Expr) -> c.Expr:
    return call("rf_truth", e)


def st_field(name: str) -> c.Arrow:
    return c.Arrow(ST, name)


def is_name(node: py.expr, ident: str) -> bool:
    return isinstance(node, py.Name) and node.id == ident


def is_const(node: py.expr, value) -> bool:
    return isinstance(node, py.Constant) and node.value == value and type(node.value) is type(value)


def pusher(array: c.Expr, length: c.Expr):
    """A step that appends each value to a list's buffer (within its capacity)."""

    def push(value: c.Expr) -> tuple[c.Stmt, ...]:
        return (c.Do(call("rf_push", ST, array, c.Unary("&", length), value)),)

    return push
