"""Checked rules to generated Python: one module per player count, compiled once.

Expressions become Python expressions; statements become small functions ("blocks"),
each returning the index of the next block. A decision point ends a block, so the
whole position of a running game is an index and a few lists: nothing walks the
syntax tree while a game runs, and a state clones and saves as plain data.
Generated lines carry `# file:line` comments, so a runtime error can name its rule.

The parts: `program` (what the engine reads), `layout`, `statements`, `actions`, `scoring`,
`expressions`, and `core`, the driver that runs them in order.
"""

from .core import Compiler, check_setup, compile_program
from .program import ActionInfo, Env, Program, ZoneInfo

__all__ = ["ActionInfo", "Compiler", "Env", "Program", "ZoneInfo", "check_setup", "compile_program"]
