"""Source-level helpers for the generated Python: recognising cheap code, splitting and
placing conditions, fusing blocks, hoisting repeated reads. They work on code strings (and
Python's own `ast` of them), so the compiler can stay about the rules language."""

from __future__ import annotations

import ast as pyast
import re

import attrs

from . import ast

CONSTANT = re.compile(r"^(?:\(?-?\d+\)?|'[^']*'|None|True|False)$")
_NAME_OR_SLOT = r"(?:[A-Za-z_][A-Za-z0-9_]*|L\[\d+\])"
CHEAP = re.compile(rf"^(?:(?:ROW|COL|ZOWNER)\[{_NAME_OR_SLOT}\]|{_NAME_OR_SLOT}|-?\d+)$")
SIMPLE = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]*|L\[\d+\]|-?\d+|'[^']*'|args\[\d+\])$")
JUMP = re.compile(r"^(\s*)return (\d+)(?:  # .*)?$")
MAX_FUSED_LINES = 80


def fixed_range(code: str) -> tuple[str, int] | None:
    """`range(a, b)` of constants, or `range(x, x + k)`: the first value's code and the
    count, known now. Anything else (a list, a zone's contents): None."""
    try:
        tree = pyast.parse(code, mode="eval").body
    except SyntaxError:
        return None
    if not (isinstance(tree, pyast.Call) and isinstance(tree.func, pyast.Name) and tree.func.id == "range"
            and len(tree.args) == 2 and not tree.keywords):
        return None
    low, high = tree.args
    if isinstance(high, pyast.BinOp) and isinstance(high.op, pyast.Add) and \
            pyast.unparse(high.left) == pyast.unparse(low) and isinstance(high.right, pyast.Constant):
        first = pyast.unparse(low)
        return (first if re.fullmatch(r"-?\d+|\w+", first) else f"({first})"), int(high.right.value)
    try:
        a, b = (int(eval(compile(pyast.Expression(x), "<range>", "eval"), {"__builtins__": {}}))  # noqa: S307
                for x in (low, high))
    except Exception:  # not constants
        return None
    return str(a), max(0, b - a)


def as_list(code: str) -> str:
    """Code for a list of these items: a zone's contents and a grid's already are one."""
    if re.fullmatch(r"Z\[[^\[\]]*\]|grid_items\(Z, [^()]*(?:\([^()]*\)[^()]*)*\)", code):
        return code
    return f"list({code})"


def cell_index(first: str, row: str, column: str, columns: int) -> str:
    """The zone index of a grid cell, with the constant parts added up now."""
    const = -1 - columns
    terms = []
    for code, scale in ((first, 1), (row, columns), (column, 1)):
        if re.fullmatch(r"-?\d+", code):
            const += int(code) * scale
        else:
            terms.append(code if scale == 1 else f"{code} * {scale}")
    if const or not terms:
        terms.append(str(const) if not terms else (f"+ {const}" if const > 0 else f"- {-const}"))
        if len(terms) > 1:
            return " + ".join(terms[:-1]) + " " + terms[-1]
    return " + ".join(terms)


GUARD = re.compile(r"^    if not \((.*)\):((?:  # @.*)?)$")


def nest_guards(body: list[str], leave: str) -> list[str]:
    """Turn top-level `if not (C): <leave>` guards into nested `if C:` blocks, so a part
    of a legal-action function needs no loop to leave early."""
    out: list[str] = []
    pad = ""
    i = 0
    while i < len(body):
        m = GUARD.match(body[i])
        if m and i + 1 < len(body) and body[i + 1] == f"        {leave}":
            out.append(f"{pad}    if {m.group(1)}:{m.group(2)}")
            pad += "    "
            i += 2
            continue
        out.append(pad + body[i])
        i += 1
    return out


def group_by_first(actions: list) -> list:
    groups: list = []
    for action in actions:
        if not groups or groups[-1][0] != action[1][0]:
            groups.append((action[1][0], []))
        groups[-1][1].append(action)
    return groups


def stateless(code: str) -> bool:
    """Generated code that reads nothing of the state (only arguments, `me` and fixed tables)."""
    return not re.search(r"\b(?:Z|V|P|L|st|rand_choice)\b", code)


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
    t = checker.types.get(left.args[0])
    if t is None or t.kind != "zone":
        return None
    negated = none_or_some(op, value.value)
    return None if negated is None else (left.args[0], negated)


def uses(node: pyast.AST, variables: list[str]) -> int:
    """1 + the index of the last action parameter an expression reads (0: none)."""
    names = {n.id for n in pyast.walk(node) if isinstance(n, pyast.Name)}
    return max((i + 1 for i, v in enumerate(variables) if v in names), default=0)


def conjuncts(code: str) -> list[str]:
    tree = pyast.parse(code, mode="eval").body
    if isinstance(tree, pyast.BoolOp) and isinstance(tree.op, pyast.And):
        out = []
        for value in tree.values:
            out.extend(conjuncts(pyast.unparse(value)))
        return out
    return [code]


def or_parts(node: pyast.AST) -> list[pyast.AST]:
    if isinstance(node, pyast.BoolOp) and isinstance(node.op, pyast.Or):
        out = []
        for value in node.values:
            out.extend(or_parts(value))
        return out
    return [node]


def placement(cond: str, variables: list[str]) -> tuple[int, tuple[int, str] | None, str]:
    """Where a condition is tested, and a leading `or` part that can be computed earlier.

    Only a leading run of parts is hoisted, so a part that guards a later one
    (`count(z) == 0 or first(z) ...`) still runs first. Returns (depth, (hoist depth,
    hoisted code) or None, condition to test).
    """
    tree = pyast.parse(cond, mode="eval").body
    depth = uses(tree, variables)
    parts = or_parts(tree)
    prefix = []
    for part in parts:
        if uses(part, variables) >= depth:
            break
        prefix.append(part)
    if not prefix or len(prefix) == len(parts):
        return depth, None, cond
    hdepth = max(uses(x, variables) for x in prefix)
    code = " or ".join(f"({pyast.unparse(x)})" for x in prefix)
    rest = " or ".join(f"({pyast.unparse(x)})" for x in parts[len(prefix):])
    return depth, (hdepth, code), rest


PLAYER_GRID = re.compile(r"grid_items\(Z, (?:\(\d+ \+ p \* \d+\)|\d+), \d+\)")


def hoist_grid_reads(lines: list[str]) -> str:
    """A scoring never moves components, so a grid's contents read many times (a player's
    board, item after item) are read once, at the top."""
    found: list[str] = []
    for line in lines:
        for m in PLAYER_GRID.finditer(line):
            if m.group(0) not in found:
                found.append(m.group(0))
    if not found:
        return "\n".join(lines)
    body = "\n".join(lines[2:])
    head = []
    for i, text in enumerate(found):
        body = body.replace(text, f"_grid{i}")
        head.append(f"    _grid{i} = {text}")
    return "\n".join(lines[:2] + head + [body])


ORDER_FREE = {"len", "sum", "any", "all", "min", "max"}  # results that ignore the items' order
TAGGED = re.compile(r"^(\s*)(.*?)((?:  # @.*)?)$")


def narrow_by_attribute(source: str) -> str:
    """Within a scoring, a generator over a hoisted grid (`_grid0`) whose condition only
    holds for components with given values of a fixed attribute (`A_type[c] == 'X' or
    ...`) walks just those components: the grid is split by that attribute once, at the
    top, and each such item reads its part. Only where the order of items cannot matter."""
    lines = source.split("\n")
    splits: dict[tuple[str, str], str] = {}
    out = []
    for line in lines:
        m = TAGGED.match(line)
        indent, code, tag = m.group(1), m.group(2), m.group(3)
        if "_grid" not in code or code.endswith(":"):
            out.append(line)
            continue
        try:
            tree = pyast.parse(code)
        except SyntaxError:
            out.append(line)
            continue
        narrower = _Narrower(splits)
        tree = narrower.visit(tree)
        out.append(f"{indent}{pyast.unparse(tree)}{tag}" if narrower.changes else line)
    if not splits:
        return source
    head = [f"    {name} = split_by({grid}, A_{attr})" for (grid, attr), name in splits.items()]
    last = max(i for i, line in enumerate(out) if re.match(r"    _grid\d+ = ", line))
    return "\n".join(out[:last + 1] + head + out[last + 1:])


class _Narrower(pyast.NodeTransformer):
    """Rewrites order-free comprehensions over `_gridN` to walk an attribute's parts only."""

    def __init__(self, splits: dict):
        self.splits = splits
        self.changes = 0

    def visit_Call(self, node: pyast.Call) -> pyast.AST:
        self.generic_visit(node)
        # (with a `key`, min and max pick the first best item: order matters there)
        if isinstance(node.func, pyast.Name) and node.func.id in ORDER_FREE and node.args \
                and not any(k.arg == "key" for k in node.keywords):
            node.args[0] = self.narrow(node.args[0])
        return node

    def narrow(self, comp: pyast.AST) -> pyast.AST:
        if not isinstance(comp, (pyast.ListComp, pyast.GeneratorExp, pyast.SetComp)):
            return comp
        gen = comp.generators[0]
        if not (isinstance(gen.iter, pyast.Name) and gen.iter.id.startswith("_grid")
                and isinstance(gen.target, pyast.Name) and len(gen.ifs) == 1):
            return comp
        found = attribute_values(gen.ifs[0], gen.target.id)
        if found is None:
            return comp
        attr, values = found
        key = (gen.iter.id, attr)
        name = self.splits.setdefault(key, f"_by{len(self.splits)}")
        parts = [f"*{name}.get({v!r}, ())" for v in values]
        gen.iter = pyast.parse(f"{name}.get({values[0]!r}, ())" if len(values) == 1
                               else "[" + ", ".join(parts) + "]", mode="eval").body
        self.changes += 1
        return comp


def attribute_values(cond: pyast.AST, var: str) -> tuple[str, list] | None:
    """The values of one fixed attribute of `var` that a condition needs: from
    `A_x[var] == 'v'`, a conjunction holding such a part, or alternatives that all do."""
    if isinstance(cond, pyast.Compare) and len(cond.ops) == 1 and isinstance(cond.ops[0], pyast.Eq) \
            and isinstance(cond.left, pyast.Subscript) and isinstance(cond.left.value, pyast.Name) \
            and cond.left.value.id.startswith("A_") and isinstance(cond.left.slice, pyast.Name) \
            and cond.left.slice.id == var and isinstance(cond.comparators[0], pyast.Constant):
        return cond.left.value.id[2:], [cond.comparators[0].value]
    if isinstance(cond, pyast.BoolOp) and isinstance(cond.op, pyast.And):
        return next((found for part in cond.values if (found := attribute_values(part, var))), None)
    if isinstance(cond, pyast.BoolOp) and isinstance(cond.op, pyast.Or):
        attr, values = None, []
        for branch in cond.values:
            found = attribute_values(branch, var)
            if found is None or attr not in (None, found[0]):
                return None
            attr = found[0]
            values += [v for v in found[1] if v not in values]
        return attr, values
    return None


def reads_state(code: str) -> bool:
    """Whether generated code reads the game state (rather than only its arguments)."""
    return bool(re.search(r"\b(?:Z|V|P)\[|\bst\.", code))


def count_names(e: ast.Expr) -> dict[str, int]:
    """How often each bare name occurs in an expression (to decide on inlining)."""
    counts: dict[str, int] = {}

    def walk(x) -> None:
        if isinstance(x, ast.Name):
            counts[x.ident] = counts.get(x.ident, 0) + 1
        elif isinstance(x, ast.GenCall):
            # a name inside a generator is evaluated once per item: count it as many
            for sub in (x.item, x.cond, x.key):
                if sub is not None:
                    for k, v in count_names(sub).items():
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


def fuse_blocks(blocks: list[list[str]]) -> list[list[str]]:
    """Inline jump targets into the blocks that jump to them.

    A block that ends in `return K` continues with block K; pasting K's lines in its place
    saves a call per step. Each block inlines a given target at most once (no cycles) and
    stops growing past MAX_FUSED_LINES.
    """
    fused = []
    for i, body in enumerate(blocks):
        done = {i}
        lines = list(body)
        changed = True
        while changed and len(lines) < MAX_FUSED_LINES:
            changed = False
            out = []
            for line in lines:
                m = JUMP.match(line)
                k = int(m.group(2)) if m else -1
                if m and k not in done and len(lines) + len(blocks[k]) <= MAX_FUSED_LINES:
                    extra = m.group(1)[4:]
                    out.extend(extra + x for x in blocks[k])
                    done.add(k)
                    changed = True
                else:
                    out.append(line)
            lines = out
        fused.append(lines)
    return fused


def read_arguments(body: list[str], slots: dict[int, str]) -> list[str]:
    """In an entry function, reads of the slots just filled from its arguments read the
    arguments (fast locals) instead, while nothing else writes those slots."""
    text = "\n".join(body)
    for slot, name in slots.items():
        if not re.search(rf"\bL\[{slot}\](?:\s*=[^=]|\s*[-+*]=)", text):
            text = re.sub(rf"\bL\[{slot}\]", name, text)
    return text.split("\n")


def prologue(body: list[str], *aliases: tuple[str, str]) -> list[str]:
    """Local aliases (Z = st.z, ...) for just the state lists a block uses."""
    text = "\n".join(body)
    used = [f"{name} = {expr}" for name, expr in aliases if re.search(rf"\b{name}\b", text)]
    return ["    " + "; ".join(used)] if used else []
