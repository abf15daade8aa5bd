"""Properties of many seeded random Hagakure games (games/hagakure.rules).

1,000 games per player count, each decision a seeded random legal action. The loop uses the
engine's fast internals (`_legal`, `_apply_unchecked`) and cheap checks at every step; the full
checks (where every component is, what each player may see) run at round starts and on samples.
An independent reading of the rulebook replays every game's log: trick winners and round scores.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

import ruleforge
from ruleforge import Game

RULES = ruleforge.load(Path(__file__).parents[1] / "games" / "hagakure.rules")

GAMES = 1000
# A regular game takes about 160-200 decisions, each extra round about 20-30; the longest of
# 1,000 random games per player count took 219 (3 players), 224 (4) and 245 (5). A game past
# MAX_STEPS never ends (a round counter that does not advance): it fails at once, naming its seed.
MAX_STEPS = 3000


def endless(players: int, seed: int) -> str:
    return f"{players} players, seed {seed}: no end after {MAX_STEPS} decisions (the longest random game takes 245)"
ROUNDS = {3: 9, 4: 8, 5: 5}
HAND = {3: 5, 4: 4, 5: 5}
CARDS = {3: 20, 4: 20, 5: 30}
VIEW_EVERY = 23  # check every player's view at one decision in this many


class Layout:
    """Where things are in one compiled program, looked up once per player count."""

    def __init__(self, players: int):
        game = RULES.new_game(players=players, seed=0)
        prog = game.program
        self.n = players
        self.labels = prog.comp_label
        self.cards = [c for c, k in enumerate(prog.comp_kind) if k == "Card"]
        self.nobori = [c for c, k in enumerate(prog.comp_kind) if k == "Nobori"]
        # From the rulebook, not from the rules file: Old Fools and 18+ are red.
        self.red = [label == "Old Fool" or (label.isdigit() and int(label) >= 18) for label in self.labels]
        self.deck = game.zone_index("deck")
        self.yomi = game.zone_index("yomi")
        self.trick = game.zone_index("trick")
        self.spent = game.zone_index("spent")
        self.hand = [game.zone_index("hand", p) for p in range(players)]
        self.won = [game.zone_index("won", p) for p in range(players)]
        self.banners = [game.zone_index("banners", p) for p in range(players)]
        self.raised = [game.zone_index("raised", p) for p in range(players)]
        self.card_zones = [self.deck, self.yomi, self.trick, *self.hand, *self.won]
        self.nobori_zones = [self.spent, *self.banners, *self.raised]
        self.owner = {c: self.banners.index(prog.comp_start[c]) for c in self.nobori}
        self.power = {c: int(self.labels[c].split()[1]) for c in self.nobori}
        self.play = prog.action_ids["play"]
        self.raise_ = prog.action_ids["raise"]
        self.looks = {prog.action_ids["look_at_yomi"], prog.action_ids["look_at_hand"]}
        self.rounds_var = prog.var_base["rounds_played"]
        self.n_comps = len(prog.comp_kind)
        texts = ["".join(part for part in t if isinstance(part, str)) for t in prog.log_templates]
        self.say_round = next(i for i, t in enumerate(texts) if t.endswith(" deals"))
        self.say_trick = next(i for i, t in enumerate(texts) if t.endswith(" wins the trick"))


LAYOUTS = {n: Layout(n) for n in (3, 4, 5)}


# --- the independent oracle ------------------------------------------------------------------------


def oracle_trick_winner(lay: Layout, plays: list[tuple[int, int]]) -> int:
    fools = [seat for seat, c in plays if lay.labels[c] == "Old Fool"]
    if len(fools) >= 2:
        return fools[-1]
    return max(plays, key=lambda p: 0 if lay.labels[p[1]] == "Old Fool" else int(lay.labels[p[1]]))[0]


def oracle_round_score(lay: Layout, won: list[int], tricks: int, power: int | None) -> int:
    base = tricks + any(lay.labels[c] == "18" for c in won) if tricks else -2
    if power == 1:
        return 2 * base
    if power == 2:
        return 0
    villagers = sum(1 for c in won if not lay.red[c])
    if power == 3 and villagers >= (5 if lay.n == 5 else 4):
        return base + 2
    return base


def replay_log(lay: Layout, game: Game) -> list[tuple[int, ...]]:
    """Check the raw log against the rulebook: who deals, who acts when, every trick winner and
    every round score. Returns the round scores."""
    n = lay.n
    plays: list[tuple[int, int]] = []
    won: list[list[int]] = [[] for _ in range(n)]
    tricks, power = [0] * n, [None] * n
    raised: Counter = Counter()
    rounds = []
    dealer: int | None = None
    prepared: list[int] = []  # the seats that made their preparation decision this round
    leader = -1
    for entry in game.state.log:
        if entry[0] == "act":
            _, me, aid, args = entry
            if aid == lay.play:
                # the first player leads trick 1, a trick's winner leads the next; clockwise
                assert prepared == [(dealer + 1 + k) % n for k in range(n)]
                assert me == (leader + len(plays)) % n
                plays.append((me, args[0]))
            elif aid in lay.looks:
                assert prepared[-1] == me and power[me] == 5
            else:  # raise or pass: the preparation, from the first player clockwise
                prepared.append(me)
                if aid == lay.raise_:
                    assert power[me] is None, "two Nobori raised in one round"
                    power[me] = lay.power[args[0]]
                    assert lay.owner[args[0]] == me
                    raised[args[0]] += 1
        elif entry[0] == "say" and entry[1] == lay.say_round:
            assert entry[2][0] == len(rounds) + 1
            if dealer is not None:
                assert entry[2][1] == (dealer + 1) % n  # the next dealer is left of the last one
            dealer = entry[2][1]
            leader = (dealer + 1) % n  # the first player is left of the dealer
            prepared = []
        elif entry[0] == "say" and entry[1] == lay.say_trick:
            assert len(plays) == n
            w = oracle_trick_winner(lay, plays)
            assert entry[2] == (w,), f"trick {[lay.labels[c] for _, c in plays]} by {plays}: won by {entry[2]}"
            tricks[w] += 1
            won[w] += [c for _, c in plays]
            plays = []
            leader = w
        elif entry[0] == "score":
            expected = tuple(oracle_round_score(lay, won[p], tricks[p], power[p]) for p in range(n))
            assert tuple(entry[2]) == expected
            assert sum(tricks) == HAND[n] and not plays
            rounds.append(expected)
            won, tricks, power = [[] for _ in range(n)], [0] * n, [None] * n
    assert max(raised.values(), default=0) <= 1, "a Nobori raised twice"
    return rounds


# --- the invariants ------------------------------------------------------------------------------------


def check_cheap(lay: Layout, st) -> None:
    """Every step: the cards stay among the card zones, the Nobori among theirs, one raised each."""
    z = st.z
    assert sum(len(z[zi]) for zi in lay.card_zones) == len(lay.cards)
    assert sum(len(z[zi]) for zi in lay.nobori_zones) == 5 * lay.n
    for zi in lay.raised:
        assert len(z[zi]) <= 1


def check_round_start(lay: Layout, st, raises: list[int]) -> None:
    """First decision of a round: every card is back, dealt; every Nobori is unused or spent."""
    z, w = st.z, st.w
    assert sum(len(x) for x in z) == lay.n_comps
    for zi, zone in enumerate(z):
        for c in zone:
            assert w[c] == zi
    assert not z[lay.deck] and not z[lay.trick]
    assert len(z[lay.yomi]) == HAND[lay.n]
    for p in range(lay.n):
        assert len(z[lay.hand[p]]) == HAND[lay.n]
        assert not z[lay.won[p]]
    for c in lay.cards:
        assert w[c] == lay.yomi or w[c] in lay.hand
    for c in lay.nobori:
        assert w[c] in (lay.banners[lay.owner[c]], lay.spent)
    for p in range(lay.n):
        assert len(z[lay.banners[p]]) == 5 - raises[p]
    assert len(z[lay.spent]) == sum(raises)


def check_views(lay: Layout, game: Game, looks: list[int], fives: list[int]) -> None:
    """A player sees their own hand, never another hand nor the Yomi, except via a Nobori 5 look."""
    z = game.state.z
    for k in range(lay.n):
        view = game.view(k)
        zones = view["zones"]
        assert zones["yomi"] == {"hidden": len(z[lay.yomi])}
        assert zones["deck"] == {"hidden": len(z[lay.deck])}
        for p in range(lay.n):
            key = f"hand(P{p + 1})"
            if p == k:
                assert zones[key] == [lay.labels[c] for c in z[lay.hand[p]]]
            else:
                assert zones[key] == {"hidden": len(z[lay.hand[p]])}
        assert len(view["seen"]) == looks[k] <= fives[k] <= 1
        for seen in view["seen"]:
            assert seen["zone"] == "yomi" or seen["zone"] in {f"hand(P{p + 1})" for p in range(lay.n) if p != k}
    assert game.view(None)["seen"] == []


def check_end(lay: Layout, game: Game) -> None:
    st = game.state
    assert game.current_player is None and not game.legal_actions()
    rounds = replay_log(lay, game)
    scores = game.scores()
    totals = [s["total"] for s in scores]
    for s in scores:
        assert sum(s["breakdown"].values()) == s["total"]
    assert totals == [sum(r[p] for r in rounds) for p in range(lay.n)]
    assert [tuple(e[2]) for e in st.log if e[0] == "score"] == rounds
    assert st.v[lay.rounds_var] == len(rounds) >= ROUNDS[lay.n]
    for r in range(ROUNDS[lay.n], len(rounds)):  # an extra round only after a tie at the top
        before = [sum(x[p] for x in rounds[:r]) for p in range(lay.n)]
        assert before.count(max(before)) > 1
    assert totals.count(max(totals)) == 1
    assert game.winners() == [totals.index(max(totals))]
    check_cheap(lay, st)


def play_checked(players: int, seed: int, stats: Counter) -> Game:
    """One game with every invariant; some games also save/load, clone and replay.

    `stats` counts rounds and how often a round's Yomi is the previous round's Yomi again."""
    lay = LAYOUTS[players]
    game = RULES.new_game(players=players, seed=seed)
    st = game.state
    rng = random.Random(seed)
    raises, looks, fives = [0] * players, [0] * players, [0] * players
    round_seen = 0
    fight_yomi: list[int] | None = None
    save_at = rng.randrange(40, 150) if seed % 10 == 0 else -1
    clone_at = rng.randrange(1, 150) if seed % 10 == 5 else -1
    restored: Game | None = None
    after_save: list[tuple] = []
    clone: Game | None = None
    clone_digest = ""
    steps = 0
    while not st.over:
        steps += 1
        assert steps <= MAX_STEPS, endless(players, seed)
        if st.v[lay.rounds_var] != round_seen:
            round_seen = st.v[lay.rounds_var]
            check_round_start(lay, st, raises)
            if fight_yomi is not None:  # all cards are shuffled again: a new Yomi
                stats["rounds"] += 1
                stats["same yomi"] += sorted(st.z[lay.yomi]) == fight_yomi
            fight_yomi = None
        legal = game._legal
        me = st.chooser
        if legal[0][0] == lay.play and fight_yomi is None:  # the Yomi is fixed until the round ends
            fight_yomi = sorted(st.z[lay.yomi])
        if legal[0][0] == lay.play:  # the follow rule, from the rulebook
            hand = st.z[lay.hand[me]]
            trick = st.z[lay.trick]
            if trick and lay.red[trick[0]] and any(lay.red[c] for c in hand):
                allowed = sorted(c for c in hand if lay.red[c])
            else:
                allowed = sorted(hand)
            assert sorted(args[0] for _, args in legal) == allowed
        if steps % VIEW_EVERY == seed % VIEW_EVERY:
            check_views(lay, game, looks, fives)
        if steps == save_at:
            data = json.loads(json.dumps(game.to_json()))
            restored = RULES.load_game(data)
            assert restored.digest() == game.digest()
            assert restored.legal_labels() == game.legal_labels()
        if steps == clone_at:
            before = game.digest()
            clone = game.clone()
            clone._apply_unchecked(legal[-1])
            assert game.digest() == before and game.legal_actions() == [tuple(a) for a in legal]
            clone_digest = clone.digest()
        action = legal[rng.randrange(len(legal))]
        aid = action[0]
        if aid == lay.raise_:
            raises[me] += 1
            fives[me] += lay.power[action[1][0]] == 5
        elif aid in lay.looks:
            looks[me] += 1
        if restored is not None:
            after_save.append(action)
        game._apply_unchecked(action)
        check_cheap(lay, st)
    check_end(lay, game)
    check_views(lay, game, looks, fives)
    if restored is not None:
        for action in after_save:
            restored.apply(action)  # checked: each action is legal in the restored game too
        assert restored.is_over and restored.digest() == game.digest()
        assert restored.log_lines() == game.log_lines()
    if clone is not None:
        assert clone.digest() == clone_digest  # the original's moves left the clone alone
    return game


@pytest.mark.parametrize("players", [3, 4, 5])
def test_random_games_keep_the_invariants(players: int) -> None:
    extra = 0
    stats: Counter = Counter()
    for seed in range(GAMES):
        game = play_checked(players, seed, stats)
        extra += game.state.v[LAYOUTS[players].rounds_var] > ROUNDS[players]
    # Ties at the top do happen in random play: the extra-round path was exercised.
    assert 0 < extra < GAMES // 2
    # Every round reshuffles all the cards: the same Yomi twice in a row has chance 1 in
    # C(20, 5) = 15,504 (3 players), C(20, 4) = 4,845 (4), C(30, 5) = 142,506 (5).
    assert stats["rounds"] > GAMES * (ROUNDS[players] - 1)
    assert stats["same yomi"] <= stats["rounds"] // 500


def _choices(players: int, seed: int) -> Game:
    game = RULES.new_game(players=players, seed=seed)
    rng = random.Random(seed * 7 + 1)
    for _ in range(MAX_STEPS):
        if game.is_over:
            return game
        game._apply_unchecked(game._legal[rng.randrange(len(game._legal))])
    raise AssertionError(endless(players, seed))


@pytest.mark.parametrize("players", [3, 4, 5])
def test_same_seed_same_choices_same_log(players: int) -> None:
    for seed in range(0, GAMES, 25):
        first, second = _choices(players, seed), _choices(players, seed)
        assert first.log_lines() == second.log_lines()
        assert "\n".join(first.log_lines()).encode() == "\n".join(second.log_lines()).encode()
        assert first.digest() == second.digest()
    # ...and a different seed deals differently.
    assert _choices(players, 1).log_lines() != _choices(players, 2).log_lines()


def test_clone_is_independent() -> None:
    game = RULES.new_game(players=4, seed=3)
    lay = LAYOUTS[4]
    first = game.current_player
    d = game.digest()
    copy = game.clone()
    assert copy.digest() == d
    hand = list(game.state.z[lay.hand[first]])
    copy.apply("raise Nobori 4")  # the copy swaps its hand with its Yomi
    assert game.digest() == d
    assert game.state.z[lay.hand[first]] == hand and game.state.z[lay.raised[first]] == []
    after = copy.digest()
    game.apply("pass")
    assert copy.digest() == after
    assert sorted(copy.state.z[lay.yomi]) == sorted(hand)
    assert game.state.z[lay.raised[first]] == [] and len(copy.state.z[lay.raised[first]]) == 1


def test_save_load_inside_a_nobori_5_choice_and_at_the_end() -> None:
    """A save taken while an action waits for its follow-up choice resumes that choice."""
    game = RULES.new_game(players=5, seed=12)
    game.apply("raise Nobori 5")
    data = json.loads(json.dumps(game.to_json()))
    restored = RULES.load_game(data)
    assert restored.digest() == game.digest()
    assert restored.current_player == game.current_player
    assert restored.legal_labels() == game.legal_labels() and "look at the Yomi" in game.legal_labels()
    for g in (game, restored):
        g.apply("look at the Yomi")
    assert restored.view(restored.current_player) == game.view(game.current_player)
    me = game.state.log[-1][1]
    assert restored.view(me)["seen"] == game.view(me)["seen"] != []
    rng = random.Random(4)
    for _ in range(MAX_STEPS):
        if game.is_over:
            break
        label = rng.choice(game.legal_labels())
        game.apply(label)
        restored.apply(label)
    assert game.is_over, endless(5, 12)
    assert restored.digest() == game.digest() and restored.scores() == game.scores()
    final = RULES.load_game(json.loads(json.dumps(game.to_json())))
    assert final.is_over and final.digest() == game.digest() and final.winners() == game.winners()
