"""Hand-written pure-Python Naishi (base game only), a speed baseline and scoring oracle.

Sources: /work/shared/rulebooks/naishi.txt and the rules reference
/work/shared/rulings/naishi.md, sections 1-6 and 8 (the rulings win where the two
differ). Nothing here imports ``ruleforge``.

In the public functions cards are their type names (``"Mountain"``, ``"Naishi"``, ...,
``"Rice Field"``). Inside a game and inside scoring a card is its index in ``TYPES``
(plain ints compare and count faster than strings); ``play_game`` turns them back into
names for its result. A territory is 10 cells: 0-4 the Line (positions 1-5), 5-9 the
Hand; cell ``c + 5`` sits under cell ``c``. A River pile is a list whose last item is its
top card; between two decisions the top card of every non-empty pile is the revealed one
(base game reveals always happen at the end of the action that uncovered the card,
§4.3). Players are seats 0 and 1; totals are returned by seat, not by turn order.

Random play: every decision is one ``rng.choice`` over the tuple of its legal options.
The legal lists depend only on which piles still show a card and on a few Emissary
flags, so every one is built once, at import, in tables keyed by those bits (``_key``):
a decision looks its list up, it never builds one. Two policies split a turn into
decisions differently (``play_game(rng, policy=...)``); setup, Gift and reveal are common.

``policy="type-first"`` (the default) picks the kind of action first, then its details:

Setup (not decisions: ``rng.randrange(2)`` for the first player, ``rng.shuffle`` for the
development deck and for each Hand's layout)
  1. Gift, first player then second: which of my 2 dealt cards to give (2 options,
     by position, even if both cards are the same type).

Turn (one main action and at most one bonus action, the bonus only with a Develop)
  1. Turn start: the legal ones, in this order, of
     ``SWAP_FIRST`` / ``DISCARD_FIRST`` (place an Emissary on that kind of spot now,
     then Develop), ``DEVELOP``, ``DECREE``, ``RECALL``, ``DECLARE``.
     No option at all: the player passes (never happens in practice).
  2. After ``SWAP_FIRST`` / ``DISCARD_FIRST``: the concrete bonus move of that kind,
     then the Develop target ``(DEVELOP, pile, row)``; the turn ends (one bonus per turn).
  3. After ``DEVELOP``: the Develop target; then, if an Emissary could still be placed,
     ``NO_BONUS`` / ``SWAP`` / ``DISCARD`` (legal ones), then the concrete bonus move of
     the chosen kind.
  4. After ``DECREE``: the cell (0-9) exchanged with the opponent's same cell.
  Concrete Swap moves: pairs of revealed River cards ``(RIVER_SWAP, i, j)``, i < j, then
  the 25 territory pairs (Line pairs, Hand pairs, then same-column Line/Hand pairs).
  Concrete Discard-2 moves: pairs ``(i, j)``, i < j, of piles showing a card.

``policy="engine"`` offers the complete legal actions grouped into decisions exactly as
games/naishi.rules does, so that it plays the same distribution of games as the
engine's uniform random agent and does the same work per decision:
  1. Turn start (the rules' ``choose: develop, swap_bonus, discard_bonus, decree,
     recall, declare``), one flat list: every Develop target ``(DEVELOP, pile, row)``
     of a showing pile (up to 10), ``SWAP_FIRST``, ``DISCARD_FIRST``, the 10 cells
     ``(DECREE, cell)``, ``RECALL``, ``DECLARE`` (the legal ones, in that order).
  2. After a Develop, if an Emissary could still be placed: ``SWAP`` / ``DISCARD`` (legal
     ones) / ``NO_BONUS`` (the rules' ``pass``); after ``SWAP`` or ``DISCARD``: the
     concrete move, as above (the rules' ``swap_river`` + ``swap_own``, ``discard_two``).
  3. After ``SWAP_FIRST`` / ``DISCARD_FIRST``: the concrete move, then a forced Develop
     decision among the Develop targets (the rules' second ``choose: develop``).
  A Decree, Recall or Declare is a single decision.

Final reveal (``ninja_choice="random"``, the default): seat 0 then seat 1 (under
``policy="engine"``: the first player then the other, as the rules do), each Ninja in
cell order picks uniformly among the distinct copyable character types present in its
owner's territory (Naishi, Advisor, Sentinel, Monk, Horseman, Ronin; two Advisors are
one option since copying either is identical); one type: automatic, no draw; none: the
Ninja stays uncopied. ``ninja_choice="best"`` instead gives every Ninja the best copy for
its owner, as ``score_territory(..., None)`` does.

Scoring breakdown keys are ``SCORE_KEYS`` (the 11 non-Ninja types) plus ``"total"``.
As in the rulings' worked examples (§8 ex. 6), a Ninja's points are booked under the
type it copies, so there is no "Ninja" key: an uncopied Ninja scores 0.
"""

from __future__ import annotations

import argparse
import itertools
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

# --- cards -------------------------------------------------------------------------------

MOUNTAIN = "Mountain"
NAISHI = "Naishi"
ADVISOR = "Advisor"
SENTINEL = "Sentinel"
MONK = "Monk"
HORSEMAN = "Horseman"
RONIN = "Ronin"
NINJA = "Ninja"
FORT = "Fort"
TORII = "Torii"
RICE = "Rice Field"
BANNER = "Banner"

# The card codes used inside games and scoring: a card is its index here.
TYPES: tuple[str, ...] = (MOUNTAIN, NAISHI, ADVISOR, SENTINEL, MONK, HORSEMAN, RONIN, NINJA, FORT, TORII, RICE,
                          BANNER)
MTN, NAI, ADV, SEN, MON, HOR, RON, NIN, FOR, TOR, RIC, BAN = range(12)
CODE: dict[str, int] = {name: code for code, name in enumerate(TYPES)}

DEVELOPMENT_COUNTS: dict[str, int] = {
    NAISHI: 2,
    ADVISOR: 4,
    SENTINEL: 4,
    MONK: 3,
    HORSEMAN: 2,
    RONIN: 2,
    NINJA: 2,
    FORT: 4,
    TORII: 4,
    RICE: 5,
    BANNER: 2,
}
DEVELOPMENT_DECK: tuple[str, ...] = tuple(c for c, n in DEVELOPMENT_COUNTS.items() for _ in range(n))
DECK_CODES: tuple[int, ...] = tuple(CODE[c] for c in DEVELOPMENT_DECK)
MOUNTAINS_PER_PLAYER = 8
CARD_TYPES = frozenset(TYPES)

# Characters a base Ninja may copy (§6.3), in the order options are listed.
COPYABLE: tuple[str, ...] = (NAISHI, ADVISOR, SENTINEL, MONK, HORSEMAN, RONIN)
COPYABLE_CODES: tuple[int, ...] = tuple(CODE[t] for t in COPYABLE)
# Types counted by the Ronin (§6.4): never Mountains nor Ninjas.
RONIN_TYPES = frozenset((NAISHI, ADVISOR, SENTINEL, MONK, HORSEMAN, RONIN, FORT, TORII, RICE, BANNER))
RONIN_CODES = frozenset(CODE[t] for t in RONIN_TYPES)
SCORE_KEYS: tuple[str, ...] = (MOUNTAIN, NAISHI, ADVISOR, FORT, SENTINEL, TORII, MONK, RICE, BANNER, HORSEMAN, RONIN)
COLOUR: dict[str, str] = {
    MOUNTAIN: "white",
    NAISHI: "pink",
    ADVISOR: "purple",
    FORT: "brown",
    SENTINEL: "green",
    TORII: "red",
    MONK: "orange",
    RICE: "yellow",
    BANNER: "light blue",
    HORSEMAN: "dark blue",
    RONIN: "turquoise",
}
COLOUR_OF_CODE: tuple[str | None, ...] = tuple(COLOUR.get(name) for name in TYPES)  # an uncopied Ninja: None

ADVISOR_BY_COLUMN = (2, 4, 3, 4, 2)


def _neighbours(cell: int) -> tuple[int, ...]:
    """Cells adjacent to ``cell`` (§6.1): same row neighbouring column, or other row same column."""
    row, col = divmod(cell, 5)
    out = [row * 5 + c for c in (col - 1, col + 1) if 0 <= c < 5]
    out.append((1 - row) * 5 + col)
    return tuple(out)


ADJ: tuple[tuple[int, ...], ...] = tuple(_neighbours(c) for c in range(10))

# --- scoring -----------------------------------------------------------------------------


def _ronin_points(types: int) -> int:
    if types >= 10:
        return 45
    if types == 9:
        return 15
    if types == 8:
        return 8
    return 0


def _points(eff: Sequence[int], ronin_types: int) -> list[int]:
    """Points per card code of a territory whose Ninjas are already replaced by their copies.

    ``eff`` holds, per cell, the code the card counts as (an uncopied Ninja stays ``NIN``
    and counts as nothing); ``ronin_types`` is the Ronin's distinct-type count, taken from
    the real cards (a base Ninja never adds a type, §6.3).
    """
    pts = [0] * len(TYPES)

    mountains = eff.count(MTN)
    pts[MTN] = 5 if mountains == 1 else (-5 if mountains >= 2 else 0)

    torii = eff.count(TOR)
    pts[TOR] = -5 if torii == 1 else (30 if torii >= 3 else 0)

    banners = 0  # Hand Banners score nothing.
    rice_cells = []
    for c in range(10):  # the branches in order of how often a card is met at the end of a game
        card = eff[c]
        if card == MTN or card == TOR:
            continue  # counted above
        if card == RIC:
            rice_cells.append(c)
        elif card == SEN:
            alone = 3  # lost to any adjacent Sentinel
            forts = 0
            for n in ADJ[c]:
                near = eff[n]
                if near == SEN:
                    alone = 0
                elif near == FOR:
                    forts += 4
            pts[SEN] += alone + forts
        elif card == ADV:
            points = ADVISOR_BY_COLUMN[c % 5]
            for n in ADJ[c]:
                if eff[n] == NAI:
                    points += 4
            pts[ADV] += points
        elif card == FOR:
            if c % 5 in (0, 4):
                pts[FOR] += 6
        elif card == MON:
            points = 5 if c >= 5 else 0
            for n in ADJ[c]:
                if eff[n] == TOR:
                    points += 2
            pts[MON] += points
        elif card == HOR:
            if c >= 5:
                pts[HOR] += 13 if eff[c - 5] == BAN else 3
        elif card == RON:
            pts[RON] += _ronin_points(ronin_types)
        elif card == NAI:
            pts[NAI] += 12 if c == 2 else (8 if c == 7 else 0)
        elif card == BAN and c < 5:
            banners += 1
    pts[BAN] = 3 if banners == 1 else (8 if banners >= 2 else 0)

    if rice_cells:
        rice = set(rice_cells)
        while rice:
            stack = [rice.pop()]
            size = 0
            while stack:
                cell = stack.pop()
                size += 1
                for n in ADJ[cell]:
                    if n in rice:
                        rice.remove(n)
                        stack.append(n)
            pts[RIC] += 0 if size == 1 else (10 if size == 2 else (20 if size == 3 else 30))
    return pts


def _ronin_types(cells: Sequence[int]) -> int:
    """The Ronin's count of distinct types among the real cards (§6.4)."""
    return len(RONIN_CODES.intersection(cells))


def _colours_effective(eff: Sequence[int]) -> int:
    """Distinct colours (§6.5); an uncopied Ninja has none."""
    return len({COLOUR_OF_CODE[card] for card in eff if card != NIN})


def _breakdown(pts: list[int]) -> dict[str, int]:
    """The public breakdown (names, ``SCORE_KEYS`` order, ``"total"``) of ``_points``' list."""
    out = {name: pts[CODE[name]] for name in SCORE_KEYS}
    out["total"] = sum(pts)
    return out


def copy_targets(cells: Sequence[str]) -> list[str]:
    """Distinct character types a base Ninja of this territory may copy, in ``COPYABLE`` order."""
    present = set(cells)
    return [t for t in COPYABLE if t in present]


def _cells(line: Sequence[str], hand: Sequence[str]) -> list[int]:
    """The codes of a territory given by names, checked."""
    if len(line) != 5 or len(hand) != 5:
        raise ValueError(f"a Line and a Hand have 5 cards each, got {len(line)} and {len(hand)}")
    cells = [*line, *hand]
    for card in cells:
        if card not in CARD_TYPES:
            raise ValueError(f"unknown card {card!r}")
    return [CODE[card] for card in cells]


def _resolve(cells: list[int], given: Mapping[int, int | None]) -> dict[int, int | None]:
    """Every Ninja cell's copy (codes): ``given`` ones kept, the best for its owner for the others."""
    free = [c for c, card in enumerate(cells) if card == NIN and c not in given]
    targets = [t for t in COPYABLE_CODES if t in cells]
    out = {c: given.get(c) for c, card in enumerate(cells) if card == NIN}
    if not free or not targets:
        return out
    ronin_types = _ronin_types(cells)
    eff = cells[:]
    for cell, copy in given.items():
        if copy is not None:
            eff[cell] = copy
    best: tuple[int, int] | None = None
    best_combo: tuple[int, ...] = ()
    for combo in itertools.product(targets, repeat=len(free)):
        for cell, copy in zip(free, combo):
            eff[cell] = copy
        key = (sum(_points(eff, ronin_types)), _colours_effective(eff))
        if best is None or key > best:
            best, best_combo = key, combo
    out.update(zip(free, best_combo))
    return out


def _given_codes(cells: list[int], ninja_copies: Mapping[int, str | None] | None) -> dict[int, int | None]:
    """A caller's Ninja copies (names), checked and turned into codes."""
    given: dict[int, int | None] = {}
    for cell, copy in (ninja_copies or {}).items():
        if not 0 <= cell < 10 or cells[cell] != NIN:
            raise ValueError(f"cell {cell} holds {TYPES[cells[cell]] if 0 <= cell < 10 else 'nothing'}, not a Ninja")
        if copy is not None and copy not in COPYABLE:
            raise ValueError(f"a Ninja cannot copy {copy!r}")
        given[cell] = None if copy is None else CODE[copy]
    return given


def resolve_copies(
    line: Sequence[str],
    hand: Sequence[str],
    ninja_copies: Mapping[int, str | None] | None = None,
) -> dict[int, str | None]:
    """Copy of every Ninja cell: the given ones, and the best for its owner for the others.

    A given copy must be a copyable character type (``COPYABLE``) or None (uncopied); it
    is not checked against the territory, so scoring-only layouts such as §8 example 6
    (a Ninja copying a Naishi that is not there) can be scored. A Ninja absent from
    ``ninja_copies`` copies the best present type for its owner: every combination of
    the uncopied Ninjas' targets is enumerated and the highest (total, colours) wins,
    the first in enumeration order on a full tie. No target: the Ninja stays uncopied.
    """
    cells = _cells(line, hand)
    copies = _resolve(cells, _given_codes(cells, ninja_copies))
    return {c: None if copy is None else TYPES[copy] for c, copy in copies.items()}


def _effective(cells: list[int], copies: Mapping[int, int | None]) -> list[int]:
    """The cells as they count: every copying Ninja replaced by its copy."""
    eff = cells[:]
    for cell, copy in copies.items():
        if copy is not None:
            eff[cell] = copy
    return eff


def score_territory(
    line: Sequence[str],
    hand: Sequence[str],
    ninja_copies: Mapping[int, str | None] | None = None,
) -> dict[str, int]:
    """Points per type (``SCORE_KEYS``) and ``"total"`` for one territory (§6).

    Cells are 0-4 (Line) and 5-9 (Hand). ``ninja_copies`` maps a Ninja's cell to the type
    it copies; Ninjas not in it take their best copy (see ``resolve_copies``).
    """
    cells = _cells(line, hand)
    eff = _effective(cells, _resolve(cells, _given_codes(cells, ninja_copies)))
    return _breakdown(_points(eff, _ronin_types(cells)))


def colours(
    line: Sequence[str],
    hand: Sequence[str],
    ninja_copies: Mapping[int, str | None] | None = None,
) -> int:
    """Distinct colours of a territory (§6.5), Ninjas resolved as in ``score_territory``."""
    cells = _cells(line, hand)
    return _colours_effective(_effective(cells, _resolve(cells, _given_codes(cells, ninja_copies))))


# --- the game: options ---------------------------------------------------------------------

# Turn-start options.
SWAP_FIRST = "swap-then-develop"
DISCARD_FIRST = "discard-then-develop"
DEVELOP = "develop"
DECREE = "decree"
RECALL = "recall"
DECLARE = "declare"
# After-Develop options.
NO_BONUS = "no-bonus"
SWAP = "swap"
DISCARD = "discard"

RIVER_SWAP = 0
TERRITORY_SWAP = 1

SWAP_SPOTS = 3
DISCARD_SPOTS = 2

# The 25 territory swaps: Line pairs, Hand pairs, same-column Line/Hand pairs.
TERRITORY_SWAPS: tuple[tuple[int, int, int], ...] = (
    *((TERRITORY_SWAP, a, b) for a, b in itertools.combinations(range(5), 2)),
    *((TERRITORY_SWAP, a, b) for a, b in itertools.combinations(range(5, 10), 2)),
    *((TERRITORY_SWAP, c, c + 5) for c in range(5)),
)
PILE_PAIRS: tuple[tuple[int, int], ...] = tuple(itertools.combinations(range(5), 2))
DEVELOP_TARGETS: tuple[tuple[int, int], ...] = tuple((i, row) for i in range(5) for row in (0, 5))
DECREE_CELLS: tuple[int, ...] = tuple(range(10))

# The random policies (see the module docstring).
TYPE_FIRST = "type-first"
ENGINE = "engine"
POLICIES: tuple[str, ...] = (TYPE_FIRST, ENGINE)

# The complete actions of a turn's main decision under ``policy="engine"``, as
# (kind, a, b): (DEVELOP, pile, row offset), (DECREE, cell, 0), the others (kind, 0, 0).
MAIN_DEVELOPS: tuple[tuple[str, int, int], ...] = tuple((DEVELOP, pile, row) for pile, row in DEVELOP_TARGETS)
MAIN_SWAP_FIRST = (SWAP_FIRST, 0, 0)
MAIN_DISCARD_FIRST = (DISCARD_FIRST, 0, 0)
MAIN_DECREES: tuple[tuple[str, int, int], ...] = tuple((DECREE, cell, 0) for cell in DECREE_CELLS)
MAIN_RECALL = (RECALL, 0, 0)
MAIN_DECLARE = (DECLARE, 0, 0)

# The option tables. A pile mask has bit i set while pile i shows a card. A turn's key
# (``_key``) is the mask plus one bit per Emissary condition of the turn start:
SWAP_FIRST_OK = 1 << 5  # an Emissary home, a free Swap spot, a pile showing
DISCARD_FIRST_OK = 1 << 6  # an Emissary home, a free Discard spot, 2 piles showing, > 2 River cards
DECREE_OK = 1 << 7  # an Emissary home, the Decree spot free
RECALL_OK = 1 << 8  # an Emissary of mine on a Swap or Discard spot
DECLARE_OK = 1 << 9  # the end not triggered, a pile depleted
ALL_PILES = 31
POPCOUNT: tuple[int, ...] = tuple(bin(m).count("1") for m in range(32))

DEVELOPS: tuple[tuple[tuple[str, int, int], ...], ...] = tuple(
    tuple(t for t in MAIN_DEVELOPS if mask >> t[1] & 1) for mask in range(32))
RIVER_PAIRS: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple((a, b) for a, b in PILE_PAIRS if mask >> a & 1 and mask >> b & 1) for mask in range(32))
SWAP_MOVES: tuple[tuple[tuple[int, int, int], ...], ...] = tuple(
    tuple((RIVER_SWAP, a, b) for a, b in RIVER_PAIRS[mask]) + TERRITORY_SWAPS for mask in range(32))


def _engine_main(key: int) -> tuple[tuple[str, int, int], ...]:
    """The engine policy's turn-start options for ``key``, in the rules' order (module docstring)."""
    out = list(DEVELOPS[key & ALL_PILES])
    out += [MAIN_SWAP_FIRST] if key & SWAP_FIRST_OK else []
    out += [MAIN_DISCARD_FIRST] if key & DISCARD_FIRST_OK else []
    out += MAIN_DECREES if key & DECREE_OK else []
    out += [MAIN_RECALL] if key & RECALL_OK else []
    out += [MAIN_DECLARE] if key & DECLARE_OK else []
    return tuple(out)


def _type_first_main(key: int) -> tuple[str, ...]:
    """The type-first policy's turn-start kinds for ``key``."""
    flags = ((SWAP_FIRST, SWAP_FIRST_OK), (DISCARD_FIRST, DISCARD_FIRST_OK), (DEVELOP, ALL_PILES),
             (DECREE, DECREE_OK), (RECALL, RECALL_OK), (DECLARE, DECLARE_OK))
    return tuple(kind for kind, bits in flags if key & bits)


ENGINE_MAIN = tuple(_engine_main(key) for key in range(1024))
TYPE_FIRST_MAIN = tuple(_type_first_main(key) for key in range(1024))
# The bonus offer after a Develop, by (1 if a Swap spot is free) + (2 if a Discard-2 is possible).
ENGINE_OFFERS: tuple[tuple[str, ...], ...] = ((), (SWAP, NO_BONUS), (DISCARD, NO_BONUS), (SWAP, DISCARD, NO_BONUS))
TYPE_FIRST_OFFERS: tuple[tuple[str, ...], ...] = ((), (NO_BONUS, SWAP), (NO_BONUS, DISCARD), (NO_BONUS, SWAP, DISCARD))


def _mask(piles: list[list[int]]) -> int:
    """The pile mask recomputed, after a Discard-2 (which may empty two piles)."""
    return sum(1 << i for i in range(5) if piles[i])


# --- the game: play ----------------------------------------------------------------------------


@dataclass
class GameResult:
    """Outcome and final state of one game, with enough detail for tests."""

    totals: tuple[int, int]
    colours: tuple[int, int]
    winner: int | None  # seat, or None for a shared result
    first: int
    territories: list[list[str]]
    river: list[list[str]]
    discard: list[str]
    ninja_copies: list[dict[int, str | None]]
    breakdowns: list[dict[str, int]]
    turns: int
    decisions: int
    history: list[tuple[int, str]]  # (seat, main action or "pass") per turn, in order
    end: str  # "declared" or "depleted"
    declared_by: int | None = None
    emissaries: dict[str, object] = field(default_factory=dict)


class _Played(NamedTuple):
    """What a turn loop hands back: the main action of every turn, and the Emissaries' places."""

    kinds: list[str]
    decisions: int
    end: str
    declared_by: int | None
    reserve: list[int]
    on_swap: list[int]
    on_discard: list[int]
    decree_owner: int


def _swap(move: tuple[int, int, int], mine: list[int], piles: list[list[int]]) -> None:
    """A Swap bonus move: two of my cells, or two revealed River cards (nothing is revealed)."""
    kind, x, y = move
    if kind == TERRITORY_SWAP:
        mine[x], mine[y] = mine[y], mine[x]
    else:
        px, py = piles[x], piles[y]
        px[-1], py[-1] = py[-1], px[-1]


def _discard_two(pair: tuple[int, int], piles: list[list[int]], discard: list[int]) -> None:
    """A Discard-2 bonus move: the revealed cards of two piles to the discard."""
    discard.append(piles[pair[0]].pop())
    discard.append(piles[pair[1]].pop())


def _turns(rng: random.Random, first: int, piles: list[list[int]], terr: list[list[int]], discard: list[int],
           engine: bool) -> _Played:
    """Every turn until the game ends (§5), under the engine policy or the type-first one."""
    choice = rng.choice
    main_table = ENGINE_MAIN if engine else TYPE_FIRST_MAIN
    offers = ENGINE_OFFERS if engine else TYPE_FIRST_OFFERS
    decisions = 0
    river_cards = 30  # revealed + face-down cards left in the River
    mask = ALL_PILES
    reserve = [2, 2]
    on_swap = [0, 0]
    on_discard = [0, 0]
    swaps = discards = 0  # Emissaries on the Swap / Discard-2 spots, both players'
    decree_owner = -1
    triggered = False
    declared_by: int | None = None
    end = ""
    kinds: list[str] = []
    me = first

    while True:
        mine = terr[me]
        key = mask
        if reserve[me]:
            if swaps < SWAP_SPOTS and mask:
                key |= SWAP_FIRST_OK
            # Before the Develop, Discard-2 also needs more than 2 River cards in total.
            if discards < DISCARD_SPOTS and POPCOUNT[mask] >= 2 and river_cards > 2:
                key |= DISCARD_FIRST_OK
            if decree_owner < 0:
                key |= DECREE_OK
        if on_swap[me] or on_discard[me]:
            key |= RECALL_OK
        if not triggered and mask != ALL_PILES:
            key |= DECLARE_OK
        options = main_table[key]

        declared = False
        if not options:
            kinds.append("pass")
        else:
            option = choice(options)
            decisions += 1
            if engine:
                action, a, b = option
            else:
                action, a, b = option, 0, 0
            kinds.append(action)
            if action == DEVELOP or action == SWAP_FIRST or action == DISCARD_FIRST:
                offer = 0
                if action != DEVELOP:
                    # A bonus first (§4.2): its concrete move, then the Develop.
                    reserve[me] -= 1
                    if action == SWAP_FIRST:
                        on_swap[me] += 1
                        swaps += 1
                        _swap(choice(SWAP_MOVES[mask]), mine, piles)
                    else:
                        on_discard[me] += 1
                        discards += 1
                        _discard_two(choice(RIVER_PAIRS[mask]), piles, discard)
                        river_cards -= 2
                        mask = _mask(piles)
                    decisions += 1
                if action != DEVELOP or not engine:
                    _, a, b = choice(DEVELOPS[mask])  # the Develop target, a decision of its own
                    decisions += 1
                # Develop (§4.1): the pile's next card is revealed right after.
                pile = piles[a]
                cell = a + b
                discard.append(mine[cell])
                mine[cell] = pile.pop()
                river_cards -= 1
                if not pile:
                    mask ^= 1 << a
                # The bonus offer after a Develop, when an Emissary could still be placed.
                if action == DEVELOP and reserve[me]:
                    pairs = RIVER_PAIRS[mask]
                    offer = (1 if swaps < SWAP_SPOTS else 0) + (2 if pairs and discards < DISCARD_SPOTS else 0)
                if offer:
                    bonus = choice(offers[offer])
                    decisions += 1
                    if bonus == SWAP:
                        reserve[me] -= 1
                        on_swap[me] += 1
                        swaps += 1
                        _swap(choice(SWAP_MOVES[mask]), mine, piles)
                        decisions += 1
                    elif bonus == DISCARD:
                        reserve[me] -= 1
                        on_discard[me] += 1
                        discards += 1
                        _discard_two(choice(pairs), piles, discard)
                        decisions += 1
                        river_cards -= 2
                        mask = _mask(piles)
            elif action == DECREE:
                if not engine:
                    a = choice(DECREE_CELLS)
                    decisions += 1
                theirs = terr[1 - me]
                mine[a], theirs[a] = theirs[a], mine[a]
                reserve[me] -= 1
                decree_owner = me  # this Emissary never returns
            elif action == RECALL:
                reserve[me] += on_swap[me] + on_discard[me]
                swaps -= on_swap[me]
                discards -= on_discard[me]
                on_swap[me] = on_discard[me] = 0
            else:  # DECLARE
                declared = True

        # The end (§5), checked after every turn.
        if triggered:
            break  # that was the final turn
        if declared:
            triggered = True
            declared_by = me
            end = "declared"
        elif POPCOUNT[mask] <= 3:
            end = "depleted"
            if me != first:
                break  # the second player's turn ends the game at once
            triggered = True
        me = 1 - me

    return _Played(kinds, decisions, end, declared_by, reserve, on_swap, on_discard, decree_owner)


def _reveal(rng: random.Random, terr: list[list[int]], order: tuple[int, int], ninja_choice: str,
            ) -> tuple[list[list[int]], list[dict[int, int | None]], int]:
    """Every Ninja's copy at the final reveal (§5, §6.3), seats in ``order``.

    Returns each seat's effective cells (its territory itself when it has no Ninja), the
    copies, and the draws made.
    """
    effs = [terr[0], terr[1]]
    copies: list[dict[int, int | None]] = [{}, {}]
    decisions = 0
    for seat in order:
        cells = terr[seat]
        if NIN not in cells:
            continue
        if ninja_choice == "best":
            chosen = _resolve(cells, {})
        else:
            targets = [t for t in COPYABLE_CODES if t in cells]
            chosen = {}
            for c in range(10):
                if cells[c] == NIN:
                    if len(targets) > 1:
                        chosen[c] = rng.choice(targets)
                        decisions += 1
                    else:
                        chosen[c] = targets[0] if targets else None
        copies[seat] = chosen
        effs[seat] = _effective(cells, chosen)
    return effs, copies, decisions


class _Game(NamedTuple):
    """A finished game on card codes."""

    first: int
    piles: list[list[int]]
    terr: list[list[int]]
    discard: list[int]
    played: _Played
    effs: list[list[int]]
    copies: list[dict[int, int | None]]
    decisions: int


def _play(rng: random.Random, ninja_choice: str, policy: str) -> _Game:
    """Play one whole game on card codes; ``play_game`` and ``play_random_game`` share it."""
    if ninja_choice not in ("random", "best"):
        raise ValueError(f"ninja_choice must be 'random' or 'best', not {ninja_choice!r}")
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(map(repr, POLICIES))}, not {policy!r}")
    choice = rng.choice

    # Setup (§3).
    first = rng.randrange(2)
    deck = list(DECK_CODES)
    rng.shuffle(deck)
    dealt = (deck[0:2], deck[2:4])
    piles = [deck[4 + 6 * i: 10 + 6 * i] for i in range(5)]
    discard: list[int] = []

    # Gift: both choose (first player's draw first), then both gifts are handed over.
    gives = [0, 0]
    for seat in (first, 1 - first):
        gives[seat] = choice((0, 1))
    terr: list[list[int]] = []
    for seat in (0, 1):
        hand = [dealt[seat][1 - gives[seat]], dealt[1 - seat][gives[1 - seat]], MTN, MTN, MTN]
        rng.shuffle(hand)
        terr.append([MTN] * 5 + hand)

    engine = policy == ENGINE
    played = _turns(rng, first, piles, terr, discard, engine)
    effs, copies, drawn = _reveal(rng, terr, (first, 1 - first) if engine else (0, 1), ninja_choice)
    return _Game(first, piles, terr, discard, played, effs, copies, 2 + played.decisions + drawn)


def play_game(rng: random.Random, ninja_choice: str = "random", policy: str = TYPE_FIRST) -> GameResult:
    """Play one whole uniformly random base game of Naishi under the random ``policy``."""
    game = _play(rng, ninja_choice, policy)
    points = [_points(game.effs[seat], _ronin_types(game.terr[seat])) for seat in (0, 1)]
    breakdowns = [_breakdown(p) for p in points]
    cols = (_colours_effective(game.effs[0]), _colours_effective(game.effs[1]))
    totals = (breakdowns[0]["total"], breakdowns[1]["total"])
    if totals[0] != totals[1]:
        winner: int | None = 0 if totals[0] > totals[1] else 1
    elif cols[0] != cols[1]:
        winner = 0 if cols[0] > cols[1] else 1
    else:
        winner = None
    played = game.played

    def names(cards: list[int]) -> list[str]:
        return [TYPES[c] for c in cards]

    return GameResult(
        totals=totals,
        colours=cols,
        winner=winner,
        first=game.first,
        territories=[names(cells) for cells in game.terr],
        river=[names(pile) for pile in game.piles],
        discard=names(game.discard),
        ninja_copies=[{c: None if copy is None else TYPES[copy] for c, copy in seat.items()} for seat in game.copies],
        breakdowns=breakdowns,
        turns=len(played.kinds),
        decisions=game.decisions,
        history=[((game.first + k) % 2, kind) for k, kind in enumerate(played.kinds)],
        end=played.end,
        declared_by=played.declared_by,
        emissaries={
            "reserve": played.reserve,
            "swap": played.on_swap,
            "discard": played.on_discard,
            "decree": played.decree_owner,
        },
    )


def play_random_game(rng: random.Random, policy: str = TYPE_FIRST) -> tuple[int, int]:
    """Play one uniformly random game under ``policy`` and return the totals of seats 0 and 1.

    The same rng gives the same game as ``play_game(rng, policy=policy)``.
    """
    game = _play(rng, "random", policy)
    effs, terr = game.effs, game.terr
    return sum(_points(effs[0], _ronin_types(terr[0]))), sum(_points(effs[1], _ronin_types(terr[1])))


def main() -> None:
    """Benchmark entry point: print games per second."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--policy", choices=POLICIES, default=TYPE_FIRST,
                        help="how turns split into random decisions (see the module docstring)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    start = time.perf_counter()
    for _ in range(args.games):
        play_random_game(rng, args.policy)
    elapsed = time.perf_counter() - start
    print(f"naishi handwritten ({args.policy}): {args.games} games in {elapsed:.3f}s"
          f" = {args.games / elapsed:.1f} games/s")


if __name__ == "__main__":
    main()
