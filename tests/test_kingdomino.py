"""Kingdomino (games/kingdomino.rules) through the Python API: the set-up per player count, the
king line's order, where a domino may go (checked against a direct recomputation), a domino that
cannot be placed, the scoring, the options and the tie-breaks."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

import ruleforge

RULES = Path(__file__).resolve().parents[1] / "games" / "kingdomino.rules"
TERRAINS = ("Wheat", "Forest", "Lake", "Grassland", "Swamp", "Mine")
SIDES = {"north": (-1, 0), "east": (0, 1), "south": (1, 0), "west": (0, -1)}


@pytest.fixture(scope="module")
def rules() -> ruleforge.Rules:
    return ruleforge.load(RULES)


# --- reading a game as people see it ------------------------------------------------------

def kingdom(game: ruleforge.Game, seat: int) -> dict[tuple[int, int], tuple[str, int]]:
    """(row, column) -> (terrain or 'Castle', crowns), from the view's labels (`Lake**`)."""
    zones = game.view(None)["zones"]
    out = {}
    for key, contents in zones.items():
        m = re.fullmatch(rf"kingdom\(P{seat + 1}\)\[(\d+),(\d+)\]", key)
        if m and contents:
            label = contents[-1]
            out[int(m[1]), int(m[2])] = (label.rstrip("*"), len(label) - len(label.rstrip("*")))
    return out


def halves(label: str) -> tuple[tuple[str, int], tuple[str, int]]:
    """A domino's label `#23 Wheat*/Mine (king of P1)` -> its two halves."""
    m = re.match(r"#\d+ (\w+)(\**)/(\w+)(\**)", label)
    assert m, label
    return (m[1], len(m[2])), (m[3], len(m[4]))


def placements(board: dict, domino: tuple) -> set[tuple[tuple[int, int], tuple[int, int]]]:
    """Every (first half's cell, second half's cell) the rules allow, worked out directly."""
    def connects(cell: tuple[int, int], terrain: str) -> bool:
        r, k = cell
        return any(board.get((r + dr, k + dk), ("", 0))[0] in ("Castle", terrain) for dr, dk in SIDES.values())

    out = set()
    for r in range(1, 10):
        for k in range(1, 10):
            for dr, dk in SIDES.values():
                a, b = (r, k), (r + dr, k + dk)
                if a in board or b in board or not (1 <= b[0] <= 9 and 1 <= b[1] <= 9):
                    continue
                rows = [x for x, _ in board] + [a[0], b[0]]
                cols = [y for _, y in board] + [a[1], b[1]]
                if max(rows) - min(rows) >= 5 or max(cols) - min(cols) >= 5:
                    continue
                if connects(a, domino[0][0]) or connects(b, domino[1][0]):
                    out.add((a, b))
    return out


def offered(game: ruleforge.Game) -> set[tuple[tuple[int, int], tuple[int, int]]]:
    out = set()
    for label in game.legal_labels():
        m = re.fullmatch(r"place .* at (\d),(\d) and (\d),(\d)", label)
        assert m, label
        out.add(((int(m[1]), int(m[2])), (int(m[3]), int(m[4]))))
    return out


def score_by_hand(board: dict) -> dict[str, int]:
    """Per terrain: the sum over its regions of squares x crowns (a flood fill)."""
    seen: set = set()
    points = dict.fromkeys(TERRAINS, 0)
    for start, (terrain, _) in board.items():
        if terrain == "Castle" or start in seen:
            continue
        todo, region = [start], []
        seen.add(start)
        while todo:
            r, k = todo.pop()
            region.append((r, k))
            for dr, dk in SIDES.values():
                nxt = (r + dr, k + dk)
                if nxt not in seen and board.get(nxt, ("", 0))[0] == terrain:
                    seen.add(nxt)
                    todo.append(nxt)
        points[terrain] += len(region) * sum(board[x][1] for x in region)
    return points


def play_random(game: ruleforge.Game, seed: int, check_places: bool = False) -> ruleforge.Game:
    rng = random.Random(seed)
    while not game.is_over:
        labels = game.legal_labels()
        if check_places and labels[0].startswith("place"):
            seat = game.current_player
            held = game.view(None)["zones"][f"held(P{seat + 1})"]
            assert offered(game) == placements(kingdom(game, seat), halves(held[0]))
        game.apply(rng.choice(labels))
    return game


# --- set-up and the king line -------------------------------------------------------------

@pytest.mark.parametrize(("players", "in_play", "line"), [(2, 24, 4), (3, 36, 3), (4, 48, 4)])
def test_setup_per_player_count(rules: ruleforge.Rules, players: int, in_play: int, line: int) -> None:
    game = rules.new_game(players, seed=7)
    zones = game.view(None)["zones"]
    assert zones["box"] == {"hidden": 48 - in_play}
    assert zones["deck"] == {"hidden": in_play - line}
    numbers = [int(label.split()[0][1:]) for label in zones["next_line"]]
    assert len(numbers) == line and numbers == sorted(numbers)  # laid out by number
    assert len(zones["kings"]) == 4 if players != 3 else 3
    for seat in range(players):
        assert zones[f"kingdom(P{seat + 1})[5,5]"] == ["Castle"]
    assert game.legal_labels() == [f"claim {label}" for label in zones["next_line"]]


def claims_and_places(game: ruleforge.Game) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(seat, domino number) of each claim and each placement in the log, in order."""
    found: dict[str, list[tuple[int, int]]] = {"claim": [], "place": []}
    for line in game.log_lines():
        m = re.match(r"P(\d): (claim|place) #(\d+)", line)
        if m:
            found[m[2]].append((int(m[1]) - 1, int(m[3])))
    return found["claim"], found["place"]


def test_the_kings_claim_in_their_drawn_order_and_the_line_shows_them(rules: ruleforge.Rules) -> None:
    game = rules.new_game(2, seed=3)
    kings = game.evaluate("list(owner(k) for k in kings)")
    assert sorted(kings) == [0, 0, 1, 1]  # two kings each at two players
    for i, seat in enumerate(kings):
        assert game.current_player == seat
        if i == 3:  # the labels read the claims: each claimed domino shows its king
            shown = game.view(None)["zones"]["next_line"]
            assert [re.search(r"king of P(\d)", label)[1] for label in shown if "king" in label] \
                == [str(s + 1) for s in kings[:3]][::-1]  # each took the highest number left
        game.apply(game.legal_actions()[-1])
    claims, _ = claims_and_places(game)
    assert [seat for seat, _ in claims] == kings
    # the king on the lowest number places first
    assert game.current_player == min(claims, key=lambda c: c[1])[0]


@pytest.mark.parametrize(("players", "seed"), [(2, 4), (4, 11)])
def test_order_of_play_follows_the_numbers_of_the_line(rules: ruleforge.Rules, players: int, seed: int) -> None:
    game = play_random(rules.new_game(players, seed=seed), seed)
    claims, places = claims_and_places(game)
    line = 4 if players != 3 else 3
    # each line of claims is placed in the order of its numbers, by the kings that claimed them
    # (a domino discarded is not placed: it is left out of both)
    assert len(claims) == {2: 24, 3: 36, 4: 48}[players]
    placed = dict((number, seat) for seat, number in places)
    for start in range(0, len(claims), line):
        chunk = sorted(claims[start:start + line], key=lambda c: c[1])
        turns = [(seat, number) for seat, number in chunk if number in placed]
        assert [n for _, n in turns] == [n for _, n in places if n in {c[1] for c in chunk}]
        assert all(placed[n] == seat for seat, n in turns)


# --- placing --------------------------------------------------------------------------------

@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 3)])
def test_offered_placements_are_exactly_the_legal_ones(rules: ruleforge.Rules, players: int, seed: int) -> None:
    play_random(rules.new_game(players, seed=seed), seed, check_places=True)


def test_a_domino_that_cannot_be_placed_is_discarded(rules: ruleforge.Rules) -> None:
    game = rules.new_game(2, seed=5)
    # P1's 5x5 is full but for its corner 3,3, whose free neighbours lie outside the 5x5
    for r in range(3, 8):
        for k in range(3, 8):
            if (r, k) not in ((5, 5), (3, 3)):
                square = game.put("square", "kingdom", 0, row=r, column=k)
                game.set_prop(square, "terrain", "Lake")
    while game.evaluate("count(discard) + count(built(p)) + count(built(next(p)))", p=0) < 4:
        game.apply(game.legal_actions()[0])  # the claims, then P2's placements: the first offered
    log = game.log_lines()
    discards = [line for line in log if "cannot be placed in the kingdom of P1: discarded" in line]
    assert len(discards) == 2  # both of P1's kings' dominoes
    assert game.evaluate("count(discard)") == 2 and game.evaluate("count(built(p))", p=0) == 0
    assert game.evaluate("count(built(p))", p=1) == 2  # P2 placed both of its own


# --- scoring, options, ranking --------------------------------------------------------------

@pytest.mark.parametrize(("players", "seed"), [(2, 4), (3, 5), (4, 6)])
def test_scores_equal_a_direct_recomputation(rules: ruleforge.Rules, players: int, seed: int) -> None:
    game = play_random(rules.new_game(players, seed=seed), seed)
    assert game.invariant_problems() == []
    for seat, row in enumerate(game.scores()):
        board = kingdom(game, seat)
        by_hand = score_by_hand(board)
        assert row["breakdown"]["Wheat field"] == by_hand["Wheat"]
        assert all(row["breakdown"][t] == by_hand[t] for t in TERRAINS[1:])
        assert row["total"] == sum(by_hand.values())
        # every domino is on a board (two squares each), discarded, or out of the game
        built = game.evaluate("count(built(p))", p=seat)
        assert sum(1 for v in board.values() if v[0] != "Castle") == 2 * built
    in_play = {2: 24, 3: 36, 4: 48}[players]
    assert game.evaluate("count(discard) + sum(count(built(p)) for p in players)") == in_play


def full_kingdom(game: ruleforge.Game, seat: int, at: tuple[int, int]) -> None:
    """Fill the 5x5 whose top-left cell is `at` with wheat (no crowns) around the castle, and
    give one square a crown."""
    castle = game.evaluate("first(c for c in kingdom(p) if c is Castle)", p=seat)
    game.put(castle, "kingdom", seat, row=at[0] + 2, column=at[1] + 2)
    first = True
    for r in range(at[0], at[0] + 5):
        for k in range(at[1], at[1] + 5):
            if (r, k) != (at[0] + 2, at[1] + 2):
                square = game.put("square", "kingdom", seat, row=r, column=k)
                game.set_prop(square, "terrain", "Wheat")
                game.set_prop(square, "crowns", 1 if first else 0)
                first = False


@pytest.mark.parametrize(("options", "middle", "harmony"), [
    ({}, 0, 0), ({"middle_kingdom": True}, 10, 0), ({"harmony": True}, 0, 5),
    ({"middle_kingdom": True, "harmony": True}, 10, 5)])
def test_middle_kingdom_and_harmony(rules: ruleforge.Rules, options: dict, middle: int, harmony: int) -> None:
    game = rules.new_game(2, seed=1, options=options)
    full_kingdom(game, 0, (3, 3))  # the castle in the middle: 5,5
    full_kingdom(game, 1, (1, 1))  # P2's castle moved to 3,3: also the middle of its own 5x5
    scores = game.preview_scoring("final_score")
    assert scores[0]["Wheat field"] == 24 and scores[0]["Middle Kingdom"] == middle and scores[0]["Harmony"] == harmony
    assert scores[1]["Middle Kingdom"] == middle
    # one square fewer: no Harmony; the castle off-centre: no Middle Kingdom
    game = rules.new_game(2, seed=1, options=options)
    full_kingdom(game, 0, (3, 3))
    corner = game.evaluate("top_of(cell(kingdom(p), 3, 3))", p=0)
    castle = game.evaluate("first(c for c in kingdom(p) if c is Castle)", p=0)
    game.put(castle, "keep", 0)
    game.put(corner, "kingdom", 0, row=5, column=5)  # the corner's square and the castle trade places
    game.put(castle, "kingdom", 0, row=3, column=3)
    scores = game.preview_scoring("final_score")
    assert scores[0]["Middle Kingdom"] == 0 and scores[0]["Harmony"] == (5 if harmony else 0)
    game.put(game.evaluate("top_of(cell(kingdom(p), 7, 7))", p=0), "supply", 0)
    assert game.preview_scoring("final_score")[0]["Harmony"] == 0


def position(rows: dict[str, tuple[tuple[int, int], list[str]]]) -> dict:
    """A position of cells written `W1`, `C`, ... from a cell at (row, column) rightwards."""
    names = {t[0]: t for t in TERRAINS}
    zones = {}
    for zone, (at, cells) in rows.items():
        zones[zone] = {"at": list(at), "rows": [[
            "Castle" if c == "C" else {"label": "square", "terrain": names[c[0]], "crowns": int(c[1:] or 0)}
            for c in cells]]}
    return {"format": "ruleforge-position/1", "players": 2, "zones": zones}


def test_ties_go_to_the_largest_region_then_the_most_crowns(rules: ruleforge.Rules) -> None:
    # 3 points each: P1 a field of 3 squares, P2 a single mine square of 3 crowns
    game = rules.position(position({"kingdom(P1)": ((5, 5), ["C", "W1", "W", "W"]),
                                    "kingdom(P2)": ((5, 5), ["C", "M3"])}))
    assert [row["total"] for row in game.scores()] == [0, 0]  # nothing scored yet: preview
    assert [row["total"] for row in game.preview_scoring("final_score")] == [3, 3]
    assert game.evaluate("largest_region(p)", p=0) == 3 and game.evaluate("largest_region(p)", p=1) == 1
    # 2 points each, largest region 2 each: P2 has 2 crowns to P1's 1
    game = rules.position(position({"kingdom(P1)": ((5, 5), ["C", "W1", "W"]),
                                    "kingdom(P2)": ((5, 3), ["F", "F", "C", "L2"])}))
    assert [row["total"] for row in game.preview_scoring("final_score")] == [2, 2]
    assert [game.evaluate("crowns(p)", p=p) for p in (0, 1)] == [1, 2]


@pytest.mark.parametrize("seed", [8, 9])
def test_the_winner_has_the_best_score_then_region_then_crowns(rules: ruleforge.Rules, seed: int) -> None:
    game = play_random(rules.new_game(3, seed=seed), seed)
    keys = {seat: (row["total"], game.evaluate("largest_region(p)", p=seat), game.evaluate("crowns(p)", p=seat))
            for seat, row in enumerate(game.scores())}
    best = max(keys.values())
    assert game.winners() == [seat for seat, key in keys.items() if key == best]
