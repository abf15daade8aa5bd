"""Laying out a game: zones, grids, variables and components, their sizes checked before
anything is allocated."""

from __future__ import annotations

import itertools
import math

import attrs

from .. import ast, geometry, runtime, sizes
from ..diagnostics import Diagnostic, RulesError
from ..limits import LIMITS
from ..model import FLAG
from . import invariants, pytree
from .program import Env, ZoneInfo
from .sandbox import builtins_for_rules


class LayoutCompiler:
    """The layout's part of `Compiler`."""

    # --- layout ---------------------------------------------------------------------
    def layout(self) -> None:
        m, n = self.m, self.n
        self.zones: list[ZoneInfo] = []
        self.zone_base: dict[str, int] = {}
        self.grid_size: dict[str, tuple[int, int]] = {}
        self.vis_conds: list[ast.Expr] = []
        # options first: a zone's size may be one (`zone g: grid, size n by n`)
        self.option_names = list(m.options)
        self.option_index = {o: i for i, o in enumerate(self.option_names)}
        self._setup_state = _SetupState([])
        values = []
        for name, decl in m.options.items():
            values.append(self.options[name] if name in self.options else self.eval_const(decl.default))
        self.option_values = values
        self._setup_state = _SetupState(values)
        for z in m.zones.values():
            self.zone_base[z.name] = len(self.zones)
            owners = range(n) if z.per_player else [None]
            rules = []
            for vis, row, cond in z.rules:
                rules.append((vis, row, None if cond is None else len(self.vis_conds)))
                if cond is not None:
                    self.vis_conds.append(cond)
            if z.shape == "grid":
                rows, cols = self.grid_dimensions(z)
                self.grid_size[z.name] = (rows, cols)
                self.count_zones(z, rows * cols * len(owners))
                for o in owners:
                    for r in range(1, rows + 1):
                        for k in range(1, cols + 1):
                            mine = tuple((v, c) for v, row, c in rules if row is None or row == r)
                            self.zones.append(ZoneInfo(z.name, o, z.visibility, "cell", r, k, mine))
            else:
                mine = tuple((v, c) for v, _row, c in rules)
                capacity = self.capacity(z)
                self.count_zones(z, len(owners))
                for o in owners:
                    self.zones.append(ZoneInfo(z.name, o, z.visibility, z.shape, rules=mine, capacity=capacity))
        self.var_base: dict[str, int] = {}
        self.var_names: list = []
        self.var_kinds: list[str] = []
        self.var_shown: list[tuple[str, str]] = []  # (visible to, innermost element kind) for views
        for v in m.vars.values():
            self.var_base[v.name] = len(self.var_names)
            t = self.ck.resolve_type(v.type)
            inner = t
            while inner.kind == "list" and inner.element is not None:
                inner = inner.element
            for o in (range(n) if v.per_player else [None]):
                self.var_names.append((v.name, o))
                self.var_kinds.append(t.kind)
                self.var_shown.append((v.visible, inner.kind))
        if m.end_rules:  # the flags `end when` rules keep, after the declared variables
            self.end_base = len(self.var_names)
            self.var_names += [("ending", None), ("finished", None), ("last turn", None)]
            self.var_kinds += ["flag", "flag", "player"]
            self.var_shown += [("everyone", "flag"), ("everyone", "flag"), ("everyone", "player")]
        self.props = [name for name, (t, mut) in m.attr_types.items() if mut]
        self.prop_index = {p: i for i, p in enumerate(self.props)}
        self.items: list[tuple[str, str]] = []
        self.scoring_index: dict[str, tuple[int, int]] = {}
        for s in m.scorings.values():
            points = [item for item in s.items if isinstance(item, ast.ScoreItem)]
            self.scoring_index[s.name] = (len(self.items), len(points))
            self.items.extend((s.name, item.label) for item in points)

    # --- sizes, checked before anything is allocated -------------------------------------
    def refuse(self, problem: Diagnostic | None) -> None:
        if problem is not None:
            raise RulesError([problem], self.ck.sources)

    def grid_dimensions(self, z: ast.ZoneDecl) -> tuple[int, int]:
        """A grid's rows and columns for this player count, within the limits."""
        rows, cols = (int(self.eval_const(x)) for x in z.size)
        self.refuse(sizes.grid_problem(z, rows, cols, self.with_players(*z.size)))
        return rows, cols

    def capacity(self, z: ast.ZoneDecl) -> int | None:
        """The `size N` of a pile, hand or row: how many components it may hold."""
        if not z.size:
            return None
        capacity = int(self.eval_const(z.size[0]))
        self.refuse(sizes.capacity_problem(z, capacity, self.with_players(z.size[0])))
        return capacity

    def count_zones(self, z: ast.ZoneDecl, more: int) -> None:
        self.refuse(sizes.zones_problem(z, len(self.zones) + more, self.n))

    def count_components(self, e: ast.ComponentEntry, more: int) -> None:
        note = self.with_players(e.copies, *(v for _, v, _ in e.args))
        self.refuse(sizes.components_problem(e, more, len(self.comp_kind) + more, self.n, note))

    def with_players(self, *exprs: ast.Expr | None) -> str:
        """`` with 5 players`` when a size depends on the player count (or an option)."""
        return f" with {self.n} players" if any(e is not None and self.varies(e) for e in exprs) else ""

    def varies(self, e: ast.Expr) -> bool:
        """Whether a setup-time expression may read the player count or an option."""
        if isinstance(e, ast.Name):
            kind = self.ck.res.get(e, ("",))[0]
            return e.ident == "player_count" or kind in ("option", "def")
        return isinstance(e, ast.Call) or any(self.varies(x) for x in _children(e))

    def eval_const(self, e: ast.Expr, extra: dict | None = None):
        """Evaluate a setup-time expression (player count, options, literals)."""
        code = pytree.compile_expression(self.cx(e, Env()))
        if self._setup_ns is None or self._setup_ns["st"] is not self._setup_state:
            # setup values read no zones or components, so one namespace serves them all
            self._setup_ns = {"st": self._setup_state, **self.base_namespace()}
        ns = dict(self._setup_ns, **extra) if extra else self._setup_ns
        try:
            return eval(code, ns)  # noqa: S307 - a tree the compiler built
        except Exception as err:  # e.g. a var read during setup, or a table with no entry
            message = f"cannot work this out when the game is set up ({self.n} players): {err}"
            raise RulesError([Diagnostic(e.pos, message)], self.ck.sources) from None

    def build_components(self) -> None:
        """Instantiate the component list for this player count, in declaration order."""
        m = self.m
        self.comp_kind: list[str] = []
        self.comp_attrs: list[dict] = []
        self.comp_start: list[int] = []
        self.comp_owner: list[int | None] = []
        for e in m.components:
            if e.cond is not None and not self.eval_const(e.cond):
                continue
            copies = self.eval_const(e.copies) if e.copies is not None else 1
            info = m.kinds[e.kind]
            names = [name for name, _, _ in e.args]
            values = [self.eval_const(value) for _, value, _ in e.args]
            # a range's length from its ends: len() of one longer than a machine word fails
            combinations = math.prod(max(0, v.stop - v.start) if isinstance(v, range) else 1 for v in values)
            self.count_components(e, max(0, copies) * combinations * (self.n if e.each_player else 1))
            choices = [list(v) if isinstance(v, range) else [v] for v in values]
            defaults = {}
            for attr in info.decl.attrs:
                if attr.default is not None:
                    defaults[attr.name] = self.eval_const(attr.default)
                else:
                    defaults[attr.name] = False if self.m.attr_types[attr.name][0].kind == "flag" else None
            owners = range(self.n) if e.each_player else [0]
            for owner in owners:
                for combo in itertools.product(*choices):
                    for _ in range(copies):
                        values = dict(defaults)
                        values.update(zip(names, combo))
                        self.comp_kind.append(e.kind)
                        self.comp_attrs.append(values)
                        self.comp_owner.append(owner if e.each_player else None)
                        self.comp_start.append(self.zone_base[e.zone] + owner)

    def base_namespace(self) -> dict:
        ns = {
            "__builtins__": builtins_for_rules(),
            "rt": runtime, "LIMITS": LIMITS, "move": runtime.move, "move_all": runtime.move_all,
            "move_list": runtime.move_list, "move_top": runtime.move_top, "deal": runtime.deal,
            "shuffle": runtime.shuffle, "rand_choice": runtime.rand_choice,
            "swap_zones": runtime.swap_zones, "swap_components": runtime.swap_components,
            "reveal_zone": runtime.reveal_zone, "reveal_component": runtime.reveal_component,
            "index_in_zone": runtime.index_in_zone, "show": runtime.show, "show_player": runtime.show_player,
            "_last": runtime.last, "_first": runtime.first,
            "NOTHING": (None,),  # `(zone or NOTHING)[-1]`: the top of a zone, none when it is empty
            "pop_frame": runtime.pop_frame, "split_by": runtime.split_by, "counts_as_value": runtime.counts_as_value,
            "counted_as": runtime.counted_as,
            "grid_items": runtime.grid_items, "cell_at": runtime.cell_at, "groups": runtime.groups,
            "arg_best": runtime.arg_best, "sorted_by_key": runtime.sorted_by_key, "sort_zone": runtime.sort_zone,
            "shown_label": runtime.shown_label, "item_at": runtime.item_at, "attr_or": runtime.attr_or,
            "NOIDX": (len(getattr(self, "comp_kind", ())),),  # `A_x[...]` of none: the spare last entry
            "product": itertools.product, "compress": itertools.compress,
            "table_lookup": runtime.table_lookup, "TBL": self.tables, "ONCE": (0,),
            "GROUPS": {},  # connected groups already worked out, by the cells they cover
            "longest_paths": geometry.longest_paths, "extent": geometry.extent, "span_with": geometry.span_with,
            "OPPOSITE": geometry.OPPOSITE, "UNSET": invariants.UNSET,
            "PATHS": {},  # longest paths already worked out, by the cells and their segments
            "NEAR": self.neighbours(),
            "neighbour_of": runtime.neighbour_of,
            "KIND": tuple(getattr(self, "comp_kind", ())),
            "KINDS": {**dict(enumerate(getattr(self, "comp_kind", ()))), None: None},  # none too
            "keep": runtime.keep, "shared": runtime.shared,
            "CS": self.counts_static(), "CP": self.counts_props(),
            "ROW": tuple(z.row for z in getattr(self, "zones", ())),
            "COL": tuple(z.column for z in getattr(self, "zones", ())),
            "ADJ": self.adjacency(),
            "ZOWNER": tuple(z.owner for z in getattr(self, "zones", ())),
            "ZNAME": tuple(z.name for z in getattr(self, "zones", ())),
            "ZKEY": tuple(z.key for z in getattr(self, "zones", ())),  # for messages: hand(P1)
            "CAP": tuple(z.capacity for z in getattr(self, "zones", ())), "room": runtime.room,
            "OWNER": tuple(getattr(self, "comp_owner", ())),
            "PLAYERS": tuple(range(self.n)),
            "ROT": tuple(tuple((s + i) % self.n for i in range(self.n)) for s in range(self.n)),
        }
        for attr_name, (kind, _) in self.m.attr_types.items():
            # one entry past the components' own: what the attribute of none reads
            ns[f"A_{attr_name}"] = [a.get(attr_name) for a in getattr(self, "comp_attrs", [])] + [
                False if kind == FLAG else None]
        return ns

    def counts_static(self) -> tuple:
        """Per component: the values its kind's `counts as` attributes hold (lists flattened)."""
        out = []
        for kind, values in zip(getattr(self, "comp_kind", ()), getattr(self, "comp_attrs", ())):
            found: list = []
            for name, _pos in self.m.kinds[kind].decl.counts_as:
                if name in values:
                    v = values[name]
                    for x in (v if isinstance(v, (list, tuple, range)) else [v]):
                        if x is not None and x not in found:
                            found.append(x)
            out.append(tuple(found))
        return tuple(out)

    def counts_props(self) -> tuple:
        """Per component: the indexes of the changeable properties its kind counts as."""
        index = {name: i for i, name in enumerate(getattr(self, "props", ()))}
        return tuple(tuple(index[name] for name, _pos in self.m.kinds[kind].decl.counts_as if name in index)
                     for kind in getattr(self, "comp_kind", ()))

    def uniform_counts_props(self) -> tuple | None:
        """The properties `is` must look at, if they are the same for every component."""
        union = sorted({k for props in self.counts_props() for k in props})
        for kind, props in zip(getattr(self, "comp_kind", ()), self.counts_props()):
            declared = self.m.kinds[kind].props
            if any(k not in props and self.props[k] in declared for k in union):
                return None  # a kind has the property without counting as it
        return tuple(union)

    def neighbours(self) -> tuple:
        """For each zone index: the cells beyond its north, east, south and west sides
        (None at the grid's edge, and for zones that are not cells)."""
        zones = getattr(self, "zones", ())
        index = {(z.name, z.owner, z.row, z.column): i for i, z in enumerate(zones) if z.row is not None}
        return tuple(
            tuple(index.get((z.name, z.owner, z.row + dr, z.column + dc)) for dr, dc in geometry.SIDE_STEPS.values())
            if z.row is not None else None
            for z in zones)

    def adjacency(self) -> tuple:
        """For each zone index: the orthogonally adjacent cells of the same grid instance."""
        zones = getattr(self, "zones", ())
        index = {(z.name, z.owner, z.row, z.column): i for i, z in enumerate(zones) if z.row is not None}
        out = []
        for z in zones:
            if z.row is None:
                out.append(())
                continue
            near = []
            for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0)):
                j = index.get((z.name, z.owner, z.row + dr, z.column + dc))
                if j is not None:
                    near.append(j)
            out.append(tuple(near))
        return tuple(out)


class _SetupState:
    """Stands in for the state while setup-time expressions are evaluated."""

    def __init__(self, opt):
        self.opt = opt


def _children(e: ast.Expr) -> list[ast.Expr]:
    out: list[ast.Expr] = []
    for f in attrs.fields(type(e)):
        value = getattr(e, f.name)
        for item in value if isinstance(value, tuple) else (value,):
            if isinstance(item, ast.Expr):
                out.append(item)
            elif isinstance(item, ast.TableEntry):
                out.append(item.value)
    return out
