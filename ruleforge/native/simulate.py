"""`simulate` with random agents on the native engine: whole games played and counted in C.

`count_natively` plays a run of seeds in C (rf_simulate.c) and adds what it counted to a
`Tally` (ruleforge/balance/stats.py) exactly as the games' records would have: the same wins,
totals, items, lengths, branching, actions, choices, triggers, margins and measures, so the
summary is the reference engine's, number for number. No Python object is made per game. A game
the native engine does not finish (a trap, the decision limit) is handed back by seed, and the
caller plays it on the reference engine, which makes its record or says why it failed.

What a choice is called (its label) is counted in C by a key: the seat, the action's id and the
values its label reads of the state (native/choice_keys.py); Python renders each distinct key
once, with the label's own tree. Rules whose labels cannot be split so are counted on the
reference engine, and `native_counting` says why.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..balance.records import LABELS_KEPT, names_of
from ..balance.stats import Tally, _named
from ..diagnostics import GameError
from ..engine import Game
from .engine import NativeEngine, NativeRefused, built_limits, native_engine


class Counting:
    """A program's native engine with what counting its games needs: the measures' and items'
    names, and each choice key's label, rendered once."""

    def __init__(self, program: Any, engine: NativeEngine):
        self.program = program
        self.engine = engine
        self.names = names_of(program)
        self.items = list(dict.fromkeys(label for _, label in program.items))
        self.measures = [name for name, _pos, _f in program.measures]
        self.labels: dict[tuple, str] = {}
        self.state = Game(program, 0).state  # what a template is given for the state: it reads none of it
        self.templates = {aid: template.compiled(program.namespace)
                          for aid, template in engine.label_templates.items()}
        self.kinds = {aid: template.kinds for aid, template in engine.label_templates.items()}

    def label(self, key: tuple) -> str:
        """The label of a choice key (seat, action id, its label's values): the words the
        reference engine logs for that choice. GameError when the label fails there too."""
        label = self.labels.get(key)
        if label is None:
            me, id_, *holes = key
            aid, args = self.engine.action(id_)
            template = self.templates.get(aid)
            try:
                if template is None:
                    label = self.program.label_funcs[aid](self.state, me, args)
                else:
                    values = [self.engine.value(h, kind) for h, kind in zip(holes, self.kinds[aid])]
                    label = template(self.state, me, args, values)
            except Exception as err:
                raise GameError(f"the label of a choice failed ({type(err).__name__})") from None
            if len(self.labels) < LABELS_KEPT:
                self.labels[key] = label
        return label


def native_counting(program: Any) -> Counting:
    """What counting `program`'s games natively needs; NativeRefused says why it cannot be."""
    engine = native_engine(program)
    if engine.limits != built_limits():
        raise NativeRefused("the native engine was built under other limits of a game's length")
    if engine.choice_keys_refused is not None:
        raise NativeRefused(f"the native engine does not count the choices of these rules yet "
                            f"({engine.choice_keys_refused})")
    return Counting(program, engine)


def count_natively(counting: Counting, tally: Tally, first_seed: int, games: int) -> list[int]:
    """Play games `first_seed`.. natively and count them into `tally`; the seeds it did not
    finish, for the reference engine."""
    (counted, left, wins, shared, ties, first, first_won, taken, legal, fired, choices,
     (branching_sum, decisions, branching_max, branching), columns) = counting.engine.module.simulate(
        first_seed, games)
    if not counted:
        return left
    try:
        labelled = [(counting.label(key), n) for key, n in choices]
    except GameError:  # a label the reference engine fails on: it plays these games, and says so
        return list(range(first_seed, first_seed + games))
    players = counting.program.players
    names = counting.names
    tally.games += counted
    tally.ties += ties
    for p in range(players):
        tally.wins[p] += wins[p]
        tally.shared[p] += shared[p]
        _add(tally.totals[p], columns[p])
    tally.items.update(dict.fromkeys(counting.items))
    n_items = len(counting.items)
    for p in range(players):
        for g, label in enumerate(counting.items):
            _add(_named(tally.points[p], label), columns[players + p * n_items + g])
    at = players + players * n_items
    _add(tally.decisions, columns[at])
    _add(tally.turns, columns[at + 1])
    _add(tally.margins, columns[at + 2])
    for m, name in enumerate(counting.measures):
        _add(_named(tally.measures, name), columns[at + 3 + m])
    if "rounds" in counting.measures:
        _add(tally.rounds, columns[at + 3 + counting.measures.index("rounds")])
    else:
        tally.rounds_missing = True
    _add(tally.per_game_branching, branching)
    tally.all_decisions += decisions
    tally.branching_sum += branching_sum
    if tally.branching_max is None or branching_max > tally.branching_max:
        tally.branching_max = branching_max
    for into, counts, labels in ((tally.taken, taken, names.actions), (tally.legal, legal, names.actions)):
        for label, n in zip(labels, counts):
            if n:
                into[label] = into.get(label, 0) + n
    for label, n in labelled:
        tally.choices[label] = tally.choices.get(label, 0) + n
    for trigger, n in zip(names.triggers, fired):
        tally.fired[trigger] = tally.fired.get(trigger, 0) + n
    for p in range(players):
        if first[p]:
            seat = names.players[p]
            tally.first_counts[seat] = tally.first_counts.get(seat, 0) + first[p]
    tally.first_won += first_won
    return left


def _add(values, pairs: list) -> None:
    for value, count in pairs:
        values.add(value, count)


CHUNK = 20_000  # games counted natively between two looks from Python (progress, Ctrl-C)


def play_natively(counting: Counting, setup: Any, tally: Tally, first_seed: int, games: int,
                  failed: Callable[[dict[str, Any]], None], advance: Callable[[int], None]) -> None:
    """`simulate`'s games `first_seed`.. counted natively into `tally`, a chunk at a time; each
    game the native engine hands back is played on the reference engine (`setup`'s program), and
    counted, or passed to `failed` as the reference runner words a failure."""
    from ..balance.runner import play_seeds

    done = 0
    while done < games:
        size = min(CHUNK, games - done)
        left = count_natively(counting, tally, first_seed + done, size)
        for seed in left:
            for kind, data in play_seeds(setup, [(seed - first_seed + 1, seed)]):
                if kind == "record":
                    tally.add(data)
                else:
                    failed(data)
        done += size
        advance(size)
