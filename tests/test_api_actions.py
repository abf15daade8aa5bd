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
        game.apply(Action(game.legal_actions()[0].aid, (10_000,)))
    assert game.digest() == before


def test_a_clone_and_the_original_list_actions_independently():
    game = ruleforge.load("games/naishi.rules").new_game(2, seed=3)
    copy = game.clone()
    first = game.legal_actions()[0]
    game.apply(first)
    assert copy.legal_actions()[0] == first  # the copy still stands at the first decision
    copy.apply(copy.legal_actions()[0])
    assert copy.digest() == game.digest()
