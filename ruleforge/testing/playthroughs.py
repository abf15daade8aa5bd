"""Recorded playthroughs: whole games kept as text beside a rules file, replayed by
`ruleforge test` and the pytest plugin, so a change to any rule a game goes through fails a
test, not only a change to scoring.

`foo.rules` keeps them in the folder `foo.playthroughs/`, one file per game, each the exact text
of `ruleforge playthrough` (ruleforge/playthrough.py). Its first line names the players, seed,
generator, agents and options, which is all a replay needs; a record without a generator was
made with the legacy one (ruleforge/chance.py), and replays with it. A variant does not run its base's: it plays
differently. Guide: docs/testing.md.
"""

from __future__ import annotations

import difflib
import re
import shlex
from collections.abc import Collection
from pathlib import Path
from typing import Any

import attrs

from .. import chance
from ..agents import UntrustedAgent, recorded_agent, shown
from ..diagnostics import GameError
from ..engine import player_name
from ..limits import LIMITS, describe, number_within
from ..named_files import RefusedFile, read_bytes, refusal
from ..playthrough import Playthrough, PlaythroughError, playthrough
from ..rules import Rules
from ..state_io import BIGGEST

PLAYTHROUGHS_SUFFIX = ".playthroughs"
RECORD_SUFFIX = ".txt"
HEADER = re.compile(r"^(?P<title>.+): (?P<players>\d+) players, seed (?P<seed>-?\d+), "
                    r"(?:generator (?P<generator>\S+), )?agents (?P<agents>.+?)(?:, options (?P<options>.+))?$")
SEATS = re.compile(r"^P1 \S+(?:, P\d+ \S+)*$")
DECISION = re.compile(r"^(\d+)\. P\d+ \(")
ENDING = re.compile(r"^(game over after|stopped after|failed: )")
UNSAFE = re.compile(r"[^A-Za-z0-9_.=+-]+")
DIFF_LINES = 14  # at most this many lines of a diff are shown: its start says what went wrong


def decision_limit(recorded: int) -> int:
    """The decisions a replay may take: enough for any honest change of length, few enough
    that a game that never ends fails in moments instead of hanging."""
    return recorded * 2 + 50


class PlaythroughFileError(GameError):
    """A recorded playthrough that cannot be read or replayed, with its file named."""


def playthroughs_dir(rules_file: str | Path) -> Path:
    """Where the playthroughs of a rules file live: `foo.rules` -> `foo.playthroughs/`."""
    path = Path(rules_file)
    stem = path.name[:-len(".rules")] if path.name.endswith(".rules") else path.stem
    return path.with_name(stem + PLAYTHROUGHS_SUFFIX)


def rules_file_of_record(record: str | Path) -> Path:
    """The rules file a recorded playthrough belongs to: `foo.playthroughs/x.txt` -> `foo.rules`."""
    folder = Path(record).parent
    stem = folder.name[:-len(PLAYTHROUGHS_SUFFIX)] if folder.name.endswith(PLAYTHROUGHS_SUFFIX) else folder.name
    return folder.with_name(stem + ".rules")


def is_record(path: Path) -> bool:
    return path.suffix == RECORD_SUFFIX and path.parent.name.endswith(PLAYTHROUGHS_SUFFIX)


def playthroughs_of(rules_file: str | Path) -> list[Path]:
    """The recorded playthroughs of one rules file (its own only, never a base's), by name."""
    folder = playthroughs_dir(rules_file)
    return sorted(folder.glob("*" + RECORD_SUFFIX)) if folder.is_dir() else []


def record_name(players: int, seed: int, agents: tuple[str, ...], options: dict[str, Any]) -> str:
    """The file name of a record: `2p-seed1.txt`, with the agents when not all random and the
    options set (`3p-seed2-greedy-expert=true.txt`); the first line of the file, not its
    name, is what a replay reads."""
    parts = [f"{players}p", f"seed{seed}"]
    if set(agents) != {"random"}:
        parts.append(agents[0] if len(set(agents)) == 1 else "+".join(agents))
    parts += [f"{k}={_option_text(v)}" for k, v in options.items()]
    return UNSAFE.sub("_", "-".join(parts)) + RECORD_SUFFIX


@attrs.frozen
class Header:
    """What the first line of a record says: enough to play the game again."""

    title: str
    players: int
    seed: int
    agents: tuple[str, ...]
    options: dict[str, str]  # as written; `typed_options` converts them by the rules' types
    generator: str = chance.LEGACY  # none written: a record made before xoshiro256**


def parse_header(line: str, where: str) -> Header:
    """The first line of a record, as `Playthrough.text()` writes it."""
    match = HEADER.match(line)
    if match is None:
        raise PlaythroughFileError(f"{where}: line 1: not a playthrough's first line (expected 'TITLE: N players, "
                                   "seed S, agents A', as `ruleforge playthrough` prints it)")
    players = number_within(match["players"], LIMITS.players)
    if players is None:
        raise PlaythroughFileError(f"{where}: line 1: {_number(match['players'])} players: more than a game may "
                                   f"have ({describe('players')})")
    seed = number_within(match["seed"].lstrip("-"), BIGGEST)
    if seed is None:
        raise PlaythroughFileError(f"{where}: line 1: the seed must be a whole number from -(2**63 - 1) to 2**63 - 1")
    agents = match["agents"]
    if SEATS.match(agents):
        names = tuple(part.split(" ", 1)[1] for part in agents.split(", "))
        if len(names) != players:
            raise PlaythroughFileError(f"{where}: line 1: {len(names)} agents named for {players} players")
    else:
        names = (agents,) * players
    options: dict[str, str] = {}
    for pair in (match["options"] or "").split():
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise PlaythroughFileError(f"{where}: line 1: option '{pair}' must look like name=value")
        options[name] = value
    generator = match["generator"] or chance.LEGACY
    if generator not in chance.GENERATORS:
        raise PlaythroughFileError(f"{where}: line 1: unknown generator '{shown(generator)}' (generators: "
                                   f"{', '.join(chance.GENERATORS)})")
    return Header(match["title"], players, -seed if match["seed"].startswith("-") else seed, names, options,
                  generator)


def _number(digits: str) -> str:
    """A number of a record as a message shows it: with its thousands, or how long it is."""
    significant = digits.lstrip("0") or "0"
    return f"{int(significant):,}" if len(significant) <= 30 else f"a number of {len(significant):,} digits"


def typed_options(rules: Rules, header: Header, where: str) -> dict[str, Any]:
    """The header's options converted by the option's declared type (int, flag or text)."""
    out: dict[str, Any] = {}
    for name, raw in header.options.items():
        decl = rules.model.options.get(name)
        if decl is None:
            known = ", ".join(rules.model.options) or "none"
            raise PlaythroughFileError(f"{where}: line 1: unknown option '{name}' (options of {rules.title}: {known})")
        kind = decl.type.name
        if kind == "int" and re.fullmatch(r"-?\d+", raw):
            out[name] = int(raw)
        elif kind == "flag" and raw in ("true", "false"):
            out[name] = raw == "true"
        elif kind == "text":
            out[name] = raw
        else:
            raise PlaythroughFileError(f"{where}: line 1: option '{name}' ({kind}) cannot be '{raw}'")
    return out


def recorded_decisions(text: str, where: str = "the record") -> int:
    """How many decisions a record holds: the number of its last decision line. A number past
    the `decisions_per_game` limit is a PlaythroughFileError at its line: the replay's own limit
    is worked out from it."""
    most = 0
    for k, line in enumerate(text.splitlines(), 1):
        match = DECISION.match(line)
        if match is None:
            continue
        number = number_within(match.group(1), LIMITS.decisions_per_game)
        if number is None:
            raise PlaythroughFileError(f"{where}: line {k}: decision {_number(match.group(1))}: more decisions "
                                       f"than a game may take ({describe('decisions_per_game')})")
        most = max(most, number)
    return most


@attrs.frozen(eq=False)
class PlaythroughOutcome:
    """What replaying one recorded playthrough found: the same record, a different one (the
    diff), or why it could not be replayed."""

    path: Path
    status: str  # "pass", "fail" or "error"
    recorded: int = 0  # decisions in the record
    played: int = 0  # decisions the replay took
    limit: int = 0  # decisions the replay was allowed
    diff: tuple[str, ...] = ()  # a trimmed unified diff, recorded -> now
    where: str = ""  # the first difference: "decision 12", "the setup", "the end (after decision 40)"
    error: str | None = None  # why the record could not be replayed
    failure: str | None = None  # a rule that failed during the replay, naming the decision

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def passed(self) -> bool:
        return self.status == "pass"

    def report(self) -> list[str]:
        """Why it failed: the first difference's place and the start of the diff; or the error."""
        if self.error is not None:
            return [f"error: {line}" for line in self.error.splitlines()]
        if self.passed:
            return []
        head = f"first difference at {self.where} ({self.played} decisions played, {self.recorded} recorded"
        head += f"; stopped at the limit of {self.limit})" if self.played >= self.limit else ")"
        failed = [f"the game failed: {self.failure}"] if self.failure is not None else []
        return [head, *failed, *self.diff]

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "file": str(self.path), "status": self.status,
                               "recorded_decisions": self.recorded, "played_decisions": self.played,
                               "decision_limit": self.limit}
        if self.error is not None:
            out["error"] = self.error
        if self.status == "fail":
            out["first_difference"] = self.where
            out["diff"] = list(self.diff)
            if self.failure is not None:
                out["failure"] = self.failure
        return out


def replay(rules: Rules, path: str | Path, text: str | None = None, trusted: Collection[str] = ()) -> Playthrough:
    """Play a recorded playthrough's game again against `rules`, with the decision limit its
    length allows; a game that fails is the record up to the failure. PlaythroughFileError if
    the record (`text`, else read from `path`) cannot be read or its first line does not fit
    the rules. A record may name an agent of code only if `trusted` (`--agents`) names it."""
    path = Path(path)
    text = read_record(path) if text is None else text
    where = str(path)
    header = parse_header(text.split("\n", 1)[0], where)
    check_agents(header, where, trusted)
    options = typed_options(rules, header, where)
    limit = decision_limit(recorded_decisions(text, where))
    try:
        return playthrough(rules, header.players, header.seed, header.agents, options, max_decisions=limit,
                           generator=header.generator)
    except PlaythroughError as err:
        if err.playthrough is not None:
            return err.playthrough
        return Playthrough(rules.title, header.players, header.seed, options, header.agents, header.generator,
                           error=str(err))
    except GameError as err:  # the players, an option or an agent the rules refuse
        raise PlaythroughFileError(f"{where}: line 1: {err}") from None


def check_agents(header: Header, where: str, trusted: Collection[str]) -> None:
    """Every agent the header names is one a file may name (see `agents.recorded_agent`): a
    record from a stranger makes ruleforge import no code and start no endless search."""
    for seat, name in enumerate(header.agents):
        try:
            recorded_agent(name, trusted)
        except UntrustedAgent as err:
            quoted = shlex.quote(shown(name, 200))
            raise PlaythroughFileError(
                f"{where}: line 1: {player_name(seat)}'s {err}; if you trust that code, name it: "
                f"ruleforge test --agents {quoted}, or pytest --ruleforge-agents {quoted}") from None
        except GameError as err:
            raise PlaythroughFileError(f"{where}: line 1: {player_name(seat)}'s {err}") from None


def read_record(path: Path) -> str:
    """A record's text, read under the rule for files found in a folder (`named_files`): a
    regular `.txt` file outside /proc, /sys and /dev, at most `file_bytes`; a link to anything
    else is refused by name, never quoted in a diff."""
    if not path.exists() and refusal(path, RECORD_SUFFIX) is None:
        raise PlaythroughFileError(f"cannot read playthrough '{path}': no such file")
    try:
        return read_bytes(path, RECORD_SUFFIX, "playthrough").decode("utf-8")
    except RefusedFile as err:
        raise PlaythroughFileError(str(err)) from None
    except UnicodeDecodeError as err:
        raise PlaythroughFileError(f"cannot read playthrough '{path}': it is not UTF-8 text "
                                   f"(byte {err.start} cannot be read)") from None


def run_playthrough(rules: Rules, path: str | Path, trusted: Collection[str] = ()) -> PlaythroughOutcome:
    """Replay a recorded playthrough and compare the record, line by line; never raises for a
    bad record: what keeps it from running is the outcome's error. `trusted`: the agents of
    code the record may name (those `--agents` gives)."""
    path = Path(path)
    try:
        expected = read_record(path)
        record = replay(rules, path, expected, trusted)
    except PlaythroughFileError as err:
        return PlaythroughOutcome(path, "error", error=str(err))
    recorded = recorded_decisions(expected)
    limit = decision_limit(recorded)
    played = len(record.decisions)
    actual = record.text()
    if actual == expected:
        return PlaythroughOutcome(path, "pass", recorded, played, limit)
    diff, where = compare(expected, actual)
    return PlaythroughOutcome(path, "fail", recorded, played, limit, tuple(diff), where, failure=record.error)


def compare(expected: str, actual: str) -> tuple[list[str], str]:
    """A unified diff of two records, trimmed to its first lines, and where they first differ."""
    old, new = expected.splitlines(), actual.splitlines()
    lines = list(difflib.unified_diff(old, new, "recorded", "now", n=2, lineterm=""))
    if len(lines) > DIFF_LINES:
        more = sum(1 for line in lines[DIFF_LINES:] if line[:1] in "+-")
        lines = lines[:DIFF_LINES] + [f"... ({more} more changed lines)"]
    return lines, _first_difference(old, new)


def _first_difference(old: list[str], new: list[str]) -> str:
    """The place of the first line that differs: a decision's number (a log line more or less
    belongs to the decision before it), the setup or the end."""
    index = next((k for k, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
    if index == 0:
        return "the first line"
    pair = [lines[index] if index < len(lines) else "" for lines in (old, new)]
    if any(line.startswith("failed: setup:") for line in pair):
        return "the setup"
    for this, other in (pair, pair[::-1]):  # a decision against a decision, an ending or a failure
        if (m := DECISION.match(this)) and not other.startswith(" "):
            return f"decision {m.group(1)}"
    last = next((m.group(1) for line in reversed(old[:index]) if (m := DECISION.match(line))), None)
    ending = next((k for k, line in enumerate(old) if ENDING.match(line)), len(old))
    if index >= ending:
        return "the end" if last is None else f"the end (after decision {last})"
    return "the setup" if last is None else f"decision {last}"


def _option_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
