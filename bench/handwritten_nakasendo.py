"""Hand-written pure-Python Nakasendo (2-4 players), a speed baseline and scoring oracle.

Sources: /work/shared/rulebooks/nakasendo.txt and the rulings
/work/shared/rulings/nakasendo.md, whose reference edition supplies the component data
(the rulings win where the rulebook is silent). Nothing here imports ``ruleforge``: the
point is an independent implementation to time the engine against and to check its
scores with.

Grid: ``{(row, col): stack}``; a stack is a list, bottom first: tiles (covered ones
below, they count for nothing) then the Discovery tokens on the top tile. A tile is a
``Tile`` (terrain ``None`` for the Starting tile), a token a ``Token(kind, terrain)``.
Sides are ``"N"``, ``"E"``, ``"S"``, ``"W"``; a flip maps N<->S and E<->W.

Random play (``play_random_game``) follows the decision structure shared with
games/nakasendo.rules, so that both play the same distribution of games:

- events: per terrain effect, per player from the first: each Snow token, then the Bear
  token, is one decision among the player's uncovered Path tiles of that terrain;
- turn: while actions are left, one decision among every complete placement (element x
  target) of Actions 1, 2 and 3; with none left, "spend an Extra Action token" / "stop"
  when the player has one and some placement is legal; then the Reserve (always offered,
  with "no reserve"), the refills one element at a time, the Market restock.

Every decision draws ``rng.randrange(n)`` over its ``n`` options, also when ``n == 1``
(a forced decision still counts as one). Placements are counted, not listed: an element's
options are its targets, so the draw is mapped back to (element, target) arithmetically.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
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
DELTA: dict[str, tuple[int, int]] = {"N": (-1, 0), "S": (1, 0), "E": (0, 1), "W": (0, -1)}
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

_TILE_OBJECTS = build_tiles()
TOKEN_OBJECTS: tuple[Token, ...] = tuple(build_tokens())  # immutable: one instance per physical token, shared
E_TERRAIN: tuple[int, ...] = (*(TERRAIN_INDEX[t.terrain] for t in _TILE_OBJECTS),  # type: ignore[index]
                              *(TERRAIN_INDEX[k.terrain] for k in TOKEN_OBJECTS), -1, -1, -1, -1)
E_KIND: tuple[int, ...] = (*(-1,) * FIRST_TOKEN, *(KIND_INDEX[k.kind] for k in TOKEN_OBJECTS), -1, -1, -1, -1)
E_SHAPE: tuple[str, ...] = (*(t.shape for t in _TILE_OBJECTS), *("",) * 45, *("Start",) * 4)
E_SEGMENTS = tuple(SEGMENTS.get(shape, ((), ())) for shape in E_SHAPE)
E_SYMBOLS: tuple[int, ...] = (*(t.symbols for t in _TILE_OBJECTS), *(0,) * 45, *(START_SYMBOLS,) * 4)


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
    top, stacks = [NONE] * size, [None] * size  # type: list[int], list[list[int] | None]
    cells: list[int] = []
    terrain: list[int] = []
    kind: list[int] = []
    segments: list = []
    flipped: list[bool] = []
    symbols: list[int] = []
    snow: list[int] = []
    bears: list[int] = []
    for (r, c), stack in grid.items():
        cell = (r - r0) * width + c - c0
        ids = list(range(len(terrain), len(terrain) + len(stack)))
        top[cell] = ids[top_index(stack)]
        for x in stack:
            if isinstance(x, Tile):
                terrain.append(NONE if x.terrain is None else TERRAIN_INDEX[x.terrain])
                kind.append(NONE)
                segments.append(SEGMENTS[x.shape])
                flipped.append(x.flipped)
                symbols.append(x.symbols)
                snow.append(x.snow)
                bears.append(x.bears)
            else:
                terrain.append(TERRAIN_INDEX[x.terrain])
                kind.append(KIND_INDEX[x.kind])
                segments.append(((), ()))
                flipped.append(False)
                symbols.append(0)
                snow.append(0)
                bears.append(0)
        cells.append(cell)
        stacks[cell] = ids
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
        for cell in board.cells:
            stack = stacks[cell]
            assert stack is not None
            points += 2 * [terrain[e] for e in stack[stack.index(top[cell]):]].count(colour)  # the tile, its tokens
        return points
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


# --- the game -----------------------------------------------------------------------------------
#
# Targets are kept up to date as tiles are placed instead of being searched for at every
# decision; the objects of the result are made only when it is read.

MARKET = -1  # a Hiker's location: the Market (else a player's seat: that player's supply)
RESERVED = -2  # the source of Action 3: the element under the player's own Hiker
CELL_RC: tuple[Cell, ...] = tuple(divmod(i, WIDTH) for i in range(WIDTH * WIDTH))
ROW: tuple[int, ...] = tuple(r for r, _ in CELL_RC)
COL: tuple[int, ...] = tuple(c for _, c in CELL_RC)
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(  # N, E, S, W, as STEPS (only read for rows/columns 1-7)
    tuple(i + dr * WIDTH + dc for dr, dc in STEPS) for i in range(WIDTH * WIDTH))
TILE_SPECS: tuple[tuple[str | None, str, int], ...] = tuple((t.terrain, t.shape, t.symbols) for t in _TILE_OBJECTS)
# Placements per target of a candidate element: 0 = a token (its targets are Path tiles),
# 1 = a straight tile, 2 = a curve (both flips).
E_CODE: tuple[int, ...] = (*(2 if t.shape in CURVES else 1 for t in _TILE_OBJECTS), *(0,) * 45, 1, 1, 1, 1)
OTHERS: dict[int, tuple[tuple[int, ...], ...]] = {  # seats clockwise from p's left
    n: tuple(tuple((p + i) % n for i in range(1, n)) for p in range(n)) for n in (2, 3, 4)}


def is_tile(e: int) -> bool:
    """A Path or Starting tile (else a Discovery token)."""
    return e < FIRST_TOKEN or e >= FIRST_START


def cell_index(cell: Cell) -> int:
    """The game board's index of ``(row, col)``."""
    return cell[0] * WIDTH + cell[1]


@dataclass
class GameResult:
    """Outcome of one random game, with what the tests check; its elements as objects when read."""

    totals: list[int]
    breakdowns: list[dict[str, int]]
    path_bears: list[int]
    path_snow: list[int]
    ranking: list[list[int]]  # groups of seats, best first; a group shares its place
    first: int
    rounds: int
    decisions: int
    intermediate_scorings: int
    intermediate_points: list[int]
    reservation_points: list[int]
    extra_actions: list[int]
    extra_pool: int
    scoring_tokens: dict[str, str]
    slots: list[tuple[str, str]]
    game: _Game = field(repr=False)

    @cached_property
    def objects(self) -> list[Element]:
        """Every element of the game as an object, by element index (made once, on first use)."""
        return self.game.objects()

    @property
    def grids(self) -> list[Grid]:
        return [self.game.grid(p, self.objects) for p in range(self.game.n)]

    @property
    def supplies(self) -> list[list[Element]]:
        return [[self.objects[e] for e in sup] for sup in self.game.supplies]

    @property
    def market(self) -> list[Element]:
        return [self.objects[e] for e in (*self.game.market_tiles, *self.game.market_tokens)]

    @property
    def tile_pile(self) -> list[Element]:
        return [self.objects[e] for e in self.game.tile_pile]

    @property
    def token_pile(self) -> list[Element]:
        return [self.objects[e] for e in self.game.token_pile]

    @property
    def discarded_tokens(self) -> list[Element]:
        return [self.objects[e] for e in self.game.discarded]

    @property
    def hikers(self) -> list[Element | None]:
        return [None if e == NONE else self.objects[e] for e in self.game.hiker]


class _Game:
    """The state of one game and its random play; a class only to keep the turn code readable."""

    def __init__(self, players: int, rng: random.Random) -> None:
        if players not in (2, 3, 4):
            raise ValueError(f"Nakasendo is for 2 to 4 players, not {players}")
        n = self.n = players
        self.rng = rng
        self.rand = rng.randrange
        self.decisions = 0
        # Setup (rulebook steps 2-11); none of it is a decision.
        a, c = rng.sample(TERRAINS, 2)
        b = rng.choice(COMPOSITIONS)
        self.scoring_tokens = {"A": a, "B": b, "C": c}
        slots = list(SLOT_PAIRS)
        rng.shuffle(slots)
        self.slots = slots
        self.tile_pile = list(range(FIRST_TOKEN))
        rng.shuffle(self.tile_pile)
        self.token_pile = list(range(FIRST_TOKEN, FIRST_START))
        rng.shuffle(self.token_pile)
        self.market_tiles = [self.tile_pile.pop() for _ in range(MARKET_TILES)]
        self.market_tokens = [self.token_pile.pop() for _ in range(MARKET_TOKENS)]
        self.supplies = [[self.tile_pile.pop(), self.tile_pile.pop(), self.token_pile.pop()] for _ in range(n)]
        self.first = rng.randrange(n)
        self.events = list(EVENT_CARDS)
        rng.shuffle(self.events)
        self.snow = [0] * (FIRST_START + 4)
        self.bears = [0] * (FIRST_START + 4)
        self.flipped = [False] * (FIRST_START + 4)
        # Per seat: the uncovered tile of each cell (NONE: empty), each cell's stack (bottom
        # first), the occupied cells in the order they were first played, the empty cells a
        # tile may go to (in the order they were first found), the bounding box.
        self.top = [[NONE] * (WIDTH * WIDTH) for _ in range(n)]
        self.stacks: list[list[list[int] | None]] = [[None] * (WIDTH * WIDTH) for _ in range(n)]
        self.occupied = [[START] for _ in range(n)]
        self.frontier = [[d for d in NEIGHBOURS[START]] for _ in range(n)]
        self.box = [[START_CELL[0], START_CELL[0], START_CELL[1], START_CELL[1]] for _ in range(n)]
        for p in range(n):
            self.top[p][START] = FIRST_START + p
            self.stacks[p][START] = [FIRST_START + p]
        self.tile_targets = [self.occupied[p] + self.frontier[p] for p in range(n)]
        self.token_targets: list[list[int]] = [[] for _ in range(n)]  # cells with a Path tile on top
        self.extra = [0] * n
        self.extra_pool = EXTRA_ACTION_TOKENS
        self.hiker = [NONE] * n
        self.hiker_at = [MARKET] * n
        self.reservation_points = [0] * n
        self.intermediate_points = [0] * n
        self.scorings = 0
        self.discarded: list[int] = []
        self._tally()
        self.reserved_played = False  # Action 3 taken this turn
        self.affected: set[int] = set()  # players whose supply was played from this turn

    # -- placement targets ------------------------------------------------------------------

    def _grow(self, p: int, cell: int) -> None:
        """A tile went to the empty ``cell``: update p's targets.

        Tile targets are the occupied cells then the empty cells next to them that keep the
        grid within 4x4, each in the order first found (occupied cells in play order, their
        sides N, E, S, W); a new cell comes last, so the list is kept, not searched again.
        """
        occupied, frontier, box = self.occupied[p], self.frontier[p], self.box[p]
        occupied.append(cell)
        if cell in frontier:
            frontier.remove(cell)
        r, c = ROW[cell], COL[cell]
        if r < box[0] or r > box[1] or c < box[2] or c > box[3]:
            box[:] = min(box[0], r), max(box[1], r), min(box[2], c), max(box[3], c)
            rlo, rhi, clo, chi = box[1] - MAX_SPAN + 1, box[0] + MAX_SPAN - 1, box[3] - MAX_SPAN + 1, box[2] + MAX_SPAN - 1
            frontier[:] = [d for d in frontier if rlo <= ROW[d] <= rhi and clo <= COL[d] <= chi]
        else:
            rlo, rhi, clo, chi = box[1] - MAX_SPAN + 1, box[0] + MAX_SPAN - 1, box[3] - MAX_SPAN + 1, box[2] + MAX_SPAN - 1
        top = self.top[p]
        for d in NEIGHBOURS[cell]:
            if top[d] == NONE and d not in frontier and rlo <= ROW[d] <= rhi and clo <= COL[d] <= chi:
                frontier.append(d)
        self.tile_targets[p] = occupied + frontier
        self.token_targets[p].append(cell)

    def _tally(self) -> None:
        """Count what lies in the supplies: tile units (1 a straight, 2 a curve) and tokens.

        Done at the start of a turn; ``_place`` keeps the counts as it takes from a supply,
        so a decision's count of placements reads two numbers instead of every supply.
        """
        units = tokens = 0
        for sup in self.supplies:
            for e in sup:
                if e >= FIRST_TOKEN:
                    tokens += 1
                else:
                    units += E_CODE[e]
        self.units, self.tokens = units, tokens

    def _total(self, p: int) -> int:
        """The number of complete placements of Actions 1 (p's supply), 2 (the others') and 3."""
        tn = len(self.tile_targets[p])
        kn = len(self.token_targets[p])
        total = self.units * tn + self.tokens * kn
        mine = self.hiker[p]
        if mine != NONE:  # not by Action 2 (it lies in a supply unless in the Market); by Action 3 once
            weight = kn if mine >= FIRST_TOKEN else E_CODE[mine] * tn
            if self.hiker_at[p] != MARKET:
                total -= weight
            if not self.reserved_played:
                total += weight
        return total

    def _choose(self, p: int, pick: int) -> tuple[int, int, int]:
        """The ``pick``-th placement counted by ``_total``: (element, source, target)."""
        tn = len(self.tile_targets[p])
        weight = (len(self.token_targets[p]), tn, tn + tn)
        code = E_CODE
        for e in self.supplies[p]:
            k = weight[code[e]]
            if pick < k:
                return e, p, pick
            pick -= k
        mine = self.hiker[p]
        for q in OTHERS[self.n][p]:
            for e in self.supplies[q]:
                if e != mine:
                    k = weight[code[e]]
                    if pick < k:
                        return e, q, pick
                    pick -= k
        assert mine != NONE and not self.reserved_played and pick < weight[code[mine]]
        return mine, RESERVED, pick

    # -- moving elements ------------------------------------------------------------------------

    def _release(self, e: int, actor: int) -> None:
        """``e`` leaves its place: a Hiker on it goes home; if not the actor's, its owner gains 2 VP."""
        r = self.hiker.index(e)  # at most one Hiker per element
        self.hiker[r] = NONE
        if r != actor:
            self.reservation_points[r] += 2

    def _gain_extra(self, q: int) -> None:
        if self.extra_pool:
            self.extra_pool -= 1
            self.extra[q] += 1

    def _place(self, p: int, e: int, src: int, target: int) -> None:
        """Play ``e`` (from source ``src``) to its ``target``-th placement in p's grid."""
        # Take it from where it lies.
        if src == RESERVED:  # Action 3: the reserved element
            src = self.hiker_at[p]
            self.reserved_played = True
        if src == MARKET:
            (self.market_tokens if e >= FIRST_TOKEN else self.market_tiles).remove(e)
        else:
            self.supplies[src].remove(e)
            if e >= FIRST_TOKEN:  # keep the tally
                self.tokens -= 1
            else:
                self.units -= E_CODE[e]
            if src != p:  # Action 2, or Action 3 from a supply
                self._gain_extra(src)
                self.affected.add(src)
        if e in self.hiker:
            self._release(e, p)
        if e >= FIRST_TOKEN:  # a token (never a Starting tile: those are never played)
            self.stacks[p][self.token_targets[p][target]].append(e)  # type: ignore[union-attr]
            return
        if E_CODE[e] == 2:
            cell = self.tile_targets[p][target >> 1]
            self.flipped[e] = bool(target & 1)
        else:
            cell = self.tile_targets[p][target]
            self.flipped[e] = False
        top = self.top[p]
        old = top[cell]
        top[cell] = e
        if old == NONE:
            self.stacks[p][cell] = [e]
            self._grow(p, cell)
            return
        self.snow[old] = self.bears[old] = 0  # covering discards Snow, Bears and tokens
        stack = self.stacks[p][cell]
        assert stack is not None
        i = stack.index(old)
        self.discarded.extend(stack[i + 1:])
        del stack[i + 1:]
        stack.append(e)
        if old >= FIRST_START:  # the Starting tile covered: its cell takes tokens now (it is played first)
            self.token_targets[p].insert(0, cell)

    # -- the phases -------------------------------------------------------------------------------

    def _event(self, space: int) -> None:
        """Resolve the top Event card: each effect, each player from the first, one token at a time."""
        card = self.events.pop(0)
        snow = 1 if space <= 3 else 2 if space <= 6 else 3 if space <= 9 else 4
        rand = self.rand
        for terrain, effect in card:
            ti = TERRAIN_INDEX[terrain]
            counters = self.snow if effect == "snow" else self.bears
            tokens = snow if effect == "snow" else 1
            for i in range(self.n):
                p = (self.first + i) % self.n
                top = self.top[p]
                tiles = [top[cell] for cell in self.token_targets[p] if E_TERRAIN[top[cell]] == ti]
                if tiles:
                    for _ in range(tokens):
                        counters[tiles[rand(len(tiles))]] += 1
                    self.decisions += tokens

    def _turn(self, p: int) -> None:
        rand = self.rand
        self.reserved_played = False
        self.affected.clear()
        self._tally()
        actions = 2
        while True:
            if actions == 0 and not self.extra[p]:
                break
            total = self._total(p)
            if actions == 0:  # spend an Extra Action token, or stop
                if not total:
                    break
                self.decisions += 1
                if rand(2) == 1:  # "stop"
                    break
                self.extra[p] -= 1
                self.extra_pool += 1
                actions = 1
            if not total:
                break  # actions that cannot be taken are skipped
            self.decisions += 1
            self._place(p, *self._choose(p, rand(total)))
            actions -= 1
        self._end_of_turn(p)

    def _end_of_turn(self, p: int) -> None:
        rand = self.rand
        n = self.n
        hiker, supplies = self.hiker, self.supplies
        market_tiles, market_tokens = self.market_tiles, self.market_tokens
        # (1) the free Reserve: an untaken Market element, or an element of a supply no Hiker is on.
        if hiker[p] == NONE:
            held = [self.hiker_at[r] for r in range(n) if hiker[r] != NONE]
            market = market_tiles + market_tokens
            if MARKET in held:  # a Hiker in the Market is on an element still there
                market = [e for e in market if e not in hiker]
            options = len(market)
            for q in OTHERS[n][p]:
                if q not in held:
                    options += len(supplies[q])
            k = rand(options + 1)
            self.decisions += 1
            if k < len(market):
                hiker[p], self.hiker_at[p] = market[k], MARKET
            elif k < options:
                k -= len(market)
                for q in OTHERS[n][p]:
                    if q not in held:
                        if k < len(supplies[q]):
                            hiker[p], self.hiker_at[p] = supplies[q][k], q
                            break
                        k -= len(supplies[q])
        # (2) refills: the affected players clockwise from p's left, then p.
        affected = self.affected
        order = [q for q in OTHERS[n][p] if q in affected] if affected else []
        order.append(p)
        for x in order:
            sup = supplies[x]
            mine = hiker[x]
            while len(sup) < SUPPLY_SIZE:
                visible = market_tiles + market_tokens
                if mine in visible:  # not the element under x's own Hiker
                    visible.remove(mine)
                blind_tile = len(visible)
                blind_token = blind_tile + (1 if self.tile_pile else 0)
                m = blind_token + (1 if self.token_pile else 0)
                if not m:
                    break
                k = rand(m)
                self.decisions += 1
                if k < blind_tile:
                    e = visible[k]
                    (market_tokens if e >= FIRST_TOKEN else market_tiles).remove(e)
                    if e in hiker:
                        self._release(e, x)
                    sup.append(e)
                elif k < blind_token:
                    sup.append(self.tile_pile.pop())
                else:
                    sup.append(self.token_pile.pop())
        # (3) the Market restock.
        while len(market_tiles) < MARKET_TILES and self.tile_pile:
            market_tiles.append(self.tile_pile.pop())
        while len(market_tokens) < MARKET_TOKENS and self.token_pile:
            market_tokens.append(self.token_pile.pop())

    def board(self, p: int) -> Board:
        """p's grid as the scorers read it (the game's own lists, not a copy)."""
        return Board(self.occupied[p], WIDTH, self.top[p], self.stacks[p], E_TERRAIN, E_KIND, E_SEGMENTS,
                     self.flipped, E_SYMBOLS, self.snow, self.bears)

    def _intermediate(self, slot: int) -> None:
        tokens = [self.scoring_tokens[x] for x in self.slots[slot]]
        for p in range(self.n):
            board = self.board(p)
            self.intermediate_points[p] += sum(token_points(board, t) for t in tokens)
        self.scorings += 1

    # -- the result -------------------------------------------------------------------------------

    def objects(self) -> list[Element]:
        """The game's elements as objects, indexed by element (Tiles with their Snow, Bears, flip)."""
        snow, bears, flipped = self.snow, self.bears, self.flipped
        tiles = [Tile(*TILE_SPECS[e], flipped[e], snow[e], bears[e], e) for e in range(FIRST_TOKEN)]
        starts = [Tile(None, "Start", START_SYMBOLS, flipped[e], snow[e], bears[e])
                  for e in range(FIRST_START, FIRST_START + self.n)]
        return [*tiles, *TOKEN_OBJECTS, *starts]

    def grid(self, p: int, objects: list[Element] | None = None) -> Grid:
        """p's grid as ``{(row, col): stack}``, cells in the order they were first played."""
        objs = self.objects() if objects is None else objects
        stacks = self.stacks[p]
        return {CELL_RC[cell]: [objs[e] for e in stacks[cell]] for cell in self.occupied[p]}  # type: ignore[union-attr]

    def play(self) -> GameResult:
        """Play the rounds, then the final scoring and the ranking."""
        space = 1 if self.n == 2 else 2
        rounds = 0
        while space <= LAST_SPACE:
            if rounds:
                self._event(space)
            for i in range(self.n):
                self._turn((self.first + i) % self.n)
            if space in SCORING_SPACES:
                self._intermediate(SCORING_SPACES[space])
            rounds += 1
            space += 1
        return self.result(rounds)

    def result(self, rounds: int) -> GameResult:
        """The final scoring and the ranking."""
        finals = [final_points(self.board(p), self.extra[p], self.intermediate_points[p],
                               self.reservation_points[p]) for p in range(self.n)]
        keys = [(breakdown["total"], -bears, -snow) for breakdown, bears, snow in finals]
        ranking: list[list[int]] = []
        for key in sorted(set(keys), reverse=True):
            ranking.append([p for p in range(self.n) if keys[p] == key])
        return GameResult(
            totals=[breakdown["total"] for breakdown, _, _ in finals],
            breakdowns=[breakdown for breakdown, _, _ in finals],
            path_bears=[bears for _, bears, _ in finals],
            path_snow=[snow for _, _, snow in finals],
            ranking=ranking,
            first=self.first,
            rounds=rounds,
            decisions=self.decisions,
            intermediate_scorings=self.scorings,
            intermediate_points=self.intermediate_points,
            reservation_points=self.reservation_points,
            extra_actions=self.extra,
            extra_pool=self.extra_pool,
            scoring_tokens=self.scoring_tokens,
            slots=self.slots,
            game=self,
        )


def play_random_game(players: int, rng: random.Random) -> GameResult:
    """Play one whole uniformly random game for ``players`` (2-4) seats."""
    return _Game(players, rng).play()


def main() -> None:
    """Stand-alone speed check: print games per second (processor time)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--players", type=int, default=3, choices=(2, 3, 4))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    start = time.process_time()
    decisions = sum(play_random_game(args.players, rng).decisions for _ in range(args.games))
    elapsed = time.process_time() - start
    print(f"nakasendo handwritten, {args.players}p: {args.games} games in {elapsed:.3f}s"
          f" = {args.games / elapsed:.1f} games/s, {decisions / args.games:.1f} decisions/game")


if __name__ == "__main__":
    main()
