"""Properties of many seeded random games of Naishi: Legends & Travellers.

1,000 games, each decision a seeded uniform choice among the legal actions, through the
engine's fast internals (`_legal`, `_apply_unchecked`). Cheap checks run at every step, the
views on a sample of steps, and at the end an independent scorer written here from
/work/shared/rulings/naishi.md (§6, §7) recomputes every item of both players' scores.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import ruleforge
from ruleforge import Game

RULES = ruleforge.load(Path(__file__).parents[1] / "games" / "naishi_legends.rules")

GAMES = 1000
MAX_STEPS = 400          # a game takes 20-70 decisions (the longest of 1,000 random games: 63)
VIEW_EVERY = 7           # check both players' views at one step in this many
TRAVELLERS = {"Umbrella Lady", "Old Man", "Cherry Blossom Lady", "Little Girl", "Porter", "Samurai"}
CHARACTERS = ("Naishi", "Advisor", "Sentinel", "Monk", "Horseman", "Ronin")
PROVINCES = ("Fort", "Torii", "Rice Field", "Banner")
ITEMS = ("Mountain", "Naishi", "Advisor", "Fort", "Sentinel", "Torii", "Monk", "Rice Field", "Banner",
         "Horseman", "Ronin", "Ryokan")


class Layout:
    """Where things are in the compiled program, looked up once."""

    def __init__(self) -> None:
        game = RULES.new_game(2, seed=0)
        prog = game.program
        self.prog = prog
        self.labels = prog.comp_label
        self.kinds = Counter(prog.comp_kind)
        self.n_comps = len(prog.comp_kind)
        self.guests = [c for c, k in enumerate(prog.comp_kind) if k == "Guest"]
        self.pending = prog.props.index("pending")
        self.copy = prog.props.index("copy")
        self.zone_name = [z.name for z in prog.zones]
        self.cells = {(p, r, k): game.zone_index("territory", p, r, k)
                      for p in (0, 1) for r in (1, 2) for k in range(1, 6)}
        self.river = [game.zone_index("river", None, 1, k) for k in range(1, 6)]
        self.piles = [game.zone_index("piles", None, 1, k) for k in range(1, 6)]
        self.held = [game.zone_index("ryokan_held", p) for p in (0, 1)]
        self.neutral = game.zone_index("ryokan_neutral")
        self.box = game.zone_index("box")
        self.side = prog.var_base["ryokan_side"]
        self.chain = prog.var_base["chain"]
        self.revealed = prog.var_base["revealed"]
        self.declared = prog.var_base["declared"]
        ids = prog.action_ids
        self.guest_actions = {ids[n] for n in ("guest_swap", "guest_recall", "guest_develop", "decline")}
        self.names = {aid: name for name, aid in ids.items()}


LAY = Layout()


# --- the independent scorer ----------------------------------------------------------------------


class Card:
    """One cell's card as the rulings see it."""

    def __init__(self, label: str, copy: str | None):
        self.legend = label.startswith("Legendary ")
        self.type = label.removeprefix("Legendary ")
        self.traveller = label in TRAVELLERS
        self.copy = None if copy is None else ("Rice Field" if copy == "RiceField" else copy)
        # what it counts as for other cards (§6.1); a Ninja only as its copy
        if self.type == "Ninja":
            self.counts = {self.copy} if self.copy else set()
        elif self.traveller:
            self.counts = set()
        else:
            self.counts = {self.type} | ({"Torii"} if self.legend and self.type == "Monk" else set())
        # the base text it scores by: a base card, or a Ninja (base or Legendary) as its copy
        self.text = self.copy if self.type == "Ninja" else (None if self.legend or self.traveller else self.type)

    def is_(self, t: str) -> bool:
        return t in self.counts


def neighbours(r: int, k: int) -> list[tuple[int, int]]:
    out = [(r, k - 1), (r, k + 1), (3 - r, k)]
    return [(rr, kk) for rr, kk in out if 1 <= kk <= 5]


def rice_groups(grid: dict[tuple[int, int], Card]) -> list[int]:
    todo = {pos for pos, c in grid.items() if c.is_("Rice Field")}
    sizes = []
    while todo:
        stack = [todo.pop()]
        size = 0
        while stack:
            pos = stack.pop()
            size += 1
            for n in neighbours(*pos):
                if n in todo:
                    todo.remove(n)
                    stack.append(n)
        sizes.append(size)
    return sizes


def oracle(grid: dict[tuple[int, int], Card], ryokan_side: int | None) -> tuple[dict[str, int], int]:
    """Every item of §6/§7 for one territory, and the number of colours."""
    pts = dict.fromkeys(ITEMS, 0)

    def adj(pos: tuple[int, int], t: str) -> int:
        return sum(grid[n].is_(t) for n in neighbours(*pos))

    everything = list(grid.values())
    mountains = sum(c.type == "Mountain" for c in everything)
    pts["Mountain"] = 0 if mountains == 0 else 5 if mountains == 1 else -5
    torii = sum(c.is_("Torii") for c in everything)
    pts["Torii"] = {0: 0, 1: -5, 2: 0}.get(torii, 30)
    pts["Rice Field"] = sum({1: 0, 2: 10, 3: 20}.get(s, 30) for s in rice_groups(grid))
    banners = sum(c.is_("Banner") for (r, _), c in grid.items() if r == 1)
    pts["Banner"] = {0: 0, 1: 3}.get(banners, 8)
    types = {t for c in everything if not (c.type == "Ninja" and not c.legend) for t in c.counts
             if t not in ("Mountain", "Ninja")}
    n_types = len(types) + (ryokan_side is not None)
    ronin_each = 45 if n_types >= 10 else {8: 8, 9: 15}.get(n_types, 0)
    for (r, k), c in grid.items():
        pos = (r, k)
        if c.text == "Naishi" and k == 3:
            pts["Naishi"] += 12 if r == 1 else 8
        elif c.text == "Advisor":
            pts["Advisor"] += {1: 2, 2: 4, 3: 3, 4: 4, 5: 2}[k] + 4 * adj(pos, "Naishi")
        elif c.text == "Fort" and k in (1, 5):
            pts["Fort"] += 6
        elif c.text == "Sentinel":
            pts["Sentinel"] += (0 if adj(pos, "Sentinel") else 3) + 4 * adj(pos, "Fort")
        elif c.text == "Monk":
            pts["Monk"] += (5 if r == 2 else 0) + 2 * adj(pos, "Torii")
        elif c.text == "Horseman" and r == 2:
            pts["Horseman"] += 3 + (10 if grid[(1, k)].is_("Banner") else 0)
        elif c.text == "Ronin":
            pts["Ronin"] += ronin_each
        if not c.legend:
            continue
        if c.type == "Naishi":
            pts["Naishi"] += 10 if (r == 1 and k in (1, 3, 5)) or (r == 2 and k == 3) else 0
        elif c.type == "Advisor":
            no_naishi = not any(x.is_("Naishi") for x in everything)
            pts["Advisor"] += 5 * sum(x.is_("Advisor") for x in everything) if no_naishi else 0
        elif c.type == "Sentinel":
            row = sum(x.is_("Fort") or x.is_("Rice Field") for (rr, _), x in grid.items() if rr == r)
            pts["Sentinel"] += (0 if adj(pos, "Sentinel") else 5) + 3 * row
        elif c.type == "Monk":
            pts["Monk"] += 2 * sum(any(grid[n].is_(t) for t in CHARACTERS) for n in neighbours(r, k))
        elif c.type == "Horseman":
            provinces = sum(any(grid[n].is_(t) for t in PROVINCES) for n in neighbours(r, k))
            pts["Horseman"] += 4 * provinces + 4 * adj(pos, "Banner")
        elif c.type == "Ronin":
            sets = [sum(x.is_(t) for x in everything) for t in CHARACTERS + PROVINCES]
            sets.append(sum(x.type == "Ninja" and x.copy is None for x in everything))
            pts["Ronin"] += {3: 8, 4: 15}.get(max(sets), 25 if max(sets) >= 5 else 0)
    pts["Ryokan"] = ryokan_side or 0
    colour_of = [c.copy if c.type == "Ninja" else None if c.traveller else c.type for c in everything]
    colours = len({x for x in colour_of if x}) + (ryokan_side is not None)
    return pts, colours


def territory(game: Game, p: int) -> dict[tuple[int, int], Card]:
    st = game.state
    out = {}
    for r in (1, 2):
        for k in range(1, 6):
            stack = st.z[LAY.cells[(p, r, k)]]
            assert len(stack) == 1, f"P{p + 1} cell {r},{k} holds {len(stack)} cards"
            c = stack[0]
            out[(r, k)] = Card(LAY.labels[c], st.p[LAY.copy][c])
    return out


def base_characters(grid: dict[tuple[int, int], Card]) -> set[str]:
    return {c.type for c in grid.values() if c.type in CHARACTERS and not c.legend and not c.traveller}


# --- the checks ------------------------------------------------------------------------------------


def check_step(game: Game) -> None:
    """Cheap, every step: nothing created or lost; no effect left waiting outside its decision."""
    st = game.state
    assert sum(len(z) for z in st.z) == LAY.n_comps
    holders = len(st.z[LAY.neutral]) + sum(len(st.z[h]) for h in LAY.held)
    assert holders == 1
    if not any(a[0] in LAY.guest_actions for a in game._legal):
        assert st.v[LAY.chain] == 0
        assert all(not st.p[LAY.pending][g] for g in LAY.guests)


def check_places(game: Game) -> None:
    """Every component is where its zone says, counted by kind."""
    st = game.state
    where = Counter()
    for zi, zone in enumerate(st.z):
        for c in zone:
            assert st.w[c] == zi
            where[LAY.prog.comp_kind[c]] += 1
    assert where == LAY.kinds == Counter({"Card": 58, "Guest": 6, "Emissary": 4})
    # out of the game: 4 Legends, 1 Traveller, 3 base cards, nothing else ever
    assert len(st.z[LAY.box]) == 8
    assert sum(len(st.z[z]) for z in LAY.river) <= 5 and all(len(st.z[z]) <= 1 for z in LAY.river)


def check_views(game: Game) -> None:
    """Before the reveal nobody sees the other's Hand, the piles or the other's dealt cards."""
    revealed = game.state.v[LAY.revealed]
    for viewer in (0, 1):
        zones = game.view(viewer)["zones"]
        other = f"P{2 - viewer}"
        for k in range(1, 6):
            hand = zones[f"territory({other})[2,{k}]"]
            if not revealed:
                assert isinstance(hand, dict) and set(hand) == {"hidden"}
            assert isinstance(zones[f"territory({other})[1,{k}]"], list)
            assert isinstance(zones[f"piles[1,{k}]"], dict)
        assert isinstance(zones[f"dealt({other})"], dict)
        assert isinstance(zones["box"], dict)


def check_end(game: Game, seat_of_declare: int | None) -> None:
    st = game.state
    depleted = sum(not st.z[r] and not st.z[p] for r, p in zip(LAY.river, LAY.piles))
    assert st.v[LAY.declared] or depleted >= 2
    assert (seat_of_declare is not None) == bool(st.v[LAY.declared])
    grids = [territory(game, p) for p in (0, 1)]
    for p in (0, 1):
        theirs = base_characters(grids[1 - p])
        mine = base_characters(grids[p])
        for c in grids[p].values():
            if c.type == "Ninja":      # a legal copy, and always one when there is a target
                targets = theirs if c.legend else mine
                assert (c.copy in targets) if targets else c.copy is None
    rows = game.scores()
    for p in (0, 1):
        side = st.v[LAY.side] if st.z[LAY.held[p]] else None
        expected, colours = oracle(grids[p], side)
        row = rows[p]
        assert row["breakdown"] == expected, (p, row["breakdown"], expected)
        assert row["total"] == sum(row["breakdown"].values()) == sum(expected.values())
        assert row["rank"] == [row["total"], colours]
    best = max(r["rank"] for r in rows)
    assert game.winners() == [r["player"] for r in rows if r["rank"] == best]


def play(seed: int, used: Counter) -> None:
    game = RULES.new_game(2, seed=seed)
    rng = random.Random(seed)
    declare_seat = None
    check_places(game)
    for step in range(MAX_STEPS):
        if game.is_over:
            break
        check_step(game)
        if step % VIEW_EVERY == 0:
            check_views(game)
        action = rng.choice(game._legal)
        name = LAY.names.get(action[0], "pass")
        used[name] += 1
        if name == "declare":
            declare_seat = game.state.chooser
        game._apply_unchecked(action)
    else:
        raise AssertionError(f"seed {seed}: no end after {MAX_STEPS} decisions")
    check_places(game)
    check_end(game, declare_seat)
    used["ended by declaring" if declare_seat is not None else "ended by depletion"] += 1
    if game.state.z[LAY.held[0]] or game.state.z[LAY.held[1]]:
        used["Ryokan taken"] += 1
        used[f"Ryokan on {game.state.v[LAY.side]}"] += 1


def test_random_games() -> None:
    used: Counter = Counter()
    for seed in range(GAMES):
        play(seed, used)
    # The games exercised every Traveller effect and both ways to end.
    for name in ("guest_swap", "guest_recall", "guest_develop", "decline", "declare", "decree", "copy",
                 "Ryokan on 4", "Ryokan on 7", "ended by declaring", "ended by depletion"):
        assert used[name] > 0, name
