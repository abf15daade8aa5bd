"""The whole table: a view of the true state, every zone shown, for a replay or a position.

`game.view(None)` is a spectator's view: hidden zones stay sizes. A replay file, read after
the game, or a position written by hand, wants everything, in the same form as a view so that
the same pictures draw it. `table_view` asks the engine's own `view` of a game whose every
zone is visible (a subclass sharing the game's program and state, read only; the game itself
is not changed, so this is safe while other threads read it), and adds the variables only
their owner sees from each seat's own view. Variables the rules show to nobody stay out.
"""

from __future__ import annotations

from typing import Any

from ..engine import Game


class _OpenTable(Game):
    """The same game with every zone visible to everyone (only for reading a view)."""

    __slots__ = ()

    def zone_visible_to(self, zi: int, player: int | None) -> bool:
        return True


def table_view(game: Game) -> dict[str, Any]:
    """The view of everything (`viewer` "table"): every zone's labels, properties included."""
    opened = object.__new__(_OpenTable)
    for slot in Game.__slots__:
        if hasattr(game, slot):
            setattr(opened, slot, getattr(game, slot))
    view = opened.view(None, properties=True)
    for seat in range(game.players):
        for key, value in game.view(seat)["vars"].items():
            view["vars"].setdefault(key, value)
    view["viewer"] = "table"
    return view
