"""Nakasendo (games/nakasendo.rules): scoring of hand-built grids, and the rules of a turn driven
through the game's labels.

Every expected number is worked out by hand from the rulebook (/work/shared/rulebooks/
nakasendo.txt) and the rulings (/work/shared/rulings/nakasendo.md), in the comments next to it;
none is read off the engine.

Notation: a cell is (row, column) of a player's 7x7 board, row 1 on top; the Starting tile
("Start", a crossing N-S + E-W, 2 Bear symbols) is at (4, 4). A tile's shape is its segment:
N-S, E-W, N-E, N-W; flipped, N-E is S-W and N-W is S-E.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import ruleforge
from ruleforge import GameError
from ruleforge.engine import Game

ROOT = Path(__file__).parents[1]
NAKASENDO = ROOT / "games" / "nakasendo.rules"
RULES = ruleforge.load(NAKASENDO)
POSITION = "ruleforge-position/1"
START = (4, 4)

Entry = str | dict[str, Any]


# --- building positions -------------------------------------------------------------------------


def build(boards: dict[int, dict[tuple[int, int], Entry | list[Entry]]], players: int = 2,
          zones: dict[str, Any] | None = None, variables: dict[str, Any] | None = None) -> Game:
    """A position: each seat's board by cell; an entry is a label or {"label": ..., property: value}.

    A board without an entry for (4, 4) gets the Starting tile there. Properties are set on the
    component of that entry (a tile under tokens included)."""
    data_zones: dict[str, Any] = dict(zones or {})
    props: list[tuple[int, int, int, int, dict[str, Any]]] = []
    for seat, cells in boards.items():
        cells = dict(cells)
        cells.setdefault(START, "Start")
        rows: list[list[Any]] = [[None] * 7 for _ in range(7)]
        for (r, c), stack in cells.items():
            entries = stack if isinstance(stack, list) else [stack]
            labels = []
            for i, e in enumerate(entries):
                if isinstance(e, dict):
                    labels.append(e["label"])
                    extra = {k: v for k, v in e.items() if k != "label"}
                    if extra:
                        props.append((seat, r, c, i, extra))
                else:
                    labels.append(e)
            rows[r - 1][c - 1] = labels
        data_zones[f"board(P{seat + 1})"] = rows
    data = {"format": POSITION, "players": players, "generator": "xoshiro256**", "zones": data_zones,
            "vars": dict(variables or {})}
    game = RULES.position(data)
    for seat, r, c, i, extra in props:
        comp = game.state.z[game.zone_index("board", owner=seat, row=r, column=c)][i]
        for name, value in extra.items():
            game.set_prop(comp, name, value)
    return game


def final(game: Game, seat: int = 0) -> dict[str, int]:
    return game.preview_scoring("final")[seat]


def tile(label: str, **props: Any) -> dict[str, Any]:
    return {"label": label, **props}


# --- the rulebook's worked example -------------------------------------------------------------


def blue_example() -> Game:
    """The rulebook's Blue player (52 VP), rebuilt as a grid (rulings: worked check).

    The path, 7 segments:  (4,2) Field E-W -> (4,3) Water E-W -> Start (its E-W segment) ->
    (4,5) Rock N-E bear flipped (= S-W) -> (5,5) Forest N-S -> (6,5) Flowers N-W -> (6,4) Field E-W.
    Off the path: (3,2) Water N-S with a Water Samurai and a Bear token (its segment touches S,
    but (4,2)'s touches only E and W: no link). The Start's N-S segment is alone.
    Bounding box rows 3-6, columns 2-5: 4x4.
    """
    board = {
        (4, 2): [tile("Field E-W", bears=2), "Field Juku"],
        (4, 3): [tile("Water E-W", bears=1), "Rock Juku", "Forest Samurai", "Field Observation Point"],
        (4, 5): [tile("Rock N-E bear", flipped=True, snow=3), "Water Bell"],
        (5, 5): [tile("Forest N-S", snow=2), "Forest Wheel"],
        (6, 5): [tile("Flowers N-W", snow=2, bears=1), "Flowers Temple"],
        (6, 4): [tile("Field E-W", bears=3), "Field Samurai"],
        (3, 2): [tile("Water N-S", bears=1), "Water Samurai"],
    }
    return build({0: board}, zones={"extras(P1)": ["Extra Action", "Extra Action"]},
                 variables={"score(P1)": 22})


def test_rulebook_blue_player_scores_52() -> None:
    game = blue_example()
    row = final(game)
    # Juku: Rock Juku + Field Juku on the path: 2 -> 5.
    assert row["Juku"] == 5
    # Samurai: Forest and Field on the path (the Water one is off it): 2 colours x 3.
    assert row["Samurai"] == 6
    # Temple: 1 x 2.
    assert row["Temple"] == 2
    # Wheel on (5,5): its own 2 Snow + (4,5) 3 + (6,5) 2 (a Temple tile still counts) = 7.
    assert row["Wheel"] == 7
    # Observation Point on (4,3): beneath it the Water tile, Rock Juku, Forest Samurai: 3 colours x 2.
    assert row["Observation Point"] == 6
    # Matching colours on the path: Field Juku/Field, Forest Wheel/Forest, Flowers Temple/Flowers,
    # Field Samurai/Field = 4 x 2 (the Water Samurai on Water is off the path).
    assert row["colours"] == 8
    assert row["Extra Actions"] == 4
    # Bears: (4,2) 2 + (4,3) 1 + (6,4) 3 = -6. Protected: Start's 2 symbols and (4,5)'s symbol
    # (the Bell on (4,5) covers its tile and the adjacent Start and (5,5)), (6,5) (its Temple).
    # (3,2)'s Bear token is off the path.
    assert row["Bears"] == -6
    # Snow: (4,5) has 3: -2; (6,5) has 2 and a Temple; (5,5) has 2: nothing.
    assert row["Snow"] == -2
    assert row["reservations"] == 0
    assert row["total"] == 30
    assert row["total"] + 22 == 52          # with the 22 VP scored earlier


def test_blue_player_ranking_keys() -> None:
    game = blue_example()
    # Fewest Bears on the path, protected or not: 2 + 1 + 2 (Start) + 1 (symbol) + 0 + 1 + 3 = 10;
    # Snow on the path: 3 + 2 + 2 = 7.
    game.set_var("scored_path", [game.zone_index("board", 0, r, c) for r, c in
                                 [(4, 2), (4, 3), (4, 4), (4, 5), (5, 5), (6, 5), (6, 4)]], owner=0)
    assert list(game.program.rank_func(game.state, 0)[1:]) == [-10, -7]


def parse_entry(text: str) -> Entry:
    """'Flowers N-E [flipped, snow 3]' -> {"label": "Flowers N-E", "flipped": True, "snow": 3}."""
    text = text.strip()
    if not text.endswith("]"):
        return text
    label, _, mods = text[:-1].partition("[")
    entry: dict[str, Any] = {"label": label.strip()}
    for mod in mods.split(","):
        words = mod.split()
        entry[words[0]] = True if len(words) == 1 else int(words[1])
    return entry


def test_blue_grid_of_the_handwritten_engine_in_a_position_file() -> None:
    # tests/nakasendo_blue.txt, another rebuilding of the rulebook's Blue player, read as a
    # position (properties in stacks, a grid given in part). Its comments (test_handwritten_
    # nakasendo.py) work it out by hand: 22 + 5 + 6 + 2 + 7 + 6 + 8 + 4 - 6 - 2 = 52; the path is
    # (4,3) (4,4) (4,5) (5,5) (6,5) (6,6) (5,6) (4,6) (3,6); Bears on it 9, Snow 10.
    cells: dict[tuple[int, int], list[Entry]] = {}
    for line in (ROOT / "tests" / "nakasendo_blue.txt").read_text().splitlines():
        where, _, what = line.partition(":")
        r, c = (int(x) for x in where.split())
        parts, depth, cur = [], 0, ""
        for ch in what:
            depth += ch == "["
            depth -= ch == "]"
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
            else:
                cur += ch
        cells[r, c] = [parse_entry(x) for x in [*parts, cur]]
    rows = [[cells.get((r, c)) for c in range(3, 7)] for r in range(3, 7)]
    data = {"format": POSITION, "players": 2,
            "zones": {"board(P1)": {"at": [3, 3], "rows": rows}, "extras(P1)": ["Extra Action"] * 2},
            "vars": {"score(P1)": 22}}
    game = RULES.position(data)
    row = final(game)
    assert {k: row[k] for k in ("Juku", "Samurai", "Temple", "Wheel", "Observation Point", "colours",
                                "Extra Actions", "Bears", "Snow")} == {
        "Juku": 5, "Samurai": 6, "Temple": 2, "Wheel": 7, "Observation Point": 6, "colours": 8,
        "Extra Actions": 4, "Bears": -6, "Snow": -2}
    assert row["total"] + 22 == 52
    path = [(4, 3), (4, 4), (4, 5), (5, 5), (6, 5), (6, 6), (5, 6), (4, 6), (3, 6)]
    game.set_var("scored_path", [game.zone_index("board", 0, r, c) for r, c in path], owner=0)
    assert list(game.program.rank_func(game.state, 0)[1:]) == [-9, -10]


# --- the final scoring steps, one by one ------------------------------------------------------------

# A short path: Start's E-W segment -> (4,5) Water E-W (2 segments); the Start's N-S segment alone.
SHORT = (4, 5)


@pytest.mark.parametrize(("n", "points"), [(0, 0), (1, 2), (2, 5), (3, 8), (4, 11), (5, 15), (6, 15)])
def test_juku_table(n: int, points: int) -> None:
    game = build({0: {SHORT: ["Water E-W"] + ["Rock Juku"] * n}})
    assert final(game)["Juku"] == points


def test_samurai_counts_distinct_colours() -> None:
    # Water, Water, Rock Samurai: 2 distinct colours (ruling) x 3 = 6.
    game = build({0: {SHORT: ["Water E-W", "Water Samurai", "Water Samurai", "Rock Samurai"]}})
    assert final(game)["Samurai"] == 6


def test_temple_points_and_protection() -> None:
    # (4,5) Water E-W with a Temple: 1 Bear symbol? no, E-W has none; 2 Bear tokens, 5 Snow: protected.
    # (4,6) Water E-W bears 1, snow 3: not protected (a Temple protects its own tile only).
    # Start: 2 symbols, not protected. Path: Start E-W -> (4,5) -> (4,6).
    game = build({0: {SHORT: [tile("Water E-W", bears=2, snow=5), "Rock Temple"],
                      (4, 6): tile("Water E-W", bears=1, snow=3)}})
    row = final(game)
    assert row["Temple"] == 2
    assert row["Bears"] == -(2 + 1)      # Start 2, (4,6) 1
    assert row["Snow"] == -2             # only (4,6)'s 3


def test_wheel_counts_adjacent_snow_on_or_off_the_path() -> None:
    # Path: Start E-W -> (4,5) Water E-W (Wheel, 1 Snow) -> (4,6) Water E-W (2 Snow, Temple).
    # (3,5) Rock N-S, 4 Snow, off the path (touches S, (4,5) touches only E/W), adjacent to the Wheel.
    # (5,5) empty. Wheel: 1 + 2 + 4 = 7; Start has no Snow.
    # A Wheel off the path, on (3,6) Rock E-W with 5 Snow, scores nothing.
    game = build({0: {SHORT: [tile("Water E-W", snow=1), "Rock Wheel"],
                      (4, 6): [tile("Water E-W", snow=2), "Water Temple"],
                      (3, 5): tile("Rock N-S", snow=4),
                      (3, 6): [tile("Rock N-W", snow=5), "Forest Wheel"]}})
    # (3,6) N-W touches N and W: W links to (3,5)? (3,5) N-S touches N, S only: no link.
    row = final(game)
    assert row["Wheel"] == 7
    # Snow on the path: (4,5) 1: 0; (4,6) 2 with a Temple. Off the path: (3,5) 4 and (3,6) 5 lose nothing.
    assert row["Snow"] == 0


def test_two_wheels_on_one_tile_each_count() -> None:
    # Two Wheels on (4,5) with 2 Snow; (4,6) 1 Snow: each Wheel 3 -> 6.
    game = build({0: {SHORT: [tile("Water E-W", snow=2), "Rock Wheel", "Water Wheel"],
                      (4, 6): tile("Water E-W", snow=1)}})
    assert final(game)["Wheel"] == 6


def test_observation_point_counts_colours_beneath_it() -> None:
    # Stack on (4,5): Water tile, Water Juku, Rock Samurai, Forest OP, Field Juku (above it).
    # Beneath the OP: Water, Water, Rock -> 2 colours -> 4; the OP's own colour and the Juku
    # above it are not looked at.
    game = build({0: {SHORT: ["Water E-W", "Water Juku", "Rock Samurai", "Forest Observation Point",
                              "Field Juku"]}})
    assert final(game)["Observation Point"] == 4


def test_stacked_observation_points() -> None:
    # Water tile, Rock OP (beneath: Water -> 2), Forest OP (beneath: Water, Rock -> 4): 6.
    game = build({0: {SHORT: ["Water E-W", "Rock Observation Point", "Forest Observation Point"]}})
    assert final(game)["Observation Point"] == 6


def test_covered_tile_colour_does_not_count_for_observation_point() -> None:
    # (4,5): a Rock E-W covered by a Water E-W, then a Forest OP: beneath it only Water -> 2.
    game = build({0: {SHORT: ["Rock E-W", "Water E-W", "Forest Observation Point"]}})
    assert final(game)["Observation Point"] == 2


def test_colours_and_extra_actions() -> None:
    # (4,5) Water E-W: Water Juku (match), Rock Juku (no), Water Bell (match): 2 x 2 = 4.
    game = build({0: {SHORT: ["Water E-W", "Water Juku", "Rock Juku", "Water Bell"]}},
                 zones={"extras(P1)": ["Extra Action"] * 3})
    row = final(game)
    assert row["colours"] == 4
    assert row["Extra Actions"] == 6


def test_bell_protects_its_tile_and_adjacent_path_tiles() -> None:
    # Path: Start E-W -> (4,5) Rock N-E bear flipped (S-W) -> (5,5) Water N-S bear -> (6,5) Water N-S 1 token.
    # Bell on (4,5): protects (4,5) (1 symbol), Start (2 symbols), (5,5) (1 symbol + 2 tokens).
    # (6,5): 1 token, not adjacent to (4,5): -1.
    game = build({0: {SHORT: [tile("Rock N-E bear", flipped=True), "Rock Bell"],
                      (5, 5): tile("Water N-S bear", bears=2),
                      (6, 5): tile("Water N-S", bears=1)}})
    assert final(game)["Bears"] == -1


def test_bell_off_the_path_protects_nothing() -> None:
    # Path: Start E-W -> (4,5) Water E-W (1 Bear token) -> (4,6) Water E-W: 3 segments.
    # (3,5) Rock N-S with a Bell: touches S, but (4,5) touches E/W: off the path (1 segment).
    # Bears: Start 2 + (4,5) 1 = -3, the Bell off the path protecting nothing.
    game = build({0: {SHORT: tile("Water E-W", bears=1), (4, 6): "Water E-W",
                      (3, 5): ["Rock N-S", "Rock Bell"]}})
    assert final(game)["Bears"] == -3


@pytest.mark.parametrize(("snow", "points"), [(0, 0), (2, 0), (3, -2), (4, -2), (5, -4), (9, -4)])
def test_snow_thresholds(snow: int, points: int) -> None:
    game = build({0: {SHORT: tile("Water E-W", snow=snow)}})
    assert final(game)["Snow"] == points


def test_reservation_points_are_an_item() -> None:
    game = build({0: {SHORT: "Water E-W"}}, variables={"hiker_points(P1)": 6})
    row = final(game)
    assert row["reservations"] == 6
    assert row["total"] == sum(v for k, v in row.items() if k != "total")


# --- the path: longest, loops, the crossing, equal lengths -------------------------------------------


def test_only_the_longest_path_scores() -> None:
    # Chain A: Start E-W -> (4,5) E-W -> (4,6) E-W: 3 segments, a Juku on (4,6).
    # Chain B: (3,4) Rock N-S -> Start N-S: 2 segments; (3,4) holds 2 Temples: off the scored path.
    game = build({0: {SHORT: "Water E-W", (4, 6): ["Water E-W", "Rock Juku"],
                      (3, 4): ["Rock N-S", "Rock Temple", "Water Temple"]}})
    row = final(game)
    assert (row["Juku"], row["Temple"]) == (2, 0)


def test_loop_counts_whole() -> None:
    # A 2x2 loop: (5,5) N-W flipped (S-E), (5,6) N-E flipped (S-W), (6,6) N-W, (6,5) N-E: 4 segments.
    # Start's segments: (4,5)? empty, so each is alone (1). The loop is the path: one Juku on
    # each of its 4 tiles -> Juku 4 = 11; no Start on it: no Bear.
    game = build({0: {(5, 5): [tile("Water N-W", flipped=True), "Rock Juku"],
                      (5, 6): [tile("Water N-E", flipped=True), "Rock Juku"],
                      (6, 6): ["Water N-W", "Rock Juku"],
                      (6, 5): ["Water N-E", "Rock Juku"]}})
    row = final(game)
    assert row["Juku"] == 11
    assert row["Bears"] == 0


def test_loop_beats_a_longer_looking_chain_of_fewer_segments() -> None:
    # Loop of 4 segments as above vs the chain Start E-W -> (4,3) E-W? (4,3) at column 3 makes
    # the box columns 3-6: fine. Chain: (4,3) E-W, Start E-W: 2 segments... the loop wins (4 > 2).
    game = build({0: {(5, 5): tile("Water N-W", flipped=True), (5, 6): tile("Water N-E", flipped=True),
                      (6, 6): "Water N-W", (6, 5): ["Water N-E", "Water Temple"],
                      (4, 3): ["Water E-W", "Rock Juku"]}})
    row = final(game)
    assert (row["Temple"], row["Juku"]) == (2, 0)


def test_path_crossing_the_starting_tile() -> None:
    # (5,4) N-S -> Start N-S -> (3,4) N-W flipped (S-E) -> (3,5) N-E flipped (S-W) -> (4,5) N-W
    # -> Start E-W -> (4,3) E-W: one component of 7 segments through the Start twice.
    # Its cells: 6 distinct; the Start counts once: its 2 Bear symbols -2 (not -4).
    # A Juku on each of the other 5 tiles: 5 -> 15.
    game = build({0: {(5, 4): ["Water N-S", "Rock Juku"],
                      (3, 4): [tile("Water N-W", flipped=True), "Rock Juku"],
                      (3, 5): [tile("Water N-E", flipped=True), "Rock Juku"],
                      (4, 5): ["Water N-W", "Rock Juku"],
                      (4, 3): ["Water E-W", "Rock Juku"]}})
    row = final(game)
    assert row["Juku"] == 15
    assert row["Bears"] == -2


def test_equal_paths_the_better_is_taken() -> None:
    # Chain A: Start E-W -> (4,5) Water E-W -> (4,6) Water E-W with a Water Temple: 3 segments,
    #   Temple 2 + colours 2 = 4, Start -2: 2.
    # Chain B: (3,4) Water N-S -> Start N-S -> (5,4) Water N-S with 2 Rock Juku: 3 segments,
    #   Juku 5, colours 0, Start -2: 3. B is taken (ruling): total 3.
    game = build({0: {SHORT: "Water E-W", (4, 6): ["Water E-W", "Water Temple"],
                      (3, 4): "Water N-S", (5, 4): ["Water N-S", "Rock Juku", "Rock Juku"]}})
    row = final(game)
    assert (row["Juku"], row["Temple"], row["colours"], row["Bears"]) == (5, 0, 0, -2)
    assert row["total"] == 3


def test_equal_paths_the_better_by_penalties() -> None:
    # Chain A: Start E-W -> (4,5) E-W (6 Snow: -4) -> (4,6) E-W. Chain B: (3,4) N-S -> Start N-S
    # -> (5,4) N-S, nothing on it. Both 3 segments; A: -2 -4 = -6, B: -2. B is taken: -2.
    game = build({0: {SHORT: tile("Water E-W", snow=6), (4, 6): "Water E-W",
                      (3, 4): "Water N-S", (5, 4): "Water N-S"}})
    row = final(game)
    assert (row["Snow"], row["total"]) == (0, -2)


def test_equal_paths_equal_scores_fewer_bears_taken() -> None:
    # Chain A: Start E-W -> (4,5) Water E-W with a Rock Temple and 3 Bear tokens (protected):
    #   Temple 2, Bears -2 (Start) = 0; Bears on the path, protected or not: 2 + 3 = 5.
    # Chain B: Start N-S -> (5,4) Water N-S with a Rock Juku: Juku 2, Bears -2 = 0; Bears 2.
    # Equal scores: the tie-break (fewest Bears on the path) takes B.
    game = build({0: {SHORT: [tile("Water E-W", bears=3), "Rock Temple"], (5, 4): ["Water N-S", "Rock Juku"]}})
    row = final(game)
    assert (row["Juku"], row["Temple"], row["total"]) == (2, 0, 0)


def test_unconnected_edges_do_not_link() -> None:
    # (4,5) Water N-S next to the Start: its segment touches N and S, not W: no link with Start E-W.
    # Components: Start E-W (1), Start N-S (1), (4,5) (1): all 1 segment. The first one in
    # order giving the best total is kept: a Juku on (4,5) -> that one: Juku 2 (no Start: no Bear).
    game = build({0: {SHORT: ["Water N-S", "Rock Juku"]}})
    row = final(game)
    assert (row["Juku"], row["Bears"], row["total"]) == (2, 0, 2)


# --- intermediate scoring -------------------------------------------------------------------------


def inter(game_boards: dict[int, dict], slots: tuple[str, str, str], pair: str) -> list[dict[str, int]]:
    order = {"A+B": ["A+B", "B+C", "A+C"], "B+C": ["B+C", "A+B", "A+C"], "A+C": ["A+C", "A+B", "B+C"]}[pair]
    game = build(game_boards, zones={"slot_a": [slots[0]], "slot_b": [slots[1]], "slot_c": [slots[2]],
                                     "inter_slots": [order]},
                 variables={"scoring_slot": 1})
    return game.preview_scoring("intermediate")


# A grid with: (4,5) Forest E-W (1 Bear token) with a Water Juku; (4,6) Forest N-S covered by
# Water E-W (2 Snow) with a Forest Samurai and a Forest Juku; (3,4) Water N-S bear (no token);
# the Start uncovered.
MIXED = {0: {SHORT: [tile("Forest E-W", bears=1), "Water Juku"],
             (4, 6): ["Forest N-S", tile("Water E-W", snow=2), "Forest Samurai", "Forest Juku"],
             (3, 4): "Water N-S bear"}}


def test_path_scoring_tokens() -> None:
    # Forest: top tiles (4,5) = 1 (the covered Forest N-S does not count); tokens Forest Samurai,
    # Forest Juku = 2 -> 3 x 2 = 6. Water: top tiles (4,6), (3,4) = 2; token Water Juku = 1 -> 6.
    # A+C with A = Forest, C = Water: 6 + 6, B not scored.
    row = inter(MIXED, ("Path Scoring Forest", "with Bears", "Path Scoring Water"), "A+C")[0]
    assert (row["Path Scoring A"], row["Composition B"], row["Path Scoring C"]) == (6, 0, 6)
    # Rock: nothing, the Start has no colour.
    row = inter(MIXED, ("Path Scoring Rock", "with Bears", "Path Scoring Field"), "A+C")[0]
    assert row["total"] == 0


@pytest.mark.parametrize(("token", "tiles"), [
    # Uncovered tiles: Start (2 symbols), (4,5) (1 token, Juku), (4,6) (2 Snow, 2 tokens),
    # (3,4) (1 symbol).
    ("with Bears", 3),            # Start, (4,5), (3,4)
    ("without Bears", 1),         # (4,6)
    ("with Snow", 1),             # (4,6)
    ("without Snow", 3),          # Start, (4,5), (3,4)
    ("with Discoveries", 2),      # (4,5), (4,6)
    ("without Discoveries", 2),   # Start, (3,4)
])
def test_composition_tokens(token: str, tiles: int) -> None:
    row = inter(MIXED, ("Path Scoring Rock", token, "Path Scoring Field"), "A+B")[0]
    assert row["Composition B"] == 2 * tiles
    assert row["Path Scoring C"] == 0


def test_composition_covered_start_does_not_count() -> None:
    # The Start covered by a Rock E-W: tiles (4,4) Rock E-W (no Bear) -> "without Bears": 1 tile.
    row = inter({0: {START: ["Start", "Rock E-W"]}}, ("Path Scoring Rock", "without Bears",
                                                      "Path Scoring Field"), "B+C")[0]
    # B: 2; C Field: 0.
    assert (row["Composition B"], row["Path Scoring C"], row["Path Scoring A"]) == (2, 0, 0)


# --- rules of play -------------------------------------------------------------------------------------


def shape_flips(label: str) -> int:
    return 2 if (" N-E" in label or " N-W" in label) else 1


@pytest.mark.parametrize("players", [2, 3, 4])
def test_first_decision_legal_actions(players: int) -> None:
    # At the first decision only the Start is on the board: a tile may go on it or on one of
    # its 4 neighbours (5 cells), a curve flipped or not. No Path tile: no token can be played,
    # nothing is reserved. Every tile of every supply is playable (Actions 1 and 2).
    game = RULES.new_game(players, seed=3)
    view = game.view(game.current_player)
    tiles = [lab for p in range(players) for lab in view["zones"][f"supply(P{p + 1})"]
             if not any(k in lab for k in ("Juku", "Samurai", "Observation", "Temple", "Wheel", "Bell"))]
    assert len(tiles) == 2 * players
    assert len(game.legal_actions()) == sum(5 * shape_flips(t) for t in tiles)
    assert not any(" on " in lab for lab in game.legal_labels())


def test_setup() -> None:
    game = RULES.new_game(3, seed=5)
    v = game.view(None)
    z = v["zones"]
    assert len(z["market"]) == 4
    for p in (1, 2, 3):
        assert len(z[f"supply(P{p})"]) == 3
        assert z[f"board(P{p})[4,4]"] == ["Start"]
    assert len(z["general"]) == 16
    assert z["tile_pile"] == {"hidden": 60 - 2 - 6}
    assert z["token_pile"] == {"hidden": 45 - 2 - 3}
    assert len(z["event_shown"]) == 1 and z["event_deck"] == {"hidden": 9}
    assert z["slot_a"][0].startswith("Path Scoring") and z["slot_c"][0].startswith("Path Scoring")
    assert z["slot_a"] != z["slot_c"]
    assert sorted(z[f"inter_slots[1,{k}]"][0] for k in (1, 2, 3)) == ["A+B", "A+C", "B+C"]
    assert v["vars"]["space"] == 2
    assert RULES.new_game(2, seed=5).view(None)["vars"]["space"] == 1


def grid_game(cells: dict[tuple[int, int], Entry | list[Entry]], seat_supply: list[str],
              players: int = 2) -> Game:
    """A position where the player to act has this board and this supply."""
    probe = RULES.new_game(players, seed=0)
    me = probe.current_player
    return build({me: cells}, players=players, zones={f"supply(P{me + 1})": seat_supply})


def test_placement_beyond_4x4_refused() -> None:
    # Occupied columns 2-5 (Start at 4): a tile at (4,6) would make the box 5 wide; (4,1) too.
    game = grid_game({(4, 2): "Water E-W", (4, 3): "Water E-W", (4, 5): "Water E-W"}, ["Rock N-S"])
    labels = game.legal_labels()
    assert "play Rock N-S at 4,1" not in labels and "play Rock N-S at 4,6" not in labels
    assert "play Rock N-S at 3,5" in labels and "play Rock N-S at 4,5" in labels
    me = game.current_player
    with pytest.raises(GameError):
        game.apply((game.program.action_ids["play_tile"],
                    (game.zone_index("board", me, 4, 6),
                     game.evaluate("first(t for t in supply(p) if t is Tile)", p=me), False)))


def test_token_not_on_the_starting_tile() -> None:
    game = grid_game({}, ["Water Juku", "Rock N-S"])
    assert not any("Water Juku" in lab for lab in game.legal_labels())
    game = grid_game({(4, 5): "Water E-W"}, ["Water Juku"])
    mine = [lab for lab in game.legal_labels() if "Water Juku" in lab]
    assert mine == ["play Water Juku on Water E-W at 4,5"]


def test_straights_are_not_offered_flipped() -> None:
    game = grid_game({}, ["Rock N-S", "Rock N-E", "Rock E-W"])
    labels = game.legal_labels()
    assert "play Rock N-E at 4,5 flipped" in labels
    assert not any(lab.startswith(("play Rock N-S", "play Rock E-W")) and lab.endswith("flipped") for lab in labels)


def play_first(game: Game, prefix: str) -> str:
    """Apply the first legal action with this prefix (a play: from one's own supply)."""
    label = next(lab for lab in game.legal_labels() if lab.startswith(prefix) and " from P" not in lab)
    game.apply(label)
    return label


def test_covering_discards_tokens_snow_and_bears() -> None:
    game = grid_game({(4, 5): [tile("Water E-W", snow=3, bears=2), "Rock Juku", "Water Temple"]},
                     ["Forest N-S"])
    me = game.current_player
    game.apply("play Forest N-S at 4,5")
    assert game.view(None)["zones"][f"board(P{me + 1})[4,5]"] == ["Water E-W", "Forest N-S"]
    assert game.view(None)["zones"]["discards"] == ["Rock Juku", "Water Temple"]
    under = game.state.z[game.zone_index("board", me, 4, 5)][0]
    assert game.evaluate("c.snow + c.bears", c=under) == 0


def test_extra_action_flow() -> None:
    # The player to act holds 2 Extra Action tokens: after the 2 actions, "spend" or "pass";
    # spending returns the token to the general supply and gives one more placement.
    probe = RULES.new_game(2, seed=0)
    me = probe.current_player
    game = build({}, zones={f"extras(P{me + 1})": ["Extra Action", "Extra Action"], "general": ["Extra Action"] * 14})
    play_first(game, "play ")
    play_first(game, "play ")
    assert game.current_player == me
    assert game.legal_labels() == ["spend an Extra Action token", "pass"]
    game.apply("spend an Extra Action token")
    assert len(game.view(None)["zones"][f"extras(P{me + 1})"]) == 1
    assert len(game.view(None)["zones"]["general"]) == 15
    assert all(lab.startswith("play ") for lab in game.legal_labels())
    play_first(game, "play ")
    assert game.legal_labels() == ["spend an Extra Action token", "pass"]
    game.apply("pass")
    # then the Reserve
    assert game.current_player == me and all(lab.startswith(("reserve", "pass")) for lab in game.legal_labels())


def refill_order(game: Game, me: int) -> list[int]:
    """Finish the acting player's turn (no Extra Action, no Reserve), then list who refills, in order."""
    while game.current_player == me and not any(lab.startswith("take") for lab in game.legal_labels()):
        game.apply("pass")
    order: list[int] = []
    while any(lab.startswith("take") for lab in game.legal_labels()):
        if not order or order[-1] != game.current_player:
            order.append(game.current_player)
        labels = game.legal_labels()
        game.apply("take a blind tile" if "take a blind tile" in labels else labels[-1])
    return order


@pytest.mark.parametrize(("sources", "expected"), [
    # Action 2 from the player two seats on, then from the one on the left: both gain an Extra
    # Action token and refill, clockwise from the left; the player's own supply is full.
    (("far", "left"), ["left", "far"]),
    # From the far player, then from one's own supply: the far player refills, then the player.
    (("far", "me"), ["far", "me"]),
])
def test_action_2_and_refill_order(sources: tuple[str, str], expected: list[str]) -> None:
    game = RULES.new_game(3, seed=0)
    me = game.current_player
    seats = {"me": me, "left": (me + 1) % 3, "far": (me + 2) % 3}
    for source in sources:
        labels = game.legal_labels()
        if source == "me":
            label = next(lab for lab in labels if " from P" not in lab)
        else:
            label = next(lab for lab in labels if f" from P{seats[source] + 1} at" in lab)
        game.apply(label)
    zones = game.view(None)["zones"]
    givers = {seats[s] for s in sources if s != "me"}
    for seat in range(3):
        assert len(zones[f"extras(P{seat + 1})"]) == (1 if seat in givers else 0)
    assert len(zones["general"]) == 16 - len(givers)
    assert refill_order(game, me) == [seats[s] for s in expected]
    zones = game.view(None)["zones"]
    assert all(len(zones[f"supply(P{seat + 1})"]) == 3 for seat in range(3))
    assert len(zones["market"]) == 4


def test_reserved_element_taken_gives_2_vp() -> None:
    game = RULES.new_game(2, seed=1)
    me = game.current_player
    other = 1 - me
    play_first(game, "play ")
    play_first(game, "play ")
    if game.legal_labels()[0].startswith("spend"):
        game.apply("pass")
    reserved = play_first(game, "reserve ")
    assert reserved.endswith("from the Market")
    what = reserved[len("reserve "):-len(" from the Market")]
    # my refill: the reserved element is not offered to me
    assert f"take {what} from the Market" not in game.legal_labels()
    # every player sees where the Hiker stands (a property of the element)
    other_view = game.view(other, properties=True)
    market = other_view["zones"]["market"]
    assert other_view["properties"]["market"][market.index(what)] == {"hiker": f"P{me + 1}"}
    while game.current_player == me:
        game.apply("take a blind tile" if "take a blind tile" in game.legal_labels() else game.legal_labels()[-1])
    # the other player's turn: play, play, then refill taking my reserved element
    assert game.current_player == other
    while not any(lab.startswith("take") for lab in game.legal_labels()):
        labels = game.legal_labels()     # plays from its own supply only: nobody else refills
        game.apply("pass" if "pass" in labels else next(lab for lab in labels if " from " not in lab))
    game.apply(f"take {what} from the Market")
    assert game.view(None)["vars"][f"hiker_points(P{me + 1})"] == 2
    assert game.evaluate("hiker_home(p)", p=me)


def test_reserve_rules() -> None:
    # Never from one's own supply; one Hiker per supply; the own reserved element only by Action 3.
    game = next(g for g in (RULES.new_game(2, seed=s) for s in range(2, 20))
                if any("-" in e for e in g.view(None)["zones"][f"supply(P{2 - g.current_player})"]))
    me = game.current_player
    other = 1 - me
    play_first(game, "play ")
    play_first(game, "play ")
    if game.legal_labels()[0].startswith("spend"):
        game.apply("pass")
    labels = game.legal_labels()
    assert all(lab.endswith(("from the Market", f"from P{other + 1}")) for lab in labels if lab != "pass")
    label = next(lab for lab in labels if lab.endswith(f"from P{other + 1}") and "-" in lab)
    game.apply(label)
    what = label[len("reserve "):-len(f" from P{other + 1}")]
    while game.current_player == me:
        game.apply(game.legal_labels()[-1])
    # the other player may play it (Action 1); on my next turn I may play it once (Action 3)
    assert any(lab.startswith(f"play {what} at") or lab.startswith(f"play {what} on") for lab in game.legal_labels())


# --- the command line ------------------------------------------------------------------------------


def test_check_and_simulate_are_clean() -> None:
    from click.testing import CliRunner

    from ruleforge.cli import main

    runner = CliRunner()
    result = runner.invoke(main, ["check", str(NAKASENDO)])
    assert result.exit_code == 0, result.output
    for players in (2, 3, 4):
        result = runner.invoke(main, ["simulate", str(NAKASENDO), "-n", "3", "--players", str(players)])
        assert result.exit_code == 0, result.output
    # the greedy agent reads the ranking before any final scoring (no path chosen yet)
    result = runner.invoke(main, ["simulate", str(NAKASENDO), "-n", "1", "--players", "2", "--agents", "greedy"])
    assert result.exit_code == 0, result.output


def test_scores_before_the_end() -> None:
    # No scoring applied yet: every total 0, and the ranking's tie-breaks read an empty path.
    game = RULES.new_game(3, seed=4)
    assert [(row["total"], list(row["rank"])) for row in game.scores()] == [(0, [0, 0, 0])] * 3


# --- Events, Extra Action supply, Action 3, skipped actions ------------------------------------------


@pytest.mark.parametrize(("space", "snow"), [(1, 1), (2, 1), (3, 1), (4, 2), (5, 2), (6, 2), (7, 3), (8, 3),
                                             (9, 3), (10, 4)])
def test_snow_per_event(space: int, snow: int) -> None:
    game = RULES.new_game(2, seed=0)
    game.set_var("space", space)
    assert game.evaluate("snow_count") == snow


def top_tiles(game: Game, seat: int) -> dict[str, str]:
    """'r,c' -> the label of the uncovered tile, from a spectator's view."""
    out = {}
    for key, labels in game.view(None)["zones"].items():
        if key.startswith(f"board(P{seat + 1})[") and labels:
            tiles = [lab for lab in labels if lab == "Start" or "-" in lab]
            out[key.split("[")[1][:-1]] = tiles[-1]
    return out


def test_event_snow_then_bear_in_turn_order() -> None:
    # Round 2 opens with the Event shown: "Snow on Forest, Bear on Rock". Space 2: 1 Snow each.
    # For Snow, each player from the first player chooses one of their uncovered Forest tiles
    # (no such tile: no decision); then the same for the Bear on Rock. The Start never receives any.
    probe = RULES.new_game(2, seed=0)
    first = probe.current_player
    boards = {0: {(4, 5): "Forest E-W", (4, 6): "Rock E-W", (3, 4): "Water N-S", (5, 4): "Field N-S"},
              1: {(4, 5): "Rock E-W", (4, 6): "Water E-W"}}
    game = build(boards, zones={"event_shown": ["Snow on Forest, Bear on Rock"]})
    preset = {(seat, f"{r},{c}") for seat, cells in boards.items() for r, c in cells}
    # Round 1: plays that leave the preset tiles uncovered (tokens, or tiles on new cells).
    while True:
        labels = game.legal_labels()
        if any(lab.startswith("1 ") for lab in labels):
            break
        seat = game.current_player
        plays = [lab for lab in labels if lab.startswith("play ")
                 and (" on " in lab or (seat, lab.split(" at ")[1].split(" ")[0]) not in preset)]
        game.apply(plays[0] if plays else ("pass" if "pass" in labels else labels[-1]))
    seen: list[tuple[int, list[str]]] = []
    while not any(lab.startswith("play ") for lab in game.legal_labels()):
        seat = game.current_player
        labels = game.legal_labels()
        seen.append((seat, labels))
        game.apply(labels[0])
    expected = []
    for kind, terrain in (("Snow", "Forest"), ("Bear", "Rock")):
        for seat in (first, 1 - first):
            # the Snow and Bear placed earlier in this loop change no label
            cells = {rc: lab for rc, lab in top_tiles(game, seat).items() if lab.startswith(terrain)}
            if cells:
                expected.append((seat, [f"1 {kind} on {lab} at {rc}" for rc, lab in
                                        sorted(cells.items(), key=lambda kv: tuple(map(int, kv[0].split(","))))]))
    assert seen == expected
    assert [seat for seat, _ in seen][:1] == [first] and any(labels for _, labels in seen)
    assert all("Start" not in lab for _, labels in seen for lab in labels)
    # and the first player's turn follows
    assert game.current_player == first
    assert game.view(None)["zones"]["event_discard"] == ["Snow on Forest, Bear on Rock"]


def test_no_extra_action_token_when_the_general_supply_is_empty() -> None:
    probe = RULES.new_game(2, seed=0)
    me = probe.current_player
    other = 1 - me
    game = build({}, zones={"general": [], f"extras(P{me + 1})": ["Extra Action"] * 16})
    label = next(lab for lab in game.legal_labels() if f" from P{other + 1} at" in lab)
    game.apply(label)
    zones = game.view(None)["zones"]
    assert zones[f"extras(P{other + 1})"] == [] and zones["general"] == []


def test_action_3_from_another_supply() -> None:
    # The player's Hiker is on an element of the other player's supply: it is offered only as
    # "play your reserved ...", once; the other player gains an Extra Action token and refills first.
    probe = RULES.new_game(2, seed=0)
    me = probe.current_player
    other = 1 - me
    game = build({}, zones={f"supply(P{other + 1})": ["Rock N-S", "Water Juku", "Field E-W"]})
    rock = game.state.z[game.zone_index("supply", other)][0]
    game.set_prop(rock, "hiker", me)
    labels = game.legal_labels()
    assert "play your reserved Rock N-S from P2 at 4,5".replace("P2", f"P{other + 1}") in labels
    assert not any(lab.startswith("play Rock N-S") for lab in labels)
    game.apply(f"play your reserved Rock N-S from P{other + 1} at 4,5")
    assert game.evaluate("hiker_home(p)", p=me)
    assert not any("reserved" in lab for lab in game.legal_labels())
    play_first(game, "play ")                   # the second action, from the own supply
    assert game.view(None)["zones"][f"extras(P{other + 1})"] == ["Extra Action"]
    assert game.view(None)["vars"][f"hiker_points(P{me + 1})"] == 0
    assert refill_order(game, me) == [other, me]


def test_actions_that_cannot_be_taken_are_skipped() -> None:
    # The player's supply holds one Path tile; the other supply is empty; only the Start is on
    # the board and the Market holds tokens (which only Action 3 could play from there). The
    # first action plays the tile; then nothing can be placed: the second action is skipped.
    probe = RULES.new_game(2, seed=0)
    me = probe.current_player
    other = 1 - me
    game = build({}, zones={f"supply(P{me + 1})": ["Rock N-S"], f"supply(P{other + 1})": [],
                            "market": ["Field Juku", "Forest Juku"]})
    assert game.current_player == me
    game.apply("play Rock N-S at 4,5")
    # the second action cannot be taken: skipped (ruling); the Reserve follows
    assert game.current_player == me
    assert game.legal_labels() == ["reserve Field Juku from the Market", "reserve Forest Juku from the Market", "pass"]
    assert sum(1 for line in game.log_lines() if "has no legal action" in line) == 1
