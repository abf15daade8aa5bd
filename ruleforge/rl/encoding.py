"""A seat's view as a fixed-length vector, and an action as a fixed vocabulary of pieces.

Learning code wants numbers of a fixed shape, while a view is a document whose lists grow
and shrink. Everything here is worked out once per rules file, player count and options, from a
NEW game (seed 0) and the program's declarations (the zone keys, the component labels, the
variables and their types): never from the game being played, so the shapes cannot depend on
a deal. `Encoding.encode` then reads only `game.view(seat, properties=True)`: what is hidden
from the seat cannot reach the vector (tests/test_rl_pettingzoo.py checks it against
`game.determinize`).

Actions are chosen a piece at a time (`PieceChooser`), as the human front ends do: the action's
name, then each parameter's value (a component by label, a zone or cell by key, a player, an
enum member, a flag, an int). Numbering every whole action would need the legal actions of
every state, which only playing can find; the pieces are known from the declarations and stay
few. docs/rl.md lists the layout of both.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..diagnostics import GameError
from ..limits import LIMITS, describe

if TYPE_CHECKING:
    from ..engine import Game
    from ..rules import Rules

# The ints an action parameter may take as a piece: a rules file whose int parameters go
# beyond raises GameError when such an action is offered (give `int_range` to widen it).
INT_RANGE = (0, 31)

# Parameter kinds of `program.action_params` -> the piece kind that names their values.
PIECE_KIND = {"comp": "component", "zone": "zone", "player": "player", "enum": "enum", "flag": "flag",
              "int": "int"}


@dataclass(frozen=True)
class Segment:
    """A named run of the vector: `size` numbers from `start`."""

    name: str
    start: int
    size: int


def _type_name(decl: Any) -> str:
    return decl.type.name if decl.type is not None else ""


class Encoding:
    """The vector layout of one rules file, player count and options (docs/rl.md)."""

    def __init__(self, rules: Rules, players: int, options: Mapping[str, Any] | None = None):
        from ..picture.catalogue import make_picture

        self.players = players
        self.path = rules.path
        game = rules.new_game(players, 0, dict(options) if options else None)
        model = game.program.model
        picture = make_picture(rules, players, options)
        self.title = rules.title
        self.action_names = [a.name for a in game.program.actions]
        self.most_params = max((len(p) for p in game.program.action_params), default=0)
        self.seats = [f"P{k + 1}" for k in range(players)]
        self.zone_keys: list[str] = list(game.view(None)["zones"])
        self.labels: list[str] = sorted(picture.labels)
        self.labels_tuple = tuple(self.labels)
        self.label_kind = {label: entry.kind for label, entry in picture.labels.items()}
        self.initial = picture.initial
        self.enums: dict[str, tuple[str, ...]] = {name: tuple(m for m, _ in decl.members)
                                                  for name, decl in model.enums.items()}
        # Zones some seat (or a spectator) cannot see: their last `reveal` is kept apart.
        views = [game.view(None)] + [game.view(p) for p in range(players)]
        self.hideable = [key for key in self.zone_keys if any(isinstance(v["zones"][key], dict) for v in views)]
        # Changeable properties by name: how each is counted in a zone (others are skipped).
        self.props: dict[str, tuple[str, ...]] = {}
        for kind in model.kinds.values():
            for name, decl in kind.props.items():
                values = self._values_of(_type_name(decl))
                if values is not None:
                    self.props.setdefault(name, values)
        # Variables as the view keys them, with the values each is one-hot over (() for a number).
        self.vars: dict[str, tuple[str, ...]] = {}
        for name, decl in model.vars.items():
            values = self._values_of(_type_name(decl))
            if values is None:
                continue
            for key in ([f"{name}({s})" for s in self.seats] if decl.per_player else [name]):
                self.vars[key] = values
        self._label_index = {label: i for i, label in enumerate(self.labels)}
        self._canonical: dict[str, str | None] = {label: label for label in self.labels}
        self._zone_index = {key: i for i, key in enumerate(self.zone_keys)}
        self._hide_index = {key: i for i, key in enumerate(self.hideable)}
        n, z, labels = players, len(self.zone_keys), len(self.labels)
        prop_width = sum(max(1, len(v)) for v in self.props.values())
        sizes = [("viewer", n), ("to_act", n), ("over", 1), ("together_choosers", n), ("together_chosen", n),
                 ("zone_sizes", z), ("zone_hidden", z), ("zone_labels", z * labels), ("zone_unlisted", z),
                 ("zone_properties", z * prop_width), ("seen_labels", len(self.hideable) * labels),
                 ("vars", sum(max(1, len(v)) for v in self.vars.values()))]
        why = {"zone_labels": f"{z:,} zones × {labels:,} labels",
               "zone_properties": f"{z:,} zones × {prop_width:,} property values",
               "seen_labels": f"{len(self.hideable):,} zones some seat cannot see × {labels:,} labels"}
        self.segments: dict[str, Segment] = {}
        start = 0
        for name, size in sizes:
            self.segments[name] = Segment(name, start, size)
            start += size
        self.size = start
        self._prop_width = prop_width
        # the runs with how they are counted, for a message: checked here and with the pieces (`Pieces`)
        self.parts = [(name, size, why.get(name, "")) for name, size in sizes]
        self.check_size(self.parts)

    def check_size(self, parts: Sequence[tuple[str, int, str]]) -> None:
        """Refuse a layout of more numbers than `observation_size`, before any array is made:
        zones times labels grow fast (a grid of 10,000 cells and 100,000 components is 10^9
        numbers, 4 GB of float32), and numpy would fail deep inside an adapter instead. `parts`:
        each run's name, size and how it is counted."""
        total = sum(size for _, size, _ in parts)
        if total <= LIMITS.observation_size:
            return
        name, size, how = max(parts, key=lambda part: part[1])
        why = f" = {how}" if how else ""
        people = "1 player" if self.players == 1 else f"{self.players} players"
        raise GameError(f"{self.path}: an RL observation of this game for {people} would hold {total:,} numbers, "
                        f"the most of them in {name} ({size:,}{why}): too many to encode "
                        f"({describe('observation_size')})")

    def _values_of(self, type_name: str) -> tuple[str, ...] | None:
        """() for a number (int, flag), the members to be one-hot over (players, an enum's, the
        labels for a component), None for a type left out (zones, lists, text)."""
        if type_name in ("int", "flag"):
            return ()
        if type_name == "player":
            return tuple(self.seats)
        if type_name in self.enums:
            return self.enums[type_name]
        if type_name in self.label_kind.values():
            return self.labels_tuple
        return None

    def canonical(self, label: str) -> str | None:
        """The catalogue's label for a label seen in play. A label may show a changeable
        property (`#7 Red (held by P2)`), which a new game's catalogue cannot list:
        it stands for the longest catalogue label it begins with (followed by a space); None
        when there is none."""
        if label not in self._canonical:
            found = [known for known in self.labels if label.startswith(known + " ")]
            self._canonical[label] = max(found, key=len) if found else None
        return self._canonical[label]

    def label_index(self, label: str) -> int | None:
        known = self.canonical(label)
        return None if known is None else self._label_index[known]

    def encode(self, view: Mapping[str, Any]) -> np.ndarray:
        """The vector of one view (`game.view(seat, properties=True)`), float32."""
        out = np.zeros(self.size, dtype=np.float32)
        seg = self.segments
        seat = {s: i for i, s in enumerate(self.seats)}
        if view.get("viewer") in seat:
            out[seg["viewer"].start + seat[view["viewer"]]] = 1
        if view.get("to_act") in seat:
            out[seg["to_act"].start + seat[view["to_act"]]] = 1
        out[seg["over"].start] = 1.0 if view.get("over") else 0.0
        together = view.get("together") or {}
        for name, field in (("together_choosers", "choosers"), ("together_chosen", "chosen")):
            for s in together.get(field, ()):
                if s in seat:
                    out[seg[name].start + seat[s]] = 1
        labels = len(self.labels)
        properties = view.get("properties") or {}
        for key, contents in view["zones"].items():
            z = self._zone_index.get(key)
            if z is None:
                continue
            if isinstance(contents, dict):
                out[seg["zone_sizes"].start + z] = contents.get("hidden", 0)
                out[seg["zone_hidden"].start + z] = 1
                continue
            out[seg["zone_sizes"].start + z] = len(contents)
            base = seg["zone_labels"].start + z * labels
            for label in contents:
                index = self.label_index(label)
                if index is not None:
                    out[base + index] += 1
                else:
                    out[seg["zone_unlisted"].start + z] += 1
            if self.props:
                self._properties(out, seg["zone_properties"].start + z * self._prop_width, contents,
                                 properties.get(key))
        for entry in view.get("seen") or ():
            h = self._hide_index.get(entry.get("zone"))
            if h is None:
                continue
            base = seg["seen_labels"].start + h * labels
            out[base:base + labels] = 0  # the latest showing of a zone is what the seat knows of it
            for label in entry.get("contents") or ():
                index = self.label_index(label) if isinstance(label, str) else None
                if index is not None:
                    out[base + index] += 1
        at = seg["vars"].start
        shown = view.get("vars") or {}
        for key, values in self.vars.items():
            value = shown.get(key)
            if not values:
                if isinstance(value, bool | int):
                    out[at] = float(value)
                at += 1
                continue
            if isinstance(value, str) and values is self.labels_tuple:
                value = self.canonical(value)
            if isinstance(value, str) and value in values:
                out[at + values.index(value)] = 1
            at += len(values)
        return out

    def _properties(self, out: np.ndarray, base: int, contents: Sequence[str], props: Sequence[Any] | None) -> None:
        """Per property: the sum of a number over the zone's components, or per value the count
        of components holding it; a property the view leaves out has its kind's initial value."""
        for i, label in enumerate(contents):
            given = props[i] if props is not None and i < len(props) else {}
            initial = self.initial.get(self.label_kind.get(self.canonical(label) or "") or "", {})
            at = base
            for name, values in self.props.items():
                value = given.get(name, initial.get(name))
                if not values:
                    if isinstance(value, bool | int):
                        out[at] += float(value)
                    at += 1
                else:
                    if isinstance(value, str) and values is self.labels_tuple:
                        value = self.canonical(value)
                    if isinstance(value, str) and value in values:
                        out[at + values.index(value)] += 1
                    at += len(values)

    def describe(self) -> list[tuple[str, int, int]]:
        """(segment, start, size) in order: the layout docs/rl.md explains."""
        return [(s.name, s.start, s.size) for s in self.segments.values()]


class Pieces:
    """The fixed numbering of the pieces actions are chosen by, for one program.

    In order: every action name, every component label, every zone or cell key, the seats
    P1..Pn, every member of every enum (each name once), the flags `false` and `true`, then the
    ints of `int_range`. A piece is named `kind:value` (`action:play`, `component:Guard`,
    `zone:board(P1)[2,3]`, `player:P2`, `enum:north`, `flag:true`, `int:4`)."""

    def __init__(self, encoding: Encoding, int_range: tuple[int, int] = INT_RANGE):
        members = list(dict.fromkeys(m for values in encoding.enums.values() for m in values))
        ints = range(int_range[0], int_range[1] + 1)
        self.size = (len(encoding.action_names) + len(encoding.labels) + len(encoding.zone_keys)
                     + len(encoding.seats) + len(members) + 2 + len(ints))
        self.depth = 1 + encoding.most_params
        self.encoding = encoding
        # the observation the environments give: the view's numbers, then a row of pieces per
        # step; checked before a name is made (a wide `int_range` is as many names)
        encoding.check_size([*encoding.parts, ("pieces_chosen", self.depth * self.size,
                                               f"{self.depth} step{'s' if self.depth > 1 else ''} × "
                                               f"{self.size:,} pieces")])
        names = [f"action:{a}" for a in encoding.action_names]
        names += [f"component:{label}" for label in encoding.labels]
        names += [f"zone:{key}" for key in encoding.zone_keys]
        names += [f"player:{s}" for s in encoding.seats]
        names += [f"enum:{m}" for m in members]
        names += ["flag:false", "flag:true"]
        names += [f"int:{k}" for k in ints]
        self.names = names
        self.index = {name: i for i, name in enumerate(names)}

    def key(self, game: Game, action: Any) -> tuple[int, ...]:
        """The pieces of one legal action: its name, then its parameters' values."""
        parts = game.action_parts(action)
        kinds = game.program.action_params[action[0]]
        out = [self.index[f"action:{parts.name}"]]
        for (_, kind), (name, text) in zip(kinds, parts.params):
            if kind == "comp":
                text = self.encoding.canonical(text) or text
            piece = f"{PIECE_KIND.get(kind, kind)}:{text}"
            if piece not in self.index:
                raise GameError(f"action {parts.name}: parameter {name} = {text} has no piece in the fixed "
                                "numbering (an int outside int_range? docs/rl.md)")
            out.append(self.index[piece])
        return tuple(out)


def make_codec(rules: Rules, players: int, options: Mapping[str, Any] | None = None,
               int_range: tuple[int, int] = INT_RANGE) -> tuple[Encoding, Pieces]:
    """The encoding and the piece numbering of one rules file, player count and options."""
    encoding = Encoding(rules, players, options)
    return encoding, Pieces(encoding, int_range)


class PieceChooser:
    """One decision, chosen a piece at a time.

    Each step allows the pieces that continue some legal action (`mask`). A piece all the
    remaining actions share is taken without asking, except that every decision asks at least
    once (its action name, even when only one is legal), so an agent sees each of its decisions.
    Actions with the same pieces (two components with one label) are alike to the seat: the
    first is taken."""

    def __init__(self, pieces: Pieces, game: Game):
        self.pieces = pieces
        self.actions = game.legal_actions()
        self.keys = [pieces.key(game, a) for a in self.actions]
        self.chosen: list[int] = []
        self.action: Any = None
        self._allowed: list[int] = []
        self._advance()

    def _advance(self) -> None:
        while True:
            n = len(self.chosen)
            prefix = tuple(self.chosen)
            candidates = [i for i, k in enumerate(self.keys) if k[:n] == prefix]
            if n and len({self.keys[i] for i in candidates}) == 1:
                self.action = self.actions[candidates[0]]
                self._allowed = []
                return
            values = sorted({self.keys[i][n] for i in candidates if len(self.keys[i]) > n})
            if n and len(values) == 1:
                self.chosen.append(values[0])
                continue
            self._allowed = values
            return

    @property
    def allowed(self) -> list[int]:
        """The pieces the next step may take, ascending."""
        return list(self._allowed)

    def mask(self) -> np.ndarray:
        out = np.zeros(self.pieces.size, dtype=np.int8)
        out[self._allowed] = 1
        return out

    def choose(self, piece: int) -> Any:
        """Take one piece; the action once the pieces name one, else None."""
        if piece not in self._allowed:
            raise GameError(f"piece {piece} ({self._name(piece)}) does not continue a legal action here")
        self.chosen.append(piece)
        self._advance()
        return self.action

    def _name(self, piece: int) -> str:
        return self.pieces.names[piece] if 0 <= piece < self.pieces.size else "out of range"

    def chosen_vector(self) -> np.ndarray:
        """The pieces chosen so far, one one-hot row per step: part of the acting seat's observation."""
        out = np.zeros((self.pieces.depth, self.pieces.size), dtype=np.float32)
        for step, piece in enumerate(self.chosen[:self.pieces.depth]):
            out[step, piece] = 1
        return out.reshape(-1)


def final_rewards(game: Game) -> list[float]:
    """The reward of each seat at the end: +1 for a winner, -1 for every other seat, and 0 for
    all when every seat shares the win (a draw in a two-player game)."""
    winners = set(game.winners())
    if len(winners) == game.players:
        return [0.0] * game.players
    return [1.0 if p in winners else -1.0 for p in range(game.players)]


class Table:
    """A game played a piece at a time: what both adapters share.

    `observation(seat)` is the seat's view encoded, followed by the pieces chosen so far in the
    current decision (zeros unless the seat is choosing), so the policy knows which step it is
    at. `decisions` counts the actions applied to the game."""

    def __init__(self, rules: Rules, players: int, options: Mapping[str, Any] | None = None,
                 int_range: tuple[int, int] = INT_RANGE, codec: tuple[Encoding, Pieces] | None = None):
        self.rules = rules
        self.players = players
        self.options = dict(options) if options else None
        self.encoding, self.pieces = codec or make_codec(rules, players, options, int_range)
        self.size = self.encoding.size + self.pieces.depth * self.pieces.size
        self.game: Game | None = None
        self.chooser: PieceChooser | None = None
        self.decisions = 0
        self.moves: list[int] = []  # every piece chosen since the start: the game's record
        # by (game, seat): the observation since the last move (OpenSpiel asks for it often)
        self._seen: dict[tuple[int, int], np.ndarray] = {}

    def __deepcopy__(self, memo: dict) -> Table:
        """A copy playing on independently: the game cloned, the layout (read-only) shared."""
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.moves = list(self.moves)
        other._seen = {}
        if self.game is not None:
            other.game = self.game.clone()
        if self.chooser is not None:
            other.chooser = copy.copy(self.chooser)
            other.chooser.chosen = list(self.chooser.chosen)
            other.chooser._allowed = list(self.chooser._allowed)
        return other

    def start(self, seed: int) -> None:
        self.game = self.rules.new_game(self.players, seed, self.options)
        self.decisions = 0
        self.moves = []
        self._seen = {}
        self._next()

    def _next(self) -> None:
        assert self.game is not None
        self.chooser = None if self.game.is_over else PieceChooser(self.pieces, self.game)

    @property
    def to_act(self) -> int | None:
        return None if self.game is None or self.game.is_over else self.game.current_player

    def observation(self, seat: int) -> np.ndarray:
        assert self.game is not None
        key = (id(self.game), seat)
        if key not in self._seen:
            out = np.zeros(self.size, dtype=np.float32)
            out[:self.encoding.size] = self.encoding.encode(self.game.view(seat, properties=True))
            if self.chooser is not None and seat == self.to_act:
                out[self.encoding.size:] = self.chooser.chosen_vector()
            self._seen = {k: v for k, v in self._seen.items() if k[0] == key[0]}
            self._seen[key] = out
        return self._seen[key].copy()

    def mask(self, seat: int) -> np.ndarray:
        if self.chooser is None or seat != self.to_act:
            return np.zeros(self.pieces.size, dtype=np.int8)
        return self.chooser.mask()

    def legal(self) -> list[int]:
        return [] if self.chooser is None else self.chooser.allowed

    def choose(self, piece: int) -> bool:
        """Take one piece for the seat to act; True when it completed an action, now applied."""
        assert self.game is not None and self.chooser is not None
        action = self.chooser.choose(int(piece))
        self.moves.append(int(piece))
        self._seen = {}
        if action is None:
            return False
        self.game.apply(action)
        self.applied()
        return True

    def applied(self) -> None:
        """After an action of the rules: count it and ask the next decision."""
        self.decisions += 1
        self._next()
