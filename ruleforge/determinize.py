"""Determinization: one full state a player cannot tell from the real one, for a search that
must not read what its player may not see (information-set search).

What a player cannot see is the contents of the zones hidden from it and the chance still to
come. A determinization deals the components of the hidden zones afresh among those zones'
places (each kind among the places that kind fills now, so every zone keeps its size and its
count of each kind, which the rules' own bookkeeping may rely on), keeps where it is every
component a `reveal` showed the player and that is still in the zone it was shown in, and
draws a new seed for the chance to come. Everything the player sees is left as it is.

The deal depends only on what the player can see: the hidden components are taken in id order
before they are shuffled, so two states that differ only in hidden places give the same
determinization for the same `rng`.

Not resampled: variables hidden from views (the rules' bookkeeping keeps them as they are) and
the changeable properties of hidden components (they travel with their component).
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .engine import Game


def hidden_zones(game: Game, player: int) -> list[int]:
    """The zones whose contents `player` may not see now, in index order. Which zones are
    hidden whatever happens is worked out once per program and seat (a search asks often)."""
    cache = game.program.hidden_cache
    if player not in cache:
        from .engine import _grants

        shut = [zi for zi, info in enumerate(game.program.zones) if not _grants(info.visibility, info.owner, player)]
        cache[player] = ([zi for zi in shut if not game.program.zones[zi].rules],
                         [zi for zi in shut if game.program.zones[zi].rules])
    always, sometimes = cache[player]
    if not sometimes:
        return always
    return sorted(always + [zi for zi in sometimes if not game.zone_visible_to(zi, player)])


def known_components(game: Game, player: int) -> set[int]:
    """Components `player` was shown by a `reveal` of their zone, still in that zone: the
    player knows where they are though the zone is hidden."""
    st = game.state
    known: set[int] = set()
    for zi, comps in st.seen[player]:
        if zi >= 0:
            known.update(c for c in comps if st.w[c] == zi)
    return known


def determinize(game: Game, player: int, rng: random.Random) -> Game:
    """A copy of `game` with what `player` cannot see drawn again at random (see the module's
    docstring); `game` itself is not changed."""
    out = game.clone()
    st = out.state
    kind_of = game.program.comp_kind
    known = known_components(game, player)
    places: dict[object, list[tuple[int, int]]] = {}
    pool: dict[object, list[int]] = {}
    for zi in hidden_zones(game, player):
        for i, c in enumerate(st.z[zi]):
            if c not in known:
                kind = kind_of[c]
                places.setdefault(kind, []).append((zi, i))
                pool.setdefault(kind, []).append(c)
    for kind, comps in pool.items():
        comps.sort()  # what the player cannot see must not order the deal
        rng.shuffle(comps)
        for (zi, i), c in zip(places[kind], comps):
            st.z[zi][i] = c
            st.w[c] = zi
    st.rng = rng.getrandbits(64)
    if pool:
        out._refresh_legal()
    return out
