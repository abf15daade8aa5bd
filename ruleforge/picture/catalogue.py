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

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..display import KindDisplay

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

    def entry(self, label: str) -> Entry | None:
        return self.labels.get(label)


def make_picture(rules: Rules, players: int, options: Mapping[str, Any] | None = None,
                 hints: Mapping[str, KindDisplay] | None = None) -> Picture:
    """The Picture of `rules` for `players` and `options`: the catalogue from a new game
    (seed 0), the hints given or else the rules' own (`rules.display`, when the language has it)."""
    game = rules.new_game(players, 0, dict(options) if options else None)
    found: dict[str, tuple[set[str], dict[str, Any]]] = {}
    for component in game.components():
        info = game.component_info(component)
        kinds, attributes = found.setdefault(info.label, (set(), dict(info.attributes)))
        kinds.add(info.kind)
        for name in set(attributes) | set(info.attributes):
            if attributes.get(name, _DISAGREE) != info.attributes.get(name, _DISAGREE):
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
