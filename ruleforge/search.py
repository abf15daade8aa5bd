"""A search agent: information-set Monte Carlo tree search (`mcts:N`, N iterations a decision).

Each iteration first determinizes (`Game.determinize`): the hidden zones and the chance to come
are drawn again consistently with what the searching player has seen, so the search never reads
what its player may not see, and a game without hidden information is searched as it is. One
tree is shared by every determinization (single-observer IS-MCTS): a node's children are keyed
by action, and an action counts as available only in the iterations where it was legal, which
keeps UCT fair between actions that some deals do not offer. Playouts are uniformly random to
the game's end, through the engine's fast path (`_legal`, `_apply_unchecked`).

The reward of a finished game is, per player, its share of the win (1, or 1/k for k winners,
else 0) plus a small part for its score against the others', which tells apart the many
playouts that every player loses early in a long game.
"""

from __future__ import annotations

import math
import random

from .diagnostics import GameError
from .engine import Action, Game
from .scoresheet import final_scorings

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
    """Each player's reward for a finished game: its win share, and a little for its score."""
    n = game.players
    winners = game.winners()
    out = [(1 - SCORE_PART) / len(winners) if p in winners else 0.0 for p in range(n)]
    totals = game.totals()
    lo, hi = min(totals), max(totals)
    if hi > lo:
        for p in range(n):
            out[p] += SCORE_PART * (totals[p] - lo) / (hi - lo)
    return out


class MCTSAgent:
    """Information-set MCTS with `budget` iterations a decision, seeded (see the module)."""

    name = "mcts"
    horizon: int | None = None  # playout decisions before the standing judges (None: to the end)

    def __init__(self, seed: int = 0, budget: int = 200):
        self.rng = random.Random(seed)
        self.budget = budget
        self.last_root: Node | None = None  # the tree of the last decision, for tests and reports
        self._finals: list[str] | None = None
        self._order: dict[Action, int] = {}

    def choose(self, game: Game) -> Action:
        actions = game.legal_actions()
        if len(actions) == 1:
            return actions[0]
        me = game.current_player
        assert me is not None, "choose() called on a finished game"
        root = Node(None)
        self._order = self._first_tries(game, me, actions)
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
            return actions[self.rng.randrange(len(actions))]
        return best

    def _first_tries(self, game: Game, me: int, actions: list[Action]) -> dict[Action, int]:
        """The order in which the root's actions are first tried: by the standing each gives
        at once (as greedy judges, on a determinization), best first, so that a budget smaller
        than the choice spends itself on the likeliest actions."""
        from .agents import standing

        if self._finals is None:
            self._finals = final_scorings(game.program.model)
        base = game.determinize(me, self.rng)
        marks = []
        for action in actions:
            trial = base.clone()
            if action in trial._legal:
                trial._apply_unchecked(action)
            marks.append((-standing(trial, me, self._finals), self.rng.random(), action))
        return {action: rank for rank, (_m, _r, action) in enumerate(sorted(marks))}

    def _estimate(self, game: Game) -> list[float]:
        """Rewards of an unfinished game, as if it ended with each player's standing now."""
        from .agents import standing

        if self._finals is None:
            self._finals = final_scorings(game.program.model)
        marks = [standing(game, p, self._finals) for p in range(game.players)]
        top = max(marks)
        leaders = marks.count(top)
        out = [(1 - SCORE_PART) / leaders if m == top else 0.0 for m in marks]
        lo = min(marks)
        if top > lo:
            for p, m in enumerate(marks):
                out[p] += SCORE_PART * (m - lo) / (top - lo)
        return out

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
                    action = untried[rng.randrange(len(untried))]
                child = node.children[action] = Node(mover)
                child.avail = 1
                game._apply_unchecked(action)
                path.append(child)
                break
            action = max(legal, key=lambda a: _uct(node.children[a]))
            node = node.children[action]
            game._apply_unchecked(action)
            path.append(node)
        st = game.state
        steps = -1 if self.horizon is None else self.horizon  # -1: no end but the game's
        while not st.over and steps != 0:
            legal = game._legal
            game._apply_unchecked(legal[rng.randrange(len(legal))])
            steps -= 1
        result = rewards(game) if st.over else self._estimate(game)
        for visited in path[1:]:
            visited.visits += 1
            if visited.player is not None:
                visited.reward += result[visited.player]


def _uct(node: Node) -> float:
    if node.visits == 0:
        return math.inf
    return node.reward / node.visits + EXPLORATION * math.sqrt(math.log(max(node.avail, 1)) / node.visits)
