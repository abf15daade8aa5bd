"""The names of the function being lowered: Python's locals and the C places that hold them."""

from __future__ import annotations

import ast as py

from . import ctree as c


class Scope:
    """The names of the function being lowered: Python's locals and the C that holds them."""

    def __init__(self, lowering, names: dict[str, c.Expr]):
        self.lowering = lowering
        self.names = dict(names)
        self.arrays: dict[str, tuple[c.Expr, int | str]] = {}
        self.declared: list[str] = []  # C locals to declare at the top of the function
        self.sinks: set[str] = set()  # lists only ever appended to for the log (which C does not keep)
        self.zones: set[str] = set()  # locals holding a zone (`_z = Z[i]`): its index in C
        self.actions: set[str] = set()  # locals holding a legal action (its catalogue id)
        self.action_lists: set[str] = set()  # locals holding a list of legal actions
        self.splits: dict[str, py.Name] = {}  # locals holding components split by an attribute
        self.array_decls: list[tuple[str, int | str]] = []
        self.lists: dict[str, tuple[c.Expr, c.Expr]] = {}  # locals holding a list: (items, length)
        self.rows: dict[str, tuple] = {}
        self.extents: dict[str, tuple[c.Expr, c.Expr]] = {}  # locals holding a grid's extent: (low, high)
        self.kept: dict[str, tuple[c.Expr, c.Expr]] = {}  # a box of a part worked out once: (worked out, value)
        self.kept_ranges: dict[str, dict] = {}  # a dict box (`for h in ({},)`): key -> (worked out, low, high)
        self.in_flow = False
        self.options: tuple[int, ...] | None = None  # the actions the decision just made offers
        self.legal_out = False  # a lister: `out.append(action)` adds a legal action

    _KEPT = ("names", "zones", "actions", "lists", "sinks", "rows", "extents", "action_lists", "splits", "kept",
             "kept_ranges")

    def save(self) -> tuple:
        """The Python names as they stand (an inlined generator has names of its own)."""
        return tuple(getattr(self, field) for field in self._KEPT)

    def fresh(self, names: dict[str, c.Expr]) -> None:
        self.names, self.zones, self.actions, self.lists, self.sinks = dict(names), set(), set(), {}, set()
        self.rows, self.extents, self.action_lists, self.splits, self.kept = {}, {}, set(), {}, {}
        self.kept_ranges = {}

    def restore(self, saved: tuple) -> None:
        for field, value in zip(self._KEPT, saved):
            setattr(self, field, value)

    def temp(self) -> c.Name:
        """A C local of the function for a value that lives within one statement."""
        name = f"t{next(self.lowering.counter)}"
        self.declared.append(name)
        return c.Name(name)

    def slot(self) -> c.Expr:
        """A place for a value that may live across a decision (a loop's counter): a local,
        except in the flow, where it is kept in the state (`Flow` overrides this)."""
        return self.temp()

    def local(self, name: str) -> c.Expr:
        """The C place of a Python local, made on first use."""
        if name not in self.names:
            self.names[name] = self.place_for(name)
        return self.names[name]

    def place_for(self, name: str) -> c.Expr:
        """A numbered C local: a Python local's name may carry a name from the rules file,
        and no text of a rules file enters C."""
        return self.temp()

    def buffer(self, persistent: bool = False) -> tuple[c.Expr, c.Expr]:
        """A list's storage, (items, length): a C array of LISTCAP (`persistent` is for the
        flow, whose lists are kept in the state)."""
        name = f"b{next(self.lowering.counter)}"
        self.array_decls.append((name, "LISTCAP"))
        return c.Name(name), self.temp()

    def list_local(self, name: str) -> tuple[c.Expr, c.Expr]:
        """The storage of a local that holds a list, made on first use."""
        if name not in self.lists:
            self.lists[name] = self.buffer(persistent=True)
        return self.lists[name]

    def array(self, name: str, size: int | str) -> c.Expr:
        """A local array of int64_t (a scoring's items)."""
        if name not in self.arrays:
            cname = f"a{next(self.lowering.counter)}"
            self.array_decls.append((cname, size))
            self.arrays[name] = (c.Name(cname), size)
        return self.arrays[name][0]

    def comprehension(self, target: py.expr):
        return _Shadow(self, target)


class _Shadow:
    """A comprehension's variable: its own C local, the outer name restored after."""

    def __init__(self, scope: Scope, target: py.expr):
        self.scope = scope
        self.name = target.id if isinstance(target, py.Name) else None

    def __enter__(self):
        if self.name is not None:
            self.saved = self.scope.names.pop(self.name, None)
            self.scope.local(self.name)

    def __exit__(self, *exc):
        if self.name is not None:
            if self.saved is None:
                self.scope.names.pop(self.name, None)
            else:
                self.scope.names[self.name] = self.saved
