"""The extension module's source: the generated module(s) written out as Python text.

The block machine's module and the generator back end's are trees the compiler built, in which
every text of the rules is a constant (docs/design.md); `ast.unparse` writes them out, so the
text compiled to C holds no more of the rules than the code `exec` runs today. The names the
program's namespace provides (runtime helpers, constant tables) are declared at the top as
`NAME = None`, so that Cython knows them as module globals; they are filled when the built
module is imported (ruleforge/compiled/__init__.py).

Cython names a failing line by its line in this text. `rule_lines` maps those lines back to
the rules, as `Program.line_map` does for the module `exec` runs, so that a rule failing in a
compiled game is told at its rule.
"""

from __future__ import annotations

import ast as py
from typing import Any

HEADER = "# ruleforge: generated from a rules file; every text of the rules is a constant here\n"
FLOW_GLOBALS = ("ACTF", "ACTG")  # what flowplay.flow_main puts in the namespace for the generators


def defined_names(*modules: py.Module) -> set[str]:
    """The top-level names the modules define (their functions and constants)."""
    names: set[str] = set()
    for module in modules:
        for node in module.body:
            if isinstance(node, py.FunctionDef):
                names.add(node.name)
            elif isinstance(node, py.Assign):
                names.update(target.id for target in node.targets if isinstance(target, py.Name))
    return names


def provided_names(namespace: dict[str, Any], defined: set[str]) -> list[str]:
    """The names the namespace gives the module: every entry it does not define itself."""
    names = {name for name in namespace if name.isidentifier() and not name.startswith("__")}
    return sorted((names | set(FLOW_GLOBALS)) - defined)


def extension_source(main: py.Module, flow: py.Module | None, provided: list[str]) -> tuple[str, int]:
    """The module's text, and the line its first generated statement is on."""
    head = HEADER + "".join(f"{name} = None\n" for name in provided) + "\n"
    body = py.unparse(main) + "\n"
    if flow is not None:
        body += "\n\n" + py.unparse(flow) + "\n"
    return head + body, head.count("\n") + 1


def rule_lines(main: py.Module, first: int, line_map: dict[int, Any]) -> dict[int, Any]:
    """Line of the written text -> the rules position `line_map` gives the statement's line in
    the tree (the tree's lines are those `pytree.number_lines` gave; the text's are unparse's)."""
    written = py.parse(py.unparse(main))
    out: dict[int, Any] = {}
    for ours, theirs in zip(py.walk(written), py.walk(main)):
        if isinstance(ours, py.stmt) and getattr(theirs, "lineno", None) in line_map:
            out[ours.lineno + first - 1] = line_map[theirs.lineno]
    return out
