"""The engine never hangs: decisions skipped in a row, rule steps without a decision and
decisions per game are limits (ruleforge.limits) whose errors name the rules line; `check`
plays a trial game per player count and reports what it runs into at that line."""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

import ruleforge
from ruleforge import GameError, RulesError
from ruleforge import rules as rules_module
from ruleforge.limits import raised

ROOT = Path(__file__).parent.parent

# Nine cells and twenty stones: once the grid is full nobody can place, and the loop asks
# for a tenth stone forever.
SKIPPING = """\
game "Skipping"
players 2

kind Stone { }
zone bag: pile, visible everyone
zone board: grid, size 3 by 3, visible everyone

components {
  20 of Stone() in bag
}

flow {
  while count(board) < 10 {
    for p in players { turn p: place }
  }
}

action place(x in cells(board)) "place at {row(x)},{column(x)}" {
  require count(x) == 0
  move top 1 of bag to x
}
"""

# A loop whose only decision sits behind a condition that never holds.
LOOPING = """\
game "Looping"
players 1

var n: int = 0

flow {
  while n >= 0 {
    n += 1
    if n < 0 {
      for p in players { turn p: rest }
    }
  }
}

action rest "rest" { n += 1 }
"""

# Every turn offers a choice, and the game never ends.
ENDLESS_TURNS = """\
game "Endless turns"
players 2

var n: int = 0

flow {
  while n >= 0 {
    for p in players { turn p: rest }
  }
}

action rest "rest" { n += 1 }
"""

# A runtime error only a played game meets: the third stone overfills the spot.
FAILING = """\
game "Failing"
players 2..3

kind Stone { }
zone supply: pile, visible everyone
zone spot: pile, size 2, visible everyone

components {
  6 of Stone() in supply
}

flow {
  repeat 3 {
    for p in players { turn p: step }
  }
}

action step "step" {
  move top 1 of supply to spot
}
"""


class Hang(BaseException):
    """Raised by the hang guard; a BaseException, so the engine cannot wrap it as a rule's error."""


@pytest.fixture(autouse=True)
def hang_guard() -> Iterator[None]:
    """These tests are about not hanging: one that runs past a generous minute fails."""
    def stop(_signum: int, _frame: object) -> None:
        raise Hang("the test ran for more than 60 s: the engine hangs")

    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(60)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def load(tmp_path: Path, text: str, name: str = "game.rules") -> ruleforge.Rules:
    path = tmp_path / name
    path.write_text(text)
    return ruleforge.load(path)


def test_a_game_where_nobody_can_act_stops_at_the_decision(tmp_path: Path) -> None:
    rules = load(tmp_path, SKIPPING)
    game = rules.new_game(2)
    with pytest.raises(GameError) as err:
        while not game.is_over:
            game.apply(game.legal_actions()[0])
    assert str(err.value).startswith(f"{tmp_path / 'game.rules'}:14:24: no player has had a legal action for "
                                     "10,000 decisions in a row: the game cannot go on (limit skips_in_a_row = 10,000; "
                                     "raise it with RULEFORGE_MAX_SKIPS_IN_A_ROW)")
    assert (err.value.pos.line, err.value.pos.column) == (14, 24)  # the turn statement
    skips = [e for e in game.state.log if e[0] == "skip"]
    assert len(skips) == 10_000  # the log stops growing at the limit


def test_the_skip_limit_can_be_raised(tmp_path: Path) -> None:
    game = load(tmp_path, SKIPPING).new_game(2)
    with raised(skips_in_a_row=50), pytest.raises(GameError, match="for 50 decisions in a row"):
        while not game.is_over:
            game.apply(game.legal_actions()[0])
    assert sum(e[0] == "skip" for e in game.state.log) == 50


def test_skips_that_end_are_no_error(tmp_path: Path) -> None:
    """A few skips in a row are normal play: only an unbroken run up to the limit stops."""
    game = load(tmp_path, SKIPPING.replace("count(board) < 10", "count(board) < 9")).new_game(2)
    with raised(skips_in_a_row=2):
        while not game.is_over:
            game.apply(game.legal_actions()[0])
    assert game.is_over


def test_an_endless_loop_without_a_decision_names_its_rule(tmp_path: Path) -> None:
    rules = load(tmp_path, LOOPING)
    with raised(blocks_without_decision=2_000), pytest.raises(GameError) as err:
        rules.new_game(1)
    assert "game.rules:8:5: the rules ran 2,000 steps without a decision: this loop never ends (limit " \
           "blocks_without_decision = 2,000; raise it with RULEFORGE_MAX_BLOCKS_WITHOUT_DECISION)" in str(err.value)
    assert err.value.pos.line == 8


@pytest.mark.parametrize("skip_first", [False, True])
def test_an_endless_loop_after_an_action_stops_at_the_limit(tmp_path: Path, skip_first: bool) -> None:
    """After an action the loop runs in `apply`; after a skipped decision, in the engine's
    loop that skips: both stop at the limit (the loop has counted no further)."""
    waiting = "for p in players { turn p: wait }" if skip_first else ""
    rules = load(tmp_path, LOOPING.replace("flow {", "flow {\n  for p in players { turn p: rest }\n  " + waiting)
                 + 'action wait "wait" { require n < 0 }\n')
    game = rules.new_game(1)
    with raised(blocks_without_decision=2_000), pytest.raises(GameError, match="2,000 steps without a decision"):
        game.apply("rest")
    assert 0 < game.state.v[game.program.var_base["n"]] <= 2_100  # not the millions of the default


def test_decisions_per_game(tmp_path: Path) -> None:
    game = load(tmp_path, ENDLESS_TURNS).new_game(2)
    with raised(decisions_per_game=40):
        for _ in range(40):
            game.apply("rest")
        before = game.digest()
        with pytest.raises(GameError) as err:
            game.apply("rest")
    assert "game.rules:8:24: the game has had 40 decisions and is not over: it stops here " \
           "(limit decisions_per_game = 40; raise it with RULEFORGE_MAX_DECISIONS_PER_GAME)" in str(err.value)
    assert game.digest() == before  # the refused decision changed nothing
    game.apply("rest")  # the limit back at its default: the game goes on
    assert game.state.steps == 41


def test_a_runtime_error_carries_its_position(tmp_path: Path) -> None:
    game = load(tmp_path, FAILING).new_game(2)
    with pytest.raises(GameError) as err:
        for _ in range(3):
            game.apply("step")
    assert "game.rules:19:3: runtime error: RuntimeError: zone spot holds at most 2" in str(err.value)
    assert (err.value.pos.line, err.value.pos.column) == (19, 3)


# --- check: trial games ------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "where", "message"), [
    (SKIPPING, (14, 24), "in a trial game with 2 players (seed 0, random legal actions): no player has had "
                         "a legal action for 10,000 decisions in a row"),
    (ENDLESS_TURNS, (8, 24), "in a trial game with 2 players (seed 0, random legal actions): the game has had "
                             "100,000 decisions and is not over"),
    (FAILING, (19, 3), "in a trial game with 2 players (seed 0, random legal actions): runtime error: "
                       "RuntimeError: zone spot holds at most 2"),
])
def test_check_reports_what_a_trial_game_meets(tmp_path: Path, text: str, where: tuple, message: str) -> None:
    rules = load(tmp_path, text)
    with pytest.raises(RulesError) as err:
        rules.check_player_counts()
    (diagnostic,) = err.value.diagnostics
    assert (diagnostic.pos.line, diagnostic.pos.column) == where
    assert diagnostic.message.startswith(message)
    assert f"game.rules:{where[0]}:{where[1]}: error: in a trial game" in err.value.render()
    rules.check_player_counts(trial_games=0)  # without trials: nothing to report


def test_check_trials_can_be_more(tmp_path: Path) -> None:
    # room for every stone: three trials per count pass; otherwise the first trial run stops it
    rules = load(tmp_path, FAILING.replace("size 2", "size 9"))
    rules.check_player_counts(trial_games=3)
    with pytest.raises(RulesError, match=r"with 2 players \(seed 5"):
        load(tmp_path, FAILING).check_player_counts(trial_games=2, seed=5)


def test_check_cli_reports_the_trial_with_a_caret(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from ruleforge.cli import main

    path = tmp_path / "game.rules"
    path.write_text(SKIPPING)
    result = CliRunner().invoke(main, ["check", str(path)])
    assert result.exit_code == 1
    assert "game.rules:14:24: error: in a trial game with 2 players" in result.output
    assert "for p in players { turn p: place }" in result.output and "^^^" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("name", ["hagakure", "naishi", "naishi_legends"])
def test_the_games_pass_their_trials(name: str) -> None:
    ruleforge.load(ROOT / "games" / f"{name}.rules").check_player_counts(trial_games=3)


def test_to_json_is_a_document_of_its_own() -> None:
    rules = ruleforge.load(ROOT / "games" / "naishi.rules")
    game = rules.new_game(2, seed=2)
    for _ in range(5):
        game.apply(game.legal_actions()[0])
    saved = game.to_json()
    text = json.dumps(saved, sort_keys=True)
    digest = game.digest()
    while not game.is_over:
        game.apply(game.legal_actions()[-1])
    assert json.dumps(saved, sort_keys=True) == text
    assert rules.load_game(saved).digest() == digest


LATE = """\
game "Late"
players 1
var n: int = 0
action go "go" { n += 1 }
flow {
  repeat 30 { turn first(players): go }
  repeat { n += 1 } until n < 0
}
"""


def test_a_trial_game_stops_quietly_after_its_work_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "late.rules"
    path.write_text(LATE)
    with pytest.raises(RulesError) as err:  # the whole trial meets the endless loop after 30 decisions
        ruleforge.load(path).check_player_counts()
    assert err.value.diagnostics[0].pos.line == 7
    monkeypatch.setattr(rules_module, "TRIAL_WORK", 10)  # a huge game's trial stops before it
    ruleforge.load(path).check_player_counts()


ROUNDS = """\
game "Rounds"
players 1
var n: int = 0
var big: int = 10000000000
action go "go" { n += 1 }
flow {
  LOOP
}
"""


@pytest.mark.parametrize(("loop", "message"), [
    # written as a number: refused while compiling, at the loop
    ("repeat 10000000000 { n += 1 }", "this loop would run 10,000,000,000 rounds (limit blocks_without_decision"),
    # worked out while playing: refused when the loop starts, in the trial game
    ("repeat big { n += 1 }", "this loop would run 10,000,000,000 rounds (limit blocks_without_decision"),
    ("for k in 1..big { n += k }", "this loop would run 10,000,000,000 rounds (limit blocks_without_decision"),
    # a decision each round: more rounds than a game may have decisions (its list is never made)
    ("for k in 1..big { turn first(players): go }", "this loop would run 10,000,000,000 rounds "
                                                    "(limit decisions_per_game"),
])
def test_a_loop_of_too_many_rounds_is_refused_at_its_rule(tmp_path: Path, loop: str, message: str) -> None:
    path = tmp_path / "rounds.rules"
    path.write_text(ROUNDS.replace("LOOP", loop))
    with pytest.raises(RulesError) as err:
        ruleforge.load(path).check_player_counts()
    [d] = err.value.diagnostics
    assert (d.pos.line, d.pos.column) == (7, 3)
    assert message in d.message
