"""Hagakure (games/hagakure.rules) checked against the rulebook and the rulings, by hand.

Every expected value here was computed by hand from /work/shared/rulebooks/hagakure.txt and
/work/shared/rulings/hagakure.md (the rulings win); the comments show the arithmetic.
Seats are 0-based in the API and P1..Pn in labels and logs.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from seeded import decisions

import ruleforge
from ruleforge import Game, GameError
from ruleforge.testing import examples_of

RULES_PATH = Path(__file__).parents[1] / "games" / "hagakure.rules"
RULES = ruleforge.load(RULES_PATH)

ROUNDS = {3: 9, 4: 8, 5: 5}
HAND = {3: 5, 4: 4, 5: 5}
RAISE = ["raise Nobori 1", "raise Nobori 2", "raise Nobori 3", "raise Nobori 4", "raise Nobori 5"]


# --- helpers ------------------------------------------------------------------------------


def labels(game: Game, zone: str, owner: int | None = None) -> list[str]:
    """The labels of a zone's components, bottom first."""
    return [game.program.comp_label[c] for c in game.state.z[game.zone_index(zone, owner)]]


def cards(game: Game) -> list[int]:
    return [c for c, kind in enumerate(game.program.comp_kind) if kind == "Card"]


def clear_cards(game: Game) -> None:
    """Every card to the deck, so that a position can be built from nothing."""
    for c in cards(game):
        game.put(c, "deck")


def place(game: Game, label: str, zone: str, owner: int | None = None) -> int:
    """Move a card with this label *from the deck* (never from a zone already built)."""
    deck = game.zone_index("deck")
    for c in game.find(label):
        if game.state.w[c] == deck:
            return game.put(c, zone, owner)
    raise AssertionError(f"no '{label}' left in the deck")


def build_trick(game: Game, plays: list[tuple[int, str]]) -> list[int]:
    """Put the cards of a trick in play order, each marked with the seat that played it."""
    clear_cards(game)
    ids = []
    for seat, label in plays:
        c = place(game, label, "trick")
        game.set_prop(c, "by", seat)
        ids.append(c)
    return ids


def nobori_of(game: Game, seat: int, power: int) -> int:
    """The id of seat's Nobori token `power` (tokens start in their owner's banners)."""
    start = game.zone_index("banners", seat)
    for c, zi in enumerate(game.program.comp_start):
        if zi == start and game.program.comp_label[c] == f"Nobori {power}":
            return c
    raise AssertionError(f"seat {seat} has no Nobori {power}")


def end_of_round(players: int, seats: list[tuple[list[str], int, int | None]]) -> Game:
    """A hand-built end of round: per seat (cards of the tricks won, tricks won, Nobori raised).

    The other cards go to the Yomi (hands are empty at the end of a round)."""
    game = RULES.new_game(players=players, seed=0)
    clear_cards(game)
    for seat, (won, tricks, power) in enumerate(seats):
        for label in won:
            place(game, label, "won", seat)
        game.set_var("tricks", tricks, owner=seat)
        if power is not None:
            game.put(nobori_of(game, seat, power), "raised", seat)
    for c in list(game.state.z[game.zone_index("deck")]):
        game.put(c, "yomi")
    return game


def pass_preparation(game: Game) -> int:
    """Everybody passes the preparation; returns the first player (leader of trick 1)."""
    for _ in range(game.players):
        game.apply("pass")
    return game.current_player


def deal_hands(game: Game, leader: int, hands: list[list[str]]) -> None:
    """Give the seats, starting from `leader` clockwise, these hands; the rest is the Yomi."""
    clear_cards(game)
    n = game.players
    for offset, hand in enumerate(hands):
        for label in hand:
            place(game, label, "hand", (leader + offset) % n)
    for c in list(game.state.z[game.zone_index("deck")]):
        game.put(c, "yomi")


def play_random(players: int, seed: int) -> Game:
    """A whole game, each decision a seeded random choice among the legal actions."""
    game = RULES.new_game(players=players, seed=seed)
    rng = random.Random(seed)
    for _ in decisions(game, seed):
        game.apply(rng.choice(game.legal_actions()))
    return game


def score_entries(game: Game) -> list[tuple[int, ...]]:
    return [tuple(e[2]) for e in game.state.log if e[0] == "score"]


def totals_after(game: Game, rounds: int) -> list[int]:
    entries = score_entries(game)[:rounds]
    return [sum(e[p] for e in entries) for p in range(game.players)]


def top_tied(totals: list[int]) -> bool:
    return totals.count(max(totals)) > 1


# An independent reading of the rulebook, used to check logs line by line.
def is_red(label: str) -> bool:
    return label == "Old Fool" or int(label) >= 18


def oracle_trick_winner(plays: list[tuple[int, str]]) -> int:
    """Two or more Old Fools: the last one wins; else the highest number (a lone Old Fool is 0)."""
    fools = [seat for seat, label in plays if label == "Old Fool"]
    if len(fools) >= 2:
        return fools[-1]
    return max(plays, key=lambda p: 0 if p[1] == "Old Fool" else int(p[1]))[0]


def oracle_round_score(tricks: int, won: list[str], power: int | None, players: int) -> int:
    base = tricks + ("18" in won) if tricks else -2
    if power == 1:
        return 2 * base
    if power == 2:
        return 0
    villagers = sum(1 for label in won if label != "Old Fool" and int(label) <= 17)
    if power == 3 and villagers >= (5 if players == 5 else 4):
        return base + 2
    return base


# --- worked checks of the rulings page -------------------------------------------------------


def test_worked_trick_villager_lead() -> None:
    # 7, 12, Old Fool, 3: one Old Fool counts 0, the highest is 12, played by seat 1.
    game = RULES.new_game(players=5, seed=1)
    build_trick(game, [(0, "7"), (1, "12"), (2, "Old Fool"), (3, "3")])
    assert game.evaluate("trick_winner") == 1


def test_worked_trick_samurai_lead_second_old_fool_wins() -> None:
    # 19, Old Fool, 25, Old Fool: two Old Fools, the last one played (seat 3) wins over 25.
    game = RULES.new_game(players=5, seed=1)
    build_trick(game, [(0, "19"), (1, "Old Fool"), (2, "25"), (3, "Old Fool")])
    assert game.evaluate("trick_winner") == 3
    # Same trick, seats in another order: it is the *last* Old Fool, not a seat, that wins.
    build_trick(game, [(4, "19"), (2, "Old Fool"), (0, "25"), (1, "Old Fool")])
    assert game.evaluate("trick_winner") == 1


def test_two_old_fools_beat_samurai_27() -> None:
    game = RULES.new_game(players=5, seed=1)
    build_trick(game, [(0, "Old Fool"), (1, "27"), (2, "Old Fool"), (3, "26"), (4, "17")])
    assert game.evaluate("trick_winner") == 2


def test_worked_trick_old_fool_lead_18_wins() -> None:
    # Old Fool lead; the next player holds no Samurai so may play 5; 18 wins (lone Old Fool = 0).
    game = RULES.new_game(players=5, seed=1)
    build_trick(game, [(0, "Old Fool")])
    five = place(game, "5", "hand", 1)
    for label in ["1", "2", "6", "9"]:
        place(game, label, "hand", 1)
    assert game.evaluate("may_play(c, p)", c=five, p=1) is True
    build_trick(game, [(0, "Old Fool"), (1, "5"), (2, "18")])
    assert game.evaluate("trick_winner") == 2


def test_worked_trick_old_fool_lead_played_out_and_scored() -> None:
    """The same trick driven through the engine, and the round played to its scoring.

    Seats from the leader: A OF 19 20 21 27 | B 5 1 2 3 4 | C 18 23 24 25 26 | D 6-10 | E 11-15.
    T1 A OF, B 5 (no red: free), C 18 (must be red), D 6, E 11 -> C (18; lone OF = 0).
    T2-T4 C leads 23/24/25, D E B discard villagers, A must follow red 19/20/21 -> C.
    T5 C leads 26, D 10, E 15, A 27, B 4 -> A.
    C: 4 tricks + #18 = 5; A: 1 trick = 1; B, D, E: no trick = -2.
    """
    game = RULES.new_game(players=5, seed=11)
    leader = pass_preparation(game)
    a, b, c, d, e = ((leader + k) % 5 for k in range(5))
    deal_hands(game, leader, [
        ["Old Fool", "19", "20", "21", "27"],
        ["5", "1", "2", "3", "4"],
        ["18", "23", "24", "25", "26"],
        ["6", "7", "8", "9", "10"],
        ["11", "12", "13", "14", "15"],
    ])
    start = len(game.state.log)
    game.apply("play Old Fool")
    assert sorted(game.legal_labels()) == ["play 1", "play 2", "play 3", "play 4", "play 5"]
    game.apply("play 5")
    assert game.current_player == c
    game.apply("play 18")
    game.apply("play 6")
    game.apply("play 11")
    assert game.log_lines(start)[-1] == f"P{c + 1} wins the trick"
    assert game.current_player == c
    # Mid-round: C has 1 trick holding #18 -> 1 + 1 = 2; everybody else has none -> -2.
    preview = game.preview_scoring("round_points")
    assert [row["total"] for row in preview][c] == 2
    assert preview[c]["card #18"] == 1
    assert all(preview[s]["total"] == -2 for s in (a, b, d, e))
    for lead, a_card, d_card, e_card, b_card in [("23", "19", "7", "12", "1"), ("24", "20", "8", "13", "2"),
                                               ("25", "21", "9", "14", "3")]:
        game.apply(f"play {lead}")
        game.apply(f"play {d_card}")
        game.apply(f"play {e_card}")
        # A holds only red cards after a red lead: all of them are legal.
        assert game.current_player == a
        game.apply(f"play {a_card}")
        game.apply(f"play {b_card}")
        assert game.log_lines(start)[-1] == f"P{c + 1} wins the trick"
    for label in ["26", "10", "15", "27", "4"]:
        game.apply(f"play {label}")
    winners = [line for line in game.log_lines(start) if line.endswith("wins the trick")]
    assert winners == [f"P{s + 1} wins the trick" for s in (c, c, c, c, a)]
    expected = [0] * 5
    expected[c], expected[a], expected[b], expected[d], expected[e] = 5, 1, -2, -2, -2
    assert score_entries(game)[0] == tuple(expected)
    assert [s["total"] for s in game.scores()] == expected


def test_worked_nobori_1() -> None:
    # Nobori 1, 2 tricks including #18: (2 + 1) x 2 = 6; Nobori 1 and no trick: -2 x 2 = -4.
    game = end_of_round(3, [
        (["18", "6", "7", "19", "8", "9"], 2, 1),
        ([], 0, 1),
        (["20", "10", "11", "21", "12", "13", "22", "14", "15"], 3, None),
    ])
    preview = game.preview_scoring("round_points")
    assert preview[0]["total"] == 6
    assert preview[1]["total"] == -4
    assert preview[2]["total"] == 3


def test_worked_nobori_2() -> None:
    # Nobori 2: 4 tricks -> 0 (and the #18 is cancelled too); no trick -> 0 (no -2).
    game = end_of_round(4, [
        (["6", "7", "8", "18", "9", "10", "11", "12", "13", "14", "15", "16", "17", "19", "20", "21"], 4, 2),
        ([], 0, 2),
        ([], 0, None),
        ([], 0, None),
    ])
    preview = game.preview_scoring("round_points")
    assert [row["total"] for row in preview] == [0, 0, -2, -2]


# --- the round scorings the game ships (games/hagakure.examples.json) against the oracle -----------
# The plugin runs each example against the engine; here each expected total, worked by hand,
# must also be what the independent oracle scores for the won cards, tricks and Nobori laid out.

SCORED_EXAMPLES = [e for e in examples_of(RULES) if e.scorings == ("round_points",) and e.expect]


def test_the_rulings_round_checks_are_shipped() -> None:
    names = {e.name for e in SCORED_EXAMPLES}
    assert {"#18 scores +1", "Nobori 1", "Nobori 2"} <= names and len(SCORED_EXAMPLES) >= 10


@pytest.mark.parametrize("example", SCORED_EXAMPLES, ids=str)
def test_round_example_agrees_with_the_oracle(example: Any) -> None:
    zones, variables = example.position["zones"], example.position.get("vars", {})
    players = example.position["players"]
    for seat, expected in example.expect.items():
        who = f"P{seat + 1}"
        raised = [label for label in zones.get(f"raised({who})", []) if label.startswith("Nobori ")]
        power = int(raised[0].split()[1]) if raised else None
        won = [label.split(" #")[0] for label in zones.get(f"won({who})", [])]
        assert oracle_round_score(variables.get(f"tricks({who})", 0), won, power, players) == expected["total"]


# --- the follow rule ---------------------------------------------------------------------------


def _may_play(game: Game, seat: int, hand: list[str], lead: str | None) -> list[str]:
    """The cards of `hand` that may_play allows for seat after `lead` (None: seat leads)."""
    build_trick(game, [] if lead is None else [((seat + 1) % game.players, lead)])
    ids = [place(game, label, "hand", seat) for label in hand]
    return sorted(game.program.comp_label[c] for c in ids if game.evaluate("may_play(c, p)", c=c, p=seat))


def test_follow_rule() -> None:
    game = RULES.new_game(players=5, seed=2)
    hand = ["7", "Old Fool", "20", "3"]
    assert _may_play(game, 0, hand, "19") == ["20", "Old Fool"]  # red lead, red held: must follow
    assert _may_play(game, 0, hand, "Old Fool") == ["20", "Old Fool"]  # an Old Fool lead is red
    assert _may_play(game, 0, hand, "9") == ["20", "3", "7", "Old Fool"]  # villager lead: free
    assert _may_play(game, 0, ["5", "9"], "18") == ["5", "9"]  # no red held: free
    assert _may_play(game, 0, ["5", "9"], "Old Fool") == ["5", "9"]
    assert _may_play(game, 0, hand, None) == ["20", "3", "7", "Old Fool"]  # the leader is free


def test_scripted_round_without_nobori() -> None:
    """Three players, nobody raises a Nobori; the follow rule seen in the legal actions.

    Seats from the leader: A 18 6 7 8 9 | B 19 10 11 12 13 | C OF OF 14 15 16.
    T1 A 18 (red): B must play 19, C must play an Old Fool -> B (19; lone OF = 0).
    T2 B 10 (villager): C is free, plays an Old Fool; A 6 -> B (10).
    T3 B 11, C 14, A 7 -> C.  T4 C 15, A 8, B 12 -> C.  T5 C 16, A 9, B 13 -> C.
    A: no trick -2; B: 2 tricks + #18 = 3; C: 3 tricks = 3.
    """
    game = RULES.new_game(players=3, seed=5)
    leader = pass_preparation(game)
    a, b, c = leader, (leader + 1) % 3, (leader + 2) % 3
    deal_hands(game, leader, [["18", "6", "7", "8", "9"], ["19", "10", "11", "12", "13"],
                              ["Old Fool", "Old Fool", "14", "15", "16"]])
    assert sorted(game.legal_labels()) == ["play 18", "play 6", "play 7", "play 8", "play 9"]
    game.apply("play 18")
    assert game.legal_labels() == ["play 19"]
    before = game.digest()
    with pytest.raises(GameError):
        game.apply("play 10")  # a villager while holding a Samurai after a red lead
    assert game.digest() == before
    game.apply("play 19")
    assert game.legal_labels() == ["play Old Fool", "play Old Fool #2"]
    game.apply("play Old Fool")
    assert game.current_player == b
    game.apply("play 10")
    assert sorted(game.legal_labels()) == ["play 14", "play 15", "play 16", "play Old Fool"]
    for label in ["Old Fool", "6", "11", "14", "7", "15", "8", "12", "16", "9", "13"]:
        game.apply(f"play {label}")
    winners = [line for line in game.log_lines() if line.endswith("wins the trick")]
    assert winners == [f"P{s + 1} wins the trick" for s in (b, b, c, c, c)]
    expected = [0, 0, 0]
    expected[a], expected[b], expected[c] = -2, 3, 3
    assert score_entries(game)[0] == tuple(expected)
    breakdown = game.scores()
    assert breakdown[b]["breakdown"]["card #18"] == 1 and breakdown[b]["breakdown"]["tricks won"] == 2
    assert breakdown[a]["breakdown"]["no trick"] == -2


# --- Nobori 3 thresholds --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "won", "bonus"),
    [
        (3, ["6", "7", "8", "9", "20", "21"], 2),  # 4 Villagers, 3 players: +2
        (3, ["6", "7", "8", "Old Fool", "20", "21"], 0),  # 3 Villagers + an Old Fool (not a Villager)
        (4, ["6", "7", "8", "9", "20", "21", "22", "19"], 2),  # 4 Villagers, 4 players: +2
        (4, ["6", "7", "8", "Old Fool", "Old Fool", "21", "22", "19"], 0),
        (5, ["1", "2", "3", "4", "20", "21", "22", "19", "23", "24"], 0),  # 4 are not enough with 5
        (5, ["1", "2", "3", "4", "5", "21", "22", "19", "23", "24"], 2),  # 5 Villagers: +2
        (5, ["1", "2", "3", "4", "Old Fool", "21", "22", "19", "23", "24"], 0),
    ],
)
def test_nobori_3_threshold(players: int, won: list[str], bonus: int) -> None:
    # Two tricks won: 2 points, plus the bonus when the Villagers reach the threshold.
    seats: list[tuple[list[str], int, int | None]] = [(won, 2, 3)] + [([], 0, None)] * (players - 1)
    preview = end_of_round(players, seats).preview_scoring("round_points")
    assert preview[0]["Nobori 3"] == bonus
    assert preview[0]["total"] == 2 + bonus


def test_nobori_3_without_a_trick_keeps_the_penalty() -> None:
    preview = end_of_round(3, [([], 0, 3), ([], 0, None), ([], 0, None)]).preview_scoring("round_points")
    assert preview[0]["total"] == -2


def test_round_without_nobori() -> None:
    # 3 tricks incl. #18 -> 4; 1 trick -> 1; 1 trick (no #18) -> 1; none -> -2 twice.
    game = end_of_round(5, [
        (["18", "1", "2", "3", "4", "19", "5", "6", "7", "8", "20", "9", "10", "11", "12"], 3, None),
        (["21", "13", "14", "15", "16"], 1, None),
        (["22", "17", "Old Fool", "23", "24"], 1, None),
        ([], 0, None),
        ([], 0, None),
    ])
    assert [row["total"] for row in game.preview_scoring("round_points")] == [4, 1, 1, -2, -2]


# --- components, deal, rounds, dealer -------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "numbers"),
    [(3, range(6, 23)), (4, range(6, 23)), (5, range(1, 28))],
)
def test_components_by_player_count(players: int, numbers: range) -> None:
    game = RULES.new_game(players=players, seed=0)
    card_labels = [game.program.comp_label[c] for c in cards(game)]
    assert Counter(card_labels) == Counter([str(n) for n in numbers] + ["Old Fool"] * 3)
    assert len(card_labels) == (30 if players == 5 else 20)
    for c in cards(game):
        label = game.program.comp_label[c]
        assert game.evaluate("red(c)", c=c) is is_red(label), label
        assert game.evaluate("c.suit == Villager", c=c) is (not is_red(label)), label
    for seat in range(players):
        assert labels(game, "banners", seat) == [f"Nobori {k}" for k in range(1, 6)]


@pytest.mark.parametrize("players", [3, 4, 5])
def test_deal_by_player_count(players: int) -> None:
    for seed in range(5):
        game = RULES.new_game(players=players, seed=seed)
        assert [len(labels(game, "hand", s)) for s in range(players)] == [HAND[players]] * players
        assert len(labels(game, "yomi")) == HAND[players]  # 5 / 4 / 5: what is left of 20 / 20 / 30
        assert labels(game, "deck") == [] and labels(game, "trick") == []
        # The first decision is the first player's preparation: left of the dealer.
        assert game.current_player == (game.evaluate("dealer") + 1) % players
        assert game.legal_labels() == RAISE + ["pass"]


@pytest.mark.parametrize("players", [3, 4, 5])
def test_number_of_rounds_without_tie(players: int) -> None:
    untied = 0
    for seed in range(40):
        game = play_random(players, seed)
        regular = totals_after(game, ROUNDS[players])
        played = len(score_entries(game))
        assert game.evaluate("rounds_played") == played
        if top_tied(regular):
            assert played > ROUNDS[players]
        else:
            untied += 1
            assert played == ROUNDS[players]
    assert untied >= 20


@pytest.mark.parametrize("players", [3, 4, 5])
def test_dealer_rotation(players: int) -> None:
    game = play_random(players, 3)
    lines = game.log_lines()
    dealers, firsts = [], []
    for i, line in enumerate(lines):
        if line.startswith("Round "):
            dealers.append(int(line.split(": P")[1].split()[0]) - 1)
            firsts.append(int(lines[i + 1].split(":")[0][1:]) - 1)
    assert len(dealers) == len(score_entries(game)) >= ROUNDS[players]
    for r in range(len(dealers)):
        assert firsts[r] == (dealers[r] + 1) % players  # the first player is left of the dealer
        if r:
            assert dealers[r] == (dealers[r - 1] + 1) % players
            assert firsts[r] == (firsts[r - 1] + 1) % players


def test_dealer_of_round_one_is_random() -> None:
    dealers = {RULES.new_game(players=4, seed=seed).evaluate("dealer") for seed in range(40)}
    assert dealers == {0, 1, 2, 3}


# --- Nobori 4 and 5 take effect at once -------------------------------------------------------------


def test_nobori_4_swaps_hand_and_yomi_at_once() -> None:
    game = RULES.new_game(players=4, seed=8)
    first = game.current_player
    hand, yomi = labels(game, "hand", first), labels(game, "yomi")
    assert Counter(hand) != Counter(yomi)
    game.apply("raise Nobori 4")
    assert Counter(labels(game, "hand", first)) == Counter(yomi)
    assert Counter(labels(game, "yomi")) == Counter(hand)
    assert labels(game, "raised", first) == ["Nobori 4"]
    # A later Nobori 4 swaps with the Yomi as it is then: the first player's old hand.
    second = game.current_player
    assert second == (first + 1) % 4
    hand2 = labels(game, "hand", second)
    game.apply("raise Nobori 4")
    assert Counter(labels(game, "hand", second)) == Counter(hand)
    assert Counter(labels(game, "yomi")) == Counter(hand2)


def test_nobori_5_look_at_yomi_and_at_a_hand() -> None:
    game = RULES.new_game(players=3, seed=4)
    p = game.current_player
    q, r = (p + 1) % 3, (p + 2) % 3
    game.apply("raise Nobori 5")
    assert game.current_player == p
    assert sorted(game.legal_labels()) == sorted(
        ["look at the Yomi", f"look at the hand of P{q + 1}", f"look at the hand of P{r + 1}"])
    yomi = labels(game, "yomi")
    game.apply("look at the Yomi")
    assert game.view(p)["seen"] == [{"zone": "yomi", "contents": yomi}]
    assert game.view(p)["zones"]["yomi"] == {"hidden": len(yomi)}  # the state is unchanged
    assert game.view(q)["seen"] == [] and game.view(r)["seen"] == [] and game.view(None)["seen"] == []
    assert game.current_player == q
    game.apply("raise Nobori 5")
    hand_r = labels(game, "hand", r)
    game.apply(f"look at the hand of P{r + 1}")
    assert game.view(q)["seen"] == [{"zone": f"hand(P{r + 1})", "contents": hand_r}]
    assert game.view(r)["seen"] == []
    assert game.view(p)["seen"] == [{"zone": "yomi", "contents": yomi}]
    assert game.view(q)["zones"][f"hand(P{r + 1})"] == {"hidden": len(hand_r)}


def test_one_nobori_per_round_and_each_once_per_game() -> None:
    game = RULES.new_game(players=3, seed=6)
    p = game.current_player
    game.apply("raise Nobori 1")
    assert game.current_player == (p + 1) % 3  # one token per player per round
    rng = random.Random(0)
    while game.evaluate("rounds_played") == 1:
        legal = game.legal_labels()
        game.apply("pass" if "pass" in legal else rng.choice(legal))
    assert labels(game, "spent") == ["Nobori 1"]  # discarded at the end of the round
    assert labels(game, "raised", p) == []
    while game.current_player != p:
        game.apply("pass")
    assert game.legal_labels() == RAISE[1:] + ["pass"]
    with pytest.raises(GameError):
        game.apply("raise Nobori 1")


# --- end of game: ties --------------------------------------------------------------------------------


def _to_last_round_start(players: int, seed: int) -> Game:
    game = RULES.new_game(players=players, seed=seed)
    rng = random.Random(seed)
    while game.evaluate("rounds_played") < ROUNDS[players]:
        game.apply(rng.choice(game.legal_actions()))
    return game


@pytest.mark.parametrize(("scores", "extra"), [([3, 3, 0, 0, 0], True), ([3, 2, 0, 0, 0], False)])
def test_tie_for_first_plays_another_round(scores: list[int], extra: bool) -> None:
    """Before round 5 of 5 the totals are set by hand; everybody raises Nobori 2 (0 points)."""
    game = _to_last_round_start(5, 21)
    for seat in range(5):
        for power in range(1, 6):
            game.put(nobori_of(game, seat, power), "banners", seat)
        game.set_var("score", scores[seat], owner=seat)
    for _ in range(5):
        game.apply("raise Nobori 2")
    rng = random.Random(1)
    while game.evaluate("rounds_played") == 5 and not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    assert score_entries(game)[-1] == (0, 0, 0, 0, 0)
    if not extra:
        assert game.is_over and game.winners() == [0]
        return
    assert not game.is_over and game.evaluate("rounds_played") == 6
    assert "Round 6: " in "\n".join(game.log_lines())
    assert "raise Nobori 2" not in game.legal_labels() and "raise Nobori 1" in game.legal_labels()
    while not game.is_over:
        before = [s["total"] for s in game.scores()]
        game.apply(rng.choice(game.legal_actions()))
        if game.evaluate("rounds_played") > 6 and [s["total"] for s in game.scores()] != before:
            assert top_tied(before)
    totals = [s["total"] for s in game.scores()]
    assert not top_tied(totals)
    assert game.winners() == [totals.index(max(totals))]


@pytest.mark.parametrize("players", [3, 4, 5])
def test_tie_break_from_seeded_games(players: int) -> None:
    """Find seeded games tied at the top after the regular rounds; extra rounds until untied."""
    found = 0
    for seed in range(300):
        game = play_random(players, seed)
        regular = ROUNDS[players]
        if not top_tied(totals_after(game, regular)):
            continue
        found += 1
        played = len(score_entries(game))
        assert played > regular
        for r in range(regular, played):
            assert top_tied(totals_after(game, r))  # each extra round followed a tie
        final = [s["total"] for s in game.scores()]
        assert final == totals_after(game, played)
        assert not top_tied(final)
        assert game.winners() == [final.index(max(final))]
        if found == 5:
            break
    assert found == 5


# --- illegal actions ----------------------------------------------------------------------------------


def test_illegal_action_is_refused_and_changes_nothing() -> None:
    game = RULES.new_game(players=4, seed=9)
    before = game.digest()
    for bad in ["play 99", "play 7", "look at the Yomi", "raise Nobori 6", ""]:
        with pytest.raises(GameError):
            game.apply(bad)
        assert game.digest() == before
    with pytest.raises(GameError):
        game.apply((4, (0,)))  # "play" of component 0 during the preparation
    assert game.digest() == before
    over = play_random(4, 9)
    with pytest.raises(GameError):
        over.apply("pass")


# Round scorings of hand-built ends of round (every item worked by hand) are scoring examples
# beside the rules: games/hagakure.examples.json, run by `ruleforge test` and the pytest plugin.


# --- a golden log --------------------------------------------------------------------------------------


def _check_log_by_rules(game: Game) -> None:
    """Replay the log lines with the independent oracle: every trick winner and round score."""
    n = game.players
    plays: list[tuple[int, str]] = []
    tricks, won, power = [0] * n, [[] for _ in range(n)], [None] * n
    rounds = 0
    for line in game.log_lines():
        if line.startswith("Round "):
            tricks, won, power = [0] * n, [[] for _ in range(n)], [None] * n
        elif ": play " in line:
            who, card = line.split(": play ")
            plays.append((int(who[1:]) - 1, card.split(" #")[0]))
        elif ": raise Nobori " in line:
            who, token = line.split(": raise Nobori ")
            power[int(who[1:]) - 1] = int(token)
        elif line.endswith(" wins the trick"):
            assert len(plays) == n
            w = oracle_trick_winner(plays)
            assert line == f"P{w + 1} wins the trick"
            tricks[w] += 1
            won[w] += [card for _, card in plays]
            plays = []
        elif line.startswith("scoring round_points: "):
            expected = [oracle_round_score(tricks[p], won[p], power[p], n) for p in range(n)]
            assert line == "scoring round_points: " + ", ".join(f"P{p + 1} {expected[p]:+d}" for p in range(n))
            rounds += 1
    assert rounds == len(score_entries(game))


def test_golden_log(snapshot) -> None:
    game = play_random(4, 2024)
    lines = game.log_lines()
    # Checked by hand against the rules (seed 2024, 4 players). This log depends on the engine's
    # generator: if that changes on purpose, regenerate (--snapshot-update) and check it by hand again.
    # Round 1: P1 deals, so P2 is first. Preparation: P2 Nobori 4, P3 Nobori 2, P4 pass, P1 Nobori 5
    # (then looks at P3's hand). T1: P2 10 (villager lead: free), P3 Old Fool (alone: 0), P4 16,
    # P1 9 -> 16, P4. T2: P4 17 (villager), P1 Old Fool, P2 22, P3 Old Fool -> two Old Fools, the
    # last one (P3) wins, even over 22. T3: P3 15, P4 19, P1 6, P2 14 -> 19, P4.
    # T4: P4 13, P1 21, P2 12, P3 8 -> 21, P1. #18 is in the Yomi this round.
    # Scores: P1 1 trick = 1; P2 no trick = -2 (Nobori 4 changes no score); P3 1 trick but
    # Nobori 2 = 0; P4 2 tricks = 2.
    assert lines[:27] == [
        "Round 1: P1 deals",
        "P2: raise Nobori 4", "P3: raise Nobori 2", "P4: pass", "P1: raise Nobori 5", "P1: look at the hand of P3",
        "P2: play 10", "P3: play Old Fool", "P4: play 16", "P1: play 9", "P4 wins the trick",
        "P4: play 17", "P1: play Old Fool", "P2: play 22", "P3: play Old Fool", "P3 wins the trick",
        "P3: play 15", "P4: play 19", "P1: play 6", "P2: play 14", "P4 wins the trick",
        "P4: play 13", "P1: play 21", "P2: play 12", "P3: play 8", "P1 wins the trick",
        "scoring round_points: P1 +1, P2 -2, P3 +0, P4 +2",
    ]
    # Round 2: P2 deals (left of P1), P3 is first; P3 pass, P4 Nobori 2, P1 Nobori 4, P2 Nobori 1.
    # T1: P3 leads an Old Fool (red), P4 Old Fool, P1 20, P2 Old Fool: three Old Fools, the last
    # (P2) wins. T2: P2 6, P3 18, P4 11, P1 12 -> 18, P3, who takes #18. T3: P3 14, P4 10, P1 16,
    # P2 13 -> P1. T4: P1 19, P2 9, P3 8, P4 17 -> P1.
    # P1 2 tricks = 2; P2 Nobori 1, 1 trick: 1 x 2 = 2; P3 1 trick + #18 = 2; P4 Nobori 2, no
    # trick: 0 (not -2).
    assert lines[27:54] == [
        "Round 2: P2 deals",
        "P3: pass", "P4: raise Nobori 2", "P1: raise Nobori 4", "P2: raise Nobori 1",
        "P3: play Old Fool", "P4: play Old Fool", "P1: play 20", "P2: play Old Fool", "P2 wins the trick",
        "P2: play 6", "P3: play 18", "P4: play 11", "P1: play 12", "P3 wins the trick",
        "P3: play 14", "P4: play 10", "P1: play 16", "P2: play 13", "P1 wins the trick",
        "P1: play 19", "P2: play 9", "P3: play 8", "P4: play 17", "P1 wins the trick",
        "scoring round_points: P1 +2, P2 +2, P3 +2, P4 +0",
        "Round 3: P3 deals",
    ]
    _check_log_by_rules(game)
    assert lines == snapshot


@pytest.mark.parametrize("players", [3, 4, 5])
def test_logs_agree_with_the_oracle(players: int) -> None:
    for seed in range(30):
        _check_log_by_rules(play_random(players, 1000 + seed))
