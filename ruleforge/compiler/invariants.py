"""Loop-invariant work in legal-action enumeration, computed once instead of per combination.

An action's parameters are nested loops; a requirement or a parameter's source often holds
a costly part that reads none of the inner parameters (a grid's extent, a list built from
the state). Such a part is given a name, reset to `UNSET` where the parameters it reads
are bound, and computed **lazily** the first time it is needed: a part that a guard
protected (`count(z) > 0 and top_of(z)...`) is still computed only when the guard lets it,
and each combination sees exactly the value it saw before.
"""

from __future__ import annotations

import ast as py
from collections.abc import Callable, Iterator

import attrs

from . import pytree as t
from .rewrites import uses

# A part worth naming: a comprehension, a call of a helper that scans a grid, or at least this
# many Python syntax nodes, so that a cheap lookup is not replaced by a dearer lazy test.
MIN_NODES = 12
SCANS = {"extent", "grid_items", "groups", "longest_paths", "compress"}
UNSET = object()  # the value of a lifted part not computed yet (in the program's namespace)
MAX_SHARED = 8  # repeated parts shared per expression at most
ITERATORS = {"reversed", "map", "filter", "zip", "iter", "enumerate", "compress"}  # gone through once only


def lazy(name: str, code: t.Code) -> t.Code:
    """Code reading `name`, computing it with `code` the first time."""
    return t.ifexp(t.compare(t.name(name), "is not", t.name("UNSET")), t.name(name), t.named(name, code))


def lift_invariants(cond: t.Code, variables: list[str], depth: int,
                    fresh: Callable[[], str]) -> tuple[t.Code, list[tuple[int, str]]]:
    """`cond` (tested where the first `depth` parameters are bound) with its costly parts
    that read fewer parameters replaced by lazily computed names; returns the new code and
    `(depth to reset at, name)` per part lifted. Unchanged when nothing can be lifted."""
    if depth <= 0:
        return cond, []
    tree = t.clone(cond)
    local = _bound_names(tree)
    lifted: list[tuple[int, str]] = []

    class Lift(py.NodeTransformer):
        def generic_visit(self, node: py.AST) -> py.AST:
            if isinstance(node, py.expr) and _costly(node) and not (_names(node) - _bound_names(node)) & local \
                    and not any(isinstance(n, (py.NamedExpr, py.Lambda)) for n in t.nodes(node)):
                at = uses(node, variables)
                if at < depth:
                    name = fresh()
                    lifted.append((at, name))
                    return lazy(name, node)
            return super().generic_visit(node)

    new = Lift().visit(tree)
    if not lifted:
        return cond, []
    try:  # e.g. `:=` may not stand in a comprehension's source
        compile(py.fix_missing_locations(py.Expression(t.clone(new))), "<lifted>", "eval")
    except SyntaxError:
        return cond, []
    return new, lifted


def costly_source(code: t.Code) -> bool:
    """Whether a parameter's source is worth listing once: it builds a list (a comprehension,
    a scan of a grid), where a range or a zone's own list costs nothing to go through again."""
    return any(isinstance(n, (py.ListComp, py.GeneratorExp, py.SetComp))
               or isinstance(n, py.Call) and isinstance(n.func, py.Name) and n.func.id in SCANS
               for n in t.nodes(code))


def costly_part(code: t.Code) -> bool:
    """Whether an expression's code is worth computing once rather than several times."""
    return _costly(code) and not any(isinstance(n, (py.NamedExpr, py.Lambda)) for n in t.nodes(code))


def _costly(node: py.expr) -> bool:
    """A part worth a name (see MIN_NODES and SCANS), never one drawing at random (each copy
    draws anew)."""
    if not isinstance(node, (py.Call, py.ListComp, py.GeneratorExp, py.SetComp)):
        return False
    if t.draws(node):
        return False
    if isinstance(node, py.Call) and isinstance(node.func, py.Name) and node.func.id in ITERATORS:
        return False  # gone through once only: a name for it would be empty the second time
    if isinstance(node, py.Call) and isinstance(node.func, py.Name) and node.func.id in SCANS:
        return True
    return sum(1 for _ in t.nodes(node)) >= MIN_NODES


def _names(node: py.AST) -> set[str]:
    return {n.id for n in t.nodes(node) if isinstance(n, py.Name)}


def _bound_names(tree: py.AST) -> set[str]:
    """Names a condition binds itself (comprehension variables, `:=` targets, lambda
    arguments): a part reading one of them belongs where it is."""
    out: set[str] = set()
    for node in t.nodes(tree):
        if isinstance(node, py.comprehension):
            out |= _names(node.target)
        elif isinstance(node, py.NamedExpr):
            out.add(node.target.id)
        elif isinstance(node, py.Lambda):
            out |= {a.arg for a in node.args.args}
    return out


def names(prefix: str) -> Iterator[str]:
    """Fresh names for lifted parts."""
    k = 0
    while True:
        yield f"{prefix}{k}"
        k += 1


def share_repeated(code: t.Code, fresh: Callable[[], str]) -> tuple[t.Code, list[str]]:
    """`code` (evaluated as one statement's expression) with each costly part that appears
    several times worked out once, the first time one of its copies is reached: each copy reads
    a box (`name = []` before the statement) or fills it. Returns the new code and the box
    names; unchanged when nothing repeats. Copies inside a generator that binds a name the part
    reads are another value: they stay."""
    if t.draws(code) or any(isinstance(n, (py.NamedExpr, py.Lambda)) for n in t.nodes(code)):
        return code, []
    tree = py.Expression(t.clone(code))
    boxes: list[str] = []
    done: set[str] = set()
    facts = _Facts()
    for _ in range(MAX_SHARED):
        # Parts alike in kind, size and the names they read may be copies: only those are
        # written out and compared (a large statement has thousands of parts, mostly unique).
        alike: dict[tuple, list[py.expr]] = {}
        for node, outer in _occurrences(tree.body, frozenset(), boxes):
            fact = facts.of(node)
            if fact.worth and not fact.reads & outer:
                alike.setdefault((type(node), fact.size, fact.reads), []).append(node)
        found: dict[str, list[py.expr]] = {}
        sizes: dict[str, int] = {}
        for (_kind, size, _reads), nodes in alike.items():
            if len(nodes) > 1:
                for node in nodes:
                    key = facts.canonical(node)
                    found.setdefault(key, []).append(node)
                    sizes[key] = size
        repeated = [(sizes[key], key) for key, nodes in found.items() if len(nodes) > 1 and key not in done]
        if not repeated:
            break
        _, key = min(repeated)  # the innermost first: the parts around it then read its box
        done.add(key)
        name = fresh()
        boxes.append(name)
        share = _Share({id(n) for n in found[key]}, name)
        tree = share.visit(tree)
        facts.forget(share.around)
    if not boxes:
        return code, []
    return tree.body, boxes


class _Share(py.NodeTransformer):
    """Each copy of a part (`targets`, by identity) reading box `name`, or filling it."""

    def __init__(self, targets: set[int], name: str):
        self.targets = targets
        self.name = name
        self.path: list[int] = []  # the nodes from the root down to the one visited
        self.around: set[int] = set()  # the nodes holding a copy: their code is another now

    def visit(self, node: py.AST) -> py.AST:
        if id(node) in self.targets:
            self.around.update(self.path)
            box = self.name
            return t.ifexp(t.name(box), t.sub(box, 0), t.call("shared", box, node))
        self.path.append(id(node))
        try:
            return super().visit(node)
        finally:
            self.path.pop()


@attrs.frozen
class _Fact:
    """What share_repeated asks of a part, worked out from its children's facts."""

    size: int  # syntax nodes
    names: frozenset[str]  # every name in it
    bound: frozenset[str]  # the names it binds itself (generators, `:=`, lambda arguments)
    reads: frozenset[str]  # the names it reads from around it: names - bound
    collects: bool  # it holds a comprehension or a scan of a grid
    worth: bool  # see _worth_sharing


class _Facts:
    """Each part's facts, found once in one walk up from the leaves (a walk per part costs the
    square of a large statement), kept until a copy inside the part is shared."""

    def __init__(self) -> None:
        # id -> (the node, kept alive so that no other node takes its id while it is here; ...)
        self._facts: dict[int, tuple[py.AST, _Fact]] = {}
        self._canonical: dict[int, tuple[py.AST, str]] = {}

    def of(self, node: py.AST) -> _Fact:
        known = self._facts.get(id(node))
        if known is not None:
            return known[1]
        size, names, bound, collects = 1, set(), set(), False
        if isinstance(node, py.Name):
            names.add(node.id)
        for child in t.children(node):
            sub = self.of(child)
            size += sub.size
            names |= sub.names
            bound |= sub.bound
            collects = collects or sub.collects
        if isinstance(node, py.comprehension):
            bound |= self.of(node.target).names
        elif isinstance(node, py.NamedExpr):
            bound.add(node.target.id)
        elif isinstance(node, py.Lambda):
            bound |= {a.arg for a in node.args.args}
        scan = isinstance(node, py.Call) and isinstance(node.func, py.Name) and node.func.id in SCANS
        collects = collects or scan or isinstance(node, (py.ListComp, py.GeneratorExp, py.SetComp,
                                                         py.DictComp))
        worth = _worth_sharing(node, size, bound, collects)
        fact = _Fact(size, frozenset(names), frozenset(bound), frozenset(names - bound), collects, worth)
        self._facts[id(node)] = (node, fact)
        return fact

    def canonical(self, node: py.AST) -> str:
        known = self._canonical.get(id(node))
        if known is None:
            known = self._canonical[id(node)] = (node, _canonical(node))
        return known[1]

    def forget(self, ids: set[int]) -> None:
        for i in ids:
            self._facts.pop(i, None)
            self._canonical.pop(i, None)


def _worth_sharing(node: py.AST, size: int, bound: set[str], collects: bool) -> bool:
    """A part that goes through a collection (a generator, a scan of a grid), not a cheap call
    such as a range, nor an iterator (its copies are not one value). The same test as _costly's
    (share_repeated leaves code that draws at random as it is), on the part's facts: its size,
    the names it binds and whether it collects."""
    if not isinstance(node, (py.Call, py.ListComp, py.SetComp)):
        return False  # a generator is gone through once only: its copies are not one value
    call = node.func.id if isinstance(node, py.Call) and isinstance(node.func, py.Name) else None
    if call in ITERATORS:
        return False
    if call not in SCANS and size < MIN_NODES:
        return False
    if any(not name.startswith("g_") for name in bound):
        return False  # generator names the compiler made fresh (one generator each) only
    return collects


def _occurrences(node: py.AST, outer: frozenset, boxes: list[str]) -> Iterator[tuple[py.expr, frozenset]]:
    """Every expression node with the names bound around it by the generators it is in (not
    those of a part already shared: its copies are read from its box)."""
    if isinstance(node, py.IfExp) and isinstance(node.test, py.Name) and node.test.id in boxes:
        return
    if isinstance(node, py.expr):
        yield node, outer
    if isinstance(node, (py.ListComp, py.GeneratorExp, py.SetComp, py.DictComp)):
        inner = outer | {n.id for g in node.generators for n in t.nodes(g.target) if isinstance(n, py.Name)}
        for i, gen in enumerate(node.generators):
            # the first source is worked out outside the generator, the others inside it
            yield from _occurrences(gen.iter, outer if i == 0 else inner, boxes)
            for cond in gen.ifs:
                yield from _occurrences(cond, inner, boxes)
        parts = [node.key, node.value] if isinstance(node, py.DictComp) else [node.elt]
        for part in parts:
            yield from _occurrences(part, inner, boxes)
        return
    for child in t.children(node):
        yield from _occurrences(child, outer, boxes)


def _canonical(node: py.AST) -> str:
    """A part's code with the names its own generators bind numbered in order: two copies of
    one part inlined twice (each with fresh generator names) have the same canonical code."""
    bound: dict[str, str] = {}
    for n in py.walk(node):
        if isinstance(n, py.comprehension):
            for target in py.walk(n.target):
                if isinstance(target, py.Name) and target.id not in bound:
                    bound[target.id] = f"_b{len(bound)}"
    if bound:
        node = _Rename(bound).visit(t.clone(node))
    return py.dump(node, annotate_fields=False)


class _Rename(py.NodeTransformer):
    def __init__(self, names: dict[str, str]):
        self.names = names

    def visit_Name(self, node: py.Name) -> py.Name:
        return py.Name(self.names.get(node.id, node.id), node.ctx)
