"""What one finished game contributes to the statistics: a GameRecord, a JSON-able dict, one
line of `--records FILE`. Made from the game at its end and from what a `Watch` saw at each
decision (the engine keeps no count of legal actions, so the runner notes them as it plays)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from ..compiler import Program
from ..engine import Action, Game, player_name
from ..model import Model

CHOICES_PER_GAME = 500  # distinct choice labels kept per game: a record stays a line, not a log
LABELS_KEPT = 100_000  # labels kept per compiled program for the next games (bounded memory)


class Watch:
    """What happens at each decision of one game: who decides, how many actions are legal and
    which, which is taken. Cheap: a few counters per decision."""

    __slots__ = ("first", "decisions", "turns", "last", "branching_sum", "branching_max", "taken", "legal",
                 "fired")

    def __init__(self) -> None:
        self.first: int | None = None
        self.decisions = 0
        self.turns = 0
        self.last: int | None = None
        self.branching_sum = 0
        self.branching_max = 0
        self.taken: dict[int, int] = {}  # action id -> times taken
        self.legal: dict[int, int] = {}  # action id -> decisions where it was legal
        self.fired: list[int] = []  # per trigger: times it fired in the game (the runner sets it)

    def decide(self, game: Game, legal: list[Action], action: Action) -> None:
        """Note a decision about to be applied: `action` chosen among `legal` by the current player."""
        me = game.current_player
        if self.first is None:
            self.first = me
        if me != self.last:
            self.turns += 1
            self.last = me
        self.decisions += 1
        count = len(legal)
        self.branching_sum += count
        if count > self.branching_max:
            self.branching_max = count
        aid = action[0]
        self.taken[aid] = self.taken.get(aid, 0) + 1
        for a in {a[0] for a in legal} if count > 1 else (aid,):
            self.legal[a] = self.legal.get(a, 0) + 1


@attrs.frozen
class Names:
    """What every record of one program names the same way, worked out once per program (so
    per player count and options): its actions by id, its players by seat, its triggers."""

    actions: list[str]
    distinct: bool  # no two actions share a name
    players: list[str]
    triggers: list[str]


def names_of(program: Program) -> Names:
    """The names of `program`'s records, made on its first record."""
    names = program.record_names
    if names is None:
        actions = [info.name for info in program.actions]
        names = program.record_names = Names(actions, len(set(actions)) == len(actions),
                                             [player_name(p) for p in range(program.players)],
                                             trigger_names(program.model))
    return names  # type: ignore[return-value]


def choices(game: Game) -> dict[str, int]:
    """How often each label was taken, read from the log at the end: a label that reads the
    state was logged as text when played; the others are made now (cheaper than per decision)."""
    out: dict[str, int] = {}
    cache = game.program.label_cache  # these labels read no state: the same words every game
    for entry in game.state.log:
        if entry[0] != "act":
            continue
        if len(entry) > 4:
            label = entry[4]
        else:
            label = cache.get(entry)  # ("act", player, action, arguments): the same label every game
            if label is None:
                label = game._log_label(entry[2], entry[1], entry[3], False)
                if len(cache) < LABELS_KEPT:
                    cache[entry] = label
        if label in out or len(out) < CHOICES_PER_GAME:
            out[label] = out.get(label, 0) + 1
    return dict(sorted(out.items()))


def game_record(game: Game, watch: Watch, index: int, seed: int, agents: list[str],
                triggers: list[str]) -> dict[str, Any]:
    """The record of a finished game (see docs/balancing.md for each field)."""
    names = names_of(game.program)
    players = names.players
    scores = game.scores()  # fresh dicts, the record's own
    ranks = [s["rank"] for s in scores]
    best = max(ranks)  # the winners are those of the best ranking key, as `game.winners()` finds them
    measures = game.measures()
    record: dict[str, Any] = {
        "game": index, "seed": seed, "generator": game.generator, "players": game.players, "agents": list(agents),
        "scores": [s["total"] for s in scores], "breakdowns": [s["breakdown"] for s in scores],
        "ranks": ranks,
        "winners": [players[p] for p, rank in enumerate(ranks) if rank == best],
        "first": players[watch.first] if watch.first is not None else None,
        "decisions": watch.decisions, "turns": watch.turns, "rounds": measures.get("rounds"),
        "branching": {"sum": watch.branching_sum, "count": watch.decisions, "max": watch.branching_max},
        "actions": _by_name(names, watch.taken), "legal": _by_name(names, watch.legal),
        "choices": choices(game), "measures": measures,
    }
    if triggers:
        record["triggers"] = dict(zip(triggers, watch.fired))
    return record


def _by_name(names: Names, counts: dict[int, int]) -> dict[str, int]:
    actions = names.actions
    if names.distinct:
        return {actions[aid]: n for aid, n in sorted(counts.items())}
    out: dict[str, int] = {}
    for aid, n in sorted(counts.items()):
        out[actions[aid]] = out.get(actions[aid], 0) + n
    return out


def trigger_names(model: Model) -> list[str]:
    """Each trigger as people find it in the rules: `moved into ZONE from OTHER (FILE:LINE)`."""
    names = []
    for t in model.triggers:
        words = f"moved into {t.zone}" if t.event == "enter" else f"moved out of {t.zone}"
        if t.other:
            words += f" from {t.other}" if t.event == "enter" else f" into {t.other}"
        names.append(f"{words} ({Path(t.pos.file).name}:{t.pos.line})")
    return names
