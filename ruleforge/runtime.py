"""The mutable game state and the small primitives that generated code calls.

A state is flat lists of ints and plain values, so that cloning is a handful of list
copies and saving is plain JSON. All chance goes through one generator (ruleforge/chance.py)
whose state is kept in the state itself: the same seed and actions always give the same game.
"""

from __future__ import annotations

from operator import itemgetter

from . import chance
from .geometry import SIDE_INDEX
from .limits import LIMITS, describe


class Action(tuple):
    """A legal action: the pair `(aid, args)` of the action's index in the program and its
    chosen arguments, with those two fields by name (`a.aid`, `a.args`). It is the plain
    tuple for equality, hashing and JSON, so logs and callers holding pairs keep working.

    A tuple subclass with no `__new__` of its own: `Action((aid, args))` is made at C speed,
    which the generated code needs (it lists each legal action as one); the program keeps one
    ready-made `Action` per argument value where it can (`ACT_<aid>` tables), so most are
    never made while playing."""

    __slots__ = ()
    _fields = ("aid", "args")
    aid = property(itemgetter(0), doc="the action's index in the program (0 is `pass`)")
    args = property(itemgetter(1), doc="its arguments, a tuple")

    def __repr__(self) -> str:
        return f"Action(aid={self[0]!r}, args={self[1]!r})"

    @classmethod
    def of(cls, aid: int, args: tuple = ()) -> Action:
        """The action `aid` with arguments `args`."""
        return cls((aid, tuple(args)))

    def _asdict(self) -> dict:
        return {"aid": self[0], "args": self[1]}


class EndlessLoop(Exception):
    """A loop with no decision inside ran `LIMITS.blocks_without_decision` rounds: the engine
    reports it at the loop's rule."""


class TooManyChoices(Exception):
    """An action would be offered with more arguments than `LIMITS.choices` at one decision:
    the engine reports it at the action's parameter."""


def bounded_choices(values: range) -> range:
    """A range of an action's argument, refused when it is longer than `LIMITS.choices`
    (listing it would not end in useful time). A range's length is worked out from its ends,
    since `len()` of one longer than a machine word fails."""
    if values.stop - values.start > LIMITS.choices:
        raise TooManyChoices()
    return values


class TooManyRounds(Exception):
    """A loop would run more rounds than a limit allows; `args` are (rounds, the limit's name)."""


def rounds(values: range, limit: str) -> range:
    """A loop's range, refused when it is longer than the limit `limit` (a loop of ten
    billion rounds is a mistake, not a game)."""
    if values.stop - values.start > getattr(LIMITS, limit):
        raise TooManyRounds(values.stop - values.start, limit)
    return values


class TooLarge(Exception):
    """A rule made a value larger than a limit allows; `args` are (what, its size, the unit, the
    limit's name)."""

    def __str__(self) -> str:
        what, size, unit, limit = self.args
        return f"this makes {what} of {size:,} {unit} ({describe(limit)})"


def span(low: int, high: int) -> range:
    """The range `low..high` of an expression whose ends are known only while playing."""
    if high - low + 1 > LIMITS.range_values:
        raise TooLarge("a range", high - low + 1, "values", "range_values")
    return range(low, high + 1)


def times(a: int, b: int) -> int:
    """`a * b`, refused before it is worked out when the product would pass the digits allowed
    (a number squared at each turn doubles its digits each time)."""
    if (a.bit_length() + b.bit_length()) * 0.30103 > LIMITS.integer_digits + 1:
        raise TooLarge("a number", int((a.bit_length() + b.bit_length()) * 0.30103), "digits", "integer_digits")
    return a * b


def joined(a: list, b: list) -> list:
    """`a + b` of two lists (a new list), within the items allowed."""
    if len(a) + len(b) > LIMITS.list_items:
        raise TooLarge("a list", len(a) + len(b), "items", "list_items")
    return a + b


def bounded_text(text: str) -> str:
    """A text made from other texts, within the characters allowed."""
    if len(text) > LIMITS.text_length:
        raise TooLarge("a text", len(text), "characters", "text_length")
    return text


def together(st: State, seats: list, options: tuple, resume: int) -> int:
    """Start a simultaneous decision (`turn together`): the seats of `seats`, each once, in
    seat order, choose one after another; their choices are kept in `st.sim` (choosers, index
    of the one choosing, pending choices, where to go on) until all are in (see
    ruleforge/simultaneous.py). Nobody to choose: go on at once."""
    choosers = tuple(sorted({p for p in seats if p is not None}))
    if not choosers:
        return resume
    st.sim = (choosers, 0, (), resume)
    st.chooser = choosers[0]
    st.options = options
    st.pc = resume
    return -1


class State:
    """Everything that changes while a game runs.

    z: zone contents (component ids, bottom first); w: the zone each component is in;
    f: the zone each component came from on its last move (-1: it has not moved, or its zone
    was shuffled since), which tells a determinization what a player saw go into a hidden zone;
    v: variables; p: mutable component properties, one list per property; l: statement
    locals that live across decisions; b: score breakdown, flat per player and item.
    """

    __slots__ = ("z", "w", "f", "v", "p", "l", "b", "pc", "stack", "rng", "turn", "used", "seen",
                 "log", "chooser", "options", "over", "opt", "steps", "sim")

    def clone(self) -> State:
        s = State.__new__(State)
        s.z = [list(x) for x in self.z]
        s.w = list(self.w)
        s.f = list(self.f)
        s.v = list(self.v)
        s.p = [list(x) for x in self.p]
        s.l = list(self.l)
        s.b = list(self.b)
        s.pc = self.pc
        s.stack = list(self.stack)
        s.rng = self.rng
        s.turn = self.turn
        s.used = dict(self.used)
        s.seen = [list(x) for x in self.seen]
        s.log = list(self.log)
        s.chooser = self.chooser
        s.options = self.options
        s.over = self.over
        s.opt = self.opt
        s.steps = self.steps
        s.sim = self.sim  # a tuple: shared, never changed in place
        return s


def ready_actions(aid: int, choices: list[list], args: tuple = ()) -> Action | dict:
    """The ready-made `Action`s of action `aid` whose arguments start with `args`: the
    `Action` itself once every argument is given, else a dict per next argument, by value."""
    depth = len(args)
    if depth == len(choices):
        return Action((aid, args))
    if depth == len(choices) - 1:
        return {value: Action((aid, (*args, value))) for value in choices[depth]}
    return {value: ready_actions(aid, choices, (*args, value)) for value in choices[depth]}


def ready_when_listed(rows: dict, aid: int, choices: list[list], *args):
    """What `ACT_<aid>` holds under the arguments `args`, made when an `Action` under them is
    first listed (for an action with too many to make at once): the `Action` itself once every
    argument is given; every `Action` that differs only in the last argument, by its value;
    else, for the next argument, a dict of its values to None (made in turn when listed)."""
    for value in args[:-1]:
        rows = rows[value]
    depth = len(args)
    if depth == len(choices):
        made = Action((aid, args))
    elif depth == len(choices) - 1:
        made = {value: Action((aid, (*args, value))) for value in choices[depth]}
    else:
        made = dict.fromkeys(choices[depth])
    rows[args[-1]] = made
    return made


# --- chance -------------------------------------------------------------------------------
# The generator is ruleforge/chance.py; these are the calls the rules make of it. A state's
# generator is told by its `rng`: a tuple of four words is xoshiro256**, an int the legacy one.


def rand_below(st: State, n: int) -> int:
    """A uniform integer in [0, n) from the state's generator (1 <= n < 2**63)."""
    rng = st.rng
    if type(rng) is tuple:
        k, st.rng = chance.below(rng, n)
    else:
        k, st.rng = chance.legacy_below(rng, n)
    return k


def rand_choice(st: State, seq):
    """`random(...)`: one of the items, each as likely: `seq[below(len(seq))]`."""
    seq = list(seq)
    if not seq:
        raise RuntimeError("random() was asked to pick from nothing")
    return seq[rand_below(st, len(seq))]


def shuffle(st: State, zi: int) -> None:
    """Shuffle a zone with the state's generator (Fisher-Yates from the top, see chance.py)."""
    z = st.z[zi]
    rng = st.rng
    st.rng = chance.shuffle(rng, z) if type(rng) is tuple else chance.legacy_shuffle(rng, z)
    f = st.f
    for c in z:  # where each came from no longer says where it is
        f[c] = -1


def shown_label(st: State, c, labels: list, live: list) -> str:
    """A component's label as it reads now: a label that reads changeable properties is
    rendered from the state, any other is the text worked out when the game was built."""
    if c is None:
        return "none"
    render = live[c]
    return labels[c] if render is None else render(st, c)


def neighbour_of(near: tuple, zone, side) -> int | None:
    """`neighbour(x, s)`: the cell beyond side s of cell `zone` (`near` holds each zone's
    neighbours in the order of `geometry.SIDE_STEPS`); none at the edge, off a grid, or for no
    side. Looked up when asked, so that a game of many cells builds no table for it."""
    cells = near[zone] if zone is not None else None
    if cells is None or side is None:
        return None
    return cells[SIDE_INDEX[side]]


def show_player(p) -> str:
    """A seat as people read it, P1..; `none` for a player variable not yet set."""
    return "none" if p is None else f"P{p + 1}"


def sort_zone(st: State, zi: int, keys: list) -> None:
    """`sort c in Z by key`: the zone's components reordered by their keys, smallest at the
    bottom, equal keys in their old order (a key of none sorts first). No component changes
    zone, so nothing fires and no capacity is at stake."""
    z = st.z[zi]
    order = sorted(range(len(z)), key=lambda i: (keys[i] is not None, keys[i] or 0))
    z[:] = [z[i] for i in order]


def sorted_by_key(pairs: list) -> list:
    """`sorted(x for x in S by key)`: the items by (key, item) pairs, smallest key first,
    stable; a key of none sorts first."""
    return [item for key, item in sorted(pairs, key=lambda pair: (pair[0] is not None, pair[0] or 0))]


# --- moving components -------------------------------------------------------------------


def move(st: State, c: int, dst: int, bottom: bool = False) -> None:
    st.f[c] = src = st.w[c]
    st.z[src].remove(c)
    if bottom:
        st.z[dst].insert(0, c)
    else:
        st.z[dst].append(c)
    st.w[c] = dst


def move_all(st: State, src: int, dst: int, bottom: bool = False) -> None:
    if src == dst:
        return
    items = st.z[src]
    if not items:
        return
    w = st.w
    f = st.f
    for c in items:
        w[c] = dst
        f[c] = src
    if bottom:
        st.z[dst][0:0] = items
    else:
        st.z[dst].extend(items)
    st.z[src] = []


def move_list(st: State, comps, dst: int, bottom: bool = False) -> None:
    items = list(comps)
    for c in reversed(items) if bottom else items:  # under the pile, the group keeps its order
        move(st, c, dst, bottom)


def move_top(st: State, n: int, src: int, dst: int, bottom: bool = False) -> None:
    z = st.z[src]
    n = min(n, len(z))
    for _ in range(n):
        c = z.pop()
        st.w[c] = dst
        st.f[c] = src
        if bottom:
            st.z[dst].insert(0, c)
        else:
            st.z[dst].append(c)


def deal(st: State, n: int, src: int, base: int, players: int) -> None:
    """Deal n components to each player's zone, one at a time round the table."""
    z = st.z[src]
    w = st.w
    f = st.f
    zones = st.z
    for _ in range(n):
        for p in range(players):
            if not z:
                return
            c = z.pop()
            w[c] = base + p
            f[c] = src
            zones[base + p].append(c)


def swap_zones(st: State, a: int, b: int) -> None:
    za, zb = st.z[a], st.z[b]
    st.z[a], st.z[b] = zb, za
    w = st.w
    f = st.f
    for c in zb:
        w[c] = a
        f[c] = b
    for c in za:
        w[c] = b
        f[c] = a


def swap_components(st: State, a: int, b: int) -> None:
    za, zb = st.w[a], st.w[b]
    la, lb = st.z[za], st.z[zb]
    ia, ib = la.index(a), lb.index(b)
    la[ia], lb[ib] = b, a
    st.w[a], st.w[b] = zb, za
    st.f[a], st.f[b] = za, zb


def reveal_zone(st: State, zi: int, player: int) -> None:
    st.seen[player].append([zi, list(st.z[zi])])


def reveal_component(st: State, c: int, player: int) -> None:
    st.seen[player].append([-1, [c]])


def index_in_zone(st: State, c: int) -> int:
    return st.z[st.w[c]].index(c)


def last(seq):
    return seq[-1] if seq else None


def keep(box: dict, key: int, values):
    """`values` (a generator clause's source), stored in `box` under `key` to be gone
    through again; a list is made of anything that can be gone through only once."""
    if type(values) not in (list, tuple, range):
        values = list(values)
    box[key] = values
    return values


def shared(box: list, value):
    """A part of an expression worked out once: kept in `box` for its other copies."""
    box.append(value)
    return value


def first(seq):
    return seq[0] if seq else None


def show(value) -> str:
    """A value as people read it: `none` rather than Python's None, lists without quotes."""
    if value is None:
        return "none"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(show, value)) + "]"
    return str(value)


# --- grids -------------------------------------------------------------------------------


def grid_items(zones: list, first: int, cells: int) -> list[int]:
    """Every component on a grid, cell by cell (row by row), each stack bottom first."""
    return [c for zi in range(first, first + cells) for c in zones[zi]]


def cell_at(first: int, row: int, column: int, rows: int, columns: int):
    """The zone index of a grid's cell (1-based row and column), none outside the grid."""
    if 1 <= row <= rows and 1 <= column <= columns:
        return first + (row - 1) * columns + (column - 1)
    return None


def groups(items: list, where, adjacency: tuple, cache: dict) -> list[list]:
    """Split cells (or components, placed by `where`) into orthogonally connected groups.

    The grouping depends only on which cells the items occupy, so it is worked out once
    per pattern (by networkx) and remembered in the program's `cache`.
    """
    if len(items) < 2:  # nothing to join
        return [list(items)] if items else []
    cells = tuple(items) if where is None else tuple(map(where.__getitem__, items))
    parts = cache.get(cells)
    if parts is None:
        parts = _connected(cells, adjacency)
        if len(cache) < 100_000:
            cache[cells] = parts
    return [[items[i] for i in part] for part in parts]


def _connected(cells: tuple, adjacency: tuple) -> list[list[int]]:
    """Indexes of `cells` grouped by adjacency (or by sharing a cell), via networkx."""
    from networkx.utils import UnionFind

    joined = UnionFind(range(len(cells)))
    first_at: dict[int, int] = {}
    for i, here in enumerate(cells):
        if here in first_at:
            joined.union(first_at[here], i)
        else:
            first_at[here] = i
    for here, i in first_at.items():
        for near in adjacency[here]:
            j = first_at.get(near)
            if j is not None:
                joined.union(i, j)
    return sorted(sorted(part) for part in joined.to_sets())


def arg_best(pairs: list, highest: bool, nothing=None):
    """The item of the first (key, item) pair with the highest (or lowest) key; `nothing` if empty
    (none, or false for a flag attribute read of the item)."""
    if not pairs:
        return nothing
    best_key, best = pairs[0]
    for key, item in pairs[1:]:
        if (key > best_key) if highest else (key < best_key):
            best_key, best = key, item
    return best


# --- what a component counts as ---------------------------------------------------------


def counts_as_value(props: list, c, value, static: tuple, prop_index: tuple) -> bool:
    """`c is value`: one of the attributes or properties its kind `counts as` holds value."""
    if c is None:
        return False
    if value in static[c]:
        return True
    for k in prop_index[c]:
        if props[k][c] == value:
            return True
    return False


def counted_as(props: list, c, static: tuple, prop_index: tuple) -> list:
    """Every value a component counts as, without repeats, attributes first."""
    if c is None:
        return []
    out = list(static[c])
    for k in prop_index[c]:
        v = props[k][c]
        if v is not None and v not in out:
            out.append(v)
    return out


def split_by(items: list, attribute: tuple) -> dict:
    """Components by their value of a fixed attribute, each part in the items' order."""
    parts: dict = {}
    for c in items:
        value = attribute[c]
        part = parts.get(value)
        if part is None:
            parts[value] = [c]
        else:
            part.append(c)
    return parts


def pop_frame(st: State) -> int:
    """Return from an action: restore the locals it saved and go back where it was chosen."""
    pc, start, values = st.stack.pop()
    st.l[start:start + len(values)] = values
    return pc


def attr_or(table, c, default):
    """An attribute or property of c, or `default` when c is none (`top_of(x).colour`)."""
    return default if c is None else table[c]


class OutOfRange(Exception):
    """`xs[i]` with i outside the list; `args` is (i, the list's length). The engine reports it
    at the `[...]`."""


def item_at(items, i):
    """`xs[i]`, counted from 0. Outside the list (a negative i too: nothing counts from the
    end) it is an error, not none: a wrong index is a mistake in the rules, best seen where it
    is made rather than as a none far from it."""
    if items is None:
        raise TypeError("list indices of a NoneType: the list is none")
    if 0 <= i < len(items):
        return items[i]
    raise OutOfRange(i, len(items))


class NoTableEntry(Exception):
    """A table without `else` was looked up with a subject none of its keys takes; `args` is
    (the subject,). The engine reports it at the rule."""


NO_ENTRY = object()  # the default of a step table without `else`


def no_entry(x):
    raise NoTableEntry(x)


def table_lookup(table: tuple, x):
    """A step table of constants: exact keys first, then `k+` keys from the highest down."""
    exact, at_least, default = table
    if x in exact:
        return exact[x]
    for key, value in at_least:
        if x >= key:
            return value
    if default is NO_ENTRY:
        raise NoTableEntry(x)
    return default


def room(zones: list, capacity: tuple, zi: int):
    """Free places left in a zone with a capacity; none for a zone without one."""
    return None if capacity[zi] is None else capacity[zi] - len(zones[zi])
