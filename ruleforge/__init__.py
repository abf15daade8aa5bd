"""ruleforge: write a tabletop game's rules as text, then check, play and simulate them."""

from .diagnostics import GameError, RulesError
from .engine import Action, ActionParts, Game
from .rules import Rules, load

__all__ = ["Action", "ActionParts", "Game", "GameError", "Rules", "RulesError", "load"]
__version__ = "0.1.0"
