"""What a position scores, item by item: the one reading `ruleforge score`, `ruleforge test`
and the pytest plugin share, so an example's numbers are the numbers the command shows."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import attrs

from .diagnostics import GameError
from .engine import Game, player_name
from .model import Model
from .named_files import read_text

SO_FAR = "scored so far"
"""The item holding the points players had before (a position's score variables)."""


def final_scorings(model: Model) -> list[str]:
    """The scorings a position is scored by when none is named: those declared `final`."""
    return [name for name, decl in model.scorings.items() if decl.final]


def preview_rows(game: Game, names: list[str], so_far: bool = False) -> list[dict[str, int]]:
    """Per player each item's points under `names`, scored now, plus "total".

    With several scorings an item's label is prefixed by its scoring's name; the total is
    the sum of their totals. With `so_far`, the points players already have (a position's
    score variables: points of earlier scorings) come first and count in the total, when
    anyone has some.
    """
    rows: list[dict[str, int]] = [{} for _ in range(game.players)]
    totals = [0] * game.players
    if so_far:
        earlier = game.totals()
        if any(earlier):
            for p, points in enumerate(earlier):
                rows[p][SO_FAR] = points
                totals[p] = points
    for name in names:
        for p, preview in enumerate(game.preview_scoring(name)):
            for item, points in preview.items():
                if item == "total":
                    totals[p] += points
                else:
                    rows[p][item if len(names) == 1 else f"{name}: {item}"] = points
    for p, row in enumerate(rows):
        row["total"] = totals[p]
    return rows


def scoring_choices(game: Game, names: list[str]) -> list[dict[str, Any]]:
    """Per player, what the scorings' `best ... into v` lines choose now, by variable (the
    path a final scoring walks, say), shown as views show values."""
    out: list[dict[str, Any]] = [{} for _ in range(game.players)]
    for name in names:
        for p, chosen in enumerate(game.scoring_choices(name)):
            out[p].update(chosen)
    return out


@attrs.frozen
class Breakdown:
    """Every player's points item by item (scoring order, then "total") and the choices the
    scorings made: what a snapshot of a position's score keeps."""

    scorings: tuple[str, ...]
    rows: tuple[tuple[tuple[str, int], ...], ...]  # per player: (item, points), "total" last
    choices: tuple[tuple[tuple[str, Any], ...], ...] = ()  # per player: (variable, value)

    @classmethod
    def of(cls, game: Game, scorings: list[str] | tuple[str, ...] | None = None) -> Breakdown:
        """`game` scored by `scorings` now (by default its final scorings, with the points
        scored so far, as `ruleforge score` shows a position)."""
        names = list(scorings) if scorings else final_scorings(game.program.model)
        if not names:
            raise GameError(f"{game.program.model.title} declares no final scoring: name the scorings to use")
        rows = preview_rows(game, names, so_far=not scorings)
        choices = scoring_choices(game, names)
        return cls(tuple(names), tuple(tuple(row.items()) for row in rows),
                   tuple(tuple(c.items()) for c in choices))

    def row(self, player: int) -> dict[str, int]:
        return dict(self.rows[player])

    def totals(self) -> list[int]:
        return [dict(row)["total"] for row in self.rows]

    def lines(self) -> list[str]:
        """One line per player and item, in a stable order: `P1 bonus = 20`; a choice
        as `P1 path: grid(P1)[4,3] → ...`. Meant to be read in a diff."""
        out = [f"scored by {', '.join(self.scorings)}"]
        for p, row in enumerate(self.rows):
            who = player_name(p)
            out += [f"{who} {item} = {points}" for item, points in row]
            for var, value in self.choices[p] if self.choices else ():
                out.append(f"{who} {var}: {show_choice(value)}")
        return out

    def text(self) -> str:
        return "\n".join(self.lines())

    def as_json(self) -> dict[str, Any]:
        scores = []
        for p, row in enumerate(self.rows):
            entry: dict[str, Any] = {"player": player_name(p), "total": dict(row)["total"],
                                     "breakdown": {k: v for k, v in row if k != "total"}}
            if self.choices and self.choices[p]:
                entry["choices"] = dict(self.choices[p])
            scores.append(entry)
        return {"scorings": list(self.scorings), "scores": scores}


def show_choice(value: Any) -> str:
    """A chosen value on one line: a list (a path's cells) joined by arrows."""
    return " → ".join(map(str, value)) if isinstance(value, list) else str(value)


def read_json(path: str | Path, what: str, suffix: str | None = None) -> Any:
    """A JSON document from a file, every way of failing (not a file, not text, not JSON,
    nested deeper than Python's parser goes) one GameError naming the file. With `suffix`, the
    file was not named by the user (found beside a rules file, named by another file) and is
    read under the rule for such files (`named_files`): a regular file whose name ends in
    `suffix`, outside /proc, /sys and /dev, at most `file_bytes`."""
    file = Path(path)
    try:
        if suffix is not None:
            text = read_text(file, suffix, what)
        else:
            if file.exists() and not file.is_file():  # a folder, or a pipe that would wait for ever
                raise GameError(f"cannot read {what} '{path}': it is not a file")
            text = file.read_text(encoding="utf-8-sig")
    except OSError as err:
        raise GameError(f"cannot read {what} '{path}': {err.strerror or err}") from None
    except UnicodeDecodeError:
        raise GameError(f"{what} '{path}' is not UTF-8 text") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise GameError(f"{what} '{path}' is not valid JSON: line {err.lineno} column {err.colno}: "
                        f"{err.msg}") from None
    except RecursionError:
        raise GameError(f"{what} '{path}' nests lists or objects too deep to be read (no ruleforge "
                        "document nests more than a few levels)") from None
    except ValueError:  # Python refuses to convert a whole number of thousands of digits
        raise GameError(f"{what} '{path}' has a number of more than {sys.get_int_max_str_digits():,} "
                        "digits, too long to be read") from None
