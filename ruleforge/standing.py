"""How a player stands, judged as the rules rank players: what greedy and the search compare.

A player's *standing* is its ranking key (`Game.ranking_keys`: the `ranking`'s expressions,
compared as tuples, higher better, so "fewest points wins" is followed) as it would be if the
game ended now: while the game runs, what the `final` scorings would give the player is added,
for the look, to the variables the rules score them into (`score S into v`), the key is read,
and the variables are put back. A game without `final` scorings is judged by its key alone.
"""

from __future__ import annotations

from .declared import final_targets
from .engine import Game

Key = tuple[int, ...]


class Standing:
    """The standing of the players of one program (see the module). Made once per agent and
    program: finding the final scorings' variables walks the rules."""

    def __init__(self, game: Game):
        prog = game.program
        self.program = prog
        self.finals = [(prog.score_funcs[name], prog.var_base[into]) for name, into in final_targets(prog.model)]

    def of(self, game: Game, player: int) -> Key:
        """`player`'s standing: its ranking key with its own final scorings' points added now."""
        prog = game.program
        st = game.state
        if not self.finals or st.over:
            try:
                return tuple(prog.rank_func(st, player))
            except Exception as err:
                raise game._runtime_error(err) from None
        v = st.v
        added: list[tuple[int, int]] = []
        try:
            for func, base in self.finals:
                points = func(st, player)[1]
                v[base + player] += points
                added.append((base + player, points))
            return tuple(prog.rank_func(st, player))
        except Exception as err:
            raise game._runtime_error(err) from None
        finally:
            for slot, points in added:
                v[slot] -= points

    def all(self, game: Game) -> list[Key]:
        """Every player's standing, by seat."""
        return [self.of(game, p) for p in range(game.players)]


def lead(mine: Key, others: list[Key]) -> float:
    """How far `mine` is ahead of the best of `others` (behind: negative), in the ranking's
    first expression; a tie there broken by the later ones counts half a point either way."""
    if not others:
        return 0.0
    rival = max(others)
    gap = float(mine[0] - rival[0]) if mine and rival else 0.0
    if gap == 0 and mine != rival:
        return 0.5 if mine > rival else -0.5
    return gap


def first(key: Key) -> int:
    """The ranking's first expression: the one whose size a margin measures."""
    return key[0] if key else 0
