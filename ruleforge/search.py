"""A search agent: information-set Monte Carlo tree search (`mcts:N`, N iterations a decision).

Each iteration first determinizes (`Game.determinize`): the hidden zones and the chance to come
are drawn again consistently with what the searching player has seen, so the search never reads
what its player may not see, and a game without hidden information is searched as it is. One
tree is shared by every determinization (single-observer IS-MCTS): a node's children are keyed
by action, and an action counts as available only in the iterations where it was legal, which
keeps UCT fair between actions that some deals do not offer.

What greedy's strength taught (its standing, the ranking key with what the final scorings would
give now, `ruleforge.standing`, is a good judge in these games), the search uses in three places,
as the literature on MCTS for card and board games does:

- *Progressive bias* at the root: the root's actions are judged once by the standing each gives
  at once; they are first tried best first, and UCT adds `bias * prior / (visits + 1)`, the
  prior being that standing's first ranking expression scaled to [0, 1] among them (their
  order when only the tie-breaks differ), a hint that fades as visits come.
- *Guided playouts*: each playout move is the best, by its mover's standing, of `guide` legal
  actions drawn at random (epsilon-greedy's cheap cousin), through the engine's fast path
  (`_legal`, `_apply_unchecked`). When the standing tells no root action apart (a card in a
  trick that scores at the round's end), playouts are uniform, since the guide would judge
  nothing and costs a clone per action looked at.
- *Cut playouts*: after `horizon` decisions a player the playout stops and the standings judge
  (`_estimate`: each player's lead over the best other's standing, squashed into (0, 1)); while
  no standing has changed since the root (a game that scores at a round's end) it plays on a
  round at a time, as greedy's playouts run to the next scoring. `horizon = None` plays to the
  end.

The reward of a finished game is, per player, its share of the win as `Game.winners` decides
(1, or 1/k for k winners, else 0) plus a small part for its ranking key's first expression
against the others', which tells apart the many playouts that every player loses early in a
long game. Every comparison follows the ranking: its direction ("fewest points wins" wants
fewer) and its tie-breaks. The final choice is the most visited
root action, ties broken by mean reward.

Every draw comes from a `chance.Stream` seeded with the agent's seed (its draws are written down in
docs/random.md), so that on a native game (`engine="native"`) the whole search runs in one call
into C (`native/search.py`, `native/c/rf_search.c`) and chooses exactly what this code chooses;
where the C search cannot be exact (a visibility that changes in play, a trap that is no rules
error), this code runs instead, from the same stream.
"""

from __future__ import annotations

import math

from . import chance
from .diagnostics import GameError
from .engine import Action, Game
from .standing import Key, Standing, first, lead

EXPLORATION = 0.7  # UCT's constant; rewards lie in [0, 1]
SCORE_PART = 0.1   # how much of a reward is the score, the rest being the win


class Node:
    """A tree node: reached by `player`'s action; `reward` is that player's total reward."""

    __slots__ = ("player", "children", "visits", "reward", "avail")

    def __init__(self, player: int | None):
        self.player = player
        self.children: dict[tuple, Node] = {}
        self.visits = 0
        self.reward = 0.0
        self.avail = 0


def rewards(game: Game) -> list[float]:
    """Each player's reward for a finished game: its win share, and a little for its ranking
    key's first expression (higher being better, as the ranking says)."""
    n = game.players
    winners = game.winners()
    out = [(1 - SCORE_PART) / len(winners) if p in winners else 0.0 for p in range(n)]
    marks = [first(k) for k in game.ranking_keys()]
    lo, hi = min(marks), max(marks)
    if hi > lo:
        for p in range(n):
            out[p] += SCORE_PART * (marks[p] - lo) / (hi - lo)
    return out


class MCTSAgent:
    """Information-set MCTS with `budget` iterations a decision, seeded (see the module)."""

    name = "mcts"
    horizon: int | None = 2   # playout decisions a player before the standing judges (None: to the end)
    guide: int = 2            # playout moves: the mover's best by standing of this many drawn (<= 1: uniform)
    bias: float = 1.0         # weight of the progressive bias from the standing at the root
    temper: float = 0.15      # the margin's scale in `_estimate`, as a share of the mean standing

    def __init__(self, seed: int = 0, budget: int = 200):
        self.rng = chance.Stream(seed)  # portable (docs/random.md): the native search draws the same numbers
        self.budget = budget
        self.last_root: Node | None = None  # the tree of the last decision, for tests and reports
        self._standing: Standing | None = None
        self._order: dict[Action, int] = {}
        self._prior: dict[Action, float] = {}
        self._guided = False  # whether the standing told the root's actions apart
        self._start: list[Key] = []  # each player's standing at the root

    def choose(self, game: Game) -> Action:
        actions = game.legal_actions()
        if len(actions) == 1:
            return actions[0]
        me = game.current_player
        assert me is not None, "choose() called on a finished game"
        from .native.search import search_natively

        chosen = search_natively(self, game, me, actions)
        if chosen is not None:  # the whole search run in C, as the rest of this method runs it
            return chosen
        root = Node(None)
        if self._standing is None or self._standing.program is not game.program:
            self._standing = Standing(game)
        self._first_tries(game, me, actions)
        self._start = self._standing.all(game)
        for _ in range(self.budget):
            try:
                self._iterate(root, game.determinize(me, self.rng))
            except GameError:  # a rule failed in a drawn deal (say, a local naming a hidden card)
                continue
        self.last_root = root

        def merit(a: Action) -> tuple[int, float]:
            node = root.children.get(a)
            return (-1, 0.0) if node is None else (node.visits, node.reward / max(node.visits, 1))

        best = max(actions, key=merit)
        if best not in root.children:  # every iteration failed: no evidence either way
            return actions[self.rng.below(len(actions))]
        return best

    def _first_tries(self, game: Game, me: int, actions: list[Action]) -> None:
        """Judge the root's actions by the standing each gives at once (as greedy does, on a
        determinization): the order in which they are first tried, best first, so that a budget
        smaller than the choice spends itself on the likeliest actions, and the progressive
        bias, each action's standing scaled to [0, 1] among them (its first ranking expression;
        the order of the keys when only the tie-breaks differ)."""
        base = game.determinize(me, self.rng)
        judge = self._standing
        assert judge is not None
        marks: list[tuple[Key, float, Action]] = []
        for action in actions:
            trial = base.clone()
            if action in trial._legal:
                trial._apply_unchecked(action)
            marks.append((judge.of(trial, me), self.rng.random(), action))
        marks.sort(key=lambda m: (m[0], -m[1]), reverse=True)  # best first, ties in a random order
        self._order = {action: rank for rank, (_k, _r, action) in enumerate(marks)}
        firsts = [first(k) for k, _r, _a in marks]
        low, span = min(firsts), max(firsts) - min(firsts)
        keys = sorted({k for k, _r, _a in marks})
        if span:
            self._prior = {action: (first(k) - low) / span for k, _r, action in marks}
        elif len(keys) > 1:
            place = {k: i / (len(keys) - 1) for i, k in enumerate(keys)}
            self._prior = {action: place[k] for k, _r, action in marks}
        else:
            self._prior = dict.fromkeys(actions, 1.0)
        self._guided = len(keys) > 1

    def _estimate(self, marks: list[Key]) -> list[float]:
        """Rewards of an unfinished game from each player's standing `marks`: its lead over
        the best other's (`lead`), squashed into (0, 1) on a scale of the standings' size, so
        that a lead counts as likelier a win the larger it is."""
        scale = max(1.0, self.temper * sum(abs(first(m)) for m in marks) / len(marks))
        out = []
        for p, m in enumerate(marks):
            out.append(1 / (1 + math.exp(-lead(m, marks[:p] + marks[p + 1:]) / scale)))
        return out

    def _playout(self, game: Game) -> list[float]:
        """Play on from `game` and reward each player. Each move is the best, by its mover's
        standing, of `guide` legal actions drawn at random (a cheap policy that plays towards
        points), or a uniform draw when the standing did not tell the root's actions apart.
        The playout stops at the game's end (`rewards`), or after `horizon` decisions a player
        once some standing has changed since the root (`_estimate`): while none has, as in a
        game that scores only at a round's end, the standings would judge nothing the decision
        did, so it plays on a round at a time."""
        rng = self.rng
        st = game.state
        players = game.players
        steps = -1 if self.horizon is None else self.horizon * players  # -1: no end but the game's
        k = self.guide if self._guided else 1
        judge = self._standing
        assert judge is not None
        while not st.over:
            if steps == 0:
                marks = judge.all(game)
                if marks != self._start:
                    return self._estimate(marks)
                steps = players
            legal = game._legal
            if k <= 1 or len(legal) == 1:
                game._apply_unchecked(legal[rng.below(len(legal))])
            else:
                mover = st.chooser
                best = None
                best_mark: Key | None = None
                for action in rng.sample(legal, min(k, len(legal))):
                    trial = game.clone()
                    trial._apply_unchecked(action)
                    mark = judge.of(trial, mover)
                    if best_mark is None or mark > best_mark:
                        best, best_mark = trial, mark
                assert best is not None
                game = best
                st = game.state
            steps -= 1
        return rewards(game)

    def _iterate(self, root: Node, game: Game) -> None:
        """One iteration on one determinization: select, expand one node, play out, back up."""
        rng = self.rng
        node = root
        path = [root]
        while not game.state.over:
            legal = game._legal
            untried = []
            for a in legal:
                child = node.children.get(a)
                if child is None:
                    untried.append(a)
                else:
                    child.avail += 1
            mover = game.state.chooser
            if untried:
                if node is root:
                    order = self._order
                    action = min(untried, key=lambda a: order.get(a, 0))
                else:
                    action = untried[rng.below(len(untried))]
                child = node.children[action] = Node(mover)
                child.avail = 1
                game._apply_unchecked(action)
                path.append(child)
                break
            if node is root and self.bias:
                prior, weight = self._prior, self.bias
                action = max(legal, key=lambda a: _uct(node.children[a]) + weight * prior.get(a, 0.0)
                             / (node.children[a].visits + 1))
            else:
                action = max(legal, key=lambda a: _uct(node.children[a]))
            node = node.children[action]
            game._apply_unchecked(action)
            path.append(node)
        result = self._playout(game)
        for visited in path[1:]:
            visited.visits += 1
            if visited.player is not None:
                visited.reward += result[visited.player]


def _uct(node: Node) -> float:
    if node.visits == 0:
        return math.inf
    return node.reward / node.visits + EXPLORATION * math.sqrt(math.log(max(node.avail, 1)) / node.visits)
