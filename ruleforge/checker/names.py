"""The built-in names of the language, and what a statement or expression may see (`Scope`)."""

from __future__ import annotations

import attrs

from ..model import (
    FLAG,
    INT,
    NONE,
    Type,
)

# Built-in functions over a collection or a generator `f(x for x in source if cond)`.
AGGREGATES = {"count", "sum", "min", "max", "any", "every", "first", "last", "argmax", "argmin",
              "distinct", "list", "sorted", "groups", "longest_paths"}
# Built-in functions with plain arguments: name -> (min args, max args).
FUNCTIONS = {"next": (1, 1), "prev": (1, 1), "random": (1, 1), "abs": (1, 1), "index": (1, 1),
             "zone_of": (1, 1), "cell": (3, 3), "cells": (1, 1), "row": (1, 1), "column": (1, 1),
             "adjacent": (1, 1), "top_of": (1, 1), "owner": (1, 1), "counted_as": (1, 1),
             "room": (1, 1), "capacity": (1, 1), "opposite": (1, 1), "neighbour": (2, 2),
             "rows": (1, 1), "columns": (1, 1),
             "span_rows": (1, 2), "span_columns": (1, 2)}
# Enums every rules file has: `side` names the four sides of a grid cell (paths through cells).
BUILTIN_ENUMS = {"side": ("north", "east", "south", "west")}
CONSTANTS = {"true": FLAG, "false": FLAG, "player_count": INT, "none": NONE}
# Kept by the engine for `end when` rules: an end was triggered / the last turn is over.
END_FLAGS = {"ending": FLAG, "finished": FLAG}
# Names compared by "did you mean" hints in one check, all hints together (under a second).
SUGGEST_BUDGET = 300_000
ZONE_SHAPES = {"pile", "hand", "row", "grid"}
DECLARATION_WORDS = {"game", "players", "extends", "option", "enum", "kind", "zone", "var", "def",
                     "components", "phase", "flow", "action", "when", "scoring", "ranking", "remove", "replace",
                     "display", "palette"}


@attrs.define
class Scope:
    """What a statement or expression may see: locals and whether `me` exists."""

    locals: dict[str, Type] = attrs.Factory(dict)
    has_me: bool = False
    in_action: str | None = None
    in_turn: bool = False
    pure: bool = False  # inside def/require/label/scoring: no chance, no effects
    setup: bool = False  # computed once when a game is set up: no state to read yet

    def child(self, **changes) -> Scope:
        return attrs.evolve(self, locals=dict(self.locals), **changes)


SETUP = Scope(pure=True, setup=True)

