"""Properties of 1,000 seeded random Naishi games (games/naishi.rules).

Every decision is a seeded random legal action, applied through the engine's fast internals
(`_legal`, `_apply_unchecked`). Checked in every game, from the rulings
(/work/shared/rulings/naishi.md) and not from the rules file:

- nothing raises and the game ends, by one of its two triggers (§5): a declaration (the
  opponent then plays exactly one turn) or 2+ depleted piles (after the first player's turn the
  second plays one more turn; after the second player's turn the game ends at once);
- declaring is offered only with a depleted pile and before the end is triggered;
- no component is created or lost: 34 development cards, 16 Mountains and 4 Emissaries, each in
  exactly one zone at every decision; a territory cell holds one card once the Hands are laid;
- the Gift is secret, and each Hand holds the kept card, the received card and 3 Mountains;
- no player sees the opponent's Hand before the final reveal (views at every decision);
- each Ninja's copy is one of its legal targets (§6.3), automatic with one target;
- the score breakdown adds up to the total, and every final breakdown, total and colour count
  equals the hand-written oracle's (bench/handwritten_naishi.py) on the final territory with
  the copies the game chose; the winners are those with the best (total, colours).
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from typing import Any

from baselines import load_baseline

import ruleforge
from ruleforge import Game

ROOT = Path(__file__).parents[1]
RULES = ruleforge.load(ROOT / "games" / "naishi.rules")

GAMES = 1000
MAX_STEPS = 400  # a random game takes about 35 decisions, the longest of 1,000 took 50; 30 River cards bound its turns




hw = load_baseline("handwritten_naishi")


class Layout:
    """Where things are in the compiled program, looked up once."""

    def __init__(self) -> None:
        game = RULES.new_game(2, seed=0)
        prog = game.program
        self.labels = prog.comp_label
        self.n_comps = len(self.labels)
        self.emissaries = [c for c, k in enumerate(prog.comp_kind) if k == "Emissary"]
        self.terr = [[[game.zone_index("territory", p, r, k) for k in range(1, 6)] for r in (1, 2)]
                     for p in range(2)]
        self.cells = [self.terr[p][0] + self.terr[p][1] for p in range(2)]  # oracle cell order
        self.river = [game.zone_index("river", None, 1, k) for k in range(1, 6)]
        self.piles = [game.zone_index("piles", None, 1, k) for k in range(1, 6)]
        self.dealt = [game.zone_index("dealt", p) for p in range(2)]
        self.reserve = [game.zone_index("reserve", p) for p in range(2)]
        self.swap = game.zone_index("swap_spots")
        self.discard_spots = game.zone_index("discard_spots")
        self.decree = game.zone_index("decree_spot")
        self.emissary_zones = {*self.reserve, self.swap, self.discard_spots, self.decree}
        ids = prog.action_ids
        self.give, self.copy, self.declare = ids["give"], ids["copy"], ids["declare"]
        self.copy_prop = prog.props.index("copy")
        self.revealed = prog.var_base["revealed"]
        self.hand_keys = [[f"territory(P{p + 1})[2,{k}]" for k in range(1, 6)] for p in range(2)]


LAY = Layout()


def test_components_are_the_box() -> None:
    """§2: 34 development cards by type, 8 Mountains per player, 2 Emissaries per player."""
    counts = Counter(LAY.labels)
    assert counts == Counter({**hw.DEVELOPMENT_COUNTS, "Mountain": 16, "Emissary": 4})
    assert LAY.n_comps == 54


def depleted(st: Any) -> int:
    return sum(1 for r, p in zip(LAY.river, LAY.piles) if not st.z[r] and not st.z[p])


def check_components(st: Any, laid: bool) -> None:
    """Every component in exactly one zone, as its zone index says; Emissaries only at court."""
    seen = [0] * LAY.n_comps
    for zi, zone in enumerate(st.z):
        for c in zone:
            seen[c] += 1
            assert st.w[c] == zi
    assert seen == [1] * LAY.n_comps
    for c in LAY.emissaries:
        assert st.w[c] in LAY.emissary_zones
    assert len(st.z[LAY.swap]) <= 3 and len(st.z[LAY.discard_spots]) <= 2 and len(st.z[LAY.decree]) <= 1
    if laid:
        assert all(len(st.z[zi]) == 1 for p in range(2) for zi in LAY.cells[p])


def check_views(game: Game) -> None:
    """Before the reveal, a Hand is seen by its owner only (its cells show one hidden card)."""
    for viewer in range(2):
        zones = game.view(viewer)["zones"]
        opp = 1 - viewer
        for k, key in enumerate(LAY.hand_keys[opp]):
            assert zones[key] == {"hidden": len(game.state.z[LAY.terr[opp][1][k]])}
        for k, key in enumerate(LAY.hand_keys[viewer]):
            assert zones[key] == [LAY.labels[c] for c in game.state.z[LAY.terr[viewer][1][k]]]


def play(seed: int) -> dict[str, Any]:
    """One random game with the per-decision checks; returns what the end checks need."""
    game = RULES.new_game(2, seed=seed)
    st = game.state
    rng = random.Random(seed)
    dealt = [list(st.z[LAY.dealt[p]]) for p in range(2)]
    given: dict[int, int] = {}
    givers: list[int] = []
    turns: list[dict[str, Any]] = []  # main-phase turns: player, declared, depleted piles after
    triggered = False
    steps = 0
    while not st.over:
        steps += 1
        assert steps <= MAX_STEPS, f"seed {seed}: no end after {MAX_STEPS} decisions"
        legal = game._legal
        assert legal
        me = st.chooser
        revealed = st.v[LAY.revealed]
        if not revealed:
            check_views(game)
        action = rng.choice(legal)
        aid = action[0]
        if aid == LAY.give:
            givers.append(me)
            given[me] = action[1][0]
        elif aid != LAY.copy:
            assert not revealed
            if not turns:  # the Hands were just laid: kept + received + 3 Mountains (§3.5)
                for p in range(2):
                    kept = [c for c in dealt[p] if c != given[p]]
                    hand = sorted(c for zi in LAY.terr[p][1] for c in st.z[zi])
                    mountains = [c for c in hand if LAY.labels[c] == "Mountain"]
                    assert hand == sorted([*kept, given[1 - p], *mountains]) and len(mountains) == 3
            if not turns or turns[-1]["player"] != me:  # turns alternate: a new turn starts
                if turns:
                    turns[-1]["depleted"] = depleted(st)
                    triggered = triggered or turns[-1]["declared"] or turns[-1]["depleted"] >= 2
                turns.append({"player": me, "declared": False})
                check_components(st, laid=True)
            if any(a[0] == LAY.declare for a in legal):  # §4.1: a depleted pile, end not triggered
                assert depleted(st) >= 1 and not triggered
            if aid == LAY.declare:
                turns[-1]["declared"] = True
        game._apply_unchecked(action)
    turns[-1]["depleted"] = depleted(st)
    check_components(st, laid=True)
    return {"game": game, "turns": turns, "givers": givers, "given": given}


def expected_last_turn(turns: list[dict[str, Any]], starter: int) -> tuple[int, int, str]:
    """§5 from the turn record: the turn that triggers the end, the index of the last turn the
    game should have, and why."""
    for i, turn in enumerate(turns):
        if turn["declared"]:
            return i, i + 1, "declared"
        if turn["depleted"] >= 2:
            return i, (i + 1 if turn["player"] == starter else i), "depleted"
    raise AssertionError("the game ended without a trigger")


def check_end(seed: int, record: dict[str, Any], ends: Counter) -> None:
    game: Game = record["game"]
    st = game.state
    turns = record["turns"]
    starter = turns[0]["player"]
    assert record["givers"] == [starter, 1 - starter]  # the first player gives first, then starts
    assert all(t["player"] == (starter + i) % 2 for i, t in enumerate(turns))
    trigger, last, why = expected_last_turn(turns, starter)
    assert len(turns) - 1 == last, f"seed {seed}: {len(turns)} turns, the end ({why}) allows {last + 1}"
    ends[why, turns[trigger]["player"] == starter] += 1
    # The Gift is secret: the other player's log shows only that a gift was chosen.
    for p in range(2):
        lines = game.log_lines(viewer=1 - p)
        assert f"P{p + 1}: choose a gift" in lines[:2]
        assert f"P{p + 1}: give {LAY.labels[record['given'][p]]}" in game.log_lines(viewer=p)[:2]
    # After the reveal every Hand is public.
    for p in range(2):
        assert game.view(1 - p)["zones"][LAY.hand_keys[p][0]] == [LAY.labels[st.z[LAY.terr[p][1][0]][0]]]
    check_scores(game, seed)


def check_scores(game: Game, seed: int) -> None:
    """Each Ninja's copy is a legal target, and every final breakdown, total, colour count and
    the winners equal the hand-written oracle's on the final territories (also used by
    tests/test_playthrough_snapshots.py)."""
    st = game.state
    scores = game.scores()
    keys = []
    for p in range(2):
        cards = [st.z[zi][0] for zi in LAY.cells[p]]
        names = [LAY.labels[c] for c in cards]
        targets = hw.copy_targets(names)
        copies = {}
        for cell, c in enumerate(cards):
            if names[cell] == "Ninja":
                copy = st.p[LAY.copy_prop][c]
                assert copy in targets if targets else copy is None, (seed, names, copy)
                if len(targets) == 1:
                    assert copy == targets[0]
                copies[cell] = copy
        row = scores[p]
        assert row["total"] == sum(row["breakdown"].values())
        oracle = hw.score_territory(names[:5], names[5:], copies)
        assert {**row["breakdown"], "total": row["total"]} == oracle, (seed, p, names, copies)
        colours = hw.colours(names[:5], names[5:], copies)
        assert row["rank"] == [row["total"], colours]
        keys.append((row["total"], colours))
    best = max(keys)
    assert game.winners() == [p for p in range(2) if keys[p] == best]


def test_random_games() -> None:
    ends: Counter = Counter()
    ninjas = 0
    for seed in range(GAMES):
        record = play(seed)
        check_end(seed, record, ends)
        st = record["game"].state
        ninjas += sum(1 for p in range(2) for zi in LAY.cells[p] if LAY.labels[st.z[zi][0]] == "Ninja")
    # Every way of ending occurred, and Ninjas reached the final reveal.
    assert ends["declared", True] > 50 and ends["declared", False] > 50, ends
    assert ends["depleted", True] > 50 and ends["depleted", False] > 50, ends
    assert ninjas > 100
