"""Properties of seeded random Nakasendo games (games/nakasendo.rules), for 2, 3 and 4 players.

Every decision is a seeded random legal action, applied through the engine's fast internals
(`_legal`, `_apply_unchecked`). The number of games per player count is
RULEFORGE_NAKASENDO_GAMES (default: what runs in about 20 s per count; a long run sets 1000).
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
- the score breakdown adds up to the total.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import ruleforge
from ruleforge import Game

ROOT = Path(__file__).parents[1]
RULES = ruleforge.load(ROOT / "games" / "nakasendo.rules")
GAMES = int(os.environ.get("RULEFORGE_NAKASENDO_GAMES", "60"))
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
        self.space = prog.var_base["space"]
        self.current = prog.var_base["current"]
        self.starter = prog.var_base["starter"]
        ids = prog.action_ids
        self.plays = {ids["play_tile"], ids["play_token"]}
        self.event_actions = {ids["put_snow"], ids["put_bear"]}
        self.hidden = ["tile_pile", "token_pile", "event_deck"]


LAYOUTS = {n: Layout(n) for n in (2, 3, 4)}


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
        assert steps <= MAX_STEPS
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
        game._apply_unchecked(action)
    check_state(game, lay)
    check_views(game, lay)
    # Rounds: spaces first..10, each with one turn of every player from the first player
    # (a turn whose every action was impossible plays nothing, so it can be missing here).
    spaces = sorted({s for s, _ in turns})
    assert spaces == list(range(first, 11)), spaces
    assert st.v[lay.space] == 10
    starter = st.v[lay.starter]
    order = [(starter + k) % players for k in range(players)]
    for s in spaces:
        seats = [p for sp, p in turns if sp == s]
        assert seats == [p for p in order if p in seats], (s, seats)     # from the first player, once each
    lines = game.log_lines()
    assert sum(1 for line in lines if line.startswith("scoring intermediate")) == 3
    assert sum(1 for line in lines if line.startswith("scoring final_path")) == 1
    for row in game.scores():
        assert row["total"] == sum(row["breakdown"].values())
        assert set(row["breakdown"]) >= {"Path Scoring A", "Composition B", "Path Scoring C", "Juku", "Bears",
                                         "reservations"}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games(players: int) -> None:
    for seed in range(GAMES):
        play(players, seed)
