"""Names, types and arity: finds every error in a rules file at once.

The checker also records, for every expression, its type and what each name refers to;
the compiler reads those records instead of resolving names a second time. Its parts:
`names` (built-ins, scopes), `declarations`, `statements`, `expressions`, and `core`, the
driver that runs them in order.
"""

from .core import Checker, check
from .names import (
    AGGREGATES,
    BUILTIN_ENUMS,
    CONSTANTS,
    DECLARATION_WORDS,
    END_FLAGS,
    FUNCTIONS,
    SETUP,
    SUGGEST_BUDGET,
    ZONE_SHAPES,
    Scope,
)
from .statements import sub_blocks

__all__ = ["AGGREGATES", "BUILTIN_ENUMS", "CONSTANTS", "DECLARATION_WORDS", "END_FLAGS", "FUNCTIONS", "SETUP",
           "SUGGEST_BUDGET", "ZONE_SHAPES", "Checker", "Scope", "check", "sub_blocks"]
