"""Playthroughs: one whole game between seeded agents, recorded decision by decision with the
log as each player saw it and the final scores.

The record is deterministic to the byte (the game's chance and every agent are seeded from the
seed), so a snapshot of it guards every rule a game goes through, not only its scoring. The text
is made for diffs: one fact per line, no times, no paths.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from typing import Any

import attrs

from . import chance, limits
from .agents import agent_names, make_agents
from .diagnostics import GameError
from .engine import Action, Game, player_name
from .rules import Rules
from .screen import CELL_KEY, contents_text, runs

__all__ = ["FORMAT", "Decision", "Line", "Playthrough", "PlaythroughError", "Shown", "playthrough"]

FORMAT = "ruleforge-playthrough/1"


@attrs.frozen
class Line:
    """One log line as some players see it: everyone, unless a secret action shows the
    others only its public label."""

    text: str
    seen_by: tuple[int, ...]


# The lines one log entry gives, one `Line` per different text, by the first seat seeing it.
LogLine = tuple[Line, ...]


@attrs.frozen
class Shown:
    """What a `reveal` showed one player (the zone's key, or "a component"), which no log says."""

    player: int
    zone: str
    contents: tuple[str, ...]


@attrs.frozen
class Decision:
    """One decision: who took it, among how many legal actions, which, and the log it caused
    (its own entry first)."""

    number: int
    player: int
    legal: int
    label: str  # as `legal_labels()` shows it ("take Card #2")
    action: Action
    log: tuple[LogLine, ...]
    own_line: str  # the action's log line as the full log writes it ("P2: take Card")
    shown: tuple[Shown, ...] = ()


@attrs.define
class Playthrough:
    """A game played to its end (or stopped): the record, and the final `game` itself."""

    title: str
    players: int
    seed: int
    options: dict[str, Any]
    agents: tuple[str, ...]
    generator: str = chance.GENERATOR  # what the seed seeds: the legacy one only to replay a record made with it
    game: Game | None = None
    setup: list[LogLine] = attrs.Factory(list)
    setup_shown: list[Shown] = attrs.Factory(list)
    decisions: list[Decision] = attrs.Factory(list)
    over: bool = False
    stopped: bool = False  # the decisions limit was reached before the end
    error: str | None = None  # a rule failed: the message, naming the decision
    position: list[str] = attrs.Factory(list)  # the end as a spectator sees it, a line per zone
    scores: list[dict[str, Any]] = attrs.Factory(list)
    winners: list[int] = attrs.Factory(list)

    def text(self) -> str:
        """The record as text, one fact per line."""
        out = [self._header()]
        if self.setup or self.setup_shown:
            out.append("setup:")
            for line in self.setup:
                out += _line_text(line)
            out += [_shown_text(s) for s in self.setup_shown]
        for d in self.decisions:
            out.append(f"{d.number}. {player_name(d.player)} ({d.legal} legal): {d.label}")
            for k, line in enumerate(d.log):
                out += _line_text(line, d.own_line if k == 0 else None)
            out += [_shown_text(s) for s in d.shown]
        out += self._ending()
        return "\n".join(out) + "\n"

    __str__ = text

    def _header(self) -> str:
        agents = self.agents
        who = agents[0] if len(set(agents)) == 1 else ", ".join(
            f"{player_name(p)} {name}" for p, name in enumerate(agents))
        generator = "" if self.generator == chance.LEGACY else f", generator {self.generator}"  # as records were
        head = f"{self.title}: {self.players} players, seed {self.seed}{generator}, agents {who}"
        if self.options:
            head += ", options " + " ".join(f"{k}={_option_text(v)}" for k, v in self.options.items())
        return head

    def _ending(self) -> list[str]:
        count = len(self.decisions)
        if self.error is not None:
            return [f"failed: {self.error}"]
        if self.over:
            out = [f"game over after {count} decisions", "final position:", *self.position, "final scores:"]
        else:
            out = [f"stopped after {count} decisions: the game is not over", "position:", *self.position,
                   "scores so far:"]
        out += _score_table(self.scores)
        if self.winners:
            names = ", ".join(player_name(p) for p in self.winners)
            word = ("winner" if len(self.winners) == 1 else "winners (shared)") if self.over else "leading"
            out.append(f"{word}: {names} ({self.scores[self.winners[0]]['total']} points)")
        return out

    def to_json(self) -> dict[str, Any]:
        """The record as a JSON-able dict: the whole log of every decision (its own line
        included), and each action as `aid` and `args`, enough to replay it."""
        return {
            "format": FORMAT, "game": self.title, "players": self.players, "seed": self.seed,
            "generator": self.generator, "options": dict(self.options), "agents": list(self.agents),
            "setup": [_line_json(line) for line in self.setup],
            "setup_shown": [_shown_json(s) for s in self.setup_shown],
            "decisions": [{"decision": d.number, "player": player_name(d.player), "legal": d.legal,
                           "action": d.label, "aid": d.action[0], "args": _plain(d.action[1]),
                           "log": [_line_json(line) for line in d.log],
                           "shown": [_shown_json(s) for s in d.shown]} for d in self.decisions],
            "over": self.over, "stopped": self.stopped, "error": self.error, "position": self.position,
            "scores": [{**row, "player": player_name(row["player"])} for row in self.scores],
            "winners": [player_name(p) for p in self.winners],
        }

    def json_text(self) -> str:
        """`to_json()` as text, each setup line and each decision on a line of its own."""
        parts = []
        for key, value in self.to_json().items():
            if key in ("setup", "decisions") and value:
                items = ",\n".join("    " + json.dumps(item) for item in value)
                parts.append(f"  {json.dumps(key)}: [\n{items}\n  ]")
            else:
                parts.append(f"  {json.dumps(key)}: {json.dumps(value)}")
        return "{\n" + ",\n".join(parts) + "\n}\n"


class PlaythroughError(GameError):
    """A rule failed during a playthrough; `playthrough` holds the record up to the failure
    (None when the game could not even be set up)."""

    def __init__(self, message: str, pos: Any, record: Playthrough | None):
        super().__init__(message, pos)
        self.playthrough = record


def playthrough(rules: Rules, players: int, seed: int = 0, agents: str | Sequence[str] | None = None,
                options: dict[str, Any] | None = None, max_decisions: int | None = None,
                generator: str = chance.GENERATOR) -> Playthrough:
    """Play one game between automatic agents (`agents` as `ruleforge play` takes them, seat by
    seat; default random), seeded from `seed` as `simulate` seeds them, and record it. The game
    and its random agents draw from `generator` (the legacy one replays a record made with it).

    Stops after `max_decisions` (default: the `decisions_per_game` limit) with `stopped` set.
    A bad player count, option or agent raises GameError before anything is played; a rule that
    fails raises PlaythroughError naming the decision."""
    if max_decisions is not None and max_decisions < 1:
        raise GameError(f"max_decisions must be at least 1, not {max_decisions}")
    spec = agents if isinstance(agents, str) else ",".join(agents) if agents else "random"
    names = agent_names(spec, players)
    if "human" in names:
        raise GameError("a playthrough plays automatic agents only (random, greedy, mcts:N, module:Class); "
                        "use `ruleforge play` for a human seat")
    options = dict(options or {})
    rules.program(players, options)  # a bad player count or option is the caller's, not a rule's
    record = Playthrough(rules.title, players, seed, options, tuple(names), generator)
    guard = limits.raised(decisions_per_game=max_decisions) if max_decisions else contextlib.nullcontext()
    with guard:
        _play(rules, record)
    return record


def _play(rules: Rules, record: Playthrough) -> None:
    """Play `record`'s game into it, one decision at a time."""
    n = record.players
    try:
        game = rules.new_game(n, record.seed, record.options or None, generator=record.generator)
    except GameError as err:
        raise PlaythroughError(f"setup: {err}", err.pos, None) from None
    record.game = game
    record.setup = _log_since(game, 0)
    seen = [0] * n
    record.setup_shown = _shown_since(game, seen)
    seats = make_agents(",".join(record.agents), n, record.seed, generator=record.generator)
    limit = limits.LIMITS.decisions_per_game  # read now: a `with limits.raised(...)` is in force
    while not game.is_over:
        if len(record.decisions) >= limit:
            record.stopped = True
            break
        number = len(record.decisions) + 1
        me = game.current_player
        assert me is not None
        where = f"decision {number} ({player_name(me)})"
        try:
            legal = game.legal_actions()
            action = seats[me].choose(game)
            label = game.legal_labels()[legal.index(action)]
            where = f"decision {number} ({player_name(me)}: {label})"
            own_line = f"{player_name(me)}: {game.label(action)}"
            start = len(game.state.log)
            game.apply(action)
            log = _log_since(game, start)
            shown = _shown_since(game, seen)
        except GameError as err:
            record.error = f"{where}: {err}"
            raise PlaythroughError(record.error, err.pos, record) from None
        record.decisions.append(Decision(number, me, len(legal), label, action, tuple(log), own_line,
                                         tuple(shown)))
    record.over = game.is_over
    try:
        record.position = _position(game)
        record.scores = game.scores()
        record.winners = game.winners()
    except GameError as err:
        record.error = f"the end of the game: {err}"
        raise PlaythroughError(record.error, err.pos, record) from None


def _log_since(game: Game, start: int) -> list[LogLine]:
    """The log lines of the entries from `start` on, each split by the texts players see."""
    n = game.players
    views = [game.log_lines(start, viewer=p) for p in range(n)]
    out: list[LogLine] = []
    for texts in zip(*views):
        seats: dict[str, list[int]] = {}
        for p, text in enumerate(texts):
            seats.setdefault(text, []).append(p)
        out.append(tuple(Line(text, tuple(who)) for text, who in seats.items()))
    return out


def _position(game: Game) -> list[str]:
    """Every zone with something in it as a spectator sees it, written as `play` writes a view:
    a hidden zone by its size, a grid cell's stack bottom first, properties set away from their
    start in brackets."""
    view = game.view(None, properties=True)
    out = []
    for key, contents in view["zones"].items():
        if isinstance(contents, dict):
            if contents["hidden"]:
                out.append(f"  {key}: hidden ({contents['hidden']})")
        elif contents:
            texts = contents_text(contents, view["properties"].get(key))
            out.append(f"  {key}: " + (" / ".join(texts) if CELL_KEY.match(key) else ", ".join(runs(texts))))
    return out


def _score_table(scores: list[dict[str, Any]]) -> list[str]:
    """Scores as a table, a row per item and a column per player: a change to one item is a
    change to one line. The ranking key is a row when it is more than the total."""
    items: list[str] = []
    for row in scores:
        items.extend(k for k in row["breakdown"] if k not in items)
    rows = [[item, *(str(row["breakdown"].get(item, 0)) for row in scores)] for item in items]
    rest = [row["total"] - sum(row["breakdown"].values()) for row in scores]
    if any(rest):
        rows.append(["(not itemised)", *map(str, rest)])
    rows.append(["total", *(str(row["total"]) for row in scores)])
    if any(row["rank"] != [row["total"]] for row in scores):
        rows.append(["ranking", *(", ".join(map(str, row["rank"])) for row in scores)])
    head = ["", *(player_name(row["player"]) for row in scores)]
    widths = [max(len(r[k]) for r in [head, *rows]) for k in range(len(head))]
    return ["  " + "  ".join([r[0].ljust(widths[0]), *(x.rjust(w) for x, w in zip(r[1:], widths[1:]))]).rstrip()
            for r in [head, *rows]]


def _shown_since(game: Game, seen: list[int]) -> list[Shown]:
    """What `reveal` showed each player since `seen` (per player, how many reveals were
    recorded already; updated). The view is asked only when there is something new."""
    out = []
    for p, count in enumerate(seen):
        if len(game.state.seen[p]) > count:
            new = game.view(p)["seen"][count:]
            out += [Shown(p, item["zone"], tuple(item["contents"])) for item in new]
            seen[p] += len(new)
    return out


def _line_text(line: LogLine, own_line: str | None = None) -> list[str]:
    """A log line as text: once when everyone sees it alike, else once per text with who sees
    it. The decision's own line is left out for those who see it as the decision reads."""
    if own_line is None and len(line) == 1:
        return [f"  {line[0].text}"]
    out = []
    for part in line:
        if part.text == own_line:
            continue
        who = ", ".join(player_name(p) for p in part.seen_by)
        out.append(f"  {who} {'sees' if len(part.seen_by) == 1 else 'see'}: {part.text}")
    return out


def _shown_text(shown: Shown) -> str:
    return f"  {player_name(shown.player)} is shown {shown.zone}: {', '.join(shown.contents) or 'nothing'}"


def _shown_json(shown: Shown) -> dict[str, Any]:
    return {"player": player_name(shown.player), "zone": shown.zone, "contents": list(shown.contents)}


def _line_json(line: LogLine) -> list[dict[str, Any]]:
    return [{"text": part.text, "seen_by": [player_name(p) for p in part.seen_by]} for part in line]


def _plain(value: Any) -> Any:
    """Tuples as lists, for JSON."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _option_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
