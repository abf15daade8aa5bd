"""`display KIND { ... }`: the hints as data (Rules.display), every checker error at its place,
variants inheriting, replacing and removing hints, and the games' hints naming real kinds."""

from __future__ import annotations

from pathlib import Path

import pytest

import ruleforge
from ruleforge import RulesError
from ruleforge.display import ByValue, KindDisplay

HERE = Path(__file__).parent
GAMES = sorted((HERE.parent / "games").glob("*.rules"))

BASE = """game "Base"
players 2
enum Ground { Sea, Hill }
kind Tile {
  ground: Ground
  start: flag = false
  worth: int = 0
  owner_of: player = none
  var flipped: flag = false
  var tokens: int = 0
}
kind Blank { label "Blank" }
zone board: pile, visible everyone
components { Tile(ground: Sea) in board }
flow { }
"""
LINE = BASE.count("\n") + 1  # the line of the first display written after BASE


def test_rules_display_of_the_synthetic_file() -> None:
    rules = ruleforge.load(HERE / "synthetic" / "display.rules")
    assert rules.display == {
        "Tile": KindDisplay(
            "Tile",
            colour=ByValue("ground", {"Sea": "#3b82c4", "Hill": "#d2b48c"}),  # tan, as the file names it
            icon=ByValue("worth", {"0": "·", "2": "★★"}),
            paths=(ByValue("ground", {"Sea": "N S", "Hill": "E W"}),
                   ByValue("start", {"true": "N E S W", "false": "N"})),
            turn=("flipped", 180),
            marks=(("tokens", "●"), ("worth", "$")),
        ),
        "Token": KindDisplay("Token", colour=ByValue("kind", {"Plain": "#808080", "Gem": "#f0a"}), icon="◆"),
        "Blank": KindDisplay("Blank", colour="#fff"),
    }


def test_no_display_is_an_empty_dict(tmp_path: Path) -> None:
    assert ruleforge.rules.Rules(tmp_path / "plain.rules", BASE).display == {}


def test_hints_leave_the_generated_code_alone(tmp_path: Path) -> None:
    plain = ruleforge.rules.Rules(tmp_path / "a.rules", BASE)
    hinted = ruleforge.rules.Rules(tmp_path / "a.rules", BASE + 'palette red = "#f00"\n'
                                   'display Tile { colour "red" mark tokens "x" }\n')
    assert plain.program(2).source == hinted.program(2).source


def problems(tmp_path: Path, display: str) -> list[tuple[int, int, str, str | None]]:
    """What the checker reports for BASE followed by `display` lines: (line, column, message, hint)."""
    with pytest.raises(RulesError) as info:
        ruleforge.rules.Rules(tmp_path / "broken.rules", BASE + display)
    return [(d.pos.line, d.pos.column, d.message, d.hint) for d in info.value.diagnostics]


# display line -> (column, message, hint substring or None)
BROKEN = {
    'display Tyle { colour "#f00" }': (9, "unknown kind 'Tyle'", "did you mean 'Tile'?"),
    'display Tile { colour by grond { Sea: "#f00" } }': (26, "kind 'Tile' has no attribute 'grond'",
                                                        "did you mean 'ground'?"),
    'display Tile { colour by ground { Sea: "#f00", Lake: "#00f" } }': (48, "'Lake' is not a member of Ground",
                                                                      "Ground is Sea, Hill"),
    'display Tile { path by start { yes: "N S" } }': (32, "'start' is a flag: its values are true and false",
                                                      None),
    'display Tile { icon by worth { two: "2" } }': (32, "'worth' is an int: its values are numbers", None),
    'display Tile { colour by owner_of { Sea: "#f00" } }': (26, "a hint cannot go by 'owner_of', which is player",
                                                           "enum, flag or int"),
    'display Tile { colour "url(x)" }': (23, "'url(x)' is not a colour", "write #rgb or #rrggbb"),
    'display Tile { path by ground { Sea: "N N" } }': (38, "'N N' is not a path", "N, E, S and W"),
    'display Tile { icon "much too long" }': (21, "13 characters is too long", "at most 8 characters"),
    'display Tile { mark tokens "a\tb" }': (28, "control character (U+0009)", None),
    'display Tile { turn 180 if tokens }': (28, "'turn ... if' needs a flag; 'tokens' is int", None),
    'display Tile { turn 45 if flipped }': (21, "a turn of 45 degrees", "90, 180 or 270"),
    'display Tile { mark flipped "x" }': (21, "a mark shows a number; 'flipped' is flag", "int attribute"),
    'display Tile { colour "#f00" colour "#00f" }': (30, "a second 'colour' in 'display Tile'",
                                                    f"the first is at line {LINE}"),
    'display Tile { icon "a" icon "b" }': (25, "a second 'icon' in 'display Tile'", None),
    'display Tile { turn 90 if flipped turn 180 if flipped }': (35, "a second 'turn' in 'display Tile'", None),
    'display Blank { }\ndisplay Blank { colour "#f00" }': (1, "a second 'display Blank'",
                                                          f"the first is at line {LINE}"),
}


@pytest.mark.parametrize("display", sorted(BROKEN))
def test_each_display_error(tmp_path: Path, display: str) -> None:
    column, message, hint = BROKEN[display]
    found = problems(tmp_path, display + "\n")
    assert len(found) == 1, found
    line, col, got, got_hint = found[0]
    assert (line, col) == (LINE + display.count("\n"), column), found
    assert message in got, found
    if hint is not None:
        assert got_hint is not None and hint in got_hint, found


def test_every_display_error_at_once_with_a_caret(tmp_path: Path) -> None:
    text = 'display Tile {\n  colour "nope"\n  mark snow "x"\n  turn 100 if flipped\n}\n'
    with pytest.raises(RulesError) as info:
        ruleforge.rules.Rules(tmp_path / "broken.rules", BASE + text)
    found = [(d.pos.line - LINE, d.pos.column, d.message) for d in info.value.diagnostics]
    assert found == [(1, 10, "'nope' is not a colour"), (2, 8, "kind 'Tile' has no attribute 'snow'"),
                     (3, 8, "a turn of 100 degrees")]
    assert '      colour "nope"\n             ^^^^^^' in info.value.render()


def write_base(tmp_path: Path) -> None:
    (tmp_path / "base.rules").write_text(BASE + 'palette red = "#f00"\npalette blue = "#00f"\n'
                                         'display Tile { colour "red" }\ndisplay Blank { icon "B" }\n')


def variant(tmp_path: Path, text: str) -> ruleforge.rules.Rules:
    path = tmp_path / "variant.rules"
    path.write_text('extends "base.rules"\n' + text)
    return ruleforge.load(path)


def test_a_variant_inherits_replaces_and_removes_displays(tmp_path: Path) -> None:
    write_base(tmp_path)
    assert variant(tmp_path, "").display == {"Tile": KindDisplay("Tile", colour="#f00"),
                                              "Blank": KindDisplay("Blank", icon="B")}
    changed = variant(tmp_path, 'replace display Tile { colour "blue" }\nremove display Blank\n')
    assert changed.display == {"Tile": KindDisplay("Tile", colour="#00f")}


def test_a_variant_may_not_redeclare_or_remove_what_is_not_there(tmp_path: Path) -> None:
    write_base(tmp_path)
    with pytest.raises(RulesError) as info:
        variant(tmp_path, 'display Tile { colour "blue" }\nremove display Nothing\nreplace display Other { }\n')
    assert [d.message for d in info.value.diagnostics] == [
        "'display Tile' is already declared by the base",
        "cannot remove display 'Nothing': the base has none",
        "cannot replace 'display Other': the base has none",
    ]


@pytest.mark.parametrize("path", GAMES, ids=[p.stem for p in GAMES])
def test_the_games_display_real_kinds(path: Path) -> None:
    rules = ruleforge.load(path)
    assert rules.display, f"{path.name} gives no display hints"
    assert set(rules.display) <= set(rules.model.kinds)


def test_a_variant_removing_a_kind_is_told_to_remove_its_display(tmp_path: Path) -> None:
    write_base(tmp_path)
    with pytest.raises(RulesError) as info:
        variant(tmp_path, "remove kind Blank\n")
    [d] = info.value.diagnostics
    assert d.pos.file.endswith("base.rules") and d.message == "unknown kind 'Blank'"
    assert d.hint == "the variant removes kind Blank: write 'remove display Blank' too"


def test_named_colours_are_the_files_own(tmp_path: Path) -> None:
    """A colour's name means only what `palette NAME = ...` says: no name is built in, and a
    variant may change, add or remove names like any declaration."""
    named = BASE + 'palette sea = "#3b82c4"\ndisplay Tile { colour by ground { Sea: "sea", Hill: "#888" } }\n'
    rules = ruleforge.rules.Rules(tmp_path / "named.rules", named)
    assert rules.display["Tile"].colour == ByValue("ground", {"Sea": "#3b82c4", "Hill": "#888"})
    assert problems(tmp_path, 'display Tile { colour "red" }\n') == [
        (LINE, 23, "'red' is not a colour", "write #rgb or #rrggbb, or the name of one")]
    assert problems(tmp_path, 'palette sea = "#3b82c4"\ndisplay Tile { colour "see" }\n') == [
        (LINE + 1, 23, "'see' is not a colour", "did you mean 'sea'?")]
    assert problems(tmp_path, 'palette teal = "teal"\n') == [
        (LINE, 16, "'teal' is not a colour", "write #rgb or #rrggbb")]
    write_base(tmp_path)
    changed = variant(tmp_path, 'replace palette red = "#c00"\n')
    assert changed.display["Tile"].colour == "#c00"
    with pytest.raises(RulesError) as info:
        variant(tmp_path, "remove palette red\n")
    assert [d.message for d in info.value.diagnostics] == ["'red' is not a colour"]
