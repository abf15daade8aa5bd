"""What a picture may know about a component from its label alone, built once per program.

A view names components by label only. To draw a label with its colour and paths, a picture
needs the label's kind and attributes: they are read from a NEW game of the same rules,
player count and options (never from the game being drawn, whose state a player may not
see). A label may stand for several components that differ (two `Card`s both labelled `?`);
only the attributes on which all of them agree are kept, so drawing a label reveals nothing
the label does not. A view lists only the properties set away from their initial value, so
each kind's initial values are kept too, to know a property the view leaves out.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..display import KindDisplay
from ..inspection import plain_value

if TYPE_CHECKING:
    from ..rules import Rules

_DISAGREE = object()  # an attribute's value where components sharing a label differ


@dataclass(frozen=True)
class Entry:
    """One label: its kind (None when components of several kinds share it) and the
    attributes all its components agree on."""

    kind: str | None
    attributes: Mapping[str, Any]


@dataclass(frozen=True)
class Picture:
    """Everything needed to draw views of one program: the label catalogue, each kind's
    initial property values (as views write them) and the display hints by kind."""

    title: str
    labels: Mapping[str, Entry] = field(default_factory=dict)
    initial: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # kind -> property -> value
    hints: Mapping[str, KindDisplay] = field(default_factory=dict)
    # drawings already made, by label, properties and size (`draw.component_svg`): a replay
    # draws the same cards at every step
    drawings: dict[tuple, str] = field(default_factory=dict, compare=False, repr=False)

    def entry(self, label: str) -> Entry | None:
        return self.labels.get(label)


def make_picture(rules: Rules, players: int, options: Mapping[str, Any] | None = None,
                 hints: Mapping[str, KindDisplay] | None = None) -> Picture:
    """The Picture of `rules` for `players` and `options`: the catalogue from a new game
    (seed 0), the hints given or else the rules' own (`rules.display`, when the language has it)."""
    game = rules.new_game(players, 0, dict(options) if options else None)
    found: dict[str, tuple[set[str], dict[str, Any]]] = {}
    for label, kind, given in _components(game):
        kinds, attributes = found.setdefault(label, (set(), dict(given)))
        kinds.add(kind)
        for name in set(attributes) | set(given):
            if attributes.get(name, _DISAGREE) != given.get(name, _DISAGREE):
                attributes[name] = _DISAGREE
    labels = {}
    for label, (kinds, attributes) in found.items():
        kind = next(iter(kinds)) if len(kinds) == 1 else None
        kept = {name: value for name, value in attributes.items() if value is not _DISAGREE}
        labels[label] = Entry(kind, kept if kind is not None else {})
    if hints is None:
        hints = getattr(rules, "display", None) or {}
    return Picture(title=rules.title, labels=labels, initial=initial_properties(game),
                   hints={name: hint for name, hint in hints.items() if isinstance(hint, KindDisplay)})


def _components(game: Any) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Each component's label, kind and attributes, read from the program: what
    `game.component_info` says of them, without finding each one's place in its zone (a pile of
    100,000 made that quadratic)."""
    prog = game.program
    kinds = prog.model.kinds
    columns = {name: prog.namespace[f"A_{name}"] for info in kinds.values() for name in info.attrs}
    for component, kind in enumerate(prog.comp_kind):
        attributes = {name: plain_value(columns[name][component]) for name in kinds[kind].attrs}
        yield prog.comp_label[component], kind, attributes


def initial_properties(game: Any) -> dict[str, dict[str, Any]]:
    """Each kind's properties at their initial values, written as a view writes a set one
    (ints and flags as they are, anything else as text: `none`, `P1`, a label)."""
    prog = game.program
    kinds = prog.model.kinds
    types = prog.model.attr_types
    out: dict[str, dict[str, Any]] = {}
    for kind, info in kinds.items():
        values = {}
        for k, name in enumerate(prog.props):
            if name in info.props:
                value = prog.prop_init[k]
                shown = types[name][0].kind if name in types else "any"
                values[name] = value if shown in ("int", "flag") else game.show_value(shown, value)
        out[kind] = values
    return out
