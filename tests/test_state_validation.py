"""Malformed saved states and positions: every one gives GameError naming the field, and
every one that passes plays on without an error.

Real saved states of each game are mutated field by field (a key deleted, a value of the
wrong type, out of range, huge, nested junk); so is the hand-written position of the docs.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import ruleforge
from ruleforge import GameError, Rules

ROOT = Path(__file__).parent.parent
GAMES = {"hagakure": 4, "naishi": 2, "naishi_legends": 2}
JUNK: list[Any] = ["junk", {"a": 1}, 10**30, -5, True, None, [[[[[[1]]]]]], 2.5]


@cache
def rules(name: str) -> Rules:
    return ruleforge.load(ROOT / "games" / f"{name}.rules")


def saved(name: str, decisions: int, seed: int = 3) -> dict:
    """A real saved state: a game of random actions, `decisions` into it."""
    game = rules(name).new_game(GAMES[name], seed=seed)
    rng = random.Random(seed)
    for _ in range(decisions):
        if game.is_over:
            break
        game.apply(rng.choice(game.legal_actions()))
    return json.loads(json.dumps(game.to_json()))


def mutations(doc: dict) -> Iterator[tuple[str, dict]]:
    """(field name, mutated copy) for every field of the document and of its state, and for
    a few entries of each list in the state (first, middle, last)."""
    for key in ["players", "seed", "options", "state", "format"]:
        for value in ["<delete>", *JUNK, 99]:
            yield key, _with(doc, [key], value)
    state = doc["state"]
    for field, value in state.items():
        for junk in ["<delete>", *JUNK]:
            yield field, _with(doc, ["state", field], junk)
        if isinstance(value, list) and value:
            for i in sorted({0, len(value) // 2, len(value) - 1}):
                for junk in [*JUNK, "<delete>"]:
                    yield field, _with(doc, ["state", field, i], junk)
                if isinstance(value[i], list) and value[i]:  # one level deeper: a zone's first id, ...
                    for junk in JUNK:
                        yield field, _with(doc, ["state", field, i, 0], junk)


def _with(doc: dict, path: list, value: Any) -> dict:
    out = copy.deepcopy(doc)
    parent = out
    for key in path[:-1]:
        parent = parent[key]
    if isinstance(value, str) and value == "<delete>":
        del parent[path[-1]]
    else:
        parent[path[-1]] = copy.deepcopy(value)
    return out


def plays_on(game: ruleforge.Game, decisions: int = 5) -> None:
    """A few legal actions, with labels, views and scores read on the way."""
    rng = random.Random(1)
    for name in game.program.scorings:
        game.preview_scoring(name)
    for _ in range(decisions):
        if game.is_over:
            break
        game.legal_labels()
        for p in range(game.players):
            game.view(p)
        if not game.legal_actions():  # a position may stand where nobody can act (docs/positions.md)
            break
        game.apply(rng.choice(game.legal_actions()))
    game.scores()
    game.log_lines()


def check_mutation(load, field: str | tuple, doc: Any, decisions: int = 5) -> str:
    """Load a mutated document: GameError naming the field (or one of several names of
    what is wrong), or a game that plays on."""
    try:
        game = load(doc)
    except GameError as err:
        text = str(err)
        names = field if isinstance(field, tuple) else (field,)
        named = [form for f in names for form in (f"'{f}'", f'"{f}"', f"{f}:", f"position: {f}")] + list(names[1:])
        assert any(form in text for form in named), (field, text)
        return "refused"
    plays_on(game, decisions)
    return "played"


@pytest.mark.parametrize("name", list(GAMES))
@pytest.mark.parametrize("decisions", [0, 9, 1000])
def test_mutated_saved_states(name: str, decisions: int) -> None:
    doc = saved(name, decisions)
    outcomes = {"refused": 0, "played": 0}
    for field, mutated in mutations(doc):
        outcomes[check_mutation(rules(name).load_game, field, mutated)] += 1
    assert outcomes["refused"] > 100 and outcomes["played"] > 0  # both ways were taken


def test_the_unmutated_state_restores() -> None:
    for name in GAMES:
        doc = saved(name, 9)
        game = rules(name).load_game(copy.deepcopy(doc))
        assert game.to_json() == doc


@pytest.mark.parametrize(("path", "value", "message"), [
    (["state", "v", 4], "x", "saved state: 'v' entry 4 (variable tricks of P1) must be an integer, not 'x'"),
    (["state", "v", 3], True, "'v' entry 3 (variable score of P4) must be an integer, not True"),
    (["state", "v", 8], 4, "'v' entry 8 (variable dealer) must be a seat, 0 to 3, not 4"),
    pytest.param(["state", "v", 0], 10**4300, "'v' entry 0 (variable score of P1) is too large: a number of more than",
                 id="4301 digits"),  # no id of its own: pytest would write the number out
    (["seed"], "x", "saved state: 'seed' must be an integer, not 'x'"),
    (["players"], 9, "saved state: 'players' must be a number of players from 3 to 5, not 9"),
    (["options"], [1], "saved state: 'options' must be an object"),
    (["state", "used"], [[0, 0, 1]], "saved state: 'used' entry 0 names action 0, which has no limit"),
    (["state", "log", 0], ["act", 7, 1, []], "saved state: 'log' entry 0 must be [\"act\", player"),
    (["state", "seen", 0], [[999, [1]]], "saved state: 'seen' entry 0 (P1) item 0 must be"),
    (["state", "l", 0], {"a": 1}, "saved state: 'l' entry 0 must be a list, not {'a': 1}"),
    (["state", "pc"], 0, "saved state: 'pc' 0 is no position where the rules wait for a decision"),
    (["state", "chooser"], None, "saved state: 'chooser' must be the seat of the player to decide"),
])
def test_messages_name_the_field(path: list, value: Any, message: str) -> None:
    doc = saved("hagakure", 9)
    with pytest.raises(GameError) as err:
        rules("hagakure").load_game(_with(doc, path, value))
    assert message in str(err.value)


def test_a_saved_state_does_not_change_when_the_game_goes_on() -> None:
    game = rules("hagakure").new_game(4, seed=5)
    for _ in range(6):
        game.apply(game.legal_actions()[0])
    doc = game.to_json()
    frozen = json.dumps(doc, sort_keys=True)
    for _ in range(30):
        game.apply(game.legal_actions()[-1])
    assert json.dumps(doc, sort_keys=True) == frozen
    assert rules("hagakure").load_game(doc).digest() != game.digest()


# --- positions written by hand ---------------------------------------------------------------


def position_mutations(doc: dict) -> Iterator[tuple[str | tuple, dict]]:
    """(what the message must name, mutated copy); a label that is no component's is named
    itself, a player count out of range says "is for"."""
    for key in ["players", "seed", "zones", "props", "vars", "format", "extra"]:
        for value in ["<delete>", *JUNK, 99]:
            if key in doc or value != "<delete>":
                # an object of junk names its key: "position: a: no such zone"
                yield (key if not isinstance(value, dict) or key not in ("zones", "props") else "a",
                       "is for 2 players"), _with(doc, [key], value)
    for key, grid in doc["zones"].items():
        for junk in ["<delete>", *JUNK]:
            yield key, _with(doc, ["zones", key], junk)
        for r in range(len(grid)):
            for junk in JUNK:
                yield (key, "junk"), _with(doc, ["zones", key, r], junk)
                yield (key, "junk"), _with(doc, ["zones", key, r, 2], junk)
    for key in doc["props"]:
        for junk in JUNK:
            yield key, _with(doc, ["props", key], junk)
            yield key, _with(doc, ["props", key, "copy"], junk)
    for junk in JUNK:
        yield "score(P1)", _with(doc, ["vars", "score(P1)"], junk)
        yield "current", _with(doc, ["vars", "current"], junk)


def test_mutated_positions() -> None:
    doc = json.loads((ROOT / "docs" / "examples" / "naishi_example1.json").read_text())
    doc.setdefault("vars", {})
    outcomes = {"refused": 0, "played": 0}
    for field, mutated in position_mutations(doc):
        # A position is for scoring: only one that lays out every territory is played on (with an
        # undescribed one, the rules themselves meet empty cells no real game has).
        full = isinstance(mutated.get("zones"), dict) and mutated["zones"].keys() == doc["zones"].keys()
        outcomes[check_mutation(rules("naishi").position, field, mutated, 5 if full else 0)] += 1
    assert outcomes["refused"] > 50 and outcomes["played"] > 0


# --- requests through the API ----------------------------------------------------------------


@pytest.mark.parametrize("action", [5, (1,), (1, 2, 3), (1, 2), None])
def test_apply_refuses_what_is_no_action(action: Any) -> None:
    game = rules("hagakure").new_game(3, seed=1)
    before = game.digest()
    with pytest.raises(GameError, match="is not an action|is not a legal action"):
        game.apply(action)
    assert game.digest() == before


@pytest.mark.parametrize("seed", ["x", True, 2.5, None])
def test_new_game_refuses_a_seed_that_is_no_number(seed: Any) -> None:
    with pytest.raises(GameError, match="the seed must be a whole number"):
        rules("hagakure").new_game(3, seed=seed)


@pytest.mark.parametrize(("options", "message"), [
    ({"nothing": 1}, "unknown option 'nothing'"),
    ({"extra": "x"}, "option 'extra' must be an integer, not 'x'"),
    ({"big": 3}, "option 'big' must be true or false, not 3"),
    ({"extra": [1]}, "option 'extra' must be an integer, not [1]"),
])
def test_options_are_checked(options: dict, message: str) -> None:
    synthetic = ruleforge.load(ROOT / "tests" / "synthetic" / "options.rules")
    with pytest.raises(GameError, match=message.replace("[", r"\[").replace("]", r"\]")):
        synthetic.new_game(1, options=options)


def test_a_logged_line_names_only_components_of_the_game() -> None:
    """A log line that shows a component (Love Letter's Baron: "P2 loses the comparison with
    Guard") keeps its number; a saved state whose number is no component is refused, not left to
    fail when the log is read."""
    ll = ruleforge.load(ROOT / "games" / "love_letter.rules")
    doc = json.loads(json.dumps(ll.new_game(2, seed=0).to_json()))
    [tid] = [i for i, parts in enumerate(ll.program(2).log_templates)
             if [p[0] for p in parts if not isinstance(p, str)] == ["player", "comp"]][:1]
    line = ["say", tid, [1, 999]]
    with pytest.raises(GameError) as err:
        ll.load_game(_with(doc, ["state", "log"], [line]))
    assert "saved state: 'log' entry 0" in str(err.value) and "a comp value is out of range: 999" in str(err.value)
    good = ll.load_game(_with(doc, ["state", "log"], [["say", tid, [1, 0]]]))
    assert good.log_lines()[0].startswith("P2 loses the comparison with ")
