"""Reading a game for tools and tests: a component's attributes, properties and place, the
components of a zone, and what the decision at hand is. These read the full state (hidden
zones too): a player's knowledge is `Game.view(p)`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from .ast import Pos
from .diagnostics import GameError

if TYPE_CHECKING:
    from .engine import Game


class ComponentInfo(NamedTuple):
    """One component as it stands: what it is, its values and where it lies."""

    id: int
    kind: str
    label: str
    attributes: dict[str, Any]  # the kind's fixed attributes, by name
    properties: dict[str, Any]  # its changeable properties, current values, by name
    zone: str  # the zone it lies in, keyed as views key it: `hand(P1)`, `territory(P1)[2,3]`
    zone_owner: int | None  # the seat of that zone (a per-player zone), else None
    index: int  # its place in that zone, 0 at the bottom (the order of the view's list)
    owner: int | None  # the seat it was made for (`in Z of each player`), as `owner(c)` says


class Decision(NamedTuple):
    """The decision the game waits on: who decides, at which rule, among which actions."""

    player: int
    pos: Pos | None  # the `choose` or `turn p: ...` statement (None: a hand-edited state's own)
    actions: tuple[str, ...]  # the action names the statement lists, in its order
    prompt: str | None  # its prompt text (`choose "spend more?": ...`), if it has one


def plain_value(value: Any) -> Any:
    """A value as `evaluate` gives it, as plain data: ranges and tuples as lists."""
    if isinstance(value, (list, tuple, range)):
        return [plain_value(x) for x in value]
    return value


def component_info(game: Game, component: int) -> ComponentInfo:
    """What component `component` (an id) is, what it holds and where it lies now."""
    prog = game.program
    if type(component) is not int or not 0 <= component < len(prog.comp_kind):
        raise GameError(f"no component with id {component!r} (ids are 0 to {len(prog.comp_kind) - 1}; "
                        "game.find(label) gives a label's)")
    st = game.state
    kind = prog.comp_kind[component]
    info = prog.model.kinds[kind]
    attributes = {name: plain_value(prog.namespace[f"A_{name}"][component]) for name in info.attrs}
    properties = {name: plain_value(st.p[k][component]) for k, name in enumerate(prog.props) if name in info.props}
    zi = st.w[component]
    zone = prog.zones[zi]
    return ComponentInfo(component, kind, prog.comp_label[component], attributes, properties, zone.key,
                         zone.owner, st.z[zi].index(component), prog.namespace["OWNER"][component])


def components(game: Game, zone: str | None = None, owner: int | None = None, row: int | None = None,
               column: int | None = None) -> list[int]:
    """Component ids: all of them in id order, or those lying in the zones named `zone`
    (narrowed to seat `owner`'s and to a grid's cell at `row`, `column` when given), zone
    by zone in the program's order and bottom first in each."""
    prog = game.program
    if zone is None:
        if owner is not None or row is not None or column is not None:
            raise GameError("owner, row and column narrow a zone: name the zone too")
        return list(range(len(prog.comp_kind)))
    if zone not in prog.zone_base:
        raise GameError(f"no zone named '{zone}'; zones: {', '.join(prog.zone_base)}")
    if owner is not None and not 0 <= owner < prog.players:
        raise GameError(f"no seat {owner} in a {prog.players}-player game")
    out: list[int] = []
    for zi in range(prog.zone_base[zone], len(prog.zones)):
        info = prog.zones[zi]
        if info.name != zone:
            break
        if (owner is None or info.owner == owner) and (row is None or info.row == row) \
                and (column is None or info.column == column):
            out.extend(game.state.z[zi])
    return out


def decision(game: Game) -> Decision | None:
    """The decision the game waits on; None once the game is over."""
    st = game.state
    if st.over:
        return None
    prog = game.program
    return Decision(st.chooser, prog.decision_pos.get(st.pc), tuple(prog.actions[aid].name for aid in st.options),
                    prog.decision_prompt.get(st.pc))
