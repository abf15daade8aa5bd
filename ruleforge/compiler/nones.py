"""`x.attr` where x may be none (an empty zone's top, an unset variable, a def giving none):
the value is none (false for a flag). Only a subject that may be none is guarded, and most
guards cost nothing: the attribute is read where the subject is made (inside `next(...)`'s
generator, from a spare entry past the components' own in each attribute table). A loop's
variable over a zone, an action's parameter or a generator's variable is never none and is
read as before."""

from __future__ import annotations

import ast as py
from typing import Any

from .. import ast
from ..model import FLAG
from . import pytree as t
from .program import Env

# the helpers whose value may be none, by how their default is given
_NEXT_LIKE = ("next",)  # next(items, None)
_KEYED = ("max", "min")  # argmax/argmin: max(items, key=..., default=None)


class NoneSafeAttributes:
    """The attribute reads' part of `Compiler`."""

    def attribute(self, e: ast.Attr, env: Env) -> t.Code:
        obj = self.cx(e.obj, env)
        is_prop = e.attr in self.prop_index
        table = t.sub("P", self.prop_index[e.attr]) if is_prop else t.name(f"A_{e.attr}")
        if not self.may_be_none(e.obj, obj, env):
            return t.sub(table, obj)
        at = self.m.attr_types.get(e.attr)
        default = False if at is not None and at[0] == FLAG else None
        return self.guarded(table, obj, default, not is_prop)

    def may_be_none(self, e: ast.Expr | None, code: t.Code, env: Env) -> bool:
        """Whether the code of a component may give none: what an empty zone, a cell outside
        the grid, an unset variable or property, or a def giving one of those may give."""
        if isinstance(e, ast.Name) and e.ident in env.nullable:
            return True
        return self.code_may_be_none(code)

    def code_may_be_none(self, code: t.Code) -> bool:
        if isinstance(code, py.Constant):
            return code.value is None
        if isinstance(code, py.IfExp):
            return self.code_may_be_none(code.body) or self.code_may_be_none(code.orelse)
        if isinstance(code, py.NamedExpr):
            return self.code_may_be_none(code.value)
        if isinstance(code, py.Subscript):
            if _top_or_nothing(code) is not None:
                return True
            base = code.value
            if isinstance(base, py.Name) and base.id == "V":
                return True  # a variable of a component type: unset is none
            return isinstance(base, py.Subscript) and isinstance(base.value, py.Name) and base.value.id == "P"
        if isinstance(code, py.Call) and isinstance(code.func, py.Name):
            f = code.func.id
            if f in ("_first", "arg_best", "item_at") or (f in _NEXT_LIKE and len(code.args) == 2) \
                    or (f in _KEYED and any(k.arg == "default" for k in code.keywords)):
                return True
            if f.startswith("d_"):
                kind = self.ck.def_types.get(f[2:])
                return kind is None or kind.kind in ("comp", "any")
        return False

    def guarded(self, table: t.Code, subject: t.Code, default: Any, spare_entry: bool) -> t.Code:
        """`table[subject]`, or `default` when subject is none. `spare_entry`: the table has a
        last entry for none (an attribute's; a property's list is part of the state and has not)."""
        if isinstance(subject, py.Constant) and subject.value is None:
            return t.const(default)
        if isinstance(subject, py.IfExp):
            branches = [self.guarded(t.clone(table), b, default, spare_entry) if self.code_may_be_none(b)
                        else t.sub(t.clone(table), b) for b in (subject.body, subject.orelse)]
            return t.ifexp(subject.test, *branches)
        top = _top_or_nothing(subject)
        if top is not None:  # `(items or NOTHING)[-1]`: the top of a zone, the last item
            items, at = top
            if spare_entry:
                return t.sub(table, t.sub(t.or_(items, t.name("NOIDX")), at))
            if t.is_cheap(items) or (isinstance(items, py.Subscript) and t.is_cheap(items.slice)
                                     and isinstance(items.value, py.Name)):
                return t.ifexp(items, t.sub(table, t.sub(t.clone(items), at)), t.const(default))
        if isinstance(subject, py.Call) and isinstance(subject.func, py.Name):
            f = subject.func.id
            if f in _NEXT_LIKE and len(subject.args) == 2 and isinstance(subject.args[0], py.GeneratorExp):
                gen = subject.args[0]
                gen.elt = t.sub(table, gen.elt)  # read where the item is found
                subject.args[1] = t.const(default)
                return subject
            if f == "arg_best" and isinstance(subject.args[0], py.ListComp) \
                    and isinstance(subject.args[0].elt, py.Tuple):
                pair = subject.args[0].elt
                pair.elts[1] = t.sub(table, pair.elts[1])
                subject.args.append(t.const(default))
                return subject
            if spare_entry and f in _KEYED:
                for k in subject.keywords:
                    if k.arg == "default":
                        k.value = t.sub(t.name("NOIDX"), t.const(0))
                return t.sub(table, subject)
            if spare_entry and f == "_first" and len(subject.args) == 1:
                return t.sub(table, t.sub(t.or_(subject.args[0], t.name("NOIDX")), t.const(0)))
        if t.is_simple(subject):
            return t.ifexp(t.compare(subject, "is not", t.const(None)), t.sub(table, t.clone(subject)),
                           t.const(default))
        if not self.in_iterable:
            name = f"_n{next(self.fresh)}"
            return t.ifexp(t.compare(t.named(name, subject), "is not", t.const(None)),
                           t.sub(table, t.name(name)), t.const(default))
        return t.call("attr_or", table, subject, t.const(default))


def _top_or_nothing(code: t.Code) -> tuple[t.Code, t.Code] | None:
    """(items, index) of `(items or NOTHING)[index]`: a top or a last item, none when empty."""
    if isinstance(code, py.Subscript) and isinstance(code.value, py.BoolOp) and isinstance(code.value.op, py.Or) \
            and len(code.value.values) == 2 and isinstance(code.value.values[1], py.Name) \
            and code.value.values[1].id == "NOTHING":
        return code.value.values[0], code.slice
    return None
