"""Love Letter (games/love_letter.rules) checked against the classic rules, by hand: each card's
effect on a position built by hand, the end of a round and its showdown, the tokens that win,
and, over a few seeded games, that no view or log line tells a player a card they may not know.

Positions use seed 1, where P1 starts the first round at every player count: P1 has drawn and
holds the two cards the position gives. Seats are 0-based in the API and P1..Pn in labels.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest
from seeded import decisions

import ruleforge
from ruleforge import Game

RULES = ruleforge.load(Path(__file__).parents[1] / "games" / "love_letter.rules")
VALUE = {"Guard": 1, "Priest": 2, "Baron": 3, "Handmaid": 4, "Prince": 5, "King": 6, "Countess": 7, "Princess": 8}
TO_WIN = {2: 7, 3: 5, 4: 4}   # tokens of affection, from the rules


def at_turn(players: int, zones: dict[str, list[str]], **vars: Any) -> Game:
    """A position with P1 to play: `zones` as positions write them, vars as `out_P2=True`."""
    values = {re.sub(r"_P(\d)$", r"(P\1)", k): v for k, v in vars.items()}
    game = RULES.position({"format": "ruleforge-position/1", "players": players, "seed": 2,
                           "generator": "xoshiro256**", "zones": zones, "vars": values})
    assert game.current_player == 0
    return game


def cards(game: Game, zone: str, owner: int | None = None) -> list[str]:
    """The labels of a zone's cards, bottom first."""
    return [game.program.comp_label[c] for c in game.state.z[game.zone_index(zone, owner)]]


def var(game: Game, name: str, seat: int | None = None) -> Any:
    key = name if seat is None else f"{name}(P{seat + 1})"
    return game.view(None)["vars"][key]


# --- each card ------------------------------------------------------------------------------


def test_guard_names_a_card_other_than_guard() -> None:
    game = at_turn(3, {"hand(P1)": ["Guard", "Priest"], "hand(P2)": ["King"], "hand(P3)": ["Baron"]})
    labels = game.legal_labels()
    assert not any("naming Guard" in label for label in labels)
    # 2 targets x 7 names, and the Priest on either
    assert len([x for x in labels if x.startswith("play Guard")]) == 14
    hit = game.clone()
    hit.apply("play Guard on P2, naming King")
    assert var(hit, "out", 1) and cards(hit, "discards", 1) == ["King"] and cards(hit, "hand", 1) == []
    assert hit.log_lines()[-1] == "P2 holds the King and is out"
    game.apply("play Guard on P2, naming Baron")
    assert not var(game, "out", 1) and game.log_lines()[-1] == "P2 does not hold the Baron"


def test_priest_shows_the_hand_to_the_looker_only() -> None:
    game = at_turn(3, {"hand(P1)": ["Priest", "Guard"], "hand(P2)": ["King"], "hand(P3)": ["Baron"]})
    game.apply("play Priest on P3")
    assert game.view(0)["seen"] == [{"zone": "hand(P3)", "contents": ["Baron"]}]
    assert game.view(1)["seen"] == [] and game.view(2)["seen"] == [] and game.view(None)["seen"] == []
    assert all("Baron" not in line for line in game.log_lines(viewer=1))


def test_baron_lower_card_is_out_and_only_the_two_compare() -> None:
    game = at_turn(3, {"hand(P1)": ["Baron", "Prince"], "hand(P2)": ["Handmaid"], "hand(P3)": ["Guard"]})
    game.apply("play Baron on P2")          # P1 keeps the Prince (5) against the Handmaid (4)
    assert var(game, "out", 1) and not var(game, "out", 0)
    assert cards(game, "discards", 1) == ["Handmaid"]    # the loser's card, face up
    assert game.view(0)["seen"] == [{"zone": "hand(P2)", "contents": ["Handmaid"]}]
    assert game.view(1)["seen"] == [{"zone": "hand(P1)", "contents": ["Prince"]}]
    assert game.view(2)["seen"] == []
    assert all("Prince" not in line for line in game.log_lines(viewer=2))


def test_baron_loses_when_lower_and_ties_do_nothing() -> None:
    lose = at_turn(3, {"hand(P1)": ["Baron", "Guard"], "hand(P2)": ["Priest"], "hand(P3)": ["Guard"]})
    lose.apply("play Baron on P2")
    assert var(lose, "out", 0) and not var(lose, "out", 1) and cards(lose, "discards", 0) == ["Baron", "Guard"]
    tie = at_turn(3, {"hand(P1)": ["Baron", "Guard"], "hand(P2)": ["Priest"], "hand(P3)": ["Guard"]})
    tie.apply("play Baron on P3")
    assert not var(tie, "out", 0) and not var(tie, "out", 2) and tie.log_lines()[-1] == "P1 and P3 hold the same card"


def test_handmaid_protects_until_the_next_turn() -> None:
    deck = ["Guard", "Guard", "Priest", "Guard", "Baron", "Guard"]   # top last: P2 draws a Guard
    game = at_turn(3, {"deck": deck, "hand(P1)": ["Handmaid", "Guard"], "hand(P2)": ["Prince"],
                       "hand(P3)": ["Countess"]})
    game.apply("play Handmaid")
    assert var(game, "protected", 0) and game.current_player == 1
    assert not any("on P1" in label for label in game.legal_labels())
    game.apply("play Guard on P3, naming Princess")
    assert game.current_player == 2
    assert not any("on P1" in label for label in game.legal_labels())
    game.apply(next(x for x in game.legal_labels() if x.startswith("play Countess")))
    assert game.current_player == 0 and not var(game, "protected", 0)   # P1's turn: the Handmaid is done


def test_prince_discards_and_draws_and_the_princess_is_out() -> None:
    game = at_turn(3, {"deck": ["Guard", "King"], "hand(P1)": ["Prince", "Guard"], "hand(P2)": ["Baron"],
                       "hand(P3)": ["Princess"]})
    draw = game.clone()
    draw.apply("play Prince on P2")
    assert cards(draw, "discards", 1) == ["Baron"] and cards(draw, "hand", 1)[0] == "King"
    assert draw.log_lines()[-1] == "P2 discards the Baron and draws"
    game.apply("play Prince on P3")
    assert var(game, "out", 2) and cards(game, "discards", 2) == ["Princess"] and cards(game, "hand", 2) == []
    mine = at_turn(3, {"hand(P1)": ["Prince", "Guard"], "hand(P2)": ["Baron"], "hand(P3)": ["Priest"]})
    mine.apply("play Prince on P1")
    assert cards(mine, "discards", 0) == ["Prince", "Guard"] and len(cards(mine, "hand", 0)) == 1


def test_prince_on_an_empty_deck_draws_the_card_set_aside() -> None:
    game = at_turn(2, {"deck": [], "aside": ["Countess"], "hand(P1)": ["Prince", "Guard"], "hand(P2)": ["Baron"]})
    game.apply("play Prince on P2")
    # P2 draws the Countess; the deck is empty, so the round ends: Countess 7 beats Guard 1
    assert game.log_lines()[-5:-1] == ["P2 discards the Baron and draws", "P1 shows Guard (discards worth 5)",
                                        "P2 shows Countess (discards worth 3)", "scoring round_won: P1 +0, P2 +1"]
    assert game.totals() == [0, 1]


def test_king_trades_hands() -> None:
    game = at_turn(3, {"hand(P1)": ["King", "Guard"], "hand(P2)": ["Princess"], "hand(P3)": ["Priest"]})
    game.apply("play King on P2")
    assert cards(game, "hand", 0) == ["Princess"] and cards(game, "hand", 1)[0] == "Guard"


def test_countess_forced_only_beside_king_or_prince() -> None:
    king = at_turn(3, {"hand(P1)": ["Countess", "King"], "hand(P2)": ["Guard"], "hand(P3)": ["Guard"]})
    assert king.legal_labels() == ["play Countess"]
    free = at_turn(3, {"hand(P1)": ["Countess", "Handmaid"], "hand(P2)": ["Guard"], "hand(P3)": ["Guard"]})
    assert sorted(free.legal_labels()) == ["play Countess", "play Handmaid"]


def test_playing_the_princess_is_out() -> None:
    game = at_turn(2, {"hand(P1)": ["Princess", "Guard"], "hand(P2)": ["Baron"]})
    game.apply("play Princess")
    # P1 is out, its Guard discarded too; P2 is the only one left and wins the round
    assert cards(game, "discards", 0) == []     # the next round has been dealt
    assert game.totals() == [0, 1] and "P1 discards the Princess and is out" in game.log_lines()


def test_two_copies_are_one_choice() -> None:
    game = at_turn(3, {"hand(P1)": ["Handmaid", "Handmaid"], "hand(P2)": ["Guard"], "hand(P3)": ["Guard"]})
    assert game.legal_labels() == ["play Handmaid"]


# --- seeded games ---------------------------------------------------------------------------


def random_game(players: int, seed: int) -> tuple[Game, list[tuple[Game, str]]]:
    """A game of random legal actions, with the state before each action and its label."""
    game = RULES.new_game(players, seed)
    rng = random.Random(seed)
    steps = []
    for _ in decisions(game, seed):
        label = rng.choice(game.legal_labels())
        steps.append((game.clone(), label))
        game.apply(label)
    return game, steps


SEEDS = [(2, 3), (3, 1), (4, 2)]


def replayed(players: int, seed: int, actions: list[Any]) -> tuple[Game, list[tuple[Game, str]]]:
    """The game of these actions (a recorded playthrough's), with the steps as random_game's."""
    game = RULES.new_game(players, seed)
    steps = []
    for action in actions:
        steps.append((game.clone(), game.label(action)))
        game.apply(action)
    return game, steps


@pytest.mark.parametrize("players, seed", SEEDS)
def test_rounds_tokens_and_starters(players: int, seed: int) -> None:
    check_rounds(random_game(players, seed)[0])


def check_rounds(game: Game) -> None:
    """Each round gives one token to its winner (two on a full tie); a showdown's winners are
    those with the highest card shown, then the highest discards; the winner starts the next;
    the game ends on the round where someone first reaches the count, which wins."""
    players = game.players
    log = game.log_lines()
    shown: list[tuple[int, int, int]] = []
    for line in log:
        if m := re.fullmatch(r"P(\d) shows (\w+) \(discards worth (\d+)\)", line):
            shown.append((int(m.group(1)) - 1, VALUE[m.group(2)], int(m.group(3))))
        elif line.startswith("scoring round_won") and shown:
            best = max((card, worth) for _, card, worth in shown)
            assert re.findall(r"P(\d) \+1", line) == [str(p + 1) for p, *key in shown if tuple(key) == best], line
            shown = []
    starts = [int(m.group(1)) - 1 for line in log if (m := re.match(r"Round \d+: P(\d) starts", line))]
    wins = [[int(x) - 1 for x in re.findall(r"P(\d) \+1", line)]
            for line in log if line.startswith("scoring round_won")]
    assert len(starts) == len(wins) == var(game, "rounds_played") >= TO_WIN[players]
    totals = [0] * players
    for r, winners in enumerate(wins):
        assert winners and max(totals) < TO_WIN[players]
        for p in winners:
            totals[p] += 1
        if r + 1 < len(starts):
            after = [(starts[r] + k) % players for k in range(players)]
            assert starts[r + 1] == next(p for p in after if p in winners)
    assert max(totals) >= TO_WIN[players] and game.totals() == totals
    assert game.winners() == [p for p in range(players) if totals[p] == max(totals)]


@pytest.mark.parametrize("players, seed", SEEDS)
def test_cards_in_hand(players: int, seed: int) -> None:
    check_hands(random_game(players, seed)[1])


def check_hands(steps: list[tuple[Game, str]]) -> None:
    """At every decision: the player to act holds two cards, every other player in the round
    one, a player out none; one card is set aside; three lie face up at 2 players only."""
    players = steps[0][0].players
    for before, _ in steps:
        for p in range(players):
            held = len(cards(before, "hand", p))
            assert held == (0 if var(before, "out", p) else 2 if p == before.current_player else 1)
        assert len(cards(before, "aside")) == 1
        assert len(cards(before, "faceup")) == (3 if players == 2 else 0)
        assert sum(len(before.state.z[z]) for z in range(len(before.state.z))) == 16


def justified(line: str, label: str, actor: int, before: Game, target: int | None) -> bool:
    """A log line after `label` (played by `actor`), naming a card only where the rules make that
    card public at once: the Guard's own guess, a Baron's loser's card (discarded face up), a
    Prince's discard, the hands shown when the round ends on an empty deck."""
    def held(p: int) -> list[str]:
        hand = cards(before, "hand", p)
        if p == actor:
            hand.remove(label.split(" ")[1])
        return hand

    if m := re.fullmatch(r"P(\d) (?:holds|does not hold) the (\w+)(?: and is out)?", line):
        named = label.startswith("play Guard") and label.endswith(f"naming {m.group(2)}")
        return named and int(m.group(1)) - 1 == target
    if m := re.fullmatch(r"P(\d) loses the comparison with (\w+) and is out", line):
        return label.startswith("play Baron") and held(int(m.group(1)) - 1) == [m.group(2)]
    if m := re.fullmatch(r"P(\d) discards the (\w+) and (?:draws|is out)", line):
        p, card = int(m.group(1)) - 1, m.group(2)
        return (label.startswith("play Prince") and p == target and held(p) == [card]) or \
            (label == "play Princess" and p == actor and card == "Princess")
    if re.fullmatch(r"P(\d) shows (\w+) \(discards worth \d+\)", line):
        return len(before.state.z[before.zone_index("deck")]) <= 1   # the last card was drawn
    plain = r"(P\d and P\d hold the same card|scoring round_won: .*|Round \d+: P\d starts)"
    return re.fullmatch(plain, line) is not None


@pytest.mark.parametrize("players, seed", SEEDS + [(4, 7), (3, 5)])
def test_hidden_stays_hidden(players: int, seed: int) -> None:
    check_hidden(*random_game(players, seed))


def check_hidden(game: Game, steps: list[tuple[Game, str]]) -> None:
    """What each seat's views and log hold over a whole game: other hands, the deck and the card
    set aside only as sizes; a hand's card shown (`seen`) only to the player of a Priest on it or
    to the two players of a Baron, and exactly the card held; every log line either the action's
    own label or a line naming only a card the rules make public at once."""
    players = game.players
    steps = [*steps, (game, "")]
    for (before, label), (after, _) in zip(steps, steps[1:], strict=False):
        actor = before.current_player
        parts = before.action_parts(before.legal_actions()[before.legal_labels().index(label)])
        target = next((int(v[1:]) - 1 for name, v in parts.params if name == "o"), None)
        for s in range(players):
            view = after.view(s)
            for key, shown in view["zones"].items():
                if key in ("deck", "aside") or (key.startswith("hand(") and key != f"hand(P{s + 1})"):
                    assert set(shown) == {"hidden"}, (label, s, key)
            seen = view["seen"][len(before.view(s)["seen"]):]
            looked = (parts.name == "priest" and s == actor) or (parts.name == "baron" and s in (actor, target))
            if not looked:
                assert seen == [], (label, s, seen)
            else:
                other = target if s == actor else actor
                hand = cards(before, "hand", other)
                if other == actor:
                    hand.remove(parts.params[0][1])
                assert seen == [{"zone": f"hand(P{other + 1})", "contents": hand}], (label, s)
            lines = after.log_lines(viewer=s)[len(before.log_lines(viewer=s)):]
            assert lines[0] == f"P{actor + 1}: {label}"
            for line in lines[1:]:
                assert justified(line, label, actor, before, target), (label, s, line)
