"""Hand-written pure-Python Nakasendo, its oracle half: components, the integer board, scoring, text form.

Sources: /work/shared/rulebooks/nakasendo.txt and the rulings
/work/shared/rulings/nakasendo.md, whose reference edition supplies the component data
(the rulings win where the rulebook is silent). Nothing here imports ``ruleforge``: the
point is an independent implementation to time the engine against and to check its
scores with. The game itself (random play) is bench/handwritten_nakasendo.py, which
re-exports every name of this module; read them from there.

Grid: ``{(row, col): stack}``; a stack is a list, bottom first: tiles (covered ones
below, they count for nothing) then the Discovery tokens on the top tile. A tile is a
``Tile`` (terrain ``None`` for the Starting tile), a token a ``Token(kind, terrain)``.
Sides are ``"N"``, ``"E"``, ``"S"``, ``"W"``; a flip maps N<->S and E<->W.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple, Union

# --- components --------------------------------------------------------------------------

TERRAINS: tuple[str, ...] = ("Water", "Rock", "Forest", "Field", "Flowers")

JUKU = "Juku"
SAMURAI = "Samurai"
OBSERVATION = "Observation Point"
TEMPLE = "Temple"
WHEEL = "Wheel"
BELL = "Bell"
TOKEN_KINDS: tuple[str, ...] = (JUKU, SAMURAI, OBSERVATION, TEMPLE, WHEEL, BELL)
TOKENS_PER_TERRAIN: dict[str, int] = {JUKU: 2, SAMURAI: 2, OBSERVATION: 2, TEMPLE: 1, WHEEL: 1, BELL: 1}

SHAPES: dict[str, tuple[tuple[str, str], ...]] = {
    "N-S": (("N", "S"),),
    "E-W": (("E", "W"),),
    "N-E": (("N", "E"),),
    "N-W": (("N", "W"),),
    "Start": (("N", "S"), ("E", "W")),
}
PATH_SHAPES: tuple[str, ...] = ("N-S", "E-W", "N-E", "N-W")
CURVES = frozenset(("N-E", "N-W"))  # a flip changes a curve, never a straight
BEAR_SHAPES = frozenset(("N-S", "N-E"))  # the first of each per terrain has a Bear symbol
START_SYMBOLS = 2

FLIP: dict[str, str] = {"N": "S", "S": "N", "E": "W", "W": "E"}
STEPS: tuple[tuple[int, int], ...] = ((-1, 0), (0, 1), (1, 0), (0, -1))

# Composition tokens (rulings: "≥1 Bear / no Bear; ≥1 Snow / no Snow; ≥1 Discovery / no Discovery").
BEAR = "Bear"
NO_BEAR = "No Bear"
SNOW = "Snow"
NO_SNOW = "No Snow"
DISCOVERY = "Discovery"
NO_DISCOVERY = "No Discovery"
COMPOSITIONS: tuple[str, ...] = (BEAR, NO_BEAR, SNOW, NO_SNOW, DISCOVERY, NO_DISCOVERY)

# Event cards: the terrain effects in the order they are resolved.
EVENT_CARDS: tuple[tuple[tuple[str, str], ...], ...] = (
    *(((t, "snow"),) for t in TERRAINS),
    (("Water", "snow"), ("Flowers", "bear")),
    (("Rock", "snow"), ("Water", "bear")),
    (("Forest", "snow"), ("Rock", "bear")),
    (("Field", "snow"), ("Forest", "bear")),
    (("Flowers", "snow"), ("Field", "bear")),
)

EXTRA_ACTION_TOKENS = 16
SUPPLY_SIZE = 3
MARKET_TILES = 2
MARKET_TOKENS = 2
LAST_SPACE = 10
SCORING_SPACES: dict[int, int] = {3: 0, 6: 1, 9: 2}  # space -> intermediate slot
SLOT_PAIRS: tuple[tuple[str, str], ...] = (("A", "B"), ("B", "C"), ("A", "C"))
MAX_SPAN = 4
START_CELL = (4, 4)  # where grids start (the text format's 7x7 frame)

JUKU_POINTS = (0, 2, 5, 8, 11, 15)

# Breakdown items of the final scoring, in the rulebook's order.
ITEMS: tuple[str, ...] = ("Juku", "Samurai", "Temple", "Wheel", "Observation Point", "colours",
                          "Extra Actions", "Bears", "Snow")
BREAKDOWN_KEYS: tuple[str, ...] = ("earlier", "reservations", *ITEMS, "total")

Cell = tuple[int, int]


@dataclass(eq=False, slots=True)
class Tile:
    """A Path tile or a Starting tile (terrain None); compared by identity, as a physical tile."""

    terrain: str | None
    shape: str
    symbols: int = 0
    flipped: bool = False
    snow: int = 0
    bears: int = 0
    ident: int = -1

    @property
    def segments(self) -> tuple[tuple[str, str], ...]:
        """The printed segments, before any flip."""
        return SHAPES[self.shape]


class Token(NamedTuple):
    """A Discovery token; each physical token is its own instance (reservations use identity)."""

    kind: str
    terrain: str


Element = Union[Tile, Token]
Stack = list[Element]
Grid = dict[Cell, Stack]
Node = tuple[Cell, tuple[str, str]]


def make_tile(terrain: str, shape: str, bear: bool = False, flipped: bool = False, snow: int = 0,
              bears: int = 0) -> Tile:
    """A Path tile (``bear``: it has a printed Bear symbol)."""
    if terrain not in TERRAINS or shape not in PATH_SHAPES:
        raise ValueError(f"no such Path tile: {terrain} {shape}")
    return Tile(terrain, shape, 1 if bear else 0, flipped, snow, bears)


def start_tile() -> Tile:
    """A Starting tile: the N-S + E-W crossing with 2 Bear symbols and no terrain."""
    return Tile(None, "Start", START_SYMBOLS)


def sides(tile: Tile) -> tuple[tuple[str, str], ...]:
    """The tile's segments as placed (a flip maps N<->S, E<->W)."""
    segs = SHAPES[tile.shape]
    if tile.flipped:
        return tuple((FLIP[a], FLIP[b]) for a, b in segs)
    return segs


def build_tiles() -> list[Tile]:
    """The 60 Path tiles of the reference edition (the first N-S and N-E of a terrain have a Bear)."""
    tiles = []
    for terrain in TERRAINS:
        for shape in PATH_SHAPES:
            for k in range(3):
                bear = k == 0 and shape in BEAR_SHAPES
                tiles.append(Tile(terrain, shape, 1 if bear else 0, ident=len(tiles)))
    return tiles


def build_tokens() -> list[Token]:
    """The 45 Discovery tokens of the reference edition, each a distinct instance."""
    return [Token(kind, terrain) for kind in TOKEN_KINDS for terrain in TERRAINS
            for _ in range(TOKENS_PER_TERRAIN[kind])]


# --- the integer form ------------------------------------------------------------------------
#
# Play and scoring run on integers, not on the objects above: an element is an index (the 60
# Path tiles 0-59 in build_tiles order, so the index is the ident; the 45 Discovery tokens
# 60-104 in build_tokens order; seat p's Starting tile 105 + p) and a cell is row * width + col.
# The game's board is 9 wide, the Starting tile at 40: a 4x4 grid around it never leaves rows
# and columns 1-7, so every cell in play has four neighbours on the board. A tile's Snow,
# Bears and flip are lists indexed by element. The scorers read a ``Board``; an object grid
# (the oracle's input) is converted to one, so the game and the oracle share one scorer.

NONE = -1  # no element (a Hiker at home, an empty cell)
FIRST_TOKEN = 60
FIRST_START = 105
WIDTH = 9
START = START_CELL[0] * WIDTH + START_CELL[1]
SIDE_NAMES = "NESW"  # side s is SIDE_NAMES[s]; its opposite is s ^ 2
SEGMENTS: dict[str, tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]] = {
    shape: (tuple((SIDE_NAMES.index(a), SIDE_NAMES.index(b)) for a, b in segs),
            tuple((SIDE_NAMES.index(FLIP[a]), SIDE_NAMES.index(FLIP[b])) for a, b in segs))
    for shape, segs in SHAPES.items()}  # shape -> (segments as printed, segments flipped)
TERRAIN_INDEX: dict[str, int] = {t: i for i, t in enumerate(TERRAINS)}
KIND_INDEX: dict[str, int] = {k: i for i, k in enumerate(TOKEN_KINDS)}
K_JUKU, K_SAMURAI, K_OBSERVATION, K_TEMPLE, K_WHEEL, K_BELL = (KIND_INDEX[k] for k in TOKEN_KINDS)

TILE_OBJECTS = build_tiles()  # read for their data only
TOKEN_OBJECTS: tuple[Token, ...] = tuple(build_tokens())  # immutable: one instance per physical token, shared
E_TERRAIN: tuple[int, ...] = (*(TERRAIN_INDEX[t.terrain] for t in TILE_OBJECTS),  # type: ignore[index]
                              *(TERRAIN_INDEX[k.terrain] for k in TOKEN_OBJECTS), -1, -1, -1, -1)
E_KIND: tuple[int, ...] = (*(-1,) * FIRST_TOKEN, *(KIND_INDEX[k.kind] for k in TOKEN_OBJECTS), -1, -1, -1, -1)
E_SHAPE: tuple[str, ...] = (*(t.shape for t in TILE_OBJECTS), *("",) * 45, *("Start",) * 4)
E_SEGMENTS = tuple(SEGMENTS.get(shape, ((), ())) for shape in E_SHAPE)
E_SYMBOLS: tuple[int, ...] = (*(t.symbols for t in TILE_OBJECTS), *(0,) * 45, *(START_SYMBOLS,) * 4)


class Board(NamedTuple):
    """A grid on integers, as the game keeps it: what the scorers read."""

    cells: list[int]  # the occupied cells, each with a board cell on every side
    width: int
    top: list[int]  # cell -> its uncovered tile, NONE when empty
    stacks: list[list[int] | None]  # cell -> its elements bottom first: tokens lie above the top tile
    terrain: Sequence[int]  # element -> terrain index (-1: the Starting tile)
    kind: Sequence[int]  # element -> token kind index (-1: a tile)
    segments: Sequence[tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]]  # (printed, flipped)
    flipped: Sequence[bool]
    symbols: Sequence[int]
    snow: Sequence[int]
    bears: Sequence[int]
    origin: Cell = (0, 0)  # the (row, col) of board cell 0


def top_index(stack: Stack) -> int:
    """Index of the uncovered tile of a stack (tokens only ever lie above it)."""
    for i in range(len(stack) - 1, -1, -1):
        if type(stack[i]) is Tile:
            return i
    raise ValueError("a stack without a tile")


def to_board(grid: Mapping[Cell, Stack]) -> Board:
    """An object grid as a Board, its elements numbered in grid order."""
    rows = [r for r, _ in grid] or [0]
    cols = [c for _, c in grid] or [0]
    r0, c0 = min(rows) - 1, min(cols) - 1
    width = max(cols) - c0 + 2
    size = (max(rows) - r0 + 2) * width
    top: list[int] = [NONE] * size
    stacks: list[list[int] | None] = [None] * size
    cells: list[int] = []
    rows_of: list[tuple] = []  # per element: terrain, kind, segments, flipped, symbols, snow, bears
    for (r, c), stack in grid.items():
        cell = (r - r0) * width + c - c0
        ids = list(range(len(rows_of), len(rows_of) + len(stack)))
        top[cell] = ids[top_index(stack)]
        for x in stack:
            rows_of.append((NONE if x.terrain is None else TERRAIN_INDEX[x.terrain], NONE, SEGMENTS[x.shape], x.flipped,
                            x.symbols, x.snow, x.bears) if isinstance(x, Tile) else
                           (TERRAIN_INDEX[x.terrain], KIND_INDEX[x.kind], ((), ()), False, 0, 0, 0))
        cells.append(cell)
        stacks[cell] = ids
    terrain, kind, segments, flipped, symbols, snow, bears = (list(column) for column in zip(*rows_of)) \
        if rows_of else ([] for _ in range(7))
    return Board(cells, width, top, stacks, terrain, kind, segments, flipped, symbols, snow, bears, (r0, c0))


def _components(board: Board) -> tuple[list[int], list[tuple[int, int]], list[list[int]]]:
    """The segment graph's nodes (cell, segment) and components (rulings "Final scoring — the path").

    A node is a segment of an uncovered tile; two nodes link when they lie on orthogonally
    adjacent cells and both touch the shared edge. ``ends[cell * 4 + side]`` is the node
    touching that side of that cell.
    """
    top, segments, flipped = board.top, board.segments, board.flipped
    node_cell: list[int] = []
    node_seg: list[tuple[int, int]] = []
    ends = [NONE] * (4 * len(top))
    for cell in board.cells:
        t = top[cell]
        for seg in segments[t][flipped[t]]:
            ends[4 * cell + seg[0]] = ends[4 * cell + seg[1]] = len(node_cell)
            node_cell.append(cell)
            node_seg.append(seg)
    w4 = 4 * board.width
    across = (2 - w4, 7, w4, -3)  # side s of a cell -> its neighbour's opposite side, in ends, from 4 * cell
    comp = [NONE] * len(node_cell)
    comps: list[list[int]] = []
    for k in range(len(node_cell)):
        if comp[k] != NONE:
            continue
        comp[k] = len(comps)
        todo, members = [k], []
        while todo:
            i = todo.pop()
            members.append(i)
            base = 4 * node_cell[i]
            for side in node_seg[i]:
                j = ends[base + across[side]]
                if j != NONE and comp[j] == NONE:
                    comp[j] = len(comps)
                    todo.append(j)
        comps.append(members)
    return node_cell, node_seg, comps


def _path_nodes(board: Board, node_cell: list[int], node_seg: list[tuple[int, int]],
                members: list[int]) -> tuple[Node, ...]:
    """A component as sorted ``((row, col), (side, side))`` nodes."""
    r0, c0 = board.origin
    w = board.width
    return tuple(sorted(((node_cell[i] // w + r0, node_cell[i] % w + c0),
                         (SIDE_NAMES[node_seg[i][0]], SIDE_NAMES[node_seg[i][1]])) for i in members))


def longest_paths(grid: Mapping[Cell, Stack]) -> list[tuple[Node, ...]]:
    """The components with the most segments (a loop counts whole), each as sorted nodes."""
    board = to_board(grid)
    node_cell, node_seg, comps = _components(board)
    most = max((len(c) for c in comps), default=0)
    return [_path_nodes(board, node_cell, node_seg, c) for c in comps if len(c) == most]


# --- scoring -----------------------------------------------------------------------------------


@dataclass
class FinalScore:
    """The scored path and its breakdown, with the tie-break figures."""

    breakdown: dict[str, int]
    path: tuple[Node, ...]
    cells: frozenset[Cell]
    bears: int  # Bear symbols and tokens on the path, protected or not
    snow: int  # Snow tokens on the path, Temple tiles included


def _score_cells(board: Board, cells: Iterable[int], extra_tokens: int, earlier: int,
                 reservations: int) -> tuple[dict[str, int], int, int]:
    """The final breakdown when ``cells`` are the path's tiles; and the path's bears and snow."""
    top, stacks, terrain, kind, snow_of = board.top, board.stacks, board.terrain, board.kind, board.snow
    w = board.width
    juku = temples = wheel = observation = matching = 0
    samurai: set[int] = set()
    protected: set[int] = set()  # by a Bell on the path (its tile and the adjacent ones)
    temple_cells: set[int] = set()
    for cell in cells:
        tile = top[cell]
        stack = stacks[cell]
        assert stack is not None
        i = stack.index(tile)
        for k in range(i + 1, len(stack)):
            token = stack[k]
            colour, what = terrain[token], kind[token]
            if colour == terrain[tile]:
                matching += 1
            if what == K_JUKU:
                juku += 1
            elif what == K_SAMURAI:
                samurai.add(colour)
            elif what == K_TEMPLE:
                temples += 1
                temple_cells.add(cell)
            elif what == K_WHEEL:
                wheel += snow_of[tile]
                for n in (cell - w, cell + 1, cell + w, cell - 1):
                    if top[n] != NONE:
                        wheel += snow_of[top[n]]
            elif what == K_OBSERVATION:
                # The tile and the tokens beneath this one, distinct colours.
                observation += 2 * len({terrain[x] for x in stack[i:k]})
            elif what == K_BELL:
                protected.update((cell, cell - w, cell + 1, cell + w, cell - 1))
    bear_loss = snow_loss = bears = snow = 0
    for cell in cells:
        tile = top[cell]
        b = board.symbols[tile] + board.bears[tile]
        s = snow_of[tile]
        bears += b
        snow += s
        if cell in temple_cells:
            continue
        if cell not in protected:
            bear_loss += b
        if s >= 5:
            snow_loss += 4
        elif s >= 3:
            snow_loss += 2
    out = {
        "earlier": earlier,
        "reservations": reservations,
        "Juku": JUKU_POINTS[min(juku, 5)],
        "Samurai": 3 * len(samurai),
        "Temple": 2 * temples,
        "Wheel": wheel,
        "Observation Point": observation,
        "colours": 2 * matching,
        "Extra Actions": 2 * extra_tokens,
        "Bears": -bear_loss,
        "Snow": -snow_loss,
    }
    out["total"] = sum(out.values())
    return out, bears, snow


def _scored_paths(board: Board, extra_tokens: int, earlier: int, reservations: int
                  ) -> tuple[list[tuple[tuple[int, int, int], dict[str, int], int, int, list[int]]],
                             list[int], list[tuple[int, int]]]:
    """Each longest component, scored: ((total, -bears, -snow), breakdown, bears, snow, nodes)."""
    node_cell, node_seg, comps = _components(board)
    most = max((len(c) for c in comps), default=0)
    out = []
    for members in comps:
        if len(members) == most:
            breakdown, bears, snow = _score_cells(board, {node_cell[i] for i in members}, extra_tokens, earlier,
                                                  reservations)
            out.append(((breakdown["total"], -bears, -snow), breakdown, bears, snow, members))
    return out, node_cell, node_seg


def final_points(board: Board, extra_tokens: int = 0, earlier_points: int = 0,
                 reservations: int = 0) -> tuple[dict[str, int], int, int]:
    """``final_score`` without the path: breakdown, bears and snow of the best longest path."""
    scored, _, _ = _scored_paths(board, extra_tokens, earlier_points, reservations)
    if not scored:
        return _score_cells(board, (), extra_tokens, earlier_points, reservations)
    _, breakdown, bears, snow, _ = max(scored, key=lambda x: x[0])
    return breakdown, bears, snow


def final_score(grid: Mapping[Cell, Stack], extra_tokens: int = 0, earlier_points: int = 0,
                reservations: int = 0) -> FinalScore:
    """Find the scored path and score it.

    Among equally long components the best total wins (rulings); among those, the fewest
    bears then the fewest snow on the path (the game's tie-breaks), then the first in
    sorted order, so the choice never depends on dict order.
    """
    board = to_board(grid)
    scored, node_cell, node_seg = _scored_paths(board, extra_tokens, earlier_points, reservations)
    if not scored:  # an empty grid: nothing to score but the constants
        breakdown, _, _ = _score_cells(board, (), extra_tokens, earlier_points, reservations)
        return FinalScore(breakdown, (), frozenset(), 0, 0)
    best_key = max(key for key, *_ in scored)
    path, breakdown, bears, snow = min((_path_nodes(board, node_cell, node_seg, members), breakdown, bears, snow)
                                       for key, breakdown, bears, snow, members in scored if key == best_key)
    return FinalScore(breakdown, path, frozenset(cell for cell, _ in path), bears, snow)


def score_final(grid: Mapping[Cell, Stack], extra_tokens: int = 0, earlier_points: int = 0,
                reservations: int = 0) -> dict[str, int]:
    """The final scoring breakdown (``BREAKDOWN_KEYS``) of the best longest path."""
    return final_score(grid, extra_tokens, earlier_points, reservations).breakdown


def token_points(board: Board, token: str) -> int:
    """Points of one scoring token: a terrain (Path Scoring token) or a ``COMPOSITIONS`` name.

    Path token: 2 VP per uncovered tile and per Discovery token of that terrain. Composition
    token: 2 VP per uncovered tile (the Starting tile included) meeting its condition.
    """
    top, stacks, terrain = board.top, board.stacks, board.terrain
    points = 0
    if token in TERRAIN_INDEX:
        colour = TERRAIN_INDEX[token]
        return 2 * [terrain[e] for cell in board.cells  # each uncovered tile, then its tokens
                    for e in stacks[cell][stacks[cell].index(top[cell]):]].count(colour)  # type: ignore[index,union-attr]
    if token not in COMPOSITIONS:
        raise ValueError(f"no such scoring token: {token!r}")
    wanted = token in (BEAR, SNOW, DISCOVERY)
    for cell in board.cells:
        tile = top[cell]
        if token == BEAR or token == NO_BEAR:
            has = board.symbols[tile] + board.bears[tile] > 0
        elif token == SNOW or token == NO_SNOW:
            has = board.snow[tile] > 0
        else:
            has = stacks[cell][-1] != tile  # type: ignore[index]
        if has == wanted:
            points += 2
    return points


def score_intermediate(grid: Mapping[Cell, Stack], token: str) -> int:
    """``token_points`` of an object grid."""
    return token_points(to_board(grid), token)


# --- the text form of a grid -----------------------------------------------------------------


def element_label(element: Element) -> str:
    """``"Forest N-E bear [flipped, snow 3, bears 1]"``, ``"Start"`` or ``"Water Samurai"``."""
    if isinstance(element, Token):
        return f"{element.terrain} {element.kind}"
    if element.terrain is None:
        text = "Start"
    else:
        text = f"{element.terrain} {element.shape}" + (" bear" if element.symbols else "")
    mods = []
    if element.flipped:
        mods.append("flipped")
    if element.snow:
        mods.append(f"snow {element.snow}")
    if element.bears:
        mods.append(f"bears {element.bears}")
    return text + (f" [{', '.join(mods)}]" if mods else "")


def grid_to_text(grid: Mapping[Cell, Stack]) -> str:
    """One line per occupied cell, ``row col: element, element, ...`` bottom first, in cell order."""
    return "".join(f"{r} {c}: {', '.join(element_label(e) for e in grid[(r, c)])}\n" for r, c in sorted(grid))


def parse_element(label: str) -> Element:
    """The inverse of ``element_label``."""
    label = label.strip()
    mods: dict[str, int] = {}
    flipped = False
    if label.endswith("]"):
        label, _, inner = label[:-1].partition("[")
        label = label.strip()
        for mod in inner.split(","):
            words = mod.split()
            if words == ["flipped"]:
                flipped = True
            elif len(words) == 2 and words[0] in ("snow", "bears"):
                mods[words[0]] = int(words[1])
            else:
                raise ValueError(f"bad tile modifier {mod.strip()!r}")
    if label == "Start":
        tile = start_tile()
        tile.flipped = flipped
        tile.snow, tile.bears = mods.get("snow", 0), mods.get("bears", 0)
        return tile
    terrain, _, rest = label.partition(" ")
    if terrain not in TERRAINS:
        raise ValueError(f"unknown terrain in {label!r}")
    if rest in TOKEN_KINDS:
        if mods or flipped:
            raise ValueError(f"a token has no modifiers: {label!r}")
        return Token(rest, terrain)
    shape, _, bear = rest.partition(" ")
    if bear not in ("", "bear"):
        raise ValueError(f"bad tile {label!r}")
    return make_tile(terrain, shape, bear == "bear", flipped, mods.get("snow", 0), mods.get("bears", 0))


def grid_from_text(text: str) -> Grid:
    """The inverse of ``grid_to_text`` (blank lines and ``#`` comments are skipped)."""
    grid: Grid = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        where, _, what = line.partition(":")
        r, c = (int(x) for x in where.split())
        grid[(r, c)] = [parse_element(part) for part in _split_top(what)]
    return grid


def _split_top(text: str) -> list[str]:
    """Split on commas outside brackets (modifiers hold commas too)."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p for p in parts if p.strip()]
