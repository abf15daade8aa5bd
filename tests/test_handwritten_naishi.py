"""Tests for the hand-written Naishi baseline and scoring oracle (bench/handwritten_naishi.py).

Expected numbers are worked out by hand from /work/shared/rulings/naishi.md (§6), never
taken from the code. Cells: 0-4 the Line (positions 1-5), 5-9 the Hand; Hand i sits under
Line i. "M" = Mountain; "-N Mountains" means N Mountains in the territory.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest
import seeded
from baselines import load_baseline

import ruleforge

BASELINE = Path(__file__).parents[1] / "bench" / "handwritten_naishi.py"

hw = load_baseline("handwritten_naishi")

M = "Mountain"
N = "Naishi"
A = "Advisor"
F = "Fort"
S = "Sentinel"
T = "Torii"
K = "Monk"
R = "Rice Field"
B = "Banner"
H = "Horseman"
RO = "Ronin"
NJ = "Ninja"

M5 = [M, M, M, M, M]


def score(line: list[str], hand: list[str], copies: dict[int, str | None] | None = None) -> dict[str, int]:
    return hw.score_territory(line, hand, copies)


def nonzero(points: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in points.items() if v and k != "total"}


# --- rulings §8, worked examples 1-6 (base game) -------------------------------------------


def test_ruling_example_1() -> None:
    # Fort Sentinel Advisor Banner Rice / Fort Mountain Naishi Rice Rice
    # 1 Mountain: +5. Forts in column 1 (cells 0 and 5): 12.
    # Sentinel (cell 1): no Sentinel near, Fort at cell 0: 3 + 4 = 7.
    # Advisor (cell 2): column 3 = 3, Naishi below (cell 7): +4 = 7.
    # 1 Line Banner: 3. Naishi at Hand 3: 8. Rice cells 4-9-8 form one group of 3: 20.
    line, hand = [F, S, A, B, R], [F, M, N, R, R]
    pts = score(line, hand)
    assert nonzero(pts) == {M: 5, F: 12, S: 7, A: 7, B: 3, N: 8, R: 20}
    assert pts["total"] == 62
    # brown, green, purple, light blue, yellow, white, pink
    assert hw.colours(line, hand) == 7


def test_ruling_example_2() -> None:
    # Naishi at Line 2: 0, Line 3: 12, Hand 3: 8, Hand 5: 0 -> 20; 6 Mountains: -5.
    pts = score([M, N, N, M, M], [M, M, N, M, N])
    assert nonzero(pts) == {N: 20, M: -5}
    assert pts["total"] == 15


def test_ruling_example_3() -> None:
    # Advisor (cell 2): 3 + 4 for the Naishi below (cell 7); the Naishis at cells 5 and 6
    # are diagonal/far, not adjacent. Naishi: only Hand 3 scores, 8. 6 Mountains: -5.
    pts = score([M, M, A, M, M], [N, N, N, M, M])
    assert nonzero(pts) == {A: 7, N: 8, M: -5}
    assert pts["total"] == 10


def test_ruling_example_4_one_group_of_six() -> None:
    # Rice at 0,1,3,6,7,8: 0-1, 1-6, 6-7, 7-8, 8-3 chain into one group of 6: 30. 4 Mountains: -5.
    pts = score([R, R, M, R, M], [M, R, R, R, M])
    assert nonzero(pts) == {R: 30, M: -5}
    assert pts["total"] == 25


def test_ruling_example_4_three_lone_rice() -> None:
    # Rice at 0, 2, 4: three groups of 1, 0 each. 7 Mountains: -5.
    pts = score([R, M, R, M, R], M5)
    assert nonzero(pts) == {M: -5}
    assert pts["total"] == -5


def test_ruling_example_5() -> None:
    # Types: Ronin Naishi Advisor Fort Sentinel Torii Monk Rice Banner = 9 -> Ronin 15.
    # Advisor (cell 2): 3 + 4 (Naishi cell 1) = 7. Sentinel (cell 4): 3 + 4 (Fort cell 3) = 7.
    # Monk (cell 6, Hand): 5 + 2 (Torii cell 5) = 7. 1 Torii: -5. 1 Mountain: +5.
    # Naishi at Line 2, Fort at position 4, lone Rice, Hand Banner: 0.
    line, hand = [RO, N, A, F, S], [T, K, R, B, M]
    pts = score(line, hand)
    assert nonzero(pts) == {RO: 15, A: 7, S: 7, K: 7, T: -5, M: 5}
    assert pts["total"] == 36
    assert hw.colours(line, hand) == 10


def test_ruling_example_6_ninja_copies_naishi() -> None:
    # Ninja at Line 3 copying Naishi: 12. 9 Mountains: -5. Colours: white, pink.
    line = [M, M, NJ, M, M]
    pts = score(line, M5, {2: N})
    assert nonzero(pts) == {N: 12, M: -5}
    assert pts["total"] == 7
    assert hw.colours(line, M5, {2: N}) == 2


def test_ruling_example_6_uncopied() -> None:
    # Uncopied Ninja: 0 points, no colour. 9 Mountains: -5; colours: white only.
    line = [M, M, NJ, M, M]
    for copies in ({2: None}, None):
        assert score(line, M5, copies)["total"] == -5
        assert hw.colours(line, M5, copies) == 1


# --- own positions --------------------------------------------------------------------------


def test_advisor_every_line_position() -> None:
    # 2 + 4 + 3 + 4 + 2 = 15; no Naishi. 5 Mountains: -5. Total 10.
    pts = score([A, A, A, A, A], M5)
    assert nonzero(pts) == {A: 15, M: -5}
    assert pts["total"] == 10


def test_advisor_every_hand_position() -> None:
    # Same column values in the Hand: 15. 5 Mountains: -5.
    assert score(M5, [A, A, A, A, A])["total"] == 10


def test_advisor_three_adjacent_naishi() -> None:
    # Advisor (cell 2): 3 + 4 * 3 (Naishi at cells 1, 3, 7) = 15.
    # Naishi: Line 2 and Line 4 score 0, Hand 3 scores 8. 6 Mountains: -5. Total 18.
    pts = score([M, N, A, N, M], [M, M, N, M, M])
    assert nonzero(pts) == {A: 15, N: 8, M: -5}
    assert pts["total"] == 18


def test_advisor_edge_with_naishi_below() -> None:
    # Advisor (cell 0): 2 + 4 (Naishi cell 5). Naishi at Hand 1: 0. 8 Mountains: -5. Total 1.
    pts = score([A, M, M, M, M], [N, M, M, M, M])
    assert nonzero(pts) == {A: 6, M: -5}
    assert pts["total"] == 1


def test_naishi_line_3_with_advisor_below() -> None:
    # Naishi Line 3: 12. Advisor (cell 7): 3 + 4 (Naishi cell 2) = 7. 8 Mountains: -5. Total 14.
    pts = score([M, M, N, M, M], [M, M, A, M, M])
    assert nonzero(pts) == {N: 12, A: 7, M: -5}
    assert pts["total"] == 14


def test_fort_edges_only() -> None:
    # Forts at cells 0, 4, 5, 9 (columns 1 and 5): 4 * 6 = 24; cell 2 (column 3): 0.
    # 4 Mountains: -5. Total 19.
    pts = score([F, M, F, M, F], [F, M, M, M, F])
    assert nonzero(pts) == {F: 24, M: -5}
    assert pts["total"] == 19


def test_sentinel_alone() -> None:
    # Sentinel: 3 (no Sentinel near, no Fort). 9 Mountains: -5. Total -2.
    assert score([S, M, M, M, M], M5)["total"] == -2


def test_sentinels_side_by_side_and_stacked() -> None:
    # Two neighbouring Sentinels in a row: 0 each. 8 Mountains: -5. Total -5.
    assert nonzero(score([S, S, M, M, M], M5)) == {M: -5}
    # Line 1 over Hand 1 are adjacent too: 0 each. Total -5.
    assert nonzero(score([S, M, M, M, M], [S, M, M, M, M])) == {M: -5}
    # Diagonal Sentinels are not adjacent: 3 + 3 = 6. 8 Mountains: -5. Total 1.
    assert score([S, M, M, M, M], [M, S, M, M, M])["total"] == 1


def test_sentinel_three_adjacent_forts() -> None:
    # Sentinel (cell 1): 3 + 4 * 3 (Forts at cells 0, 2, 6) = 15.
    # Forts: cell 0 (column 1) 6; cells 2 and 6 (column 3, 2) 0. 6 Mountains: -5. Total 16.
    pts = score([F, S, F, M, M], [M, F, M, M, M])
    assert nonzero(pts) == {S: 15, F: 6, M: -5}
    assert pts["total"] == 16


def test_sentinel_next_to_sentinel_and_fort() -> None:
    # Sentinel cell 1: Sentinel near (cell 2) so no 3, Fort at cell 0: +4 -> 4.
    # Sentinel cell 2: Sentinel near, no Fort: 0. Fort cell 0: 6. 7 Mountains: -5. Total 5.
    pts = score([F, S, S, M, M], M5)
    assert nonzero(pts) == {S: 4, F: 6, M: -5}
    assert pts["total"] == 5


@pytest.mark.parametrize(
    ("line", "torii_points"),
    [
        ([T, M, M, M, M], -5),  # 1 Torii
        ([T, T, M, M, M], 0),  # 2 Torii
        ([T, T, T, M, M], 30),  # 3 Torii
        ([T, T, T, T, M], 30),  # 4 Torii: still 30
    ],
)
def test_torii_counts(line: list[str], torii_points: int) -> None:
    # Mountains: 6 or more in every case: -5.
    pts = score(line, M5)
    assert pts[T] == torii_points
    assert pts["total"] == torii_points - 5


def test_four_torii_with_one_mountain() -> None:
    # 4 Torii: 30. Fort cell 4 (column 5): 6. Advisors cells 5-8: 2 + 4 + 3 + 4 = 13.
    # 1 Mountain (cell 9): +5. Total 54.
    pts = score([T, T, T, T, F], [A, A, A, A, M])
    assert nonzero(pts) == {T: 30, F: 6, A: 13, M: 5}
    assert pts["total"] == 54


def test_monk_in_hand_with_three_torii() -> None:
    # Monk (cell 6, Hand): 5 + 2 * 3 (Torii at cells 5, 7 and 1 above) = 11.
    # 3 Torii: 30. 6 Mountains: -5. Total 36.
    pts = score([M, T, M, M, M], [T, K, T, M, M])
    assert nonzero(pts) == {K: 11, T: 30, M: -5}
    assert pts["total"] == 36


def test_monk_in_line_with_torii_below() -> None:
    # Monk (cell 0, Line): no Hand bonus, 2 for the Torii below (cell 5) = 2.
    # 1 Torii: -5. 8 Mountains: -5. Total -8.
    pts = score([K, M, M, M, M], [T, M, M, M, M])
    assert nonzero(pts) == {K: 2, T: -5, M: -5}
    assert pts["total"] == -8


def test_monk_in_hand_alone() -> None:
    # Monk (cell 7): 5. 9 Mountains: -5. Total 0.
    pts = score(M5, [M, M, K, M, M])
    assert nonzero(pts) == {K: 5, M: -5}
    assert pts["total"] == 0


@pytest.mark.parametrize(
    ("line", "hand", "rice_points"),
    [
        ([R, M, M, M, M], M5, 0),  # group of 1
        ([R, R, M, M, M], M5, 10),  # group of 2 in a row
        ([R, M, M, M, M], [R, M, M, M, M], 10),  # group of 2 in a column
        ([R, R, R, M, M], M5, 20),  # group of 3
        ([R, M, M, M, M], [R, R, R, M, M], 30),  # group of 4: 0-5, 5-6, 6-7
        ([R, R, R, R, R], M5, 30),  # group of 5
        ([R, R, R, M, M], [M, M, R, R, R], 30),  # group of 6: 0-1-2, 2-7, 7-8-9
        ([R, R, M, R, R], M5, 20),  # two groups of 2: 10 + 10
        ([R, R, M, M, R], [R, M, M, M, R], 30),  # {0,1,5}: 20 + {4,9}: 10
        ([R, M, M, M, M], [M, R, M, M, M], 0),  # diagonal: two groups of 1
    ],
)
def test_rice_groups(line: list[str], hand: list[str], rice_points: int) -> None:
    # Every layout has at least 2 Mountains: -5.
    pts = score(line, hand)
    assert nonzero(pts) == ({R: rice_points, M: -5} if rice_points else {M: -5})
    assert pts["total"] == rice_points - 5


@pytest.mark.parametrize(
    ("line", "hand", "banner_points"),
    [
        (M5, M5, 0),  # no Banner
        ([B, M, M, M, M], M5, 3),  # 1 Line Banner
        ([B, M, M, M, B], M5, 8),  # 2 Line Banners: 8 in total
        (M5, [B, B, M, M, M], 0),  # Hand Banners score nothing
        ([B, M, M, M, M], [M, B, M, M, M], 3),  # 1 Line + 1 Hand Banner: the Line one alone
    ],
)
def test_banners(line: list[str], hand: list[str], banner_points: int) -> None:
    # 8 or more Mountains in every case: -5.
    pts = score(line, hand)
    assert pts[B] == banner_points
    assert pts["total"] == banner_points - 5


def test_horseman_under_banner() -> None:
    # Horseman (cell 5, Hand): 3 + 10 (Banner directly above, cell 0) = 13.
    # 1 Line Banner: 3. 8 Mountains: -5. Total 11.
    pts = score([B, M, M, M, M], [H, M, M, M, M])
    assert nonzero(pts) == {H: 13, B: 3, M: -5}
    assert pts["total"] == 11


def test_horseman_without_banner_above() -> None:
    # Horseman (cell 6): 3; the Banner is above cell 5, not 6. Banner: 3. -5. Total 1.
    assert nonzero(score([B, M, M, M, M], [M, H, M, M, M])) == {H: 3, B: 3, M: -5}
    # Horseman alone in the Hand: 3. 9 Mountains: -5. Total -2.
    assert score(M5, [M, H, M, M, M])["total"] == -2


def test_horseman_in_line_scores_nothing() -> None:
    # Horseman (cell 0, Line): 0. Hand Banner: 0. 8 Mountains: -5. Total -5.
    assert nonzero(score([H, M, M, M, M], [B, M, M, M, M])) == {M: -5}


def test_ronin_ten_types_no_mountain() -> None:
    # 10 types -> Ronin 45. Advisor (cell 2): 3 + 4 (Naishi cell 1) = 7.
    # Sentinel (cell 4): 3 + 4 (Fort cell 3) = 7; Horseman (cell 9) is not a Sentinel.
    # 1 Torii: -5. Monk (cell 6): 5 + 2 (Torii cell 5) = 7. Horseman (cell 9): 3 (Sentinel above).
    # Naishi Line 2, Fort position 4, lone Rice, Hand Banner: 0. No Mountain: 0.
    # Total 45 + 7 + 7 - 5 + 7 + 3 = 64. Colours: the 10 non-white colours.
    line, hand = [RO, N, A, F, S], [T, K, R, B, H]
    pts = score(line, hand)
    assert nonzero(pts) == {RO: 45, A: 7, S: 7, T: -5, K: 7, H: 3}
    assert pts["total"] == 64
    assert hw.colours(line, hand) == 10


def test_ronin_two_ronins_nine_types() -> None:
    # Types: Ronin Naishi Advisor Fort Sentinel Torii Monk Rice Banner = 9: each Ronin 15 -> 30.
    # Advisor 7, Sentinel (cell 4: Fort cell 3, Ronin cell 9) 7, Torii -5, Monk 7. No Mountain.
    # Total 30 + 7 + 7 - 5 + 7 = 46.
    pts = score([RO, N, A, F, S], [T, K, R, B, RO])
    assert nonzero(pts) == {RO: 30, A: 7, S: 7, T: -5, K: 7}
    assert pts["total"] == 46


def test_ronin_eight_types() -> None:
    # Types: Ronin Naishi Advisor Fort Sentinel Torii Monk Rice = 8 -> 8.
    # Advisor 7, Sentinel 7, Torii -5, Monk 7, 2 Mountains -5. Total 19.
    pts = score([RO, N, A, F, S], [T, K, R, M, M])
    assert nonzero(pts) == {RO: 8, A: 7, S: 7, T: -5, K: 7, M: -5}
    assert pts["total"] == 19


def test_ronin_seven_types() -> None:
    # Types: Ronin Naishi Advisor Fort Sentinel Torii Monk = 7 -> 0.
    # Advisor 7, Sentinel 7, Torii -5, Monk 7, 3 Mountains -5. Total 11.
    pts = score([RO, N, A, F, S], [T, K, M, M, M])
    assert nonzero(pts) == {A: 7, S: 7, T: -5, K: 7, M: -5}
    assert pts["total"] == 11


def test_ninja_never_adds_a_ronin_type() -> None:
    # Real types: Ronin Naishi Advisor Fort Sentinel Torii Monk Rice = 8 (the Ninja adds none,
    # whatever it copies) -> Ronin 8. Ninja (cell 8) copying Naishi at Hand 4: 0.
    # Advisor 7, Sentinel (cell 4: Fort cell 3, Mountain cell 9) 7, Torii -5, Monk 7.
    # 1 Mountain (cell 9): +5. Total 8 + 7 + 7 - 5 + 7 + 5 = 29.
    pts = score([RO, N, A, F, S], [T, K, R, NJ, M], {8: N})
    assert nonzero(pts) == {RO: 8, A: 7, S: 7, T: -5, K: 7, M: 5}
    assert pts["total"] == 29


def test_ninja_best_copy_is_ronin() -> None:
    # Same territory, Ninja (cell 8, Hand 4; neighbours Rice 7, Mountain 9, Fort 3) uncopied.
    # Targets (Horseman absent): Naishi 0; Advisor 4 (column 4, no Naishi near);
    # Sentinel 3 + 4 (Fort above) = 7 (the Line Sentinel at cell 4 is not adjacent);
    # Monk 5 (no Torii near); Ronin 8 (still 8 types). Best: Ronin, 29 + 8 = 37.
    line, hand = [RO, N, A, F, S], [T, K, R, NJ, M]
    assert hw.resolve_copies(line, hand) == {8: RO}
    pts = score(line, hand)
    assert pts[RO] == 16
    assert pts["total"] == 37


def test_ninja_best_copy_naishi_feeds_advisor() -> None:
    # Targets: Advisor, Naishi. As Naishi (cell 2, Line 3): 12; Advisor (cell 7): 3 + 4 = 7;
    # Naishi (cell 9): 0 -> 19. As Advisor: 3 + 0, Advisor (cell 7) 3 + 0 -> 6.
    # Best: Naishi. 7 Mountains: -5. Total 19 - 5 = 14.
    line, hand = [M, M, NJ, M, M], [M, M, A, M, N]
    assert hw.resolve_copies(line, hand) == {2: N}
    pts = score(line, hand)
    assert nonzero(pts) == {N: 12, A: 7, M: -5}
    assert pts["total"] == 14
    # Forcing the Advisor copy instead: Advisor 3 + 3 = 6, -5 -> 1.
    assert score(line, hand, {2: A})["total"] == 1


def test_ninja_no_target() -> None:
    # Only provinces and Mountains: the Ninja copies nothing, 0 points, no colour.
    # Fort cell 0: 6. 8 Mountains: -5. Total 1. Colours: brown, white.
    line, hand = [F, NJ, M, M, M], M5
    assert hw.resolve_copies(line, hand) == {1: None}
    assert nonzero(score(line, hand)) == {F: 6, M: -5}
    assert hw.colours(line, hand) == 2


def test_sentinel_ninja_cancels_neighbour() -> None:
    # Only target is Sentinel (automatic). Sentinel cell 0 and Ninja-Sentinel cell 1 are
    # adjacent Sentinels: 0 each. 8 Mountains: -5. Total -5.
    line, hand = [S, NJ, M, M, M], M5
    assert hw.resolve_copies(line, hand) == {1: S}
    assert nonzero(score(line, hand)) == {M: -5}


def test_two_ninjas_copy_the_same_naishi() -> None:
    # Both Ninjas copy the one Naishi: cell 2 (Line 3) 12, cell 7 (Hand 3) 8; Naishi cell 0: 0.
    # 7 Mountains: -5. Total 15. Colours: pink, white.
    line, hand = [N, M, NJ, M, M], [M, M, NJ, M, M]
    assert hw.resolve_copies(line, hand) == {2: N, 7: N}
    pts = score(line, hand)
    assert nonzero(pts) == {N: 20, M: -5}
    assert pts["total"] == 15
    assert hw.colours(line, hand) == 2


def test_ninja_horseman_under_banner() -> None:
    # Only target Horseman. Ninja-Horseman (cell 5): 3 + 10 (Banner above); Horseman (cell 6): 3.
    # 1 Line Banner: 3. 7 Mountains: -5. Total 14.
    pts = score([B, M, M, M, M], [NJ, H, M, M, M])
    assert nonzero(pts) == {H: 16, B: 3, M: -5}
    assert pts["total"] == 14


def test_ninja_partial_copies_best_for_the_rest() -> None:
    # Ninja cell 2 forced to Advisor (3, no Naishi near); Ninja cell 7 free: as Naishi (Hand 3) 8
    # and it is adjacent to the Ninja-Advisor above: +4 -> best. Naishi cell 0: 0.
    # (As Advisor instead: 3 + 3 = 6 in all.) Advisor 3 + 4 = 7, Naishi 8,
    # 7 Mountains: -5. Total 10.
    line, hand = [N, M, NJ, M, M], [M, M, NJ, M, M]
    assert hw.resolve_copies(line, hand, {2: A}) == {2: A, 7: N}
    pts = score(line, hand, {2: A})
    assert nonzero(pts) == {A: 7, N: 8, M: -5}
    assert pts["total"] == 10


@pytest.mark.parametrize(
    ("line", "hand", "mountain_points"),
    [
        ([RO, N, A, F, S], [T, K, R, B, H], 0),  # no Mountain
        ([RO, N, A, F, S], [T, K, R, B, M], 5),  # exactly 1
        ([RO, N, A, F, S], [T, K, R, M, M], -5),  # 2
        (M5, M5, -5),  # 10: still -5 in total
    ],
)
def test_mountains(line: list[str], hand: list[str], mountain_points: int) -> None:
    assert score(line, hand)[M] == mountain_points


def test_bad_inputs() -> None:
    with pytest.raises(ValueError):
        score([M, M, M, M], M5)
    with pytest.raises(ValueError):
        score([M, M, M, M, "Dragon"], M5)
    with pytest.raises(ValueError):
        score(M5, M5, {0: N})  # cell 0 is not a Ninja
    with pytest.raises(ValueError):
        score([NJ, M, M, M, M], M5, {0: F})  # provinces cannot be copied
    with pytest.raises(ValueError):
        score([NJ, M, M, M, M], M5, {0: NJ})


# --- random games -------------------------------------------------------------------------

SEEDS = range(300)
FULL_SET = Counter(hw.DEVELOPMENT_DECK) + Counter({M: 16})


@pytest.fixture(scope="module")
def games() -> list:
    return [hw.play_game(random.Random(seed)) for seed in SEEDS]


def test_components() -> None:
    assert len(hw.DEVELOPMENT_DECK) == 34
    chars = sum(hw.DEVELOPMENT_COUNTS[t] for t in (N, A, S, K, H, RO, NJ))
    assert chars == 19


def test_games_end_and_conserve_cards(games: list) -> None:
    for result in games:
        assert result.end in ("declared", "depleted")
        assert all(len(cells) == 10 for cells in result.territories)
        everything = Counter(result.discard)
        for cells in result.territories:
            everything.update(cells)
        for pile in result.river:
            everything.update(pile)
        assert everything == FULL_SET


def test_totals_are_sums_of_type_points(games: list) -> None:
    for result in games:
        for seat in (0, 1):
            points = result.breakdowns[seat]
            assert set(points) == {*hw.SCORE_KEYS, "total"}
            assert result.totals[seat] == points["total"] == sum(v for k, v in points.items() if k != "total")
            cells = result.territories[seat]
            copies = result.ninja_copies[seat]
            assert hw.score_territory(cells[:5], cells[5:], copies) == points
            assert hw.colours(cells[:5], cells[5:], copies) == result.colours[seat]
            # The best copies never score less than the ones drawn at random.
            assert hw.score_territory(cells[:5], cells[5:])["total"] >= points["total"]


def test_ninja_copies_are_legal(games: list) -> None:
    for result in games:
        for seat in (0, 1):
            cells = result.territories[seat]
            copies = result.ninja_copies[seat]
            assert set(copies) == {c for c, card in enumerate(cells) if card == NJ}
            targets = hw.copy_targets(cells)
            for copy in copies.values():
                assert copy in targets if targets else copy is None


def test_turn_order_and_end(games: list) -> None:
    ends = Counter()
    for result in games:
        ends[result.end] += 1
        seats = [seat for seat, _ in result.history]
        assert seats == [(result.first + k) % 2 for k in range(len(seats))]
        actions = [action for _, action in result.history]
        assert len(actions) == result.turns
        depleted = sum(1 for pile in result.river if not pile)
        if result.end == "declared":
            # The declaring turn is the last but one: the opponent played one final turn.
            assert actions.index("declare") == len(actions) - 2
            assert actions.count("declare") == 1
            assert result.declared_by == seats[-2]
            assert depleted >= 1
        else:
            assert "declare" not in actions
            assert depleted >= 2
            # The round is completed: the second player always plays the last turn.
            assert seats[-1] != result.first
    assert ends["declared"] and ends["depleted"]


def test_emissaries_consistent(games: list) -> None:
    for result in games:
        em = result.emissaries
        for seat in (0, 1):
            placed = em["swap"][seat] + em["discard"][seat] + (em["decree"] == seat)
            assert em["reserve"][seat] + placed == 2
        assert sum(em["swap"]) <= 3
        assert sum(em["discard"]) <= 2
        decrees = sum(1 for _, action in result.history if action == "decree")
        assert decrees == (em["decree"] >= 0)


def test_winner(games: list) -> None:
    for result in games:
        t, c = result.totals, result.colours
        if t[0] != t[1]:
            assert result.winner == (0 if t[0] > t[1] else 1)
        elif c[0] != c[1]:
            assert result.winner == (0 if c[0] > c[1] else 1)
        else:
            assert result.winner is None


def test_play_random_game_is_deterministic() -> None:
    for seed in range(20):
        first = hw.play_random_game(random.Random(seed))
        assert first == hw.play_random_game(random.Random(seed))
        assert isinstance(first, tuple) and len(first) == 2


def test_best_ninja_choice_games() -> None:
    for seed in range(50):
        result = hw.play_game(random.Random(seed), ninja_choice="best")
        for seat in (0, 1):
            cells = result.territories[seat]
            assert result.totals[seat] == hw.score_territory(cells[:5], cells[5:])["total"]


# --- policy="engine": the engine's decisions, one complete action each -------------------------

ENGINE_SEEDS = range(300)


@pytest.fixture(scope="module")
def engine_games() -> list:
    return [hw.play_game(random.Random(seed), policy="engine") for seed in ENGINE_SEEDS]


def test_engine_policy_games_end_and_conserve_cards(engine_games: list) -> None:
    ends = Counter()
    for result in engine_games:
        ends[result.end] += 1
        assert all(len(cells) == 10 for cells in result.territories)
        everything = Counter(result.discard)
        for cells in result.territories:
            everything.update(cells)
        for pile in result.river:
            everything.update(pile)
        assert everything == FULL_SET
        seats = [seat for seat, _ in result.history]
        assert seats == [(result.first + k) % 2 for k in range(result.turns)]
        depleted = sum(1 for pile in result.river if not pile)
        if result.end == "declared":
            assert [action for _, action in result.history].index("declare") == result.turns - 2
            assert depleted >= 1
        else:
            assert depleted >= 2 and seats[-1] != result.first
        em = result.emissaries
        for seat in (0, 1):
            placed = em["swap"][seat] + em["discard"][seat] + (em["decree"] == seat)
            assert em["reserve"][seat] + placed == 2
        # At least the two gifts and one decision per turn.
        assert result.decisions >= 2 + result.turns
    assert ends["declared"] and ends["depleted"]


def test_engine_policy_games_score_like_the_oracle(engine_games: list) -> None:
    for result in engine_games:
        for seat in (0, 1):
            cells = result.territories[seat]
            copies = result.ninja_copies[seat]
            assert set(copies) == {c for c, card in enumerate(cells) if card == NJ}
            targets = hw.copy_targets(cells)
            for copy in copies.values():
                assert copy in targets if targets else copy is None
            points = result.breakdowns[seat]
            assert hw.score_territory(cells[:5], cells[5:], copies) == points
            assert result.totals[seat] == points["total"]
            assert hw.colours(cells[:5], cells[5:], copies) == result.colours[seat]
        t, c = result.totals, result.colours
        expected = (0 if t[0] > t[1] else 1) if t[0] != t[1] else ((0 if c[0] > c[1] else 1) if c[0] != c[1] else None)
        assert result.winner == expected


class Scripted(random.Random):
    """A seeded rng whose `choice` takes the first option a scripted test accepts, and
    records how many options every decision had."""

    def __init__(self, seed: int, script: list) -> None:
        super().__init__(seed)
        self.script = list(script)
        self.sizes: list[int] = []

    def choice(self, seq):  # type: ignore[override]
        self.sizes.append(len(seq))
        if self.script:
            accept = self.script.pop(0)
            return next(option for option in seq if accept(option))
        return super().choice(seq)


def kind_is(kind: str):
    return lambda option: option == kind or (isinstance(option, tuple) and option[0] == kind)


def anything(option: object) -> bool:
    return True


def test_engine_policy_first_turn_decisions() -> None:
    # Gift: 2 options each. Turn 1, all 5 piles showing, 2 Emissaries home, court empty:
    # 5 piles x 2 rows = 10 Develops + Swap first + Discard first + 10 Decree cells = 22
    # (no Recall: nothing placed; no Declare: no pile depleted).
    # A Develop, then the bonus offer: Swap, Discard, pass = 3 (pass chosen).
    # Turn 2 (opponent): the same 22.
    rng = Scripted(1, [anything, anything, kind_is(hw.DEVELOP), kind_is(hw.NO_BONUS)])
    hw.play_game(rng, policy="engine")
    assert rng.sizes[:5] == [2, 2, 22, 3, 22]

    # Swap first: 10 River pairs + 25 own pairs = 35 moves, then a forced Develop among the
    # 10 targets, no bonus offer. Turn 2: 22 again (one Swap spot of 3 used, the opponent's
    # Emissaries are both home).
    rng = Scripted(1, [anything, anything, kind_is(hw.SWAP_FIRST), anything, anything])
    hw.play_game(rng, policy="engine")
    assert rng.sizes[:6] == [2, 2, 22, 35, 10, 22]

    # Discard first: the 10 pairs of showing piles, then the forced Develop (10 targets).
    rng = Scripted(1, [anything, anything, kind_is(hw.DISCARD_FIRST), anything, anything])
    hw.play_game(rng, policy="engine")
    assert rng.sizes[:6] == [2, 2, 22, 10, 10, 22]

    # A Decree is one decision (the cell is part of the action); the opponent then has
    # 10 Develops + Swap first + Discard first = 12 (the Decree is used for the game).
    rng = Scripted(1, [anything, anything, kind_is(hw.DECREE)])
    result = hw.play_game(rng, policy="engine")
    assert rng.sizes[:4] == [2, 2, 22, 12]
    assert result.history[0][1] == hw.DECREE


def test_policy_is_checked() -> None:
    with pytest.raises(ValueError, match="policy"):
        hw.play_game(random.Random(0), policy="greedy")
    a = [hw.play_random_game(random.Random(seed), policy="engine") for seed in range(10)]
    assert a == [hw.play_random_game(random.Random(seed), policy="engine") for seed in range(10)]


def test_engine_policy_plays_the_engines_games(engine_games: list) -> None:
    # The point of policy="engine": the same decisions as games/naishi.rules under a uniform
    # random agent, hence the same kind of games. Over the same 300 seeds, the mean
    # decisions and turns per game agree within 5% (about 3.5 standard errors of the
    # difference), while the type-first policy takes ~40% more decisions per game.
    rules = ruleforge.load(Path(__file__).parents[1] / "games" / "naishi.rules")
    give, copy = rules.program(2).action_ids["give"], rules.program(2).action_ids["copy"]
    decisions = turns = 0
    for seed in ENGINE_SEEDS:
        game = rules.new_game(2, seed=seed)
        rng = random.Random(seed)
        for _ in seeded.decisions(game, seed):
            game.apply(rng.choice(game.legal_actions()))
        acts = [entry for entry in game.state.log if entry[0] == "act"]
        decisions += len(acts)
        last = None
        for entry in acts:  # turns alternate: a new player in the main phase starts a turn
            if entry[2] not in (give, copy) and entry[1] != last:
                turns += 1
                last = entry[1]
    n = len(ENGINE_SEEDS)
    engine_decisions, engine_turns = decisions / n, turns / n
    hand_decisions = sum(r.decisions for r in engine_games) / n
    hand_turns = sum(r.turns for r in engine_games) / n
    assert abs(hand_decisions / engine_decisions - 1) < 0.05, (hand_decisions, engine_decisions)
    assert abs(hand_turns / engine_turns - 1) < 0.05, (hand_turns, engine_turns)
    type_first = sum(hw.play_game(random.Random(seed)).decisions for seed in ENGINE_SEEDS) / n
    assert type_first > 1.2 * engine_decisions
