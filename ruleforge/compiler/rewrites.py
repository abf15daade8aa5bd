"""Rewrites of the generated Python's trees for speed: recognising fixed ranges, splitting and
placing conditions, nesting guards, fusing blocks, hoisting repeated reads. Each works on
Python `ast` nodes (pytree), never on text, so the compiler can stay about the rules language."""

from __future__ import annotations

import ast as py
from typing import NamedTuple

import attrs

from .. import ast
from . import pytree as t

MAX_FUSED_STATEMENTS = 100


def fold_int(node: t.Code) -> int | None:
    """The value of code made of whole-number literals, `+`, `-` and `*` (`3 + 1`), when it is
    one of ordinary size; None for anything else."""
    value = t.int_value(node)
    if value is not None:
        return value
    if isinstance(node, py.BinOp) and isinstance(node.op, (py.Add, py.Sub, py.Mult)):
        left, right = fold_int(node.left), fold_int(node.right)
        if left is None or right is None:
            return None
        out = left + right if isinstance(node.op, py.Add) else left - right if isinstance(node.op, py.Sub) \
            else left * right
        return out if abs(out) < 1 << 62 else None
    return None


def is_span(node: py.AST) -> bool:
    """`rt.span(a, b)`: a range `a..b` whose ends are known only while playing."""
    return isinstance(node, py.Call) and isinstance(node.func, py.Attribute) and node.func.attr == "span" \
        and isinstance(node.func.value, py.Name) and node.func.value.id == "rt"


def fixed_range(node: t.Code) -> tuple[t.Code, int] | None:
    """`range(a, b)` of constants, or `range(x, x + k)` (`rt.span(x, x + k)`): the first
    value's code and the count, known now. Anything else (a list, a zone's contents): None."""
    if is_span(node) and len(node.args) == 2:
        low, high = node.args
        step = t.int_value(high.right) if isinstance(high, py.BinOp) and isinstance(high.op, py.Add) else None
        if step is not None and step >= 0 and t.same(high.left, low):
            return low, step + 1
        if t.same(low, high):
            return low, 1
        return None
    if not (t.calls(node, "range") and len(node.args) == 2 and not node.keywords):
        return None
    low, high = node.args
    if isinstance(high, py.BinOp) and isinstance(high.op, py.Add) and t.same(high.left, low) \
            and isinstance(high.right, py.Constant) and type(high.right.value) is int:
        return low, high.right.value
    a, b = fold_int(low), fold_int(high)
    if a is None or b is None:
        return None
    return t.const(a), max(0, b - a)


def as_list(node: t.Code) -> t.Code:
    """Code for a list of these items: a zone's contents, a grid's and a list comprehension's
    already are one (a new one: `+` changes neither side)."""
    if isinstance(node, py.Subscript) and isinstance(node.value, py.Name) and node.value.id == "Z" \
            and not isinstance(node.slice, py.Slice):
        return node
    if t.calls(node, "grid_items") or isinstance(node, py.ListComp):
        return node
    return t.call("list", node)


def extreme(f: str, values: t.Code) -> t.Code:
    """`min` or `max` of a collection, 0 when it is empty: of a list written out (`max([1, a -
    1, b - 3])`, a window's edge), its items as arguments, with no list to build and no
    default to weigh, or the one item itself."""
    if isinstance(values, py.List) and values.elts and not any(isinstance(x, py.Starred) for x in values.elts):
        return values.elts[0] if len(values.elts) == 1 else t.call(f, *values.elts)
    return t.call(f, values, default=t.const(0))


def cell_index(first: t.Code, row: t.Code, column: t.Code, columns: int) -> t.Code:
    """The zone index of a grid cell, with the constant parts added up now."""
    constant = -1 - columns
    terms: list[t.Code] = []
    for part, scale in ((first, 1), (row, columns), (column, 1)):
        value = t.int_value(part)
        if value is not None:
            constant += value * scale
        else:
            terms.append(part if scale == 1 else t.binop(part, "*", t.const(scale)))
    if not terms:
        return t.const(constant)
    out = t.add(*terms)
    if constant > 0:
        return t.binop(out, "+", t.const(constant))
    if constant < 0:
        return t.binop(out, "-", t.const(-constant))
    return out


def nest_guards(body: list[py.stmt]) -> list[py.stmt]:
    """Turn top-level `if not (C): break` guards into nested `if C:` blocks, so a part of a
    legal-action function needs no loop to leave early."""
    for i, stmt in enumerate(body):
        if isinstance(stmt, py.If) and isinstance(stmt.test, py.UnaryOp) and isinstance(stmt.test.op, py.Not) \
                and not stmt.orelse and len(stmt.body) == 1 and isinstance(stmt.body[0], py.Break):
            rest = nest_guards(body[i + 1:]) or [t.pass_()]
            return body[:i] + [t.at(t.if_(stmt.test.operand, rest), getattr(stmt, t.POS, None))]
    return body


def group_by_first(actions: list) -> list:
    groups: list = []
    for action in actions:
        if not groups or groups[-1][0] != action[1][0]:
            groups.append((action[1][0], []))
        groups[-1][1].append(action)
    return groups


STATE_NAMES = {"Z", "V", "P", "L", "st", "rand_choice"}


def stateless(node: t.Code) -> bool:
    """Generated code that reads nothing of the state (only arguments, `me` and fixed tables)."""
    return not (t.names_in(node) & STATE_NAMES)


def reads_state(node: py.AST) -> bool:
    """Whether generated code reads the game state (rather than only its arguments)."""
    for n in py.walk(node):
        if isinstance(n, py.Subscript) and isinstance(n.value, py.Name) and n.value.id in ("Z", "V", "P"):
            return True
        if isinstance(n, py.Attribute) and isinstance(n.value, py.Name) and n.value.id == "st":
            return True
        if isinstance(n, py.Call) and isinstance(n.func, py.Name) and n.func.id == "shown_label":
            return True  # a label that reads properties
    return False


def count_vs_zero(e: ast.Compare, defs: dict) -> tuple[ast.GenCall, bool] | None:
    """`count(g) > 0`, `>= 1`, `!= 0` (any) or `== 0`, `< 1` (none): a generator and whether negated.

    A def without parameters whose body is such a count is looked through."""
    gen, op, value = e.left, e.op, e.right
    if isinstance(gen, ast.Name) and gen.ident in defs and not defs[gen.ident].params:
        gen = defs[gen.ident].body
    if not (isinstance(gen, ast.GenCall) and gen.func == "count" and isinstance(value, ast.IntLit)):
        return None
    negated = none_or_some(op, value.value)
    return None if negated is None else (gen, negated)


def none_or_some(op: str, value: int) -> bool | None:
    """A count compared with a number asks "is there none?" (True), "is there some?" (False),
    or something else (None)."""
    if (op, value) in ((">", 0), (">=", 1), ("!=", 0)):
        return False
    if (op, value) in (("==", 0), ("<", 1), ("<=", 0)):
        return True
    return None


def zone_count_vs_zero(e: ast.Compare, checker) -> tuple[ast.Expr, bool] | None:
    """`count(z) > 0` (and the like) on one zone or cell: the zone and whether negated."""
    left, op, value = e.left, e.op, e.right
    if not (isinstance(left, ast.Call) and left.func == "count" and len(left.args) == 1
            and isinstance(value, ast.IntLit) and checker.res.get(left, ("",))[0] == "aggregate"):
        return None
    kind = checker.types.get(left.args[0])
    if kind is None or kind.kind != "zone":
        return None
    negated = none_or_some(op, value.value)
    return None if negated is None else (left.args[0], negated)


def uses(node: py.AST, variables: list[str]) -> int:
    """1 + the index of the last action parameter an expression reads (0: none)."""
    names = t.names_in(node)
    return max((i + 1 for i, v in enumerate(variables) if v in names), default=0)


def _parts(node: t.Code, op: type) -> list[t.Code]:
    """The operands of nested `and`s (or `or`s), flattened."""
    if isinstance(node, py.BoolOp) and isinstance(node.op, op):
        return [part for value in node.values for part in _parts(value, op)]
    return [node]


def conjuncts(node: t.Code) -> list[t.Code]:
    return _parts(node, py.And)


def or_parts(node: t.Code) -> list[t.Code]:
    return _parts(node, py.Or)


def placement(cond: t.Code, variables: list[str]) -> tuple[int, tuple[int, t.Code] | None, t.Code]:
    """Where a condition is tested, and a leading `or` part that can be computed earlier.

    Only a leading run of parts is hoisted, so a part that guards a later one
    (`count(z) == 0 or first(z) ...`) still runs first. Returns (depth, (hoist depth,
    hoisted code) or None, condition to test).
    """
    depth = uses(cond, variables)
    parts = or_parts(cond)
    prefix = []
    for part in parts:
        if uses(part, variables) >= depth:
            break
        prefix.append(part)
    if not prefix or len(prefix) == len(parts):
        return depth, None, cond
    hoist_depth = max(uses(x, variables) for x in prefix)
    return depth, (hoist_depth, t.or_(*prefix)), t.or_(*parts[len(prefix):])


def _player_grid(node: py.AST) -> bool:
    """`grid_items(Z, k, n)` or `grid_items(Z, (k + p * m), n)`: a grid of the scored player's."""
    if not (t.calls(node, "grid_items") and len(node.args) == 3):
        return False
    zones, first, cells = node.args
    if not (isinstance(zones, py.Name) and zones.id == "Z" and t.int_value(cells) is not None):
        return False
    if t.int_value(first) is not None:
        return True
    return isinstance(first, py.BinOp) and isinstance(first.op, py.Add) and t.int_value(first.left) is not None \
        and isinstance(first.right, py.BinOp) and isinstance(first.right.op, py.Mult) \
        and isinstance(first.right.left, py.Name) and first.right.left.id == "p" \
        and t.int_value(first.right.right) is not None


class _GridReads(py.NodeTransformer):
    def __init__(self):
        self.found: dict[str, str] = {}  # the read's dump -> its name
        self.reads: list[t.Code] = []

    def visit_Call(self, node: py.Call) -> py.AST:
        if _player_grid(node):
            key = py.dump(node)
            if key not in self.found:
                self.found[key] = f"_grid{len(self.found)}"
                self.reads.append(node)
            return t.name(self.found[key])
        return self.generic_visit(node)


def hoist_grid_reads(body: list[py.stmt], head: int) -> list[py.stmt]:
    """A scoring never moves components, so a grid's contents read many times (a player's
    board, item after item) are read once, after the first `head` statements."""
    reads = _GridReads()
    rest = [reads.visit(s) for s in body[head:]]
    if not reads.reads:
        return body
    hoisted = [t.assign(t.name(n), node) for n, node in zip(reads.found.values(), reads.reads)]
    return body[:head] + hoisted + rest


ORDER_FREE = {"len", "sum", "any", "all", "min", "max"}  # results that ignore the items' order
COMPOUND = (py.If, py.For, py.While, py.FunctionDef, py.With, py.Try)


def narrow_by_attribute(body: list[py.stmt]) -> list[py.stmt]:
    """Within a scoring, a generator over a hoisted grid (`_grid0`) whose condition only
    holds for components with given values of a fixed attribute (`A_type[c] == 'X' or
    ...`) walks just those components: the grid is split by that attribute once, at the
    top, and each such item reads its part. Only where the order of items cannot matter,
    and only in plain statements (not a condition of an `if`)."""
    splits: dict[tuple[str, str], str] = {}
    for stmts in t.statement_lists(body):
        for i, stmt in enumerate(stmts):
            if not isinstance(stmt, COMPOUND) and "_grid" in "".join(t.names_in(stmt)):
                stmts[i] = _Narrower(splits).visit(stmt)
    if not splits:
        return body
    head = [t.assign(t.name(split), t.call("split_by", t.name(grid), t.name(f"A_{attribute}")))
            for (grid, attribute), split in splits.items()]
    last = max(i for i, s in enumerate(body) if isinstance(s, py.Assign) and isinstance(s.targets[0], py.Name)
               and s.targets[0].id.startswith("_grid"))
    return body[:last + 1] + head + body[last + 1:]


class _Narrower(py.NodeTransformer):
    """Rewrites order-free comprehensions over `_gridN` to walk an attribute's parts only."""

    def __init__(self, splits: dict):
        self.splits = splits

    def visit_Call(self, node: py.Call) -> py.AST:
        self.generic_visit(node)
        # (with a `key`, min and max pick the first best item: order matters there)
        if isinstance(node.func, py.Name) and node.func.id in ORDER_FREE and node.args \
                and not any(k.arg == "key" for k in node.keywords):
            node.args[0] = self.narrow(node.args[0])
        return node

    def narrow(self, comp: py.AST) -> py.AST:
        if not isinstance(comp, (py.ListComp, py.GeneratorExp, py.SetComp)):
            return comp
        gen = comp.generators[0]
        if not (isinstance(gen.iter, py.Name) and gen.iter.id.startswith("_grid")
                and isinstance(gen.target, py.Name) and len(gen.ifs) == 1):
            return comp
        found = attribute_values(gen.ifs[0], gen.target.id)
        if found is None:
            return comp
        attribute, values = found
        split = self.splits.setdefault((gen.iter.id, attribute), f"_by{len(self.splits)}")

        def part(value) -> t.Code:
            return t.call(t.attr(split, "get"), t.const(value), t.tuple_([]))

        gen.iter = part(values[0]) if len(values) == 1 else t.list_(t.starred(part(v)) for v in values)
        return comp


def attribute_values(cond: py.AST, var: str) -> tuple[str, list] | None:
    """The values of one fixed attribute of `var` that a condition needs: from
    `A_x[var] == 'v'`, a conjunction holding such a part, or alternatives that all do."""
    if isinstance(cond, py.Compare) and len(cond.ops) == 1 and isinstance(cond.ops[0], py.Eq) \
            and isinstance(cond.left, py.Subscript) and isinstance(cond.left.value, py.Name) \
            and cond.left.value.id.startswith("A_") and isinstance(cond.left.slice, py.Name) \
            and cond.left.slice.id == var and isinstance(cond.comparators[0], py.Constant):
        return cond.left.value.id[2:], [cond.comparators[0].value]
    if isinstance(cond, py.BoolOp) and isinstance(cond.op, py.And):
        return next((found for part in cond.values if (found := attribute_values(part, var))), None)
    if isinstance(cond, py.BoolOp) and isinstance(cond.op, py.Or):
        attribute, values = None, []
        for branch in cond.values:
            found = attribute_values(branch, var)
            if found is None or attribute not in (None, found[0]):
                return None
            attribute = found[0]
            values += [v for v in found[1] if v not in values]
        return attribute, values
    return None


def count_names(e: ast.Expr) -> dict[str, int]:
    """How often each bare name occurs in an expression (to decide on inlining)."""
    counts: dict[str, int] = {}

    def walk(x) -> None:
        if isinstance(x, ast.Name):
            counts[x.ident] = counts.get(x.ident, 0) + 1
        elif isinstance(x, ast.GenCall):
            # a name inside a generator is evaluated once per item: count it as many
            for part in (x.item, x.cond, x.key):
                if part is not None:
                    for k, v in count_names(part).items():
                        counts[k] = counts.get(k, 0) + 2 * v
            walk(x.source)
            return
        if isinstance(x, (ast.Expr, ast.TableEntry)):
            for f in attrs.fields(type(x)):
                value = getattr(x, f.name)
                for item in value if isinstance(value, tuple) else (value,):
                    if isinstance(item, (ast.Expr, ast.TableEntry)):
                        walk(item)
                    elif isinstance(item, tuple):
                        for y in item:
                            if isinstance(y, ast.Expr):
                                walk(y)

    walk(e)
    return counts


def _jump(stmt: py.stmt) -> int | None:
    """The block a `return K` goes on to."""
    if stmt.__class__ is py.Return and stmt.value is not None:
        value = t.int_value(stmt.value)
        return value if value is not None and value >= 0 else None
    return None


class Fused(NamedTuple):
    body: list[py.stmt]
    blocks: set[int]  # the blocks whose statements it holds: its own and those pasted in


def fuse_blocks(blocks: list[list[py.stmt]]) -> list[Fused]:
    """Inline jump targets into the blocks that jump to them.

    A block that ends in `return K` continues with block K; putting K's statements in its
    place saves a call per step. Each block inlines a given target at most once (no cycles)
    and stops growing past MAX_FUSED_STATEMENTS. The bodies made share their expressions
    with `blocks` (only statements are copied): what changes them afterwards changes a shared
    one alike everywhere (folding) or copies it first (numbering the lines).
    """
    sizes = [t.count_statements(body) for body in blocks]
    fused = []
    for i, body in enumerate(blocks):
        done = {i}
        body = t.copy_statements(body)
        size = sizes[i]
        changed = True
        while changed and size < MAX_FUSED_STATEMENTS:
            changed = False
            before = size
            for stmts in t.statement_lists(body):
                if not any(stmt.__class__ is py.Return for stmt in stmts):
                    continue
                out = []
                for stmt in stmts:
                    k = _jump(stmt)
                    if k is not None and k not in done and before + sizes[k] <= MAX_FUSED_STATEMENTS:
                        out.extend(t.copy_statements(blocks[k]))
                        done.add(k)
                        size += sizes[k] - 1
                        changed = True
                    else:
                        out.append(stmt)
                stmts[:] = out
        fused.append(Fused(body, done))
    return fused


def fused_prologues(blocks: list[list[py.stmt]], fused: list[Fused],
                    *aliases: tuple[str, str, str]) -> list[list[py.stmt]]:
    """`prologue` of each fused body, from the names of the blocks it holds: a fused body
    holds every statement of those blocks but the `return K`s replaced (which name nothing),
    so each block is walked once rather than once per block it was pasted into."""
    wanted = {alias for alias, _, _ in aliases}
    names = [t.names_among(body, wanted) for body in blocks]
    return [_aliases(set().union(*(names[k] for k in f.blocks)), aliases) for f in fused]


class _SlotWrites(py.NodeVisitor):
    def __init__(self):
        self.written: set[int] = set()

    def visit_Subscript(self, node: py.Subscript) -> None:
        if not isinstance(node.ctx, py.Load) and t.is_slot(node):
            self.written.add(node.slice.value)
        self.generic_visit(node)


class _SlotReads(py.NodeTransformer):
    def __init__(self, names: dict[int, str]):
        self.names = names

    def visit_Subscript(self, node: py.Subscript) -> py.AST:
        if isinstance(node.ctx, py.Load) and t.is_slot(node) and node.slice.value in self.names:
            return t.name(self.names[node.slice.value])
        return self.generic_visit(node)


def read_arguments(body: list[py.stmt], slots: dict[int, str]) -> list[py.stmt]:
    """In an entry function, reads of the slots just filled from its arguments read the
    arguments (fast locals) instead, while nothing else writes those slots."""
    writes = _SlotWrites()
    for stmt in body:
        writes.visit(stmt)
    names = {slot: n for slot, n in slots.items() if slot not in writes.written}
    if not names:
        return body
    reads = _SlotReads(names)
    return [reads.visit(s) for s in body]


def prologue(body: list[py.stmt], *aliases: tuple[str, str, str]) -> list[py.stmt]:
    """Local aliases (Z = st.z, ...) for just the state lists a block uses."""
    return _aliases(t.names_among(body, {alias for alias, _, _ in aliases}), aliases)


def _aliases(used: set[str], aliases: tuple[tuple[str, str, str], ...]) -> list[py.stmt]:
    return [t.assign(alias, t.attr(base, field)) for alias, base, field in aliases if alias in used]


STATE_ALIASES = (("Z", "st", "z"), ("V", "st", "v"), ("L", "st", "l"), ("P", "st", "p"))
READ_ALIASES = (("Z", "st", "z"), ("V", "st", "v"), ("P", "st", "p"))


def state_aliases() -> list[py.stmt]:
    """`Z = st.z; V = st.v; P = st.p`: what a function reading the state starts with."""
    return [t.assign(alias, t.attr(base, field)) for alias, base, field in READ_ALIASES]
