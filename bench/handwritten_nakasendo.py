"""Hand-written pure-Python Nakasendo (2-4 players), a speed baseline and scoring oracle.

Sources: /work/shared/rulebooks/nakasendo.txt and the rulings
/work/shared/rulings/nakasendo.md. Nothing here imports ``ruleforge``: the point is an
independent implementation to time the engine against and to check its scores with.
The components, the integer board, the scoring and the text form of a grid are in
bench/handwritten_nakasendo_scoring.py; every name of it is re-exported here, so callers
import this module only.

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
import sys
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

# The oracle half sits next to this file (bench/ is not a package; this file is also loaded by path).
if str(Path(__file__).resolve().parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))

from handwritten_nakasendo_scoring import *  # noqa: E402,F403  (re-exported: callers read them from here)
from handwritten_nakasendo_scoring import (  # noqa: E402
    COMPOSITIONS,
    CURVES,
    E_KIND,
    E_SEGMENTS,
    E_SYMBOLS,
    E_TERRAIN,
    EVENT_CARDS,
    EXTRA_ACTION_TOKENS,
    FIRST_START,
    FIRST_TOKEN,
    LAST_SPACE,
    MARKET_TILES,
    MARKET_TOKENS,
    MAX_SPAN,
    NONE,
    SCORING_SPACES,
    SLOT_PAIRS,
    START,
    START_CELL,
    START_SYMBOLS,
    STEPS,
    SUPPLY_SIZE,
    TERRAIN_INDEX,
    TERRAINS,
    TILE_OBJECTS,
    TOKEN_OBJECTS,
    WIDTH,
    Board,
    Cell,
    Element,
    Grid,
    Tile,
    final_points,
    token_points,
)

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
TILE_SPECS: tuple[tuple[str | None, str, int], ...] = tuple((t.terrain, t.shape, t.symbols) for t in TILE_OBJECTS)
# Placements per target of a candidate element: 0 = a token (its targets are Path tiles),
# 1 = a straight tile, 2 = a curve (both flips).
E_CODE: tuple[int, ...] = (*(2 if t.shape in CURVES else 1 for t in TILE_OBJECTS), *(0,) * 45, 1, 1, 1, 1)
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
        grown = not (box[0] <= r <= box[1] and box[2] <= c <= box[3])
        if grown:
            box[:] = min(box[0], r), max(box[1], r), min(box[2], c), max(box[3], c)
        rlo, rhi = box[1] - MAX_SPAN + 1, box[0] + MAX_SPAN - 1  # the rows and columns a cell may take
        clo, chi = box[3] - MAX_SPAN + 1, box[2] + MAX_SPAN - 1
        if grown:
            frontier[:] = [d for d in frontier if rlo <= ROW[d] <= rhi and clo <= COL[d] <= chi]
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
        tile_pile, token_pile = self.tile_pile, self.token_pile
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
        picks = 0
        for x in order:
            sup = supplies[x]
            mine = hiker[x]
            while len(sup) < SUPPLY_SIZE:
                visible = market_tiles + market_tokens
                if mine in visible:  # not the element under x's own Hiker
                    visible.remove(mine)
                blind_tile = len(visible)
                blind_token = blind_tile + (1 if tile_pile else 0)
                m = blind_token + (1 if token_pile else 0)
                if not m:
                    break
                k = rand(m)
                picks += 1
                if k < blind_tile:
                    e = visible[k]
                    (market_tokens if e >= FIRST_TOKEN else market_tiles).remove(e)
                    if e in hiker:
                        self._release(e, x)
                    sup.append(e)
                elif k < blind_token:
                    sup.append(tile_pile.pop())
                else:
                    sup.append(token_pile.pop())
        self.decisions += picks
        # (3) the Market restock.
        while len(market_tiles) < MARKET_TILES and tile_pile:
            market_tiles.append(tile_pile.pop())
        while len(market_tokens) < MARKET_TOKENS and token_pile:
            market_tokens.append(token_pile.pop())

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
