"""Determinization: one full state a player cannot tell from the real one, for a search that
must not read what its player may not see (information-set search).

What a player cannot see is the contents of the zones hidden from it and the chance still to
come. A determinization deals the components of the hidden zones afresh among those zones'
places (each kind among the places that kind fills now, so every zone keeps its size and its
count of each kind, which the rules' own bookkeeping may rely on) and draws a new seed for the
chance to come. Everything the player sees is left as it is, and so is every hidden component
whose place it knows:

- one a `reveal` showed it, still in the zone it was shown in;
- one it saw go in: its last move came from a zone the player can see into the hidden zone it
  is in (a card it gave the other player, a card put back on the deck), and that zone has not
  been shuffled since. The engine keeps, per component, the zone its last move came from
  (`State.f`, one store per move, -1 once its zone is shuffled); whether that zone is visible
  is judged now, so a zone whose visibility changed since (`visible ... if`) is judged as it
  is now. A move out of a hidden zone, even one into another hidden zone, forgets it: the
  player saw it go only if it saw where it was. Positions read from a file know no moves.

The deal depends only on what the player can see: the hidden components are taken in id order
before they are shuffled, so two states that differ only in hidden places give the same
determinization for the same `rng`.

The other seats' pending choices of a `turn together` (taken, not yet run) are drawn again
among their legal actions: the player has not seen them.

Not resampled, by decision:

- The changeable properties of components travel with their component: the deal redraws
  where each component is, so where a property's value lies is redrawn with it. Properties
  set while the player saw the component (the common case: the rules mark a card in play)
  are what it knows of that component; one set while the component was hidden is kept on
  that component, which the search then knows though the player does not. Dealing values by
  place instead would lose what the player knows of a component it saw marked, so rules that
  change a hidden component's property in secret should keep the secret in a hidden zone.
- Variables hidden from views (`visible nobody` / `visible owner`) are kept as they are: no
  distribution over their values is known, and a variable a player may not see is meant as the
  rules' own bookkeeping (whose turn a sub-step is, which step is being resolved), not a
  secret; a rules file says so beside such a variable. A secret belongs in a hidden zone,
  which is resampled.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from . import chance, simultaneous

if TYPE_CHECKING:
    from .engine import Game


def hidden_zones(game: Game, player: int) -> list[int]:
    """The zones whose contents `player` may not see now, in index order. Which zones are
    hidden whatever happens is worked out once per program and seat (a search asks often)."""
    always, sometimes = hidden_split(game.program, player)
    if not sometimes:
        return always
    return sorted(always + [zi for zi in sometimes if not game.zone_visible_to(zi, player)])


def hidden_split(program, player: int) -> tuple[list[int], list[int]]:
    """The zones hidden from `player` by their declaration: those hidden whatever happens, and
    those a `visible ... if` may open (judged in play), each in index order; kept per program."""
    cache = program.hidden_cache
    if player not in cache:
        from .engine import _grants

        shut = [zi for zi, info in enumerate(program.zones) if not _grants(info.visibility, info.owner, player)]
        cache[player] = ([zi for zi in shut if not program.zones[zi].rules],
                         [zi for zi in shut if program.zones[zi].rules])
    return cache[player]


def known_components(game: Game, player: int, hidden: list[int] | None = None) -> set[int]:
    """Components in hidden zones whose place `player` knows: those a `reveal` of their zone
    showed it, still in that zone, and those it saw go in, whose last move came from a zone it
    can see (`State.f`) into the hidden zone they are in, which has not been shuffled since.
    `hidden` is `hidden_zones(game, player)` when the caller has it."""
    st = game.state
    known: set[int] = set()
    for zi, comps in st.seen[player]:
        if zi >= 0:
            known.update(c for c in comps if st.w[c] == zi)
    shut = set(hidden_zones(game, player) if hidden is None else hidden)
    came = st.f
    for zi in shut:
        known.update(c for c in st.z[zi] if came[c] >= 0 and came[c] not in shut)
    return known


def determinize(game: Game, player: int, rng: random.Random | chance.Stream) -> Game:
    """A copy of `game` with what `player` cannot see drawn again at random (see the module's
    docstring); `game` itself is not changed. `rng` is the greedy agent's `random.Random` or the
    search's portable `chance.Stream`: both shuffle, give 64 bits and a `randrange`, and the
    Stream's draws are the ones the native search (native/c/rf_search.c) repeats."""
    out = game.clone()
    st = out.state
    kind_of = game.program.comp_kind
    hidden = hidden_zones(game, player)
    known = known_components(game, player, hidden)
    places: dict[object, list[tuple[int, int]]] = {}
    pool: dict[object, list[int]] = {}
    for zi in hidden:
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
    st.rng = chance.reseeded(st.rng, rng.getrandbits(64))  # the chance to come, of the game's own generator
    simultaneous.resample(out, player, rng)  # the others' pending choices of a `turn together`
    if pool:
        out._refresh_legal()
    return out
