"""Text to syntax tree: the Lark LALR parser and the transformer that builds `ast` nodes."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from importlib import resources
from typing import Any

from lark import Lark, Token, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
from lark.visitors import Transformer_NonRecursive

from . import ast, lexical
from .diagnostics import Diagnostic, RulesError
from .display_syntax import DisplayBuilder
from .nesting import measure, too_deep_for_python
from .parser_cache import cached_lark

_TOKEN_NAMES = {
    "RBRACE": "'}'", "LBRACE": "'{'", "LPAR": "'('", "RPAR": "')'", "LSQB": "'['",
    "RSQB": "']'", "COLON": "':'", "COMMA": "','", "EQUAL": "'='", "DOT": "'.'",
    "NAME": "a name", "INT": "a number", "STRING": "a string", "$END": "end of file",
}


@functools.cache
def grammar_text() -> str:
    return resources.files("ruleforge").joinpath("grammar/ruleforge.lark").read_text()


@functools.cache
def _parser() -> Lark:
    # The built LALR tables are kept in the user's own cache folder (ruleforge/parser_cache.py):
    # building them takes most of a cold `ruleforge check`.
    return cached_lark(
        grammar_text(), parser="lalr", start=["start", "expr"],
        propagate_positions=True, maybe_placeholders=True,
    )


def lark_parser() -> Lark:
    """The language's Lark parser (LALR, starts `start` and `expr`), for the tools that read
    rules text below the syntax tree: mutation, completion."""
    return _parser()


BIGGEST_NUMBER = 2**63 - 1  # as saved states allow
_BIGGEST_TEXT = str(BIGGEST_NUMBER)


def _tokens(tree: Tree, kind: str) -> Iterator[Token]:
    """The tokens of one kind in a parse tree, walked with a stack: a tree may be deeper than
    Python's recursion goes when the depth limits are raised."""
    stack = [tree]
    while stack:
        for child in stack.pop().children:
            if isinstance(child, Tree):
                stack.append(child)
            elif isinstance(child, Token) and child.type == kind:
                yield child


def _unquote(token: str) -> str:
    return token[1:-1]


class _Builder(DisplayBuilder, Transformer_NonRecursive):
    """Turns the Lark tree into `ast` nodes, stamping every node with its position.

    Non-recursive, so that the depth of a tree costs no Python stack here."""

    def __init__(self, path: str, line_offset: int = 0, col_offset: int = 0,
                 string_depths: dict[tuple[int, int], int] | None = None):
        super().__init__()
        self.path = path
        self.line_offset = line_offset
        self.col_offset = col_offset
        self.string_depths = string_depths or {}  # expression depth of each string with {...}
        self.errors: list[Diagnostic] = []

    def pos(self, meta: Any) -> ast.Pos:
        if getattr(meta, "empty", True) and not hasattr(meta, "line"):
            return ast.Pos(self.path, 0, 0)
        col = meta.column + (self.col_offset if meta.line == 1 else 0)
        end_col = meta.end_column + (self.col_offset if meta.end_line == 1 else 0)
        return ast.Pos(self.path, meta.line + self.line_offset, col,
                       meta.end_line + self.line_offset, end_col)

    def tpos(self, tok: Token) -> ast.Pos:
        col = tok.column + (self.col_offset if tok.line == 1 else 0)
        return ast.Pos(self.path, tok.line + self.line_offset, col,
                       tok.end_line + self.line_offset,
                       tok.end_column + (self.col_offset if tok.end_line == 1 else 0))

    def huge_numbers(self, tree: Tree) -> list[Diagnostic]:
        """Numbers past a 64-bit integer, which no game needs and which Python could not even
        turn into text past a few thousand digits: each an error at the number."""
        out = []
        for tok in _tokens(tree, "INT"):
            digits = tok.lstrip("0")
            if len(digits) > len(_BIGGEST_TEXT) or (len(digits) == len(_BIGGEST_TEXT) and digits > _BIGGEST_TEXT):
                shown = tok if len(tok) <= 30 else f"{tok[:12]}...{tok[-6:]} ({len(tok):,} digits)"
                out.append(Diagnostic(self.tpos(tok), f"number {shown} is too large",
                                      f"numbers go up to {BIGGEST_NUMBER:,}"))
        return out

    # --- strings with {interpolation} ---------------------------------------------
    def string(self, tok: Token) -> ast.StrLit:
        text = _unquote(str(tok))
        parts: list[Any] = []
        pos = self.tpos(tok)
        depth = self.string_depths.get((tok.line, tok.column), 0) + 1
        i = 0
        problem = _brace_problem(text)
        if problem is not None:
            at, message, hint = problem
            self.errors.append(Diagnostic(ast.Pos(self.path, pos.line, pos.column + 1 + at), message, hint))
            return ast.StrLit(pos, (text,))
        for m in re.finditer(r"\{([^{}]*)\}", text):
            if m.start() > i:
                parts.append(text[i:m.start()])
            inner = m.group(1)
            col = pos.column + 1 + m.start(1)
            parts.append(parse_expression(inner, self.path, pos.line - 1, col - 1, self.errors, depth))
            i = m.end()
        if i < len(text):
            parts.append(text[i:])
        return ast.StrLit(pos, tuple(parts))

    # --- declarations -------------------------------------------------------------
    def start(self, items):
        return [i for i in items if i is not None]

    @v_args(meta=True)
    def game_decl(self, meta, c):
        return ast.GameDecl(self.pos(meta), _unquote(str(c[0])))

    @v_args(meta=True)
    def players_decl(self, meta, c):
        low = int(c[0])
        high = int(c[1]) if len(c) > 1 and c[1] is not None else low
        return ast.PlayersDecl(self.pos(meta), low, high)

    @v_args(meta=True)
    def extends_decl(self, meta, c):
        return ast.ExtendsDecl(self.pos(meta), _unquote(str(c[0])))

    @v_args(meta=True)
    def option_decl(self, meta, c):
        return ast.OptionDecl(self.pos(meta), str(c[0]), c[1], c[2])

    @v_args(meta=True)
    def remove_decl(self, meta, c):
        return ast.RemoveDecl(self.pos(meta), c[0], str(c[1]))

    @v_args(meta=True)
    def extend_decl(self, meta, c):
        return ast.ExtendScoringDecl(self.pos(meta), str(c[0]), str(c[1]), tuple(x for x in c[2:] if x is not None))

    def decl_kind(self, c):
        return str(c[0])

    @v_args(meta=True)
    def replace_decl(self, meta, c):
        return ast.ReplaceDecl(self.pos(meta), c[0])

    @v_args(meta=True)
    def enum_decl(self, meta, c):
        return ast.EnumDecl(self.pos(meta), str(c[0]), tuple(c[1]))

    def name_list(self, c):
        return [(str(t), self.tpos(t)) for t in c]

    @v_args(meta=True)
    def kind_decl(self, meta, c):
        attrs_, label, counts = [], None, ()
        for m in c[1:]:
            if isinstance(m, ast.StrLit):
                label = m
            elif isinstance(m, tuple) and m and m[0] == "counts":
                counts = counts + m[1]
            else:
                attrs_.append(m)
        return ast.KindDecl(self.pos(meta), str(c[0]), tuple(attrs_), label, counts)

    def counts_as_decl(self, c):
        return ("counts", tuple(c[0]))

    @v_args(meta=True)
    def attr_decl(self, meta, c):
        return ast.AttrDecl(self.pos(meta), str(c[0]), c[1], c[2] if len(c) > 2 else None, False)

    @v_args(meta=True)
    def prop_decl(self, meta, c):
        return ast.AttrDecl(self.pos(meta), str(c[0]), c[1], c[2] if len(c) > 2 else None, True)

    def kind_label(self, c):
        return self.string(c[0])

    @v_args(meta=True)
    def simple_type(self, meta, c):
        return ast.TypeRef(str(c[0]), self.pos(meta))

    @v_args(meta=True)
    def player_type(self, meta, c):
        return ast.TypeRef("player", self.pos(meta))

    @v_args(meta=True)
    def list_type(self, meta, c):
        return ast.TypeRef("list", self.pos(meta), c[0])

    @v_args(meta=True)
    def components_decl(self, meta, c):
        return ast.ComponentsDecl(self.pos(meta), tuple(c))

    def copies(self, c):
        return c[0] if isinstance(c[0], ast.Expr) else ast.IntLit(self.tpos(c[0]), int(c[0]))

    @v_args(meta=True)
    def component_entry(self, meta, c):
        c = list(c)
        copies = None
        if c and isinstance(c[0], ast.Expr):
            copies = c.pop(0)
        kind = c.pop(0)
        args, rest = [], []
        for x in c:
            if isinstance(x, tuple) and x[0] == "arg":
                args.append(x[1:])
            elif x is not None:
                rest.append(x)
        target = rest[0]
        cond = rest[1] if len(rest) > 1 else None
        return ast.ComponentEntry(self.pos(meta), copies, str(kind), tuple(args),
                                  target[0], target[1], target[2], cond)

    def component_arg(self, c):
        return ("arg", str(c[0]), c[1], self.tpos(c[0]))

    def shared_target(self, c):
        return (str(c[0]), self.tpos(c[0]), False)

    def each_player_target(self, c):
        return (str(c[0]), self.tpos(c[0]), True)

    @v_args(meta=True)
    def zone_decl(self, meta, c):
        name = str(c[0])
        rest = list(c[1:])
        per = bool(rest and isinstance(rest[0], Token) and rest[0].type == "PER")
        if per:
            rest.pop(0)
        shape = str(rest.pop(0))
        vis, size, rules = "everyone", None, []
        for opt in rest:
            if opt[0] == "visible":
                if opt[2] is None and opt[3] is None:
                    vis = opt[1]
                else:
                    rules.append(opt[1:])
            else:
                size = opt[1]
        return ast.ZoneDecl(self.pos(meta), name, per, shape, vis, size, tuple(rules))

    def visible_option(self, c):
        vis = str(c[0].children[0]) if isinstance(c[0], Tree) else str(c[0])
        return ("visible", vis, c[1], c[2])

    def vis_row(self, c):
        return int(c[0])

    def vis_cond(self, c):
        return c[0]

    def visibility(self, c):
        return str(c[0])

    def size_option(self, c):
        return ("size", tuple(x for x in c if x is not None))

    @v_args(meta=True)
    def var_decl(self, meta, c):
        rest = list(c[1:])
        per = bool(rest and isinstance(rest[0], Token) and rest[0].type == "PER")
        if per:
            rest.pop(0)
        visible = rest.pop() if isinstance(rest[-1], str) else "everyone"
        return ast.VarDecl(self.pos(meta), str(c[0]), per, rest[0], rest[1] if len(rest) > 1 else None, visible)

    @v_args(meta=True)
    def def_decl(self, meta, c):
        params = tuple(p for p in c[1:-1] if p is not None)
        return ast.DefDecl(self.pos(meta), str(c[0]), params, c[-1])

    @v_args(meta=True)
    def param(self, meta, c):
        return ast.Param(self.pos(meta), str(c[0]), c[1])

    @v_args(meta=True)
    def phase_decl(self, meta, c):
        params = tuple(p for p in c[1:-1] if p is not None)
        return ast.PhaseDecl(self.pos(meta), str(c[0]), c[-1], params)

    @v_args(meta=True)
    def flow_decl(self, meta, c):
        return ast.FlowDecl(self.pos(meta), c[0])

    @v_args(meta=True)
    def action_decl(self, meta, c):
        name = str(c[0])
        params, label, limits, body = [], None, [], c[-1]
        secret, public = False, None
        for x in c[1:-1]:
            if isinstance(x, ast.ActionParam):
                params.append(x)
            elif isinstance(x, Token) and x.type == "STRING":
                label = self.string(x)
            elif isinstance(x, ast.Limit):
                limits.append(x)
            elif isinstance(x, tuple) and x and x[0] == "secret":
                secret, public = True, x[1]
        return ast.ActionDecl(self.pos(meta), name, tuple(params), label, tuple(limits), body, secret, public)

    def secret(self, c):
        return ("secret", self.string(c[0]) if c else None)

    @v_args(meta=True)
    def action_param(self, meta, c):
        return ast.ActionParam(self.pos(meta), str(c[0]), c[1])

    @v_args(meta=True)
    def once_limit(self, meta, c):
        return ast.Limit(self.pos(meta), 1, c[0])

    @v_args(meta=True)
    def count_limit(self, meta, c):
        return ast.Limit(self.pos(meta), int(c[0]), c[1])

    def scope(self, c):
        return str(c[0])

    @v_args(meta=True)
    def trigger_decl(self, meta, c):
        event, zone, other = c[0]
        return ast.TriggerDecl(self.pos(meta), event, zone, c[1], other)

    def enter_event(self, c):
        return ("enter", str(c[0]), str(c[1]) if c[1] is not None else None)

    def leave_event(self, c):
        return ("leave", str(c[0]), str(c[1]) if c[1] is not None else None)

    def block(self, c):
        return tuple(c)

    @v_args(meta=True)
    def scoring_decl(self, meta, c):
        rest = list(c[2:])
        final = bool(rest and rest[0] == "final")
        if rest and (rest[0] is None or rest[0] == "final"):
            rest.pop(0)
        return ast.ScoringDecl(self.pos(meta), str(c[0]), str(c[1]), final, tuple(rest))

    def final(self, c):
        return "final"

    @v_args(meta=True)
    def points_item(self, meta, c):
        return ast.ScoreItem(self.pos(meta), _unquote(str(c[0])), "points", c[1], None)

    @v_args(meta=True)
    def double_item(self, meta, c):
        return ast.ScoreItem(self.pos(meta), _unquote(str(c[0])), "double", None, c[1])

    @v_args(meta=True)
    def zero_item(self, meta, c):
        return ast.ScoreItem(self.pos(meta), _unquote(str(c[0])), "zero", None, c[1])

    @v_args(meta=True)
    def multiply_item(self, meta, c):
        return ast.ScoreItem(self.pos(meta), _unquote(str(c[0])), "multiply", c[1], c[2])

    @v_args(meta=True)
    def best_item(self, meta, c):
        var, prop, options, source_var, source, cond = c
        return ast.BestChoice(self.pos(meta), str(var), str(prop), options, source, cond, str(source_var))

    @v_args(meta=True)
    def best_value_item(self, meta, c):
        var, source, into = c
        return ast.BestValue(self.pos(meta), str(var), source, None if into is None else str(into))

    @v_args(meta=True)
    def invariant_decl(self, meta, c):
        message, player, cond = c
        return ast.InvariantDecl(self.pos(meta), self.string(message), None if player is None else str(player), cond)

    @v_args(meta=True)
    def measure_decl(self, meta, c):
        return ast.MeasureDecl(self.pos(meta), str(c[0]), c[1])

    @v_args(meta=True)
    def end_decl(self, meta, c):
        return ast.EndDecl(self.pos(meta), c[0], c[1])

    def end_after(self, c):
        return c[0]

    @v_args(meta=True)
    def ranking_decl(self, meta, c):
        return ast.RankingDecl(self.pos(meta), str(c[0]), tuple(c[1:]))

    # --- statements -----------------------------------------------------------------
    @v_args(meta=True)
    def let_stmt(self, meta, c):
        return ast.Let(self.pos(meta), str(c[0]), c[1])

    @v_args(meta=True)
    def assign_stmt(self, meta, c):
        return ast.Assign(self.pos(meta), c[0], c[1], c[2])

    def assign_op(self, c):
        return str(c[0])

    @v_args(meta=True)
    def name_target(self, meta, c):
        return ast.Name(self.pos(meta), str(c[0]))

    @v_args(meta=True)
    def player_target(self, meta, c):
        return ast.Call(self.pos(meta), str(c[0]), (c[1],))

    @v_args(meta=True)
    def prop_target(self, meta, c):
        return ast.Attr(self.pos(meta), c[0], str(c[1]))

    @v_args(meta=True)
    def move_stmt(self, meta, c):
        what, dest = c[0], c[1]
        at_bottom = len(c) > 2 and c[2] == "bottom"
        if isinstance(what, tuple):
            return ast.Move(self.pos(meta), what[1], dest, top=what[0], at_bottom=at_bottom)
        return ast.Move(self.pos(meta), what, dest, at_bottom=at_bottom)

    def move_expr(self, c):
        return c[0]

    def move_top(self, c):
        return (c[0], c[1])

    def at_top(self, c):
        return "top"

    def at_bottom(self, c):
        return "bottom"

    @v_args(meta=True)
    def deal_stmt(self, meta, c):
        return ast.Deal(self.pos(meta), c[0], c[1], str(c[2]))

    @v_args(meta=True)
    def shuffle_stmt(self, meta, c):
        return ast.Shuffle(self.pos(meta), c[0])

    @v_args(meta=True)
    def sort_stmt(self, meta, c):
        return ast.Sort(self.pos(meta), str(c[0]), c[1], c[2])

    @v_args(meta=True)
    def swap_stmt(self, meta, c):
        return ast.Swap(self.pos(meta), c[0], c[1])

    @v_args(meta=True)
    def reveal_stmt(self, meta, c):
        return ast.Reveal(self.pos(meta), c[0], c[1])

    @v_args(meta=True)
    def if_stmt(self, meta, c):
        branches = [(c[0], c[1])]
        otherwise: tuple = ()
        for x in c[2:]:
            if x is None:
                continue
            if x[0] == "elif":
                branches.append((x[1], x[2]))
            else:
                otherwise = x[1]
        return ast.If(self.pos(meta), tuple(branches), otherwise)

    def elif_clause(self, c):
        return ("elif", c[0], c[1])

    def else_clause(self, c):
        return ("else", c[0])

    @v_args(meta=True)
    def for_stmt(self, meta, c):
        return ast.For(self.pos(meta), str(c[0]), c[1], c[2])

    @v_args(meta=True)
    def repeat_stmt(self, meta, c):
        return ast.Repeat(self.pos(meta), c[0], c[1])

    @v_args(meta=True)
    def until_stmt(self, meta, c):
        return ast.RepeatUntil(self.pos(meta), c[0], c[1])

    @v_args(meta=True)
    def while_stmt(self, meta, c):
        return ast.While(self.pos(meta), c[0], c[1])

    @v_args(meta=True)
    def turn_choose_stmt(self, meta, c):
        return ast.Turn(self.pos(meta), c[0], (self.choose_node(meta, c[1], c[2]),))

    @v_args(meta=True)
    def turn_stmt(self, meta, c):
        return ast.Turn(self.pos(meta), c[0], c[1])

    @v_args(meta=True)
    def together_stmt(self, meta, c):
        names = c[1]
        return ast.Together(self.pos(meta), c[0], tuple(n for n, _ in names), tuple(p for _, p in names))

    @v_args(meta=True)
    def choose_stmt(self, meta, c):
        return self.choose_node(meta, c[0], c[1])

    def choose_node(self, meta, prompt: Token | None, names: list) -> ast.Choose:
        """A decision, with the prompt text it may have (`choose "spend more?": spend, pass`)."""
        return ast.Choose(self.pos(meta), tuple(n for n, _ in names), tuple(p for _, p in names),
                          None if prompt is None else self.string(prompt))

    @v_args(meta=True)
    def score_stmt(self, meta, c):
        return ast.ScoreStmt(self.pos(meta), str(c[0]), str(c[1]))

    @v_args(meta=True)
    def log_stmt(self, meta, c):
        return ast.Log(self.pos(meta), self.string(c[0]))

    @v_args(meta=True)
    def require_stmt(self, meta, c):
        return ast.Require(self.pos(meta), c[0])

    @v_args(meta=True)
    def end_stmt(self, meta, c):
        return ast.EndGame(self.pos(meta))

    @v_args(meta=True)
    def call_stmt(self, meta, c):
        return ast.CallPhase(self.pos(meta), str(c[0]), tuple(x for x in c[1:] if x is not None))

    # --- expressions --------------------------------------------------------------
    @v_args(meta=True)
    def int_lit(self, meta, c):
        return ast.IntLit(self.pos(meta), int(c[0]))

    def str_lit(self, c):
        return self.string(c[0])

    @v_args(meta=True)
    def name(self, meta, c):
        return ast.Name(self.pos(meta), str(c[0]))

    @v_args(meta=True)
    def attr(self, meta, c):
        return ast.Attr(self.pos(meta), c[0], str(c[1]))

    @v_args(meta=True)
    def index(self, meta, c):
        return ast.Index(self.pos(meta), c[0], c[1])

    @v_args(meta=True)
    def call(self, meta, c):
        return ast.Call(self.pos(meta), str(c[0]), tuple(x for x in c[1:] if x is not None))

    @v_args(meta=True)
    def gen_call(self, meta, c):
        func, item, var, source, cond = c[:5]
        more, key = tuple(c[5:-1]), c[-1]
        return ast.GenCall(self.pos(meta), str(func), item, str(var), source, cond, key, more)

    def gen_clause(self, c):
        return (str(c[0]), c[1], c[2])

    def gen_filter(self, c):
        return c[0]

    def gen_key(self, c):
        return c[0]

    def score_cond(self, c):
        return c[0]

    @v_args(meta=True)
    def players_expr(self, meta, c):
        return ast.Players(self.pos(meta), None)

    @v_args(meta=True)
    def players_from(self, meta, c):
        return ast.Players(self.pos(meta), c[0])

    @v_args(meta=True)
    def list_lit(self, meta, c):
        return ast.ListLit(self.pos(meta), tuple(x for x in c if x is not None))

    @v_args(meta=True)
    def table_expr(self, meta, c):
        return ast.Table(self.pos(meta), c[0], tuple(c[1:]))

    def exact_entry(self, c):
        return ast.TableEntry(int(c[0]), False, c[1])

    def at_least_entry(self, c):
        return ast.TableEntry(int(c[0]), True, c[1])

    def else_entry(self, c):
        return ast.TableEntry(None, False, c[0])

    @v_args(meta=True)
    def if_expr(self, meta, c):
        return ast.IfExpr(self.pos(meta), c[0], c[1], c[2])

    @v_args(meta=True)
    def or_op(self, meta, c):
        return ast.BoolOp(self.pos(meta), "or", c[0], c[1])

    @v_args(meta=True)
    def and_op(self, meta, c):
        return ast.BoolOp(self.pos(meta), "and", c[0], c[1])

    @v_args(meta=True)
    def not_op(self, meta, c):
        return ast.Not(self.pos(meta), c[0])

    @v_args(meta=True)
    def compare(self, meta, c):
        return ast.Compare(self.pos(meta), c[1], c[0], c[2])

    def comp_op(self, c):
        return str(c[0])

    def add_op(self, c):
        return str(c[0])

    def mul_op(self, c):
        return str(c[0])

    @v_args(meta=True)
    def range_op(self, meta, c):
        return ast.Range(self.pos(meta), c[0], c[1])

    @v_args(meta=True)
    def binop(self, meta, c):
        return ast.BinOp(self.pos(meta), c[1], c[0], c[2])

    @v_args(meta=True)
    def neg(self, meta, c):
        return ast.Neg(self.pos(meta), c[0])


def _syntax_diagnostic(err: UnexpectedInput, path: str, line_offset: int, text: str) -> Diagnostic:
    line = getattr(err, "line", 0) or 0
    col = getattr(err, "column", 0) or 0
    pos = ast.Pos(path, line + line_offset, col, line + line_offset, col + 1)
    if isinstance(err, UnexpectedCharacters):
        what = lexical.describe(text, err.pos_in_stream)
        return Diagnostic(pos, what.message, what.hint)
    if isinstance(err, UnexpectedEOF):
        return Diagnostic(pos, "unexpected end of file", "a '}' may be missing")
    if isinstance(err, UnexpectedToken):
        tok = err.token
        # `accepts` is what the parser could really take here; `expected` can miss keywords.
        names = getattr(err, "accepts", None) or err.expected
        expected = sorted({_token_name(e) for e in names})
        shown = ", ".join(expected[:8]) + (", ..." if len(expected) > 8 else "")
        what = "end of file" if tok.type == "$END" else repr(str(tok))
        if _is_decimal(tok, text):
            start = col - 1 - len(_digits_before(text, (tok.start_pos or 0) - 1))
            return Diagnostic(ast.Pos(path, line + line_offset, start, line + line_offset, col + len(tok)),
                              "numbers are whole: there is no decimal point",
                              "scale the quantity (count tenths, say) or use '//' to divide")
        if tok.type == "$END":
            pos = ast.Pos(path, line + line_offset, col, line + line_offset, col + 1)
        postfix = _postfix_problem(tok, text, names) or _sort_problem(tok, text, names)
        if postfix is not None:
            return Diagnostic(pos, *postfix)
        return Diagnostic(pos, f"unexpected {what}", f"expected {shown}")
    return Diagnostic(pos, str(err))


def _postfix_problem(tok: Token, text: str, accepts) -> tuple[str, str] | None:
    """What a '(' or '[' after a value, or a ',' inside '[...]', that the grammar cannot take
    means: a method call, an index of two numbers. None for any other token."""
    at = tok.start_pos or 0
    before = text[:at].rstrip()
    if tok.type == "LPAR":
        attribute = re.search(r"\.\s*([A-Za-z_][A-Za-z0-9_]*)$", before)
        if attribute is not None:
            name = attribute.group(1)
            return (f"'.{name}(...)': an attribute cannot be called (values have no methods)",
                    f"a function takes the value as its argument, {name}(x); an attribute is read without '(...)'")
        if before.endswith(("]", ")")):
            return ("'(' after a value: only a name can be called",
                    "write the function's name before the parentheses: f(x)")
    if tok.type == "LSQB":
        return ("'[' here: an index follows a value (xs[0]), and a list cannot start a statement",
                "put the indexed value in an expression: let x = xs[0]")
    if tok.type == "COMMA" and "RSQB" in accepts and "LSQB" not in accepts and _inside_index(before):
        return ("an index is one number: xs[i, j] is not a list's item",
                "a list of lists is indexed twice: xs[i][j]")
    return None


def _sort_problem(tok: Token, text: str, accepts) -> tuple[str, str] | None:
    """`sort pool by n`: a sort names each item before its zone, as `for` does."""
    line = text[:tok.start_pos or 0].rsplit("\n", 1)[-1]
    match = re.search(r"\bsort\s+([A-Za-z_][A-Za-z0-9_]*)\s*$", line)
    if match is None or "IN" not in accepts:
        return None
    zone = match.group(1)
    return (f"'sort {zone}' needs a name for each item: sort c in {zone} by ...",
            f"write sort c in {zone} by c.key (the key is read for each item c)")


def _inside_index(before: str) -> bool:
    """Whether the text ends inside an open '[' that follows a value (an index, not a list)."""
    depth = 0
    for i in range(len(before) - 1, -1, -1):
        ch = before[i]
        if ch in ")]":
            depth += 1
        elif ch in "([":
            if depth == 0:
                prior = before[:i].rstrip()
                return ch == "[" and bool(prior) and (prior[-1].isalnum() or prior[-1] in "_)]")
            depth -= 1
    return False


def _is_decimal(tok: Token, text: str) -> bool:
    """`1.5`: digits, a '.', digits — read as a number and an attribute access that fails."""
    at = tok.start_pos or 0
    return (tok.type == "INT" and at >= 2 and text[at - 1] == "." and text[at - 2].isdigit())


def _digits_before(text: str, end: int) -> str:
    start = end
    while start > 0 and text[start - 1].isdigit():
        start -= 1
    return text[start:end]


def _token_name(terminal: str) -> str:
    """How a terminal reads in an error message: `'-'` rather than `MINUS`."""
    if terminal in _TOKEN_NAMES:
        return _TOKEN_NAMES[terminal]
    for t in _parser().terminals:
        if t.name == terminal and t.pattern.type == "str":
            return repr(t.pattern.value)
    return repr(terminal.lower())


def _unclosed_brace(text: str) -> tuple[int, int] | None:
    """Line and column of the innermost '{' never closed (strings and comments skipped)."""
    stack: list[tuple[int, int]] = []
    for lineno, line in enumerate(text.split("\n"), 1):
        quote = None
        for col, ch in enumerate(line, 1):
            if quote:
                quote = None if ch == quote else quote
            elif ch in "\"'":
                quote = ch
            elif ch == "#":
                break
            elif ch == "{":
                stack.append((lineno, col))
            elif ch == "}" and stack:
                stack.pop()
    return stack[-1] if stack else None


def _brace_problem(text: str) -> tuple[int, str, str] | None:
    """Where a string's `{...}` parts go wrong: one inside another (a string inside `{...}`
    holding `{...}` of its own), or one never closed. None when they are fine."""
    opened = -1
    for i, ch in enumerate(text):
        if ch == "{":
            if opened >= 0:
                return (i, "a '{' inside a '{...}' of a string: braces cannot nest",
                        "give the inner text its own def, e.g. def shown(n: int) = ' number {n}'")
            opened = i
        elif ch == "}" and opened >= 0:
            opened = -1
    if opened >= 0:
        return opened, "this '{' in a string is never closed", "close it with '}' (a string cannot hold a literal '{')"
    return None


def parse_expression(text: str, path: str, line_offset: int, col_offset: int,
                     errors: list[Diagnostic], base_depth: int = 0) -> ast.Expr:
    """Parse one expression (the `{...}` inside strings, `Game.evaluate`); its problems are
    added to `errors` and a placeholder returned. `base_depth` is the expression depth it sits
    at, counted against `LIMITS.expression_depth`."""
    placeholder = ast.IntLit(ast.Pos(path, line_offset + 1, col_offset + 1), 0)
    try:
        tree = _parser().parse(text, start="expr")
    except UnexpectedInput as err:
        d = _syntax_diagnostic(err, path, line_offset, text)
        errors.append(_shift_columns(d, col_offset))
        return placeholder
    nesting = measure(tree, path, line_offset, col_offset, base_depth)
    if nesting.too_deep:
        errors.extend(nesting.too_deep)
        return placeholder
    builder = _Builder(path, line_offset, col_offset, nesting.string_depths)
    huge = builder.huge_numbers(tree)
    if huge:
        errors.extend(huge)
        return placeholder
    try:
        node = builder.transform(tree)
    except RecursionError:
        errors.append(too_deep_for_python(path))
        return placeholder
    errors.extend(builder.errors)
    return node


def _shift_columns(d: Diagnostic, col_offset: int) -> Diagnostic:
    """A diagnostic of an expression inside a string, placed at its column in the line."""
    p = d.pos
    return Diagnostic(ast.Pos(p.file, p.line, p.column + col_offset, p.end_line, p.end_column + col_offset),
                      d.message, d.hint)


def parse_rules(text: str, path: str) -> ast.RulesFile:
    """Parse a whole rules file; raises RulesError with every syntax error found."""
    text = lexical.normalize(text)
    try:
        tree = _parser().parse(text, start="start")
    except UnexpectedInput as err:
        raise RulesError([_first_syntax_error(err, text, path)], {path: text}) from None
    nesting = measure(tree, path)
    if nesting.too_deep:
        raise RulesError(nesting.too_deep, {path: text})
    builder = _Builder(path, string_depths=nesting.string_depths)
    huge = builder.huge_numbers(tree)
    if huge:
        raise RulesError(huge, {path: text})
    try:
        decls = builder.transform(tree)
    except RecursionError:  # within the limits, but they were raised past what Python copes with
        raise RulesError([too_deep_for_python(path)], {path: text}) from None
    if builder.errors:
        raise RulesError(builder.errors, {path: text})
    return ast.RulesFile(path, text, tuple(decls))


def _first_syntax_error(err: UnexpectedInput, text: str, path: str) -> Diagnostic:
    diag = _syntax_diagnostic(err, path, 0, text)
    brace = _unclosed_brace(text) if getattr(getattr(err, "token", None), "type", "") == "$END" else None
    if brace is not None:  # point at the brace left open, not at the last token
        line, col = brace
        diag = Diagnostic(ast.Pos(path, line, col, line, col + 1),
                          "unexpected end of file: this '{' is never closed", "add the missing '}'")
    return diag
