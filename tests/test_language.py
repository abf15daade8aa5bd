"""Every implemented language construct, on small synthetic games in tests/synthetic/.

Each test drives a game through the Python API by action labels and checks outcomes
worked out by hand from the rules file (the traces are written out in the comments).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

import ruleforge
from ruleforge import Game, GameError, Rules

SYNTHETIC = Path(__file__).parent / "synthetic"


@cache
def rules(name: str) -> Rules:
    return ruleforge.load(SYNTHETIC / f"{name}.rules")


def play(game: Game, steps: list[tuple[int, str]]) -> None:
    """Apply (seat, label) steps, checking that each is made by the expected seat."""
    for seat, label in steps:
        assert game.current_player == seat, (label, game.current_player, game.legal_labels())
        game.apply(label)


def zone(game: Game, name: str, owner: int | None = None) -> list[str]:
    """Labels of a zone's components, bottom first."""
    prog = game.program
    zi = prog.zone_base[name] + (owner or 0)
    return [prog.comp_label[c] for c in game.state.z[zi]]


def var(game: Game, name: str, owner: int | None = None) -> object:
    return game.state.v[game.program.var_base[name] + (owner or 0)]


def assert_consistent(game: Game) -> None:
    """Each component is in exactly one zone, and `w` knows which."""
    st = game.state
    seen = sorted(c for z in st.z for c in z)
    assert seen == list(range(len(game.program.comp_label)))
    for zi, comps in enumerate(st.z):
        for c in comps:
            assert st.w[c] == zi


# --- counting: once per turn, N times per game, pass, a step table -------------------------


def test_counting_limits_and_step_table() -> None:
    game = rules("counting").new_game(2)
    assert game.legal_labels() == [f"take T{i}" for i in range(1, 9)] + ["snatch the top token", "pass"]
    # Round 1. P1 snatches the top token (T8); the second choice offers take again.
    play(game, [(0, "snatch the top token")])
    assert game.legal_labels() == [f"take T{i}" for i in range(1, 8)] + ["pass"]
    play(game, [(0, "take T1")])
    # P2 takes T2: take is once per turn, so only pass remains for the second choice.
    play(game, [(1, "take T2")])
    assert game.legal_labels() == ["pass"]
    # step table: P1 holds 2 tokens -> 3, P2 holds 1 -> 1
    assert game.preview_scoring("final_points") == [
        {"sum": 9, "set": 3, "total": 12}, {"sum": 2, "set": 1, "total": 3}]
    play(game, [(1, "pass")])
    # Round 2. P1 snatches a second time (T7); P2 takes T3.
    play(game, [(0, "snatch the top token"), (0, "pass"), (1, "take T3"), (1, "pass")])
    # Round 3. P1 has used snatch twice in the game: no longer offered. P2 still may.
    assert game.legal_labels() == ["take T4", "take T5", "take T6", "pass"]
    play(game, [(0, "take T6"), (0, "pass")])
    assert "snatch the top token" in game.legal_labels()
    play(game, [(1, "snatch the top token")])  # the top of [T4, T5] is T5
    play(game, [(1, "pass")])
    assert game.is_over and game.current_player is None
    assert zone(game, "taken", 0) == ["T8", "T1", "T7", "T6"]
    assert zone(game, "taken", 1) == ["T2", "T3", "T5"]
    assert zone(game, "pool") == ["T4"]
    # P1: 8+1+7+6 = 22 and 4 tokens -> '4+: 10'; P2: 2+3+5 = 10 and 3 tokens -> 'else: 6'
    scores = game.scores()
    assert [s["total"] for s in scores] == [32, 16]
    assert scores[0]["breakdown"] == {"sum": 22, "set": 10}
    assert scores[1]["breakdown"] == {"sum": 10, "set": 6}
    assert var(game, "points", 0) == 32 and var(game, "points", 1) == 16
    assert game.winners() == [0]  # no ranking block: the score total ranks
    lines = game.log_lines()
    assert lines[:3] == ["P1: snatch the top token", "P1: take T1", "P1 takes T1"]
    assert lines[-1] == "scoring final_points: P1 +32, P2 +16"


def test_an_illegal_action_changes_nothing() -> None:
    game = rules("counting").new_game(2)
    before = game.digest()
    with pytest.raises(GameError, match="not a legal action"):
        game.apply("take T9")
    play(game, [(0, "take T3")])
    with pytest.raises(GameError):
        game.apply("take T4")  # once per turn
    assert game.legal_labels() == ["pass"]
    assert before != game.digest()


# --- tricks: deal, players from, argmax with a filter, every, require, var props ------------


def test_tricks_two_players() -> None:
    game = rules("tricks").new_game(2)
    # Unshuffled deck, bottom to top R1 R2 R3 B1 B2 B3; deal 3 one at a time from the top.
    assert zone(game, "hand", 0) == ["Blue 3", "Blue 1", "Red 2"]
    assert zone(game, "hand", 1) == ["Blue 2", "Red 3", "Red 1"]
    assert zone(game, "deck") == []
    # leader = prev(P1) = P2, who may lead anything.
    assert game.current_player == 1
    assert game.legal_labels() == ["play Blue 2", "play Red 3", "play Red 1"]
    play(game, [(1, "play Red 1")])
    assert game.legal_labels() == ["play Red 2"]  # P1 must follow red
    play(game, [(0, "play Red 2")])
    assert var(game, "tricks", 0) == 1
    assert zone(game, "won", 0) == ["Red 1", "Red 2"]
    # the `by` property records who played each card
    by = game.program.props.index("by")
    red2 = game.program.comp_label.index("Red 2")
    assert game.state.p[by][red2] == 0
    # P1 won and leads: players from P1 is P1, P2.
    assert game.legal_labels() == ["play Blue 3", "play Blue 1"]
    play(game, [(0, "play Blue 1"), (1, "play Blue 2")])
    # P2 won and leads Red 3; P1 has no red, plays Blue 3, which is higher but off suit.
    play(game, [(1, "play Red 3")])
    assert game.legal_labels() == ["play Blue 3"]
    play(game, [(0, "play Blue 3")])
    assert game.is_over
    assert [var(game, "tricks", p) for p in (0, 1)] == [1, 2]
    assert game.winners() == [1]
    assert [s["rank"] for s in game.scores()] == [[1], [2]]
    said = [line for line in game.log_lines() if "wins" in line]
    assert said == ["P1 wins the trick", "P2 wins the trick", "P2 wins the trick"]


def test_tricks_three_players_turn_order() -> None:
    game = rules("tricks").new_game(3)
    # deal 2 (table: else): P1 B3 R3, P2 B2 R2, P3 B1 R1; leader = prev(P1) = P3
    assert [zone(game, "hand", p) for p in range(3)] == [
        ["Blue 3", "Red 3"], ["Blue 2", "Red 2"], ["Blue 1", "Red 1"]]
    play(game, [(2, "play Blue 1"), (0, "play Blue 3"), (1, "play Blue 2"),
                (0, "play Red 3"), (1, "play Red 2"), (2, "play Red 1")])
    assert game.is_over
    assert [var(game, "tricks", p) for p in range(3)] == [2, 0, 0]
    assert game.winners() == [0]


def test_hand_zones_are_seen_by_their_owner_only() -> None:
    game = rules("tricks").new_game(2)
    v0, v1, spectator = game.view(0), game.view(1), game.view(None)
    assert v0["zones"]["hand(P1)"] == ["Blue 3", "Blue 1", "Red 2"]
    assert v0["zones"]["hand(P2)"] == {"hidden": 3}
    assert v1["zones"]["hand(P1)"] == {"hidden": 3}
    assert v1["zones"]["hand(P2)"] == ["Blue 2", "Red 3", "Red 1"]
    assert spectator["zones"]["hand(P1)"] == {"hidden": 3}
    assert v0["zones"]["deck"] == {"hidden": 0}  # visible nobody
    assert v0["zones"]["trick"] == []  # visible everyone
    assert v1["legal"] == game.legal_labels() and "legal" not in v0
    assert v0["vars"]["tricks(P2)"] == 0 and v0["to_act"] == "P2"


# --- views: visibility, and reveal shown only to the one who looks ----------------------------


def test_visibility_of_zones() -> None:
    game = rules("views").new_game(2)
    for viewer in (0, 1, None):
        zones = game.view(viewer)["zones"]
        assert zones["vault"] == {"hidden": 3}  # nobody
        assert zones["board"] == ["gem 9"]  # everyone
        for owner in (0, 1):
            key = f"purse(P{owner + 1})"
            assert zones[key] == (["gem 5", "gem 6"] if viewer == owner else {"hidden": 2})


def test_reveal_reaches_only_the_revealed_player() -> None:
    game = rules("views").new_game(2)
    assert game.legal_labels() == ["peek at P2", "spy the vault", "show gem 5", "show gem 6", "pass"]
    play(game, [(0, "peek at P2")])
    purse2 = {"zone": "purse(P2)", "contents": ["gem 5", "gem 6"]}
    assert game.view(0)["seen"] == [purse2]
    assert game.view(1)["seen"] == []
    assert game.view(None)["seen"] == []
    assert game.view(0)["zones"]["purse(P2)"] == {"hidden": 2}  # a look, not a change of visibility
    # P2 shows one gem to next(P2) = P1: a component reveal
    play(game, [(1, "show gem 6")])
    assert game.view(0)["seen"] == [purse2, {"zone": "a component", "contents": ["gem 6"]}]
    assert game.view(1)["seen"] == []
    play(game, [(0, "spy the vault"), (1, "pass")])
    assert game.view(0)["seen"][-1] == {"zone": "vault", "contents": ["gem 1", "gem 2", "gem 3"]}
    assert game.view(1)["seen"] == []
    assert game.is_over


# --- moves: top N, at bottom, lists, swap zones and components, repeat-until ----------------


def test_moves_and_swaps() -> None:
    game = rules("moves").new_game(1)
    assert "put the tray's top under the stack" not in game.legal_labels()  # require: tray empty
    play(game, [(0, "move the top 2 to the tray")])
    # one at a time from the top: c5 lands first, then c4 on it
    assert zone(game, "stack") == ["c1", "c2", "c3"]
    assert zone(game, "tray") == ["c5", "c4"]
    play(game, [(0, "put the tray's top under the stack")])
    assert zone(game, "stack") == ["c4", "c1", "c2", "c3"]
    assert zone(game, "tray") == ["c5"]
    play(game, [(0, "box the odd chips of the stack")])
    assert zone(game, "box") == ["c1", "c3"]
    assert zone(game, "stack") == ["c4", "c2"]
    play(game, [(0, "swap stack and side")])
    assert zone(game, "stack") == ["c6", "c7"]
    assert zone(game, "side") == ["c4", "c2"]
    assert_consistent(game)
    # components swap places, each keeping the other's position
    play(game, [(0, "swap c7 with c4")])
    assert zone(game, "stack") == ["c6", "c4"]
    assert zone(game, "side") == ["c7", "c2"]
    assert_consistent(game)
    play(game, [(0, "box the side, under the box")])
    assert zone(game, "box") == ["c7", "c2", "c1", "c3"]
    assert zone(game, "side") == []
    assert_consistent(game)
    assert not game.is_over and var(game, "ops") == 6
    play(game, [(0, "finish")])  # the until condition becomes true: the loop and game end
    assert game.is_over and var(game, "ops") == 7


# --- nested choose, skipped decisions, repeat-until, end game --------------------------------


def test_nested_choice_and_skip() -> None:
    game = rules("nested").new_game(2)
    assert game.legal_labels() == ["work", "gamble"]  # claim needs 5 coins
    play(game, [(0, "work"), (1, "gamble")])
    # gamble asks P2 a further choice before the turn ends
    assert game.current_player == 1 and game.legal_labels() == ["double up", "cash out"]
    play(game, [(1, "cash out")])
    assert (var(game, "coins", 0), var(game, "coins", 1), var(game, "pot")) == (1, 3, 6)
    lines = game.log_lines()
    # the action resumes after the sub-decision; then nobody may rest, and P1 is skipped
    assert lines == ["P1: work", "P2: gamble", "P2: cash out", "P2 gambled",
                     "P1 has no legal action and is skipped"]
    play(game, [(0, "gamble"), (0, "double up"), (1, "gamble"), (1, "double up")])
    assert (var(game, "coins", 0), var(game, "coins", 1)) == (2, 6)
    assert var(game, "round") == 3  # round 2 ended (P1 skipped again); round 3 has begun
    play(game, [(0, "work")])
    assert game.legal_labels() == ["work", "gamble", "claim the pot"]  # P2 has 6 coins
    play(game, [(1, "work")])
    # round 3 done: the loop stops on `round >= 3` with the pot at 4
    assert game.is_over
    assert (var(game, "pot"), var(game, "round")) == (4, 3)
    lines = game.log_lines()
    assert lines.count("P1 has no legal action and is skipped") == 3
    assert lines[-1] == "the loop ended after round 3"


def test_repeat_until_stops_on_the_other_condition() -> None:
    game = rules("nested").new_game(2)
    play(game, [(0, "gamble"), (0, "cash out"), (1, "gamble"), (1, "cash out"),   # pot 10 -> 4
                (0, "gamble"), (0, "cash out"), (1, "gamble"), (1, "cash out")])  # pot -> -2
    assert game.is_over
    assert (var(game, "pot"), var(game, "round")) == (-2, 2)
    assert game.log_lines()[-1] == "the loop ended after round 2"


def test_end_game_statement_stops_at_once() -> None:
    game = rules("nested").new_game(2)
    play(game, [(0, "gamble"), (0, "cash out"), (1, "work"),   # P1 3, P2 1, pot 6
                (0, "gamble"), (0, "double up"), (1, "work")])  # P1 6, P2 2, pot 5
    play(game, [(0, "claim the pot")])
    assert game.is_over and game.current_player is None and game.legal_actions() == []
    assert (var(game, "coins", 0), var(game, "coins", 1), var(game, "pot")) == (11, 2, 0)
    assert var(game, "round") == 3
    assert not any(line.startswith("the loop ended") for line in game.log_lines())
    with pytest.raises(GameError, match="over"):
        game.apply("work")


def test_a_loop_that_never_ends_is_an_error_not_a_hang() -> None:
    with pytest.raises(GameError, match=r"endless.rules:8:3: this loop ran [\d,]+ rounds without a decision: "
                                        r"it never ends"):
        rules("endless").new_game(1)


# --- scoring modifiers and ranking ------------------------------------------------------------

MODIFIER_OPENING = [(0, "gain 3"), (1, "gain 1"), (2, "gain 3"),
                    (0, "bless"), (1, "triple"), (2, "gain 3"),
                    (0, "pass"), (1, "curse")]


def test_scoring_modifiers_and_tie_breaker() -> None:
    game = rules("modifiers").new_game(3)
    assert game.legal_labels() == ["gain 1", "gain 2", "gain 3", "take a gem", "bless", "curse", "triple", "pass"]
    play(game, MODIFIER_OPENING)
    # P1: 3, doubled (+3), flat 1 = 7. P2: 1 + 1 = 2, times 3 (+4) = 6, zeroed (-6) = 0.
    # P3 so far: 6 + 1 = 7.
    assert game.preview_scoring("final") == [
        {"base": 3, "blessing": 3, "flat": 1, "factor": 0, "curse": 0, "total": 7},
        {"base": 1, "blessing": 0, "flat": 1, "factor": 4, "curse": -6, "total": 0},
        {"base": 6, "blessing": 0, "flat": 1, "factor": 0, "curse": 0, "total": 7},
    ]
    play(game, [(2, "take a gem")])
    assert game.is_over
    scores = game.scores()
    assert [s["total"] for s in scores] == [7, 0, 7]
    for s in scores:
        assert sum(s["breakdown"].values()) == s["total"]
    assert [s["rank"] for s in scores] == [[7, 0], [0, 0], [7, 1]]
    assert game.winners() == [2]  # tied on points, P3 has the gem


def test_ranking_full_tie_has_two_winners() -> None:
    game = rules("modifiers").new_game(3)
    play(game, MODIFIER_OPENING + [(2, "pass")])
    assert [s["rank"] for s in game.scores()] == [[7, 0], [0, 0], [7, 0]]
    assert game.winners() == [0, 2]


# --- options and player counts change the components --------------------------------------


def test_player_count_and_options_change_components() -> None:
    r = rules("options")
    two = r.new_game(2)
    assert two.program.comp_label == ["Red 1", "Red 2", "Red 3", "Green 4", "Green 4", "coin 1", "coin 1"]
    three = r.new_game(3, options={"extra": 2, "big": True})
    assert three.program.comp_label == [
        "Red 1", "Red 2", "Red 3", "Green 4", "Green 4", "Green 9",
        "coin 5", "coin 5", "coin 1", "coin 1", "coin 1", "coin 1", "coin 1", "coin 1"]
    assert zone(three, "purse") == ["coin 5", "coin 5", "coin 1", "coin 1", "coin 1"]
    assert [zone(three, "shelf", p) for p in range(3)] == [["coin 1"]] * 3
    assert len(r.new_game(1).program.comp_label) == 6
    with pytest.raises(GameError, match="unknown option"):
        r.new_game(2, options={"extar": 1})
    with pytest.raises(GameError, match="1 to 3 players"):
        r.new_game(4)


def test_if_elif_else_and_compound_assignment() -> None:
    r = rules("options")
    # sizes 1, 2, 3, 4 (heavy), 4 (heavy): 1 +10 -1 -1 *2 *2 = 36
    assert var(r.new_game(2), "acc") == 36
    # one more light bead (9): -1
    assert var(r.new_game(3), "acc") == 35


def test_aggregates() -> None:
    r = rules("options")
    two = r.new_game(2).preview_scoring("probe")[0]
    assert two == {
        "beads": 5, "sizes": 14, "smallest green": 4, "largest": 4, "distinct sizes": 4,
        "any heavy": 1, "all small": 1, "first": 1, "last": 4, "smallest": 1, "last marks": 3,
        "heavy list": 2, "by last player": 0, "coins": 0, "shelf": 1, "next": 1, "total": 46,
    }
    three = r.new_game(3, options={"extra": 2, "big": True}).preview_scoring("probe")
    assert three[1] == {
        "beads": 6, "sizes": 23, "smallest green": 4, "largest": 9, "distinct sizes": 5,
        "any heavy": 1, "all small": 0, "first": 1, "last": 9, "smallest": 1, "last marks": 0,
        "heavy list": 2, "by last player": 1, "coins": 13, "shelf": 1, "next": 0, "total": 76,
    }
    # one player: next and prev of P1 are both P1
    assert r.new_game(1).preview_scoring("probe")[0]["next"] == 1


# --- variants -------------------------------------------------------------------------------------


def test_variant_base_game() -> None:
    game = rules("variant_base").new_game(2)
    assert game.legal_labels() == ["haul stone 1", "haul stone 2", "haul stone 3", "smash the top stone"]
    play(game, [(0, "haul stone 3"), (1, "smash the top stone"), (0, "haul stone 1")])
    # the quarry is empty before P2's second turn: the `if` skips it and the loop ends
    assert game.is_over
    assert zone(game, "rubble") == ["stone 2"]
    assert [s["total"] for s in game.scores()] == [4, 0]


def test_variant_replaces_removes_and_adds() -> None:
    r = rules("variant")
    assert r.title == "Quarry: heavy"
    game = r.new_game(2)
    assert game.program.comp_label == ["stone 1", "stone 2", "stone 3", "stone 7"]
    assert "smash" not in game.program.action_ids
    assert game.legal_labels() == ["haul stone 1", "haul stone 2", "haul stone 3", "haul stone 7"]
    play(game, [(0, "haul stone 7"), (1, "haul stone 1"), (0, "haul stone 2"), (1, "haul stone 3")])
    assert game.is_over
    # worth is replaced: ten times the weight. P1: 7 + 2, P2: 1 + 3.
    assert [s["total"] for s in game.scores()] == [90, 40]
    assert game.scores()[0]["breakdown"] == {"stones": 90}


def test_variant_extends_a_scoring_with_items() -> None:
    game = rules("variant_bonus").new_game(2)
    play(game, [(0, "haul stone 3"), (1, "haul stone 1"), (0, "haul stone 2")])
    assert game.is_over
    # P1: stones 3 + 2 = 5, heaviest 3; P2: stone 1, heaviest 1. No yard of three: no doubling.
    assert [s["breakdown"] for s in game.scores()] == [
        {"stones": 5, "heaviest": 3, "full yard": 0}, {"stones": 1, "heaviest": 1, "full yard": 0}]
    assert [s["total"] for s in game.scores()] == [8, 2]
    game = rules("variant_bonus").new_game(2)
    play(game, [(0, "smash the top stone"), (1, "haul stone 1"), (0, "haul stone 2")])
    # P2 hauled nothing more: 1 + 1; P1: 2 + 2. Still no yard of three.
    assert [s["total"] for s in game.scores()] == [4, 2]


@pytest.mark.parametrize(("text", "message"), [
    ('extend scoring final for q { "x": 1 }', "the base's scoring 'final' calls its player 'p', not 'q'"),
    ('extend scoring bonus for p { "x": 1 }', "cannot extend scoring 'bonus': the base has none"),
    ('remove scoring final\nextend scoring final for p { "x": 1 }', "cannot extend scoring 'final'"),
    ('extend scoring final for p { "x": count(nowhere) }', "variant.rules:2:41: error: unknown name 'nowhere'"),
])
def test_extending_a_scoring_wrongly_is_an_error(tmp_path: Path, text: str, message: str) -> None:
    base = Path(__file__).parent / "synthetic" / "variant_base.rules"
    (tmp_path / "variant_base.rules").write_text(base.read_text())
    path = tmp_path / "variant.rules"
    path.write_text(f'extends "variant_base.rules"\n{text}\n')
    with pytest.raises(ruleforge.RulesError) as err:
        ruleforge.load(path)
    assert message in err.value.render()


def test_extend_scoring_outside_a_variant_is_an_error(tmp_path: Path) -> None:
    base = Path(__file__).parent / "synthetic" / "variant_base.rules"
    path = tmp_path / "plain.rules"
    path.write_text(base.read_text() + '\nextend scoring final for p { "x": 1 }\n')
    with pytest.raises(ruleforge.RulesError, match="is for a variant: this file extends no base"):
        ruleforge.load(path)


# --- chance: determinism, clones, saving ------------------------------------------------------


def first_choices(game: Game, steps: int) -> list[str]:
    """Play the first legal label `steps` times; return the digests along the way."""
    digests = [game.digest()]
    for _ in range(steps):
        if game.is_over:
            break
        game.apply(game.legal_labels()[0])
        digests.append(game.digest())
    return digests


def test_same_seed_and_actions_give_the_same_game() -> None:
    r = rules("chance")
    a, b = r.new_game(2, seed=7), r.new_game(2, seed=7)
    assert first_choices(a, 20) == first_choices(b, 20)
    assert a.is_over and b.is_over
    assert a.log_lines() == b.log_lines()
    assert var(a, "turns") == 6


def test_different_seeds_shuffle_differently() -> None:
    r = rules("chance")
    deals = []
    for seed in range(1, 6):
        game = r.new_game(2, seed=seed)
        assert_consistent(game)
        hands = [zone(game, "hand", p) for p in (0, 1)]
        assert [len(h) for h in hands] == [3, 3] and len(zone(game, "deck")) == 6
        deals.append((tuple(hands[0]), tuple(hands[1])))
        assert game.current_player == var(game, "opener")
    assert len(set(deals)) == 5
    assert r.new_game(2, seed=1).digest() != r.new_game(2, seed=2).digest()


def test_clone_is_independent() -> None:
    game = rules("chance").new_game(2, seed=3)
    game.apply("draw")
    digest, labels = game.digest(), list(game.legal_labels())
    copy = game.clone()
    assert copy.digest() == digest
    first_choices(copy, 20)
    assert copy.is_over
    assert game.digest() == digest
    assert game.legal_labels() == labels and not game.is_over


def test_save_and_load_round_trip() -> None:
    pytest.importorskip("ruleforge.state_io", reason="state_io pending")
    r = rules("chance")
    game = r.new_game(2, seed=5)
    first_choices(game, 3)
    data = json.loads(json.dumps(game.to_json()))
    restored = r.load_game(data)
    assert restored.digest() == game.digest()
    assert restored.legal_labels() == game.legal_labels()
    assert first_choices(restored, 20) == first_choices(game, 20)


@pytest.mark.parametrize(("text", "message", "column"), [
    ("flow { log \"card{if true then 'x {1}' else ''}\" }",
     "a '{' inside a '{...}' of a string: braces cannot nest", 34),
    ('flow { log "a {1" }', "this '{' in a string is never closed", 15),
])
def test_braces_in_strings_that_cannot_work_are_errors(tmp_path, text: str, message: str, column: int) -> None:
    # before, the text was shown as it stood, the inner part alone worked out
    path = tmp_path / "b.rules"
    path.write_text(f'game "b"\nplayers 2\n{text}\n')
    with pytest.raises(ruleforge.RulesError) as err:
        ruleforge.load(path)
    assert f"b.rules:3:{column}: error: {message}" in str(err.value)
