"""Errors of the rules at play time, told at the rule they come from.

A rule that fails while a game runs raises a Python exception inside the generated code; these
turn it into a `GameError` naming the rule (`file:line:col`) from the traceback and the
program's line map, and say the limits' stops (a loop with no decision, no one able to act, a
game past its decisions) in the rules' terms.
"""

from __future__ import annotations

import traceback
from typing import Any

from . import runtime
from .ast import Pos
from .diagnostics import GameError
from .failed_operation import is_generated, marked_operation, none_message, none_operand, source_text
from .limits import LIMITS, describe


def where(pos: Pos | None) -> str:
    return "a rule" if pos is None else f"{pos.file}:{pos.line}:{pos.column}"


def runtime_error(program: Any, err: Exception, fallback: Pos | None = None) -> GameError:
    """A rule failed while running: the error names the rule from the traceback (else
    `fallback`, e.g. the decision whose options were being worked out)."""
    pos = None
    for frame in reversed(traceback.extract_tb(err.__traceback__)):
        if is_generated(frame.filename) and frame.lineno in program.line_map:
            pos = program.line_map[frame.lineno]
            break
    pos = pos or fallback
    mark = marked_operation(err.__traceback__, program.operand_map)
    if isinstance(err, runtime.OutOfRange):
        index, size = err.args
        at = mark[1][-1] if mark is not None and mark[0] == "[]" else pos
        return GameError(f"{where(at)}: list index {index} is out of range: the list has {size} "
                         f"item{'' if size == 1 else 's'} (they count from 0)", at)
    if isinstance(err, TypeError) and "NoneType" in str(err) and mark is not None:
        operand = none_operand(err, mark)
        if operand is not None:
            checker = getattr(program.compiler, "ck", None)
            shown = source_text(operand, checker.sources if checker is not None else {})
            return GameError(f"{where(operand)}: {none_message(mark[0], shown)}", operand)
    if isinstance(err, runtime.TooManyChoices):
        return GameError(f"{where(pos)}: this parameter has more than {LIMITS.choices:,} values to try "
                         f"({describe('choices')})", pos)
    if isinstance(err, runtime.TooManyRounds):
        count, limit = err.args
        return GameError(f"{where(pos)}: this loop would run {count:,} rounds ({describe(limit)})", pos)
    if isinstance(err, runtime.TooLarge):
        return GameError(f"{where(pos)}: {err}", pos)
    if isinstance(err, runtime.NoTableEntry):
        return GameError(f"{where(pos)}: a table here has no entry for {runtime.show(err.args[0])} (add that key, "
                         "a 'k+' key or 'else')", pos)
    if isinstance(err, runtime.EndlessLoop):
        rounds = LIMITS.blocks_without_decision
        return GameError(f"{where(pos)}: this loop ran {rounds:,} rounds without a decision: it never ends "
                         f"({describe('blocks_without_decision')})", pos)
    if isinstance(err, TypeError) and "NoneType" in str(err):
        return GameError(f"{where(pos)}: a value here is none where the rule needs one (a cell outside "
                         f"the grid, an empty zone's top, an unset variable?) ({type(err).__name__}: {err})", pos)
    return GameError(f"{where(pos)}: runtime error: {type(err).__name__}: {err}", pos)


def no_one_can_act(pos: Pos | None, skipped: int) -> GameError:
    """Every decision for a long while was skipped for want of a legal action."""
    return GameError(f"{where(pos)}: no player has had a legal action for {skipped:,} decisions in a row: "
                     f"the game cannot go on ({describe('skips_in_a_row')})", pos)


def endless_loop(pos: Pos | None) -> GameError:
    """The rules ran the limit of steps without reaching a decision: `pos` names a rule of the loop."""
    steps = LIMITS.blocks_without_decision
    return GameError(f"{where(pos)}: the rules ran {steps:,} steps without a decision: this loop never ends "
                     f"({describe('blocks_without_decision')})", pos)


def block_pos(program: Any, st: Any, pc: int) -> Pos | None:
    """The first rule position found in block `pc` or in the blocks it goes on to (a
    loop's head block may have none of its own). Runs blocks: only for an error report."""
    for _ in range(1000):
        code = program.blocks[pc].__code__
        for _start, _end, line in code.co_lines():
            if line in program.line_map:
                return program.line_map[line]
        try:
            pc = program.blocks[pc](st)
        except Exception:
            return None
        if pc < 0:
            return None
    return None


def too_many_decisions(pos: Pos | None) -> GameError:
    limit = LIMITS.decisions_per_game
    return GameError(f"{where(pos)}: the game has had {limit:,} decisions and is not over: it stops here "
                     f"({describe('decisions_per_game')})", pos)
