"""Actions that offer themselves again inside their own effect keep their own parameters."""

from __future__ import annotations

from pathlib import Path

import pytest

import ruleforge

RULES = Path(__file__).parent / "synthetic" / "reentrant.rules"


def test_nested_call_of_the_same_action_restores_its_parameters() -> None:
    game = ruleforge.load(RULES).new_game(1, seed=0)
    game.apply("take 1")  # value 1: may take again
    game.apply("take 2")  # value 2: may take again
    game.apply("take 4")  # value 4: no further choice
    assert game.is_over
    assert game.log_lines() == [
        "P1: take 1", "P1: take 2", "P1: take 4",
        "done with 4", "done with 2", "done with 1",  # innermost first, each with its own token
    ]


def test_a_chain_survives_save_and_load_in_the_middle() -> None:
    rules = ruleforge.load(RULES)
    game = rules.new_game(1, seed=0)
    game.apply("take 1")
    game.apply("take 2")
    restored = rules.load_game(game.to_json())
    assert restored.digest() == game.digest()
    restored.apply("pass")
    assert restored.log_lines()[-2:] == ["done with 2", "done with 1"]


PHASE_RULES = '''
game "Phases"
players 2
kind Token { value: int  label "{value}" }
zone pool: pile
zone mine per player: pile
components { Token(value: 1..4) in pool }

flow {
  for p in players {
    turn p {
      pick_twice       # a phase called inside a turn: `me` and `choose` are the turn's
    }
  }
}

phase pick_twice {
  choose: take
  choose: take, pass
  log "{me} holds {count(mine(me))}"
}

action take(t in pool) "take {t}" {
  move t to mine(me)
}
'''


def test_a_phase_called_inside_a_turn_decides_for_the_turns_player(tmp_path: Path) -> None:
    path = tmp_path / "phases.rules"
    path.write_text(PHASE_RULES)
    game = ruleforge.load(path).new_game(2, seed=0)
    game.apply("take 4")
    assert game.current_player == 0 and game.legal_labels()[-1] == "pass"
    game.apply("pass")
    game.apply("take 3")     # P2
    game.apply("take 2")
    assert game.is_over
    assert game.log_lines()[-4:] == ["P1 holds 1", "P2: take 3", "P2: take 2", "P2 holds 2"]


def test_a_phase_deciding_outside_any_turn_is_an_error(tmp_path: Path) -> None:
    flow = "flow {\n  pick_twice\n}\n"
    text = PHASE_RULES[:PHASE_RULES.index("flow {")] + flow + PHASE_RULES[PHASE_RULES.index("phase pick_twice"):]
    path = tmp_path / "phases.rules"
    path.write_text(text)
    with pytest.raises(ruleforge.RulesError) as caught:
        ruleforge.load(path)
    messages = [d.message for d in caught.value.diagnostics]
    no_me = "'me' exists only inside an action or a turn"
    assert messages == ["'choose' needs a player", "'choose' needs a player", no_me, no_me]


MUTUAL_RULES = '''
game "Mutual"
players 1
kind Token { value: int  label "{value}" }
zone pool: pile
zone mine: pile
zone theirs: pile
components {
  Token(value: 1..6) in pool
}
flow {
  turn first(players): take
}
# take offers give, give offers take again (through a phase): both can meet themselves.
action take(t in pool) "take {t}" {
  move t to mine
  if count(pool) > 0 {
    choose: give, pass
  }
  log "took {t}"
}
action give(u in pool) "give {u}" {
  move u to theirs
  more
  log "gave {u}"
}
phase more {
  if count(pool) > 0 {
    choose: take, pass
  }
}
# keep offers nothing that leads back to itself: it keeps no frame.
action keep(k in mine) "keep {k}" {
  choose: pass
  log "kept {k}"
}
'''


def test_actions_that_meet_themselves_through_others_keep_their_parameters(tmp_path: Path) -> None:
    path = tmp_path / "mutual.rules"
    path.write_text(MUTUAL_RULES)
    rules = ruleforge.load(path)
    source = rules.program(1).source
    # take and give can run inside themselves (through each other, and a phase): frames
    assert source.count("st.stack.append") == 2
    game = rules.new_game(1, seed=0)
    for label in ["take 1", "give 2", "take 3", "give 4", "pass"]:
        game.apply(label)
    assert game.is_over
    assert game.log_lines()[5:] == ["gave 4", "took 3", "gave 2", "took 1"]


def test_an_action_offered_again_by_a_trigger_of_its_own_move_keeps_its_parameters() -> None:
    rules = ruleforge.load(Path(__file__).parent / "synthetic" / "trigger_chain.rules")
    assert rules.program(1).source.count("st.stack.append") == 1  # take runs inside itself: a frame
    game = rules.new_game(1)
    for label in ["take 1", "take 2", "take 3", "pass"]:
        game.apply(label)
    assert game.is_over
    assert game.log_lines()[4:] == ["took 3", "took 2", "took 1"]
