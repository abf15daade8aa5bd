"""A picture of a view draws a bounded amount whatever the view holds (ruleforge/picture/budget.py):
the top components of a pile, a window of a grid, a budget of drawings per view, texts cut; so
`ruleforge view` of a game with a pile of 10,000 cards writes each step in a bounded size."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ruleforge.cli import main
from ruleforge.picture import Picture, render_position_svg, render_view
from ruleforge.picture.budget import GRID_SHOWN, PILE_SHOWN, UNDER_SHOWN, VIEW_DRAWN

# A heap of 10,000 cards everyone sees, a face-down deck, and hands the cards go to.
BIG_PILE = """game "Big pile"
players 2

kind Card {
  number: int
  label "Card {number}"
}

zone deck: pile, visible nobody
zone heap: pile
zone hand per player: hand, visible owner

components {
  Card(number: 1..10000) in heap
  Card(number: 10001..10100) in deck
}

action take "take from the heap" {
  move top 1 of heap to hand(me)
  move top 1 of deck to hand(me)
}

flow {
  repeat 10 {
    for p in players { turn p: take }
  }
}
"""

PICTURE = Picture(title="t")


def drawn(fragment: str, zone: str) -> list[int]:
    """The indices of the components of `zone` a fragment draws."""
    return [int(k) for k in re.findall(rf'data-zone="{re.escape(zone)}" data-index="(\d+)"', fragment)]


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A game of the big pile played and drawn by `ruleforge view`: the page and its data."""
    folder = tmp_path_factory.mktemp("big")
    (folder / "big.rules").write_text(BIG_PILE)
    log = folder / "game.json"
    played = CliRunner().invoke(main, ["play", str(folder / "big.rules"), "--players", "2", "--agents", "random",
                                       "--seed", "1", "--log", str(log)])
    assert played.exit_code == 0, played.output
    viewed = CliRunner().invoke(main, ["view", str(log)])
    assert viewed.exit_code == 0, viewed.output
    page = log.with_suffix(".html")
    text = page.read_text(encoding="utf-8")
    data = json.loads(text.split('<script type="application/json" id="rf-data">', 1)[1].split("</script>", 1)[0])
    return page, data


def test_a_pile_of_ten_thousand_is_drawn_as_its_top_and_a_count(replay: tuple[Path, dict[str, Any]]) -> None:
    _page, data = replay
    first = "".join(data["fragments"][k] for k in data["steps"][0]["pictures"]["table"])
    assert drawn(first, "heap") == list(range(10_000 - PILE_SHOWN, 10_000))  # the top ones, by their true index
    assert 'heap <span class="rf-size">10,000</span>' in first
    assert "+9,900" in first and "9,900 more under these, not drawn" in first
    assert "Card 10000" in first and ">Card 9900<" not in first and "Card 1<" not in first
    last = "".join(data["fragments"][k] for k in data["steps"][-1]["pictures"]["table"])
    assert drawn(last, "heap") == list(range(9_980 - PILE_SHOWN, 9_980))  # 20 cards taken
    assert drawn(last, "hand(P1)") == list(range(20))  # a small hand: every card
    assert 'class="rf-back"' not in first  # the table sees every zone
    seat = "".join(data["fragments"][k] for k in data["steps"][0]["pictures"]["P1"])
    assert "hidden, 100" in seat  # the face-down deck: a back and its count


def test_each_step_of_the_replay_costs_a_bounded_size(replay: tuple[Path, dict[str, Any]]) -> None:
    """Measured: 52 s and 234 MB for these 21 steps when every card was drawn; 3.4 s (2 of them
    compiling the rules) and 0.3 MB now (not timed here: a test is no benchmark; what is drawn is
    counted)."""
    page, data = replay
    assert len(data["steps"]) == 21
    for step in data["steps"]:
        for mode, parts in step["pictures"].items():
            picture = "".join(data["fragments"][k] for k in parts)
            assert picture.count("data-index=") <= VIEW_DRAWN, mode
            assert len(drawn(picture, "heap")) <= PILE_SHOWN
    # a card that stays in its place is stored once for the whole game, every view together
    assert sum('data-zone="heap" data-index="9950"' in part for part in data["fragments"]) == 1
    assert page.stat().st_size < 1_000_000


def _view(zones: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"game": "g", "viewer": "table", "to_act": "P1", "over": False, "zones": zones, "vars": {},
            "seen": [], **more}


def test_many_full_piles_are_drawn_within_the_budget_and_the_rest_counted() -> None:
    zones = {f"pile{k}": [f"c{k}.{j}" for j in range(150)] for k in range(60)}
    full = VIEW_DRAWN // (1 + PILE_SHOWN)  # a pile costs its name and its top components
    part = VIEW_DRAWN - full * (1 + PILE_SHOWN) - 1  # the next pile: what is left
    out = 60 - full - 1
    for picture in (render_view(_view(zones), PICTURE), render_position_svg(_view(zones), PICTURE)):
        assert picture.count("data-index=") == full * PILE_SHOWN + part <= VIEW_DRAWN
        assert drawn(picture, "pile0") == list(range(150 - PILE_SHOWN, 150))
        assert drawn(picture, f"pile{full}") == list(range(150 - part, 150))
        assert f'data-zone="pile{full + 1}"' not in picture
        assert f"{out} more zones not drawn ({out * 150:,} components)" in picture
    ET.fromstring(render_position_svg(_view(zones), PICTURE).split("\n", 2)[2])


def test_a_full_grid_is_drawn_in_a_window_and_tall_stacks_counted() -> None:
    zones = {f"board[{r},{c}]": ["a", "b", "c"] for r in range(1, 101) for c in range(1, 101)}
    zones["board[1,1]"] = [f"s{k}" for k in range(20)]
    per_row = GRID_SHOWN * 4  # each cell, its top component and the two drawn small under it
    tall = 1 + UNDER_SHOWN - 3  # the first row has the tall stack: the most drawn under a top one
    rows = (VIEW_DRAWN - 1 - tall) // per_row  # after the grid's name
    page = render_view(_view(zones), PICTURE)
    assert f"rows 1-{rows}, columns 1-{GRID_SHOWN} shown" in page
    assert f'data-zone="board[{rows},{GRID_SHOWN}]"' in page
    assert f'data-zone="board[{rows + 1},1]"' not in page and f'data-zone="board[1,{GRID_SHOWN + 1}]"' not in page
    assert drawn(page, "board[1,1]") == list(range(19 - UNDER_SHOWN, 20))  # the top and the 8 under it
    assert f"{19 - UNDER_SHOWN} more under these, not drawn" in page
    assert page.count("data-index=") <= VIEW_DRAWN
    svg = render_position_svg(_view(zones), PICTURE)
    assert sorted(drawn(svg, "board[1,1]")) == list(range(19 - UNDER_SHOWN, 20))
    assert svg.count("data-index=") <= VIEW_DRAWN
    ET.fromstring(svg.split("\n", 2)[2])


def test_long_texts_of_a_view_are_cut() -> None:
    """A label a million characters long, a variable holding a million items, a thousand reveals
    of 10,000 components each: each is shown cut, and the picture stays small."""
    many = [f"card {k}" for k in range(10_000)]
    view = _view({"hand(P1)": ["x" * 1_000_000, "y"]}, vars={"pile": list(range(1_000_000)), "n": 3},
                 seen=[{"zone": "deck", "contents": many}] * 1_000, prompt="p" * 1_000_000)
    page = render_view(view, PICTURE)
    svg = render_position_svg(view, PICTURE)
    assert len(page) < 50_000 and len(svg) < 50_000
    assert "980 earlier reveals not listed" in page and page.count("<li>deck: card 0, card 1") == 20
    assert "[0, 1, 2, 3" in page and "[0, 1, 2, 3" in svg
