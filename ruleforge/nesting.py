"""How deep a parse tree nests, measured before anything recurses over it.

Every later stage (the transformer, the checker, the compiler, Python's own `compile`)
recurses once per level of an expression or a block. A rules file nested thousands deep
would exhaust Python's recursion limit in one of them; instead it is refused here, with the
place where the limit is first exceeded (`LIMITS.expression_depth`, `LIMITS.block_depth`).
The walk is a loop over an explicit stack, so it copes with any depth itself.

What counts as one level of an expression: each operator, `not`, unary minus, comparison,
range, call, generator, `if ... then ... else`, attribute access (`a.b`), list and table.
Parentheses add none (the parse tree has no node for them). A string's `{...}` parts sit one
level below the string. What counts as one level of blocks: each `{ ... }` of statements.
"""

from __future__ import annotations

from lark import Token, Tree

from . import ast
from .diagnostics import Diagnostic
from .limits import LIMITS, describe

# Parse-tree nodes that are one level of an expression.
EXPRESSION_LEVELS = frozenset({
    "if_expr", "or_op", "and_op", "not_op", "compare", "range_op", "binop", "neg", "attr", "index",
    "call", "gen_call", "players_from", "list_lit", "table_expr",
})
# Parse-tree nodes inside an expression that add no level (their parts keep the depth).
EXPRESSION_PARTS = frozenset({
    "gen_filter", "gen_clause", "gen_key", "exact_entry", "at_least_entry", "else_entry",
    "comp_op", "add_op", "mul_op", "int_lit", "str_lit", "name", "players_expr",
})


class Nesting:
    """The result of measuring one tree: the places too deep, and at which expression depth
    each string with `{...}` sits (keyed by the string token's line and column)."""

    def __init__(self) -> None:
        self.too_deep: list[Diagnostic] = []
        self.string_depths: dict[tuple[int, int], int] = {}


def measure(tree: Tree, path: str, line_offset: int = 0, col_offset: int = 0,
            base_depth: int = 0) -> Nesting:
    """Walk `tree` without recursion; report each outermost node deeper than the limits.

    `base_depth` is the expression depth the tree starts at (a string's `{...}` part)."""
    expression_limit, block_limit = LIMITS.expression_depth, LIMITS.block_depth
    result = Nesting()
    stack: list[tuple[Tree, int, int]] = [(tree, base_depth, 0)]
    while stack:
        node, depth, blocks = stack.pop()
        kind = node.data
        if kind in EXPRESSION_LEVELS:
            depth += 1
            if depth > expression_limit:
                result.too_deep.append(_too_deep_expression(node, path, line_offset, col_offset))
                continue
        elif kind == "str_lit":
            _note_string(node, depth, result)
        elif kind not in EXPRESSION_PARTS:  # a statement or declaration: expressions start afresh
            depth = 0
            if kind == "block":
                blocks += 1
                if blocks > block_limit:
                    result.too_deep.append(_too_deep_block(node, path, line_offset, col_offset))
                    continue
        for child in reversed(node.children):  # reversed: popped in the order they are written
            if isinstance(child, Tree):
                stack.append((child, depth, blocks))
    return result


def _note_string(node: Tree, depth: int, result: Nesting) -> None:
    token = node.children[0]
    if isinstance(token, Token) and "{" in token:
        result.string_depths[(token.line, token.column)] = depth


def _pos(node: Tree, path: str, line_offset: int, col_offset: int) -> ast.Pos:
    meta = node.meta
    line, col = meta.line, meta.column + (col_offset if meta.line == 1 else 0)
    return ast.Pos(path, line + line_offset, col, line + line_offset, col + 1)


def _too_deep_expression(node: Tree, path: str, line_offset: int, col_offset: int) -> Diagnostic:
    limit = LIMITS.expression_depth
    return Diagnostic(
        _pos(node, path, line_offset, col_offset),
        f"expression nested too deep: more than {limit} levels of operators, calls and the like "
        f"({describe('expression_depth')})",
        "split it into parts with 'let' or a 'def'")


def _too_deep_block(node: Tree, path: str, line_offset: int, col_offset: int) -> Diagnostic:
    limit = LIMITS.block_depth
    return Diagnostic(
        _pos(node, path, line_offset, col_offset),
        f"blocks nested too deep: this block is inside {limit} others "
        f"({describe('block_depth')})",
        "flatten it: join conditions with 'and', or use 'elif'")


def too_deep_for_python(path: str) -> Diagnostic:
    """What a RecursionError becomes: nesting within the limits but beyond this Python."""
    return Diagnostic(
        ast.Pos(path, 0, 0),
        "the rules nest too deep for this Python (it ran out of recursion depth)",
        "nest expressions, blocks and phase calls less deeply, or lower RULEFORGE_MAX_EXPRESSION_DEPTH, "
        "RULEFORGE_MAX_BLOCK_DEPTH and RULEFORGE_MAX_PHASE_DEPTH if they were raised")
