"""Move counts kept beside a rules file as regression data: `foo.rules` -> `foo.perft.json`,
written by `ruleforge perft --write` and checked by `ruleforge test` and the pytest plugin
(docs/testing.md, "Move counts"). A count that moved means the rules now allow other decision
sequences than when the counts were written: meant (write them again) or a regression.

The file may come from anyone, so every field is checked before anything runs, the depth is
bounded (`perft.MAX_DEPTH`) and so is the walk: the entries of one file reach at most
`counted_positions` positions together (one `perft.Budget`, shared), so neither a deep entry of a
wide game nor a thousand entries can make a test walk for hours. The command a failed count
suggests quotes every value the file gave it (docs/security.md, "A move-count file").
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import attrs

from .. import chance
from ..diagnostics import GameError
from ..inert import inert
from ..perft import MAX_DEPTH, Budget, counts
from ..rules import Rules
from ..scoresheet import read_json
from .examples import FileProblems, suggest

PERFT_FORMAT = "ruleforge-perft/1"
PERFT_SUFFIX = ".perft.json"
FILE_KEYS = ("format", "rules", "counts")
ENTRY_KEYS = ("players", "seed", "generator", "options", "depth")
MOST_ENTRIES = 1000  # a file of more is not one people wrote to check a game


class PerftError(FileProblems):
    """A counts file that cannot be read as one."""


@attrs.frozen(eq=False)
class PerftEntry:
    """One game start (players, seed, options) and its expected counts at depth 1, 2, ...; the
    seed is for `generator` (an entry without one was written with the legacy generator)."""

    players: int
    seed: int
    options: dict[str, Any]
    depth: tuple[int, ...]
    origin: Path  # the counts file it is written in
    index: int  # its place in that file, from 1
    # the positions left to count, shared by the entries of one file (read_perft makes one a file)
    budget: Budget = attrs.field(factory=Budget, repr=False)
    generator: str = chance.LEGACY

    @property
    def name(self) -> str:
        """As `-k` matches it: `perft 3p seed 0`, the options after."""
        shown = "".join(f" {k}={shown_value(v)}" for k, v in self.options.items())
        return f"perft {self.players}p seed {self.seed}{shown}"

    @property
    def where(self) -> str:
        return f"{self.origin}: entry #{self.index}"

    def as_json(self) -> dict[str, Any]:
        named = {} if self.generator == chance.LEGACY else {"generator": self.generator}  # kept as it was written
        return {"players": self.players, "seed": self.seed, **named, "options": dict(self.options),
                "depth": list(self.depth)}


def shown_value(value: Any) -> str:
    """An option's value as `-o NAME=VALUE` takes it: flags as true and false."""
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


@attrs.frozen(eq=False)
class PerftOutcome:
    """What counting found: every depth's count, or why the game could not be counted."""

    entry: PerftEntry
    rules_file: str
    actual: tuple[int, ...] = ()
    error: str | None = None

    @property
    def name(self) -> str:
        return self.entry.name

    @property
    def passed(self) -> bool:
        return self.error is None and self.actual == self.entry.depth

    @property
    def status(self) -> str:
        return "error" if self.error is not None else "pass" if self.passed else "fail"

    def report(self) -> list[str]:
        """Each depth whose count moved, expected and actual, naming the rules and the file, and
        the command that writes them again; or the error. Inert: the lines quote a file."""
        if self.error is not None:
            return [inert(f"error: {line}") for line in self.error.splitlines()]
        if self.passed:
            return []
        lines = [f"move counts of {self.rules_file} differ from {self.entry.where} "
                 f"({self.entry.players} players, seed {self.entry.seed}):"]
        for d, (want, got) in enumerate(zip(self.entry.depth, self.actual), 1):
            if want != got:
                lines.append(f"depth {d}: expected {want:,}, actual {got:,}")
        lines.append(f"if the rules were meant to change this, write the counts again: {self.command()}")
        return [inert(line) for line in lines]

    def command(self) -> str:
        """`ruleforge perft ... --write` for this entry, for a person to copy: each value the
        file gave (an option's name and value, the rules file's name) quoted for the shell, so
        that a value such as `x; rm -rf ~` is one argument when pasted, never a command, and a
        rules file named like an option read as a file."""
        entry = self.entry
        rules = f"./{self.rules_file}" if self.rules_file.startswith("-") else self.rules_file  # not an option
        words = ["ruleforge", "perft", rules, "--players", str(entry.players), "--seed", str(entry.seed)]
        for name, value in entry.options.items():
            words += ["-o", f"{name}={shown_value(value)}"]
        return shlex.join([*words, "--depth", str(len(entry.depth)), "--write"])

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "file": str(self.entry.origin), "status": self.status,
                               "expected": list(self.entry.depth), "actual": list(self.actual)}
        if self.error is not None:
            out["error"] = self.error
        return out


def perft_file(rules_file: str | Path) -> Path:
    """Where the counts of a rules file live: beside it, `foo.rules` -> `foo.perft.json`."""
    path = Path(rules_file)
    stem = path.name[:-len(".rules")] if path.name.endswith(".rules") else path.stem
    return path.with_name(stem + PERFT_SUFFIX)


def rules_file_of_perft(path: str | Path) -> Path:
    """The rules file a counts file belongs to: `foo.perft.json` -> `foo.rules`."""
    file = Path(path)
    stem = file.name[:-len(PERFT_SUFFIX)] if file.name.endswith(PERFT_SUFFIX) else file.stem
    return file.with_name(stem + ".rules")


def read_perft(path: str | Path) -> list[PerftEntry]:
    """The entries of a counts file, every field checked; PerftError lists every problem."""
    path = Path(path)
    try:  # found beside the rules: read under the rule of `named_files`
        data = read_json(path, "move counts file", ".json")
    except GameError as err:
        raise PerftError([str(err)]) from None
    if not isinstance(data, dict) or data.get("format") != PERFT_FORMAT:
        raise PerftError([f"{path}: not a ruleforge move counts file (expected \"format\": \"{PERFT_FORMAT}\")"])
    problems = [f"{path}: unknown key '{k}'{suggest(k, list(FILE_KEYS))} (keys: {', '.join(FILE_KEYS)})"
                for k in data if k not in FILE_KEYS]
    owner = rules_file_of_perft(path).name
    if data.get("rules") != owner:
        problems.append(f"{path}: 'rules' must name the rules file it belongs to, \"{owner}\", "
                        f"not {_quoted(data.get('rules'))}")
    entries = data.get("counts")
    if not isinstance(entries, list) or not entries:
        raise PerftError([*problems, f"{path}: 'counts' must be a list of entries: "
                                     "{\"players\": N, \"seed\": S, \"options\": {...}, \"depth\": [counts]}"])
    if len(entries) > MOST_ENTRIES:
        raise PerftError([*problems, f"{path}: {len(entries):,} entries, more than the {MOST_ENTRIES:,} a counts "
                                     "file may hold"])
    found: list[PerftEntry] = []
    seen: dict[tuple, int] = {}
    budget = Budget(earlier_are="the entries before this one in its file")
    for index, entry in enumerate(entries, 1):
        got = _entry(path, index, entry, problems, budget)
        if got is None:
            continue
        key = (got.players, got.seed, tuple(sorted(got.options.items())))
        if key in seen:
            problems.append(f"{got.where}: the same players, seed and options as entry #{seen[key]}")
        seen.setdefault(key, index)
        found.append(got)
    if problems:
        raise PerftError(problems)
    return found


def _quoted(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _whole(value: Any) -> bool:
    return type(value) is int  # not a bool, not a float


def _entry(path: Path, index: int, entry: Any, problems: list[str], budget: Budget) -> PerftEntry | None:
    where = f"{path}: entry #{index}"
    if not isinstance(entry, dict):
        problems.append(f"{where}: an entry is an object: {{\"players\": N, \"seed\": S, \"options\": {{...}}, "
                        "\"depth\": [counts]}")
        return None
    before = len(problems)
    for key in entry:
        if key not in ENTRY_KEYS:
            problems.append(f"{where}: unknown key '{key}'{suggest(key, list(ENTRY_KEYS))} "
                            f"(keys: {', '.join(ENTRY_KEYS)})")
    players, seed = entry.get("players"), entry.get("seed", 0)
    if not _whole(players) or not 1 <= players <= 99:
        problems.append(f"{where}: 'players' must be a whole number of players, not {_quoted(players)}")
    if not _whole(seed) or abs(seed) >= 2 ** 63:
        problems.append(f"{where}: 'seed' must be a whole number (of at most 19 digits), not {_quoted(seed)}")
    generator = entry.get("generator", chance.LEGACY)
    if generator not in chance.GENERATORS:
        problems.append(f"{where}: 'generator' must be one of {', '.join(map(repr, chance.GENERATORS))} (none: the "
                        f"legacy {chance.LEGACY!r}), not {_quoted(generator)}")
    options = entry.get("options", {})
    if not isinstance(options, dict) or not all(isinstance(v, (bool, int, str)) for v in options.values()):
        problems.append(f"{where}: 'options' must be an object of option name -> value (a number, true or false, "
                        "or a text)")
        options = {}
    depth = entry.get("depth")
    if not isinstance(depth, list) or not depth or not all(_whole(c) and c >= 0 for c in depth):
        problems.append(f"{where}: 'depth' must be a list of counts (whole numbers of 0 or more) at depth 1, 2, ...")
    elif len(depth) > MAX_DEPTH:
        problems.append(f"{where}: 'depth' lists {len(depth)} counts, more than the {MAX_DEPTH} (depth 1 to "
                        f"{MAX_DEPTH}) a counts file may check")
    if len(problems) > before:
        return None
    return PerftEntry(players=players, seed=seed, options=dict(options), depth=tuple(depth), origin=path,
                      index=index, budget=budget, generator=generator)


def run_perft(rules: Rules, entry: PerftEntry, rules_file: str | Path) -> PerftOutcome:
    """Count the entry's game to its deepest depth and compare; a game that cannot start (a
    player count or option the rules refuse), a rule that fails or a walk past the positions
    its file may visit (`perft.TooManyPositions`) is an error outcome."""
    try:
        game = rules.new_game(entry.players, entry.seed, entry.options or None, generator=entry.generator)
        actual = counts(game, len(entry.depth), entry.budget)
    except GameError as err:
        return PerftOutcome(entry, str(rules_file), error=f"{entry.where}: {err}")
    return PerftOutcome(entry, str(rules_file), actual=tuple(actual))


def perft_text(rules_file: str | Path, entries: list[dict[str, Any]]) -> str:
    """A counts file's text: the format, the rules file's name, the entries as given, one a
    line, so that a changed count is one line of a diff and reads as such."""
    lines = [json.dumps(entry) for entry in entries]
    return (f'{{\n "format": {json.dumps(PERFT_FORMAT)},\n "rules": {json.dumps(Path(rules_file).name)},\n'
            ' "counts": [\n  ' + ",\n  ".join(lines) + "\n ]\n}\n")


def with_entry(existing: list[PerftEntry], new: dict[str, Any]) -> list[dict[str, Any]]:
    """The entries of a counts file with `new` put in: in place of the entry of the same players,
    seed and options, or else added, the entries ordered by players, then seed."""
    key = (new["players"], new["seed"], tuple(sorted(new["options"].items())))
    kept = [e.as_json() for e in existing
            if (e.players, e.seed, tuple(sorted(e.options.items()))) != key]
    return sorted([*kept, new], key=lambda e: (e["players"], e["seed"]))
