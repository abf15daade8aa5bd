"""Pictures of views (ruleforge.picture): structure, hints, escaping, the catalogue, and that
a picture shows a player nothing their view does not."""

from __future__ import annotations

import html
import json
import random
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

import ruleforge
from ruleforge.display import ByValue, KindDisplay
from ruleforge.picture import (
    Picture,
    make_picture,
    picture_css,
    render_position_svg,
    render_view,
    table_view,
    targets_of,
)
from ruleforge.picture.replay_page import ReplayBook
from ruleforge.screen import CELL_KEY

ROOT = Path(__file__).resolve().parents[1]
NAKASENDO = ROOT / "games" / "nakasendo.rules"
TERRAIN = {"Water": "#7fb7e6", "Rock": "#a8a29a", "Forest": "#5e9e5a", "Field": "#e8d36a", "Flowers": "#e9a6c8"}
NAKASENDO_HINTS = {"Tile": KindDisplay(
    "Tile", colour=ByValue("terrain", TERRAIN),
    paths=(ByValue("shape", {"NS": "N S", "EW": "E W", "NE": "N E", "NW": "N W"}),
           ByValue("start", {"true": "N E S W"})),
    turn=("flipped", 180), marks=(("snow", "❄"), ("bears", "🐻")))}


class Elements(HTMLParser):
    """Every start tag with its attributes, and the text, of an HTML fragment."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.texts: list[str] = []
        self.feed(page)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.texts.append(data)

    def zones(self) -> set[str]:
        return {a["data-zone"] for _, a in self.tags if a.get("data-zone") is not None}  # type: ignore[misc]

    def component(self, zone: str, index: int) -> tuple[str, dict[str, str | None]]:
        return next(t for t in self.tags if t[1].get("data-zone") == zone and t[1].get("data-index") == str(index))


def played(path: Path, players: int, steps: int, seed: int = 1) -> ruleforge.Game:
    game = ruleforge.load(str(path)).new_game(players, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.is_over:
            break
        game.apply(rng.choice(game.legal_actions()))
    return game


@pytest.fixture(scope="module")
def nakasendo() -> tuple[ruleforge.Rules, Picture]:
    rules = ruleforge.load(str(NAKASENDO))
    return rules, make_picture(rules, 2, hints=NAKASENDO_HINTS)


def component_svg_of(page: str, zone: str, index: int) -> str:
    """The inline SVG of one component, by its data attributes."""
    m = re.search(rf'<svg class="[^"]*" data-zone="{re.escape(html.escape(zone))}" data-index="{index}".*?</svg>',
                  page, re.S)
    assert m, (zone, index)
    return m.group(0)


def test_nakasendo_view_has_every_zone_and_cell(nakasendo: tuple[ruleforge.Rules, Picture]) -> None:
    rules, picture = nakasendo
    game = played(NAKASENDO, 2, 40)
    view = game.view(0, properties=True)
    page = render_view(view, picture)
    found = Elements(page)
    keys = found.zones()
    for key, content in view["zones"].items():
        if not CELL_KEY.match(key) or content:  # every pile, every cell with something in it
            assert key in keys, key
        if isinstance(content, list):
            for k in range(len(content)):
                found.component(key, k)
    hidden = [a for _, a in found.tags if a.get("data-zone") == "tile_pile" and "rf-hidden" in (a.get("class") or "")]
    assert hidden and f"hidden, {view['zones']['tile_pile']['hidden']}" in page
    assert 'class="rf-back"' in page
    assert "P1 (you)" in page and page.index("P1 (you)") < page.index('data-player="P2"')


def test_nakasendo_tiles_are_drawn_with_their_hints(nakasendo: tuple[ruleforge.Rules, Picture]) -> None:
    rules, picture = nakasendo
    game = rules.position(json.loads((ROOT / "docs" / "examples" / "nakasendo_blue.json").read_text()))
    view = game.view(0, properties=True)
    page = render_view(view, picture)
    start = component_svg_of(page, "board(P1)[4,4]", 0)  # the Start tile: a crossing
    assert start.count("<line ") == 4
    water = component_svg_of(page, "board(P1)[5,3]", 0)  # Water E-W with a bear
    assert f'fill="{TERRAIN["Water"]}"' in water and water.count("<line ") == 2 and "🐻" in water
    assert "rotate(" not in water
    flipped = component_svg_of(page, "board(P1)[3,6]", 0)  # Flowers N-E, flipped, 3 snow (under a token)
    assert 'rotate(180 ' in flipped and f'fill="{TERRAIN["Flowers"]}"' in flipped
    top = component_svg_of(page, "board(P1)[3,6]", 1)  # the token on it, drawn full size
    assert 'width="84"' in top and 'width="20"' in flipped
    svg = render_position_svg(table_view(game), picture)
    root = ET.fromstring(svg.split("\n", 2)[2])  # after the XML declaration and our comment
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert "rotate(180 " in svg and TERRAIN["Rock"] in svg


def test_naishi_cards_and_hidden_hands() -> None:
    rules = ruleforge.load(str(ROOT / "games" / "naishi.rules"))
    game = played(ROOT / "games" / "naishi.rules", 2, 6, seed=4)
    view = game.view(0, properties=True)
    page = render_view(view, make_picture(rules, 2))
    found = Elements(page)
    for key, content in view["zones"].items():
        if isinstance(content, list) and not CELL_KEY.match(key):
            assert key in found.zones()
    for key, content in view["zones"].items():
        if isinstance(content, dict) and content["hidden"]:
            assert f'data-zone="{html.escape(key)}"' in page and f"hidden: {content['hidden']}" in page
    river = component_svg_of(page, "river[1,1]", 0)
    assert 'viewBox="0 0 84 84"' in river
    assert 'class="rf-var-table"' in page and ">score</th>" in page


def test_hidden_stays_hidden() -> None:
    """Labels found only in other players' hands never reach seat 0's picture."""
    rules = ruleforge.load(str(ROOT / "games" / "hagakure.rules"))
    game = rules.new_game(4, seed=3)
    view = game.view(0, properties=True)
    places: dict[str, set[str]] = {}
    for c in game.components():
        info = game.component_info(c)
        places.setdefault(info.label, set()).add(info.zone)
    others = {f"hand(P{p})" for p in (2, 3, 4)}
    secret = [label for label, zones in places.items() if zones <= others]
    assert len(secret) >= 5
    page = render_view(view, make_picture(rules, 4))
    for label in secret:
        shown = html.escape(label)
        assert f"<title>{shown}" not in page and f">{shown}</text>" not in page, label
    mine = [game.component_info(c).label for c in game.components("hand", owner=0)]
    assert all(f"<title>{html.escape(label)}" in page for label in mine)


EVIL = '<script>alert(1)</script>'
QUOTE = '" onmouseover="x'


def evil_view() -> dict[str, Any]:
    return {"game": EVIL, "viewer": "P1", "to_act": "P1", "over": False,
            "zones": {"hand(P1)": [EVIL, QUOTE, "bell\x07\x1b]0;title\x07"], QUOTE: [EVIL], "deck": {"hidden": 3},
                      f"{EVIL}[1,1]": [QUOTE]},
            "properties": {"hand(P1)": [{"turned": True}, {QUOTE: EVIL}, {}]},
            "vars": {"score(P1)": EVIL, QUOTE: [EVIL, QUOTE]}, "seen": [{"zone": EVIL, "contents": [QUOTE]}],
            "prompt": EVIL}


def test_everything_from_a_file_is_escaped() -> None:
    hints = {"Card": KindDisplay("Card", colour="red;background:url(http://x)", icon=EVIL,
                                 marks=((QUOTE, '"/><script>'),))}
    picture = Picture(title=EVIL, labels={EVIL: ruleforge.picture.Entry("Card", {})}, hints=hints)
    for out in (render_view(evil_view(), picture), render_position_svg(evil_view(), picture)):
        assert "<script" not in out and 'onmouseover="' not in out and "url(" not in out
        assert "&lt;script&gt;" in out and "&quot; onmouseover=&quot;x" in out
        assert not any(ord(ch) < 32 and ch not in "\n\t" for ch in out)
        assert "\\x1b" in out
    ET.fromstring(render_position_svg(evil_view(), picture).split("\n", 2)[2])
    Elements(render_view(evil_view(), picture))  # parses
    assert "<script" not in picture_css() and "url(" not in picture_css()


def test_a_replay_page_cannot_be_closed_by_a_label() -> None:
    rules = ruleforge.load(str(ROOT / "tests" / "synthetic" / "picture_labels.rules"))
    book = ReplayBook(make_picture(rules, 2), 2)
    book.add(rules.new_game(2), None)
    book.fragments.append("</script><script>alert(1)</script>")
    book.steps.append({"move": "</script>" + QUOTE, "pictures": book.steps[0]["pictures"], "scores": 0})
    page = book.html(EVIL)
    body = page.split('<script type="application/json" id="rf-data">', 1)[1]
    data, rest = body.split("</script>", 1)
    assert json.loads(data)["fragments"][-1] == "</script><script>alert(1)</script>"
    assert "<script>alert" not in page and "&lt;/script&gt;&quot; onmouseover" in page


def test_catalogue_keeps_only_what_a_label_tells() -> None:
    rules = ruleforge.load(str(ROOT / "tests" / "synthetic" / "picture_labels.rules"))
    picture = make_picture(rules, 2)
    assert picture.labels["Card"].kind == "Card"
    assert dict(picture.labels["Card"].attributes) == {"size": 2}  # the suit differs: dropped
    assert dict(picture.labels["Red Gem"].attributes) == {"suit": "Red"}
    assert picture.initial["Card"] == {"turned": False}
    hinted = make_picture(rules, 2, hints={"Card": KindDisplay("Card", colour=ByValue("suit", {"Red": "red"}))})
    page = render_view(rules.new_game(2).view(0, properties=True), hinted)
    assert 'fill="red"' not in page  # a hint on what the label does not tell draws nothing


def test_a_trimmed_grid_keeps_the_cells_an_action_targets() -> None:
    rules = ruleforge.load(str(ROOT / "tests" / "synthetic" / "tile_grid.rules"))
    game = rules.new_game(2, seed=3)
    targets = targets_of(game)
    assert "board(P1)[2,3]" in targets and "board(P2)[2,3]" not in targets
    view = game.view(game.current_player, properties=True)
    picture = make_picture(rules, 2)
    far = {"board(P1)[1,1]"}
    assert 'data-zone="board(P1)[1,1]"' not in render_view(view, picture)  # trimmed round the start tile
    assert 'data-zone="board(P1)[1,1]"' in render_view(view, picture, far)
