"""Restoring a saved state from JSON, checking every field so bad files fail clearly.

Every value is checked against what the rules say it is (a variable's declared type, a
property's, a seat, a component id, an action of the rules), so a state that passes can be
played on; a malformed one raises GameError naming the field: `saved state: 'v' entry 3
(variable score of P2) must be an integer`.
"""

from __future__ import annotations

from typing import Any

from . import chance, simultaneous
from .compiler import Program
from .diagnostics import GameError
from .model import ANY, PLAYER, Type
from .runtime import State

BIGGEST = (1 << 63) - 1
"""The counters of a saved state (seed, turn, steps) fit in 64 bits: larger was not written by a game."""
NUMBER_DIGITS = 4300
"""Digits of a number the rules may hold in a saved state: Python's own default bound for
converting between int and text (`sys.get_int_max_str_digits`), what JSON can carry."""
BIGGEST_VALUE = 10 ** NUMBER_DIGITS - 1

PLAIN_DEPTH = 4
"""Lists inside lists a local value may hold (a list of groups of components is 2)."""

LOG_KINDS = ("act", "say", "score", "skip", "chose")
SET_KINDS = ("int", "flag", "text")


def _fail(field: str, what: str) -> GameError:
    return GameError(f"saved state: '{field}' {what}")


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _int_problem(x: Any, low: int = -BIGGEST, high: int = BIGGEST) -> str | None:
    """What is wrong with `x` as a whole number in [low, high]; None if nothing."""
    if not _is_int(x):
        return f"must be an integer, not {_shown(x)}"
    if low <= x <= high:
        return None
    if not -BIGGEST <= x <= BIGGEST:
        return f"is too large: {_shown(x)}"
    if high >= BIGGEST:
        return f"must be {low} or more, not {x}"
    return f"is out of range: {x} (expected {low} to {high})"


def _value_int_problem(x: Any) -> str | None:
    """What is wrong with `x` as a number the rules hold: any whole number a JSON file of
    ruleforge's may hold (at most NUMBER_DIGITS digits; `write_json` refuses a longer one),
    so that every state saved loads again, whatever the rules computed."""
    if not _is_int(x):
        return f"must be an integer, not {_shown(x)}"
    if -BIGGEST_VALUE <= x <= BIGGEST_VALUE:
        return None
    return f"is too large: a number of more than {NUMBER_DIGITS:,} digits"


def _shown(x: Any) -> str:
    """A value in a message, cut short (a huge number or nested junk stays readable)."""
    try:
        text = repr(x)
    except ValueError:  # an int past Python's decimal conversion limit
        return f"a number of more than {NUMBER_DIGITS:,} digits"
    return text if len(text) <= 40 else text[:37] + "..."


def value_problem(prog: Program, t: Type, x: Any, depth: int = 0) -> str | None:
    """What is wrong with `x` as a value of type `t` in a game of `prog`; None if it fits.
    `None` (none: not set yet) fits every type, as the rules may assign it."""
    if x is None:
        return None
    k = t.kind
    if k in SET_KINDS:
        return _set_kind_problem(k, x)
    if k == "resume":
        return None if _is_int(x) and x in prog.decision_pos else \
            f"must be a position a decision returns to, not {_shown(x)}"
    if k == "player":
        return _int_problem(x, 0, prog.players - 1) and f"must be a seat, 0 to {prog.players - 1}, not {_shown(x)}"
    if k == "comp":
        last = len(prog.comp_kind) - 1
        if _int_problem(x, 0, last):
            return f"must be a component id, 0 to {last}, not {_shown(x)}"
        return None if not t.name or prog.comp_kind[x] == t.name else f"must be a {t.name}, not component {x}"
    if k == "zone":
        last = len(prog.zones) - 1
        return _int_problem(x, 0, last) and f"must be a zone index, 0 to {last}, not {_shown(x)}"
    if k == "enum":
        members = [m for m, _pos in prog.model.enums[t.name].members]
        return None if isinstance(x, str) and x in members else \
            f"must be one of {', '.join(members)}, not {_shown(x)}"
    if k == "list":
        if not isinstance(x, list):
            return f"must be a list, not {_shown(x)}"
        for i, item in enumerate(x):
            problem = value_problem(prog, t.element or ANY, item, depth + 1)
            if problem:
                return f"entry {i} {problem}"
        return None
    return plain_problem(x, depth)


def _set_kind_problem(kind: str, x: Any) -> str | None:
    """What is wrong with `x` as a number, a flag or a text."""
    if kind == "int":
        return _value_int_problem(x)
    if kind == "flag":
        return None if isinstance(x, bool) else f"must be true or false, not {_shown(x)}"
    return None if isinstance(x, str) else f"must be a text, not {_shown(x)}"


def option_problem(t: Type, x: Any, model: Any) -> str | None:
    """What is wrong with `x` as the value of an option of type `t`; None if it fits.
    Options are known before a program is compiled, so this needs only the model."""
    if x is None:
        return None
    k = t.kind
    if k == "enum":
        members = [m for m, _pos in model.enums[t.name].members]
        return None if isinstance(x, str) and x in members else \
            f"must be one of {', '.join(members)}, not {_shown(x)}"
    if k in SET_KINDS:
        return _set_kind_problem(k, x)
    if isinstance(x, list):
        return f"has type {t}, which cannot be set to a list"
    return plain_problem(x)


def plain_problem(x: Any, depth: int = 0) -> str | None:
    """What is wrong with `x` as a value of unknown type: a number, flag, text, none, or a
    list of those (not too deeply nested); None if nothing."""
    if x is None or isinstance(x, (bool, str)):
        return None
    if _is_int(x):
        return _value_int_problem(x)
    if isinstance(x, list):
        if depth >= PLAIN_DEPTH:
            return "is nested too deeply"
        for i, item in enumerate(x):
            problem = plain_problem(item, depth + 1)
            if problem:
                return f"entry {i} {problem}"
        return None
    return f"must be a number, true/false, a text, none or a list, not {_shown(x)}"


def _tuples(x: Any) -> Any:
    """JSON lists back to the tuples the engine uses inside log entries and locals."""
    if isinstance(x, list):
        return tuple(_tuples(i) for i in x)
    return x


def _list(data: dict, field: str, length: int | None = None) -> list:
    value = data.get(field)
    if not isinstance(value, list):
        raise _fail(field, "is missing" if value is None else f"must be a list, not {_shown(value)}")
    if length is not None and len(value) != length:
        raise _fail(field, f"must have {length} entries, not {len(value)}")
    return value


def _int(data: dict, field: str, low: int = -BIGGEST, high: int = BIGGEST) -> int:
    if field not in data:
        raise _fail(field, "is missing")
    problem = _int_problem(data[field], low, high)
    if problem:
        raise _fail(field, problem)
    return data[field]


def _seat(prog: Program, x: Any, field: str) -> int | None:
    """A seat or none."""
    problem = value_problem(prog, PLAYER, x)
    if problem:
        raise _fail(field, problem)
    return x


def var_types(prog: Program) -> list[Type]:
    """The declared type of each variable slot (the flags of `end` rules included)."""
    out = []
    for (name, _owner), kind in zip(prog.var_names, prog.var_kinds):
        decl = prog.model.vars.get(name)
        out.append(prog.compiler.ck.resolve_type(decl.type) if decl is not None else Type(kind))
    return out


def _var_name(prog: Program, i: int) -> str:
    name, owner = prog.var_names[i]
    return f"variable {name}" + ("" if owner is None else f" of P{owner + 1}")


# --- the fields ----------------------------------------------------------------------------


def _zones(prog: Program, data: dict) -> tuple[list[list[int]], list[int]]:
    zones = _list(data, "z", len(prog.zones))
    n_comps = len(prog.comp_kind)
    where = [-1] * n_comps
    for zi, zone in enumerate(zones):
        if not isinstance(zone, list):
            raise _fail("z", f"zone {zi} ({prog.zones[zi].key}) must be a list of component ids")
        for c in zone:
            if not _is_int(c) or not 0 <= c < n_comps:
                raise _fail("z", f"zone {zi} ({prog.zones[zi].key}) holds {_shown(c)}, "
                                 f"which is no component (0..{n_comps - 1})")
            if where[c] != -1:
                raise _fail("z", f"component {c} ({prog.comp_label[c]}) is in two places")
            where[c] = zi
    missing = [c for c in range(n_comps) if where[c] == -1]
    if missing:
        raise _fail("z", f"component {missing[0]} ({prog.comp_label[missing[0]]}) is nowhere")
    return [list(z) for z in zones], where


def _variables(prog: Program, data: dict) -> list:
    values = _list(data, "v", len(prog.var_names))
    for i, (t, x) in enumerate(zip(var_types(prog), values)):
        # a number, flag or text variable starts with a value (0, false, "") and keeps one
        problem = value_problem(prog, t, x) or ("must not be none" if x is None and t.kind in SET_KINDS else None)
        if problem:
            raise _fail("v", f"entry {i} ({_var_name(prog, i)}) {problem}")
    return [_copy(x) for x in values]


def _properties(prog: Program, data: dict) -> list[list]:
    n_comps = len(prog.comp_kind)
    props = _list(data, "p", len(prog.props))
    out = []
    for name, values in zip(prog.props, props):
        if not isinstance(values, list) or len(values) != n_comps:
            raise _fail("p", f"property {name} must be a list of {n_comps} values, one per component")
        t = prog.model.attr_types[name][0]
        for c, x in enumerate(values):
            problem = value_problem(prog, t, x)
            if problem:
                raise _fail("p", f"property {name} of component {c} ({prog.comp_label[c]}) {problem}")
        out.append([_copy(x) for x in values])
    return out


def _locals(prog: Program, values: Any, field: str, first: int = 0) -> list:
    """Locals kept across decisions (`first` is the slot of values[0]), each checked
    against the type of what its slot holds."""
    for i, x in enumerate(values):
        problem = value_problem(prog, prog.slot_types[first + i], x)
        if problem:
            raise _fail(field, f"entry {i} {problem}")
    return [_tuples(x) for x in values]


def _stack(prog: Program, data: dict) -> list[tuple]:
    frames = _list(data, "stack")
    out = []
    for i, frame in enumerate(frames):
        if not (isinstance(frame, list) and len(frame) == 3 and isinstance(frame[2], list)):
            raise _fail("stack", f"frame {i} must be [return position, first local, [locals]]")
        pc, start, values = frame
        if not _is_int(pc) or pc not in prog.decision_pos:
            raise _fail("stack", f"frame {i}: {_shown(pc)} is no position a decision returns to")
        problem = _int_problem(start, 0, prog.n_locals - len(values))
        if problem:
            raise _fail("stack", f"frame {i}: its first local {problem}")
        out.append((pc, start, _locals(prog, values, "stack", start)))
    return out


def _used(prog: Program, data: dict) -> dict:
    used = data.get("used", [])
    if not isinstance(used, list):
        raise _fail("used", f"must be a list of [action, scope, count] triples, not {_shown(used)}")
    out = {}
    for i, entry in enumerate(used):
        if not isinstance(entry, list) or len(entry) != 3:
            raise _fail("used", f"entry {i} must be an [action, scope, count] triple")
        aid, scope, count = entry
        problem = _int_problem(aid, 0, len(prog.actions) - 1)
        if problem is None and not prog.apply_records[aid][2]:
            problem = f"names action {aid}, which has no limit to count"
        problem = problem or _int_problem(scope, -prog.players) or _int_problem(count, 0)
        if problem:
            raise _fail("used", f"entry {i} {problem}")
        out[(aid, scope)] = count
    return out


def _seen(prog: Program, data: dict) -> list:
    seen = _list(data, "seen", prog.players)
    n_comps = len(prog.comp_kind)
    out = []
    for p, shown in enumerate(seen):
        if not isinstance(shown, list):
            raise _fail("seen", f"entry {p} (P{p + 1}) must be a list of [zone, [components]] pairs")
        mine = []
        for j, item in enumerate(shown):
            ok = isinstance(item, list) and len(item) == 2 and isinstance(item[1], list)
            ok = ok and _int_problem(item[0], -1, len(prog.zones) - 1) is None
            ok = ok and all(_int_problem(c, 0, n_comps - 1) is None for c in item[1])
            if not ok:
                raise _fail("seen", f"entry {p} (P{p + 1}) item {j} must be [zone index or -1, [component ids]]")
            mine.append([item[0], list(item[1])])
        out.append(mine)
    return out


def _log(prog: Program, data: dict) -> list[tuple]:
    log = data.get("log", [])
    if not isinstance(log, list):
        raise _fail("log", f"must be a list of entries, not {_shown(log)}")
    for i, entry in enumerate(log):
        problem = _log_problem(prog, entry)
        if problem:
            raise _fail("log", f"entry {i} {problem}")
    return [_tuples(e) for e in log]


def _log_problem(prog: Program, entry: Any) -> str | None:
    """What is wrong with one log entry; None if nothing."""
    if not isinstance(entry, list) or not entry or entry[0] not in LOG_KINDS:
        return f"must be a list starting with one of {', '.join(LOG_KINDS)}"
    kind, rest = entry[0], entry[1:]
    seat = value_problem(prog, PLAYER, rest[0]) if rest else "has no player"
    if kind in ("skip", "chose"):
        return None if len(rest) == 1 and seat is None and rest[0] is not None else f"must be [\"{kind}\", player]"
    if kind == "act":
        if len(rest) not in (3, 5) or seat or rest[0] is None or not isinstance(rest[2], list):
            return "must be [\"act\", player, action, [arguments]] (and its label and public label)"
        problem = _int_problem(rest[1], 0, len(prog.actions) - 1) or plain_problem(rest[2])
        if problem is None and len(rest) == 5:
            ok = isinstance(rest[3], str) and (rest[4] is None or isinstance(rest[4], str))
            problem = None if ok else "has labels that are not texts"
        return problem
    if kind == "say":
        if len(rest) != 2 or not isinstance(rest[1], list):
            return "must be [\"say\", template, [values]]"
        return (_int_problem(rest[0], 0, len(prog.log_templates) - 1) or plain_problem(rest[1])
                or _logged_values_problem(prog, prog.log_templates[rest[0]], rest[1]))
    # a scoring: its index and each player's points
    if len(rest) != 2 or not isinstance(rest[1], list) or len(rest[1]) != prog.players:
        return f"must be [\"score\", scoring, [points of each of {prog.players} players]]"
    return _int_problem(rest[0], 0, len(prog.scorings) - 1) or next(
        (f"points {p}" for x in rest[1] if (p := _int_problem(x))), None)


def _logged_values_problem(prog: Program, parts: list, values: list) -> str | None:
    """A log line's values against its template: a component, zone or seat it shows by number
    must be one of the game's (the line is rendered by looking the number up)."""
    kinds = [part[0] for part in parts if not isinstance(part, str)]
    if len(values) != len(kinds):
        return f"has {len(values)} values where its line shows {len(kinds)}"
    sizes = {"comp": len(prog.comp_label), "zone": len(prog.zones), "player": prog.players}
    for kind, value in zip(kinds, values):
        if kind in sizes and value is not None and (problem := _int_problem(value, 0, sizes[kind] - 1)):
            return f"a {kind} value {problem}"
    return None


def _decision(prog: Program, data: dict, st: State) -> None:
    """`pc`, `chooser`, `options`, `over`: where the flow stands and who decides."""
    over = data.get("over")
    if not isinstance(over, bool):
        raise _fail("over", "must be true or false")
    st.over = over
    st.pc = _int(data, "pc", 0, len(prog.blocks) - 1)
    opts = _list(data, "options")
    for a in opts:
        if _int_problem(a, 0, len(prog.actions) - 1):
            raise _fail("options", f"names {_shown(a)}, which is no action of the rules (0 to {len(prog.actions) - 1})")
    st.options = tuple(opts)
    st.chooser = _seat(prog, data.get("chooser"), "chooser")
    if over:
        return
    if st.pc not in prog.decision_pos:
        raise _fail("pc", f"{st.pc} is no position where the rules wait for a decision")
    if st.options not in prog.point_legal:
        raise _fail("options", "is no set of actions that any decision of these rules offers")
    if st.chooser is None:
        raise _fail("chooser", "must be the seat of the player to decide (the game is not over)")


def _locals_in_scope(prog: Program, st: State) -> None:
    """A loop's counters, a turn's player, a running action's player and arguments hold a
    value wherever the flow stands inside them (or stood: a return position kept in a local
    or a frame)."""
    if st.over:
        return
    here = {st.pc, *(frame[0] for frame in st.stack)}
    here.update(x for x, t in zip(st.l, prog.slot_types) if t.kind == "resume" and x is not None)
    for slot, (first, end) in prog.slot_scope.items():
        if st.l[slot] is None and any(first <= pc < end for pc in here):
            raise _fail("l", f"entry {slot} must be set: the game stands where the rules have given it a value")


def _copy(x: Any) -> Any:
    return [_copy(i) for i in x] if isinstance(x, list) else x


def _rng(data: dict, generator: str) -> int | tuple[int, int, int, int]:
    """The generator's state: for xoshiro256** four 64-bit numbers, not all 0 (it would draw
    nothing but 0), as the tuple the game keeps; for the legacy generator one 64-bit number."""
    if generator == chance.LEGACY:
        return _int(data, "rng", 0, (1 << 64) - 1)
    if "rng" not in data:
        raise _fail("rng", "is missing")
    words = data["rng"]
    if not isinstance(words, list) or len(words) != 4:
        raise _fail("rng", f"must be a list of four numbers (the state of {generator}), not {_shown(words)}")
    for i, word in enumerate(words):
        problem = _int_problem(word, 0, (1 << 64) - 1)
        if problem:
            raise _fail("rng", f"entry {i} {problem}")
    if not any(words):
        raise _fail("rng", f"must not be four zeros: {generator} would draw nothing but 0")
    return (words[0], words[1], words[2], words[3])


def state_from_json(prog: Program, data: Any, generator: str = chance.GENERATOR) -> State:
    """A State from the `state` part of a saved game whose chance comes from `generator`;
    GameError naming the first bad field."""
    if not isinstance(data, dict):
        raise GameError("saved state: 'state' must be an object")
    st = State()
    st.z, st.w = _zones(prog, data)
    st.f = [-1] * len(st.w)  # a position read from a file knows no moves
    for zi, info in enumerate(prog.zones):
        if info.capacity is not None and len(st.z[zi]) > info.capacity:
            raise _fail("z", f"zone {zi} ({info.key}) holds {len(st.z[zi])} components; its size is {info.capacity}")
    st.v = _variables(prog, data)
    st.p = _properties(prog, data)
    st.l = _locals(prog, _list(data, "l", prog.n_locals), "l")
    st.b = _list(data, "b", prog.players * len(prog.items))
    for i, x in enumerate(st.b):
        problem = _int_problem(x)
        if problem:
            raise _fail("b", f"entry {i} {problem}")
    st.b = list(st.b)
    st.stack = _stack(prog, data)
    st.rng = _rng(data, generator)
    st.turn = _int(data, "turn", 0)
    st.used = _used(prog, data)
    st.seen = _seen(prog, data)
    st.log = _log(prog, data)
    _decision(prog, data, st)
    st.sim = None if st.over else simultaneous.restore(prog, data.get("sim"), _fail)
    if st.sim is not None and (st.chooser != st.sim[0][st.sim[1]] or st.pc != st.sim[3]):
        raise _fail("sim", "must have the chooser at its index and resume where the rules wait ('pc')")
    _locals_in_scope(prog, st)
    st.opt = _options_played(prog, data)
    st.steps = _int(data, "steps", 0)
    return st


def _options_played(prog: Program, data: dict) -> list:
    """`opt`: the option values the game runs with, which are those the rules were compiled for."""
    opt = data.get("opt")
    if opt is None:
        return list(prog.option_values)
    if opt != prog.option_values:
        raise _fail("opt", f"must be the options' values {prog.option_values!r}, not {_shown(opt)}")
    return list(opt)


def check_game_header(rules_players: tuple[int, int], data: dict) -> tuple[int, int, dict | None, str]:
    """`players`, `seed`, `options` and `generator` of a saved game, checked: (players, seed,
    options, generator). A state without `generator` (format 1) was made with the legacy one."""
    lo, hi = rules_players
    players = data.get("players")
    if _int_problem(players, lo, hi):
        raise _fail("players", f"must be a number of players from {lo} to {hi}, not {_shown(players)}")
    seed = data.get("seed", 0)
    problem = _int_problem(seed)
    if problem:
        raise _fail("seed", problem)
    options = data.get("options")
    if options is not None and not isinstance(options, dict):
        raise _fail("options", f"must be an object of option name -> value, not {_shown(options)}")
    generator = data.get("generator", chance.LEGACY)
    if generator not in chance.GENERATORS:
        known = ", ".join(f'"{name}"' for name in chance.GENERATORS)
        raise _fail("generator", f"must be one of {known}, not {_shown(generator)}")
    return players, seed, options or None, generator


__all__ = ["check_game_header", "option_problem", "plain_problem", "state_from_json", "value_problem", "var_types"]
