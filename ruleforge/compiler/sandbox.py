"""What the generated module may reach: defence in depth behind building it as trees.

The compiler puts every text of a rules file into the generated code as a constant, so no
rules file can make it call anything. Should a bug ever let one through, the module still
runs with only the builtins below (no `__import__`, `open`, `eval`, `exec`, `getattr`,
`globals`), and `unexpected_names` lets a test check that every name, attribute and call in
a generated module is one the compiler may emit.
"""

from __future__ import annotations

import ast as py
import builtins

# the builtins generated code calls (and the exceptions it raises)
BUILTINS = ("abs", "all", "any", "len", "list", "map", "max", "min", "next", "range", "reversed", "set",
            "str", "sum", "tuple", "zip", "AssertionError", "RuntimeError")

# attributes generated code reads: the state's fields and the methods of lists and dicts
ATTRIBUTES = frozenset({
    "z", "v", "l", "p", "w", "f", "b", "log", "over", "pc", "chooser", "options", "stack", "turn", "used",
    "opt", "append", "pop", "remove", "extend", "get", "__getitem__",
    # the runtime module's and the limits' names
    "rounds", "bounded_choices", "TooManyChoices", "EndlessLoop", "no_entry", "span", "times", "joined",
    "bounded_text", "choices", "together",
    "blocks_without_decision",
})


def builtins_for_rules() -> dict:
    """The `__builtins__` of a generated module: only what it calls."""
    return {name: getattr(builtins, name) for name in BUILTINS}


def unexpected_names(module: py.Module, namespace: dict) -> list[str]:
    """Every name the module reads that neither it, its namespace nor BUILTINS defines, and
    every attribute outside ATTRIBUTES (an empty list for a module the compiler may emit)."""
    bound: set[str] = set()
    for node in py.walk(module):
        if isinstance(node, py.FunctionDef):
            bound.add(node.name)
        elif isinstance(node, py.arg):
            bound.add(node.arg)
        elif isinstance(node, py.Name) and not isinstance(node.ctx, py.Load):
            bound.add(node.id)
    known = bound | set(namespace) | set(BUILTINS)
    out = []
    for node in py.walk(module):
        if isinstance(node, py.Name) and node.id not in known:
            out.append(f"name {node.id}")
        elif isinstance(node, py.Attribute) and node.attr not in ATTRIBUTES:
            out.append(f"attribute .{node.attr}")
        elif isinstance(node, (py.Import, py.ImportFrom, py.Global, py.Nonlocal, py.ClassDef, py.AsyncFunctionDef,
                               py.Await, py.Yield, py.YieldFrom, py.With, py.Try, py.Delete)):
            out.append(f"statement {type(node).__name__}")
    return out
