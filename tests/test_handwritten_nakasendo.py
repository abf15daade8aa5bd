"""Tests for the hand-written Nakasendo baseline and scoring oracle (bench/handwritten_nakasendo.py).

Expected numbers are worked out by hand from /work/shared/rulings/nakasendo.md ("Final
scoring") and the rulebook, never taken from the code. Grids are written as
``{(row, col): [labels bottom first]}`` in the labels of tests/nakasendo_blue.txt:
``"Forest N-E bear [flipped, snow 3, bears 1]"``, ``"Start"``, ``"Water Samurai"``. A
flipped N-E is a S-W curve, a flipped N-W a S-E curve. The Starting tile is at (4, 4).
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from baselines import load_baseline
from seeded import decisions

hw = load_baseline("handwritten_nakasendo")

BLUE_FILE = Path(__file__).parent / "nakasendo_blue.txt"

Spec = dict[tuple[int, int], list[str]]


def grid(spec: Spec) -> Any:
    """A grid from labels (the Starting tile is added at (4, 4) unless the spec places it)."""
    out = {cell: [hw.parse_element(label) for label in labels] for cell, labels in spec.items()}
    out.setdefault((4, 4), [hw.start_tile()])
    return out


def nonzero(breakdown: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in breakdown.items() if v and k != "total"}


# The base path for scoring tests: row 3, four E-W tiles (4 segments). The Starting
# tile's segments end on empty cells or on E-W tiles that do not touch them: two lone
# segments. Nothing on it scores: total 0.
ROW3: Spec = {
    (3, 3): ["Field E-W"],
    (3, 4): ["Field E-W"],
    (3, 5): ["Rock E-W"],
    (3, 6): ["Rock E-W"],
}


def row3(**extra: list[str]) -> Spec:
    """ROW3 with extra labels appended at ``c3``..``c6`` (row 3) and other cells as ``rRcC``."""
    spec = {cell: list(labels) for cell, labels in ROW3.items()}
    for key, labels in extra.items():
        if key.startswith("c"):
            spec[(3, int(key[1:]))] += labels
        else:
            r, c = key[1:].split("c")
            spec[(int(r), int(c))] = labels
    return spec


PATH3 = frozenset({(3, 3), (3, 4), (3, 5), (3, 6)})


# --- components ---------------------------------------------------------------------------------


def test_components() -> None:
    tiles = hw.build_tiles()
    assert len(tiles) == 60
    assert Counter(t.terrain for t in tiles) == {t: 12 for t in hw.TERRAINS}
    assert Counter((t.terrain, t.shape) for t in tiles) == {(t, s): 3 for t in hw.TERRAINS for s in hw.PATH_SHAPES}
    bears = [(t.terrain, t.shape) for t in tiles if t.symbols]
    assert sorted(bears) == sorted((t, s) for t in hw.TERRAINS for s in ("N-S", "N-E"))
    assert all(t.symbols <= 1 for t in tiles)
    assert len({t.ident for t in tiles}) == 60
    tokens = hw.build_tokens()
    assert len(tokens) == 45
    kinds = Counter(t.kind for t in tokens)
    assert kinds == {"Juku": 10, "Samurai": 10, "Observation Point": 10, "Temple": 5, "Wheel": 5, "Bell": 5}
    assert Counter(t.terrain for t in tokens) == {t: 9 for t in hw.TERRAINS}
    assert len({id(t) for t in tokens}) == 45  # each physical token its own object
    assert len(hw.EVENT_CARDS) == 10
    snow = Counter(t for card in hw.EVENT_CARDS for t, e in card if e == "snow")
    assert snow == {t: 2 for t in hw.TERRAINS}
    assert ("Flowers", "bear") in hw.EVENT_CARDS[5]  # Water + Bear on Flowers
    start = hw.start_tile()
    assert (start.terrain, start.symbols, hw.sides(start)) == (None, 2, (("N", "S"), ("E", "W")))
    assert len(hw.COMPOSITIONS) == 6


def test_flip() -> None:
    def flipped(shape: str) -> tuple:
        return hw.sides(hw.make_tile("Water", shape, flipped=True))

    assert flipped("N-E") == (("S", "W"),)
    assert flipped("N-W") == (("S", "E"),)
    assert set(flipped("N-S")[0]) == {"N", "S"}
    assert set(flipped("E-W")[0]) == {"E", "W"}


def test_labels_round_trip() -> None:
    tile = hw.parse_element("Forest N-E bear [flipped, snow 3, bears 1]")
    assert (tile.terrain, tile.shape, tile.symbols, tile.flipped, tile.snow, tile.bears) == \
        ("Forest", "N-E", 1, True, 3, 1)
    assert hw.parse_element("Water Observation Point") == ("Observation Point", "Water")
    assert hw.element_label(tile) == "Forest N-E bear [flipped, snow 3, bears 1]"
    for bad in ("Lava N-S", "Water S-E", "Water N-S [hot]", "Water Juku [snow 1]"):
        with pytest.raises(ValueError):
            hw.parse_element(bad)


# --- the path ------------------------------------------------------------------------------------


def test_row_is_the_path() -> None:
    g = grid(ROW3)
    paths = hw.longest_paths(g)
    assert len(paths) == 1 and len(paths[0]) == 4
    assert {cell for cell, _ in paths[0]} == PATH3
    assert hw.score_final(g)["total"] == 0


def test_loop_counts_whole() -> None:
    # A 2x2 loop: (4,5) S-E, (4,6) S-W, (5,5) N-E, (5,6) N-W: E/W and N/S ends meet: 4 segments.
    # Row 3 holds a chain of 3. The loop (4) beats the chain (3), though the chain's three
    # Juku (8 VP) would score more. The loop: a Water Juku on a Forest tile: 2 VP.
    g = grid({
        (3, 3): ["Field E-W"], (3, 4): ["Field E-W"], (3, 5): ["Field E-W", "Field Juku", "Rock Juku", "Rock Juku"],
        (4, 5): ["Rock N-W [flipped]"], (4, 6): ["Rock N-E [flipped]"],
        (5, 5): ["Forest N-E", "Water Juku"], (5, 6): ["Forest N-W"],
    })
    paths = hw.longest_paths(g)
    assert len(paths) == 1 and len(paths[0]) == 4
    assert {cell for cell, _ in paths[0]} == {(4, 5), (4, 6), (5, 5), (5, 6)}
    assert nonzero(hw.score_final(g)) == {"Juku": 2}


def test_path_crosses_itself_on_the_starting_tile() -> None:
    # (4,3) E-W -> Start E-W -> (4,5) N-W -> (3,5) S-W -> (3,4) S-E -> Start N-S -> (5,4) N-S:
    # one component of 7 segments over 6 tiles, both Start segments in it.
    # Juku on (4,3) and (5,4): 5. Start's 2 Bear symbols, unprotected: -2. Total 3.
    g = grid({
        (4, 3): ["Field E-W", "Water Juku"],
        (4, 5): ["Rock N-W"],
        (3, 5): ["Rock N-E [flipped]"],
        (3, 4): ["Rock N-W [flipped]"],
        (5, 4): ["Forest N-S", "Water Juku"],
    })
    paths = hw.longest_paths(g)
    assert len(paths) == 1 and len(paths[0]) == 7
    assert [seg for cell, seg in paths[0] if cell == (4, 4)] == [("E", "W"), ("N", "S")]
    final = hw.final_score(g)
    assert final.cells == {(4, 3), (4, 4), (4, 5), (3, 5), (3, 4), (5, 4)}
    assert nonzero(final.breakdown) == {"Juku": 5, "Bears": -2}
    assert final.breakdown["total"] == 3
    assert final.bears == 2


def test_segments_link_only_when_both_touch_the_edge() -> None:
    # (3,3) N-S above (4,3) E-W: they share an edge but the E-W does not touch it.
    # Start E-W + (4,3) E-W: 2 segments. (4,5) N-E does not touch W (no link to the Start)
    # but its E end meets (4,6)'s E-W: 2 segments. (3,3) and the Start's N-S: alone.
    g = grid({(3, 3): ["Water N-S"], (4, 3): ["Water E-W"], (4, 5): ["Water N-E"], (4, 6): ["Water E-W"]})
    paths = hw.longest_paths(g)
    assert [len(p) for p in paths] == [2, 2]
    cells = sorted(sorted({c for c, _ in p}) for p in paths)
    assert cells == [[(4, 3), (4, 4)], [(4, 5), (4, 6)]]


def test_covered_tiles_count_for_nothing() -> None:
    # (3,4): a Field N-S with a Bear symbol, covered by a Field E-W: the row still links and
    # the symbol is gone. The Starting tile covered by a Water N-S: no crossing, no symbols;
    # its N end faces (3,4)'s E-W, which does not touch S: a lone segment. Total 0.
    g = grid({**ROW3, (3, 4): ["Field N-S bear", "Field E-W"], (4, 4): ["Start", "Water N-S"]})
    final = hw.final_score(g)
    assert final.cells == PATH3 and final.bears == 0
    assert final.breakdown["total"] == 0


def test_equally_long_paths_best_total() -> None:
    # Two chains of 3 (rows 3 and 5). Row 3: a Field Juku on a Field tile: 2 + 2 = 4.
    # Row 5: a Rock Juku and a Rock Samurai on a Rock tile: 2 + 3 + 2 x 2 = 9: row 5 is scored.
    g = grid({
        (3, 3): ["Field E-W", "Field Juku"], (3, 4): ["Field E-W"], (3, 5): ["Field E-W"],
        (5, 3): ["Rock E-W"], (5, 4): ["Rock E-W", "Rock Juku", "Rock Samurai"], (5, 5): ["Rock E-W"],
    })
    assert [len(p) for p in hw.longest_paths(g)] == [3, 3]
    final = hw.final_score(g)
    assert final.cells == {(5, 3), (5, 4), (5, 5)}
    assert nonzero(final.breakdown) == {"Juku": 2, "Samurai": 3, "colours": 4}
    assert final.breakdown["total"] == 9
    # Swapped rows: the same choice by score, not by position.
    g2 = grid({(8 - r, c): labels for (r, c), labels in {
        (3, 3): ["Field E-W", "Field Juku"], (3, 4): ["Field E-W"], (3, 5): ["Field E-W"],
        (5, 3): ["Rock E-W"], (5, 4): ["Rock E-W", "Rock Juku", "Rock Samurai"], (5, 5): ["Rock E-W"],
    }.items()})
    assert hw.final_score(g2).cells == {(3, 3), (3, 4), (3, 5)}


@pytest.mark.parametrize("row3_tile, expected_row", [
    # Both rows score a Water Temple: 2. Row 3's tile has a Bear token (protected by the
    # Temple, so the totals tie) and is 1 bear worse: row 5, with 0 bears, is kept.
    ("Field E-W [bears 1]", 5),
    # Same with 2 Snow tokens (no loss below 3): fewest snow on the path keeps row 5.
    ("Field E-W [snow 2]", 5),
])
def test_equal_totals_fewest_bears_then_snow(row3_tile: str, expected_row: int) -> None:
    g = grid({
        (3, 3): [row3_tile, "Water Temple"], (3, 4): ["Field E-W"], (3, 5): ["Field E-W"],
        (5, 3): ["Rock E-W", "Water Temple"], (5, 4): ["Rock E-W"], (5, 5): ["Rock E-W"],
    })
    final = hw.final_score(g)
    assert final.breakdown["total"] == 2
    assert {r for r, _ in final.cells} == {expected_row}
    assert (final.bears, final.snow) == (0, 0)


# --- final scoring steps ----------------------------------------------------------------------------


@pytest.mark.parametrize("count, points", [(1, 2), (2, 5), (3, 8), (4, 11), (5, 15), (6, 15)])
def test_juku(count: int, points: int) -> None:
    # Water Juku on the Field/Rock row (no colour match); one more off the path is ignored.
    spec = row3(c3=["Water Juku"] * min(count, 3), c5=["Water Juku"] * (count - min(count, 3)),
                r5c5=["Water N-W", "Water Juku"])
    assert nonzero(hw.score_final(grid(spec))) == {"Juku": points}


def test_samurai_distinct_colours() -> None:
    # Water, Water, Rock on the path: 2 colours x 3 = 6; the Rock one on a Rock tile: +2.
    # The Forest Samurai off the path does not count.
    spec = row3(c3=["Water Samurai"], c4=["Water Samurai"], c5=["Rock Samurai"],
                r5c5=["Water N-W", "Forest Samurai"])
    assert nonzero(hw.score_final(grid(spec))) == {"Samurai": 6, "colours": 2}
    # Five colours: 15; Field on Field (3,3) and Rock on Rock (3,5): colours 4.
    spec = row3(c3=["Water Samurai", "Field Samurai"], c4=["Forest Samurai"], c5=["Rock Samurai"],
                c6=["Flowers Samurai"])
    assert nonzero(hw.score_final(grid(spec))) == {"Samurai": 15, "colours": 4}


def test_wheel_and_temple() -> None:
    # Wheel (Water) on (3,4) [snow 2]: +2, (3,3) 1, (3,5) 4 (a Temple tile: still counts),
    # (4,4) the Start, no snow: 7. Wheel on (3,6) [snow 5]: +5, (3,5) 4, (4,6) off the
    # path 2: 11. (4,5) [snow 3] is diagonal to both: not counted. Wheel 18.
    # Temple (Water) 2. Snow: (3,3) 1, (3,4) 2: nothing; (3,5) 4 under the Temple: nothing;
    # (3,6) 5: -4. Off the path, (4,5)'s 3 lose nothing. Total 18 + 2 - 4 = 16.
    g = grid({
        (3, 3): ["Field E-W [snow 1]"],
        (3, 4): ["Field E-W [snow 2]", "Water Wheel"],
        (3, 5): ["Rock E-W [snow 4]", "Water Temple"],
        (3, 6): ["Rock E-W [snow 5]", "Water Wheel"],
        # Start E-W -> (4,5) E-W -> (4,6) N-W: a chain of 3, shorter than the row.
        (4, 5): ["Water E-W [snow 3]"],
        (4, 6): ["Water N-W [snow 2]"],
    })
    final = hw.final_score(g)
    assert final.cells == PATH3
    assert nonzero(final.breakdown) == {"Wheel": 18, "Temple": 2, "Snow": -4}
    assert final.breakdown["total"] == 16
    assert final.snow == 12  # 1 + 2 + 4 + 5, the Temple tile's included


def test_temple_protects_only_its_tile() -> None:
    # Column 3, four N-S tiles. (4,3) under a Temple: symbol 1 + 2 Bear tokens and 5 snow
    # lose nothing. (5,3), next to it: symbol + 1 token -2, 3 snow -2. (3,3) 4 snow -2.
    # Temple 2. Total 2 - 2 - 2 - 2 = -4. Path bears 3 + 2 = 5, snow 5 + 3 + 4 = 12.
    g = grid({
        (3, 3): ["Forest N-S [snow 4]"],
        (4, 3): ["Rock N-S bear [snow 5, bears 2]", "Water Temple"],
        (5, 3): ["Field N-S bear [snow 3, bears 1]"],
        (6, 3): ["Flowers N-S"],
    })
    final = hw.final_score(g)
    assert final.cells == {(3, 3), (4, 3), (5, 3), (6, 3)}
    assert nonzero(final.breakdown) == {"Temple": 2, "Bears": -2, "Snow": -4}
    assert final.breakdown["total"] == -4
    assert (final.bears, final.snow) == (5, 12)


# The Bell path: (3,3) E-W, (3,4) E-W, (3,5) E-W, (3,6) S-W, (4,6) N-W, (4,5) E-W, Start E-W,
# (4,3) E-W: 8 segments. (4,5) lies under (3,5) on the grid but is linked to (4,6) and the Start.
BELL_PATH: Spec = {
    (3, 3): ["Field E-W [bears 1]"],
    (3, 4): ["Field E-W [bears 1]"],
    (3, 5): ["Rock E-W [bears 1]"],
    (3, 6): ["Field N-E bear [flipped]"],
    (4, 6): ["Forest N-W [bears 1]"],
    (4, 5): ["Forest E-W [bears 2]"],
    (4, 3): ["Flowers E-W"],
    (5, 5): ["Water N-W"],  # off the path: its N-W meets neither (4,5)'s E-W nor (5,4)
}


def test_bell_protects_its_tile_and_grid_neighbours() -> None:
    # Bell on (3,5): protects (3,5), (3,4), (3,6) and (4,5) (below it: on the path though not
    # linked to the Bell's tile). Lost: (3,3) 1, (4,6) 1, the Start's 2 symbols (diagonal to
    # the Bell) = -4. Path bears, protected or not: 1+1+1+1+1+2+2 = 9.
    spec = {**BELL_PATH, (3, 5): [*BELL_PATH[(3, 5)], "Water Bell"]}
    final = hw.final_score(grid(spec))
    assert len(final.path) == 8 and (4, 4) in final.cells and (5, 5) not in final.cells
    assert nonzero(final.breakdown) == {"Bears": -4}
    assert final.bears == 9


def test_bell_off_the_path_protects_nothing() -> None:
    # Rulings: "a Bell on the path protects its tile and the grid-adjacent tiles". On (5,5),
    # off the path, next to (4,5): all 9 bears lost. Its Water on Water: off the path, 0.
    spec = {**BELL_PATH, (5, 5): ["Water N-W", "Water Bell"]}
    assert nonzero(hw.score_final(grid(spec))) == {"Bears": -9}


def test_observation_point() -> None:
    # (3,3) Field tile, Water Juku, Water Samurai, Rock OP, Flowers Wheel: beneath the OP
    # Field, Water, Water: 2 colours = 4 (its own Rock and the Wheel above do not count).
    # (3,5) Rock tile, Rock OP: beneath only the tile, 1 colour = 2; colour match +2.
    # (3,6) Rock tile, Field Juku, Rock OP (Rock, Field: 4), Field OP (Rock, Field, Rock: 4);
    # the Rock OP matches: +2. OP 4 + 2 + 4 + 4 = 14. Juku 2 (Water, Field): 5.
    # Samurai (Water): 3. Wheel: no snow, 0. Colours 4. Off the path (5,5): nothing.
    spec = row3(c3=["Water Juku", "Water Samurai", "Rock Observation Point", "Flowers Wheel"],
                c5=["Rock Observation Point"],
                c6=["Field Juku", "Rock Observation Point", "Field Observation Point"],
                r5c5=["Water N-W", "Rock Juku", "Field Observation Point"])
    points = hw.score_final(grid(spec))
    assert nonzero(points) == {"Observation Point": 14, "Juku": 5, "Samurai": 3, "colours": 4}
    assert points["total"] == 26


def test_matching_colours_and_extra_actions() -> None:
    # (3,3) Field tile with two Field Juku: 2 matches; (3,5) Rock tile, Water Juku: none.
    # Juku 3: 8. Colours 4. 3 Extra Action tokens: 6. Earlier 10, reservations 4. Total 32.
    spec = row3(c3=["Field Juku", "Field Juku"], c5=["Water Juku"], r5c5=["Water N-W", "Water Juku"])
    points = hw.score_final(grid(spec), 3, 10, reservations=4)
    assert nonzero(points) == {"Juku": 8, "colours": 4, "Extra Actions": 6, "earlier": 10, "reservations": 4}
    assert points["total"] == 32
    assert list(points) == list(hw.BREAKDOWN_KEYS)


@pytest.mark.parametrize("snow, loss", [(0, 0), (2, 0), (3, -2), (4, -2), (5, -4), (9, -4)])
def test_snow_thresholds(snow: int, loss: int) -> None:
    spec = {**ROW3, (3, 3): [f"Field E-W [snow {snow}]" if snow else "Field E-W"]}
    points = hw.score_final(grid(spec))
    assert points["Snow"] == loss and points["total"] == loss


# --- intermediate scoring ------------------------------------------------------------------------

# Start (2 symbols); (4,5) Water E-W, 1 snow; (4,6) Rock N-S bear with a Rock Juku;
# (5,5) Water N-W with a Bear token, a Water Samurai and a Forest Juku; (3,4) a Forest E-W
# covering a Water N-S bear (the covered tile counts for nothing).
INTERMEDIATE: Spec = {
    (4, 5): ["Water E-W [snow 1]"],
    (4, 6): ["Rock N-S bear", "Rock Juku"],
    (5, 5): ["Water N-W [bears 1]", "Water Samurai", "Forest Juku"],
    (3, 4): ["Water N-S bear", "Forest E-W"],
}


@pytest.mark.parametrize("token, points", [
    ("Water", 6),     # tiles (4,5), (5,5) + the Water Samurai: 3 x 2
    ("Forest", 4),    # tile (3,4) + the Forest Juku
    ("Rock", 4),      # tile (4,6) + the Rock Juku
    ("Field", 0),
    ("Flowers", 0),   # the Starting tile has no colour
    ("Bear", 6),      # Start, (4,6) symbol, (5,5) token: 3 tiles
    ("No Bear", 4),   # (4,5), (3,4) (its covered tile's symbol does not count)
    ("Snow", 2),      # (4,5)
    ("No Snow", 8),   # Start, (4,6), (5,5), (3,4)
    ("Discovery", 4),  # (4,6), (5,5)
    ("No Discovery", 6),  # Start, (4,5), (3,4)
])
def test_intermediate(token: str, points: int) -> None:
    assert hw.score_intermediate(grid(INTERMEDIATE), token) == points


def test_intermediate_bad_token() -> None:
    with pytest.raises(ValueError):
        hw.score_intermediate(grid(INTERMEDIATE), "Lava")


# --- the rulebook's Blue player example ----------------------------------------------------------------

# Rows 3-6, columns 3-6 of the 7x7 frame (the Starting tile at row 4, column 4); None: empty.
# The path (9 segments): (4,3) E-W -> Start E-W -> (4,5) S-W -> (5,5) N-S -> (6,5) N-E
# -> (6,6) N-W -> (5,6) N-S -> (4,6) N-S -> (3,6) S-W. The Start's N-S segment and the
# Water tiles at (5,3), (6,3) are lone segments.
BLUE_ROWS: list[list[list[str] | None]] = [
    # row 3
    [None, None, None, ["Flowers N-E [flipped, snow 3]", "Water Temple"]],
    # row 4
    [["Field E-W", "Forest Juku", "Rock Samurai", "Water Observation Point"], ["Start"],
     ["Rock N-E bear [flipped, snow 2]", "Rock Bell"], ["Rock N-S [snow 2]", "Rock Wheel"]],
    # row 5
    [["Water E-W [bears 1]"], None, ["Flowers N-S [snow 3]", "Flowers Samurai"], ["Field N-S bear [bears 1]"]],
    # row 6
    [["Water E-W", "Water Samurai"], None, ["Forest N-E bear [bears 1]", "Forest Juku"], ["Water N-W [bears 2]"]],
]
BLUE_SPEC: Spec = {(3 + i, 3 + j): labels for i, row in enumerate(BLUE_ROWS) for j, labels in enumerate(row)
                   if labels is not None}


def test_blue_file_is_the_blue_grid() -> None:
    text = BLUE_FILE.read_text()
    assert hw.grid_to_text(grid(BLUE_SPEC)) == text
    lines = [line.split(":")[0] for line in text.splitlines()]
    assert lines == [f"{r} {c}" for r, c in sorted(BLUE_SPEC)]


def test_blue_player_example() -> None:
    # 22 earlier points, 2 unused Extra Action tokens.
    # Juku: Forest (4,3) + Forest (6,5): 2 -> 5.
    # Samurai: Rock (4,3), Flowers (5,5): 2 colours -> 6 (the Water one at (6,3) is off the path).
    # Temple (3,6): 2.
    # Wheel (4,6): own 2 + (3,6) 3 (a Temple tile) + (4,5) 2 + (5,6) 0 = 7.
    # Observation Point (4,3): beneath it the Field tile, a Forest Juku, a Rock Samurai: 3 -> 6.
    # Colours: Rock Bell on Rock, Rock Wheel on Rock, Flowers Samurai on Flowers, Forest Juku
    # on Forest: 4 -> 8 (the Water Samurai on Water at (6,3) is off the path).
    # Extra Actions: 2 -> 4.
    # Bears: the Bell at (4,5) protects (4,4) (Start, 2 symbols), (4,5) (1 symbol), (4,6),
    # (5,5), (3,5). Lost: (6,5) symbol + token 2, (6,6) 2 tokens, (5,6) symbol + token 2 = -6
    # (the Bear token on the Water tile at (5,3) is off the path).
    # Snow: (5,5) 3 -> -2; (3,6) has 3 but a Temple; (4,5), (4,6) 2 each: nothing.
    # 22 + 5 + 6 + 2 + 7 + 6 + 8 + 4 - 6 - 2 = 52.
    g = hw.grid_from_text(BLUE_FILE.read_text())
    paths = hw.longest_paths(g)
    assert len(paths) == 1 and len(paths[0]) == 9  # the unique longest component
    final = hw.final_score(g, 2, 22)
    assert final.cells == {(4, 3), (4, 4), (4, 5), (5, 5), (6, 5), (6, 6), (5, 6), (4, 6), (3, 6)}
    assert final.breakdown == {
        "earlier": 22, "reservations": 0, "Juku": 5, "Samurai": 6, "Temple": 2, "Wheel": 7,
        "Observation Point": 6, "colours": 8, "Extra Actions": 4, "Bears": -6, "Snow": -2, "total": 52,
    }
    # Tie-break figures: bears on the path 2 + 1 + 2 + 2 + 2 = 9; snow 3 + 2 + 2 + 3 = 10.
    assert (final.bears, final.snow) == (9, 10)
    # Every component used exists in the reference edition.
    tiles = Counter((t.terrain, t.shape, t.symbols) for s in g.values() for t in s if isinstance(t, hw.Tile))
    edition = Counter((t.terrain, t.shape, t.symbols) for t in hw.build_tiles())
    assert all(n <= edition[key] for key, n in tiles.items() if key[0] is not None)
    tokens = Counter(t for s in g.values() for t in s if isinstance(t, hw.Token))
    assert tokens <= Counter(hw.build_tokens())
    rows = [r for r, _ in g]
    cols = [c for _, c in g]
    assert max(rows) - min(rows) < 4 and max(cols) - min(cols) < 4


# --- random games ------------------------------------------------------------------------------------------

SEEDS = range(300)


@pytest.fixture(scope="module")
def games() -> list:
    return [(seed, 2 + seed % 3, hw.play_random_game(2 + seed % 3, random.Random(seed))) for seed in SEEDS]


def _elements(result: Any) -> tuple[list, list]:
    """Every tile and every token of a finished game, wherever it is."""
    tiles: list = list(result.tile_pile)
    tokens: list = list(result.token_pile) + list(result.discarded_tokens)
    for where in (*result.supplies, result.market):
        for e in where:
            (tiles if isinstance(e, hw.Tile) else tokens).append(e)
    for g in result.grids:
        for stack in g.values():
            for e in stack:
                (tiles if isinstance(e, hw.Tile) else tokens).append(e)
    return tiles, tokens


def test_games_end_after_the_rounds(games: list) -> None:
    for _, players, result in games:
        assert result.rounds == (10 if players == 2 else 9)
        assert result.intermediate_scorings == 3
        assert result.decisions > 0
        assert len(result.totals) == players


def test_nothing_created_or_lost(games: list) -> None:
    full = Counter(hw.build_tokens())
    for _, players, result in games:
        tiles, tokens = _elements(result)
        starts = [t for t in tiles if t.terrain is None]
        assert len(starts) == players
        assert sorted(t.ident for t in tiles if t.terrain is not None) == list(range(60))
        assert Counter(tokens) == full and len({id(t) for t in tokens}) == 45
        assert result.extra_pool + sum(result.extra_actions) == hw.EXTRA_ACTION_TOKENS
        assert all(len(s) <= 3 for s in result.supplies)


def test_grids_stay_within_4x4(games: list) -> None:
    for _, _, result in games:
        for g in result.grids:
            rows = [r for r, _ in g]
            cols = [c for _, c in g]
            assert max(rows) - min(rows) < 4 and max(cols) - min(cols) < 4
            assert g[(4, 4)][0].terrain is None
            for cell, stack in g.items():
                i = hw.top_index(stack)
                assert all(isinstance(e, hw.Tile) for e in stack[:i + 1])
                assert all(isinstance(e, hw.Token) for e in stack[i + 1:])
                if stack[i].terrain is None:  # never a token on the Starting tile
                    assert i == len(stack) - 1 and cell == (4, 4)
                for covered in stack[:i]:
                    assert covered.snow == covered.bears == 0


def test_breakdowns_sum_to_totals(games: list) -> None:
    for _, players, result in games:
        for p in range(players):
            points = result.breakdowns[p]
            assert list(points) == list(hw.BREAKDOWN_KEYS)
            assert points["total"] == result.totals[p] == sum(v for k, v in points.items() if k != "total")
            assert points["earlier"] == result.intermediate_points[p]
            assert points["reservations"] == result.reservation_points[p] and points["reservations"] % 2 == 0
            assert points["Extra Actions"] == 2 * result.extra_actions[p]
            again = hw.score_final(result.grids[p], result.extra_actions[p], points["earlier"],
                                   points["reservations"])
            assert again == points


def test_ranking(games: list) -> None:
    for _, players, result in games:
        keys = [(result.totals[p], -result.path_bears[p], -result.path_snow[p]) for p in range(players)]
        flat = [p for group in result.ranking for p in group]
        assert sorted(flat) == list(range(players))
        assert [keys[g[0]] for g in result.ranking] == sorted({*keys}, reverse=True)


def test_hikers_on_elements_of_others(games: list) -> None:
    for _, players, result in games:
        for p, e in enumerate(result.hikers):
            if e is None:
                continue
            assert any(x is e for x in result.market) or any(
                x is e for q in range(players) if q != p for x in result.supplies[q])


def test_deterministic() -> None:
    for seed in range(10):
        a = hw.play_random_game(3, random.Random(seed))
        b = hw.play_random_game(3, random.Random(seed))
        assert (a.totals, a.decisions) == (b.totals, b.decisions)


def test_bad_player_count() -> None:
    for n in (1, 5):
        with pytest.raises(ValueError):
            hw.play_random_game(n, random.Random(0))


# --- game mechanics, one rule at a time -------------------------------------------------------------------


def new_game(players: int = 3) -> Any:
    """A set-up game whose every later decision takes option 0 (the first listed)."""
    g = hw._Game(players, random.Random(1))
    g.rand = lambda n: 0
    return g


def rc(cells: list[int]) -> list[tuple[int, int]]:
    """Board cells as sorted (row, col)."""
    return sorted(divmod(cell, hw.WIDTH) for cell in cells)


def from_pile(g: Any, shape: str, terrain: str | None = None) -> int:
    """Take a Path tile of that shape (and terrain) out of the tile pile."""
    e = next(e for e in g.tile_pile if hw.E_SHAPE[e] == shape and terrain in (None, hw.TERRAINS[hw.E_TERRAIN[e]]))
    g.tile_pile.remove(e)
    return e


def play(g: Any, p: int, e: int, cell: tuple[int, int] | None = None) -> None:
    """Play ``e`` from p's supply (added to it) to ``cell`` unflipped, or a token to the first Path tile."""
    g.supplies[p].append(e)
    g._tally()
    if cell is None:
        g._place(p, e, p, 0)
        return
    k = g.tile_targets[p].index(hw.cell_index(cell))
    g._place(p, e, p, 2 * k if hw.E_CODE[e] == 2 else k)


def test_tile_targets_keep_4x4() -> None:
    g = new_game()
    # Start alone: cover it or go next to it: 5 cells; no token target (only the Start).
    assert rc(g.tile_targets[0]) == [(3, 4), (4, 3), (4, 4), (4, 5), (5, 4)]
    assert g.token_targets[0] == []
    # A row of 4 columns: no cell left of column 3 or right of column 6.
    for cell in ((4, 3), (4, 5), (4, 6)):
        play(g, 0, from_pile(g, "E-W", "Water"), cell)
    assert rc(g.tile_targets[0]) == sorted([(4, c) for c in range(3, 7)] + [(r, c) for r in (3, 5)
                                                                          for c in range(3, 7)])
    assert rc(g.token_targets[0]) == [(4, 3), (4, 5), (4, 6)]
    # Counts: a curve has 2 placements per cell (flips), a straight 1, a token 1 per Path tile;
    # a draw maps back to the element (in supply order) and its target.
    juku = next(e for e in g.token_pile if hw.E_KIND[e] == hw.K_JUKU)
    curve, straight = from_pile(g, "N-E", "Rock"), from_pile(g, "N-S", "Rock")
    g.supplies[:] = [[curve, straight, juku], [], []]
    g._tally()
    assert g._total(0) == 24 + 12 + 3
    assert [g._choose(0, k) for k in (0, 23, 24, 35, 36, 38)] == [
        (curve, 0, 0), (curve, 0, 23), (straight, 0, 0), (straight, 0, 11), (juku, 0, 0), (juku, 0, 2)]
    # Covering a cell changes no target; the covered Starting tile takes tokens.
    play(g, 0, from_pile(g, "N-S"), (4, 4))
    assert len(g.tile_targets[0]) == 12 and rc(g.token_targets[0]) == [(4, 3), (4, 4), (4, 5), (4, 6)]


def test_covering_discards_tokens_snow_and_bears() -> None:
    g = new_game()
    old = from_pile(g, "N-S", "Water")
    play(g, 0, old, (4, 5))
    g.snow[old], g.bears[old] = 2, 1
    juku = next(e for e in g.token_pile if hw.E_KIND[e] == hw.K_JUKU)
    g.token_pile.remove(juku)
    play(g, 0, juku)
    new = next(e for e in g.supplies[0] if hw.is_tile(e))
    target = g.tile_targets[0].index(hw.cell_index((4, 5))) * hw.E_CODE[new]
    g._place(0, new, 0, target)
    assert g.stacks[0][hw.cell_index((4, 5))] == [old, new] and not g.flipped[new]
    assert (g.snow[old], g.bears[old]) == (0, 0)
    assert g.discarded == [juku]


def test_action_2_gives_an_extra_action_and_frees_a_hiker() -> None:
    g = new_game()
    e = g.supplies[1][0]
    g.hiker[2], g.hiker_at[2] = e, 1  # player 3 reserved it in player 2's supply
    g._place(0, e, 1, 0)
    assert g.extra == [0, 1, 0] and g.extra_pool == 15 and g.affected == {1}
    assert g.hiker[2] == hw.NONE and g.reservation_points == [0, 0, 2]
    g.extra_pool = 0  # the general supply is empty: nothing gained
    g._place(0, g.supplies[2][0], 2, 0)
    assert g.extra == [0, 1, 0] and g.affected == {1, 2}


def test_action_3_from_the_market() -> None:
    g = new_game()
    e = g.market_tiles[0]
    before = g._total(0)
    supplies = [list(sup) for sup in g.supplies]
    g.hiker[0], g.hiker_at[0] = e, hw.MARKET
    # The reserved element's placements come last (5 cells, x2 for a curve).
    assert g._total(0) == before + 5 * hw.E_CODE[e]
    assert g._choose(0, before) == (e, hw.RESERVED, 0)
    g._place(0, e, hw.RESERVED, 0)
    assert g.hiker[0] == hw.NONE and g.reserved_played and len(g.market_tiles) == 1
    assert g.reservation_points == [0, 0, 0] and g.extra_pool == 16 and not g.affected
    assert g.supplies == supplies


def test_reserve_then_refills_in_order() -> None:
    # 3 players, player 1 (seat 0) played from seats 2 and 1. Every decision takes option 0:
    # seat 0 reserves the first Market tile; seat 1 (left of seat 0) refills first and takes
    # it (seat 0's Hiker comes home, +2 VP), seat 2 takes the next Market tile, then seat 0
    # the first Market token (its Hiker is home, nothing to skip).
    g = new_game()
    t0, t1 = g.market_tiles
    k0 = g.market_tokens[0]
    for q in (1, 2):
        g.supplies[q].pop()
    g.supplies[0].pop()
    g.affected = {2, 1}
    g._end_of_turn(0)
    assert g.supplies[1][-1] == t0 and g.supplies[2][-1] == t1 and g.supplies[0][-1] == k0
    assert g.hiker[0] == hw.NONE and g.reservation_points == [2, 0, 0]
    assert len(g.market_tiles) == 2 and len(g.market_tokens) == 2  # restocked


def test_extra_actions_are_spent() -> None:
    # Option 0 everywhere: two actions, then "spend" twice: 4 placements, both tokens back.
    # (Option 0 covers the first cell again and again: tokens under a new tile are discarded.)
    g = new_game(2)
    g.extra[0], g.extra_pool = 2, 14
    g._turn(0)
    placed = sum(len(g.stacks[0][cell]) for cell in g.occupied[0]) - 1 + len(g.discarded)
    assert placed == 4 and g.extra[0] == 0
    assert g.extra_pool + sum(g.extra) == 16


@pytest.mark.parametrize("space, snow", [(2, 1), (3, 1), (4, 2), (6, 2), (7, 3), (9, 3), (10, 4)])
def test_event_snow_and_bear(space: int, snow: int) -> None:
    g = new_game(2)
    field = [from_pile(g, "E-W", "Field"), from_pile(g, "N-S", "Field")]
    water = from_pile(g, "E-W", "Water")
    for e, cell in ((field[0], (4, 3)), (field[1], (4, 5)), (water, (3, 4))):
        play(g, 0, e, cell)
    g.events = [(("Field", "snow"), ("Water", "bear"))]
    g._event(space)
    # Seat 0 places `snow` tokens (option 0: all on the first Field tile) and 1 Bear on the
    # Water tile; seat 1 has neither terrain: no decision. The Starting tile gets nothing.
    assert (g.snow[field[0]], g.snow[field[1]], g.bears[water]) == (snow, 0, 1)
    assert g.decisions == snow + 1
    assert g.snow[hw.FIRST_START] == 0


def test_result_objects_mirror_the_game() -> None:
    # The result's objects are made from the integer state: the same cells, stacks and counters.
    g = hw._Game(2, random.Random(4))
    result = g.play()
    for p, grid in enumerate(result.grids):
        assert list(grid) == [divmod(cell, hw.WIDTH) for cell in g.occupied[p]]
        for cell, stack in grid.items():
            ids = g.stacks[p][hw.cell_index(cell)]
            assert len(stack) == len(ids)
            for x, i in zip(stack, ids):
                if i < hw.FIRST_TOKEN:
                    assert x.ident == i
                elif hw.is_tile(i):
                    assert x.terrain is None and cell == hw.START_CELL
                else:
                    assert x is hw.TOKEN_OBJECTS[i - hw.FIRST_TOKEN]
            top = stack[hw.top_index(stack)]
            t = g.top[p][hw.cell_index(cell)]
            assert (top.snow, top.bears, top.flipped) == (g.snow[t], g.bears[t], g.flipped[t])
        assert hw.score_final(grid, result.extra_actions[p], result.intermediate_points[p],
                              result.reservation_points[p]) == result.breakdowns[p]


# --- independence, and the engine when its rules exist -------------------------------------------------

BASELINE = Path(__file__).parents[1] / "bench" / "handwritten_nakasendo.py"
BASELINE_SCORING = BASELINE.with_name("handwritten_nakasendo_scoring.py")
RULES = Path(__file__).parents[1] / "games" / "nakasendo.rules"


def test_baseline_imports_nothing_from_ruleforge() -> None:
    import ast

    for path in (BASELINE, BASELINE_SCORING):
        tree = ast.parse(path.read_text())
        names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        assert "handwritten_nakasendo_scoring" in names or path == BASELINE_SCORING
        assert not [n for n in names if n.split(".")[0] == "ruleforge"]


@pytest.mark.skipif(not RULES.is_file(), reason="games/nakasendo.rules is not written yet")
@pytest.mark.parametrize("players", [2, 3, 4])
def test_engine_takes_as_many_decisions(players: int) -> None:
    """The bench compares like for like only if both take the same decisions: mean decisions
    per game over 200 random games agree within 5% (about 9 standard errors)."""
    import ruleforge

    rules = ruleforge.load(RULES)
    rng = random.Random(0)
    engine = 0
    for seed in range(200):
        game = rules.new_game(players, seed=seed)
        for _ in decisions(game, seed):
            acts = game.legal_actions()
            game.apply(acts[rng.randrange(len(acts))])
            engine += 1
    rng = random.Random(0)
    hand = sum(hw.play_random_game(players, rng).decisions for _ in range(200))
    assert abs(engine - hand) <= 0.05 * hand, (engine / 200, hand / 200)
