"""Hand-written pure-Python Hagakure, the speed baseline for the rules engine.

Every decision (Nobori token or pass, Nobori 5 target, card to play) is drawn
uniformly at random from the list of legal options, which is recomputed at
each decision exactly as an engine would.

Sources: /work/shared/rulebooks/hagakure.txt and the rulings in
/work/shared/rulings/hagakure.md (the rulings win where they are precise).

Card encoding: Villagers are 1..17, Samurai 18..27, every Old Fool is 0
(they have no number and count as Samurai with value 0).
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import dataclass, field

OLD_FOOL = 0
SAMURAI_18 = 18
YOMI = -1  # Nobori 5 target meaning "look at the Yomi" rather than a seat.
NOBORI_TOKENS = (1, 2, 3, 4, 5)


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


def build_deck(players: int) -> list[int]:
    """Return the unshuffled cards in play for ``players`` (3 Old Fools as 0)."""
    setup = SETUPS[players]
    return [*setup.villagers, *setup.samurai, OLD_FOOL, OLD_FOOL, OLD_FOOL]


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


def round_score(
    tricks: int,
    has_18: bool,
    villagers: int,
    nobori: int | None,
    players: int,
) -> int:
    """Score of one player for one round.

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
    setup = SETUPS[players]
    deck = build_deck(players)
    rng.shuffle(deck)
    size = setup.hand_size
    hands = [deck[i * size : (i + 1) * size] for i in range(players)]
    yomi = deck[players * size :]
    first = (dealer + 1) % players
    order = [(first + k) % players for k in range(players)]

    # Step 1: preparation, one optional token each, 4 and 5 act immediately.
    active: list[int | None] = [None] * players
    for seat in order:
        options: list[int | None] = [None, *sorted(unused[seat])]
        token = rng.choice(options)
        if token is None:
            continue
        unused[seat].discard(token)
        active[seat] = token
        nobori_played[seat].append(token)
        if token == 4:
            hands[seat], yomi = yomi, hands[seat]
        elif token == 5:
            targets = [YOMI, *(s for s in order if s != seat)]
            target = rng.choice(targets)
            cards = yomi if target == YOMI else hands[target]
            seen[seat].append((round_no, target, tuple(cards)))

    # Step 2: the fight.
    tricks = [0] * players
    has_18 = [False] * players
    villagers = [0] * players
    leader = first
    for _ in range(size):
        trick: list[int] = []
        seats: list[int] = []
        lead: int | None = None
        for k in range(players):
            seat = (leader + k) % players
            hand = hands[seat]
            card = rng.choice(legal_cards(hand, lead))
            hand.remove(card)
            if lead is None:
                lead = card
            trick.append(card)
            seats.append(seat)
        winner = seats[trick_winner(trick)]
        tricks[winner] += 1
        villagers[winner] += sum(1 for c in trick if is_villager(c))
        if SAMURAI_18 in trick:
            has_18[winner] = True
        leader = winner

    # Step 3: scoring.
    scores = [
        round_score(tricks[s], has_18[s], villagers[s], active[s], players)
        for s in range(players)
    ]
    return scores, tricks


def play_game(players: int, rng: random.Random) -> GameResult:
    """Play a whole random game, including tie-break rounds."""
    if players not in SETUPS:
        raise ValueError(f"Hagakure is for 3 to 5 players, not {players}")
    totals = [0] * players
    unused = [set(NOBORI_TOKENS) for _ in range(players)]
    seen: list[list[tuple[int, int, tuple[int, ...]]]] = [[] for _ in range(players)]
    nobori_played: list[list[int]] = [[] for _ in range(players)]
    dealer = rng.randrange(players)
    rounds = 0
    while True:
        scores, _ = play_round(
            players, dealer, unused, rng, seen, rounds, nobori_played
        )
        totals = [t + s for t, s in zip(totals, scores)]
        rounds += 1
        dealer = (dealer + 1) % players
        if rounds >= SETUPS[players].rounds and totals.count(max(totals)) == 1:
            return GameResult(totals, rounds, nobori_played, seen)


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
