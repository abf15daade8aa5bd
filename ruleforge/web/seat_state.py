"""What one seat's page receives: its view drawn, its legal actions piece by piece with what on
the picture each piece is, the log as it may read it, and the scores once the game is over.

Everything here is made from `game.view(seat)` and the seat's own legal actions and log lines:
nothing reads another seat's hand or a hidden pile on the page's behalf. A piece of an action
points at a component only where the view itself shows that component at that place.
"""

from __future__ import annotations

from typing import Any

from ..engine import Action, Game, player_name
from ..human import FLAG_WORDS, questions
from ..inert import inert
from .tables import HUMAN, Table

MOST_LOG_LINES = 300  # the page shows the latest lines of the log; the whole log is in the log file


def seat_state(table: Table, seat: int, draw: Any) -> dict[str, Any]:
    """The document a seat's page shows (`draw(view, targets)` makes the picture's HTML; the
    targets are the zones and cells the seat's actions point at, which a trimmed board keeps)."""
    game = table.game
    view = game.view(seat, properties=True)
    log = game.log_lines(viewer=seat)
    mine = not game.is_over and game.current_player == seat and table.failure is None
    actions = legal_pieces(game, view) if mine else []
    targets = {param["target"]["zone"] for action in actions for param in action["params"] if param["target"]}
    return {
        "version": table.version,
        "run": table.run,  # which run of the server counts these versions
        "step": len(table.writer.steps),  # decisions taken so far
        "game": inert(view["game"]),
        "seat": player_name(seat),
        "seats": [{"seat": player_name(p), "agent": "person" if name == HUMAN else name, "you": p == seat}
                  for p, name in enumerate(table.agents)],
        "to_act": view["to_act"],
        "over": view["over"],
        "your_turn": mine,
        "prompt": inert(view["prompt"]) if mine and view.get("prompt") else None,
        "picture": draw(view, targets),
        "log": [inert(line) for line in log[-MOST_LOG_LINES:]],
        "log_count": len(log),
        "actions": actions,
        "scores": final_scores(game) if game.is_over else None,
        "failure": table.failure,
    }


def legal_pieces(game: Game, view: dict[str, Any]) -> list[dict[str, Any]]:
    """Each legal action as its label, its name and its parameters, each with the question it
    asks, its value as text and, where the picture shows it, what to click for it."""
    zones = view["zones"]
    asked: dict[int, tuple[str, ...]] = {}
    out = []
    for action, label in zip(game.legal_actions(), game.legal_labels()):
        parts = game.action_parts(action)
        kinds = game.program.action_params[action.aid]
        if action.aid not in asked:
            asked[action.aid] = questions(game, action.aid)
        params = []
        for k, ((_, text), (_, kind)) in enumerate(zip(parts.params, kinds)):
            value = FLAG_WORDS.get(text, text) if kind == "flag" else text
            params.append({"value": inert(value), "question": inert(asked[action.aid][k]),
                           "target": _target(game, action, k, kind, text, zones)})
        out.append({"label": inert(label), "name": inert(parts.name), "params": params})
    return out


def _target(game: Game, action: Action, k: int, kind: str, text: str, zones: dict[str, Any]) -> dict | None:
    """The picture's element for a parameter's value: a zone or cell by its key, a component by
    its zone and place, only when the view lists that very label there."""
    if kind == "zone":
        return {"zone": text} if text in zones else None
    if kind != "comp":
        return None
    info = game.component_info(action.args[k])
    shown = zones.get(info.zone) if info.zone is not None else None
    if isinstance(shown, list) and info.index < len(shown) and shown[info.index] == text:
        return {"zone": info.zone, "index": info.index}
    return None


def final_scores(game: Game) -> list[dict[str, Any]]:
    """The itemised breakdown of every seat, best first (as the rules rank), with who won."""
    winners = set(game.winners())
    ranked = sorted(game.scores(), key=lambda row: tuple(row["rank"]), reverse=True)
    return [{"seat": player_name(row["player"]), "total": row["total"], "winner": row["player"] in winners,
             "breakdown": [[inert(str(item)), points] for item, points in row["breakdown"].items()]}
            for row in ranked]
