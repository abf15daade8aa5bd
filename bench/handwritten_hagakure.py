"""Hand-written pure-Python Hagakure, the speed baseline for the rules engine.

Sources: /work/shared/rulebooks/hagakure.txt and the rulings in
/work/shared/rulings/hagakure.md (the rulings win where they are precise).

Decisions are the ones games/hagakure.rules offers, with the same number of legal
options each, so both play the same distribution of games: each seat's preparation
(pass or one of its unused Nobori), the Nobori 5 target (the Yomi or another seat), and
every card played, a forced one included. Every decision is one draw
(``rng.choice`` over the legal list, or ``rng.randrange`` over its length).

Public card encoding (``legal_cards``, ``trick_winner``, ``build_deck``, the Nobori 5
snapshots): Villagers are 1..17, Samurai 18..27, every Old Fool is 0 (they have no
number and count as Samurai with value 0).

Inside a game, to keep the per-decision work small, a card is an id chosen so that
the red cards sort first: ids 0..2 are the Old Fools, 3..12 Samurai 18..27, 13..29
Villagers 1..17 (``VALUE`` maps an id to its number). A hand is a sorted list, so after
a red lead the legal cards are the hand's first ``bisect_left(hand, 13)`` cards: the draw
is an index into the hand itself, the legal list is never built.
"""

from __future__ import annotations

import argparse
import random
import time
from bisect import bisect_left
from dataclasses import dataclass, field

OLD_FOOL = 0
SAMURAI_18 = 18
YOMI = -1  # Nobori 5 target meaning "look at the Yomi" rather than a seat.
NOBORI_TOKENS = (1, 2, 3, 4, 5)
PASS = 0  # the preparation's "no Nobori" option


@dataclass(frozen=True)
class Setup:
    """Per-player-count components (rulings table)."""

    villagers: range
    samurai: range
    hand_size: int
    yomi_size: int
    rounds: int
    nobori3_villagers: int


SETUPS: dict[int, Setup] = {
    3: Setup(range(6, 18), range(18, 23), 5, 5, 9, 4),
    4: Setup(range(6, 18), range(18, 23), 4, 4, 8, 4),
    5: Setup(range(1, 18), range(18, 28), 5, 5, 5, 5),
}


@dataclass
class GameResult:
    """Outcome of one game, with enough detail for tests."""

    scores: list[int]
    rounds_played: int
    nobori_played: list[list[int]]
    seen: list[list[tuple[int, int, tuple[int, ...]]]] = field(default_factory=list)
    decisions: int = 0  # every decision taken, forced ones included (as the engine counts)


# --- internal card ids ----------------------------------------------------------------------

FIRST_VILLAGER_ID = 13  # ids below are red (Old Fools and Samurai)
ID_18 = 3  # Samurai 18
VALUE: tuple[int, ...] = (0, 0, 0, *range(18, 28), *range(1, 18))  # id -> number (Old Fool 0)


def _card_id(value: int) -> int:
    """Id of a Samurai or Villager number (not of an Old Fool: they have three ids)."""
    return value - 15 if value >= SAMURAI_18 else value + 12


def _id_deck(players: int) -> tuple[int, ...]:
    """The ids of the cards in play for ``players``."""
    setup = SETUPS[players]
    return (0, 1, 2, *(_card_id(v) for v in setup.samurai), *(_card_id(v) for v in setup.villagers))


ID_DECKS: dict[int, tuple[int, ...]] = {p: _id_deck(p) for p in SETUPS}
# Seats in play order from each first seat, the seats after each leader, and each seat's Nobori 5 targets.
ORDERS: dict[int, tuple[tuple[int, ...], ...]] = {
    p: tuple(tuple((first + k) % p for k in range(p)) for first in range(p)) for p in SETUPS
}
FOLLOWERS: dict[int, tuple[tuple[int, ...], ...]] = {p: tuple(order[1:] for order in ORDERS[p]) for p in SETUPS}
TARGETS: dict[int, tuple[tuple[int, ...], ...]] = {
    p: tuple((YOMI, *((seat + k) % p for k in range(1, p))) for seat in range(p)) for p in SETUPS
}


# --- rules, in the public encoding ------------------------------------------------------------


def build_deck(players: int) -> list[int]:
    """Return the unshuffled cards in play for ``players`` (3 Old Fools as 0)."""
    return [VALUE[i] for i in ID_DECKS[players]]


def is_samurai(card: int) -> bool:
    """Samurai or Old Fool (Old Fools count as Samurai for every rule)."""
    return card == OLD_FOOL or card >= SAMURAI_18


def is_villager(card: int) -> bool:
    """Villager card (1..17); Old Fools are not Villagers."""
    return OLD_FOOL < card < SAMURAI_18


def legal_cards(hand: list[int], lead: int | None) -> list[int]:
    """Cards of ``hand`` playable on a trick led by ``lead`` (None = leading)."""
    if lead is not None and is_samurai(lead):
        samurai = [c for c in hand if is_samurai(c)]
        if samurai:
            return samurai
    return list(hand)


def trick_winner(trick: list[int]) -> int:
    """Index (in play order) of the card winning ``trick``.

    Two or more Old Fools: the last Old Fool played wins. Otherwise the highest
    number wins, a lone Old Fool counting 0.
    """
    if trick.count(OLD_FOOL) >= 2:
        return len(trick) - 1 - trick[::-1].index(OLD_FOOL)
    return max(range(len(trick)), key=trick.__getitem__)


def round_score(tricks: int, has_18: bool, villagers: int, nobori: int | None, players: int) -> int:
    """Score of one player for one round (``nobori`` None or 0: no Nobori raised).

    base = tricks + 1 if #18 was won, or -2 with no trick. Nobori 1 doubles it,
    Nobori 2 makes it 0, Nobori 3 adds 2 with enough Villagers won. A player
    plays at most ONE Nobori per round, so the tokens never combine (e.g. the
    order of Nobori 1's doubling and Nobori 3's +2 never matters).
    """
    base = tricks + (1 if has_18 else 0) if tricks else -2
    if nobori == 1:
        return base * 2
    if nobori == 2:
        return 0
    if nobori == 3 and villagers >= SETUPS[players].nobori3_villagers:
        return base + 2
    return base


# --- play -------------------------------------------------------------------------------------


def _play_round(players: int, first: int, deck: list[int], options: list[list[int]], rng: random.Random,
                seen: list[list[tuple[int, int, tuple[int, ...]]]], round_no: int,
                nobori_played: list[list[int]]) -> tuple[list[int], list[int]]:
    """One round on internal ids; return (round scores, tricks won) per seat.

    ``deck`` (every card id of the game) is shuffled in place; ``options[seat]`` is the
    seat's preparation list, ``PASS`` then its unused Nobori, and loses the one raised.
    """
    choice = rng.choice
    randrange = rng.randrange
    rng.shuffle(deck)
    size = SETUPS[players].hand_size
    hands = [sorted(deck[i * size:(i + 1) * size]) for i in range(players)]
    yomi = deck[players * size:]
    order = ORDERS[players][first]
    followers = FOLLOWERS[players]

    # Step 1: preparation, one optional Nobori each; 4 and 5 act at once.
    active = [PASS] * players
    for seat in order:
        opts = options[seat]
        token = choice(opts)
        if token:
            opts.remove(token)
            active[seat] = token
            nobori_played[seat].append(token)
            if token == 4:
                yomi.sort()
                hands[seat], yomi = yomi, hands[seat]
            elif token == 5:
                target = choice(TARGETS[players][seat])
                cards = yomi if target == YOMI else hands[target]
                seen[seat].append((round_no, target, tuple(VALUE[c] for c in cards)))

    # Step 2: the fight. The winner is followed card by card: the last Old Fool when two or
    # more are played, else the highest number.
    tricks = [0] * players
    has_18 = [False] * players
    villagers = [0] * players
    leader = first
    for _ in range(size):
        hand = hands[leader]
        card = hand.pop(randrange(len(hand)))
        red_lead = card < FIRST_VILLAGER_ID
        best_value = VALUE[card]
        best = leader
        fools = 1 if card < ID_18 else 0
        last_fool = leader
        won_villagers = 0 if red_lead else 1
        won_18 = card == ID_18
        for seat in followers[leader]:
            hand = hands[seat]
            if red_lead and hand[0] < FIRST_VILLAGER_ID:
                card = hand.pop(randrange(bisect_left(hand, FIRST_VILLAGER_ID)))
            else:
                card = hand.pop(randrange(len(hand)))
            if card < ID_18:
                fools += 1
                last_fool = seat
            elif card >= FIRST_VILLAGER_ID:
                won_villagers += 1
            elif card == ID_18:
                won_18 = True
            value = VALUE[card]
            if value > best_value:
                best_value = value
                best = seat
        winner = last_fool if fools >= 2 else best
        tricks[winner] += 1
        villagers[winner] += won_villagers
        if won_18:
            has_18[winner] = True
        leader = winner

    # Step 3: scoring.
    scores = [round_score(tricks[s], has_18[s], villagers[s], active[s], players) for s in range(players)]
    return scores, tricks


def play_round(
    players: int,
    dealer: int,
    unused: list[set[int]],
    rng: random.Random,
    seen: list[list[tuple[int, int, tuple[int, ...]]]],
    round_no: int,
    nobori_played: list[list[int]],
) -> tuple[list[int], list[int]]:
    """Play one full round; return (round scores, tricks won) per seat.

    ``unused`` (tokens still available per seat) is updated in place, as are
    ``seen`` (Nobori 5 snapshots) and ``nobori_played``.
    """
    options = [[PASS, *sorted(tokens)] for tokens in unused]
    out = _play_round(players, (dealer + 1) % players, list(ID_DECKS[players]), options, rng, seen, round_no,
                      nobori_played)
    for tokens, opts in zip(unused, options):
        tokens.intersection_update(opts)
    return out


def play_game(players: int, rng: random.Random) -> GameResult:
    """Play a whole random game, including tie-break rounds."""
    if players not in SETUPS:
        raise ValueError(f"Hagakure is for 3 to 5 players, not {players}")
    setup = SETUPS[players]
    totals = [0] * players
    options = [[PASS, *NOBORI_TOKENS] for _ in range(players)]
    seen: list[list[tuple[int, int, tuple[int, ...]]]] = [[] for _ in range(players)]
    nobori_played: list[list[int]] = [[] for _ in range(players)]
    deck = list(ID_DECKS[players])  # every card returns to the deck: one list, reshuffled each round
    dealer = rng.randrange(players)
    rounds = 0
    while True:
        scores, _ = _play_round(players, (dealer + 1) % players, deck, options, rng, seen, rounds, nobori_played)
        for seat in range(players):
            totals[seat] += scores[seat]
        rounds += 1
        dealer = (dealer + 1) % players
        if rounds >= setup.rounds and totals.count(max(totals)) == 1:
            # Per round: a preparation and hand_size cards per seat, and a target per Nobori 5.
            decisions = rounds * players * (1 + setup.hand_size) + sum(p.count(5) for p in nobori_played)
            return GameResult(totals, rounds, nobori_played, seen, decisions)


def play_random_game(players: int, rng: random.Random) -> list[int]:
    """Play one uniformly random game and return the final score of each seat."""
    return play_game(players, rng).scores


def main() -> None:
    """Benchmark entry point: print games per second."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=5, choices=sorted(SETUPS))
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    start = time.perf_counter()
    for _ in range(args.games):
        play_random_game(args.players, rng)
    elapsed = time.perf_counter() - start
    print(
        f"hagakure handwritten: {args.players} players, {args.games} games "
        f"in {elapsed:.3f}s = {args.games / elapsed:.1f} games/s"
    )


if __name__ == "__main__":
    main()
