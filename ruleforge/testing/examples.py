"""Scoring examples as data beside a rules file: reading them, and a variant inheriting its
base's. A rules file `foo.rules` keeps its examples in `foo.examples.json` (docs/testing.md)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import attrs

from ..diagnostics import GameError, did_you_mean
from ..named_files import refusal
from ..position import POSITION_FORMAT
from ..scoresheet import read_json

EXAMPLES_FORMAT = "ruleforge-examples/1"
EXAMPLES_SUFFIX = ".examples.json"
EXAMPLE_KEYS = ("name", "source", "note", "position", "play", "scoring", "expect", "choices", "values", "legal",
                "refused")
LEGAL_KEYS = ("offered", "not offered")
SEAT = re.compile(r"P([1-9][0-9]*)$")


class FileProblems(GameError):
    """A file of a designer's checks that cannot be read as one: every problem found, one per line."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


class ExamplesError(FileProblems):
    """An examples file that cannot be read as examples."""


@attrs.frozen(eq=False)
class Example:
    """One worked example: a position and what it must score, with where it comes from."""

    name: str
    source: str
    position: dict[str, Any]
    scorings: tuple[str, ...]  # () for the scorings declared final
    expect: dict[int, dict[str, int]]  # seat -> item (or "total") -> points
    choices: dict[int, dict[str, Any]]  # seat -> variable -> value as views show it
    values: dict[str, Any]  # expression -> value as views show it
    player_values: dict[int, dict[str, Any]]  # seat -> expression (with p bound) -> value
    refused: str | None  # the position must be refused, with a message holding this text
    note: str
    origin: Path  # the examples file it is written in
    index: int  # its place in that file, from 1
    replaces: Path | None = None  # the base examples file whose example of this name it replaces
    play: tuple[str, ...] = ()  # actions (by label) played from the position before any check
    offered: tuple[str, ...] = ()  # actions (by label) the decision then reached must offer
    not_offered: tuple[str, ...] = ()  # and those it must not

    @property
    def where(self) -> str:
        return f"{self.origin}: example #{self.index} '{self.name}'"


def examples_file(rules_file: str | Path) -> Path:
    """Where the examples of a rules file live: beside it, `foo.rules` -> `foo.examples.json`."""
    path = Path(rules_file)
    stem = path.name[:-len(".rules")] if path.name.endswith(".rules") else path.stem
    return path.with_name(stem + EXAMPLES_SUFFIX)


def rules_file_of(examples: str | Path) -> Path:
    """The rules file an examples file belongs to: `foo.examples.json` -> `foo.rules`."""
    path = Path(examples)
    stem = path.name[:-len(EXAMPLES_SUFFIX)] if path.name.endswith(EXAMPLES_SUFFIX) else path.stem
    return path.with_name(stem + ".rules")


def load_examples(rules_files: list[str | Path], own: str | Path | None = None) -> list[Example]:
    """The examples a rules file runs: those of its bases first (`rules_files` is the file and
    the bases it extends, the file first, as `Rules.files` lists them), then its own. An example
    named as a base's replaces it in place; a file's `drop` list leaves base examples out.
    `own` names the file's own examples file instead of the one beside it."""
    chain = [Path(f) for f in rules_files]
    found: dict[str, Example] = {}
    problems: list[str] = []
    for depth, rules_file in reversed(list(enumerate(chain))):
        path = Path(own) if depth == 0 and own is not None else examples_file(rules_file)
        if not path.is_file() and not (depth == 0 and own is not None):
            continue
        try:
            examples, drops = read_examples(path)
        except ExamplesError as err:
            problems += err.problems
            continue
        for name in drops:
            if name not in found:
                problems.append(f"{path}: drop: no base example named '{name}'{suggest(name, list(found))}")
            found.pop(name, None)
        for example in examples:
            base = found.get(example.name)
            # a base example of this name is replaced in place
            found[example.name] = attrs.evolve(example, replaces=base.origin) if base else example
    if problems:
        raise ExamplesError(problems)
    return list(found.values())


def read_examples(path: Path) -> tuple[list[Example], list[str]]:
    """The examples written in one file and the base examples it drops; ExamplesError lists
    every problem found in it."""
    data = read_json(path, "examples file", ".json")
    if not isinstance(data, dict) or data.get("format") != EXAMPLES_FORMAT:
        raise ExamplesError([f"{path}: not a ruleforge examples file (expected \"format\": \"{EXAMPLES_FORMAT}\")"])
    problems = [f"{path}: unknown key '{k}' (keys: format, examples, drop)" for k in data
                if k not in ("format", "examples", "drop")]
    entries = data.get("examples", [])
    if not isinstance(entries, list):
        raise ExamplesError([f"{path}: 'examples' must be a list of examples"])
    drops = data.get("drop", [])
    if not isinstance(drops, list) or not all(isinstance(d, str) for d in drops):
        problems.append(f"{path}: 'drop' must be a list of base example names")
        drops = []
    examples: list[Example] = []
    seen: set[str] = set()
    for index, entry in enumerate(entries, 1):
        try:
            example = _example(path, index, entry)
        except ExamplesError as err:
            problems += err.problems
            continue
        if example.name in seen:
            problems.append(f"{example.where}: a second example of this name (names must differ)")
        seen.add(example.name)
        examples.append(example)
    if problems:
        raise ExamplesError(problems)
    return examples, list(drops)


def _example(path: Path, index: int, entry: Any) -> Example:
    name = entry.get("name") if isinstance(entry, dict) else None
    where = f"{path}: example #{index}" + (f" '{name}'" if isinstance(name, str) else "")
    if not isinstance(entry, dict):
        raise ExamplesError([f"{where}: an example is an object with a name, a source, a position and what it "
                             "must score"])
    problems = []
    for key in entry:
        if key not in EXAMPLE_KEYS:
            problems.append(f"{where}: unknown key '{key}'{suggest(key, list(EXAMPLE_KEYS))} "
                            f"(keys: {', '.join(EXAMPLE_KEYS)})")
    for key in ("name", "source"):
        if not isinstance(entry.get(key), str) or not entry[key].strip():
            problems.append(f"{where}: '{key}' must be a text" + (" (where the example comes from: a rulebook "
                                                                  "page, a ruling, or 'ours')" if key == "source"
                                                                  else ""))
    if "note" in entry and not isinstance(entry["note"], str):
        problems.append(f"{where}: 'note' must be a text")
    refused = entry.get("refused")
    if refused is not None and (not isinstance(refused, str) or not refused.strip()):
        problems.append(f"{where}: 'refused' must be a text: what the message refusing the position says")
    if refused is not None and any(key in entry for key in ("expect", "choices", "values", "scoring", "play",
                                                            "legal")):
        problems.append(f"{where}: a refused position scores nothing: 'refused' goes without expect, choices, "
                        "values, legal, play and scoring")
    if not any(key in entry for key in ("expect", "choices", "values", "legal", "refused")):
        problems.append(f"{where}: nothing to check: give 'expect' (points per player), 'choices', 'values', "
                        "'legal' or 'refused'")
    position = _position(path, where, entry.get("position"), problems)
    scorings = _scorings(where, entry.get("scoring"), problems)
    expect = _per_seat(where, "expect", entry.get("expect", {}), problems, points=True)
    choices = _per_seat(where, "choices", entry.get("choices", {}), problems)
    values, player_values = _values(where, entry.get("values", {}), problems)
    play = _labels(where, "play", entry.get("play", []), problems)
    offered, not_offered = _legal(where, entry["legal"], problems) if "legal" in entry else ((), ())
    if problems:
        raise ExamplesError(problems)
    return Example(name=entry["name"], source=entry["source"], position=position, scorings=scorings,
                   expect=expect, choices=choices, values=values, player_values=player_values,
                   refused=refused if isinstance(refused, str) else None, note=entry.get("note", ""),
                   origin=path, index=index, play=play, offered=offered, not_offered=not_offered)


def _position(path: Path, where: str, value: Any, problems: list[str]) -> dict[str, Any]:
    """The position, written in the example or in a file named relative to the examples file."""
    if isinstance(value, str):
        why = refusal(path.parent / value, ".json")  # the examples file may be a stranger's
        if why is not None:
            problems.append(f"{where}: position: {value!r} is not a position file: {why}")
            return {}
        try:
            value = read_json(path.parent / value, "position file", ".json")
        except GameError as err:
            problems.append(f"{where}: position: {err}")
            return {}
    if not isinstance(value, dict) or value.get("format") != POSITION_FORMAT:
        problems.append(f"{where}: 'position' must be a position (an object with \"format\": \"{POSITION_FORMAT}\", "
                        "see docs/positions.md) or the path of a position file")
        return {}
    return value


def _scorings(where: str, value: Any, problems: list[str]) -> tuple[str, ...]:
    if value is None:
        return ()
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        problems.append(f"{where}: 'scoring' must be a scoring's name or a list of names")
        return ()
    return tuple(dict.fromkeys(names))


def seat_of(key: str) -> int | None:
    """`P3` -> 2; anything else None."""
    match = SEAT.match(key)
    return int(match.group(1)) - 1 if match else None


def _per_seat(where: str, key: str, value: Any, problems: list[str], points: bool = False) -> dict[int, dict]:
    """`{"P1": {...}, "P2": {...}}`, checked: seats, and whole numbers where points are meant."""
    if not isinstance(value, dict):
        problems.append(f"{where}: '{key}' must be an object by seat: {{\"P1\": {{...}}, ...}}")
        return {}
    out: dict[int, dict] = {}
    for seat, entries in value.items():
        p = seat_of(seat)
        if p is None:
            problems.append(f"{where}: {key}: '{seat}' is not a seat (P1, P2, ...)")
            continue
        if not isinstance(entries, dict) or not entries:
            problems.append(f"{where}: {key}: {seat}: must be an object of "
                            + ("item -> points" if points else "variable -> value"))
            continue
        if points:
            for item, number in entries.items():
                if type(number) is not int:
                    problems.append(f"{where}: {key}: {seat}: '{item}': points are a whole number, not {number!r}")
        out[p] = dict(entries)
    return out


def _values(where: str, value: Any, problems: list[str]) -> tuple[dict[str, Any], dict[int, dict[str, Any]]]:
    """Expressions to evaluate: at the top level as they are, under a seat with `p` bound."""
    if not isinstance(value, dict):
        problems.append(f"{where}: 'values' must be an object: expression -> value, or seat -> {{expression: value}}")
        return {}, {}
    plain = {k: v for k, v in value.items() if seat_of(k) is None}
    seats = _per_seat(where, "values", {k: v for k, v in value.items() if seat_of(k) is not None}, problems)
    return plain, seats


def _labels(where: str, key: str, value: Any, problems: list[str]) -> tuple[str, ...]:
    """A list of actions as `ruleforge play` prints them."""
    if not isinstance(value, list) or not all(isinstance(x, str) and x.strip() for x in value):
        problems.append(f"{where}: '{key}' must be a list of actions as `ruleforge play` prints them")
        return ()
    return tuple(value)


def _legal(where: str, value: Any, problems: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """`{"offered": [...], "not offered": [...]}`: actions the decision reached must (not) offer."""
    if not isinstance(value, dict):
        problems.append(f"{where}: 'legal' must be an object: {{\"offered\": [actions], \"not offered\": [actions]}}")
        return (), ()
    for key in value:
        if key not in LEGAL_KEYS:
            problems.append(f"{where}: legal: unknown key '{key}'{suggest(key, list(LEGAL_KEYS))} "
                            "(keys: offered, not offered)")
    offered = _labels(where, "legal: offered", value.get("offered", []), problems)
    not_offered = _labels(where, "legal: not offered", value.get("not offered", []), problems)
    if not offered and not not_offered and not any(key not in LEGAL_KEYS for key in value):
        problems.append(f"{where}: legal: nothing to check: list actions under 'offered' or 'not offered'")
    return offered, not_offered


def suggest(word: str, choices: list[str]) -> str:
    """`; did you mean 'x'?` for a misspelt name, or nothing."""
    hint = did_you_mean(word, choices)
    return f"; {hint}" if hint else ""
