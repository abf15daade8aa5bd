"""ruleforge: write a tabletop game's rules as text, then check, play and simulate them.

The names below are imported on first use (PEP 562): `import ruleforge` costs nothing, so the
command line starts its Ctrl-C handling before the parser, the compiler and the engine are
imported (ruleforge/__main__.py)."""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .diagnostics import GameError, RulesError
    from .engine import Action, ActionParts, Game
    from .inspection import ComponentInfo, Decision
    from .rules import Rules, load

_HOMES = {"GameError": "diagnostics", "RulesError": "diagnostics", "Action": "engine", "ActionParts": "engine",
          "Game": "engine", "Rules": "rules", "load": "rules", "ComponentInfo": "inspection",
          "Decision": "inspection"}

__all__ = ["Action", "ActionParts", "ComponentInfo", "Decision", "Game", "GameError", "Rules", "RulesError", "load"]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        value = getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
    elif not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        # a submodule, `ruleforge.engine`, as when this file imported them
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
