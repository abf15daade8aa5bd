"""Replay logs: written as a game goes, read back field by field, their rules found again.

A log is one JSON document: the game (rules, players, seed, generator, options, agents) and
every decision taken, as `{"player": "P2", "action": label, "digest": state digest after it}`.
`ruleforge replay` checks a log step by step; `ruleforge play --resume` replays it and plays on.
Format 3 names the generator the seed is for (`"generator": "xoshiro256**"`); a log of format 1
or 2 has none and replays with the legacy generator it was made with (ruleforge/chance.py).
"""

from __future__ import annotations

import math
import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import attrs

from .. import chance
from ..agents import AGENT_NAMES
from ..engine import Game, player_name
from ..named_files import refusal
from ..rules import Rules
from .common import echo, fail, load_rules, read_json, write_json

LOG_FORMAT = "ruleforge-log/3"
READABLE_FORMATS = ("ruleforge-log/1", "ruleforge-log/2", LOG_FORMAT)
SAVE_INTERVAL = 0.5  # seconds between two writes of a log while only automatic agents play
SEAT = re.compile(r"P([1-9][0-9]*)")


@attrs.define
class GameRecord:
    """A log as read from its file, every field checked."""

    path: str
    rules: str  # the rules file's path as typed on the command line
    players: int
    seed: int
    options: dict[str, Any]
    steps: list[dict[str, str]]
    game: str | None = None  # the rules' title
    rules_digest: str | None = None
    rules_absolute: str | None = None
    rules_from_log: str | None = None  # relative to the log's folder
    agents: list[str] | None = None
    over: bool | None = None
    final_digest: str | None = None
    generator: str = chance.LEGACY  # the generator the seed is for: a log without one was made before xoshiro256**


# --- writing ---------------------------------------------------------------------------------


def log_header(rules: Rules, rules_path: str, log_path: str | None, players: int, seed: int,
               options: dict[str, Any], agents: list[str], generator: str = chance.GENERATOR) -> dict[str, Any]:
    """Everything a log says about its game, the rules named so that they can be found again
    from anywhere: as typed, absolute, relative to the log, by title and by digest; the seed
    with its generator (the game's, `game.generator`)."""
    absolute = os.path.abspath(rules_path)
    from_log = None
    if log_path is not None:
        try:
            from_log = os.path.relpath(absolute, os.path.dirname(os.path.abspath(log_path)))
        except ValueError:  # another drive (Windows): no relative path exists
            from_log = None
    return {
        "format": LOG_FORMAT, "rules": rules_path, "rules_absolute": absolute, "rules_from_log": from_log,
        "game": rules.title, "rules_digest": rules.digest, "players": players, "seed": seed,
        "generator": generator, "options": options, "agents": agents,
    }


class LogWriter:
    """A game's log, rewritten whole and atomically as the game goes, so that a game stopped
    at any moment (Ctrl-C, a kill, a crash) leaves a valid log of the steps saved so far.

    A bot's step is saved at most every `interval` seconds, since writing after each one
    would cost more than playing it; a person's step is saved at once. Every step records the
    state's digest, for replay to find the first step that differs. `mode` 0o600 keeps the log
    of a game in play from other users (it tells every hidden card).
    """

    def __init__(self, path: str | None, header: dict[str, Any], steps: list[dict[str, str]], game: Game,
                 interval: float = SAVE_INTERVAL, mode: int | None = None):
        self.path = path
        self.mode = mode
        self.header = header
        self.steps = steps
        self.interval = interval
        self._over = game.is_over
        self._start_digest = game.digest() if path is not None else None
        self._saved_at = -math.inf
        self._unsaved = True

    def add(self, player: int, label: str, game: Game, human: bool = False) -> None:
        """Record a decision just applied to `game`; save now if a person took it or it is time."""
        step = {"player": player_name(player), "action": label}
        self.steps.append(step)
        self._over = game.is_over
        self._unsaved = True
        if self.path is None:
            return
        step["digest"] = game.digest()
        if human or time.monotonic() - self._saved_at >= self.interval:
            self.save()

    def save(self) -> None:
        if self.path is None or not self._unsaved:
            return
        final = self.steps[-1].get("digest") if self.steps else self._start_digest
        doc = {**self.header, "steps": self.steps, "over": self._over, "final_digest": final}
        write_json(self.path, doc, "log", mode=self.mode)
        self._saved_at = time.monotonic()
        self._unsaved = False


# --- reading ---------------------------------------------------------------------------------


class _Malformed(Exception):
    """A field of a log is wrong; `read_log` adds the log's path to the message."""


def _problem(message: str) -> NoReturn:
    raise _Malformed(message)


KINDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "text": (lambda v: isinstance(v, str), "text"),
    "int": (lambda v: isinstance(v, int) and not isinstance(v, bool), "a whole number"),
    "bool": (lambda v: isinstance(v, bool), "true or false"),
    "list": (lambda v: isinstance(v, list), "a list"),
    "object": (lambda v: isinstance(v, dict), "an object"),
}


def _field(data: dict[str, Any], key: str, kind: str, required: bool = False, where: str = "") -> Any:
    """`data[key]` if it has the kind asked for; missing is allowed (None) unless required."""
    value = data.get(key)
    if value is None:
        if required:
            _problem(f"{where}'{key}' is missing")
        return None
    test, name = KINDS[kind]
    if not test(value):
        _problem(f"{where}'{key}' must be {name}, not {_shown(value)}")
    return value


def _shown(value: Any) -> str:
    text = repr(value) if not isinstance(value, (dict, list)) else type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def _steps(raw: list[Any], players: int) -> list[dict[str, str]]:
    steps = []
    for k, step in enumerate(raw, 1):
        where = f"step {k}: "
        if not isinstance(step, dict):
            _problem(f"step {k} must be an object with 'player' and 'action', not {_shown(step)}")
        seat = _field(step, "player", "text", required=True, where=where)
        match = SEAT.fullmatch(seat)
        if match is None or int(match.group(1)) > players:
            _problem(f"{where}'player' must be a seat from P1 to P{players}, not {seat!r}")
        _field(step, "action", "text", required=True, where=where)
        _field(step, "digest", "text", where=where)
        steps.append(step)
    return steps


def _options(raw: dict[str, Any]) -> dict[str, Any]:
    for name, value in raw.items():
        if not isinstance(value, (int, str)):  # bool is an int
            _problem(f"option '{name}' must be a number, true or false, or text, not {_shown(value)}")
    return raw


def _agents(raw: list[Any] | None, players: int) -> list[str] | None:
    """The log's agents, one per seat; a designer's agent is checked when the game resumes."""
    if raw is not None and (len(raw) != players or any(not _agent_like(a) for a in raw)):
        _problem(f"'agents' must be a list of {players} agent names ({', '.join(AGENT_NAMES)}, "
                 "mcts:N or module:Class)")
    return raw


def _agent_like(name: Any) -> bool:
    return isinstance(name, str) and (name in AGENT_NAMES or ":" in name)


def read_log(path: str) -> GameRecord:
    """Read a log (format 1, 2 or 3), checking every field and every step."""
    data = read_json(path, "replay log")
    if not isinstance(data, dict) or data.get("format") not in READABLE_FORMATS:
        fail(f"replay log '{path}' is not a ruleforge replay log (expected \"format\": \"{LOG_FORMAT}\")")
    try:
        return _record(path, data)
    except _Malformed as err:
        fail(f"replay log '{path}': {err}")


def _record(path: str, data: dict[str, Any]) -> GameRecord:
    """The log's fields, each checked (`_Malformed` names the first wrong one)."""
    players = _field(data, "players", "int", required=True)
    if players < 1:
        _problem(f"'players' must be at least 1, not {players}")
    return GameRecord(
        path=path,
        rules=_field(data, "rules", "text", required=True),
        players=players,
        seed=_field(data, "seed", "int", required=True),
        options=_options(_field(data, "options", "object") or {}),
        steps=_steps(_field(data, "steps", "list", required=True), players),
        game=_field(data, "game", "text"),
        rules_digest=_field(data, "rules_digest", "text"),
        rules_absolute=_field(data, "rules_absolute", "text"),
        rules_from_log=_field(data, "rules_from_log", "text"),
        agents=_agents(_field(data, "agents", "list"), players),
        over=_field(data, "over", "bool"),
        final_digest=_field(data, "final_digest", "text"),
        generator=_generator(_field(data, "generator", "text")),
    )


def _generator(name: str | None) -> str:
    """The log's generator; a log without one (formats 1 and 2) was made with the legacy one."""
    if name is None:
        return chance.LEGACY
    if name not in chance.GENERATORS:
        _problem(f"'generator' must be one of {', '.join(repr(g) for g in chance.GENERATORS)}, not {_shown(name)}")
    return name


# --- finding the rules -------------------------------------------------------------------------


def rules_candidates(record: GameRecord) -> list[str]:
    """Where a log's rules may be, most telling first: relative to the log (they travel
    together), the absolute path (same machine), as typed from here, as typed from the log."""
    folder = Path(record.path).parent
    typed = Path(record.rules)
    paths: list[str] = []
    if record.rules_from_log:
        paths.append(os.path.normpath(folder / record.rules_from_log))
    if record.rules_absolute:
        paths.append(record.rules_absolute)
    paths.append(record.rules)
    if not typed.is_absolute():
        paths.append(os.path.normpath(folder / typed))
    unique: dict[str, str] = {}
    for p in paths:
        unique.setdefault(os.path.realpath(p), p)
    return list(unique.values())


def other_game(record: GameRecord, rules: Rules, path: str) -> str:
    return f"this log is a game of {record.game}, but {path} holds the rules of {rules.title}"


def warn_if_changed(record: GameRecord, rules: Rules, path: str) -> None:
    if record.rules_digest not in (None, rules.digest):
        echo(f"warning: '{path}' has changed since the log was written "
             f"(digest {rules.digest}, log has {record.rules_digest})", err=True)


def find_rules(record: GameRecord, given: str | None = None) -> tuple[Rules, str]:
    """The rules of a log and their path: `given` if any, else the first candidate with the
    log's digest, else the first of the same game (with a warning that it has changed)."""
    if given is not None:
        rules = load_rules(given)
        if record.game is not None and rules.title != record.game:
            fail(other_game(record, rules, given))
        warn_if_changed(record, rules, given)
        return rules, given
    candidates = rules_candidates(record)
    same_game: tuple[Rules, str] | None = None
    another: tuple[Rules, str] | None = None
    refused: list[str] = []
    for path in candidates:
        why = refusal(path, ".rules")  # the log may be a stranger's: it names only rules files
        if why is not None:
            refused.append(f"{path!r} is not a rules file: {why}")
            continue
        if not Path(path).is_file():
            continue
        rules = load_rules(path)
        if record.game is not None and rules.title != record.game:
            another = another or (rules, path)
        elif record.rules_digest in (None, rules.digest):
            return rules, path
        else:
            same_game = same_game or (rules, path)
    if same_game is not None:
        warn_if_changed(record, *same_game)
        return same_game
    if another is not None:
        fail(other_game(record, *another) + "; give the rules file with --rules FILE")
    what = f"the rules of {record.game}" if record.game else f"the rules file '{record.rules}'"
    notes = "".join(f"; {note}" for note in refused)
    fail(f"cannot find {what}: looked for {', '.join(repr(p) for p in candidates)}{notes}; "
         f"give the rules file with --rules FILE")


# --- replaying ---------------------------------------------------------------------------------


def logged_game(rules: Rules, record: GameRecord) -> Game:
    """The log's game at its start: its players, options, and seed for its generator."""
    return rules.new_game(record.players, record.seed, record.options or None, generator=record.generator)


def replay_steps(game: Game, record: GameRecord, before_step: Callable[[], None] | None = None) -> None:
    """Apply the log's steps to a new game, checking that each is legal, by the player to act,
    and gives the state the log recorded; fail at the first step that does not."""
    steps = record.steps
    for k, step in enumerate(steps, 1):
        if before_step is not None:
            before_step()
        where = f"{record.path}: step {k} of {len(steps)}"
        if game.is_over:
            fail(f"{where}: the game is already over, but the log has {len(steps) - k + 1} more step(s)")
        actual = player_name(game.current_player)
        if step["player"] != actual:
            fail(f"{where}: the log has {step['player']} act, but {actual} is to act")
        labels = game.legal_labels()
        if step["action"] not in labels:
            fail(f"{where}: {actual} '{step['action']}' is not legal; legal: {', '.join(labels)}")
        game.apply(step["action"])
        digest = step.get("digest")
        if digest is not None and digest != game.digest():
            fail(f"{where}: after {actual} '{step['action']}' the state differs "
                 f"(digest {game.digest()}, log has {digest})")
    if record.final_digest is not None and record.final_digest != game.digest():
        fail(f"{record.path}: after the last step the final state differs (digest {game.digest()}, "
             f"log has {record.final_digest})")
    if record.over is not None and record.over != game.is_over:
        said, but = ("over", "it is not") if record.over else ("not over", "it is")
        fail(f"{record.path}: the log says the game is {said} after its {len(steps)} steps, but {but}")
