"""Properties of seeded random Nakasendo games (games/nakasendo.rules), for 2, 3 and 4 players.

Every decision is a seeded random legal action, applied through the engine's fast internals
(`_legal`, `_apply_unchecked`). The number of games per player count is
RULEFORGE_NAKASENDO_GAMES (default 1,000 per player count, about 95 s in all; fewer for a quick run).
Checked, from the rulebook and the rulings (not from the rules file):

- nothing raises; the game ends after exactly 10 rounds (2 players) or 9 (3-4 players): the
  round marker goes through spaces 1-10 or 2-10, every player has one turn per round, from the
  first player; exactly three Intermediate Scorings happen (after spaces 3, 6, 9), then one final;
- no component is created or lost: every tile (60 + a Starting tile each), Discovery token (45),
  Extra Action token (16), Event card and scoring token sits in exactly one zone at every
  decision; Extra Action tokens are in the general supply or a player's area;
- no grid's occupied cells exceed a 4x4 box, the Starting tile included;
- a Hiker is on at most one element, only on a Market element or another player's supply
  element, and a supply holds at most one Hiker;
- supplies hold at most 3 elements; the Market at most 2 tiles and 2 tokens;
- the face-down piles (tiles, tokens, Event cards) show only their size in every view;
- the score breakdown adds up to the total;
- each Intermediate Scoring and the final scoring give what an independent scorer written here
  (from the rulings, on the raw state) gives: the final path is one of the components with the
  most segments (segments worked out from the tiles' labels and flips), the best of them for
  the player, and its items are the rulings' steps.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from baselines import load_baseline

import ruleforge
from ruleforge import Game

ROOT = Path(__file__).parents[1]
RULES = ruleforge.load(ROOT / "games" / "nakasendo.rules")
# 1,000 games per player count, as the rules' tests ask; RULEFORGE_NAKASENDO_GAMES sets every count.
DEFAULT_GAMES = {2: 1000, 3: 1000, 4: 1000}
GAMES = os.environ.get("RULEFORGE_NAKASENDO_GAMES")
# The longest of 1,000 random games took 241 decisions (2 players), 331 (3) and 377 (4); a game
# past MAX_STEPS never ends: it fails at once, naming its seed.
MAX_STEPS = 5000
VIEW_EVERY = 7            # views are checked at every 7th decision (they are the slow part)


class Layout:
    """Where things are in the compiled program, for one player count."""

    def __init__(self, players: int) -> None:
        game = RULES.new_game(players, seed=0)
        prog = game.program
        self.players = players
        self.labels = prog.comp_label
        self.kinds = prog.comp_kind
        self.n = len(self.labels)
        self.board = [[[game.zone_index("board", p, r, c) for c in range(1, 8)] for r in range(1, 8)]
                      for p in range(players)]
        self.supply = [game.zone_index("supply", p) for p in range(players)]
        self.extras = [game.zone_index("extras", p) for p in range(players)]
        self.market = game.zone_index("market")
        self.general = game.zone_index("general")
        self.hiker = prog.props.index("hiker")
        self.snow = prog.props.index("snow")
        self.bears = prog.props.index("bears")
        self.flipped = prog.props.index("flipped")
        self.slot = prog.var_base["scoring_slot"]
        self.scored_path = prog.var_base["scored_path"]
        self.hiker_points = prog.var_base["hiker_points"]
        self.space = prog.var_base["space"]
        self.current = prog.var_base["current"]
        self.starter = prog.var_base["starter"]
        ids = prog.action_ids
        self.plays = {ids["play_tile"], ids["play_token"]}
        self.event_actions = {ids["put_snow"], ids["put_bear"]}
        self.hidden = ["tile_pile", "token_pile", "event_deck"]


LAYOUTS = {n: Layout(n) for n in (2, 3, 4)}
hw = load_baseline("handwritten_nakasendo")      # the hand-written engine's scorer, a second opinion


def test_components_are_the_box() -> None:
    for n, lay in LAYOUTS.items():
        kinds = Counter(lay.kinds)
        assert kinds == Counter({"Tile": 60 + n, "Discovery": 45, "ExtraAction": 16, "Event": 10,
                                 "PathScoring": 5, "Composition": 6, "Intermediate": 3})
        tiles = Counter(lab for lab, k in zip(lay.labels, lay.kinds) if k == "Tile")
        assert tiles["Start"] == n
        assert sum(v for lab, v in tiles.items() if lab.endswith(" bear")) == 10
        for terrain in ("Water", "Rock", "Forest", "Field", "Flowers"):
            assert sum(v for lab, v in tiles.items() if lab.startswith(terrain)) == 12
            assert tiles[f"{terrain} N-S bear"] == 1 and tiles[f"{terrain} N-E bear"] == 1
            assert tiles[f"{terrain} N-S"] == 2 and tiles[f"{terrain} E-W"] == 3
        tokens = Counter(lab for lab, k in zip(lay.labels, lay.kinds) if k == "Discovery")
        for terrain in ("Water", "Rock", "Forest", "Field", "Flowers"):
            for token, count in (("Juku", 2), ("Samurai", 2), ("Observation Point", 2), ("Temple", 1),
                                 ("Wheel", 1), ("Bell", 1)):
                assert tokens[f"{terrain} {token}"] == count


# --- an independent scorer, from the rulings ------------------------------------------------------

TOKENS = ("Juku", "Samurai", "Observation Point", "Temple", "Wheel", "Bell")
SHAPES = {"N-S": "NS", "E-W": "EW", "N-E": "NE", "N-W": "NW"}
OPPOSITE = {"N": "S", "S": "N", "E": "W", "W": "E"}
STEP = {"N": (-1, 0), "S": (1, 0), "E": (0, 1), "W": (0, -1)}


class Piece:
    """A component on a board, read from its label and properties."""

    def __init__(self, game: Game, lay: Layout, c: int) -> None:
        st = game.state
        label = lay.labels[c]
        self.tile = lay.kinds[c] == "Tile"
        self.start = label == "Start"
        words = label.split(" ")
        self.terrain = None if self.start else words[0]
        self.token = " ".join(words[1:]) if not self.tile else None
        self.marks = 2 if self.start else (1 if label.endswith(" bear") else 0)
        self.snow = (st.p[lay.snow][c] or 0) if self.tile else 0
        self.bears = (st.p[lay.bears][c] or 0) if self.tile else 0
        flipped = bool(st.p[lay.flipped][c]) if self.tile else False
        if self.start:
            self.segments = [("N", "S"), ("E", "W")]
        elif self.tile:
            a, b = SHAPES[words[1]]
            self.segments = [(OPPOSITE[a], OPPOSITE[b]) if flipped else (a, b)]


class Grid:
    """One player's board: for each occupied cell, its top tile and the tokens on it, in order."""

    def __init__(self, game: Game, lay: Layout, p: int) -> None:
        self.cells: dict[tuple[int, int], tuple[Piece, list[Piece]]] = {}
        for r in range(7):
            for c in range(7):
                stack = [Piece(game, lay, k) for k in game.state.z[lay.board[p][r][c]]]
                tiles = [i for i, x in enumerate(stack) if x.tile]
                if tiles:
                    top = tiles[-1]
                    assert all(not x.tile for x in stack[top + 1:])
                    self.cells[r, c] = (stack[top], stack[top + 1:])

    def components(self) -> list[tuple[int, set[tuple[int, int]]]]:
        """(segments, cells) of each connected run of segments."""
        nodes = [(cell, i) for cell, (tile, _) in self.cells.items() for i in range(len(tile.segments))]
        parent = {n: n for n in nodes}

        def find(n: Any) -> Any:
            while parent[n] != n:
                n = parent[n]
            return n

        for (r, c), i in nodes:
            for side in self.cells[r, c][0].segments[i]:
                dr, dc = STEP[side]
                other = self.cells.get((r + dr, c + dc))
                if other is None:
                    continue
                for j, seg in enumerate(other[0].segments):
                    if OPPOSITE[side] in seg:
                        parent[find(((r, c), i))] = find(((r + dr, c + dc), j))
        groups: dict[Any, list] = {}
        for n in nodes:
            groups.setdefault(find(n), []).append(n)
        return [(len(g), {cell for cell, _ in g}) for g in groups.values()]

    def snow(self, cell: tuple[int, int]) -> int:
        return self.cells[cell][0].snow if cell in self.cells else 0

    def bears(self, cell: tuple[int, int]) -> int:
        tile = self.cells[cell][0]
        return tile.marks + tile.bears

    def has(self, cell: tuple[int, int], token: str) -> bool:
        return cell in self.cells and any(t.token == token for t in self.cells[cell][1])

    def score_path(self, path: set[tuple[int, int]], extras: int, hiker: int) -> dict[str, int]:
        tokens = [(cell, i, t) for cell in path for i, t in enumerate(self.cells[cell][1])]

        def near(cell: tuple[int, int]) -> list[tuple[int, int]]:
            return [(cell[0] + dr, cell[1] + dc) for dr, dc in STEP.values()]

        jukus = sum(1 for _, _, t in tokens if t.token == "Juku")
        items = {
            "Juku": {0: 0, 1: 2, 2: 5, 3: 8, 4: 11}.get(jukus, 15),
            "Samurai": 3 * len({t.terrain for _, _, t in tokens if t.token == "Samurai"}),
            "Temple": 2 * sum(1 for _, _, t in tokens if t.token == "Temple"),
            "Wheel": sum(self.snow(cell) + sum(self.snow(y) for y in near(cell))
                         for cell, _, t in tokens if t.token == "Wheel"),
            "Observation Point": sum(
                2 * len({self.cells[cell][0].terrain} | {u.terrain for u in self.cells[cell][1][:i]})
                for cell, i, t in tokens if t.token == "Observation Point"),
            "colours": 2 * sum(1 for cell, _, t in tokens if t.terrain == self.cells[cell][0].terrain),
            "Extra Actions": 2 * extras,
            "Bears": -sum(self.bears(x) for x in path
                          if not self.has(x, "Temple") and not self.has(x, "Bell")
                          and not any(y in path and self.has(y, "Bell") for y in near(x))),
            "Snow": -sum(4 if self.snow(x) >= 5 else 2 if self.snow(x) >= 3 else 0
                         for x in path if not self.has(x, "Temple")),
            "reservations": hiker,
        }
        return items

    def intermediate(self, path_terrain: str | None, composition: str | None, other: str | None) -> int:
        total = 0
        for terrain in (path_terrain, other):
            if terrain is not None:
                total += 2 * sum(1 for tile, _ in self.cells.values() if tile.terrain == terrain)
                total += 2 * sum(1 for _, toks in self.cells.values() for t in toks if t.terrain == terrain)
        if composition is not None:
            present, feature = composition.split(" ")
            for cell, (_, toks) in self.cells.items():
                has = {"Bears": self.bears(cell) > 0, "Snow": self.snow(cell) > 0, "Discoveries": bool(toks)}[feature]
                total += 2 if has == (present == "with") else 0
        return total


def check_intermediate(game: Game, lay: Layout, line: str) -> None:
    zones = game.view(None)["zones"]
    slot = game.state.v[lay.slot]
    pair = zones[f"inter_slots[1,{slot}]"][0]
    a = zones["slot_a"][0].removeprefix("Path Scoring ") if "A" in pair else None
    b = zones["slot_b"][0] if "B" in pair else None
    c = zones["slot_c"][0].removeprefix("Path Scoring ") if "C" in pair else None
    got = [int(part.split(" ")[1]) for part in line.split(": ", 1)[1].split(", ")]
    assert got == [Grid(game, lay, p).intermediate(a, b, c) for p in range(lay.players)], line


def tile_mods(st: Any, lay: Layout, k: int) -> str:
    if lay.kinds[k] != "Tile":
        return ""
    mods = (["flipped"] if st.p[lay.flipped][k] else []) + \
        [f"{name} {st.p[i][k]}" for name, i in (("snow", lay.snow), ("bears", lay.bears)) if st.p[i][k]]
    return f" [{', '.join(mods)}]" if mods else ""


def check_final(game: Game, lay: Layout) -> None:
    st = game.state
    cell_of = {lay.board[p][r][c]: (r, c) for p in range(lay.players) for r in range(7) for c in range(7)}
    for row in game.scores():
        p = row["player"]
        grid = Grid(game, lay, p)
        comps = grid.components()
        most = max(n for n, _ in comps)
        longest = [cells for n, cells in comps if n == most]
        chosen = {cell_of[z] for z in st.v[lay.scored_path + p]}
        assert chosen in longest
        extras, hiker = len(st.z[lay.extras[p]]), st.v[lay.hiker_points + p]
        items = grid.score_path(chosen, extras, hiker)
        assert {k: row["breakdown"][k] for k in items} == items
        best = max(sum(grid.score_path(cells, extras, hiker).values()) for cells in longest)
        assert sum(items.values()) == best
        # the hand-written engine's scorer agrees on the same grid
        text = "".join(f"{r + 1} {c + 1}: " + ", ".join(
            lay.labels[k] + tile_mods(st, lay, k) for k in st.z[lay.board[p][r][c]]) + "\n"
            for r in range(7) for c in range(7) if st.z[lay.board[p][r][c]])
        theirs = hw.final_score(hw.grid_from_text(text), extras, 0, hiker)
        assert {k: theirs.breakdown[k] for k in items} == items
        assert {(r - 1, c - 1) for r, c in theirs.cells} in longest
        # the ranking's tie-breaks read the chosen path
        assert list(row["rank"]) == [row["total"], -sum(grid.bears(x) for x in chosen),
                                     -sum(grid.snow(x) for x in chosen)]


def check_state(game: Game, lay: Layout) -> None:
    st = game.state
    where = [c for zone in st.z for c in zone]
    assert len(where) == lay.n and len(set(where)) == lay.n          # each component once
    for c in where:
        assert c in st.z[st.w[c]]
    # Extra Action tokens: the general supply or a player's area.
    assert len(st.z[lay.general]) + sum(len(st.z[z]) for z in lay.extras) == 16
    # 4x4
    for p in range(lay.players):
        occupied = [(r, c) for r in range(7) for c in range(7) if st.z[lay.board[p][r][c]]]
        rows = [r for r, _ in occupied]
        cols = [c for _, c in occupied]
        assert max(rows) - min(rows) < 4 and max(cols) - min(cols) < 4, (p, occupied)
    # Hikers
    hikers = st.p[lay.hiker]
    on: Counter = Counter()
    for c, h in enumerate(hikers):
        if h is None:
            continue
        on[h] += 1
        zone = st.w[c]
        assert zone == lay.market or (zone in lay.supply and lay.supply.index(zone) != h), (c, h)
    assert all(v == 1 for v in on.values())
    for z in lay.supply:
        assert sum(1 for c in st.z[z] if hikers[c] is not None) <= 1
        assert len(st.z[z]) <= 3
    market = [lay.kinds[c] for c in st.z[lay.market]]
    assert market.count("Tile") <= 2 and market.count("Discovery") <= 2
    assert all(v >= 0 for v in st.p[lay.snow] if v is not None)


def check_views(game: Game, lay: Layout) -> None:
    st = game.state
    for viewer in [*range(lay.players), None]:
        view = game.view(viewer)
        for name in lay.hidden:
            zi = game.zone_index(name)
            assert view["zones"][name] == {"hidden": len(st.z[zi])}
        assert view["seen"] == []


def play(players: int, seed: int) -> None:
    lay = LAYOUTS[players]
    game = RULES.new_game(players, seed=seed)
    st = game.state
    rng = random.Random(seed)
    first = st.v[lay.space]
    assert first == (1 if players == 2 else 2)
    turns: list[tuple[int, int]] = []       # (space, seat) of each turn's first play decision
    steps = 0
    while not st.over:
        steps += 1
        assert steps <= MAX_STEPS, f"{players} players, seed {seed}: no end after {MAX_STEPS} decisions"
        legal = game._legal
        assert legal
        me = st.chooser
        if steps % VIEW_EVERY == 0:
            check_views(game, lay)
            check_state(game, lay)
        action = rng.choice(legal)
        if action[0] in lay.plays:
            assert me == st.v[lay.current]
            key = (st.v[lay.space], me)
            if not turns or turns[-1] != key:
                turns.append(key)
        logged = len(st.log)
        game._apply_unchecked(action)
        if len(st.log) > logged:
            for line in game.log_lines(logged):
                if line.startswith("scoring intermediate"):
                    check_intermediate(game, lay, line)
    check_state(game, lay)
    check_final(game, lay)
    check_views(game, lay)
    # Rounds: spaces first..10, each with one turn of every player from the first player
    # (a turn whose every action was impossible plays nothing, so it can be missing here).
    # (a round late in the game may have no play at all: the supplies and piles ran out)
    lines = game.log_lines()
    rounds = [line for line in lines if line.startswith("Round ")]
    assert rounds == [f"Round {k - first + 1} (space {k})" for k in range(first, 11)]
    assert len(rounds) == (10 if players == 2 else 9)
    spaces = sorted({s for s, _ in turns})
    assert set(spaces) <= set(range(first, 11)) and spaces[:3] == list(range(first, first + 3))
    assert st.v[lay.space] == 10
    starter = st.v[lay.starter]
    order = [(starter + k) % players for k in range(players)]
    for s in spaces:
        seats = [p for sp, p in turns if sp == s]
        assert seats == [p for p in order if p in seats], (s, seats)     # from the first player, once each
    assert sum(1 for line in lines if line.startswith("scoring intermediate")) == 3
    marks = [line.split(" (space ")[1][:-1] if line.startswith("Round ") else "scored"
             for line in lines if line.startswith(("Round ", "scoring intermediate"))]
    assert [marks[i - 1] for i, m in enumerate(marks) if m == "scored"] == ["3", "6", "9"]
    assert sum(1 for line in lines if line.startswith("scoring final")) == 1
    for row in game.scores():
        assert row["total"] == sum(row["breakdown"].values())
        assert set(row["breakdown"]) >= {"Path Scoring A", "Composition B", "Path Scoring C", "Juku", "Bears",
                                         "reservations"}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games(players: int) -> None:
    for seed in range(int(GAMES) if GAMES else DEFAULT_GAMES[players]):
        play(players, seed)
