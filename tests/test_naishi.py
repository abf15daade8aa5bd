"""Naishi base game (games/naishi.rules): scoring of hand-written positions, the game's flow
driven through its labels, and the `ruleforge score` command on position files.

Expected numbers are worked out by hand from /work/shared/rulings/naishi.md (§6), never read
off the engine, and every scored territory is also checked against the independent
hand-written oracle `bench/handwritten_naishi.py` (`score_territory`, `colours`).

Notation: a territory is a Line (positions 1-5) above a Hand (positions 1-5); "L3" is Line
position 3, "H3" Hand position 3 (under L3). Oracle cells are 0-4 (Line) and 5-9 (Hand).
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from baselines import load_baseline
from click.testing import CliRunner, Result
from seeded import decisions

import ruleforge
from ruleforge.cli import main
from ruleforge.engine import Game
from ruleforge.testing import examples_of

ROOT = Path(__file__).parents[1]
NAISHI = str(ROOT / "games" / "naishi.rules")
RULES = ruleforge.load(NAISHI)
EXAMPLE_FILE = ROOT / "docs" / "examples" / "naishi_example1.json"
POSITIONS_DOC = ROOT / "docs" / "positions.md"




hw = load_baseline("handwritten_naishi")

M = "Mountain"
N = "Naishi"
A = "Advisor"
S = "Sentinel"
K = "Monk"
H = "Horseman"
RO = "Ronin"
NJ = "Ninja"
F = "Fort"
T = "Torii"
R = "Rice Field"
B = "Banner"
TYPES = [M, N, A, S, K, H, RO, NJ, F, T, R, B]
KEYS = list(hw.SCORE_KEYS)  # the 11 scoring items: every type but the Ninja
M5 = [M, M, M, M, M]
POSITION = "ruleforge-position/1"

Copies = dict[int, str]


# --- positions ----------------------------------------------------------------------------------


def cell_key(seat: int, cell: int) -> str:
    """The view key of oracle cell 0-9 of a seat's territory."""
    return f"territory(P{seat + 1})[{cell // 5 + 1},{cell % 5 + 1}]"


def position_data(territories: list[tuple[list[str], list[str], Copies]]) -> dict[str, Any]:
    """A position file: each seat's (Line, Hand, Ninja copies by cell); P2 defaults to 10 Mountains."""
    zones: dict[str, Any] = {}
    props: dict[str, Any] = {}
    while len(territories) < 2:
        territories = [*territories, (M5, M5, {})]
    for seat, (line, hand, copies) in enumerate(territories):
        zones[f"territory(P{seat + 1})"] = [list(line), list(hand)]
        for cell, copy in copies.items():
            props[cell_key(seat, cell)] = {"copy": copy}
    return {"format": POSITION, "players": 2, "zones": zones, "props": props}


def build(line: list[str], hand: list[str], copies: Copies | None = None) -> Game:
    return RULES.position(position_data([(line, hand, copies or {})]))


def full(total: int, **points: int) -> dict[str, int]:
    """Every item's points (unlisted ones 0) and the total, which must be their sum."""
    out = dict.fromkeys(KEYS, 0)
    for key, value in points.items():
        name = {"Rice": R}.get(key, key)
        assert name in out, key
        out[name] = value
    assert sum(out.values()) == total, f"hand numbers {points} do not add up to {total}"
    out["total"] = total
    return out


def colours_of(game: Game, seat: int) -> int:
    """The ranking's tie-break: (score, colours) for Naishi."""
    key = game.program.rank_func(game.state, seat)
    assert len(key) == 2
    return key[1]


def check_position(line: list[str], hand: list[str], copies: Copies | None, expected: dict[str, int],
                   colours: int) -> None:
    """The engine (as P1 and as P2) and the oracle agree with the hand computation."""
    copies = copies or {}
    game = RULES.position(position_data([(line, hand, copies), (line, hand, copies)]))
    preview = game.preview_scoring("points")
    assert preview[0] == expected
    assert preview[1] == expected
    assert colours_of(game, 0) == colours_of(game, 1) == colours
    assert hw.score_territory(line, hand, copies) == expected
    assert hw.colours(line, hand, copies) == colours


# --- the worked examples the game ships (games/naishi.examples.json) against the oracle ----------
# The plugin runs each example against the engine (it collects games/); here the same expected
# numbers, worked by hand from the rulings' §8 examples 1-6 and our own cases, must also be
# what the hand-written oracle scores for the territory each example lays out.

EXAMPLES = examples_of(RULES)


def territory_of(position: dict[str, Any], seat: int) -> tuple[list[str], list[str], Copies] | None:
    """A seat's Line, Hand and Ninja copies as the position writes them (None if not given)."""
    grid = position["zones"].get(f"territory(P{seat + 1})")
    if grid is None:
        return None
    copies: Copies = {}
    rows: list[list[str]] = []
    for r, row in enumerate(grid):
        rows.append([])
        for c, cell in enumerate(row):
            entry = cell[-1] if isinstance(cell, list) else cell
            label = entry["label"] if isinstance(entry, dict) else entry
            if isinstance(entry, dict) and entry.get("copy"):
                copies[r * 5 + c] = entry["copy"]
            rows[-1].append(label)
    for key, props in position.get("props", {}).items():
        if key.startswith(f"territory(P{seat + 1})[") and props.get("copy"):
            r, c = (int(x) for x in key[key.index("[") + 1:-1].split(","))
            copies[(r - 1) * 5 + c - 1] = {"RiceField": R}.get(props["copy"], props["copy"])
    return rows[0], rows[1], copies


def test_the_base_game_ships_the_rulings_examples() -> None:
    names = [e.name for e in EXAMPLES]
    for n in ("example 1", "example 2", "example 3", "example 4, first layout", "example 4, second layout",
              "example 5", "example 6, copied", "example 6, uncopied"):
        assert n in names


@pytest.mark.parametrize("example", [e for e in EXAMPLES if e.expect], ids=str)  # not those of legal actions
def test_worked_example_agrees_with_the_oracle(example: Any) -> None:
    checked = 0
    for seat, expected in example.expect.items():
        laid_out = territory_of(example.position, seat)
        if laid_out is None:
            continue
        line, hand, copies = laid_out
        oracle = hw.score_territory(line, hand, copies)
        assert {item: oracle[item] for item in expected} == expected, f"{line} / {hand} {copies}"
        assert all(oracle[item] == 0 for item in oracle if item not in expected)  # every other item 0
        colours = example.player_values.get(seat, {}).get("colours(p)")
        if colours is not None:
            assert hw.colours(line, hand, copies) == colours
        checked += 1
    assert checked


# --- positions of our own, covering every card ----------------------------------------------------


class Case(NamedTuple):
    line: list[str]
    hand: list[str]
    copies: Copies
    expected: dict[str, int]
    colours: int


CASES: dict[str, Case] = {
    # No Mountain at all: 0. Forts L1 L5 H1 H5 (columns 1/5): 24. Advisor L2: 4 + Naishi L3 4 = 8;
    # L4: 4 + Naishi L3 4 = 8 -> 16. Naishi L3 12 + H3 8 = 20. Sentinel H2: no Sentinel near
    # (H1 F, H3 N, L2 A) 3 + Fort H1 4 = 7; H4: 3 + Fort H5 4 = 7 -> 14. Colours brown purple pink green.
    "no_mountain": Case([F, A, N, A, F], [F, S, N, S, F], {},
                        full(74, Fort=24, Advisor=16, Naishi=20, Sentinel=14), 4),
    # 10 Mountains: -5.
    "all_mountains": Case(M5, M5, {}, full(-5, Mountain=-5), 1),
    # Exactly 1 Mountain (H3): +5. Advisors L1 2, L2 4 + Naishi 4, L4 4 + Naishi 4, L5 2 = 20.
    # Naishi L3 12. Sentinels H2, H4: 3 + one Fort each = 14. Forts H1, H5: 12.
    "one_mountain": Case([A, A, N, A, A], [F, S, M, S, F], {},
                         full(63, Mountain=5, Advisor=20, Naishi=12, Sentinel=14, Fort=12), 5),
    # 1 Torii: -5; 9 Mountains: -5.
    "one_torii": Case([T, M, M, M, M], M5, {}, full(-10, Mountain=-5, Torii=-5), 2),
    # 2 Torii: 0; 8 Mountains: -5.
    "two_torii": Case([T, T, M, M, M], M5, {}, full(-5, Mountain=-5), 2),
    # 4 Torii (L1 L3 H2 H4): 30. Monk L2 (Line, no 5): Torii L1 L3 H2 = 6; H1: 5 + Torii H2 L1 = 9;
    # H3: 5 + Torii H2 H4 L3 = 11 -> 26. 3 Mountains: -5.
    "four_torii_three_monks": Case([T, K, T, M, M], [K, T, K, T, M], {},
                                   full(51, Torii=30, Monk=26, Mountain=-5), 3),
    # Monk L1: Line, no Torii: 0; Monk H5: 5. 8 Mountains: -5.
    "monk_line_and_hand": Case([K, M, M, M, M], [M, M, M, M, K], {}, full(0, Monk=5, Mountain=-5), 2),
    # Rice {L1 L2}: 10; {L4 H4 H5}: 20. 5 Mountains: -5.
    "rice_two_groups": Case([R, R, M, R, M], [M, M, M, R, R], {}, full(25, Rice=30, Mountain=-5), 2),
    # Rice {L1}: 0; {L3 L4 L5 H5}: 30. Naishi H3: 8. 4 Mountains: -5.
    "rice_single_and_four": Case([R, M, R, R, R], [M, M, N, M, R], {},
                                 full(33, Rice=30, Naishi=8, Mountain=-5), 3),
    # Rice L1 L3 H2 H4 touch only diagonally: four groups of 1 -> 0. 6 Mountains: -5.
    "rice_diagonal": Case([R, M, R, M, M], [M, R, M, R, M], {}, full(-5, Mountain=-5), 2),
    # 1 Line Banner: 3; the Hand Banner scores nothing. 8 Mountains: -5.
    "banner_line_and_hand": Case([B, M, M, M, M], [B, M, M, M, M], {}, full(-2, Banner=3, Mountain=-5), 2),
    # 2 Line Banners: 8. Horsemen H1, H5 under Banners: (3 + 10) x 2 = 26. 6 Mountains: -5.
    "two_banners_two_horsemen": Case([B, M, M, M, B], [H, M, M, M, H], {},
                                     full(29, Banner=8, Horseman=26, Mountain=-5), 3),
    # Horseman L1 (Line): 0; H2 under Banner L2: 13. 1 Line Banner: 3. 7 Mountains: -5.
    "horseman_in_line": Case([H, B, M, M, M], [M, H, M, M, M], {},
                             full(11, Horseman=13, Banner=3, Mountain=-5), 3),
    # Horseman H2 under a Mountain (the Banner L1 is diagonal): 3. Banner 3. 8 Mountains: -5.
    "horseman_banner_diagonal": Case([B, M, M, M, M], [M, H, M, M, M], {},
                                     full(1, Horseman=3, Banner=3, Mountain=-5), 3),
    # Sentinels L1 L2 side by side: no 3 for either; L1 + Fort H1 4. Fort H1: 6. 7 Mountains: -5.
    "sentinels_side_by_side": Case([S, S, M, M, M], [F, M, M, M, M], {},
                                   full(5, Sentinel=4, Fort=6, Mountain=-5), 3),
    # Sentinel L2: 3 + Forts L1 L3 H2: 15. Fort L1: 6 (L3, H2 not in column 1/5). 6 Mountains: -5.
    "sentinel_three_forts": Case([F, S, F, M, M], [M, F, M, M, M], {},
                                 full(16, Sentinel=15, Fort=6, Mountain=-5), 3),
    # Sentinels L3 and H3 are adjacent (same column): 0 each. Fort H5: 6. 7 Mountains: -5.
    "sentinels_one_above_other": Case([M, M, S, M, M], [M, M, S, M, F], {},
                                      full(1, Fort=6, Mountain=-5), 3),
    # Forts in columns 2-4: 0. 7 Mountains: -5.
    "forts_in_the_middle": Case([M, F, F, F, M], M5, {}, full(-5, Mountain=-5), 2),
    # Advisors by column, no Naishi: L1 2, L2 4, L4 4, L5 2, H3 3 = 15. 5 Mountains: -5.
    "advisors_by_column": Case([A, A, M, A, A], [M, M, A, M, M], {}, full(10, Advisor=15, Mountain=-5), 2),
    # Advisor L3: 3 + Naishi L2, L4, H3 = 15. Naishi L2 0, L4 0, H3 8. 6 Mountains: -5.
    "advisor_three_naishi": Case([M, N, A, N, M], [M, M, N, M, M], {},
                                 full(18, Advisor=15, Naishi=8, Mountain=-5), 3),
    # Naishi L1, L5, H2: 0; H3: 8. 6 Mountains: -5.
    "naishi_off_centre": Case([N, M, M, M, N], [M, N, N, M, M], {}, full(3, Naishi=8, Mountain=-5), 2),
    # 8 types (Ronin Naishi Advisor Sentinel Monk Fort Torii Rice): Ronin 8. Advisor L3: 3 + Naishi L2 = 7.
    # Sentinel L4: 3. Monk L5 (Line, no Torii): 0. Fort H1: 6. Torii: -5. Rice H3 alone: 0.
    # 2 Mountains: -5. Colours: 8 + white = 9.
    "ronin_eight_types": Case([RO, N, A, S, K], [F, T, R, M, M], {},
                              full(14, Ronin=8, Advisor=7, Sentinel=3, Fort=6, Torii=-5, Mountain=-5), 9),
    # 10 types: Ronin 45. Advisor 7, Sentinel L4 3, Monk L5 0, Fort H1 6, Torii -5, Rice 0,
    # Banner H4 (Hand) 0, Horseman H5 under a Monk: 3. No Mountain: 0. Colours 10.
    "ronin_ten_types": Case([RO, N, A, S, K], [F, T, R, B, H], {},
                            full(59, Ronin=45, Advisor=7, Sentinel=3, Fort=6, Torii=-5, Horseman=3), 10),
    # Two Ronins, 9 types (no Horseman): 15 each = 30. Advisor 7, Sentinel 3, Fort 6, Torii -5.
    "two_ronin_nine_types": Case([RO, N, A, S, K], [F, T, R, B, RO], {},
                                 full(41, Ronin=30, Advisor=7, Sentinel=3, Fort=6, Torii=-5), 9),
    # 7 types (Ronin Naishi Advisor Fort Torii Rice Banner): Ronin 0. Advisor L3: 3 + Naishi L2 = 7.
    # Fort 6, Torii -5, 3 Mountains -5. Colours 7 + white = 8.
    "ronin_seven_types": Case([RO, N, A, M, M], [F, T, R, B, M], {},
                              full(3, Advisor=7, Fort=6, Torii=-5, Mountain=-5), 8),
    # A Ninja copying an Advisor is no Ronin type: still 8 types, Ronin 8. Advisor L3 7 + Ninja H4
    # (column 4, no Naishi near) 4 = 11. Sentinel L4: 3 (the Ninja-Advisor below is no Sentinel).
    # Fort 6, Torii -5, exactly 1 Mountain (H5): +5. Colours 8 + white = 9 (purple already there).
    "ninja_advisor_is_no_type": Case([RO, N, A, S, K], [F, T, R, NJ, M], {8: A},
                                     full(28, Ronin=8, Advisor=11, Sentinel=3, Fort=6, Torii=-5, Mountain=5), 9),
    # The same Ninja copying the Ronin scores as a second Ronin: 2 x 8 = 16 (its Ronin type is the
    # real Ronin's). Advisor 7, Sentinel 3, Fort 6, Torii -5, Mountain 5.
    "ninja_copies_ronin": Case([RO, N, A, S, K], [F, T, R, NJ, M], {8: RO},
                               full(32, Ronin=16, Advisor=7, Sentinel=3, Fort=6, Torii=-5, Mountain=5), 9),
    # Uncopied, the Ninja takes its best copy: Naishi 24, Advisor 28, Sentinel 21 (it cancels L4's 3),
    # Monk 29 (5 in the Hand), Ronin 32 -> the Ronin, as above.
    "free_ninja_takes_best": Case([RO, N, A, S, K], [F, T, R, NJ, M], {},
                                  full(32, Ronin=16, Advisor=7, Sentinel=3, Fort=6, Torii=-5, Mountain=5), 9),
    # Ninja-Sentinel L2 beside Sentinel L1: both lose their 3; L1 + Fort H1 4. Fort H1 6. 7 Mountains -5.
    "ninja_sentinel_cancels": Case([S, NJ, M, M, M], [F, M, M, M, M], {1: S},
                                   full(5, Sentinel=4, Fort=6, Mountain=-5), 3),
    # Ninja-Naishi at L3: 12, Naishi H3: 8 -> 20. Advisor L2: 4 + the Ninja-Naishi beside it 4 = 8.
    "ninja_naishi_feeds_advisor": Case([M, A, NJ, M, M], [M, M, N, M, M], {2: N},
                                       full(23, Naishi=20, Advisor=8, Mountain=-5), 3),
    # Uncopied: as Naishi 23; as Advisor L3 3 + Naishi H3 4, Advisor L2 4, Naishi 8, -5 = 14 -> Naishi.
    "free_ninja_naishi": Case([M, A, NJ, M, M], [M, M, N, M, M], {},
                              full(23, Naishi=20, Advisor=8, Mountain=-5), 3),
    # 3 Torii: 30. Monk H1: 5 + Torii L1 2 = 7; Ninja-Monk H2: 5 + Torii L2 2 = 7. 5 Mountains -5.
    "ninja_monk_beside_torii": Case([T, T, T, M, M], [K, NJ, M, M, M], {6: K},
                                    full(39, Torii=30, Monk=14, Mountain=-5), 3),
    # Horseman H1 under a Mountain: 3; Ninja-Horseman H2 under Banner L2: 13. Banner 3. 7 Mountains -5.
    "ninja_horseman_under_banner": Case([M, B, M, M, M], [H, NJ, M, M, M], {6: H},
                                        full(14, Horseman=16, Banner=3, Mountain=-5), 3),
    # No character to copy: the Ninja scores 0 and has no colour. Fort L2 0, 1 Torii -5, Rice alone 0,
    # Line Banner 3, 5 Mountains -5. Colours brown red yellow light-blue white = 5.
    "ninja_without_target": Case([NJ, F, T, R, B], M5, {}, full(-7, Torii=-5, Banner=3, Mountain=-5), 5),
    # Two uncopied Ninjas L1, L5 (targets Advisor, Naishi): (Naishi, Advisor) is best: Advisor L2
    # 4 + Naishi L3 + Ninja-Naishi L1 = 12, Ninja-Advisor L5 2 -> 14; Naishi L3 12 (L1 is column 1).
    # The others: (A, A) 19, (A, N) 17, (N, N) 19. 6 Mountains: -5.
    "two_free_ninjas": Case([NJ, A, N, M, NJ], M5, {}, full(21, Advisor=14, Naishi=12, Mountain=-5), 3),
}


@pytest.mark.parametrize("name", list(CASES))
def test_own_position(name: str) -> None:
    case = CASES[name]
    check_position(case.line, case.hand, case.copies, case.expected, case.colours)


def test_every_card_is_covered() -> None:
    """The positions above hold every type, and every item scores non-zero in at least one."""
    seen = {card for case in CASES.values() for card in (*case.line, *case.hand)}
    assert seen == set(TYPES)
    scored = {key for case in CASES.values() for key, value in case.expected.items() if value and key != "total"}
    assert scored == set(KEYS)
    assert len(CASES) >= 25


# --- the engine against the oracle ------------------------------------------------------------------


def random_territory(rng: random.Random) -> tuple[list[str], list[str], Copies]:
    """Any of the 12 types in each cell; each Ninja copies a random character half of the time
    (possibly one that is absent, as §8 example 6 does) and is left to its best copy otherwise."""
    cells = [rng.choice(TYPES) for _ in range(10)]
    copies = {c: rng.choice(hw.COPYABLE) for c, card in enumerate(cells) if card == NJ and rng.random() < 0.5}
    return cells[:5], cells[5:], copies


def test_engine_agrees_with_oracle_on_500_random_positions() -> None:
    rng = random.Random(20240607)
    ninjas = free = 0
    for _ in range(500):
        both = [random_territory(rng), random_territory(rng)]
        game = RULES.position(position_data(both))
        preview = game.preview_scoring("points")
        for seat, (line, hand, copies) in enumerate(both):
            oracle = hw.score_territory(line, hand, copies)
            where = f"{line} / {hand} copies {copies}"
            assert preview[seat] == oracle, where
            assert colours_of(game, seat) == hw.colours(line, hand, copies), where
            ninjas += (line + hand).count(NJ)
            free += (line + hand).count(NJ) - len(copies)
    assert ninjas > 100 and free > 50  # both kinds of Ninja were exercised


# --- the game's flow, driven through its labels --------------------------------------------------------


def ids(game: Game, zone: str, owner: int | None = None, row: int | None = None,
        column: int | None = None) -> list[int]:
    return list(game.state.z[game.zone_index(zone, owner, row, column)])


def labels(game: Game, zone: str, owner: int | None = None, row: int | None = None,
           column: int | None = None) -> list[str]:
    return [game.program.comp_label[c] for c in ids(game, zone, owner, row, column)]


def row_labels(game: Game, seat: int, row: int) -> list[str]:
    """The cards of a territory row, one per cell (a cell never holds two cards)."""
    out = []
    for k in range(1, 6):
        cell = labels(game, "territory", seat, row, k)
        assert len(cell) == 1
        out.append(cell[0])
    return out


def var(game: Game, name: str, owner: int | None = None) -> Any:
    return game.state.v[game.program.var_base[name] + (owner or 0)]


def after_gifts(seed: int) -> Game:
    """A new game at the first player's first turn (each player gave their first card)."""
    game = RULES.new_game(2, seed=seed)
    for _ in range(2):
        game.apply(next(x for x in game.legal_labels() if x.startswith("give ")))
    return game


def empty_pile(game: Game, k: int, keep_revealed: bool = False) -> None:
    """Edit the River: pile k loses its face-down cards (and its revealed one unless kept)."""
    for c in ids(game, "piles", None, 1, k) + ([] if keep_revealed else ids(game, "river", None, 1, k)):
        game.put(c, "discard")


def develop(game: Game, pile: int, row: str = "Line") -> None:
    """Develop, then decline the bonus action if one is offered."""
    game.apply(f"develop from pile {pile} into {row} {pile}")
    if "pass" in game.legal_labels():
        game.apply("pass")


def main_actions(game: Game) -> set[str]:
    """The kinds of choice offered at a turn's start."""
    kinds = set()
    for label in game.legal_labels():
        kinds.add(label.split(" from ")[0] if label.startswith("develop") else label.split(":")[0])
    return kinds


def test_setup_lines_river_and_dealt_cards() -> None:
    game = RULES.new_game(2, seed=3)
    for p in range(2):
        assert row_labels(game, p, 1) == M5  # §3.2: 5 Mountains as the Line
        assert labels(game, "supply", p) == [M] * 3
        assert len(labels(game, "dealt", p)) == 2
        assert labels(game, "reserve", p) == ["Emissary", "Emissary"]
    for k in range(1, 6):  # §3.3: 5 piles of 6, the top revealed
        assert len(ids(game, "river", None, 1, k)) == 1
        assert len(ids(game, "piles", None, 1, k)) == 5
    development = Counter(label for zone in ("piles", "river") for k in range(1, 6)
                          for label in labels(game, zone, None, 1, k))
    development += Counter(labels(game, "dealt", 0) + labels(game, "dealt", 1))
    assert development == Counter(hw.DEVELOPMENT_DECK)
    # The first player is random: both seats start in some seeds.
    assert {RULES.new_game(2, seed=s).current_player for s in range(12)} == {0, 1}


def test_the_gift_is_secret_and_both_choose_before_seeing() -> None:
    game = RULES.new_game(2, seed=11)
    first = game.current_player
    assert first is not None
    second = 1 - first
    dealt = [labels(game, "dealt", p) for p in range(2)]
    assert game.view(second)["zones"][f"dealt(P{first + 1})"] == {"hidden": 2}
    assert sorted(game.legal_labels()) == sorted(f"give {c}" for c in dealt[first])
    gift = dealt[first][0]
    game.apply(f"give {gift}")
    # The other player sees only that a gift was chosen, and not which.
    assert game.log_lines(viewer=second)[-1] == f"P{first + 1}: choose a gift"
    assert game.log_lines(viewer=first)[-1] == f"P{first + 1}: give {gift}"
    assert gift not in " ".join(game.log_lines(viewer=second))
    assert game.view(second)["zones"][f"gift(P{second + 1})"] == {"hidden": 1}
    # The second player chooses now, before either gift is seen.
    assert game.current_player == second
    assert sorted(game.legal_labels()) == sorted(f"give {c}" for c in dealt[second])
    game.apply(f"give {dealt[second][1]}")
    assert game.log_lines(viewer=first)[-1] == f"P{second + 1}: choose a gift"
    assert game.current_player == first  # the first player starts


@pytest.mark.parametrize("seed", range(6))
def test_hands_hold_kept_received_and_three_mountains(seed: int) -> None:
    game = RULES.new_game(2, seed=seed)
    dealt = [labels(game, "dealt", p) for p in range(2)]
    given: list[str] = ["", ""]
    for _ in range(2):
        me = game.current_player
        assert me is not None
        given[me] = dealt[me][seed % 2]
        game.apply(f"give {given[me]}")
    for p in range(2):
        kept = dealt[p][1 - seed % 2]
        hand = row_labels(game, p, 2)
        assert Counter(hand) == Counter([kept, given[1 - p], M, M, M])
        assert row_labels(game, p, 1) == M5
        assert labels(game, "supply", p) == [] and labels(game, "dealt", p) == []
        # The owner sees the Hand; the opponent sees only that each cell holds a card.
        for k in range(1, 6):
            assert game.view(p)["zones"][f"territory(P{p + 1})[2,{k}]"] == [hand[k - 1]]
            assert game.view(1 - p)["zones"][f"territory(P{p + 1})[2,{k}]"] == {"hidden": 1}
            assert game.view(1 - p)["zones"][f"territory(P{p + 1})[1,{k}]"] == [M]


def test_hand_order_is_shuffled() -> None:
    # Over many seeds the kept card lands in every Hand position.
    where = set()
    for seed in range(40):
        game = RULES.new_game(2, seed=seed)
        me = game.current_player
        assert me is not None
        kept = labels(game, "dealt", me)[1]
        game.apply(f"give {labels(game, 'dealt', me)[0]}")
        game.apply(game.legal_labels()[0])
        if kept != M:
            where.add(row_labels(game, me, 2).index(kept))
    assert where == {0, 1, 2, 3, 4}


def test_develop_replaces_a_card_and_reveals_the_next() -> None:
    game = after_gifts(5)
    me = game.current_player
    assert me is not None
    taken = ids(game, "river", None, 1, 3)[0]
    below = ids(game, "piles", None, 1, 3)[-1]
    old = ids(game, "territory", me, 2, 3)[0]
    game.apply("develop from pile 3 into Hand 3")
    assert ids(game, "territory", me, 2, 3) == [taken]
    assert ids(game, "discard")[-1] == old  # face up on the discard pile
    assert ids(game, "river", None, 1, 3) == [below]  # revealed before the bonus action
    assert game.view(1 - me)["zones"]["discard"] == [game.program.comp_label[old]]
    assert game.legal_labels() == ["send an Emissary to Swap", "send an Emissary to Discard two", "pass"]


def test_a_bonus_taken_first_forces_a_develop() -> None:
    for bonus, move in (("Swap", "swap Line 1 and Hand 1"), ("Discard two", "discard River 2 and 4")):
        game = after_gifts(8)
        me = game.current_player
        assert {"develop", f"send an Emissary to {bonus}", "Imperial Decree"} <= main_actions(game)
        game.apply(f"send an Emissary to {bonus}")
        game.apply(move)
        after = game.legal_labels()
        assert after and all(label.startswith("develop from pile ") for label in after)
        assert len(after) == 10  # any pile, Line or Hand
        game.apply(after[0])
        assert game.current_player == 1 - me  # no second bonus: the turn is over


def test_swap_choices() -> None:
    game = after_gifts(2)
    game.apply("send an Emissary to Swap")
    swaps = game.legal_labels()
    river = [x for x in swaps if x.startswith("swap River")]
    own = [x for x in swaps if not x.startswith("swap River")]
    assert len(river) == 10  # pairs of the 5 revealed cards
    # Line pairs, Hand pairs, and Line/Hand at the same position only (never River with territory).
    assert len(own) == 10 + 10 + 5
    assert "swap Line 2 and Hand 2" in own and not any(re.match(r"swap Line (\d) and Hand (?!\1)", x) for x in own)
    assert "swap Line 1 and Line 2" in own  # two Mountains: swapping identical cards is legal (ruling)
    a, b = ids(game, "river", None, 1, 1), ids(game, "river", None, 1, 4)
    piles = [ids(game, "piles", None, 1, k) for k in range(1, 6)]
    game.apply("swap River 1 and 4")
    assert ids(game, "river", None, 1, 1) == b and ids(game, "river", None, 1, 4) == a
    assert [ids(game, "piles", None, 1, k) for k in range(1, 6)] == piles  # nothing revealed


def test_discard_two_reveals_both_piles_and_needs_more_than_two_river_cards() -> None:
    game = after_gifts(4)
    below = [ids(game, "piles", None, 1, k)[-1] for k in (1, 5)]
    game.apply("send an Emissary to Discard two")
    game.apply("discard River 1 and 5")
    assert [ids(game, "river", None, 1, k) for k in (1, 5)] == [[below[0]], [below[1]]]

    game = after_gifts(4)
    # The River is down to 2 cards, both revealed (piles 1 and 2).
    for k in (3, 4, 5):
        empty_pile(game, k)
    for k in (1, 2):
        empty_pile(game, k, keep_revealed=True)
    # Before the Develop, Discard-2 needs more than 2 River cards (a Develop must stay possible).
    assert "send an Emissary to Discard two" not in game.legal_labels()
    assert "send an Emissary to Swap" in game.legal_labels()
    # A third card (face down under pile 1) makes it legal.
    game.put(ids(game, "discard")[0], "piles", row=1, column=1)
    assert "send an Emissary to Discard two" in game.legal_labels()
    # After a Develop from pile 1 the River again holds 2 cards, both revealed: now it is legal.
    game.apply("develop from pile 1 into Line 1")
    assert "send an Emissary to Discard two" in game.legal_labels()
    # Two piles must show a card: with one revealed card left, no Discard-2 at all.
    game = after_gifts(4)
    for k in (2, 3, 4, 5):
        empty_pile(game, k)
    assert "send an Emissary to Discard two" not in game.legal_labels()


def test_imperial_decree_once_per_game_in_all() -> None:
    game = after_gifts(6)
    me = game.current_player
    assert me is not None
    mine, theirs = ids(game, "territory", me, 2, 4), ids(game, "territory", 1 - me, 2, 4)
    game.apply("Imperial Decree: exchange Hand 4")
    # Hand 4 with the opponent's Hand 4; no bonus action that turn.
    assert ids(game, "territory", me, 2, 4) == theirs and ids(game, "territory", 1 - me, 2, 4) == mine
    assert labels(game, "decree_spot") == ["Emissary"] and len(ids(game, "reserve", me)) == 1
    assert game.current_player == 1 - me
    # Neither player may decree again, though both have Emissaries in reserve.
    for pile in (1, 2, 3, 4):
        assert not any(x.startswith("Imperial Decree") for x in game.legal_labels())
        develop(game, pile)
    assert not any(x.startswith("Imperial Decree") for x in game.legal_labels())


def test_recall_returns_only_swap_and_discard_emissaries() -> None:
    game = after_gifts(9)
    me = game.current_player
    assert me is not None
    game.apply("Imperial Decree: exchange Line 2")
    assert "recall your Emissaries" not in game.legal_labels()  # (the opponent has none out)
    # Opponent: Develop, then an Emissary to Discard-2.
    game.apply("develop from pile 1 into Line 1")
    game.apply("send an Emissary to Discard two")
    game.apply("discard River 2 and 3")
    # Me: the Decree Emissary does not allow a Recall; an Emissary to Swap.
    assert "recall your Emissaries" not in game.legal_labels()
    game.apply("develop from pile 4 into Line 4")
    game.apply("send an Emissary to Swap")
    game.apply("swap Line 1 and Line 2")
    develop(game, 5)  # opponent
    assert ids(game, "reserve", me) == []
    assert "recall your Emissaries" in game.legal_labels()
    game.apply("recall your Emissaries")
    assert len(ids(game, "reserve", me)) == 1  # the Swap Emissary only
    assert labels(game, "decree_spot") == ["Emissary"]
    assert labels(game, "swap_spots") == []
    assert labels(game, "discard_spots") == ["Emissary"]  # the opponent's stays
    assert game.current_player == 1 - me  # Recall is a main action: no bonus, the turn is over

    # Without a Decree: Emissaries on a Discard-2 and on a Swap spot both come back.
    game = after_gifts(9)
    me = game.current_player
    game.apply("develop from pile 1 into Hand 1")
    game.apply("send an Emissary to Discard two")
    game.apply("discard River 2 and 3")
    develop(game, 2)  # opponent
    game.apply("develop from pile 4 into Hand 4")
    game.apply("send an Emissary to Swap")
    game.apply("swap River 1 and 5")
    develop(game, 3)  # opponent
    assert ids(game, "reserve", me) == [] and "develop" in main_actions(game)
    game.apply("recall your Emissaries")
    assert len(ids(game, "reserve", me)) == 2
    assert labels(game, "swap_spots") == [] and labels(game, "discard_spots") == []


def test_declare_needs_a_depleted_pile() -> None:
    game = after_gifts(1)
    assert "declare the end" not in game.legal_labels()
    empty_pile(game, 2, keep_revealed=True)  # one revealed card left: not depleted yet
    assert "declare the end" not in game.legal_labels()
    empty_pile(game, 2)
    assert "declare the end" in game.legal_labels()


def finish(game: Game) -> None:
    """Choose every Ninja copy the final reveal asks for (the first offered)."""
    while not game.is_over:
        options = game.legal_labels()
        assert all(" copies " in x for x in options), options
        game.apply(options[0])


@pytest.mark.parametrize("declarer", ["first", "second"])
def test_declaring_gives_the_opponent_exactly_one_final_turn(declarer: str) -> None:
    game = after_gifts(12)
    first = game.current_player
    assert first is not None
    if declarer == "second":
        develop(game, 3)
    me = game.current_player
    assert me == (first if declarer == "first" else 1 - first)
    empty_pile(game, 1)
    game.apply("declare the end")
    assert var(game, "declared")
    assert game.current_player == 1 - me
    assert "declare the end" not in game.legal_labels()  # no declaring during a final turn
    develop(game, 2, "Hand")
    assert game.current_player != me  # the declarer plays no more turns
    finish(game)
    assert game.is_over
    assert var(game, "revealed")
    moves = [line for line in game.log_lines() if not line.startswith("scoring") and " copies " not in line]
    assert moves[-2:] == [f"P{1 - me + 1}: develop from pile 2 into Hand 2", f"P{1 - me + 1}: pass"]


def deplete_two_on_this_turn(game: Game) -> None:
    """Pile 1 depleted, pile 2 down to its revealed card: a Develop from pile 2 depletes a second."""
    empty_pile(game, 1)
    empty_pile(game, 2, keep_revealed=True)
    assert "declare the end" in game.legal_labels()
    develop(game, 2)


def test_two_depleted_piles_after_the_first_players_turn_give_the_second_a_final_turn() -> None:
    game = after_gifts(13)
    first = game.current_player
    assert first is not None
    deplete_two_on_this_turn(game)
    assert game.current_player == 1 - first and not game.is_over
    assert "declare the end" not in game.legal_labels()  # the end is triggered: this is a final turn
    develop(game, 3)
    finish(game)
    assert game.is_over
    turns = [line for line in game.log_lines() if "develop" in line]
    assert turns[-1] == f"P{1 - first + 1}: develop from pile 3 into Line 3"


def test_two_depleted_piles_after_the_second_players_turn_end_the_game_at_once() -> None:
    game = after_gifts(13)
    first = game.current_player
    assert first is not None
    develop(game, 4)
    deplete_two_on_this_turn(game)  # the second player's turn
    finish(game)  # no turn for anybody: only the reveal's choices, if any
    assert game.is_over
    turns = [line for line in game.log_lines() if "develop" in line]
    assert turns[-1] == f"P{1 - first + 1}: develop from pile 2 into Line 2"


def ninjas(game: Game, seat: int) -> list[tuple[int, int, int, list[str]]]:
    """(component, row, column, copy targets by the rulings) of each Ninja in a territory."""
    out = []
    cells = row_labels(game, seat, 1) + row_labels(game, seat, 2)
    for cell, label in enumerate(cells):
        if label == NJ:
            c = ids(game, "territory", seat, cell // 5 + 1, cell % 5 + 1)[0]
            out.append((c, cell // 5 + 1, cell % 5 + 1, hw.copy_targets(cells)))
    return out


def test_ninja_copies_are_chosen_at_the_reveal() -> None:
    """Seeded random games until a Ninja has 2+ targets (a choice), exactly 1 (automatic) and 0."""
    copy = RULES.new_game(2, seed=0).program.props.index("copy")
    found = Counter()
    for seed in range(3000):
        game = RULES.new_game(2, seed=seed)
        rng = random.Random(seed)
        while not game.is_over and " copies " not in game.legal_labels()[0]:
            assert not var(game, "revealed")
            game.apply(rng.choice(game.legal_labels()))
        assert var(game, "revealed")
        chosen: dict[int, str] = {}
        while not game.is_over:  # every choice offers exactly its Ninja's targets
            seat = game.current_player
            assert seat is not None
            offered = game.legal_labels()
            c = game.state.v[game.program.var_base["copying"]]
            (row, column, targets), = [(r, k, t) for n, r, k, t in ninjas(game, seat) if n == c]
            where = f"{'Line' if row == 1 else 'Hand'} {column}"
            assert sorted(offered) == sorted(f"Ninja at {where} copies {t}" for t in targets)
            assert len(targets) >= 2
            pick = rng.choice(offered)
            game.apply(pick)
            chosen[c] = pick.rsplit(" ", 1)[1]
            found["chosen"] += 1
        for seat in range(2):
            for c, _row, _column, targets in ninjas(game, seat):
                got = game.state.p[copy][c]
                if len(targets) >= 2:
                    assert got == chosen[c]
                elif len(targets) == 1:
                    assert got == targets[0] and c not in chosen  # automatic
                    found["automatic"] += 1
                else:
                    assert got is None  # no legal target: uncopied
                    found["none"] += 1
        if found["chosen"] and found["automatic"] and found["none"]:
            break
    assert found["chosen"] and found["automatic"] and found["none"], found


# --- `ruleforge score` on position files --------------------------------------------------------------


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def table_rows(output: str) -> dict[str, list[str]]:
    """Rows of a rich table by their first cell."""
    rows = {}
    for line in output.splitlines():
        cells = [c.strip() for c in line.strip().strip("│┃").split("│" if "│" in line else "┃")]
        if len(cells) > 1:
            rows[cells[0]] = cells[1:]
    return rows


EXAMPLE_P1 = full(62, Mountain=5, Fort=12, Sentinel=7, Advisor=7, Banner=3, Naishi=8, Rice=20)
EXAMPLE_P2 = full(7, Naishi=12, Mountain=-5)


def test_score_position_explain() -> None:
    result = run("score", NAISHI, str(EXAMPLE_FILE), "--explain")
    assert result.exit_code == 0, result.output
    rows = table_rows(result.stdout)
    assert rows[""] == ["P1 *", "P2"]  # the highest total is marked
    for item in [*KEYS, "total"]:
        assert rows[item] == [str(EXAMPLE_P1[item]), str(EXAMPLE_P2[item])], item
    assert result.stdout.splitlines()[0] == "Naishi: a position scored by points (as if the game ended now)"
    assert result.stdout.splitlines()[-2] == "Highest total: P1 (62 points)"
    assert result.stdout.splitlines()[-1].startswith("For a picture: ruleforge view ")


def test_score_position_totals_and_json() -> None:
    plain = run("score", NAISHI, str(EXAMPLE_FILE))
    assert plain.exit_code == 0, plain.output
    rows = table_rows(plain.stdout)
    assert rows["P1"] == ["62", "highest"] and rows["P2"] == ["7", ""]
    assert "Rice Field" not in plain.stdout
    doc = json.loads(run("score", NAISHI, str(EXAMPLE_FILE), "--json", "--explain").stdout)
    assert doc == {"game": "Naishi", "position": True, "scorings": ["points"], "scores": [
        {"player": "P1", "total": 62, "highest": True, "breakdown": {k: EXAMPLE_P1[k] for k in KEYS}},
        {"player": "P2", "total": 7, "highest": False, "breakdown": {k: EXAMPLE_P2[k] for k in KEYS}},
    ]}
    # --json is data for programs: every item's points, with or without --explain
    assert json.loads(run("score", NAISHI, str(EXAMPLE_FILE), "--json").stdout) == doc


def test_score_position_tie_and_free_ninja(tmp_path: Path) -> None:
    # Both seats: Ninja L3 left uncopied beside an Advisor L2, Naishi H3: it takes the Naishi (23 each).
    case = CASES["free_ninja_naishi"]
    path = tmp_path / "tie.json"
    path.write_text(json.dumps(position_data([(case.line, case.hand, {}), (case.line, case.hand, {})])))
    result = run("score", NAISHI, str(path), "--explain")
    assert result.exit_code == 0, result.output
    rows = table_rows(result.stdout)
    assert rows["total"] == ["23", "23"] and rows["Naishi"] == ["20", "20"] and rows["Advisor"] == ["8", "8"]
    assert "Tied on total: P1, P2 (23 points" in result.stdout


def test_docs_show_the_real_output() -> None:
    text = POSITIONS_DOC.read_text(encoding="utf-8")
    command = "$ ruleforge score games/naishi.rules docs/examples/naishi_example1.json --explain\n"
    shown = text.split(command, 1)[1].split("```", 1)[0]
    result = run("score", NAISHI, str(EXAMPLE_FILE), "--explain")
    out = result.stdout.replace(f"{ROOT}/", "")  # the last line names the files as typed
    assert [x.rstrip() for x in shown.splitlines()] == [x.rstrip() for x in out.splitlines()]
    # The file shown is the example file, and every error line shown is what the command
    # prints: tests/test_positions.py checks every JSON block and error line of the doc.


def test_docs_python_example_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    text = POSITIONS_DOC.read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)
    assert len(blocks) == 1
    monkeypatch.chdir(ROOT)
    exec(compile(blocks[0], "docs/positions.md", "exec"), {"__name__": "docs_example"})  # noqa: S102


def _grid(line: list[str], hand: list[str]) -> list[list[str]]:
    return [line, hand]


BAD_POSITIONS: list[tuple[Any, str]] = [
    ({"format": POSITION, "players": 2, "zones": {"territory(P1)": [M5]}},
     "error: position: territory(P1): a grid is 2 rows of 5 cells"),
    ({"format": POSITION, "players": 2, "zones": {"territory(P1)": _grid(["Mountan", M, M, M, M], M5)}},
     "error: position: territory(P1)[1,1] 'Mountan': no component has this label; did you mean 'Mountain'?"),
    ({"format": POSITION, "players": 2, "props": {"territory(P2)[1,3]": {"copy": "Nasihi"}}},
     "error: position: territory(P2)[1,3] copy: 'Nasihi' is not one of Mountain, Naishi, Advisor, Sentinel, "
     "Monk, Horseman, Ronin, Ninja, Fort, Torii, RiceField, Banner, Traveller, Ryokan"),
    ({"format": POSITION, "players": 2, "vars": {"score(P3)": 1}},
     "error: position: vars: score(P3): no seat P3 in a 2-player game"),
    ({"format": POSITION, "players": 3}, "bad.json: Naishi is for 2 players, not 3"),
    ({"format": POSITION, "players": "2"}, "error: position: players: must be a number"),
    ({"format": POSITION, "players": 2, "seed": "x"}, "error: position: seed: must be a whole number"),
    ({"format": POSITION, "players": 2, "zones": {"board(P1)": []}}, "error: position: board(P1): no such zone"),
    ({"format": POSITION, "players": 2, "zones": {"territory(P1)": _grid([1, M, M, M, M], M5)}},
     "error: position: territory(P1)[1,1]: a cell is a label or {\"label\": \"...\", \"property\": value}, "
     "a list of them (a stack, bottom first) or null"),
    ({"format": POSITION, "players": 2, "props": {"territory(P1)[3,1]": {"copy": "Naishi"}}},
     "error: position: territory(P1)[3,1]: no such zone or cell"),
    ({"format": POSITION, "players": 2, "props": {"territory(P1)[2,1]": {"copy": "Naishi"}}},
     "error: position: territory(P1)[2,1]: is empty"),  # at setup the Hands are not laid out yet
    ({"format": POSITION, "players": 2, "props": {"territory(P1)[1,1]": {"kopy": "Naishi"}}},
     "error: position: territory(P1)[1,1] 'kopy': no property of this name; properties: copy"),
    ({"format": POSITION, "players": 2, "vars": {"nothing": 1}}, "error: position: vars: nothing: no such variable"),
    ({"format": POSITION, "players": 2, "vars": {"score": 1}}, "error: position: vars: score: write score(P1)"),
    ({"format": POSITION, "players": 2, "vars": {"revealed(P1)": True}},
     "error: position: vars: revealed(P1): 'revealed' is shared"),
    ({"format": POSITION, "players": 2, "vars": {"score(P1)": "lots"}},
     "error: position: vars: score(P1): 'lots' does not fit its type, int"),
    ({"format": POSITION, "players": 2, "vars": {"starter": "P5"}},
     "error: position: vars: starter: 4 does not fit its type, player (write P1, P2, ...)"),
    ({"format": POSITION, "players": 2, "zones": []}, "error: position: zones: must be an object"),
    ({"format": POSITION, "players": 2, "props": {"territory(P1)[1,1]": "Naishi"}},
     "error: position: territory(P1)[1,1]: properties are an object"),
    ([1, 2], "is not a saved ruleforge state nor a position"),
    ({"format": "ruleforge-positions/1", "players": 2}, "is not a saved ruleforge state nor a position"),
]


@pytest.mark.parametrize("data,message", BAD_POSITIONS, ids=[str(i) for i in range(len(BAD_POSITIONS))])
def test_score_rejects_bad_positions(tmp_path: Path, data: Any, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    result = run("score", NAISHI, str(path))
    assert result.exit_code == 1
    assert result.stdout == ""
    err = result.stderr.strip()
    assert len(err.splitlines()) == 1 and err.startswith("error: ") and "internal error" not in err, err
    assert message.replace("error: position: ", f"error: {path}: position: ") in err
    if isinstance(data, dict) and data.get("format") == POSITION:  # the Python API raises the same
        with pytest.raises(ruleforge.GameError) as info:
            RULES.position(data)
        assert f"error: {path}: {info.value}" == err  # the command names the file too


def test_score_still_scores_saved_states(tmp_path: Path) -> None:
    game = RULES.new_game(2, seed=21)
    rng = random.Random(21)
    for _ in decisions(game, 21):
        game.apply(rng.choice(game.legal_labels()))
    path = tmp_path / "state.json"
    path.write_text(json.dumps(game.to_json()))
    doc = json.loads(run("score", NAISHI, str(path), "--json", "--explain").stdout)
    assert doc["over"] is True and "position" not in doc
    assert [(s["total"], s["breakdown"]) for s in doc["scores"]] == [(s["total"], s["breakdown"])
                                                                     for s in game.scores()]
