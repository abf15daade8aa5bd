"""Naishi: Legends & Travellers (games/naishi_legends.rules) against the rulings, by hand.

Every expected number was worked out by hand from /work/shared/rulings/naishi.md (§6 base
scoring, §7 the expansion, §8 worked examples 7-10); the comments show the arithmetic.
Territories are written Line / Hand, positions 1-5 left to right; "M" is a Mountain.
Seats are 0-based in the API and P1/P2 in labels.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import ruleforge
from ruleforge import Game, runtime

RULES = ruleforge.load(Path(__file__).parents[1] / "games" / "naishi_legends.rules")

M = "Mountain"
M5 = [M, M, M, M, M]
LEGENDS = ["Legendary Naishi", "Legendary Advisor", "Legendary Sentinel", "Legendary Monk",
           "Legendary Horseman", "Legendary Ronin", "Legendary Ninja"]
TRAVELLERS = ["Umbrella Lady", "Old Man", "Cherry Blossom Lady", "Little Girl", "Porter", "Samurai"]
BASE = {"Naishi": 2, "Advisor": 4, "Sentinel": 4, "Monk": 3, "Horseman": 2, "Ronin": 2, "Ninja": 2,
        "Fort": 4, "Torii": 4, "Rice Field": 5, "Banner": 2}
BONUS = {"send an Emissary to Swap", "send an Emissary to Discard two", "pass"}


# --- scoring positions ------------------------------------------------------------------------


def position(line: list[str], hand: list[str], *, props: dict[str, Any] | None = None,
             ryokan: tuple[int, int] | None = None, p2: tuple[list[str], list[str]] | None = None) -> Game:
    """P1's territory; `ryokan` = (holder seat, side); `p2` = P2's Line and Hand."""
    zones: dict[str, Any] = {"territory(P1)": [line, hand]}
    if p2 is not None:
        zones["territory(P2)"] = [p2[0], p2[1]]
    variables: dict[str, Any] = {}
    if ryokan is not None:
        zones[f"ryokan_held(P{ryokan[0] + 1})"] = ["Ryokan"]
        variables["ryokan_side"] = ryokan[1]
    return RULES.position({"format": "ruleforge-position/1", "players": 2, "zones": zones,
                           "props": props or {}, "vars": variables})


def points(game: Game, seat: int = 0) -> dict[str, int]:
    """Every item worth something at the final reveal (the Ryokan's among them) and the total."""
    row = dict(game.preview_scoring("points")[seat])
    total = row.pop("total")
    out = {k: v for k, v in row.items() if v}
    out["total"] = total
    assert out["total"] == sum(v for k, v in out.items() if k != "total")
    return out


def colours(game: Game, seat: int = 0) -> int:
    """The tie-break key: distinct colours (§6.5)."""
    return game.scores()[seat]["rank"][1]


def score(line: list[str], hand: list[str], **kw: Any) -> dict[str, int]:
    return points(position(line, hand, **kw))


# --- §8 worked examples 7-10 ---------------------------------------------------------------------


def test_example_7_legendary_naishi() -> None:
    # Line 1 (an extremity): 10; nine Mountains: -5.
    assert score(["Legendary Naishi", M, M, M, M], M5) == {"Naishi": 10, "Mountain": -5, "total": 5}
    # Hand 3 (the centre of the Hand): the same.
    assert score(M5, [M, M, "Legendary Naishi", M, M]) == {"Naishi": 10, "Mountain": -5, "total": 5}
    # Line 2 or Hand 1: nothing.
    assert score([M, "Legendary Naishi", M, M, M], M5) == {"Mountain": -5, "total": -5}
    assert score(M5, ["Legendary Naishi", M, M, M, M]) == {"Mountain": -5, "total": -5}


def test_example_8_legendary_sentinel() -> None:
    # Legendary Sentinel at Line 1: no Sentinel next to it: 5; Rice and Fort in its row: +3 +3.
    # The Rice under it is in the Hand row: nothing. Fort at Line 3: not an edge. 6 Mountains.
    assert score(["Legendary Sentinel", "Rice Field", "Fort", M, M], ["Rice Field", M, M, M, M]) == {
        "Sentinel": 11, "Mountain": -5, "total": 6}
    # Next to a Sentinel: the Legend loses its 5 (3 for the Fort in its row); the Sentinel has a
    # Sentinel (the Legend counts as one) next to it: 0, and +4 for the adjacent Fort.
    assert score(["Legendary Sentinel", "Sentinel", "Fort", M, M], ["Rice Field", M, M, M, M]) == {
        "Sentinel": 7, "Mountain": -5, "total": 2}


def test_example_9_legendary_ronin() -> None:
    # Three Advisors: the largest set is 3: 8. Advisors at 2, 3, 4: 4 + 3 + 4 = 11. 6 Mountains.
    assert score(["Legendary Ronin", "Advisor", "Advisor", "Advisor", M], M5) == {
        "Ronin": 8, "Advisor": 11, "Mountain": -5, "total": 14}
    # The same with a Ninja copying an Advisor as the third Advisor (its copy's set, its points).
    assert score(["Legendary Ronin", "Advisor", "Advisor", "Ninja", M], M5,
                 props={"territory(P1)[1,4]": {"copy": "Advisor"}}) == {
        "Ronin": 8, "Advisor": 11, "Mountain": -5, "total": 14}
    # Five Forts: 25; Forts on an edge: Line 5 and Hand 1: 12. 4 Mountains.
    assert score(["Legendary Ronin", "Fort", "Fort", "Fort", "Fort"], ["Fort", M, M, M, M]) == {
        "Ronin": 25, "Fort": 12, "Mountain": -5, "total": 32}
    # The Legendary Monk joins the Torii set (3: 8) and the Torii count (3: 30); it is next to
    # the Legendary Ronin, a character: 2. 6 Mountains.
    assert score(["Legendary Ronin", "Legendary Monk", "Torii", "Torii", M], M5) == {
        "Ronin": 8, "Torii": 30, "Monk": 2, "Mountain": -5, "total": 35}


def test_example_10_ryokan() -> None:
    # A Traveller scores nothing; 9 Mountains: -5; the Ryokan on 7: 7. White and black.
    game = position(["Umbrella Lady", M, M, M, M], M5, ryokan=(0, 7))
    assert points(game) == {"Mountain": -5, "Ryokan": 7, "total": 2}
    assert colours(game) == 2
    # Example 5 with a second Mountain for the Banner: 8 types + the Ryokan = 9: Ronin 15.
    # Advisor 3 + 4 (Naishi next to it); Sentinel 3 + 4 (Fort); Monk 5 (Hand) + 2 (Torii);
    # one Torii -5; two Mountains -5; Ryokan 4.
    game = position(["Ronin", "Naishi", "Advisor", "Fort", "Sentinel"], ["Torii", "Monk", "Rice Field", M, M],
                    ryokan=(0, 4))
    assert points(game) == {"Ronin": 15, "Advisor": 7, "Sentinel": 7, "Monk": 7, "Torii": -5,
                            "Mountain": -5, "Ryokan": 4, "total": 30}
    # turquoise pink purple brown green red orange yellow white + black
    assert colours(game) == 10


# --- Legendary Naishi ---------------------------------------------------------------------------


@pytest.mark.parametrize("column, expected", [(1, 10), (2, 0), (3, 10), (4, 0), (5, 10)])
def test_legendary_naishi_in_the_line(column: int, expected: int) -> None:
    line = [M] * 5
    line[column - 1] = "Legendary Naishi"
    assert score(line, M5).get("Naishi", 0) == expected


@pytest.mark.parametrize("column, expected", [(1, 0), (2, 0), (3, 10), (4, 0), (5, 0)])
def test_legendary_naishi_in_the_hand(column: int, expected: int) -> None:
    hand = [M] * 5
    hand[column - 1] = "Legendary Naishi"
    assert score(M5, hand).get("Naishi", 0) == expected


def test_legendary_naishi_counts_as_a_naishi_for_others() -> None:
    # Line 3: 10 by its own text, never the base 12. The Advisor at Line 2: 4 + 4 (Naishi next
    # to it). The base Naishi under it at Hand 3: 8. 7 Mountains.
    assert score([M, "Advisor", "Legendary Naishi", M, M], [M, M, "Naishi", M, M]) == {
        "Naishi": 18, "Advisor": 8, "Mountain": -5, "total": 21}
    # A base Naishi at Line 3 (12) and the Legend at Line 1 (10) add up.
    assert score(["Legendary Naishi", M, "Naishi", M, M], M5) == {"Naishi": 22, "Mountain": -5, "total": 17}


# --- Legendary Advisor ----------------------------------------------------------------------------


def test_legendary_advisor_without_naishi() -> None:
    # Three cards count as Advisors: 15 for the Legend; the base ones score by position:
    # Line 2: 4, Hand 5: 2. 7 Mountains.
    assert score(["Legendary Advisor", "Advisor", M, M, M], [M, M, M, M, "Advisor"]) == {
        "Advisor": 21, "Mountain": -5, "total": 16}
    # Alone at Line 2: 5 x 1, no positional 4.
    assert score([M, "Legendary Advisor", M, M, M], M5) == {"Advisor": 5, "Mountain": -5, "total": 0}


def test_legendary_advisor_with_any_naishi_scores_nothing() -> None:
    # A Naishi at Hand 1 (worth 0 there): the Legend scores 0 and gets no +4 for it either;
    # the base Advisor at Line 2 has no Naishi next to it: 4.
    assert score(["Legendary Advisor", "Advisor", M, M, M], ["Naishi", M, M, M, M]) == {
        "Advisor": 4, "Mountain": -5, "total": -1}
    # A Legendary Naishi counts as a Naishi too (Line 5: 10).
    assert score(["Legendary Advisor", M, M, M, "Legendary Naishi"], M5) == {
        "Naishi": 10, "Mountain": -5, "total": 5}


def test_legendary_advisor_counts_a_ninja_copying_an_advisor() -> None:
    # Legend + Advisor + Ninja->Advisor: 15. Advisor at Line 2: 4; the Ninja at Line 3: 3.
    assert score(["Legendary Advisor", "Advisor", "Ninja", M, M], M5,
                 props={"territory(P1)[1,3]": {"copy": "Advisor"}}) == {
        "Advisor": 22, "Mountain": -5, "total": 17}


def test_legendary_advisor_and_a_legendary_ninja_copying_a_naishi() -> None:
    # The Legendary Ninja copies P2's Naishi: it counts as a Naishi (Line 3: 12), so the
    # Legendary Advisor scores 0. 8 Mountains.
    game = position(["Legendary Advisor", M, "Legendary Ninja", M, M], M5,
                    props={"territory(P1)[1,3]": {"copy": "Naishi"}}, p2=(["Naishi", M, M, M, M], M5))
    assert points(game) == {"Naishi": 12, "Mountain": -5, "total": 7}


# --- Legendary Sentinel ---------------------------------------------------------------------------


def test_legendary_sentinel_counts_its_own_row_only() -> None:
    # At Hand 1: no Sentinel next to it: 5; Rice and Fort in the Hand row: +6 (the Forts in the
    # Line do not count). Forts: Line 1 on an edge 6, Line 2 and Hand 3 nothing. 5 Mountains.
    assert score(["Fort", "Fort", M, M, M], ["Legendary Sentinel", "Rice Field", "Fort", M, M]) == {
        "Sentinel": 11, "Fort": 6, "Mountain": -5, "total": 12}
    # A Fort right under it is in the other row: no +3 and no base +4. Fort at Hand 1: 6.
    assert score(["Legendary Sentinel", M, M, M, M], ["Fort", M, M, M, M]) == {
        "Sentinel": 5, "Fort": 6, "Mountain": -5, "total": 6}


def test_legendary_sentinel_row_full_of_provinces() -> None:
    # 5 + 3 x (2 Forts + 2 Rice) = 17; Fort at Line 5: 6; Rice at Line 3-4: a group of 2: 10.
    assert score(["Legendary Sentinel", "Fort", "Rice Field", "Rice Field", "Fort"], M5) == {
        "Sentinel": 17, "Fort": 6, "Rice Field": 10, "Mountain": -5, "total": 28}


def test_legendary_sentinel_next_to_a_ninja_copying_a_sentinel() -> None:
    # Line: Legend, Ninja->Sentinel, Sentinel. Each has a Sentinel next to it: nothing at all.
    assert score(["Legendary Sentinel", "Ninja", "Sentinel", M, M], M5,
                 props={"territory(P1)[1,2]": {"copy": "Sentinel"}}) == {"Mountain": -5, "total": -5}


# --- Legendary Monk -----------------------------------------------------------------------------


def test_legendary_monk_scores_adjacent_characters() -> None:
    # Line 2: Advisor (Line 1) and Horseman (Hand 2) are characters: 4; the Legendary Ninja at
    # Line 3 copies nothing (P2 has no character): not a character. Advisor Line 1: 2;
    # Horseman in the Hand, no Banner above: 3; the Legend is also a Torii: one Torii -5;
    # 6 Mountains -5.
    game = position(["Advisor", "Legendary Monk", "Legendary Ninja", M, M], [M, "Horseman", M, M, M])
    assert points(game) == {"Monk": 4, "Advisor": 2, "Horseman": 3, "Torii": -5, "Mountain": -5, "total": -1}
    # purple orange dark-blue white; the uncopied Ninja has no colour
    assert colours(game) == 4


def test_legendary_monk_in_the_hand_has_no_hand_bonus_and_is_a_torii() -> None:
    # Hand 3 next to two Torii (not characters): 0, no 5 for the Hand. Torii: 2 + the Legend = 3: 30.
    assert score([M, M, "Torii", M, M], [M, M, "Legendary Monk", "Torii", M]) == {
        "Torii": 30, "Mountain": -5, "total": 25}
    # The Legend and one Torii: 2 Torii: 0.
    assert score(["Legendary Monk", "Torii", M, M, M], M5) == {"Mountain": -5, "total": -5}


def test_legendary_monk_and_a_base_monk() -> None:
    # The base Monk at Line 2: not in the Hand, +2 for the Legend next to it (a Torii).
    # The Legend: the base Monk is a character: 2. One Torii: -5.
    assert score([M, "Monk", "Legendary Monk", M, M], M5) == {"Monk": 4, "Torii": -5, "Mountain": -5, "total": -6}


def test_legendary_monk_gives_two_ronin_types() -> None:
    # Types: Ronin Naishi Advisor Fort Sentinel Monk Torii Rice Banner = 9: 15.
    # Advisor 3 + 4; Sentinel 3 + 4; the Legend at Hand 1: the Ronin above is a character: 2;
    # one Torii -5; Hand Banner 0; 2 Mountains -5.
    game = position(["Ronin", "Naishi", "Advisor", "Fort", "Sentinel"],
                    ["Legendary Monk", "Rice Field", "Banner", M, M])
    assert points(game) == {"Ronin": 15, "Advisor": 7, "Sentinel": 7, "Monk": 2, "Torii": -5,
                            "Mountain": -5, "total": 21}
    assert colours(game) == 9


# --- Legendary Horseman --------------------------------------------------------------------------------


def test_legendary_horseman_in_the_line() -> None:
    # Line 2: Banner 8 (province + Banner), Fort 4, Rice under it 4: 16. One Line Banner: 3.
    assert score(["Banner", "Legendary Horseman", "Fort", M, M], [M, "Rice Field", M, M, M]) == {
        "Horseman": 16, "Banner": 3, "Mountain": -5, "total": 14}


def test_legendary_horseman_in_the_hand_under_a_banner() -> None:
    # 8 for the Banner above, not the base 3 + 10.
    assert score([M, "Banner", M, M, M], [M, "Legendary Horseman", M, M, M]) == {
        "Horseman": 8, "Banner": 3, "Mountain": -5, "total": 6}


def test_legendary_horseman_counts_the_legendary_monk_not_a_traveller() -> None:
    # Line 2: the Legendary Monk is a Torii (a province): 4; the Umbrella Lady: nothing.
    # The Legendary Monk: the Horseman is a character: 2. One Torii -5; 7 Mountains -5.
    assert score(["Legendary Monk", "Legendary Horseman", "Umbrella Lady", M, M], M5) == {
        "Horseman": 4, "Monk": 2, "Torii": -5, "Mountain": -5, "total": -4}


# --- Legendary Ronin ----------------------------------------------------------------------------------


def test_legendary_ronin_counts_uncopied_ninjas_as_a_set() -> None:
    # P1 has no base character and neither has P2: every Ninja stays uncopied: a set of 3.
    game = position(["Legendary Ronin", "Ninja", "Ninja", "Legendary Ninja", M], M5)
    assert points(game) == {"Ronin": 8, "Mountain": -5, "total": 3}


def test_legendary_ronin_ignores_mountains_and_travellers() -> None:
    assert score(["Legendary Ronin", M, M, M, M], M5) == {"Mountain": -5, "total": -5}
    # Three Travellers: no icon, no set. 6 Mountains.
    assert score(["Legendary Ronin", "Umbrella Lady", "Old Man", "Porter", M], M5) == {"Mountain": -5, "total": -5}


def test_legendary_ronin_joins_the_ronin_set() -> None:
    # Legend + 2 Ronin: 3: 8. The base Ronins see one type (Ronin): 0 each.
    assert score(["Legendary Ronin", "Ronin", "Ronin", M, M], M5) == {"Ronin": 8, "Mountain": -5, "total": 3}


def test_legendary_ronin_set_over_both_rows() -> None:
    # Four Rice Fields in two groups of 2 (Line 2 over Hand 2, Line 4 over Hand 4): 10 + 10;
    # the set is 4: 15. 5 Mountains.
    assert score(["Legendary Ronin", "Rice Field", M, "Rice Field", M], [M, "Rice Field", M, "Rice Field", M]) == {
        "Ronin": 15, "Rice Field": 20, "Mountain": -5, "total": 30}


def test_legendary_ronin_monk_sets_and_five_or_more() -> None:
    # Two Monks + the Legendary Monk: a Monk set of 3: 8. Monk at Line 3: +2 (the Legend, a
    # Torii, next to it); Monk at Line 2: 0; the Legend: the Monk at Line 3 is a character: 2.
    assert score(["Legendary Ronin", "Monk", "Monk", "Legendary Monk", M], M5) == {
        "Ronin": 8, "Monk": 4, "Torii": -5, "Mountain": -5, "total": 2}
    # Four Torii + the Legendary Monk: a Torii set of 5: 25; Torii 5: 30; the Legend at Hand 1
    # under the Legendary Ronin (a character): 2. 4 Mountains.
    assert score(["Legendary Ronin", "Torii", "Torii", "Torii", "Torii"], ["Legendary Monk", M, M, M, M]) == {
        "Ronin": 25, "Torii": 30, "Monk": 2, "Mountain": -5, "total": 52}


# --- Legendary Ninja ---------------------------------------------------------------------------------


def test_legendary_ninja_copies_from_the_opponent_only() -> None:
    # P2: Naishi, Advisor, a Legend and a Ninja (neither copyable), a Fort. P1's own Advisor is
    # no target for the Legend (it is for P1's base Ninja).
    game = position(["Legendary Ninja", "Advisor", "Ninja", M, M], M5,
                    p2=(["Naishi", "Advisor", "Legendary Sentinel", "Ninja", "Fort"], M5))
    legend = "first(c for c in territory(p) if c.legend)"
    ninja = "first(c for c in territory(p) if c.type == Ninja and not c.legend)"
    assert game.evaluate(f"copy_targets({legend})", p=0) == ["Naishi", "Advisor"]
    assert game.evaluate(f"copy_targets({ninja})", p=0) == ["Advisor"]
    assert game.evaluate(f"copy_targets({ninja})", p=1) == ["Naishi", "Advisor"]


def test_legendary_ninja_scores_as_its_copy() -> None:
    # Copying P2's Naishi at Line 3: 12. White and pink.
    game = position([M, M, "Legendary Ninja", M, M], M5, props={"territory(P1)[1,3]": {"copy": "Naishi"}},
                    p2=(["Naishi", M, M, M, M], M5))
    assert points(game) == {"Naishi": 12, "Mountain": -5, "total": 7}
    assert colours(game) == 2


def test_legendary_ninja_copy_is_a_ronin_type_for_its_owner() -> None:
    # Example 5 with the Legendary Ninja at Hand 4 copying P2's Horseman instead of the Banner:
    # 9 types (the Horseman is not otherwise in P1's territory): Ronin 15. The Ninja is a
    # Horseman in the Hand with a Fort above: 3. Advisor 7, Sentinel 7, Monk 7, Torii -5,
    # one Mountain +5.
    game = position(["Ronin", "Naishi", "Advisor", "Fort", "Sentinel"],
                    ["Torii", "Monk", "Rice Field", "Legendary Ninja", M],
                    props={"territory(P1)[2,4]": {"copy": "Horseman"}}, p2=(["Horseman", M, M, M, M], M5))
    assert points(game) == {"Ronin": 15, "Advisor": 7, "Sentinel": 7, "Monk": 7, "Torii": -5,
                            "Horseman": 3, "Mountain": 5, "total": 39}


def test_base_ninja_copies_only_its_own_types() -> None:
    # The same with a base Ninja copying P1's own Horseman at Hand 5 (replacing the Mountain):
    # the Horseman is a type already, the Ninja adds none: 9 types: 15. Horsemen: Hand 4 (Ninja)
    # and Hand 5, Forts/Sentinel above: 3 + 3. No Mountain: 0.
    game = position(["Ronin", "Naishi", "Advisor", "Fort", "Sentinel"],
                    ["Torii", "Monk", "Rice Field", "Ninja", "Horseman"],
                    props={"territory(P1)[2,4]": {"copy": "Horseman"}})
    assert points(game) == {"Ronin": 15, "Advisor": 7, "Sentinel": 7, "Monk": 7, "Torii": -5,
                            "Horseman": 6, "total": 37}


def test_legendary_ninja_with_nothing_to_copy() -> None:
    # P2 has only a Legend and Mountains: no target, 0 points, no colour.
    game = position(["Legendary Ninja", M, M, M, M], M5, p2=(["Legendary Naishi", M, M, M, M], M5))
    assert game.evaluate("copy_targets(first(c for c in territory(p) if c.legend))", p=0) == []
    assert points(game) == {"Mountain": -5, "total": -5}
    assert colours(game) == 1


# --- the Ryokan ------------------------------------------------------------------------------------


def test_ryokan_neutral_scores_for_nobody() -> None:
    game = position(M5, M5)
    assert points(game) == {"Mountain": -5, "total": -5}
    assert points(game, 1)["total"] == -5   # P2: five Line Mountains (the Hand is not built)
    assert colours(game) == 1


def test_ryokan_scores_only_for_its_holder() -> None:
    game = position(M5, M5, ryokan=(1, 7))
    assert points(game) == {"Mountain": -5, "total": -5}
    assert points(game, 1) == {"Mountain": -5, "Ryokan": 7, "total": 2}
    assert colours(game, 1) == 2 and colours(game, 0) == 1


def test_ryokan_is_an_extra_ronin_type() -> None:
    # 7 types (Ronin Naishi Advisor Fort Sentinel Torii Monk) + the Ryokan = 8: Ronin 8.
    # Advisor 7, Sentinel 7, Monk 7, Torii -5, 3 Mountains -5, Ryokan 4.
    line, hand = ["Ronin", "Naishi", "Advisor", "Fort", "Sentinel"], ["Torii", "Monk", M, M, M]
    assert score(line, hand, ryokan=(0, 4)) == {"Ronin": 8, "Advisor": 7, "Sentinel": 7, "Monk": 7,
                                                "Torii": -5, "Mountain": -5, "Ryokan": 4, "total": 23}
    # Without it: 7 types, no Ronin points.
    assert score(line, hand) == {"Advisor": 7, "Sentinel": 7, "Monk": 7, "Torii": -5, "Mountain": -5, "total": 11}


def test_travellers_have_no_points_type_or_colour() -> None:
    # Five Travellers and five Mountains: Mountains -5 only; one colour (white).
    game = position(["Umbrella Lady", "Old Man", "Cherry Blossom Lady", "Little Girl", "Porter"], M5)
    assert points(game) == {"Mountain": -5, "total": -5}
    assert colours(game) == 1
    assert game.evaluate("ronin_types(p)", p=0) == 0


# --- setup (§7.1) ------------------------------------------------------------------------------------


def start(seed: int = 0) -> Game:
    """A new game after the Gift: the first player's main decision."""
    game = RULES.new_game(2, seed=seed)
    while game.legal_labels()[0].startswith("give "):
        game.apply(game.legal_actions()[0])
    return game


def zone_labels(game: Game, zone: str, owner: int | None = None, row: int | None = None,
                column: int | None = None) -> list[str]:
    return [game.program.comp_label[c] for c in game.state.z[game.zone_index(zone, owner, row, column)]]


def in_zones(game: Game, names: set[str]) -> list[str]:
    """Labels of every component in the zones (every instance and cell) of these names."""
    return [game.program.comp_label[c] for zi, info in enumerate(game.program.zones) if info.name in names
            for c in game.state.z[zi]]


@pytest.mark.parametrize("seed", range(25))
def test_setup(seed: int) -> None:
    game = RULES.new_game(2, seed=seed)
    river = in_zones(game, {"piles", "river"})
    assert [len(zone_labels(game, "piles", None, 1, k)) for k in range(1, 6)] == [6] * 5
    assert [len(zone_labels(game, "river", None, 1, k)) for k in range(1, 6)] == [1] * 5
    legends = [x for x in river if x.startswith("Legendary")]
    travellers = [x for x in river if x in TRAVELLERS]
    assert len(legends) == 3 and len(set(legends)) == 3
    assert len(travellers) == 5 and len(set(travellers)) == 5
    # Out of the game: the 4 other Legends, the sixth Traveller, one base copy per drawn Legend.
    box = Counter(zone_labels(game, "box"))
    drawn = Counter(x.removeprefix("Legendary ") for x in legends)
    assert box == Counter(set(LEGENDS) - set(legends)) + Counter(set(TRAVELLERS) - set(travellers)) + drawn
    # The Hands come from the base cards only: 2 each; 27 base cards in the River.
    dealt = in_zones(game, {"dealt"})
    assert len(dealt) == 4 and all(x in BASE for x in dealt)
    base_in_river = [x for x in river if x in BASE]
    assert len(base_in_river) == 27
    assert Counter(base_in_river) + Counter(dealt) == Counter(BASE) - drawn
    # The Ryokan beside the River, 4 side up, owned by nobody.
    assert zone_labels(game, "ryokan_neutral") == ["Ryokan"]
    assert zone_labels(game, "ryokan_held", 0) == zone_labels(game, "ryokan_held", 1) == []
    assert game.evaluate("ryokan_side") == 4


def test_setup_draws_every_legend_and_traveller_sometimes() -> None:
    legends: Counter[str] = Counter()
    left_out: Counter[str] = Counter()
    for seed in range(60):
        game = RULES.new_game(2, seed=seed)
        box = zone_labels(game, "box")
        legends.update(x for x in LEGENDS if x not in box)
        left_out.update(x for x in TRAVELLERS if x in box)
    assert set(legends) == set(LEGENDS) and sum(legends.values()) == 180
    assert set(left_out) == set(TRAVELLERS) and sum(left_out.values()) == 60


def test_hands_hold_only_base_cards_after_the_gift() -> None:
    for seed in range(10):
        game = start(seed)
        for p in (0, 1):
            hand = [zone_labels(game, "territory", p, 2, k)[0] for k in range(1, 6)]
            assert Counter(hand)[M] == 3 and all(x in BASE or x == M for x in hand)


# --- Travellers and the Ryokan in play (§7.3, §7.4) ----------------------------------------------------

SPARE = ("box", "supply", "deck", "discard", "piles")


def place(game: Game, label: str, zone: str, owner: int | None = None, row: int | None = None,
          column: int | None = None) -> int:
    """Put a component with this label in a zone or cell, taken from a spare place if any (never
    from a cell already built); a cell's former card goes out of the game, to the box."""
    zi = game.zone_index(zone, owner, row, column)
    if row is not None:
        for c in list(game.state.z[zi]):
            runtime.move(game.state, c, game.zone_index("box"))
    names = [info.name for info in game.program.zones]
    candidates = [c for c in game.find(label) if c not in game._placed and game.state.w[c] != zi]
    c = min(candidates, key=lambda c: (SPARE.index(names[game.state.w[c]])
                                       if names[game.state.w[c]] in SPARE else len(SPARE), c))
    return game.put(c, zone, owner, row=row, column=column)


def top(game: Game, zone: str, owner: int | None, row: int, column: int) -> str | None:
    stack = zone_labels(game, zone, owner, row, column)
    return stack[-1] if stack else None


def send_out(game: Game, seat: int, spot: str) -> int:
    """One of the seat's Emissaries from its reserve to a court spot."""
    e = game.state.z[game.zone_index("reserve", seat)][-1]
    return game.put(e, spot)


def ryokan(game: Game) -> tuple[int | None, int]:
    """(holder seat or None, side)."""
    holder = [p for p in (0, 1) if zone_labels(game, "ryokan_held", p)]
    assert len(holder) + len(zone_labels(game, "ryokan_neutral")) == 1
    return (holder[0] if holder else None), game.evaluate("ryokan_side")


def pile_top(game: Game, k: int) -> int:
    return game.state.z[game.zone_index("piles", None, 1, k)][-1]


def river_top(game: Game, k: int) -> int | None:
    stack = game.state.z[game.zone_index("river", None, 1, k)]
    return stack[-1] if stack else None


def test_cherry_blossom_lady_entering() -> None:
    game = start(1)
    p = game.current_player
    place(game, "Cherry Blossom Lady", "river", None, 1, 2)
    hidden = pile_top(game, 2)
    old = top(game, "territory", p, 1, 2)
    hand5 = top(game, "territory", p, 2, 5)
    game.apply("develop from pile 2 into Line 2")
    # The Lady is in place, the Ryokan taken on its 4 side, the pile not yet refilled.
    assert top(game, "territory", p, 1, 2) == "Cherry Blossom Lady"
    assert zone_labels(game, "discard")[-1] == old
    assert ryokan(game) == (p, 4)
    assert river_top(game, 2) is None and pile_top(game, 2) == hidden
    # Optional: swap any two of the 10 cards (45 pairs), or nothing.
    labels = game.legal_labels()
    assert game.current_player == p and len(labels) == 46
    assert all(x.startswith("Cherry Blossom Lady: ") for x in labels)
    assert "Cherry Blossom Lady: no effect" in labels and "Cherry Blossom Lady: swap Line 1 and Hand 5" in labels
    game.apply("Cherry Blossom Lady: swap Line 2 and Hand 5")
    assert top(game, "territory", p, 1, 2) == hand5 and top(game, "territory", p, 2, 5) == "Cherry Blossom Lady"
    # Then the refill, then the bonus action.
    assert river_top(game, 2) == hidden
    assert set(game.legal_labels()) <= BONUS and "pass" in game.legal_labels()


def test_porter_entering_recalls_but_not_the_decree_emissary() -> None:
    game = start(2)
    p = game.current_player
    on_swap = send_out(game, p, "swap_spots")
    on_decree = send_out(game, p, "decree_spot")
    place(game, "Porter", "river", None, 1, 4)
    game.apply("develop from pile 4 into Hand 4")
    assert game.legal_labels() == ["Porter: recall your Emissaries", "Porter: no effect"]
    game.apply("Porter: recall your Emissaries")
    assert game.state.z[game.zone_index("reserve", p)] == [on_swap]
    assert game.state.z[game.zone_index("decree_spot")] == [on_decree]
    # The recalled Emissary makes the bonus possible again.
    assert "send an Emissary to Swap" in game.legal_labels()


def test_porter_with_nothing_to_recall_asks_nothing() -> None:
    game = start(3)
    p = game.current_player
    place(game, "Porter", "river", None, 1, 1)
    game.apply("develop from pile 1 into Line 1")
    assert ryokan(game) == (p, 4)
    assert set(game.legal_labels()) <= BONUS


def test_samurai_takes_the_ryokan_from_the_opponent_on_7() -> None:
    game = start(4)
    p = game.current_player
    place(game, "Ryokan", "ryokan_held", 1 - p)
    place(game, "Samurai", "river", None, 1, 3)
    game.apply("develop from pile 3 into Line 3")
    assert ryokan(game) == (p, 7)
    assert set(game.legal_labels()) <= BONUS        # automatic: no decision


def test_samurai_flips_a_held_ryokan() -> None:
    game = start(4)
    p = game.current_player
    place(game, "Ryokan", "ryokan_held", p)
    place(game, "Samurai", "river", None, 1, 3)
    game.apply("develop from pile 3 into Hand 3")
    assert ryokan(game) == (p, 7)


def test_ryokan_taken_flipped_and_taken_back() -> None:
    game = start(5)
    p = game.current_player
    o = 1 - p
    place(game, "Umbrella Lady", "river", None, 1, 1)
    game.apply("develop from pile 1 into Line 1")      # neutral -> p on 4 (no entering effect)
    assert ryokan(game) == (p, 4)
    game.apply("pass")
    place(game, "Old Man", "river", None, 1, 2)
    game.apply("develop from pile 2 into Line 2")      # o takes it from p, on 4
    assert ryokan(game) == (o, 4)
    game.apply("pass")
    place(game, "Porter", "river", None, 1, 3)
    game.apply("develop from pile 3 into Line 3")      # p takes it back, on 4
    assert ryokan(game) == (p, 4)
    game.apply("pass")
    place(game, "Fort", "river", None, 1, 4)
    game.apply("develop from pile 4 into Line 4")      # not a Traveller: nothing
    assert ryokan(game) == (p, 4)
    game.apply("pass")
    place(game, "Cherry Blossom Lady", "river", None, 1, 5)
    game.apply("develop from pile 5 into Hand 5")      # p holds it on 4: flipped to 7
    assert ryokan(game) == (p, 7)
    game.apply("Cherry Blossom Lady: no effect")
    game.apply("pass")
    place(game, "Fort", "river", None, 1, 1)
    game.apply("develop from pile 1 into Hand 1")
    game.apply("pass")
    place(game, "Samurai", "river", None, 1, 2)
    game.apply("develop from pile 2 into Hand 2")      # on 7 already: stays
    assert ryokan(game) == (p, 7)


def test_umbrella_lady_leaving_swaps_after_the_new_card_is_in() -> None:
    game = start(6)
    p = game.current_player
    place(game, "Umbrella Lady", "territory", p, 2, 1)
    place(game, "Fort", "river", None, 1, 1)
    line1 = top(game, "territory", p, 1, 1)
    game.apply("develop from pile 1 into Hand 1")
    assert top(game, "territory", p, 2, 1) == "Fort" and zone_labels(game, "discard")[-1] == "Umbrella Lady"
    assert river_top(game, 1) is None
    labels = game.legal_labels()
    assert len(labels) == 46 and all(x.startswith("Umbrella Lady: ") for x in labels)
    game.apply("Umbrella Lady: swap Line 1 and Hand 1")
    assert top(game, "territory", p, 1, 1) == "Fort" and top(game, "territory", p, 2, 1) == line1
    assert ryokan(game) == (None, 4)                   # a leaving Traveller never moves it
    assert river_top(game, 1) is not None


def test_old_man_leaving_recalls() -> None:
    game = start(7)
    p = game.current_player
    send_out(game, p, "swap_spots")
    send_out(game, p, "discard_spots")
    place(game, "Old Man", "territory", p, 1, 5)
    game.apply("develop from pile 5 into Line 5")
    assert game.legal_labels() == ["Old Man: recall your Emissaries", "Old Man: no effect"]
    game.apply("Old Man: recall your Emissaries")
    assert len(game.state.z[game.zone_index("reserve", p)]) == 2


def test_old_man_with_nothing_out_asks_nothing() -> None:
    game = start(7)
    place(game, "Old Man", "territory", game.current_player, 1, 5)
    game.apply("develop from pile 5 into Line 5")
    assert set(game.legal_labels()) <= BONUS


def test_little_girl_chain() -> None:
    game = start(8)
    p = game.current_player
    send_out(game, p, "swap_spots")
    place(game, "Little Girl", "territory", p, 1, 1)
    place(game, "Fort", "river", None, 1, 1)
    place(game, "Porter", "river", None, 1, 3)
    hidden1, hidden3 = pile_top(game, 1), pile_top(game, 3)
    game.apply("develop from pile 1 into Line 1")
    # Another pile: the used one shows no card yet; 4 piles x 2 rows, or nothing.
    assert river_top(game, 1) is None and top(game, "territory", p, 1, 1) == "Fort"
    labels = game.legal_labels()
    assert len(labels) == 9 and "Little Girl: no effect" in labels
    assert not any("pile 1" in x for x in labels)
    game.apply("Little Girl: develop from pile 3 into Hand 3")
    # The chained Develop takes the Porter: the Ryokan at once, then its effect, before either
    # pile is refilled, and no bonus action in between.
    assert top(game, "territory", p, 2, 3) == "Porter" and ryokan(game) == (p, 4)
    assert river_top(game, 1) is None and river_top(game, 3) is None
    assert game.legal_labels() == ["Porter: recall your Emissaries", "Porter: no effect"]
    game.apply("Porter: recall your Emissaries")
    assert len(game.state.z[game.zone_index("reserve", p)]) == 2
    # Both piles refilled, then the (unused) bonus action.
    assert river_top(game, 1) == hidden1 and river_top(game, 3) == hidden3
    assert set(game.legal_labels()) <= BONUS and "send an Emissary to Swap" in game.legal_labels()
    game.apply("pass")
    assert game.current_player == 1 - p


def test_little_girl_chain_triggers_leaving_and_entering_again() -> None:
    game = start(9)
    p = game.current_player
    place(game, "Little Girl", "territory", p, 1, 1)
    place(game, "Umbrella Lady", "territory", p, 1, 2)
    place(game, "Fort", "river", None, 1, 1)
    place(game, "Cherry Blossom Lady", "river", None, 1, 2)
    game.apply("develop from pile 1 into Line 1")
    game.apply("Little Girl: develop from pile 2 into Line 2")
    assert ryokan(game) == (p, 4)
    labels = game.legal_labels()
    # Both Travellers of the chained Develop: the player picks the order.
    assert len(labels) == 92
    assert {x.split(":")[0] for x in labels} == {"Umbrella Lady", "Cherry Blossom Lady"}
    game.apply("Umbrella Lady: no effect")
    labels = game.legal_labels()
    assert len(labels) == 46 and all(x.startswith("Cherry Blossom Lady: ") for x in labels)
    game.apply("Cherry Blossom Lady: swap Line 1 and Line 2")
    assert top(game, "territory", p, 1, 1) == "Cherry Blossom Lady" and top(game, "territory", p, 1, 2) == "Fort"
    assert set(game.legal_labels()) <= BONUS


def test_leaving_and_entering_at_once_in_the_players_order() -> None:
    game = start(10)
    p = game.current_player
    send_out(game, p, "swap_spots")
    place(game, "Old Man", "territory", p, 1, 5)
    place(game, "Cherry Blossom Lady", "river", None, 1, 5)
    game.apply("develop from pile 5 into Line 5")
    labels = game.legal_labels()
    assert "Old Man: recall your Emissaries" in labels and "Cherry Blossom Lady: swap Line 4 and Line 5" in labels
    assert len(labels) == 2 + 46
    game.apply("Cherry Blossom Lady: swap Line 4 and Line 5")
    assert game.legal_labels() == ["Old Man: recall your Emissaries", "Old Man: no effect"]
    game.apply("Old Man: recall your Emissaries")
    assert set(game.legal_labels()) <= BONUS


def test_decree_fires_nothing() -> None:
    game = start(11)
    p = game.current_player
    o = 1 - p
    send_out(game, p, "swap_spots")
    place(game, "Porter", "territory", o, 1, 3)          # an entering Traveller, taken by Decree
    place(game, "Umbrella Lady", "territory", p, 1, 3)   # a leaving one, given away
    game.apply("Imperial Decree: exchange Line 3")
    assert top(game, "territory", p, 1, 3) == "Porter" and top(game, "territory", o, 1, 3) == "Umbrella Lady"
    assert ryokan(game) == (None, 4)
    assert len(game.state.z[game.zone_index("swap_spots")]) == 1     # no recall
    assert game.current_player == o and "develop from pile 1 into Line 1" in game.legal_labels()


def test_swap_bonus_fires_nothing() -> None:
    game = start(12)
    p = game.current_player
    place(game, "Umbrella Lady", "territory", p, 1, 1)
    game.apply("send an Emissary to Swap")
    game.apply("swap Line 1 and Line 2")
    assert top(game, "territory", p, 1, 2) == "Umbrella Lady"
    # The bonus came first, so the Develop must follow; nothing was triggered.
    assert all(x.startswith("develop ") for x in game.legal_labels())
    assert ryokan(game) == (None, 4)


def test_river_swap_and_discard_two_fire_nothing() -> None:
    game = start(13)
    place(game, "Porter", "river", None, 1, 1)
    place(game, "Samurai", "river", None, 1, 2)
    game.apply("send an Emissary to Swap")
    game.apply("swap River 1 and 2")
    assert top(game, "river", None, 1, 1) == "Samurai" and top(game, "river", None, 1, 2) == "Porter"
    assert ryokan(game) == (None, 4)
    game2 = start(13)
    place(game2, "Porter", "river", None, 1, 1)
    place(game2, "Samurai", "river", None, 1, 2)
    game2.apply("send an Emissary to Discard two")
    game2.apply("discard River 1 and 2")
    assert zone_labels(game2, "discard")[-2:] == ["Porter", "Samurai"]
    assert ryokan(game2) == (None, 4)


def test_traveller_in_the_hand_is_hidden_but_the_ryokan_is_public() -> None:
    game = start(14)
    p = game.current_player
    o = 1 - p
    place(game, "Porter", "river", None, 1, 2)
    game.apply("develop from pile 2 into Hand 2")
    view = game.view(o)
    assert view["zones"][f"territory(P{p + 1})[2,2]"] == {"hidden": 1}
    assert view["zones"][f"ryokan_held(P{p + 1})"] == ["Ryokan"]
    assert game.view(p)["zones"][f"territory(P{p + 1})[2,2]"] == ["Porter"]


# --- the Legendary Ninja at the reveal, and the Ryokan in the final scores ---------------------


def test_legendary_ninja_chooses_among_the_opponents_characters_at_the_reveal() -> None:
    game = start(15)
    p = game.current_player
    o = 1 - p
    mine = ["Banner", "Banner", "Legendary Ninja", "Rice Field", "Rice Field"], [M, M, M, M, M]
    theirs = ["Advisor", "Naishi", "Fort", "Fort", "Fort"], ["Torii", "Torii", "Torii", "Rice Field", "Rice Field"]
    for seat, (line, hand) in ((p, mine), (o, theirs)):
        for k in range(5):
            place(game, line[k], "territory", seat, 1, k + 1)
            place(game, hand[k], "territory", seat, 2, k + 1)
    place(game, "Ryokan", "ryokan_held", p)
    game.set_var("ryokan_side", 7)
    # Deplete pile 5 so that the end may be declared.
    for zone in ("river", "piles"):
        for c in list(game.state.z[game.zone_index(zone, None, 1, 5)]):
            runtime.move(game.state, c, game.zone_index("box"))
    game._refresh_legal()
    game.apply("declare the end")
    place(game, "Fort", "river", None, 1, 4)
    game.apply("develop from pile 4 into Hand 4")         # o's final turn: a Fort for a Rice Field
    game.apply("pass")
    assert game.current_player == p
    assert game.legal_labels() == ["Legendary Ninja at Line 3 copies Naishi",
                                   "Legendary Ninja at Line 3 copies Advisor"]
    game.apply("Legendary Ninja at Line 3 copies Naishi")
    assert game.is_over
    rows = game.scores()
    # p: Naishi at Line 3 (the Ninja): 12; 2 Line Banners: 8; Rice in a group of 2: 10;
    # 5 Mountains: -5; Ryokan 7. Colours: light blue, pink, yellow, white, black.
    assert {k: v for k, v in rows[p]["breakdown"].items() if v} == {
        "Naishi": 12, "Banner": 8, "Rice Field": 10, "Mountain": -5, "Ryokan": 7}
    assert rows[p]["total"] == 32 and rows[p]["rank"] == [32, 5]
    # o: Advisor at Line 1: 2 + 4 (the Naishi next to it); Forts at Line 3, 4, 5 and Hand 4: only
    # Line 5 is on an edge: 6; 3 Torii: 30; the Rice at Hand 5 is alone now: 0; no Mountain.
    assert {k: v for k, v in rows[o]["breakdown"].items() if v} == {"Advisor": 6, "Fort": 6, "Torii": 30}
    assert rows[o]["total"] == 42
    assert game.winners() == [o]


def test_bonus_first_then_a_develop_with_a_traveller() -> None:
    game = start(16)
    p = game.current_player
    place(game, "Porter", "river", None, 1, 2)
    game.apply("send an Emissary to Swap")
    game.apply("swap Line 1 and Line 2")
    game.apply("develop from pile 2 into Line 2")
    # The Emissary just sent may come back; the bonus is used, so the turn then ends.
    assert game.legal_labels() == ["Porter: recall your Emissaries", "Porter: no effect"]
    game.apply("Porter: recall your Emissaries")
    assert len(game.state.z[game.zone_index("reserve", p)]) == 2
    assert game.current_player == 1 - p and "develop from pile 1 into Line 1" in game.legal_labels()
    assert f"P{p + 1} takes the Ryokan on its 4 side" in game.log_lines()


def test_little_girl_with_no_other_pile_showing_a_card_asks_nothing() -> None:
    game = start(17)
    p = game.current_player
    for k in range(2, 6):     # piles 2-5 exhausted
        for zone in ("river", "piles"):
            for c in list(game.state.z[game.zone_index(zone, None, 1, k)]):
                runtime.move(game.state, c, game.zone_index("box"))
    place(game, "Little Girl", "territory", p, 2, 1)
    place(game, "Fort", "river", None, 1, 1)
    game.apply("develop from pile 1 into Hand 1")
    assert set(game.legal_labels()) <= BONUS
