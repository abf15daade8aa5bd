"""The search agent's decisions (`ruleforge.search.MCTSAgent`) run whole in C on a native game.

`search_natively` hands one decision to the module's `search` (c/rf_search.c): the
determinizations, the tree, UCT with the progressive bias, the guided and cut playouts and the
rewards, with the same draws from the agent's `chance.Stream` and the same floating-point
operations in the same order, so it chooses what the Python search chooses. It answers None
where C cannot be exact (the Python search then runs from the same stream, and the game hands
over to the reference engine as that search reads it):

- a game not on the native engine, an agent whose steps are not MCTSAgent's own (a subclass's
  playouts), or a module whose rules the search cannot read (`reveal`s
  too many to keep, a final scoring of another shape: `search_ready`);
- a zone whose visibility a `visible ... if` may change in play, hidden from the seat;
- in C, a trap that is no rules error (a capacity, an overflow Python's ints would not meet), a
  ranking key with none or a number past 2**53 (whose comparisons or floats Python would treat
  otherwise), an empty list of legal actions after a determinization.
"""

from __future__ import annotations

import weakref
from array import array
from typing import TYPE_CHECKING

from .. import chance
from ..determinize import hidden_split
from ..runtime import Action
from .game import NativeGame

if TYPE_CHECKING:
    from ..search import MCTSAgent

_STEPS = ("_first_tries", "_estimate", "_playout", "_iterate")  # what the C search does as MCTSAgent does
_PLANS: dict[int, tuple[weakref.ref, dict[int, tuple[bytes, bytes] | None]]] = {}


def _plan(program, me: int) -> tuple[bytes, bytes] | None:
    """What the C search needs of the seat, made once per program and seat: each component's
    kind (numbered as first met) and the zones hidden from the seat; None when one of them may be
    opened in play."""
    held = _PLANS.get(id(program))
    if held is None or held[0]() is not program:
        held = _PLANS[id(program)] = (weakref.ref(program), {})
    plans = held[1]
    if me not in plans:
        always, sometimes = hidden_split(program, me)
        if sometimes:
            plans[me] = None
        else:
            numbers: dict = {}
            kinds = array("i", (numbers.setdefault(k, len(numbers)) for k in program.comp_kind))
            plans[me] = (kinds.tobytes(), array("i", always).tobytes())
    return plans[me]


def can_search(program, engine, me: int) -> bool:
    """Whether the search of seat `me` can run in C on this program's native engine (`engine`):
    the module searches, and no zone hidden from the seat may open in play."""
    module = engine.module
    return hasattr(module, "search") and bool(module.search_ready()) and _plan(program, me) is not None


def search_natively(agent: MCTSAgent, game, me: int, actions: list[Action]) -> Action | None:
    """`agent`'s choice among `actions` (the legal actions, by the module's order), searched in C;
    None where the Python search must run instead (see the module)."""
    from ..search import EXPLORATION, SCORE_PART, MCTSAgent, Node

    if not isinstance(game, NativeGame) or not game.on_native or type(agent.rng) is not chance.Stream:
        return None
    if any(getattr(type(agent), name) is not getattr(MCTSAgent, name) or name in vars(agent) for name in _STEPS):
        return None  # a search changed in Python (a subclass's playouts, say): C would not follow it
    module = game._engine.module
    if not hasattr(module, "search") or not module.search_ready():
        return None
    plan = _plan(game.program, me)
    if plan is None:
        return None
    horizon = -1 if agent.horizon is None else int(agent.horizon)
    found = module.search(game._buf, me, int(agent.budget), horizon, int(agent.guide), float(agent.bias),
                          float(agent.temper), EXPLORATION, SCORE_PART, agent.rng.words, plan[0], plan[1])
    if found is None:
        return None
    k, words, children = found
    agent.rng.words = words
    root = Node(None)
    for id_, player, visits, reward, avail in children:  # in the order the Python tree's dict holds them
        node = root.children[game._engine.action(id_)] = Node(player)
        node.visits, node.reward, node.avail = visits, reward, avail
    agent.last_root = root
    return actions[k]
