"""Component accessors (`component_info`, `components`) and how the API writes seats: as ints in
Python values, as `P1` in views (`tests/test_api_decisions.py` has the decisions)."""

from __future__ import annotations

import pytest

import ruleforge
from ruleforge import ComponentInfo, GameError


@pytest.fixture(scope="module")
def naishi():
    return ruleforge.load("games/naishi.rules")


@pytest.fixture(scope="module")
def hagakure():
    return ruleforge.load("games/hagakure.rules")


def test_every_component_is_where_the_state_says_with_its_kind_values(naishi):
    game = naishi.new_game(2, seed=4)
    for _ in range(6):
        game.apply(game.legal_actions()[0])
    prog = game.program
    listed = []
    for zone in prog.zone_base:
        listed += game.components(zone)
    assert sorted(listed) == game.components() == list(range(len(prog.comp_kind)))  # each in one zone
    for c in game.components():
        info = game.component_info(c)
        assert isinstance(info, ComponentInfo) and info.id == c
        zi = game.state.w[c]
        assert info.zone == prog.zones[zi].key and info.zone_owner == prog.zones[zi].owner
        assert game.state.z[zi][info.index] == c
        assert (info.kind, info.label) == (prog.comp_kind[c], prog.comp_label[c])
        for name, value in info.attributes.items():
            assert game.evaluate(f"c.{name}", c=c) == value
        assert set(info.properties) == set(prog.model.kinds[info.kind].props)
        for name, value in info.properties.items():
            assert game.evaluate(f"c.{name}", c=c) == value
        assert info.zone_owner == game.evaluate("owner(zone_of(c))", c=c)
    for p in range(2):  # owner(k) of a typed component: the seat it was made for
        owners = [game.component_info(c).owner for c in game.components("territory", owner=p)]
        assert owners == game.evaluate("list(owner(k) for k in territory(p))", p=p) and p in owners
    assert game.evaluate("list(owner(k) for k in deck)") == [game.component_info(c).owner
                                                            for c in game.components("deck")]


def test_a_zone_is_listed_bottom_first_narrowed_by_seat_and_cell(naishi):
    game = naishi.new_game(2, seed=1)
    hand = game.components("dealt", owner=1)
    assert [game.component_info(c).index for c in hand] == list(range(len(hand)))
    assert game.view(1)["zones"]["dealt(P2)"] == [game.component_info(c).label for c in hand]
    both = game.components("dealt")
    assert both == game.components("dealt", owner=0) + hand
    cell = game.components("territory", owner=0, row=1, column=3)
    assert [game.component_info(c).zone for c in cell] == ["territory(P1)[1,3]"]
    assert game.components("territory", row=1, column=3) == cell + game.components("territory", owner=1, row=1,
                                                                                         column=3)


def test_hidden_components_are_read_too_and_a_move_shows(hagakure):
    game = hagakure.new_game(3, seed=1)
    hidden = game.components("hand", owner=1)
    assert game.view(0)["zones"]["hand(P2)"] == {"hidden": len(hidden)}  # P1 cannot see them
    info = game.component_info(hidden[0])
    assert info.zone == "hand(P2)" and info.kind == "Card" and isinstance(info.attributes["number"], int)
    assert info.attributes["suit"] in {"Villager", "Samurai", "Ninja", "Shogun", "Fool"} or info.attributes["fool"]
    game.put(hidden[0], "won", owner=2)
    moved = game.component_info(hidden[0])
    assert (moved.zone, moved.zone_owner, moved.index) == ("won(P3)", 2, len(game.components("won", owner=2)) - 1)


def test_properties_show_their_current_values():
    game = ruleforge.load("games/nakasendo.rules").new_game(2, seed=1)
    tile = next(c for c in game.components() if game.component_info(c).kind == "Tile")
    before = game.component_info(tile).properties
    assert before["snow"] == 0 and before["hiker"] is None
    game.set_prop(tile, "snow", 2)
    game.set_prop(tile, "hiker", 1)
    after = game.component_info(tile).properties
    assert (after["snow"], after["hiker"]) == (2, 1)  # a seat as an int, as evaluate gives it
    assert game.evaluate("t.hiker", t=tile) == 1 and game.evaluate_shown("t.hiker", t=tile) == "P2"


@pytest.mark.parametrize("call, message", [
    (lambda g: g.component_info(10_000), "no component with id 10000"),
    (lambda g: g.component_info("Mountain"), "no component with id 'Mountain'"),
    (lambda g: g.components("nowhere"), "no zone named 'nowhere'"),
    (lambda g: g.components("dealt", owner=5), "no seat 5"),
    (lambda g: g.components(owner=0), "name the zone too"),
])
def test_bad_requests_are_clear_errors(naishi, call, message):
    with pytest.raises(GameError, match=message):
        call(naishi.new_game(2))


def test_a_player_variable_is_a_seat_in_python_and_p1_in_views(hagakure):
    game = hagakure.new_game(4, seed=3)
    leader = game.evaluate("leader")
    assert isinstance(leader, int) and 0 <= leader < 4
    shown = f"P{leader + 1}"
    assert game.evaluate_shown("leader") == shown
    for viewer in (None, 0, 3):
        view = game.view(viewer)
        assert view["vars"]["leader"] == shown  # one way in the whole view: keys, viewer, to_act, values
        assert f"hand({view['vars']['leader']})" in view["zones"]
    assert game.view(game.current_player)["viewer"] == game.view(None)["to_act"] == f"P{game.current_player + 1}"
