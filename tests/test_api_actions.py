"""`legal_actions()` gives `Action` named tuples that are still their plain `(aid, args)` tuples."""

from __future__ import annotations

import json

import pytest

import ruleforge
from ruleforge import Action, GameError

GAMES = [("games/hagakure.rules", 4), ("games/naishi.rules", 2), ("games/nakasendo.rules", 2)]


@pytest.fixture(scope="module", params=GAMES, ids=lambda g: g[0].split("/")[-1])
def rules_and_players(request):
    path, players = request.param
    return ruleforge.load(path), players


def test_legal_actions_are_actions_equal_to_their_tuples(rules_and_players):
    rules, players = rules_and_players
    game = rules.new_game(players, seed=2)
    for _ in range(12):
        actions = game.legal_actions()
        assert actions and all(type(a) is Action for a in actions)
        plain = [(a.aid, a.args) for a in actions]
        assert actions == plain and [hash(a) for a in actions] == [hash(p) for p in plain]
        assert set(plain) == set(actions) and len(set(actions)) == len(actions)
        assert all(a[0] == a.aid and a[1] == a.args and isinstance(a.args, tuple) for a in actions)
        names = {game.program.actions[a.aid].name for a in actions}
        assert names <= set(game.decision().actions)
        assert actions == game._legal  # what search plays from lists the same actions
        game.apply(actions[len(actions) // 2])


def test_apply_takes_an_action_a_tuple_a_list_or_a_label_alike(rules_and_players):
    rules, players = rules_and_players
    games = [rules.new_game(players, seed=5) for _ in range(4)]
    for step in range(20):
        if games[0].is_over:
            break
        legal = games[0].legal_actions()
        k = (step * 7) % len(legal)
        chosen = legal[k]
        games[0].apply(chosen)
        games[1].apply((chosen.aid, chosen.args))
        games[2].apply(json.loads(json.dumps(chosen)))  # [aid, [args]] read back from a saved log
        games[3].apply(games[3].legal_labels()[k])
        assert len({g.digest() for g in games}) == 1
    assert games[0].action_history() == games[1].action_history()


def test_an_action_not_legal_is_refused_and_changes_nothing():
    game = ruleforge.load("games/hagakure.rules").new_game(3, seed=1)
    before = game.digest()
    with pytest.raises(GameError, match="not a legal action"):
        game.apply(Action.of(game.legal_actions()[0].aid, (10_000,)))
    assert game.digest() == before


def test_a_clone_and_the_original_list_actions_independently():
    game = ruleforge.load("games/naishi.rules").new_game(2, seed=3)
    copy = game.clone()
    first = game.legal_actions()[0]
    game.apply(first)
    assert copy.legal_actions()[0] == first  # the copy still stands at the first decision
    copy.apply(copy.legal_actions()[0])
    assert copy.digest() == game.digest()


@pytest.mark.parametrize("made", ["plain pairs", "as listed"])
def test_ready_made_actions_list_what_plain_pairs_list(rules_and_players, monkeypatch, made):
    """With no table of ready-made `Action`s made at once (every action listed as a plain
    pair, or its Actions made as they are first listed), the same seeded games give the same
    legal lists and the same states."""
    from ruleforge.compiler import actions as compiled_actions

    rules, players = rules_and_players
    path = rules.path
    monkeypatch.setattr(compiled_actions, "ACTION_TABLE_SIZE", 0)
    if made == "plain pairs":
        monkeypatch.setattr(compiled_actions, "LAZY_TABLE_SIZE", 0)
    other_rules = ruleforge.load(path)
    namespace = other_rules.program(players).namespace
    if made == "plain pairs":
        assert other_rules.program(players).plain_actions
        assert not any(name.startswith("ACT_") for name in namespace)
    else:
        assert not other_rules.program(players).plain_actions
        assert any(name.startswith("ACT_ROW_") for name in namespace)
    for seed in (1, 2):
        tabled, other = rules.new_game(players, seed=seed), other_rules.new_game(players, seed=seed)
        for step in range(40):
            if tabled.is_over:
                break
            assert tabled._legal == other._legal and tabled.legal_actions() == other.legal_actions()
            assert all(type(a) is Action for a in other.legal_actions())
            k = (seed * 31 + step * 7) % len(tabled._legal)
            tabled._apply_unchecked(tabled._legal[k])
            other._apply_unchecked(other._legal[k])
        assert tabled.digest() == other.digest()


def test_actions_made_as_listed_are_made_once(tmp_path):
    """An action with more argument combinations than are made at once has its `Action`s made
    when first listed, and listed again as the same objects; past the larger bound it is
    listed as plain pairs, which legal_actions() makes Actions of."""
    from ruleforge.compiler import actions as compiled_actions

    path = tmp_path / "wide.rules"
    path.write_text('''game "Wide"
players 2
action pick(a in 1..40, b in 1..40, c in 1..4) "pick {a} {b} {c}" { }
flow { repeat 3 { for p in players { turn p: pick } } }
''')
    rules = ruleforge.load(path)
    assert 41 * 41 * 5 > compiled_actions.ACTION_TABLE_SIZE  # made as listed, not at once
    program = rules.program(2)
    assert not program.plain_actions and "ACT_ROW_1" in program.namespace
    rows = program.namespace["ACT_1"]
    game = rules.new_game(2, seed=1)
    first = game.legal_actions()
    assert len(first) == 40 * 40 * 4 and all(type(a) is Action for a in first)
    assert first[0] == (1, (1, 1, 1)) and first[-1] == (1, (40, 40, 4))
    game.apply(first[5])
    again = game.legal_actions()
    assert all(x is y for x, y in zip(first, again))  # the same Actions, made once
    assert rows[None] is None and all(rows[a] for a in range(1, 41))  # made for what was listed

    original = compiled_actions.LAZY_TABLE_SIZE
    try:
        compiled_actions.LAZY_TABLE_SIZE = 41 * 41 * 5 - 1
        plain = ruleforge.load(path)
        assert plain.program(2).plain_actions
        listed = plain.new_game(2, seed=1).legal_actions()
        assert listed == first and all(type(a) is Action for a in listed)
    finally:
        compiled_actions.LAZY_TABLE_SIZE = original


def test_an_argument_that_is_none_or_a_member_or_a_number_has_its_action(tmp_path):
    path = tmp_path / "odd.rules"
    path.write_text('''game "Odd"
players 2
enum Mood { glad, sad }
kind Chip { n: int  label "chip {n}" }
zone bag: pile
zone pot: pile
components { Chip(n: 1..2) in bag }
var mood: Mood = glad
action take(c in [top_of(pot)]) "take the top of the pot" { mood = sad }
action feel(m in [glad, sad], k in 1..3, f in [true, false]) "feel {m} {k} {f}" { mood = m }
flow { repeat 2 { for p in players { turn p: take, feel } } }
''')
    rules = ruleforge.load(path)
    assert not rules.program(2).plain_actions  # every action has its ready-made Actions
    game = rules.new_game(2)
    labels = game.legal_labels()
    assert labels[0] == "take the top of the pot" and len(labels) == 1 + 2 * 3 * 2
    take = game.legal_actions()[0]
    assert take.args == (None,) and take == (1, (None,))
    assert [a.args for a in game.legal_actions()[1:4]] == [("glad", 1, True), ("glad", 1, False), ("glad", 2, True)]
    game.apply("feel sad 3 no")
    assert game.evaluate("mood") == "sad" and game.action_history() == [(0, 2, ("sad", 3, False))]
    assert json.loads(json.dumps(game.to_json()))["state"]["log"][-1] == ["act", 0, 2, ["sad", 3, False]]
