"""Every limit ruleforge checks, in one place: its default, what it guards, how to raise it.

A limit turns what would otherwise hang, exhaust memory or fail deep inside Python (a
recursion limit, the interpreter's nesting limits) into a clear error that names the rules
file's line. `docs/limits.md` describes each one. A limit is raised for one run with an
environment variable, `RULEFORGE_MAX_<NAME>` (`RULEFORGE_MAX_COMPONENTS=500000`), or from
Python with `ruleforge.limits.raised(components=500_000)`; several commands also take a flag
for the limits of running a game (`--max-decisions`, `--max-skips`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import attrs

ENV_PREFIX = "RULEFORGE_MAX_"


@attrs.define
class Limits:
    """The limits in force. Field names are the `NAME` of `RULEFORGE_MAX_<NAME>`."""

    # --- reading and checking a rules file -------------------------------------------------
    extends_depth: int = 50  # files in a chain of `extends`, each extending the next
    file_bytes: int = 100_000_000  # bytes of a file named by another file or found in a folder
    errors_shown: int = 50  # diagnostics printed; the rest are counted ("and 12 more")
    expression_depth: int = 90  # expressions in expressions (generated code nests 2 brackets a level; Python: 200)
    block_depth: int = 12  # statement blocks inside blocks (Python allows 20 in generated code)
    phase_depth: int = 50  # phases calling phases, each inlined in its caller (Python recursion: 1000 frames)
    components: int = 100_000  # components of one game, all kinds together
    grid_cells: int = 10_000  # cells of one grid
    zones: int = 200_000  # zones of one game, every grid's cells counted
    players: int = 100  # the most players a game may be declared for (`players 2..N`)
    # --- running a game --------------------------------------------------------------------
    blocks_without_decision: int = 100_000  # rule steps between two decisions, rounds of a loop without one
    skips_in_a_row: int = 10_000  # decisions skipped one after another for want of a legal action
    decisions_per_game: int = 100_000  # decisions of one game (`--max-decisions`)
    choices: int = 100_000  # arguments one action is tried with at one decision
    search_iterations: int = 10_000  # iterations a decision of the search agent `mcts:N`
    # --- sizes of what the rules make ------------------------------------------------------
    compiled_statements: int = 200_000  # statements compiled for one player count (phases, triggers inlined)
    range_values: int = 1_000_000  # values of one range `a..b` in an expression (and of nested ones, together)
    list_items: int = 1_000_000  # items of a list made by joining lists (`a + b`)
    text_length: int = 1_000_000  # characters of a text made from other texts (`"{s}{s}"`)
    integer_digits: int = 1_000  # decimal digits of a product (`x * y`): a number squared at each turn
    # --- the tools around a game -----------------------------------------------------------
    counted_positions: int = 1_000_000  # positions a move count reaches, all depths; one counts file's entries together
    build_seconds: int = 900  # seconds the C compiler may take to build one module of the native engine
    compiled_source_bytes: int = 1_500_000  # bytes of the C source the native engine gives the C compiler
    lsp_document_chars: int = 500_000  # characters of a document the language server checks (a check: ~25 µs a char)
    observation_size: int = 10_000_000  # numbers in one RL observation (the seed games: at most 36,490; ~350 MB here)


def _from_environment(problems: list[str]) -> Limits:
    """The defaults, with `RULEFORGE_MAX_<NAME>` variables applied; a bad value is kept out
    and described in `problems` (the command line reports them; importing never fails)."""
    limits = Limits()
    for field in attrs.fields(Limits):
        name = ENV_PREFIX + field.name.upper()
        raw = os.environ.get(name)
        if raw is None:
            continue
        try:
            value = int(raw.strip().replace("_", ""))
        except ValueError:
            value = 0
        if value < 1:
            problems.append(f"{name} must be a positive whole number, not {raw!r}")
        else:
            setattr(limits, field.name, value)
    known = {ENV_PREFIX + f.name.upper() for f in attrs.fields(Limits)}
    for name in sorted(os.environ):
        if name.startswith(ENV_PREFIX) and name not in known:
            problems.append(f"{name} is no limit of ruleforge; limits: "
                            + ", ".join(sorted(n[len(ENV_PREFIX):] for n in known)))
    return limits


ENVIRONMENT_PROBLEMS: list[str] = []
"""Bad `RULEFORGE_MAX_*` variables found when ruleforge was imported."""

LIMITS = _from_environment(ENVIRONMENT_PROBLEMS)
"""The limits in force for this process; read where each limit is checked."""


def number_within(digits: str, most: int) -> int | None:
    """The whole number a file writes as `digits`, or None when it is past `most`: its length
    is checked before it is converted, so that no number of thousands of digits is ever made."""
    significant = digits.lstrip("0") or "0"
    if len(significant) > len(str(most)) or int(significant) > most:
        return None
    return int(significant)


def describe(name: str) -> str:
    """The end of a message about a limit: its value and how to raise it."""
    return f"limit {name} = {getattr(LIMITS, name):,}; raise it with {ENV_PREFIX}{name.upper()}"


@contextlib.contextmanager
def raised(**changes: int) -> Iterator[Limits]:
    """Change some limits inside a `with` block: `with raised(components=500_000): ...`."""
    old = attrs.asdict(LIMITS)
    for name in changes:
        if name not in old:
            raise TypeError(f"no limit named {name!r}; limits: {', '.join(old)}")
    try:
        for name, value in changes.items():
            setattr(LIMITS, name, value)
        yield LIMITS
    finally:
        for name, value in old.items():
            setattr(LIMITS, name, value)
