"""No Thanks! (games/no_thanks.rules) checked against the published rules, by hand: the setup
by player count, refusing and taking a card, the forced take, the hidden chips, the scoring of
runs and the ranking (fewest points, then more chips: our tie-break); and over a few seeded
games, that chips and cards are kept and the final scores are a direct recomputation.

Seed 0 has P1 to act first at 3 to 6 players. Seats are 0-based in the API, P1..Pn in labels.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from seeded import decisions

import ruleforge
from ruleforge import Game

RULES = ruleforge.load(Path(__file__).parents[1] / "games" / "no_thanks.rules")
CHIPS = {3: 11, 4: 11, 5: 11, 6: 9, 7: 7}    # from the rules


def numbers(game: Game, zone: str, owner: int | None = None) -> list[int]:
    return [int(game.program.comp_label[c]) for c in game.state.z[game.zone_index(zone, owner)]]


def chips(game: Game, seat: int) -> int:
    return game.view(seat)["vars"][f"chips(P{seat + 1})"]


def position(players: int, zones: dict[str, list[str]], **vars: Any) -> Game:
    values = {k.replace("_P", "(P") + (")" if "_P" in k else ""): v for k, v in vars.items()}
    return RULES.position({"format": "ruleforge-position/1", "players": players, "seed": 4,
                           "generator": "xoshiro256**", "zones": zones, "vars": values})  # seed 4: P1 moves first


def points(cards: list[int], left: int) -> int:
    """The rules' count, written again: each card not following one held scores; chips are -1."""
    return sum(n for n in cards if n - 1 not in cards) - left


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_setup(players: int) -> None:
    game = RULES.new_game(players, seed=0)
    assert len(numbers(game, "box")) == 9 and len(numbers(game, "offer")) == 1
    assert len(numbers(game, "deck")) == 33 - 9 - 1
    assert sorted(numbers(game, "box") + numbers(game, "offer") + numbers(game, "deck")) == list(range(3, 36))
    assert [chips(game, p) for p in range(players)] == [CHIPS[players]] * players


def test_refusing_pays_a_chip_and_passes() -> None:
    game = RULES.new_game(3, seed=4)  # P1 moves first
    card = numbers(game, "offer")
    game.apply("no thanks")
    assert chips(game, 0) == 10 and game.view(None)["vars"]["pot"] == 1
    assert game.current_player == 1 and numbers(game, "offer") == card
    assert game.legal_labels() == ["no thanks", f"take {card[0]} with 1 chip"]


def test_taking_brings_the_chips_and_plays_again() -> None:
    game = RULES.new_game(3, seed=4)  # P1 moves first
    game.apply("no thanks")
    game.apply("no thanks")
    card, top = numbers(game, "offer")[0], numbers(game, "deck")[-1]
    game.apply(f"take {card} with 2 chips")
    assert numbers(game, "taken", 2) == [card] and chips(game, 2) == 13
    assert game.current_player == 2 and numbers(game, "offer") == [top]
    assert game.view(None)["vars"]["pot"] == 0


def test_no_chip_must_take() -> None:
    game = position(3, {"offer": ["17"]}, chips_P1=0, pot=3)
    assert game.legal_labels() == ["take 17 with 3 chips"]


def test_chips_are_seen_by_their_owner_only() -> None:
    game = RULES.new_game(4, seed=0)
    for seat in range(4):
        shown = [k for k in game.view(seat)["vars"] if k.startswith("chips(")]
        assert shown == [f"chips(P{seat + 1})"]
    assert not any(k.startswith("chips(") for k in game.view(None)["vars"])


def test_the_last_card_ends_the_game() -> None:
    game = position(3, {"deck": [], "offer": ["20"], "taken(P1)": ["21", "22"], "taken(P2)": ["19"]},
                    chips_P1=3, chips_P2=10, chips_P3=20)
    game.apply("take 20 with 0 chips")
    # P1: 20-21-22 one run, 20 - 3 = 17; P2: 19 - 10 = 9; P3: 0 - 20 = -20, the fewest
    assert game.is_over and game.totals() == [17, 9, -20] and game.winners() == [2]


def test_tie_on_points_goes_to_more_chips() -> None:
    game = position(3, {"taken(P1)": ["10"], "taken(P2)": ["15"], "taken(P3)": ["30"]},
                    chips_P1=0, chips_P2=5, chips_P3=0)
    # the ranking reads the cards and chips themselves: [-points, chips], higher is better
    assert [row["rank"] for row in game.scores()] == [[-10, 0], [-10, 5], [-30, 0]] and game.winners() == [1]
    assert [game.preview_scoring("final_points")[p]["total"] for p in range(3)] == [10, 10, 30]
    done = position(3, {"deck": [], "offer": ["3"], "taken(P1)": ["10"], "taken(P2)": ["15"], "taken(P3)": ["30"]},
                    chips_P1=0, chips_P2=5, chips_P3=0)
    done.apply("take 3 with 0 chips")    # P1: 3 + 10 = 13; P2 10; P3 30
    assert done.winners() == [1]
    same = position(3, {"deck": [], "offer": ["4"], "taken(P1)": ["6"], "taken(P2)": ["15"], "taken(P3)": ["30"]},
                    chips_P1=0, chips_P2=5, chips_P3=0)
    same.apply("take 4 with 0 chips")    # P1: 4 + 6 = 10, no chip; P2: 15 - 5 = 10, 5 chips: P2
    assert same.totals()[:2] == [10, 10] and same.winners() == [1]


# --- seeded games ---------------------------------------------------------------------------


def random_game(players: int, seed: int) -> tuple[Game, list[Game]]:
    game = RULES.new_game(players, seed)
    rng = random.Random(seed)
    states = []
    for _ in decisions(game, seed):
        states.append(game.clone())
        game.apply(rng.choice(game.legal_actions()))
    return game, states


def check_game(game: Game, states: list[Game]) -> None:
    """At every decision: the chips in hands and on the card add up to the starting chips; the
    cards in play are the 24 not left out; a player without chips may only take. At the end:
    every card taken, each total the rules' count done again, the winners the fewest points and,
    among those, the most chips."""
    players = game.players
    for state in states:
        pot = state.view(None)["vars"]["pot"]
        assert sum(chips(state, p) for p in range(players)) + pot == CHIPS[players] * players
        taken = [n for p in range(players) for n in numbers(state, "taken", p)]
        held = numbers(state, "deck") + numbers(state, "offer") + taken
        assert len(held) == 24 and not set(held) & set(numbers(state, "box"))
        me = state.current_player
        if chips(state, me) == 0:
            assert [label.split(" ")[0] for label in state.legal_labels()] == ["take"]
    assert game.is_over and numbers(game, "deck") == [] and numbers(game, "offer") == []
    left = [chips(game, p) for p in range(players)]
    totals = [points(numbers(game, "taken", p), left[p]) for p in range(players)]
    assert game.totals() == totals
    fewest = min(totals)
    most = max(left[p] for p in range(players) if totals[p] == fewest)
    assert game.winners() == [p for p in range(players) if totals[p] == fewest and left[p] == most]


@pytest.mark.parametrize("players, seed", [(3, 1), (5, 2), (7, 3)])
def test_seeded_games(players: int, seed: int) -> None:
    check_game(*random_game(players, seed))
