"""Simultaneous decisions (`turn together S: a, b`): the choices are collected one chooser at a
time, kept hidden, then run in seat order.

While a `turn together` is under way, `State.sim` is the tuple `(choosers, index, pending,
resume)`: the choosing seats in seat order, the index of the one choosing now
(`state.chooser`), the choices already taken as `(seat, aid, args)` in seat order, and the
block where the rules go on once all are in. Nothing a choice does happens before then: every
chooser's legal actions are worked out from the same state, the state before anyone's choice.
A choice is logged as `("chose", seat)` ("P2 has chosen"); the action itself is logged when it
runs. A chooser with no legal action is skipped, as at any decision. The tuple is never
changed in place, so a clone shares it.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from .diagnostics import GameError
from .limits import LIMITS

if TYPE_CHECKING:
    from .engine import Game


def choose(game: Game, action: tuple) -> None:
    """The current chooser's choice: kept (hidden), then on to the next chooser or, when all
    are in, the choices run and the rules go on."""
    st = game.state
    if st.steps >= LIMITS.decisions_per_game:
        raise game._too_many_decisions()
    choosers, index, pending, resume = st.sim
    aid, args = action
    st.sim = (choosers, index, (*pending, (st.chooser, aid, tuple(args))), resume)
    st.log.append(("chose", st.chooser))
    st.steps += 1
    game._advance(next_chooser(game))


def next_chooser(game: Game) -> int:
    """After a choice (or a skip): -1 when another chooser is to choose now (made
    `state.chooser`), else the block to go on at, once every choice has run."""
    st = game.state
    choosers, index, pending, resume = st.sim
    index += 1
    if index < len(choosers):
        st.sim = (choosers, index, pending, resume)
        st.chooser = choosers[index]
        return -1
    st.sim = None
    run(game, pending)
    st.pc = resume
    return resume


def run(game: Game, pending: tuple) -> None:
    """Each choice in seat order, with its own `me`, logged as it runs (as `apply` logs). The
    choices were checked when they were taken; their effects simply run now."""
    st = game.state
    prog = game.program
    for me, aid, args in pending:
        logged_label, enter, limits = prog.apply_records[aid]
        try:
            if logged_label:
                public = prog.public_label_funcs[aid]
                st.log.append(("act", me, aid, args, prog.label_funcs[aid](st, me, args),
                               public(st, me, args) if public is not None else None))
            else:
                st.log.append(("act", me, aid, args))
            for _times, scope in limits:
                key = (aid, st.turn if scope == "turn" else -1 - me)
                st.used[key] = st.used.get(key, 0) + 1
            st.chooser = me
            enter(st, me, *args)  # a plain action (the compiler refuses one that decides)
        except GameError:
            raise
        except Exception as err:
            raise game._runtime_error(err) from None


def resample(game: Game, player: int, rng: random.Random) -> None:
    """For a determinization of `player`: the other seats' pending choices, which `player`
    cannot know, drawn again among their legal actions (a seat left with none is dropped)."""
    st = game.state
    if st.sim is None:
        return
    choosers, index, pending, resume = st.sim
    point = game.program.point_legal[st.options]
    fresh = []
    for seat, aid, args in pending:
        if seat == player:
            fresh.append((seat, aid, args))
            continue
        out: list = []
        point(st, seat, out)
        if out:
            new_aid, new_args = out[rng.randrange(len(out))]
            fresh.append((seat, new_aid, tuple(new_args)))
    st.sim = (choosers, index, tuple(fresh), resume)


def shown(game: Game, player: int | None) -> dict[str, Any]:
    """The part of a view about a simultaneous decision under way: who chooses and who has
    chosen, and only the viewer's own pending choice."""
    from .engine import player_name

    st = game.state
    choosers, index, pending, _resume = st.sim
    out: dict[str, Any] = {"choosers": [player_name(p) for p in choosers],
                           "chosen": [player_name(p) for p, _aid, _args in pending]}
    for seat, aid, args in pending:
        if seat == player:
            out["your_choice"] = game.program.label_funcs[aid](st, seat, args)
    return out


def restore(prog: Any, data: Any, fail: Any) -> tuple | None:
    """`sim` of a saved state, checked field by field (untrusted input): `fail(field, what)`
    makes the error. The choices' legality is checked by the caller, on the built state."""
    if data is None:
        return None
    if not isinstance(data, list) or len(data) != 4:
        raise fail("sim", "must be [choosers, index, pending, resume] or null")
    choosers, index, pending, resume = data
    seats = range(prog.players)
    if not isinstance(choosers, list) or not choosers or any(
            type(p) is not int or p not in seats for p in choosers) or choosers != sorted(set(choosers)):
        raise fail("sim", "choosers must be distinct seats in seat order")
    if type(index) is not int or not 0 <= index < len(choosers):
        raise fail("sim", f"index must be a number from 0 to {len(choosers) - 1}")
    if type(resume) is not int or not 0 <= resume < len(prog.blocks):
        raise fail("sim", "resume must be a block of the program")
    if not isinstance(pending, list) or len(pending) > index:
        raise fail("sim", "pending must be a list of at most one choice per chooser before the current one")
    out = []
    done = choosers[:index]
    for entry in pending:
        if not isinstance(entry, list) or len(entry) != 3 or type(entry[0]) is not int or entry[0] not in done \
                or type(entry[1]) is not int or not 0 <= entry[1] < len(prog.actions) \
                or not isinstance(entry[2], list):
            raise fail("sim", "each pending choice must be [seat, action, arguments] of a chooser who has chosen")
        out.append((entry[0], entry[1], tuple(entry[2])))
    if [seat for seat, _a, _b in out] != sorted({seat for seat, _a, _b in out}):
        raise fail("sim", "pending choices must be one per seat, in seat order")
    return (tuple(choosers), index, tuple(out), resume)


def pending_problem(game: Game) -> str | None:
    """What is wrong with a restored state's pending choices: each must be one of its seat's
    legal actions at this decision (a saved state is untrusted input)."""
    st = game.state
    if st.sim is None:
        return None
    point = game.program.point_legal[st.options]
    for seat, aid, args in st.sim[2]:
        out: list = []
        try:
            point(st, seat, out)
        except Exception as err:
            raise game._runtime_error(err) from None
        if (aid, args) not in out:
            return f"holds a choice of P{seat + 1} that is not one of their legal actions here"
    return None
