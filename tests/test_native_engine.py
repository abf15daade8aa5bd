"""The native engine (ruleforge/native/): the games it runs are the reference engine's, decision
by decision; what it cannot run is named and plays on the reference engine; a rules failure in C
is handed over and reported at its rule; no text of a rules file reaches C.

Each game's module is built once for this file, in a private cache of its own (about a second of
the C compiler per game). Without a C compiler the tests that need one are skipped."""

from __future__ import annotations

import json
import random
import warnings
from pathlib import Path

import pytest

import ruleforge
from ruleforge.native import NativeEngineWarning
from ruleforge.native import build as native_build
from ruleforge.native import ctree as c
from ruleforge.native.ctree import emit
from ruleforge.native.engine import NativeRefused, native_engine
from ruleforge.native.game import NativeGame
from ruleforge.native.lower import lower
from ruleforge.testing.native_backend import compare_native

ROOT = Path(__file__).parents[1]


def rules_at(path: str) -> ruleforge.Rules:
    return ruleforge.load(str(ROOT / path))


@pytest.fixture(scope="module", autouse=True)
def cache(tmp_path_factory: pytest.TempPathFactory):
    """One private cache for this file's builds."""
    folder = tmp_path_factory.mktemp("native") / "cache"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RULEFORGE_CACHE", str(folder))
        yield folder


def built(program):
    """The program's native engine; the test is skipped on a machine that builds none."""
    try:
        return native_engine(program)
    except NativeRefused as err:
        if "no C compiler" in str(err) or "no Python headers" in str(err):
            pytest.skip(str(err))
        raise


@pytest.mark.parametrize(("path", "players", "games"), [
    ("games/tictactoe.rules", 2, 200),
    ("games/connect_four.rules", 2, 120),
    ("tests/synthetic/nim.rules", 2, 60),
    ("games/hagakure.rules", 3, 25),
    ("games/hagakure.rules", 5, 25),
    ("games/love_letter.rules", 4, 30),
    ("games/kingdomino.rules", 2, 10),
    ("games/kingdomino.rules", 4, 10),
    ("games/no_thanks.rules", 3, 20),
    ("games/no_thanks.rules", 7, 20),
    ("games/naishi.rules", 2, 30),  # best choices: every way of the ninjas' options tried
    ("games/naishi_legends.rules", 2, 20),  # an action's effect that takes itself; lists from defs
    ("games/nakasendo.rules", 2, 12),  # longest paths, a list held in a variable
    ("games/nakasendo.rules", 4, 8),
    ("games/nakasendo_wide.rules", 3, 8),
])
def test_the_native_engine_plays_the_reference_games(path: str, players: int, games: int) -> None:
    program = rules_at(path).program(players)
    built(program)
    decisions = sum(compare_native(program, seed, random.Random(seed)) for seed in range(games))
    assert decisions >= games * 2  # every game compared to its end


def test_a_rules_failure_in_c_is_reported_at_its_rule_as_the_reference_reports_it() -> None:
    # 12 // n with n reaching 0: the native engine traps, hands the game over, and the replay
    # on the reference engine raises the division by zero at the `split` action's rule
    program = rules_at("tests/synthetic/native_trap.rules").program(2)
    built(program)
    failures = []
    for seed in range(30):
        try:
            compare_native(program, seed, random.Random(seed))
        except ruleforge.GameError as err:  # raised alike by both engines (compare_native checks)
            failures.append(err)
    assert failures and all(err.pos is not None and err.pos.line == 21 for err in failures)


def test_a_game_hands_over_to_the_reference_engine_for_what_it_does_not_keep() -> None:
    rules = rules_at("games/connect_four.rules")
    program = rules.program(2)
    engine = built(program)
    native, reference = NativeGame(program, 5, engine), rules.new_game(2, 5)
    choices = random.Random(5)
    for _ in range(6):
        action = reference.legal_actions()[choices.randrange(len(reference.legal_actions()))]
        native.apply(action)
        reference.apply(action)
    copy = native.clone()
    assert copy.on_native and copy.legal_actions() == reference.legal_actions()
    assert native.view(0) == reference.view(0)  # a view reads the reference engine's state: handed over
    assert not native.on_native and copy.on_native
    assert native.log_lines() == reference.log_lines()
    action = copy.legal_actions()[0]
    copy.apply(action)
    reference.apply(action)
    assert copy.legal_actions() == reference.legal_actions()


def test_rules_the_lowering_cannot_run_are_named_and_play_on_the_reference_engine() -> None:
    rules = rules_at("tests/synthetic/sealed_bids.rules")  # `turn together`: not lowered yet
    low = rules.model.players[0]
    program = rules.program(low)
    with pytest.raises(NativeRefused, match="turn together"):
        native_engine(program)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        games = [rules.new_game(low, seed, engine="auto") for seed in range(2)]
    said = [w for w in caught if issubclass(w.category, NativeEngineWarning)]
    assert len(said) == 1 and "playing on the reference engine" in str(said[0].message)
    assert not any(isinstance(g, NativeGame) for g in games)
    assert games[1].legal_actions() == rules.new_game(low, 1).legal_actions()


def test_no_engine_of_another_name() -> None:
    with pytest.raises(ruleforge.GameError, match="no engine named 'fast'"):
        rules_at("games/tictactoe.rules").new_game(2, engine="fast")


def test_no_text_of_the_rules_reaches_c() -> None:
    program = rules_at("games/connect_four.rules").program(2)
    source = emit(lower(program).unit)
    texts = {"Red", "Yellow", "Connect"} | set(program.comp_label)
    assert not any(text in source for text in texts)
    quoted = [line for line in source.splitlines() if '"' in line]
    assert quoted and all(line.startswith("#include \"rf_") for line in quoted)


@pytest.mark.parametrize("bad", ["x y", "a;b", "é", "int", "x)"])
def test_a_c_name_is_only_ever_an_identifier(bad: str) -> None:
    with pytest.raises(ValueError):
        c.Name(bad)


def test_a_c_constant_is_only_ever_a_64_bit_whole_number() -> None:
    for bad in ("1; system()", 1 << 63, 1.5, True):
        with pytest.raises(ValueError):
            c.Int(bad)
    with pytest.raises(ValueError):
        c.Include("../../etc/passwd")


def test_whole_playouts_in_c_count_what_games_played_one_decision_at_a_time_count() -> None:
    program = rules_at("games/tictactoe.rules").program(2)
    engine = built(program)
    games, decisions, traps, _sums, wins, _ = engine.module.playouts(2000, 0, 7)
    assert (games, traps) == (2000, 0)
    assert 5 * games <= decisions <= 9 * games
    assert sum(wins) >= games  # every game has a winner or a shared result
    assert wins[0] > wins[1]  # the first player's advantage in random Tic-Tac-Toe


def test_the_build_is_kept_in_the_private_cache(cache: Path) -> None:
    program = rules_at("tests/synthetic/nim.rules").program(2)
    built(program)
    assert any(p.name.startswith(native_build.PREFIX) for p in cache.iterdir())


SYNTHETIC = sorted(p.name for p in (ROOT / "tests" / "synthetic").glob("*.rules"))


@pytest.mark.parametrize("name", SYNTHETIC)
def test_every_synthetic_rules_file_that_lowers_plays_the_reference_games(name: str) -> None:
    rules = rules_at(f"tests/synthetic/{name}")
    program = rules.program(rules.model.players[0])
    try:
        native_engine(program)
    except NativeRefused as err:
        if "no C compiler" in str(err) or "no Python headers" in str(err):
            pytest.skip(str(err))
        assert "does not run" in str(err)  # a form the lowering names, never a failed build
        return
    for seed in range(4):
        try:
            compare_native(program, seed, random.Random(seed))
        except ruleforge.GameError:
            pass  # a rules failure both engines raised alike (compare_native checks)


@pytest.mark.parametrize(("path", "players", "depth"), [
    ("games/tictactoe.rules", 2, 5), ("games/connect_four.rules", 2, 4), ("games/love_letter.rules", 3, 3),
])
def test_move_counts_walk_natively_to_the_reference_counts(path: str, players: int, depth: int) -> None:
    from ruleforge import perft

    rules = rules_at(path)
    native = rules.new_game(players, 0, engine="native")
    if not isinstance(native, NativeGame):
        pytest.skip("no native engine on this machine")
    reference = rules.new_game(players, 0)
    assert perft.counts(native, depth) == perft.counts(reference, depth)
    assert perft.perft(native, depth) == perft.perft(reference, depth)
    budgets = [perft.Budget(allowed=50), perft.Budget(allowed=50)]
    errors = []
    for game, budget in zip((native, reference), budgets):
        with pytest.raises(perft.TooManyPositions) as err:
            perft.counts(game, depth, budget)
        errors.append(str(err.value))
    assert errors[0] == errors[1] and budgets[0].left == budgets[1].left


@pytest.mark.parametrize(("path", "players", "games"), [
    ("games/tictactoe.rules", 2, 400), ("games/connect_four.rules", 2, 150), ("games/hagakure.rules", 4, 60),
    ("games/no_thanks.rules", 4, 60),  # labels that read the state: "take 23 with 5 chips"
    ("games/nakasendo.rules", 2, 6),  # actions numbered by their arguments, labels that read the state
    ("tests/synthetic/label_holes.rules", 3, 80),  # labels reading the state every way choice_keys.py splits
])
def test_simulate_counts_natively_what_the_reference_engine_counts(path: str, players: int, games: int) -> None:
    from click.testing import CliRunner

    from ruleforge.cli import main

    built(rules_at(path).program(players))
    runs = {}
    for engine in ("reference", "native"):
        result = CliRunner().invoke(main, ["simulate", str(ROOT / path), "-n", str(games), "-p", str(players),
                                           "--seed", "7", "--json", "--engine", engine])
        assert result.exit_code == 0, result.output
        summary = json.loads(result.stdout)
        for timing in ("seconds", "games_per_second"):
            summary.pop(timing)
        runs[engine] = summary
        assert engine == "reference" or "counts no games" not in result.stderr, result.stderr
    assert runs["native"] == runs["reference"]
    assert runs["native"]["games"] == games


def test_simulate_says_why_the_native_engine_counts_no_games() -> None:
    from click.testing import CliRunner

    from ruleforge.cli import main

    result = CliRunner().invoke(main, ["simulate", str(ROOT / "games/tictactoe.rules"), "-n", "5", "--json",
                                       "--engine", "native", "--agents", "greedy,random"])
    assert result.exit_code == 0
    assert "note: the native engine counts no games here (it plays random agents only)" in result.stderr


def test_choice_keys_are_counted_in_c_and_named_as_the_reference_engine_names_them() -> None:
    """Every game of the synthetic rules is counted in C (none handed back), and the choices'
    labels rendered from their keys are the ones the reference engine logs for the same games."""
    from ruleforge.agents import RandomAgent, agent_seed
    from ruleforge.balance.records import choices
    from ruleforge.balance.stats import Tally
    from ruleforge.native.simulate import count_natively, native_counting

    program = rules_at("tests/synthetic/label_holes.rules").program(3)
    built(program)
    tally = Tally(3)
    assert count_natively(native_counting(program), tally, 0, 30) == []
    logged: dict[str, int] = {}
    for seed in range(30):
        game = ruleforge.Game(program, seed)
        seats = [RandomAgent(agent_seed(seed, seat)) for seat in range(3)]
        while not game.is_over:
            game.apply(seats[game.current_player].choose(game))
        for label, n in choices(game).items():
            logged[label] = logged.get(label, 0) + n
    assert tally.choices == logged
    assert any(label.startswith("keep chip") and "done yes" in label for label in logged)  # a hole of each kind met
