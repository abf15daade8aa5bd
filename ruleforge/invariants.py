"""Loop-invariant work in legal-action enumeration, computed once instead of per combination.

An action's parameters are nested loops; a requirement or a parameter's source often holds
a costly part that reads none of the inner parameters (a grid's extent, a list built from
the state). Such a part is given a name, reset to `UNSET` where the parameters it reads
are bound, and computed **lazily** the first time it is needed: a part that a guard
protected (`count(z) > 0 and top_of(z)...`) is still computed only when the guard lets it,
and each combination sees exactly the value it saw before.
"""

from __future__ import annotations

import ast as pyast
from collections.abc import Callable, Iterator

from .codegen import uses

# A part worth naming: a comprehension, a call of a helper that scans a grid, or at least this
# many Python syntax nodes, so that a cheap lookup is not replaced by a dearer lazy test.
MIN_NODES = 12
SCANS = {"extent", "grid_items", "groups", "longest_paths"}
UNSET = object()  # the value of a lifted part not computed yet (in the program's namespace)


def lazy(name: str, code: str) -> str:
    """Code reading `name`, computing it with `code` the first time."""
    return f"({name} if {name} is not UNSET else ({name} := {code}))"


def lift_invariants(cond: str, variables: list[str], depth: int,
                    fresh: Callable[[], str]) -> tuple[str, list[tuple[int, str]]]:
    """`cond` (tested where the first `depth` parameters are bound) with its costly parts
    that read fewer parameters replaced by lazily computed names; returns the new code and
    `(depth to reset at, name)` per part lifted. Unchanged when nothing can be lifted."""
    if depth <= 0:
        return cond, []
    tree = pyast.parse(cond, mode="eval")
    local = _bound_names(tree)
    lifted: list[tuple[int, str]] = []

    class Lift(pyast.NodeTransformer):
        def generic_visit(self, node: pyast.AST) -> pyast.AST:
            if isinstance(node, pyast.expr) and _costly(node) and not (_names(node) - _bound_names(node)) & local \
                    and not any(isinstance(n, (pyast.NamedExpr, pyast.Lambda)) for n in pyast.walk(node)):
                at = uses(node, variables)
                if at < depth:
                    name = fresh()
                    lifted.append((at, name))
                    return pyast.parse(lazy(name, pyast.unparse(node)), mode="eval").body
            return super().generic_visit(node)

    new = pyast.unparse(Lift().visit(tree))
    if not lifted:
        return cond, []
    try:
        compile(new, "<lifted>", "eval")  # e.g. `:=` may not stand in a comprehension's source
    except SyntaxError:
        return cond, []
    return new, lifted


def costly_source(code: str) -> bool:
    """Whether a parameter's source is worth listing once: it builds a list (a comprehension,
    a scan of a grid), where a range or a zone's own list costs nothing to go through again."""
    return any(isinstance(n, (pyast.ListComp, pyast.GeneratorExp, pyast.SetComp))
               or isinstance(n, pyast.Call) and isinstance(n.func, pyast.Name) and n.func.id in SCANS
               for n in pyast.walk(pyast.parse(code, mode="eval")))


def costly_part(code: str) -> bool:
    """Whether an expression's code is worth computing once rather than several times."""
    node = pyast.parse(code, mode="eval").body
    return _costly(node) and not any(isinstance(n, (pyast.NamedExpr, pyast.Lambda)) for n in pyast.walk(node))


def _costly(node: pyast.expr) -> bool:
    if not isinstance(node, (pyast.Call, pyast.ListComp, pyast.GeneratorExp, pyast.SetComp)):
        return False
    if "rand_" in pyast.unparse(node):
        return False
    if isinstance(node, pyast.Call) and isinstance(node.func, pyast.Name) and node.func.id in SCANS:
        return True
    return sum(1 for _ in pyast.walk(node)) >= MIN_NODES


def _names(node: pyast.AST) -> set[str]:
    return {n.id for n in pyast.walk(node) if isinstance(n, pyast.Name)}


def _bound_names(tree: pyast.AST) -> set[str]:
    """Names a condition binds itself (comprehension variables, `:=` targets, lambda
    arguments): a part reading one of them belongs where it is."""
    out: set[str] = set()
    for node in pyast.walk(tree):
        if isinstance(node, pyast.comprehension):
            out |= _names(node.target)
        elif isinstance(node, pyast.NamedExpr):
            out.add(node.target.id)
        elif isinstance(node, pyast.Lambda):
            out |= {a.arg for a in node.args.args}
    return out


def names(prefix: str) -> Iterator[str]:
    """Fresh names for lifted parts."""
    k = 0
    while True:
        yield f"{prefix}{k}"
        k += 1
