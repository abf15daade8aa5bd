"""Restoring a saved state from JSON, checking every field so bad files fail clearly."""

from __future__ import annotations

from typing import Any

from .compiler import Program
from .diagnostics import GameError
from .runtime import State


def _fail(field: str, what: str) -> GameError:
    return GameError(f"saved state: '{field}' {what}")


def _int_list(data: dict, field: str, length: int | None = None) -> list[int]:
    value = data.get(field)
    if not isinstance(value, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in value):
        raise _fail(field, "must be a list of integers")
    if length is not None and len(value) != length:
        raise _fail(field, f"must have {length} entries, not {len(value)}")
    return list(value)


def _int(data: dict, field: str, low: int | None = None, high: int | None = None, optional: bool = False):
    value = data.get(field)
    if value is None and optional:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise _fail(field, "must be an integer")
    if (low is not None and value < low) or (high is not None and value >= high):
        raise _fail(field, f"is out of range: {value}")
    return value


def _tuples(x: Any) -> Any:
    """JSON lists back to the tuples the engine uses inside log entries."""
    if isinstance(x, list):
        return tuple(_tuples(i) for i in x)
    return x


def state_from_json(prog: Program, data: Any) -> State:
    if not isinstance(data, dict):
        raise GameError("saved state: 'state' must be an object")
    n_comps = len(prog.comp_kind)
    zones = data.get("z")
    if not isinstance(zones, list) or len(zones) != len(prog.zones):
        raise _fail("z", f"must be a list of {len(prog.zones)} zones")
    where = [-1] * n_comps
    for zi, zone in enumerate(zones):
        if not isinstance(zone, list):
            raise _fail("z", f"zone {zi} must be a list")
        for c in zone:
            if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c < n_comps:
                raise _fail("z", f"zone {zi} holds {c!r}, which is no component (0..{n_comps - 1})")
            if where[c] != -1:
                raise _fail("z", f"component {c} ({prog.comp_label[c]}) is in two places")
            where[c] = zi
    missing = [c for c in range(n_comps) if where[c] == -1]
    if missing:
        raise _fail("z", f"component {missing[0]} ({prog.comp_label[missing[0]]}) is nowhere")
    st = State()
    st.z = [list(z) for z in zones]
    st.w = where
    v = data.get("v")
    if not isinstance(v, list) or len(v) != len(prog.var_names):
        raise _fail("v", f"must be a list of {len(prog.var_names)} values")
    st.v = [list(x) if isinstance(x, list) else x for x in v]
    props = data.get("p")
    if not isinstance(props, list) or len(props) != len(prog.props) or \
            not all(isinstance(x, list) and len(x) == n_comps for x in props):
        raise _fail("p", f"must be {len(prog.props)} lists of {n_comps} values")
    st.p = [list(x) for x in props]
    locs = data.get("l")
    if not isinstance(locs, list) or len(locs) != prog.n_locals:
        raise _fail("l", f"must be a list of {prog.n_locals} values")
    st.l = [tuple(x) if isinstance(x, list) else x for x in locs]
    st.b = _int_list(data, "b", prog.players * len(prog.items))
    st.pc = _int(data, "pc", 0, len(prog.blocks))
    stack = data.get("stack")
    if not isinstance(stack, list) or not all(
            isinstance(f, list) and len(f) == 3 and isinstance(f[0], int) and isinstance(f[1], int)
            and isinstance(f[2], list) and 0 <= f[0] < len(prog.blocks)
            and 0 <= f[1] and f[1] + len(f[2]) <= prog.n_locals for f in stack):
        raise _fail("stack", "must be a list of [return position, first local, [locals]] frames")
    st.stack = [(f[0], f[1], [tuple(x) if isinstance(x, list) else x for x in f[2]]) for f in stack]
    st.rng = _int(data, "rng", 0, 1 << 64)
    st.turn = _int(data, "turn", 0)
    used = data.get("used", [])
    if not isinstance(used, list) or not all(isinstance(u, list) and len(u) == 3 for u in used):
        raise _fail("used", "must be a list of [action, scope, count] triples")
    st.used = {(u[0], u[1]): u[2] for u in used}
    seen = data.get("seen")
    if not isinstance(seen, list) or len(seen) != prog.players:
        raise _fail("seen", f"must be a list of {prog.players} lists")
    st.seen = [[[e[0], list(e[1])] for e in s] for s in seen]
    log = data.get("log", [])
    if not isinstance(log, list) or not all(isinstance(e, list) and e and isinstance(e[0], str) for e in log):
        raise _fail("log", "must be a list of entries")
    st.log = [_tuples(e) for e in log]
    st.chooser = _int(data, "chooser", 0, prog.players, optional=True)
    opts = _int_list(data, "options")
    if any(not 0 <= a < len(prog.actions) for a in opts):
        raise _fail("options", "names an action the rules do not have")
    st.options = tuple(opts)
    if st.options and st.options not in prog.point_legal:
        raise _fail("options", "is no set of actions that any decision of these rules offers")
    over = data.get("over")
    if not isinstance(over, bool):
        raise _fail("over", "must be true or false")
    st.over = over
    st.opt = list(data.get("opt") or prog.option_values)
    st.steps = _int(data, "steps", 0)
    return st
