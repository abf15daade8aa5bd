"""What a choice is called, counted in C: a label as a template and the values it reads.

`simulate` counts the choices taken by their labels (balance/records.py `choices`). Labels are
texts, which never enter C; and a label may read the state ("take 23 with 5 chips"). So each
action's label is split once, here, into the values it reads of the state (its *holes*: the
largest parts of the label's expression that read the state and give one value, such as a
variable, a comparison, the top component of a zone) and a *template*: the label's own
expression with each hole replaced by `H[i]`. C works out the holes before the choice is
applied (as the reference engine renders the label then) and counts the key (seat, action id,
hole values); Python renders each distinct key once with the template, which is the compiler's
tree for the label, so the words cannot drift from the reference engine's.

A label none of whose parts reads the state has no holes (its key is the seat and the action).
One that reads the state in a way a hole cannot stand for (a component's changeable
properties shown through its label, a list) leaves the rules counted on the reference engine.
"""

from __future__ import annotations

import ast as py
import copy
from collections.abc import Callable
from typing import Any

import attrs

from ..compiler.rewrites import reads_state
from . import ctree as c
from .common import NotLowered, call
from .scope import Scope

_ONE_COMPONENT = frozenset({"_first", "_last"})  # helpers giving one component (or none) of a sequence


@attrs.frozen
class LabelTemplate:
    """An action's label with the state read through holes: `render(st, me, args, H)`."""

    holes: tuple[py.expr, ...]
    kinds: tuple[str, ...]  # per hole: "flag" (C's 0/1 is Python's bool) or "any"
    function: py.FunctionDef  # `def render(st, me, args, H)`, the label's tree with the holes replaced

    def compiled(self, namespace: dict) -> Callable[..., str]:
        """The template as a Python function of the program's namespace (a tree compiled, as
        the compiler compiles the generated code)."""
        module = py.fix_missing_locations(py.Module([self.function], []))
        scope = dict(namespace)
        exec(compile(module, "<ruleforge:label template>", "exec"), scope)  # noqa: S102 - the compiler's own tree
        return scope[self.function.name]


def label_template(label: py.FunctionDef, var_kinds: list[str], defined: dict[str, py.FunctionDef]) -> LabelTemplate:
    """The template of a compiled label `label_N(st, me, args)` (its body: the state's aliases,
    then `return EXPR`); NotLowered when it reads the state in a way no hole can stand for."""
    *aliases, last = label.body
    if not isinstance(last, py.Return) or last.value is None:
        raise NotLowered("a label that is not one expression")
    holes: list[py.expr] = []
    kinds: list[str] = []

    def hole_kind(node: py.expr) -> str | None:
        if any(isinstance(n, py.NamedExpr) for n in py.walk(node)):
            return None  # it names a value the rest of the label reads: look inside
        if isinstance(node, py.Compare) or (isinstance(node, py.UnaryOp) and isinstance(node.op, py.Not)):
            return "flag"
        if isinstance(node, py.Subscript) and isinstance(node.value, py.Name) and node.value.id == "V":
            base = _variable_base(node.slice)  # a variable, or one player's of a variable per player
            kind = var_kinds[base] if base is not None and 0 <= base < len(var_kinds) else "list"
            return None if kind == "list" else ("flag" if kind == "flag" else "any")
        if (isinstance(node, py.Subscript) and isinstance(node.value, py.Attribute)
                and isinstance(node.value.value, py.Name) and node.value.value.id == "st" and node.value.attr == "w"):
            return "any"  # the zone a component is in
        if isinstance(node, py.Call) and isinstance(node.func, py.Name) and node.func.id in _ONE_COMPONENT:
            return "any"
        if (isinstance(node, py.Subscript) and isinstance(node.slice, py.Constant) and node.slice.value in (0, -1)
                and isinstance(node.value, py.BoolOp) and isinstance(node.value.op, py.Or)
                and isinstance(node.value.values[-1], py.Name) and node.value.values[-1].id == "NOTHING"):
            return "any"  # `(xs or NOTHING)[-1]`: the last of them, or none
        return None

    class Holes(py.NodeTransformer):
        def visit(self, node: py.AST) -> py.AST:
            if isinstance(node, py.expr) and reads_state(node):
                kind = hole_kind(node)
                if kind is not None:
                    holes.append(node)
                    kinds.append(kind)
                    return py.Subscript(py.Name("H", py.Load()), py.Constant(len(holes) - 1), py.Load())
            return super().visit(node)

    body = Holes().visit(copy.deepcopy(last.value))
    if reads_state(body) or not _pure_calls(body, defined, set()):
        raise NotLowered("a label that reads the state other than through single values")
    args = py.arguments(posonlyargs=[], args=[py.arg(name) for name in ("st", "me", "args", "H")],
                        kwonlyargs=[], kw_defaults=[], defaults=[])
    render = py.FunctionDef(f"render_{label.name}", args, [*copy.deepcopy(aliases), py.Return(body)], [], None, None)
    return LabelTemplate(tuple(holes), tuple(kinds), render)


def _variable_base(index: py.expr) -> int | None:
    """The first slot of the variable `V[index]` reads: `V[4]`, or `V[4 + p]` (a variable per
    player, whose slots all hold one kind); None for another index."""
    if isinstance(index, py.Constant) and type(index.value) is int:
        return index.value
    if (isinstance(index, py.BinOp) and isinstance(index.op, py.Add) and isinstance(index.left, py.Constant)
            and type(index.left.value) is int):
        return index.left.value
    return None


def _pure_calls(node: py.AST, defined: dict[str, py.FunctionDef], seen: set[str]) -> bool:
    """Whether every use of the state `st` left in `node` is handing it to a function of the rules
    that reads none of the state (a `def` that describes a place, say), so that rendering with
    any state gives the same words."""
    for n in py.walk(node):
        if not (isinstance(n, py.Name) and n.id == "st"):
            continue
        calls = [m for m in py.walk(node) if isinstance(m, py.Call) and any(a is n for a in m.args)]
        if len(calls) != 1 or not isinstance(calls[0].func, py.Name) or calls[0].func.id not in defined:
            return False
        name = calls[0].func.id
        if name in seen:
            continue
        seen.add(name)
        f = defined[name]
        body = [s for s in f.body if not _is_alias(s)]
        if any(reads_state(s) for s in body) or not all(_pure_calls(s, defined, seen) for s in body):
            return False
    return True


def _is_alias(s: py.stmt) -> bool:
    """`Z = st.z` and the like: the state's parts named at the top of a generated function."""
    return (isinstance(s, py.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], py.Name)
            and isinstance(s.value, py.Attribute) and isinstance(s.value.value, py.Name) and s.value.value.id == "st")


class ChoiceKeyLowering:
    """A mixin of `Lowering`: `rf_choice_holes`, the values each action's label reads, for the
    choices simulate counts in C (rf_simulate.c)."""

    program: Any
    defined: dict[str, py.FunctionDef]
    scope: Scope
    n_args: int

    def choice_holes(self) -> c.Function:
        """`rf_choice_holes(st, id, me, h)`: the holes of the label of action `id` chosen by `me`,
        written to `h`; their number. Rules whose labels cannot be split leave
        `RF_CHOICE_KEYS` 0 (and `choice_keys_refused` says why)."""
        prog = self.program
        self.label_templates: dict[int, LabelTemplate] = {}
        self.choice_keys_refused: str | None = None
        self.scope = scope = Scope(self, {"me": c.Name("me")})
        for k in range(self.n_args):  # an action's arguments, read from its id
            scope.names[f"args#{k}"] = call("rf_act_arg", c.Name("id"), c.Int(k))
        cases: list[c.Stmt] = []
        try:
            for aid in range(len(prog.actions)):
                label = self.defined.get(f"label_{aid}")
                if not prog.state_labels[aid]:
                    continue
                if label is None:
                    raise NotLowered("a label the compiler did not write as a function")
                template = label_template(label, prog.var_kinds, self.defined)
                self.label_templates[aid] = template
                values = [self.scalar(_arguments_named(hole)) for hole in template.holes]
                cases += [c.Case(aid), *(c.Assign(c.Index(c.Name("h"), c.Int(i)), v) for i, v in enumerate(values)),
                          c.Return(c.Int(len(values)))]
        except NotLowered as err:
            self.choice_keys_refused = str(err)
            self.label_templates = {}
            cases = []
        self.n_holes = max((len(t.holes) for t in self.label_templates.values()), default=0)
        body = (*self.declarations(scope), c.Switch(call("rf_act_aid", c.Name("id")), tuple(cases)), c.Return(c.Int(0)))
        params = (("State *", "st"), ("int64_t", "id"), ("int64_t", "me"), ("int64_t *", "h"))
        return c.Function("rf_choice_holes", params, "int64_t", body)

    def choice_defines(self) -> list[c.Define]:
        return [c.Define("RF_CHOICE_KEYS", int(self.choice_keys_refused is None)),
                c.Define("RF_HOLES", max(1, self.n_holes))]


def _arguments_named(hole: py.expr) -> py.expr:
    """The hole with each `args[k]` named `args#k` (the scope reads it from the action's id)."""

    class Named(py.NodeTransformer):
        def visit_Subscript(self, node: py.Subscript) -> py.AST:
            if (isinstance(node.value, py.Name) and node.value.id == "args" and isinstance(node.slice, py.Constant)
                    and type(node.slice.value) is int):
                return py.Name(f"args#{node.slice.value}", py.Load())
            return self.generic_visit(node)

    return Named().visit(copy.deepcopy(hole))
