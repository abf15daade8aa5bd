"""Absurd sizes — a grid of millions of cells, a billion components, a game for 100,000
players — are refused by `check` at the declaration, naming the limit and how to raise it,
before anything is allocated; sizes within the limits (and limits raised) still work."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import ruleforge
from ruleforge import RulesError
from ruleforge.cli import main
from ruleforge.limits import raised

ROOT = Path(__file__).parents[1]
HEAD = """\
game "Sizes"
players PLAYERS
kind Tile { value: int }
zone bag: pile
"""
FLOW = "\nflow { }\n"


def write(tmp_path: Path, body: str, players: str = "2") -> Path:
    path = tmp_path / "sizes.rules"
    path.write_text(HEAD.replace("PLAYERS", players) + body + FLOW)
    return path


def refused(path: Path) -> RulesError:
    """What `ruleforge check` finds: the checker's errors, then each player count's."""
    with pytest.raises(RulesError) as info:
        ruleforge.load(path).check_player_counts()
    return info.value


def only(err: RulesError) -> tuple[int, int, str]:
    assert len(err.diagnostics) == 1, err.render()
    d = err.diagnostics[0]
    return d.pos.line, d.pos.column, d.message


def test_a_grid_of_millions_of_cells_is_refused_at_its_size(tmp_path: Path) -> None:
    line, column, message = only(refused(write(tmp_path, "zone board: grid, size 5000 by 5000\n")))
    assert (line, column) == (5, 24)
    assert message == ("grid 'board' would have 5,000 by 5,000 = 25,000,000 cells, too many for one grid "
                       "(limit grid_cells = 10,000; raise it with RULEFORGE_MAX_GRID_CELLS)")


def test_the_caret_covers_both_sides_of_the_grid(tmp_path: Path) -> None:
    rendered = refused(write(tmp_path, "zone board: grid, size 5000 by 5000\n")).render()
    assert rendered.endswith("\n    zone board: grid, size 5000 by 5000\n" + " " * 27 + "^" * 12)


def test_a_grid_at_the_limit_is_fine_and_the_limit_can_be_raised(tmp_path: Path) -> None:
    ruleforge.load(write(tmp_path, "zone board: grid, size 100 by 100\n")).check_player_counts()
    path = write(tmp_path, "zone board: grid, size 100 by 101\n")
    assert "10,100 cells" in only(refused(path))[2]
    with raised(grid_cells=10_100):
        rules = ruleforge.load(path)
        rules.check_player_counts()
        assert len(rules.new_game(2).program.zones) == 1 + 10_100


def test_a_grid_sized_by_the_player_count_is_refused_for_the_counts_it_outgrows(tmp_path: Path) -> None:
    path = write(tmp_path, "zone board per player: grid, size 100 by (player_count * 40)\n", players="2..3")
    rules = ruleforge.load(path)  # a number of cells known only per player count: the checker lets it be
    rules.program(2)
    line, column, message = only(refused(path))
    assert (line, column) == (5, 35)
    assert message.startswith("grid 'board' would have 100 by 120 = 12,000 cells with 3 players,")


def test_a_grid_needs_a_row_and_a_column(tmp_path: Path) -> None:
    assert only(refused(write(tmp_path, "zone board: grid, size 0 by 3\n"))) == \
        (5, 24, "grid 'board' needs at least one row, not 0")
    assert only(refused(write(tmp_path, "zone board: grid, size 2 by (player_count - 3)\n"))) == \
        (5, 30, "grid 'board' needs at least one column, not -1 with 2 players")


def test_a_negative_capacity_is_refused(tmp_path: Path) -> None:
    assert only(refused(write(tmp_path, "zone spots: pile, size -2\n"))) == \
        (5, 24, "zone 'spots' cannot hold fewer than no components (size -2)")
    assert only(refused(write(tmp_path, "zone spots per player: pile, size player_count - 3\n"))) == \
        (5, 35, "zone 'spots' cannot hold fewer than no components (size -1 with 2 players)")


def test_a_million_components_are_refused_at_their_entry(tmp_path: Path) -> None:
    body = "components {\n  1000000 of Tile(value: 1) in bag\n}\n"
    line, column, message = only(refused(write(tmp_path, body)))
    assert (line, column) == (6, 3)
    assert message == ("this entry makes 1,000,000 components, too many for one game "
                       "(limit components = 100,000; raise it with RULEFORGE_MAX_COMPONENTS)")


def test_components_are_counted_over_every_entry_and_attribute_range(tmp_path: Path) -> None:
    at_limit = "components {\n  100 of Tile(value: 1..900) in bag\n  2 of Tile(value: 1..5000) in bag\n}\n"
    assert len(ruleforge.load(write(tmp_path, at_limit)).new_game(2).program.comp_kind) == 100_000
    over = at_limit.replace("5000", "5001")
    line, _, message = only(refused(write(tmp_path, over)))
    assert line == 7
    assert message.startswith("this entry makes 10,002 components, 100,002 in all, too many for one game")


def test_components_computed_from_the_player_count(tmp_path: Path) -> None:
    zones = "zone hand per player: hand\n"
    body = zones + "components {\n  (player_count * 20000) of Tile(value: 1) in hand of each player\n}\n"
    path = write(tmp_path, body, players="1..3")
    ruleforge.load(path).program(2)  # 80,000: fine
    line, column, message = only(refused(path))
    assert (line, column) == (7, 3)
    assert message == ("this entry makes 180,000 components (60,000 for each of 3 players), too many for one game "
                       "(limit components = 100,000; raise it with RULEFORGE_MAX_COMPONENTS)")


def test_zones_are_counted_with_every_cell_and_player(tmp_path: Path) -> None:
    body = "zone board per player: grid, size 100 by 100\n"
    path = write(tmp_path, body, players="2..20")
    line, column, message = only(refused(path))
    assert (line, column) == (5, 1)
    assert message == ("zone 'board' brings the game's zones to 200,001 with 20 players (every grid cell is one), "
                       "too many for one game (limit zones = 200,000; raise it with RULEFORGE_MAX_ZONES)")
    with raised(zones=200_001):
        ruleforge.load(path).check_player_counts()


def test_a_game_for_too_many_players_is_refused(tmp_path: Path) -> None:
    err = refused(write(tmp_path, "", players="2..100000"))
    assert only(err) == (2, 1, "a game for up to 100,000 players is more than ruleforge sets up "
                               "(limit players = 100; raise it with RULEFORGE_MAX_PLAYERS)")
    ruleforge.load(write(tmp_path, "", players="2..100")).check_player_counts()


def test_check_on_the_command_line_exits_1_without_allocating(tmp_path: Path) -> None:
    path = write(tmp_path, "zone board: grid, size 1000 by 1000\ncomponents {\n"
                           "  (player_count * 1000000) of Tile(value: 1) in bag\n}\n")
    result = CliRunner().invoke(main, ["check", str(path)])
    assert result.exit_code == 1
    assert "1,000,000 cells" in result.output and "RULEFORGE_MAX_GRID_CELLS" in result.output
    assert "Traceback" not in result.output and "internal error" not in result.output


def test_a_limit_raised_by_the_environment(tmp_path: Path) -> None:
    path = write(tmp_path, "zone board: grid, size 100 by 200\n")
    command = [sys.executable, "-m", "ruleforge", "check", str(path)]
    plain = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert plain.returncode == 1 and "RULEFORGE_MAX_GRID_CELLS" in plain.stderr
    env = {**os.environ, "RULEFORGE_MAX_GRID_CELLS": "20000"}
    more = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)
    assert more.returncode == 0, more.stderr


def test_sizes_written_as_numbers_are_reported_with_the_other_errors(tmp_path: Path) -> None:
    body = ("zone board: grid, size 5000 by 5000\nzone spots: pile, size -1\nvar x: int = y\n"
            "components {\n  1000000 of Tile(value: 1) in bag\n}\n")
    with pytest.raises(RulesError) as info:
        ruleforge.load(write(tmp_path, body))  # the checker, before any player count is compiled
    assert [d.pos.line for d in info.value.diagnostics] == [5, 6, 7, 9]


CHOICES = """\
game "Choices"
players 2
var n: int = 0
var k: int = 1000000000
ACTION
flow { repeat 2 { for p in players { turn p: a } } }
"""


def test_an_action_with_too_many_arguments_to_try_is_refused_before_listing_them(tmp_path: Path) -> None:
    path = tmp_path / "choices.rules"
    path.write_text(CHOICES.replace("ACTION", 'action a(x in 1..1000000000, y in 1..3) "a {x} {y}" { n += 1 }'))
    with pytest.raises(RulesError) as err:
        ruleforge.load(path).check_player_counts()
    [d] = err.value.diagnostics
    assert (d.pos.line, d.pos.column) == (5, 1)
    assert d.message == ("action 'a' has more than 100,000 choices of its arguments to try "
                         "(limit choices = 100,000; raise it with RULEFORGE_MAX_CHOICES)")


def test_a_range_of_arguments_worked_out_while_playing_is_bounded_too(tmp_path: Path) -> None:
    path = tmp_path / "choices.rules"
    path.write_text(CHOICES.replace("ACTION", 'action a(x in 1..k) "a {x}" { n += 1 }'))
    rules = ruleforge.load(path)
    with pytest.raises(RulesError) as err:
        rules.check_player_counts()
    [d] = err.value.diagnostics
    assert (d.pos.line, d.pos.column) == (5, 10)
    assert d.message.endswith("this parameter has more than 100,000 values to try "
                              "(limit choices = 100,000; raise it with RULEFORGE_MAX_CHOICES)")
    with raised(choices=1_000_000_000):  # raised, the same range is listed (in a smaller game)
        path.write_text(CHOICES.replace("ACTION", 'action a(x in 1..k) "a {x}" { n += 1 }')
                        .replace("1000000000", "150000"))
        game = ruleforge.load(path).new_game(2)
        assert len(game.legal_actions()) == 150_000
