"""Sushi Go! (games/sushi_go.rules): the deck and the deal, the simultaneous pick and the pass to
the left, Wasabi, Chopsticks, the round's and the puddings' scoring, the tie-break, and, over a
few seeded games, conservation of the cards and scores recomputed from the final state."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

import ruleforge
from ruleforge.agents import RandomAgent

RULES = Path(__file__).parents[1] / "games/sushi_go.rules"
DECK = {"Tempura": 14, "Sashimi": 14, "Dumpling": 14, "Maki 2": 12, "Maki 3": 8, "Maki 1": 6, "Salmon Nigiri": 10,
        "Squid Nigiri": 5, "Egg Nigiri": 5, "Pudding": 10, "Wasabi": 6, "Chopsticks": 4}
HAND = {2: 10, 3: 9, 4: 8, 5: 7}


@pytest.fixture(scope="module")
def rules() -> ruleforge.Rules:
    return ruleforge.load(RULES)


def cards(view_zone) -> list[str]:
    return [c.replace(" (covered)", "").replace(" (tripled)", "") for c in view_zone]


def everything(game: ruleforge.Game) -> Counter:
    """Every card of the game, wherever it lies, by label (the full state's zones)."""
    prog = game.program
    return Counter(prog.comp_label[c] for zone in game.state.z for c in zone)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_deck_and_the_deal(rules: ruleforge.Rules, players: int) -> None:
    game = rules.new_game(players, seed=1)
    assert everything(game) == Counter(DECK) and sum(DECK.values()) == 108
    view = game.view(None)
    assert all(view["zones"][f"hand(P{p + 1})"] == {"hidden": HAND[players]} for p in range(players))
    assert game.current_player == 0 and game.view(0)["together"]["choosers"] == [f"P{p + 1}" for p in range(players)]


def test_everyone_picks_then_the_hands_pass_to_the_left(rules: ruleforge.Rules) -> None:
    game = rules.new_game(3, seed=2)
    hands = [list(game.state.z[game.zone_index("hand", p)]) for p in range(3)]
    picked = []
    for _seat in range(3):
        action = next(a for a in game.legal_actions() if game.program.actions[a[0]].name == "pick")
        picked.append(action[1][0])
        game.apply(action)
    for p in range(3):
        assert game.state.z[game.zone_index("played", p)] == [picked[p]]
        left = (p + 1) % 3  # P1's rest goes to P2, the last seat's to P1
        assert sorted(game.state.z[game.zone_index("hand", left)]) == sorted(c for c in hands[p] if c != picked[p])


def position(rules: ruleforge.Rules, players: int, zones: dict) -> ruleforge.Game:
    return rules.position({"format": "ruleforge-position/1", "players": players, "zones": zones})


def test_wasabi_triples_the_next_nigiri_only(rules: ruleforge.Rules) -> None:
    # a third card in each hand, so that the round is not over after two turns
    game = position(rules, 2, {"played(P1)": ["Wasabi"], "hand(P1)": ["Squid Nigiri", "Egg Nigiri", "Tempura"],
                               "hand(P2)": ["Salmon Nigiri", "Wasabi", "Tempura"]})
    game.apply("play Squid Nigiri")
    game.apply("play Salmon Nigiri")  # P2 has no Wasabi on the table yet: plain
    game.apply("play Wasabi")  # P1 now holds P2's rest
    game.apply("play Egg Nigiri")  # the Wasabi is covered already: plain
    round_points = game.preview_scoring("round")
    assert round_points[0]["Nigiri"] == 9 + 0 and round_points[1]["Nigiri"] == 2 + 1
    assert cards(game.view(None)["zones"]["played(P1)"]) == ["Wasabi", "Squid Nigiri", "Wasabi"]


def test_chopsticks_need_chopsticks_played_before_and_go_back_to_the_hand(rules: ruleforge.Rules) -> None:
    game = position(rules, 2, {"hand(P1)": ["Chopsticks", "Tempura", "Tempura"], "hand(P2)": ["Sashimi", "Maki 1",
                                                                                             "Dumpling"]})
    assert not any("with chopsticks" in label for label in game.legal_labels())  # none on the table yet
    game.apply("play Chopsticks")
    game.apply("play Sashimi")
    # P1 now holds P2's rest and has Chopsticks on the table
    assert "play Maki 1 and Dumpling with chopsticks" in game.legal_labels()
    game.apply("play Maki 1 and Dumpling with chopsticks")
    game.apply("play Tempura")
    zones = game.view(None)["zones"]
    assert zones["played(P1)"] == ["Maki 1", "Dumpling"]
    assert sorted(game.view(0)["zones"]["hand(P1)"]) == ["Tempura"]  # P2's rest
    assert sorted(game.view(1)["zones"]["hand(P2)"]) == ["Chopsticks"]  # P1's rest: the Chopsticks


def test_maki_second_place_goes_only_to_a_lone_first(rules: ruleforge.Rules) -> None:
    game = position(rules, 3, {"played(P1)": ["Maki 3"], "played(P2)": ["Maki 2"], "played(P3)": ["Maki 1"]})
    assert [r["Maki"] for r in game.preview_scoring("round")] == [6, 3, 0]
    game = position(rules, 3, {"played(P1)": ["Maki 3"], "played(P2)": ["Maki 3"], "played(P3)": ["Maki 1"]})
    assert [r["Maki"] for r in game.preview_scoring("round")] == [3, 3, 0]
    game = position(rules, 3, {"played(P1)": [], "played(P2)": [], "played(P3)": []})
    assert [r["Maki"] for r in game.preview_scoring("round")] == [0, 0, 0]


@pytest.mark.parametrize("count, points", [(1, 1), (2, 3), (3, 6), (4, 10), (5, 15), (7, 15)])
def test_dumplings(rules: ruleforge.Rules, count: int, points: int) -> None:
    game = position(rules, 2, {"played(P1)": ["Dumpling"] * count, "played(P2)": []})
    assert game.preview_scoring("round")[0]["Dumpling"] == points


def test_a_tie_goes_to_the_most_puddings(rules: ruleforge.Rules) -> None:
    game = position(rules, 3, {"puddings(P1)": ["Pudding"], "puddings(P2)": ["Pudding"] * 2, "puddings(P3)": []})
    game.set_var("score", 20, 0)
    game.set_var("score", 20, 1)
    assert game.winners() == [1]
    spare = next(c for c in game.find("Pudding") if game.state.w[c] == game.zone_index("deck"))
    game.put(spare, "puddings", 0)
    assert game.winners() == [0, 1]  # still tied: shared


def round_points(labels: list[str], everyone: list[list[str]]) -> int:
    """One player's round, from the cards played in order (worked out here, not by the rules)."""
    rolls = [sum(int(c[-1]) for c in cs if c.startswith("Maki")) for cs in everyone]
    mine = sum(int(c[-1]) for c in labels if c.startswith("Maki"))
    most = max(rolls)
    second = max([r for r in rolls if r < most], default=0)
    maki = 0
    if mine and mine == most:
        maki = 6 // rolls.count(most)
    elif mine and rolls.count(most) == 1 and mine == second:
        maki = 3 // rolls.count(second)
    nigiri, free_wasabi = 0, 0
    for c in labels:
        if c == "Wasabi":
            free_wasabi += 1
        elif c.endswith("Nigiri"):
            value = {"Egg": 1, "Salmon": 2, "Squid": 3}[c.split()[0]]
            nigiri += 3 * value if free_wasabi else value
            free_wasabi = max(0, free_wasabi - 1)
    dumplings = [0, 1, 3, 6, 10, 15][min(labels.count("Dumpling"), 5)]
    return maki + 5 * (labels.count("Tempura") // 2) + 10 * (labels.count("Sashimi") // 3) + dumplings + nigiri


def recomputed(game: ruleforge.Game) -> list[int]:
    """Each player's final score worked out from what the log says was played, round by round
    (Chopsticks used go back to the hand), and the puddings kept."""
    prog = game.program
    players = game.players
    totals = [0] * players
    played: list[list[str]] = [[] for _ in range(players)]
    kept = [0] * players
    for entry in game.state.log:
        if entry[0] == "act":
            me, aid, args = entry[1:4]
            played[me] += [prog.comp_label[c] for c in args]
            if prog.actions[aid].name == "pick_two":
                played[me].remove("Chopsticks")
        elif entry[0] == "score" and list(prog.scorings)[entry[1]] == "round":
            totals = [t + round_points(played[p], played) for p, t in enumerate(totals)]
            kept = [k + played[p].count("Pudding") for p, k in enumerate(kept)]
            played = [[] for _ in range(players)]
    most, fewest = max(kept), min(kept)
    for p in range(players):
        if most != fewest:
            if kept[p] == most:
                totals[p] += 6 // kept.count(most)
            elif kept[p] == fewest and players > 2:
                totals[p] -= 6 // kept.count(fewest)
    return totals


@pytest.mark.parametrize("players, seed", [(2, 11), (3, 12), (5, 13)])
def test_random_games_keep_every_card_and_score_as_recomputed(rules: ruleforge.Rules, players: int,
                                                             seed: int) -> None:
    game = rules.new_game(players, seed=seed)
    agents = [RandomAgent(seed=seed * 10 + p) for p in range(players)]
    decisions = 0
    while not game.is_over:
        game.apply(agents[game.current_player].choose(game))
        decisions += 1
        assert everything(game) == Counter(DECK)
    assert decisions == 3 * HAND[players] * players  # one choice per player per turn
    totals = [s["total"] for s in game.scores()]
    assert totals == recomputed(game)
    zones = game.view(None)["zones"]
    assert zones["deck"] == {"hidden": 108 - 3 * players * HAND[players]}
    assert all(zones[f"played(P{p + 1})"] == [] for p in range(players))
    kept = sum(len(zones[f"puddings(P{p + 1})"]) for p in range(players))
    assert kept == game.measures()["puddings_kept"]
