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
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
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


# --- reading a grid --------------------------------------------------------------------------


def top_index(stack: Stack) -> int:
    """Index of the uncovered tile of a stack (tokens only ever lie above it)."""
    for i in range(len(stack) - 1, -1, -1):
        if type(stack[i]) is Tile:
            return i
    raise ValueError("a stack without a tile")


def top_tile(grid: Mapping[Cell, Stack], cell: Cell) -> Tile | None:
    """The uncovered tile at ``cell``, or None for an empty cell."""
    stack = grid.get(cell)
    if not stack:
        return None
    tile = stack[top_index(stack)]
    assert isinstance(tile, Tile)
    return tile


def neighbours(cell: Cell) -> list[Cell]:
    """The four orthogonally adjacent cells."""
    r, c = cell
    return [(r + dr, c + dc) for dr, dc in STEPS]


def _components(grid: Mapping[Cell, Stack]) -> list[list[Node]]:
    """Every component of the segment graph (rulings "Final scoring — the path").

    A node is a segment of an uncovered tile; two nodes link when they lie on
    orthogonally adjacent cells and both touch the shared edge.
    """
    nodes: list[Node] = []
    ends: dict[tuple[Cell, str], int] = {}
    for cell, stack in grid.items():
        tile = stack[top_index(stack)]
        assert isinstance(tile, Tile)
        for seg in sides(tile):
            ends[(cell, seg[0])] = ends[(cell, seg[1])] = len(nodes)
            nodes.append((cell, seg))
    links: list[list[int]] = [[] for _ in nodes]
    for k, ((r, c), seg) in enumerate(nodes):
        for side in seg:
            dr, dc = DELTA[side]
            j = ends.get(((r + dr, c + dc), FLIP[side]))
            if j is not None:
                links[k].append(j)
    seen = [False] * len(nodes)
    out = []
    for k in range(len(nodes)):
        if seen[k]:
            continue
        seen[k] = True
        todo, comp = [k], []
        while todo:
            i = todo.pop()
            comp.append(nodes[i])
            for j in links[i]:
                if not seen[j]:
                    seen[j] = True
                    todo.append(j)
        out.append(sorted(comp))
    return out


def longest_paths(grid: Mapping[Cell, Stack]) -> list[tuple[Node, ...]]:
    """The components with the most segments (a loop counts whole), each as sorted nodes."""
    comps = _components(grid)
    most = max((len(c) for c in comps), default=0)
    return [tuple(c) for c in comps if len(c) == most]


# --- scoring -----------------------------------------------------------------------------------


@dataclass
class FinalScore:
    """The scored path and its breakdown, with the tie-break figures."""

    breakdown: dict[str, int]
    path: tuple[Node, ...]
    cells: frozenset[Cell]
    bears: int  # Bear symbols and tokens on the path, protected or not
    snow: int  # Snow tokens on the path, Temple tiles included


def _score_cells(grid: Mapping[Cell, Stack], cells: Iterable[Cell], extra_tokens: int, earlier: int,
                 reservations: int) -> tuple[dict[str, int], int, int]:
    """The final breakdown when ``cells`` are the path's tiles; and the path's bears and snow."""
    juku = temples = wheel = observation = matching = 0
    samurai: set[str] = set()
    protected: set[Cell] = set()  # by a Bell on the path (its tile and the adjacent ones)
    temple_cells: set[Cell] = set()
    tiles: list[tuple[Cell, Tile]] = []
    for cell in cells:
        stack = grid[cell]
        i = top_index(stack)
        tile = stack[i]
        assert isinstance(tile, Tile)
        tiles.append((cell, tile))
        for k in range(i + 1, len(stack)):
            token = stack[k]
            assert isinstance(token, Token)
            kind, colour = token
            if colour == tile.terrain:
                matching += 1
            if kind == JUKU:
                juku += 1
            elif kind == SAMURAI:
                samurai.add(colour)
            elif kind == TEMPLE:
                temples += 1
                temple_cells.add(cell)
            elif kind == WHEEL:
                wheel += tile.snow
                for n in neighbours(cell):
                    other = top_tile(grid, n)
                    if other is not None:
                        wheel += other.snow
            elif kind == OBSERVATION:
                # The tile and the tokens beneath this one, distinct colours.
                beneath = {t.terrain for t in stack[i:k]}
                observation += 2 * len(beneath)
            elif kind == BELL:
                protected.add(cell)
                protected.update(neighbours(cell))
    bear_loss = snow_loss = bears = snow = 0
    for cell, tile in tiles:
        bears += tile.symbols + tile.bears
        snow += tile.snow
        if cell in temple_cells:
            continue
        if cell not in protected:
            bear_loss += tile.symbols + tile.bears
        if tile.snow >= 5:
            snow_loss += 4
        elif tile.snow >= 3:
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


def final_score(grid: Mapping[Cell, Stack], extra_tokens: int = 0, earlier_points: int = 0,
                reservations: int = 0) -> FinalScore:
    """Find the scored path and score it.

    Among equally long components the best total wins (rulings); among those, the fewest
    bears then the fewest snow on the path (the game's tie-breaks), then the first in
    sorted order, so the choice never depends on dict order.
    """
    best: FinalScore | None = None
    best_key: tuple[int, int, int] | None = None
    for path in longest_paths(grid):
        cells = frozenset(cell for cell, _ in path)
        breakdown, bears, snow = _score_cells(grid, sorted(cells), extra_tokens, earlier_points, reservations)
        key = (breakdown["total"], -bears, -snow)
        if best_key is None or key > best_key:
            best_key = key
            best = FinalScore(breakdown, path, cells, bears, snow)
    if best is None:  # an empty grid: nothing to score but the constants
        breakdown, _, _ = _score_cells(grid, (), extra_tokens, earlier_points, reservations)
        return FinalScore(breakdown, (), frozenset(), 0, 0)
    return best


def score_final(grid: Mapping[Cell, Stack], extra_tokens: int = 0, earlier_points: int = 0,
                reservations: int = 0) -> dict[str, int]:
    """The final scoring breakdown (``BREAKDOWN_KEYS``) of the best longest path."""
    return final_score(grid, extra_tokens, earlier_points, reservations).breakdown


def score_intermediate(grid: Mapping[Cell, Stack], token: str) -> int:
    """Points of one scoring token: a terrain (Path Scoring token) or a ``COMPOSITIONS`` name.

    Path token: 2 VP per uncovered tile and per Discovery token of that terrain. Composition
    token: 2 VP per uncovered tile (the Starting tile included) meeting its condition.
    """
    points = 0
    for stack in grid.values():
        i = top_index(stack)
        tile = stack[i]
        assert isinstance(tile, Tile)
        if token in TERRAINS:
            if tile.terrain == token:
                points += 2
            for k in range(i + 1, len(stack)):
                if stack[k].terrain == token:  # type: ignore[union-attr]
                    points += 2
            continue
        if token == BEAR or token == NO_BEAR:
            has = tile.symbols + tile.bears > 0
        elif token == SNOW or token == NO_SNOW:
            has = tile.snow > 0
        elif token == DISCOVERY or token == NO_DISCOVERY:
            has = i + 1 < len(stack)
        else:
            raise ValueError(f"no such scoring token: {token!r}")
        if has == (token in (BEAR, SNOW, DISCOVERY)):
            points += 2
    return points


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

MARKET = -1  # a Hiker's location: the Market (else a player's seat: that player's supply)


@dataclass
class GameResult:
    """Outcome of one random game, with what the tests check."""

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
    grids: list[Grid]
    supplies: list[list[Element]]
    market: list[Element]
    tile_pile: list[Tile]
    token_pile: list[Token]
    discarded_tokens: list[Token]
    extra_actions: list[int]
    extra_pool: int
    hikers: list[Element | None]
    scoring_tokens: dict[str, str] = field(default_factory=dict)
    slots: list[tuple[str, str]] = field(default_factory=list)


class _Game:
    """The state of one game and its random play; a class only to keep the turn code readable."""

    def __init__(self, players: int, rng: random.Random) -> None:
        if players not in (2, 3, 4):
            raise ValueError(f"Nakasendo is for 2 to 4 players, not {players}")
        self.n = players
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
        self.tile_pile = build_tiles()
        rng.shuffle(self.tile_pile)
        self.token_pile = build_tokens()
        rng.shuffle(self.token_pile)
        self.market_tiles: list[Tile] = [self.tile_pile.pop() for _ in range(MARKET_TILES)]
        self.market_tokens: list[Token] = [self.token_pile.pop() for _ in range(MARKET_TOKENS)]
        self.supplies: list[list[Element]] = []
        for _ in range(players):
            sup: list[Element] = [self.tile_pile.pop(), self.tile_pile.pop(), self.token_pile.pop()]
            self.supplies.append(sup)
        self.first = rng.randrange(players)
        self.events = list(EVENT_CARDS)
        rng.shuffle(self.events)
        self.grids: list[Grid] = [{START_CELL: [start_tile()]} for _ in range(players)]
        self.tile_targets: list[list[Cell]] = [[] for _ in range(players)]
        self.token_targets: list[list[Cell]] = [[] for _ in range(players)]
        for p in range(players):
            self._targets(p)
        self.extra = [0] * players
        self.extra_pool = EXTRA_ACTION_TOKENS
        self.hiker: list[Element | None] = [None] * players
        self.hiker_at = [MARKET] * players
        self.reservation_points = [0] * players
        self.intermediate_points = [0] * players
        self.scorings = 0
        self.discarded: list[Token] = []
        self.reserved_played = False  # Action 3 taken this turn
        self.affected: set[int] = set()  # players whose supply was played from this turn

    # -- placement targets ------------------------------------------------------------------

    def _targets(self, p: int) -> None:
        """Recompute p's tile targets (cover or extend within 4x4) and token targets (Path tiles)."""
        grid = self.grids[p]
        rows = [r for r, _ in grid]
        cols = [c for _, c in grid]
        rmin, rmax, cmin, cmax = min(rows), max(rows), min(cols), max(cols)
        cells: dict[Cell, None] = dict.fromkeys(grid)
        for r, c in grid:
            for dr, dc in STEPS:
                cell = (r + dr, c + dc)
                if cell in cells:
                    continue
                nr, nc = cell
                if max(rmax, nr) - min(rmin, nr) < MAX_SPAN and max(cmax, nc) - min(cmin, nc) < MAX_SPAN:
                    cells[cell] = None
        self.tile_targets[p] = list(cells)
        tokens = []
        for cell, stack in grid.items():
            if stack[top_index(stack)].terrain is not None:
                tokens.append(cell)
        self.token_targets[p] = tokens

    def _candidates(self, p: int) -> list[tuple[Element, int]]:
        """Elements p may play now with their source: p (Action 1), another seat (2), MARKET-2 (3)."""
        out: list[tuple[Element, int]] = [(e, p) for e in self.supplies[p]]
        mine = self.hiker[p]
        for i in range(1, self.n):
            q = (p + i) % self.n
            for e in self.supplies[q]:
                if e is not mine:
                    out.append((e, q))
        if mine is not None and not self.reserved_played:
            out.append((mine, -2))
        return out

    def _count(self, p: int, cands: list[tuple[Element, int]]) -> list[int]:
        """Placements per candidate: a tile's target cells (x2 flips for a curve), a token's tiles."""
        tn = len(self.tile_targets[p])
        kn = len(self.token_targets[p])
        return [(2 * tn if e.shape in CURVES else tn) if type(e) is Tile else kn  # type: ignore[union-attr]
                for e, _ in cands]

    # -- moving elements ------------------------------------------------------------------------

    def _release(self, e: Element, actor: int) -> None:
        """``e`` leaves its place: a Hiker on it goes home; if not the actor's, its owner gains 2 VP."""
        for r in range(self.n):
            if self.hiker[r] is e:
                self.hiker[r] = None
                if r != actor:
                    self.reservation_points[r] += 2

    def _gain_extra(self, q: int) -> None:
        if self.extra_pool:
            self.extra_pool -= 1
            self.extra[q] += 1

    def _place(self, p: int, e: Element, src: int, target: int) -> None:
        """Play ``e`` (from source ``src``) to its ``target``-th placement in p's grid."""
        # Take it from where it lies.
        if src == -2:  # Action 3: the reserved element
            where = self.hiker_at[p]
            self.reserved_played = True
            if where == MARKET:
                _remove(self.market_tiles if type(e) is Tile else self.market_tokens, e)  # type: ignore[arg-type]
            else:
                _remove(self.supplies[where], e)
                self._gain_extra(where)
                self.affected.add(where)
        else:
            _remove(self.supplies[src], e)
            if src != p:  # Action 2
                self._gain_extra(src)
                self.affected.add(src)
        self._release(e, p)
        grid = self.grids[p]
        if type(e) is Tile:
            if e.shape in CURVES:
                cell = self.tile_targets[p][target >> 1]
                e.flipped = bool(target & 1)
            else:
                cell = self.tile_targets[p][target]
                e.flipped = False
            stack = grid.get(cell)
            if stack is None:
                grid[cell] = [e]
            else:
                i = top_index(stack)
                old = stack[i]
                assert isinstance(old, Tile)
                old.snow = old.bears = 0  # covering discards Snow, Bears and tokens
                self.discarded.extend(stack[i + 1:])  # type: ignore[arg-type]
                del stack[i + 1:]
                stack.append(e)
            self._targets(p)
        else:
            grid[self.token_targets[p][target]].append(e)

    # -- the phases -------------------------------------------------------------------------------

    def _event(self, space: int) -> None:
        """Resolve the top Event card: each effect, each player from the first, one token at a time."""
        card = self.events.pop(0)
        snow = 1 if space <= 3 else 2 if space <= 6 else 3 if space <= 9 else 4
        rand = self.rand
        for terrain, effect in card:
            for i in range(self.n):
                p = (self.first + i) % self.n
                tiles = [t for t in (s[top_index(s)] for s in self.grids[p].values())
                         if t.terrain == terrain]
                if not tiles:
                    continue
                if effect == "snow":
                    for _ in range(snow):
                        tiles[rand(len(tiles))].snow += 1  # type: ignore[union-attr]
                        self.decisions += 1
                else:
                    tiles[rand(len(tiles))].bears += 1  # type: ignore[union-attr]
                    self.decisions += 1

    def _turn(self, p: int) -> None:
        rand = self.rand
        self.reserved_played = False
        self.affected = set()
        actions = 2
        while True:
            cands = self._candidates(p)
            counts = self._count(p, cands)
            total = sum(counts)
            if actions == 0:
                if not self.extra[p] or not total:
                    break
                self.decisions += 1
                if rand(2) == 1:  # "stop"
                    break
                self.extra[p] -= 1
                self.extra_pool += 1
                actions = 1
                continue
            if not total:
                break  # actions that cannot be taken are skipped
            pick = rand(total)
            self.decisions += 1
            for (e, src), k in zip(cands, counts):
                if pick < k:
                    self._place(p, e, src, pick)
                    break
                pick -= k
            actions -= 1
        self._end_of_turn(p)

    def _end_of_turn(self, p: int) -> None:
        rand = self.rand
        n = self.n
        # (1) the free Reserve.
        if self.hiker[p] is None:
            taken = [h for h in self.hiker if h is not None]
            options: list[tuple[Element, int]] = [(e, MARKET) for e in (*self.market_tiles, *self.market_tokens)
                                                  if not any(e is h for h in taken)]
            held = {self.hiker_at[r] for r in range(n) if self.hiker[r] is not None}
            for i in range(1, n):
                q = (p + i) % n
                if q not in held:
                    options.extend((e, q) for e in self.supplies[q])
            k = rand(len(options) + 1)
            self.decisions += 1
            if k < len(options):
                self.hiker[p], self.hiker_at[p] = options[k]
        # (2) refills: the affected players clockwise from p's left, then p.
        order = [(p + i) % n for i in range(1, n) if (p + i) % n in self.affected]
        order.append(p)
        for x in order:
            sup = self.supplies[x]
            mine = self.hiker[x]
            while len(sup) < SUPPLY_SIZE:
                visible: list[Element] = [e for e in (*self.market_tiles, *self.market_tokens) if e is not mine]
                blind_tile = len(visible)
                blind_token = blind_tile + (1 if self.tile_pile else 0)
                m = blind_token + (1 if self.token_pile else 0)
                if not m:
                    break
                k = rand(m)
                self.decisions += 1
                if k < blind_tile:
                    e = visible[k]
                    _remove(self.market_tiles if type(e) is Tile else self.market_tokens, e)  # type: ignore[arg-type]
                    self._release(e, x)
                    sup.append(e)
                elif k < blind_token:
                    sup.append(self.tile_pile.pop())
                else:
                    sup.append(self.token_pile.pop())
        # (3) the Market restock.
        while len(self.market_tiles) < MARKET_TILES and self.tile_pile:
            self.market_tiles.append(self.tile_pile.pop())
        while len(self.market_tokens) < MARKET_TOKENS and self.token_pile:
            self.market_tokens.append(self.token_pile.pop())

    def _intermediate(self, slot: int) -> None:
        tokens = [self.scoring_tokens[x] for x in self.slots[slot]]
        for p in range(self.n):
            self.intermediate_points[p] += sum(score_intermediate(self.grids[p], t) for t in tokens)
        self.scorings += 1

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
        finals = [final_score(self.grids[p], self.extra[p], self.intermediate_points[p],
                              self.reservation_points[p]) for p in range(self.n)]
        keys = [(f.breakdown["total"], -f.bears, -f.snow) for f in finals]
        ranking: list[list[int]] = []
        for key in sorted(set(keys), reverse=True):
            ranking.append([p for p in range(self.n) if keys[p] == key])
        return GameResult(
            totals=[f.breakdown["total"] for f in finals],
            breakdowns=[f.breakdown for f in finals],
            path_bears=[f.bears for f in finals],
            path_snow=[f.snow for f in finals],
            ranking=ranking,
            first=self.first,
            rounds=rounds,
            decisions=self.decisions,
            intermediate_scorings=self.scorings,
            intermediate_points=self.intermediate_points,
            reservation_points=self.reservation_points,
            grids=self.grids,
            supplies=self.supplies,
            market=[*self.market_tiles, *self.market_tokens],
            tile_pile=self.tile_pile,
            token_pile=self.token_pile,
            discarded_tokens=self.discarded,
            extra_actions=self.extra,
            extra_pool=self.extra_pool,
            hikers=self.hiker,
            scoring_tokens=self.scoring_tokens,
            slots=self.slots,
        )


def _remove(items: list[Element], e: Element) -> None:
    """Remove ``e`` by identity (equal tokens are different physical tokens)."""
    for i, x in enumerate(items):
        if x is e:
            del items[i]
            return
    raise ValueError("element not found")


def play_random_game(players: int, rng: random.Random) -> GameResult:
    """Play one whole uniformly random game for ``players`` (2-4) seats."""
    return _Game(players, rng).play()


def main() -> None:
    """Stand-alone speed check: print games per second."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--players", type=int, default=3, choices=(2, 3, 4))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    start = time.perf_counter()
    decisions = sum(play_random_game(args.players, rng).decisions for _ in range(args.games))
    elapsed = time.perf_counter() - start
    print(f"nakasendo handwritten, {args.players}p: {args.games} games in {elapsed:.3f}s"
          f" = {args.games / elapsed:.1f} games/s, {decisions / args.games:.1f} decisions/game")


if __name__ == "__main__":
    main()
