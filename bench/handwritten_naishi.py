"""Hand-written pure-Python Naishi (base game only), a speed baseline and scoring oracle.

Sources: /work/shared/rulebooks/naishi.txt and the rules reference
/work/shared/rulings/naishi.md, sections 1-6 and 8 (the rulings win where the two
differ). Nothing here imports ``ruleforge``.

Cards are their type names (``"Mountain"``, ``"Naishi"``, ..., ``"Rice Field"``).
A territory is 10 cells: 0-4 the Line (positions 1-5), 5-9 the Hand; cell ``c + 5``
sits under cell ``c``. A River pile is a list whose last item is its top card; between
two decisions the top card of every non-empty pile is the revealed one (base game
reveals always happen at the end of the action that uncovered the card, §4.3).
Players are seats 0 and 1; totals are returned by seat, not by turn order.

Random play: every decision draws uniformly (``rng.choice``) from the list of legal
options, recomputed at that decision. Two policies split a turn into decisions
differently (``play_game(rng, policy=...)``); setup, Gift and reveal are common.

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
     then the Develop target ``(pile, row)``; the turn ends (one bonus per turn).
  3. After ``DEVELOP``: the Develop target ``(pile, row)``; then, if an Emissary could
     still be placed, ``NO_BONUS`` / ``SWAP`` / ``DISCARD`` (legal ones), then the
     concrete bonus move of the chosen kind.
  4. After ``DECREE``: the cell (0-9) exchanged with the opponent's same cell.
  Concrete Swap moves: pairs of revealed River cards ``(i, j)``, i < j, then the 25
  territory pairs (Line pairs, Hand pairs, then same-column Line/Hand pairs).
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
MOUNTAINS_PER_PLAYER = 8
CARD_TYPES = frozenset((MOUNTAIN, *DEVELOPMENT_COUNTS))

# Characters a base Ninja may copy (§6.3), in the order options are listed.
COPYABLE: tuple[str, ...] = (NAISHI, ADVISOR, SENTINEL, MONK, HORSEMAN, RONIN)
# Types counted by the Ronin (§6.4): never Mountains nor Ninjas.
RONIN_TYPES = frozenset((NAISHI, ADVISOR, SENTINEL, MONK, HORSEMAN, RONIN, FORT, TORII, RICE, BANNER))
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


def _score_effective(eff: Sequence[str], ronin_types: int) -> dict[str, int]:
    """Points per type of a territory whose Ninjas are already replaced by their copies.

    ``eff`` holds, per cell, the type the card counts as (an uncopied Ninja stays "Ninja"
    and counts as nothing); ``ronin_types`` is the Ronin's distinct-type count, taken from
    the real cards (a base Ninja never adds a type, §6.3).
    """
    pts = dict.fromkeys(SCORE_KEYS, 0)

    mountains = eff.count(MOUNTAIN)
    pts[MOUNTAIN] = 5 if mountains == 1 else (-5 if mountains >= 2 else 0)

    torii = eff.count(TORII)
    pts[TORII] = -5 if torii == 1 else (30 if torii >= 3 else 0)

    banners = eff[0:5].count(BANNER)  # Hand Banners score nothing.
    pts[BANNER] = 3 if banners == 1 else (8 if banners >= 2 else 0)

    rice_cells = []
    for c, card in enumerate(eff):
        if card == NAISHI:
            pts[NAISHI] += 12 if c == 2 else (8 if c == 7 else 0)
        elif card == ADVISOR:
            pts[ADVISOR] += ADVISOR_BY_COLUMN[c % 5] + 4 * sum(1 for n in ADJ[c] if eff[n] == NAISHI)
        elif card == FORT:
            if c % 5 in (0, 4):
                pts[FORT] += 6
        elif card == SENTINEL:
            near = [eff[n] for n in ADJ[c]]
            pts[SENTINEL] += (0 if SENTINEL in near else 3) + 4 * near.count(FORT)
        elif card == MONK:
            pts[MONK] += (5 if c >= 5 else 0) + 2 * sum(1 for n in ADJ[c] if eff[n] == TORII)
        elif card == HORSEMAN:
            if c >= 5:
                pts[HORSEMAN] += 3 + (10 if eff[c - 5] == BANNER else 0)
        elif card == RONIN:
            pts[RONIN] += _ronin_points(ronin_types)
        elif card == RICE:
            rice_cells.append(c)

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
            pts[RICE] += 0 if size == 1 else (10 if size == 2 else (20 if size == 3 else 30))

    pts["total"] = sum(pts.values())
    return pts


def _colours_effective(eff: Sequence[str]) -> int:
    return len({COLOUR[card] for card in eff if card != NINJA})


def copy_targets(cells: Sequence[str]) -> list[str]:
    """Distinct character types a base Ninja of this territory may copy, in ``COPYABLE`` order."""
    present = set(cells)
    return [t for t in COPYABLE if t in present]


def _cells(line: Sequence[str], hand: Sequence[str]) -> list[str]:
    if len(line) != 5 or len(hand) != 5:
        raise ValueError(f"a Line and a Hand have 5 cards each, got {len(line)} and {len(hand)}")
    cells = [*line, *hand]
    for card in cells:
        if card not in CARD_TYPES:
            raise ValueError(f"unknown card {card!r}")
    return cells


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
    given = dict(ninja_copies or {})
    for cell, copy in given.items():
        if not 0 <= cell < 10 or cells[cell] != NINJA:
            raise ValueError(f"cell {cell} holds {cells[cell] if 0 <= cell < 10 else 'nothing'}, not a Ninja")
        if copy is not None and copy not in COPYABLE:
            raise ValueError(f"a Ninja cannot copy {copy!r}")
    free = [c for c, card in enumerate(cells) if card == NINJA and c not in given]
    targets = copy_targets(cells)
    if not free or not targets:
        return {c: given.get(c) for c, card in enumerate(cells) if card == NINJA}
    ronin_types = len(RONIN_TYPES.intersection(cells))
    eff = cells[:]
    for cell, copy in given.items():
        if copy is not None:
            eff[cell] = copy
    best: tuple[int, int] | None = None
    best_combo: tuple[str, ...] = ()
    for combo in itertools.product(targets, repeat=len(free)):
        for cell, copy in zip(free, combo):
            eff[cell] = copy
        key = (_score_effective(eff, ronin_types)["total"], _colours_effective(eff))
        if best is None or key > best:
            best, best_combo = key, combo
    out = {c: given.get(c) for c, card in enumerate(cells) if card == NINJA}
    out.update(zip(free, best_combo))
    return out


def _effective(cells: list[str], copies: Mapping[int, str | None]) -> list[str]:
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
    copies = resolve_copies(line, hand, ninja_copies)
    return _score_effective(_effective(cells, copies), len(RONIN_TYPES.intersection(cells)))


def colours(
    line: Sequence[str],
    hand: Sequence[str],
    ninja_copies: Mapping[int, str | None] | None = None,
) -> int:
    """Distinct colours of a territory (§6.5), Ninjas resolved as in ``score_territory``."""
    cells = _cells(line, hand)
    return _colours_effective(_effective(cells, resolve_copies(line, hand, ninja_copies)))


# --- the game ----------------------------------------------------------------------------

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
    """What a turn loop hands back to `play_game`: the turns and the Emissaries' places."""

    turns: int
    decisions: int
    history: list[tuple[int, str]]
    end: str
    declared_by: int | None
    reserve: list[int]
    on_swap: list[int]
    on_discard: list[int]
    decree_owner: int


class _Ending:
    """The end of the game (§5), checked after every turn by both turn loops."""

    def __init__(self) -> None:
        self.triggered = False
        self.declared_by: int | None = None
        self.end = ""  # "declared" or "depleted"

    def after_turn(self, me: int, first: int, declared: bool, piles: list[list[str]]) -> bool:
        """Record what the turn just played triggered; True when the game is over."""
        if self.triggered:
            return True  # that was the final turn
        if declared:
            self.triggered = True
            self.declared_by = me
            self.end = "declared"
        elif sum(1 for p in piles if not p) >= 2:
            self.end = "depleted"
            if me != first:
                return True  # the second player's turn ends the game at once
            self.triggered = True
        return False


def _turns_type_first(rng: random.Random, first: int, piles: list[list[str]], terr: list[list[str]],
                      discard: list[str]) -> _Played:
    """The turns under ``policy="type-first"``: the kind of action first, then its details."""
    choice = rng.choice
    decisions = 0
    river_cards = 30  # revealed + face-down cards left in the River

    reserve = [2, 2]
    on_swap = [0, 0]
    on_discard = [0, 0]
    decree_owner = -1

    ending = _Ending()
    turns = 0
    history: list[tuple[int, str]] = []
    current = first

    while True:
        me = current
        mine = terr[me]
        shown = [i for i in range(5) if piles[i]]
        swap_free = reserve[me] > 0 and on_swap[0] + on_swap[1] < SWAP_SPOTS
        discard_free = reserve[me] > 0 and on_discard[0] + on_discard[1] < DISCARD_SPOTS

        options: list[str] = []
        if shown:
            if swap_free:
                options.append(SWAP_FIRST)
            # Before the Develop, Discard-2 also needs more than 2 River cards in total.
            if discard_free and len(shown) >= 2 and river_cards > 2:
                options.append(DISCARD_FIRST)
            options.append(DEVELOP)
        if reserve[me] > 0 and decree_owner < 0:
            options.append(DECREE)
        if on_swap[me] or on_discard[me]:
            options.append(RECALL)
        if not ending.triggered and len(shown) < 5:
            options.append(DECLARE)

        declared = False
        if options:
            action = choice(options)
            decisions += 1
            history.append((me, action))
            if action == DEVELOP or action == SWAP_FIRST or action == DISCARD_FIRST:
                bonus_done = False
                if action != DEVELOP:
                    # Bonus action first (§4.2), then the Develop.
                    if action == SWAP_FIRST:
                        moves = [(RIVER_SWAP, a, b) for a, b in PILE_PAIRS if piles[a] and piles[b]]
                        moves.extend(TERRITORY_SWAPS)
                        on_swap[me] += 1
                    else:
                        moves = [(DISCARD, a, b) for a, b in PILE_PAIRS if piles[a] and piles[b]]
                        on_discard[me] += 1
                    reserve[me] -= 1
                    kind, a, b = choice(moves)
                    decisions += 1
                    if kind == TERRITORY_SWAP:
                        mine[a], mine[b] = mine[b], mine[a]
                    elif kind == RIVER_SWAP:
                        pa, pb = piles[a], piles[b]
                        pa[-1], pb[-1] = pb[-1], pa[-1]
                    else:
                        discard.append(piles[a].pop())
                        discard.append(piles[b].pop())
                        river_cards -= 2
                    bonus_done = True

                # Develop (§4.1): the pile's next card is revealed right after.
                pile, row = choice([t for t in DEVELOP_TARGETS if piles[t[0]]])
                decisions += 1
                cell = pile + row
                discard.append(mine[cell])
                mine[cell] = piles[pile].pop()
                river_cards -= 1

                if not bonus_done and reserve[me] > 0:
                    after = [NO_BONUS]
                    if on_swap[0] + on_swap[1] < SWAP_SPOTS:
                        after.append(SWAP)
                    pairs = [(a, b) for a, b in PILE_PAIRS if piles[a] and piles[b]]
                    if pairs and on_discard[0] + on_discard[1] < DISCARD_SPOTS:
                        after.append(DISCARD)
                    if len(after) > 1:
                        bonus = choice(after)
                        decisions += 1
                        if bonus == SWAP:
                            moves = [(RIVER_SWAP, a, b) for a, b in pairs]
                            moves.extend(TERRITORY_SWAPS)
                            kind, a, b = choice(moves)
                            decisions += 1
                            reserve[me] -= 1
                            on_swap[me] += 1
                            if kind == TERRITORY_SWAP:
                                mine[a], mine[b] = mine[b], mine[a]
                            else:
                                pa, pb = piles[a], piles[b]
                                pa[-1], pb[-1] = pb[-1], pa[-1]
                        elif bonus == DISCARD:
                            a, b = choice(pairs)
                            decisions += 1
                            reserve[me] -= 1
                            on_discard[me] += 1
                            discard.append(piles[a].pop())
                            discard.append(piles[b].pop())
                            river_cards -= 2
            elif action == DECREE:
                cell = choice(DECREE_CELLS)
                decisions += 1
                theirs = terr[1 - me]
                mine[cell], theirs[cell] = theirs[cell], mine[cell]
                reserve[me] -= 1
                decree_owner = me  # this Emissary never returns
            elif action == RECALL:
                reserve[me] += on_swap[me] + on_discard[me]
                on_swap[me] = on_discard[me] = 0
            else:  # DECLARE
                declared = True
        else:
            history.append((me, "pass"))
        turns += 1

        if ending.after_turn(me, first, declared, piles):
            break
        current = 1 - me

    return _Played(turns, decisions, history, ending.end, ending.declared_by, reserve, on_swap, on_discard,
                   decree_owner)


def _turns_engine(rng: random.Random, first: int, piles: list[list[str]], terr: list[list[str]],
                  discard: list[str]) -> _Played:
    """The turns under ``policy="engine"``: every complete action at once, as the rules file offers.

    Each decision is the list of legal complete actions that games/naishi.rules offers at
    the same point (see the module docstring), and ``rng.choice`` picks one.
    """
    choice = rng.choice
    decisions = 0
    river_cards = 30  # revealed + face-down cards left in the River

    reserve = [2, 2]
    on_swap = [0, 0]
    on_discard = [0, 0]
    decree_owner = -1

    ending = _Ending()
    turns = 0
    history: list[tuple[int, str]] = []
    current = first

    while True:
        me = current
        mine = terr[me]
        shown = [i for i in range(5) if piles[i]]

        # The turn's main decision: every Develop target, the two bonuses taken first,
        # every Decree cell, Recall and Declare, in one list (the rules' `choose`).
        options = [t for t in MAIN_DEVELOPS if piles[t[1]]]
        if reserve[me] > 0:
            if shown and on_swap[0] + on_swap[1] < SWAP_SPOTS:
                options.append(MAIN_SWAP_FIRST)
            # Before the Develop, Discard-2 also needs more than 2 River cards in total.
            if len(shown) >= 2 and river_cards > 2 and on_discard[0] + on_discard[1] < DISCARD_SPOTS:
                options.append(MAIN_DISCARD_FIRST)
            if decree_owner < 0:
                options.extend(MAIN_DECREES)
        if on_swap[me] or on_discard[me]:
            options.append(MAIN_RECALL)
        if not ending.triggered and len(shown) < 5:
            options.append(MAIN_DECLARE)

        declared = False
        if options:
            action, a, b = choice(options)
            decisions += 1
            history.append((me, action))
            if action == DEVELOP:
                # Develop (§4.1): the pile's next card is revealed right after.
                cell = a + b
                discard.append(mine[cell])
                mine[cell] = piles[a].pop()
                river_cards -= 1
                # The bonus offer, when an Emissary could still be placed (§4.2).
                if reserve[me] > 0:
                    offer = []
                    if on_swap[0] + on_swap[1] < SWAP_SPOTS:
                        offer.append(SWAP)
                    pairs = [(x, y) for x, y in PILE_PAIRS if piles[x] and piles[y]]
                    if pairs and on_discard[0] + on_discard[1] < DISCARD_SPOTS:
                        offer.append(DISCARD)
                    if offer:
                        offer.append(NO_BONUS)
                        bonus = choice(offer)
                        decisions += 1
                        if bonus == SWAP:
                            reserve[me] -= 1
                            on_swap[me] += 1
                            moves = [(RIVER_SWAP, x, y) for x, y in pairs]
                            moves.extend(TERRITORY_SWAPS)
                            kind, x, y = choice(moves)
                            decisions += 1
                            if kind == TERRITORY_SWAP:
                                mine[x], mine[y] = mine[y], mine[x]
                            else:
                                px, py = piles[x], piles[y]
                                px[-1], py[-1] = py[-1], px[-1]
                        elif bonus == DISCARD:
                            reserve[me] -= 1
                            on_discard[me] += 1
                            x, y = choice(pairs)
                            decisions += 1
                            discard.append(piles[x].pop())
                            discard.append(piles[y].pop())
                            river_cards -= 2
            elif action == SWAP_FIRST or action == DISCARD_FIRST:
                # A bonus first (§4.2): its concrete move, then a Develop is forced.
                reserve[me] -= 1
                pairs = [(x, y) for x, y in PILE_PAIRS if piles[x] and piles[y]]
                if action == SWAP_FIRST:
                    on_swap[me] += 1
                    moves = [(RIVER_SWAP, x, y) for x, y in pairs]
                    moves.extend(TERRITORY_SWAPS)
                    kind, x, y = choice(moves)
                    decisions += 1
                    if kind == TERRITORY_SWAP:
                        mine[x], mine[y] = mine[y], mine[x]
                    else:
                        px, py = piles[x], piles[y]
                        px[-1], py[-1] = py[-1], px[-1]
                else:
                    on_discard[me] += 1
                    x, y = choice(pairs)
                    decisions += 1
                    discard.append(piles[x].pop())
                    discard.append(piles[y].pop())
                    river_cards -= 2
                pile, row = choice([t for t in DEVELOP_TARGETS if piles[t[0]]])
                decisions += 1
                cell = pile + row
                discard.append(mine[cell])
                mine[cell] = piles[pile].pop()
                river_cards -= 1
            elif action == DECREE:
                theirs = terr[1 - me]
                mine[a], theirs[a] = theirs[a], mine[a]
                reserve[me] -= 1
                decree_owner = me  # this Emissary never returns
            elif action == RECALL:
                reserve[me] += on_swap[me] + on_discard[me]
                on_swap[me] = on_discard[me] = 0
            else:  # DECLARE
                declared = True
        else:
            history.append((me, "pass"))
        turns += 1

        if ending.after_turn(me, first, declared, piles):
            break
        current = 1 - me

    return _Played(turns, decisions, history, ending.end, ending.declared_by, reserve, on_swap, on_discard,
                   decree_owner)


def _reveal(rng: random.Random, terr: list[list[str]], order: tuple[int, int],
            ninja_choice: str) -> tuple[list[dict[int, str | None]], int]:
    """Every Ninja's copy at the final reveal (§5, §6.3), seats in ``order``; and the draws made."""
    copies: list[dict[int, str | None]] = [{}, {}]
    decisions = 0
    for seat in order:
        cells = terr[seat]
        if ninja_choice == "best":
            copies[seat] = resolve_copies(cells[:5], cells[5:])
            continue
        targets = copy_targets(cells)
        chosen: dict[int, str | None] = {}
        for c, card in enumerate(cells):
            if card == NINJA:
                if len(targets) > 1:
                    chosen[c] = rng.choice(targets)
                    decisions += 1
                else:
                    chosen[c] = targets[0] if targets else None
        copies[seat] = chosen
    return copies, decisions


def play_game(rng: random.Random, ninja_choice: str = "random", policy: str = TYPE_FIRST) -> GameResult:
    """Play one whole uniformly random base game of Naishi under the random ``policy``."""
    if ninja_choice not in ("random", "best"):
        raise ValueError(f"ninja_choice must be 'random' or 'best', not {ninja_choice!r}")
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(map(repr, POLICIES))}, not {policy!r}")
    choice = rng.choice
    decisions = 0

    # Setup (§3).
    first = rng.randrange(2)
    deck = list(DEVELOPMENT_DECK)
    rng.shuffle(deck)
    dealt = [deck[0:2], deck[2:4]]
    piles = [deck[4 + 6 * i : 10 + 6 * i] for i in range(5)]
    discard: list[str] = []

    # Gift: both choose (first player's draw first), then both gifts are handed over.
    gives = [0, 0]
    for seat in (first, 1 - first):
        gives[seat] = choice((0, 1))
        decisions += 1
    terr: list[list[str]] = []
    for seat in (0, 1):
        kept = dealt[seat][1 - gives[seat]]
        received = dealt[1 - seat][gives[1 - seat]]
        hand = [kept, received, MOUNTAIN, MOUNTAIN, MOUNTAIN]
        rng.shuffle(hand)
        terr.append([MOUNTAIN] * 5 + hand)

    if policy == TYPE_FIRST:
        played = _turns_type_first(rng, first, piles, terr, discard)
        copies, drawn = _reveal(rng, terr, (0, 1), ninja_choice)
    else:
        played = _turns_engine(rng, first, piles, terr, discard)
        copies, drawn = _reveal(rng, terr, (first, 1 - first), ninja_choice)
    decisions += played.decisions + drawn

    breakdowns = []
    cols = []
    for seat in (0, 1):
        cells = terr[seat]
        eff = _effective(cells, copies[seat])
        breakdowns.append(_score_effective(eff, len(RONIN_TYPES.intersection(cells))))
        cols.append(_colours_effective(eff))
    totals = (breakdowns[0]["total"], breakdowns[1]["total"])
    if totals[0] != totals[1]:
        winner: int | None = 0 if totals[0] > totals[1] else 1
    elif cols[0] != cols[1]:
        winner = 0 if cols[0] > cols[1] else 1
    else:
        winner = None
    return GameResult(
        totals=totals,
        colours=(cols[0], cols[1]),
        winner=winner,
        first=first,
        territories=terr,
        river=piles,
        discard=discard,
        ninja_copies=copies,
        breakdowns=breakdowns,
        turns=played.turns,
        decisions=decisions,
        history=played.history,
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
    """Play one uniformly random game under ``policy`` and return the totals of seats 0 and 1."""
    return play_game(rng, policy=policy).totals


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
