"""The RL adapters work out the size of an observation and of the action space before they
make any array, and refuse one past the limit `observation_size` with a message naming the
rules file and the limit, never numpy's own error (docs/rl.md, docs/limits.md)."""

from __future__ import annotations

import re
import tracemalloc
from pathlib import Path

import pytest

import ruleforge
from ruleforge.diagnostics import GameError
from ruleforge.limits import Limits, describe, raised

pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")
np = pytest.importorskip("numpy")

from ruleforge.rl.encoding import make_codec  # noqa: E402
from ruleforge.rl.pettingzoo import env, parallel_env  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

# Within every limit of a rules file: a grid of 10,000 cells and 2,000 labels, one-hot per
# zone and label: 20 million numbers (80 MB of float32 each observation, and the PettingZoo Box
# twice that). With 20,000 labels it was 200 million, and numpy's "Unable to allocate 763 MiB".
WIDE = """game "Wide"
players 2

kind Card {
  number: int
  label "Card {number}"
}

zone board: grid, size 100 by 100
zone deck: pile

components {
  Card(number: 1..2000) in deck
}

flow {
  turn first(players): pass
}
"""

SMALL = WIDE.replace("size 100 by 100", "size 3 by 3").replace("1..2000", "1..10")


@pytest.fixture(scope="module")
def wide(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("rl") / "wide.rules"
    path.write_text(WIDE)
    return path


def refused(make, most_bytes: int = 20_000_000) -> str:
    """The message of the GameError `make()` raises, checked to come before any large array."""
    tracemalloc.start()
    try:
        with pytest.raises(GameError) as caught:
            make()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < most_bytes, peak  # an observation of this file is 80 MB: none was made
    return str(caught.value)


def test_a_wide_game_is_refused_when_the_environment_is_made(wide: Path) -> None:
    rules = ruleforge.load(wide)
    message = refused(lambda: env(rules, 2))
    assert message.startswith(f"{wide}: an RL observation of this game for 2 players would hold ")
    assert "the most of them in zone_labels (20,002,000 = 10,001 zones × 2,000 labels)" in message
    assert message.endswith(f"too many to encode ({describe('observation_size')})")
    assert refused(lambda: parallel_env(rules, 2)) == message
    assert refused(lambda: make_codec(rules, 2)) == message
    with pytest.raises(GameError) as caught:  # a path, loaded by the adapter (compiling it takes memory of its own)
        env(str(wide), 2)
    assert str(caught.value) == message


def test_a_wide_game_is_refused_by_the_openspiel_adapter(wide: Path) -> None:
    pyspiel = pytest.importorskip("pyspiel")
    from ruleforge.rl.openspiel import register

    rules = ruleforge.load(wide)
    message = refused(lambda: register(rules, 2, name="rf_test_too_wide"))
    assert message.startswith(f"{wide}: an RL observation") and "observation_size" in message
    assert "rf_test_too_wide" not in pyspiel.registered_names()


def test_the_limit_counts_the_whole_observation_and_can_be_raised(tmp_path: Path) -> None:
    path = tmp_path / "small.rules"
    path.write_text(SMALL)
    rules = ruleforge.load(path)
    encoding, pieces = make_codec(rules, 2)
    size = encoding.size + pieces.depth * pieces.size  # the view's numbers and the pieces chosen
    with raised(observation_size=size - 1):
        message = refused(lambda: env(rules, 2))
    assert f"would hold {size:,} numbers" in message and f"observation_size = {size - 1:,}" in message
    with raised(observation_size=size):
        made = env(rules, 2)
        made.reset(seed=0)
        observed = made.observe("P1")
    assert observed["observation"].shape == (size,) and observed["action_mask"].shape == (pieces.size,)


def test_a_wide_int_range_is_refused_before_its_pieces_are_named(tmp_path: Path) -> None:
    path = tmp_path / "small.rules"
    path.write_text(SMALL)
    rules = ruleforge.load(path)
    message = refused(lambda: env(rules, 2, int_range=(0, 10 ** 12)))
    assert re.search(r"the most of them in pieces_chosen \([\d,]+ = 1 step × 1,000,000,000,\d+ pieces\)", message)


def test_the_games_sizes_are_those_documented_and_far_under_the_default() -> None:
    """docs/rl.md lists every game's observation and action sizes; the default of the limit is
    more than 250 times the largest (nakasendo_wide for 4 players: 36,490 numbers)."""
    table = (ROOT / "docs" / "rl.md").read_text().split("| rules | N / A by player count | depth |")[1]
    rows = re.findall(r"^\| (\w+)\.rules \| (.+?) \| (\d+) \|$", table, re.M)
    assert len(rows) == len(list((ROOT / "games").glob("*.rules")))
    largest = 0
    for stem, sizes, depth in rows:
        rules = ruleforge.load(ROOT / "games" / f"{stem}.rules")
        for players, observed, pieces in re.findall(r"(\d+)p: (\d+) / (\d+)", sizes):
            encoding, made = make_codec(rules, int(players))
            size = encoding.size + made.depth * made.size
            assert (size, made.size, made.depth) == (int(observed), int(pieces), int(depth)), (stem, players)
            largest = max(largest, size)
    assert largest * 250 < Limits().observation_size
