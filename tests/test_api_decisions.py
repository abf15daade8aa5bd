"""Decisions told apart: `Game.decision()` and the prompt a `choose`/`turn` statement may carry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ruleforge
from ruleforge import Decision, RulesError

PROMPTS = Path("tests/synthetic/prompts.rules")


def test_decisions_offering_only_pass_differ_by_prompt_and_position():
    game = ruleforge.load(PROMPTS).new_game(2)
    seen = []
    while not game.is_over:
        d = game.decision()
        assert isinstance(d, Decision) and d.player == game.current_player
        assert {game.program.actions[a.aid].name for a in game.legal_actions()} <= set(d.actions)
        seen.append((d.player, d.prompt, d.pos.line, tuple(game.legal_labels())))
        # P1 keeps a coin back and spends one in the first round; everyone passes after that
        game.apply(game.legal_actions()[0] if d.player == 0 and len(seen) <= 2 else "pass")
    assert game.decision() is None
    text = PROMPTS.read_text().splitlines()
    statements = {"reserve?": 'turn p "reserve?":', "spend more?": 'choose "spend more?":', None: "turn p: pass"}
    lines = {prompt: next(i for i, line in enumerate(text, 1) if statement in line)
             for prompt, statement in statements.items()}
    assert seen == [
        (0, "reserve?", lines["reserve?"], ("keep a coin back", "pass")),
        (0, "spend more?", lines["spend more?"], ("spend a coin", "pass")),
        (1, "reserve?", lines["reserve?"], ("keep a coin back", "pass")),
        (1, "spend more?", lines["spend more?"], ("spend a coin", "pass")),
        (0, "reserve?", lines["reserve?"], ("pass",)),          # a coin kept back already
        (0, "spend more?", lines["spend more?"], ("pass",)),    # down to the reserve
        (1, "reserve?", lines["reserve?"], ("keep a coin back", "pass")),
        (1, "spend more?", lines["spend more?"], ("spend a coin", "pass")),
        (0, None, lines[None], ("pass",)),
        (1, None, lines[None], ("pass",)),
    ]


def test_the_prompt_is_in_the_view_of_the_player_to_act_only():
    game = ruleforge.load(PROMPTS).new_game(2)
    assert game.view(0)["prompt"] == "reserve?"
    assert "prompt" not in game.view(1) and "prompt" not in game.view(None)
    for _ in range(8):
        game.apply("pass")
    assert game.decision().prompt is None and "prompt" not in game.view(game.current_player)


def test_a_saved_game_restores_its_decision():
    rules = ruleforge.load(PROMPTS)
    game = rules.new_game(2)
    game.apply("pass")
    again = rules.load_game(json.loads(json.dumps(game.to_json())))
    assert again.decision() == game.decision() and again.decision().prompt == "spend more?"


def test_a_decision_inside_an_action_names_its_choose():
    """Hagakure's Nobori 5: the raise chooses again, what to look at (a `choose` in an action)."""
    rules = ruleforge.load("games/hagakure.rules")
    text = Path("games/hagakure.rules").read_text().splitlines()
    for seed in range(40):
        game = rules.new_game(4, seed=seed)
        while not game.is_over and game.decision().actions != ("look_at_yomi", "look_at_hand"):
            game.apply(game.legal_actions()[-1 if "raise Nobori 5" not in game.legal_labels() else
                                            game.legal_labels().index("raise Nobori 5")])
        if not game.is_over:
            d = game.decision()
            assert "choose: look_at_yomi, look_at_hand" in text[d.pos.line - 1]
            assert d.prompt is None and d.pos.file == "games/hagakure.rules"
            return
    pytest.fail("no seed reached Nobori 5's choice")


def check_errors(tmp_path: Path, flow_line: str) -> list[str]:
    path = tmp_path / "bad.rules"
    path.write_text(PROMPTS.read_text().replace("turn p: pass", flow_line))
    with pytest.raises(RulesError) as caught:
        ruleforge.load(path)
    return [f"{d.pos.line}:{d.pos.column}: {d.message}" for d in caught.value.diagnostics]


def test_a_prompt_is_plain_fixed_text(tmp_path):
    line = next(i for i, text in enumerate(PROMPTS.read_text().splitlines(), 1) if "turn p: pass" in text)
    assert check_errors(tmp_path, 'turn p "pay {coins(p)}?": pass') == [
        f"{line}:12: a decision's prompt is plain text: it cannot show values"]
    assert check_errors(tmp_path, 'turn p " ": pass') == [f"{line}:12: a decision's prompt is empty"]
    assert check_errors(tmp_path, 'turn p "what?" { choose: pass }') == [f"{line}:20: unexpected '{{'"]
    both = check_errors(tmp_path, 'turn p { choose "": pass  choose "{p}": pass }')
    assert both == [f"{line}:21: a decision's prompt is empty",
                    f"{line}:38: a decision's prompt is plain text: it cannot show values"]  # every error at once


def test_prompts_change_nothing_else(tmp_path):
    """The same rules without their prompts play the same games, decision by decision."""
    plain = tmp_path / "plain.rules"
    plain.write_text(PROMPTS.read_text().replace(' "reserve?"', "").replace(' "spend more?"', ""))
    games = [ruleforge.load(path).new_game(2, seed=3) for path in (PROMPTS, plain)]
    steps = 0
    while not games[0].is_over:
        assert games[0].legal_labels() == games[1].legal_labels()
        with_prompt, without = games[0].decision(), games[1].decision()
        assert (with_prompt.player, with_prompt.actions, with_prompt.pos.line) == \
            (without.player, without.actions, without.pos.line) and without.prompt is None
        k = steps % len(games[0].legal_actions())
        for g in games:
            g.apply(g.legal_actions()[k])
        steps += 1
    assert games[1].is_over and games[0].digest() == games[1].digest() and steps == 10
