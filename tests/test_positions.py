"""Hand-written positions (docs/positions.md) on tests/synthetic/stacks.rules: properties of
any component of a stack or a plain zone, grids given in part, `ruleforge score --scoring`,
and bad positions, each one `error:` line naming its place and never a traceback. The doc's
JSON blocks and error lines are checked here as written."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import ruleforge
from ruleforge import GameError
from ruleforge.cli import main

ROOT = Path(__file__).resolve().parents[1]
STACKS = ROOT / "tests" / "synthetic" / "stacks.rules"
NAISHI = ROOT / "games" / "naishi.rules"
DOC = ROOT / "docs" / "positions.md"
EXAMPLE = ROOT / "docs" / "examples" / "stacks_position.json"
RULES = ruleforge.load(STACKS)
FORMAT = "ruleforge-position/1"
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```", re.S | re.M)
M5 = ["Mountain"] * 5


def run(*args: str) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args])


def position(zones: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"format": FORMAT, "players": 2, "zones": zones, **more}


def labels(game: ruleforge.Game, key: str) -> list[str]:
    zi = next(i for i, info in enumerate(game.program.zones) if info.key == key)
    return [game.program.comp_label[c] for c in game.state.z[zi]]


def prop(game: ruleforge.Game, key: str, depth: int, name: str) -> Any:
    """Property `name` of the component at `depth` (0 the bottom) of zone or cell `key`."""
    zi = next(i for i, info in enumerate(game.program.zones) if info.key == key)
    return game.state.p[game.program.props.index(name)][game.state.z[zi][depth]]


# --- what a position lays out -------------------------------------------------------------------


def test_properties_of_components_deep_in_a_stack() -> None:
    stack = ["Light", {"label": "Dark", "flipped": True, "snow": 2, "bears": 3}, "Marker",
             {"label": "Marker", "worth": 5}]
    game = RULES.position(position({"board(P1)": {"at": [4, 4], "rows": [[stack]]}}))
    assert labels(game, "board(P1)[4,4]") == ["Light", "Dark", "Marker", "Marker"]
    assert [prop(game, "board(P1)[4,4]", 1, n) for n in ("flipped", "snow", "bears")] == [True, 2, 3]
    assert [prop(game, "board(P1)[4,4]", d, "worth") for d in (2, 3)] == [1, 5]  # the default, then 5
    assert prop(game, "board(P1)[4,4]", 0, "snow") == 0  # the covered tile keeps its defaults
    assert game.preview_scoring("tally")[0] == {"snow": 2, "markers": 2, "total": 4}
    points = game.preview_scoring("points")[0]
    assert (points["tiles"], points["flipped"], points["bears"], points["marker worth"]) == (2, 2, -3, 6)


def test_a_single_cell_and_a_plain_zone_take_objects_too() -> None:
    game = RULES.position(position({
        "board(P2)": {"at": [1, 1], "rows": [[{"label": "Dark", "snow": 7}]]},
        "tray(P2)": ["Chip 1", {"label": "Chip 3", "bright": True}],
    }))
    assert prop(game, "board(P2)[1,1]", 0, "snow") == 7
    assert labels(game, "tray(P2)") == ["Chip 1", "Chip 3"]
    assert [prop(game, "tray(P2)", d, "bright") for d in (0, 1)] == [False, True]
    assert game.preview_scoring("points")[1]["bright chips"] == 3


def test_props_still_set_the_top_component_after_the_entries() -> None:
    data = position({"board(P1)": {"at": [2, 2], "rows": [[{"label": "Dark", "snow": 1}]]}},
                    props={"board(P1)[2,2]": {"snow": 6}})
    assert prop(RULES.position(data), "board(P1)[2,2]", 0, "snow") == 6


def test_a_grid_in_part_with_ragged_rows() -> None:
    game = RULES.position(position({"board(P1)": {"at": [5, 5], "rows": [["Light", None, "Dark"], [], ["Dark"]]}}))
    filled = {info.key: labels(game, info.key) for info in game.program.zones
              if info.name == "board" and info.owner == 0 and labels(game, info.key)}
    assert filled == {"board(P1)[5,5]": ["Light"], "board(P1)[5,7]": ["Dark"], "board(P1)[7,5]": ["Dark"]}
    with pytest.raises(GameError, match=r"rows from \[6,5\] reach row 8; the grid has 7 rows"):
        RULES.position(position({"board(P1)": {"at": [6, 5], "rows": [[], [], ["Dark"]]}}))


def test_a_whole_grid_is_still_read() -> None:
    rows: list[list[Any]] = [[None] * 7 for _ in range(7)]
    rows[0][6] = ["Light", {"label": "Dark", "bears": 2}]
    rows[6][0] = "Marker"
    game = RULES.position(position({"board(P1)": rows}))
    assert labels(game, "board(P1)[1,7]") == ["Light", "Dark"] and labels(game, "board(P1)[7,1]") == ["Marker"]
    assert game.preview_scoring("points")[0]["bears"] == -2


def test_more_copies_than_the_box_are_added() -> None:
    stacks = [[["Dark"] * 5] * 4]  # 20 Dark tiles in 4 cells; the box has 6
    game = RULES.position(position({"board(P1)": {"at": [1, 1], "rows": stacks}}))
    assert game.preview_scoring("points")[0]["tiles"] == 20


# --- bad positions: one clear error each ---------------------------------------------------------

def _at_44(entry: Any) -> dict[str, Any]:
    return {"board(P1)": {"at": [4, 4], "rows": [[["Dark", entry]]]}}


BAD: list[tuple[dict[str, Any], str]] = [
    (_at_44({"label": "Light", "snoww": 1}),
     "position: board(P1)[4,4] #2 'snoww': no property of this name; properties: flipped, snow, bears"),
    (_at_44({"label": "Light", "snow": "lots"}), "position: board(P1)[4,4] #2 snow: 'lots' does not fit its type, int"),
    (_at_44({"label": "Light", "flipped": 1}), "position: board(P1)[4,4] #2 flipped: 1 does not fit its type, flag"),
    (_at_44({"label": "Light", "shade": "Dark"}),
     "position: board(P1)[4,4] #2 'shade': no property of this name (it is fixed by the rules); properties:"),
    (_at_44({"label": "Marker", "snow": 1}), "position: board(P1)[4,4] #2 'snow': no property of this name; "
                                             "properties: worth"),
    (_at_44({"lable": "Light"}), "position: board(P1)[4,4] #2: a component written as an object needs its \"label\""),
    (_at_44({"label": 3}), "position: board(P1)[4,4] #2: a component written as an object needs its \"label\""),
    (_at_44(7), "position: board(P1)[4,4] #2: a component is a label or"),
    (_at_44("Drak"), "position: board(P1)[4,4] #2 'Drak': no component has this label; did you mean 'Dark'?"),
    (_at_44("Zebra"), "position: board(P1)[4,4] #2 'Zebra': no component has this label"),
    ({"board(P1)": {"at": [1, 1], "rows": [["Mraker"]]}},
     "position: board(P1)[1,1] 'Mraker': no component has this label; did you mean 'Marker'?"),
    ({"board(P1)": {"at": [3, 2], "rows": [[]] * 6}}, "position: board(P1): rows from [3,2] reach row 8; "
                                                      "the grid has 7 rows"),
    ({"board(P1)": {"at": [3, 2], "rows": [[], [], [], ["Light"] * 8]}},
     "position: board(P1): row 6 from [3,2] reaches column 9; the grid has 7 columns"),
    ({"board(P1)": {"at": [8, 1], "rows": []}}, "position: board(P1): [8,1] is off the grid"),
    ({"board(P1)": {"at": [0, 1], "rows": []}}, "position: board(P1): [0,1] is off the grid"),
    ({"board(P1)": {"at": "4,4", "rows": []}}, "position: board(P1): 'at' is [row, column]"),
    ({"board(P1)": {"at": [True, 1], "rows": []}}, "position: board(P1): 'at' is [row, column]"),
    ({"board(P1)": {"at": [1, 1], "rows": ["Light"]}}, "position: board(P1): 'rows' is a list of rows"),
    ({"board(P1)": {"at": [1, 1]}}, "position: board(P1): a grid given in part is"),
    ({"board(P1)": {"at": [1, 1], "rows": [], "cols": 2}}, "position: board(P1): a grid given in part is"),
    ({"board(P1)": [[None] * 8] * 7}, "position: board(P1): a grid is 7 rows of 7 cells (or {\"at\": [row, column], "
                                      "\"rows\": ...} for a part); its row 1 has 8 cells"),
    ({"board(P1)": [[None] * 7] * 8}, "position: board(P1): a grid is 7 rows of 7 cells"),
    ({"board(P1)": {"at": [1, 1], "rows": [[5]]}}, "position: board(P1)[1,1]: a cell is a label or"),
    ({"tray(P1)": [{"label": "Chip 1", "snow": 1}]}, "position: tray(P1) #1 'snow': no property of this name; "
                                                     "properties: bright"),
    ({"tray(P1)": ["Chip 1", "Chip 9"]}, "position: tray(P1) #2 'Chip 9': no component has this label; did you mean"),
    ({"tray(P1)": "Chip 1"}, "position: tray(P1): a zone's contents are a list"),
    (_at_44({"label": "Light", "snow": None}), "position: board(P1)[4,4] #2 snow: cannot be null: every Tile has"),
    ({"tray(P1)": [{"label": "Chip 1", "bright": None}]}, "position: tray(P1) #1 bright: cannot be null"),
    ({"tray(P1)": [["Chip 1"]]}, "position: tray(P1) #1: a component is a label or"),
]


@pytest.mark.parametrize(("zones", "message"), BAD, ids=[str(i) for i in range(len(BAD))])
def test_bad_positions(tmp_path: Path, zones: dict[str, Any], message: str) -> None:
    data = position(zones)
    with pytest.raises(GameError) as info:
        RULES.position(data)
    assert str(info.value).startswith(message), str(info.value)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    result = run("score", STACKS, path)
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == f"error: {path}: {info.value}\n"  # the file, then the place in it


JUNK: list[Any] = ["junk", "", {"a": 1}, {"label": None}, 10**30, -5, True, None, [[[["x"]]]], 2.5, [], [None]]


def _paths(x: Any, path: tuple = ()) -> list[tuple]:
    """Every place in a JSON document, the document's own keys and list entries included."""
    out = [path]
    if isinstance(x, dict):
        for k, v in x.items():
            out += _paths(v, (*path, k))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            out += _paths(v, (*path, i))
    return out


def test_no_mutation_of_the_example_gives_anything_but_a_game_error() -> None:
    doc = json.loads(EXAMPLE.read_text())
    outcomes = {"refused": 0, "built": 0}
    for path in _paths(doc)[1:]:
        for junk in JUNK:
            mutated = copy.deepcopy(doc)
            parent = mutated
            for key in path[:-1]:
                parent = parent[key]
            parent[path[-1]] = copy.deepcopy(junk)
            try:
                game = RULES.position(mutated)
            except GameError:
                outcomes["refused"] += 1
                continue
            for name in ("tally", "points"):
                game.preview_scoring(name)
            outcomes["built"] += 1
    assert outcomes["refused"] > 100 and outcomes["built"] > 10


# --- ruleforge score --scoring --------------------------------------------------------------------


def test_scoring_by_name_instead_of_the_final_ones() -> None:
    result = run("score", STACKS, EXAMPLE, "--scoring", "tally", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"game": "Stacks", "position": True, "scorings": ["tally"], "scores": [
        {"player": "P1", "total": 4, "highest": True, "breakdown": {"snow": 2, "markers": 2}},
        {"player": "P2", "total": 4, "highest": True, "breakdown": {"snow": 4, "markers": 0}},
    ]}
    final = json.loads(run("score", STACKS, EXAMPLE, "--json").stdout)
    assert final["scorings"] == ["points"] and [s["total"] for s in final["scores"]] == [15, 1]
    # as if the game ended now: the 3 points of midway(P1), a score variable, come first
    assert final["scores"][0]["breakdown"]["scored so far"] == 3


def test_several_scorings_add_up() -> None:
    doc = json.loads(run("score", STACKS, EXAMPLE, "--scoring", "tally", "--scoring", "points", "--json").stdout)
    assert doc["scorings"] == ["tally", "points"]
    # tally 4 + points 12 (5 tiles, 2 flipped, -1 bear, markers 4, chip 2); P2: 4 + 1.
    # Named scorings are what they give now: the 3 points scored so far are not added.
    assert [s["total"] for s in doc["scores"]] == [16, 5]
    assert doc["scores"][0]["breakdown"]["tally: snow"] == 2 and doc["scores"][0]["breakdown"]["points: tiles"] == 5
    plain = run("score", STACKS, EXAMPLE, "--scoring", "tally", "--scoring", "tally")
    assert plain.stdout.splitlines()[0] == "Stacks: a position scored by tally (as of now; nothing is applied)"


def test_an_unknown_scoring_is_one_error_line() -> None:
    result = run("score", STACKS, EXAMPLE, "--scoring", "tallly")
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == "error: no scoring named 'tallly'; the scorings of Stacks: tally, points (final)\n"


def test_a_saved_state_scored_by_name(tmp_path: Path) -> None:
    game = RULES.new_game(2)
    game.apply("wait")  # P1; P2 is to wait before the tally
    path = tmp_path / "state.json"
    path.write_text(json.dumps(game.to_json()))
    doc = json.loads(run("score", STACKS, path, "--scoring", "points", "--json").stdout)
    assert doc["position"] is False and doc["scorings"] == ["points"]
    shown = run("score", STACKS, path, "--scoring", "tally")
    assert shown.exit_code == 0 and shown.stdout.startswith("Stacks: a saved state scored by tally")
    assert "over" in json.loads(run("score", STACKS, path, "--json").stdout)  # without it: as before


# --- docs/positions.md as written -----------------------------------------------------------------


def _json_blocks() -> list[tuple[str, str]]:
    text = DOC.read_text(encoding="utf-8")
    return [(m.group(1).strip(), m.group(2)) for m in FENCE.finditer(text) if m.group(1).split(" ")[0] == "json"]


def test_every_json_block_of_the_doc_is_a_position_of_its_rules() -> None:
    blocks = _json_blocks()
    assert len(blocks) >= 2
    for info, code in blocks:
        options = dict(word.split("=", 1) for word in info.split()[1:])
        assert "rules" in options, f"```{info}: say which rules the position is for (rules=FILE)"
        data = json.loads(code)
        game = ruleforge.load(ROOT / options["rules"]).position(data)
        for name, decl in game.program.model.scorings.items():
            if decl.final:
                game.preview_scoring(name)
        if "file" in options:
            assert json.loads((ROOT / options["file"]).read_text()) == data, options["file"]


def _naishi_grid(line: list[str]) -> list[list[str]]:
    return [line, M5]


# What each error line of the doc comes from: (rules, position or None for the example, extra arguments).
DOC_ERRORS: dict[str, tuple[Path, dict[str, Any] | None, list[str]]] = {
    'error: bad.json: position: territory(P1): a grid is 2 rows of 5 cells (or {"at": [row, column], "rows": ...} '
    'for a part); this one has 1 row': (NAISHI, position({"territory(P1)": [M5]}), []),
    "error: bad.json: position: territory(P1)[1,1] 'Mountan': no component has this label; did you mean 'Mountain'?":
        (NAISHI, position({"territory(P1)": _naishi_grid(["Mountan", *M5[1:]])}), []),
    "error: bad.json: position: territory(P2)[1,3] copy: 'Nasihi' is not one of Mountain, Naishi, Advisor, Sentinel, "
    "Monk, Horseman, Ronin, Ninja, Fort, Torii, RiceField, Banner, Traveller, Ryokan":
        (NAISHI, position({}, props={"territory(P2)[1,3]": {"copy": "Nasihi"}}), []),
    "error: bad.json: position: vars: score(P3): no seat P3 in a 2-player game":
        (NAISHI, position({}, vars={"score(P3)": 1}), []),
    "error: bad.json: position: board(P1)[4,4] #2 'snoww': no property of this name; properties: flipped, snow, bears":
        (STACKS, position(_at_44({"label": "Light", "snoww": 1})), []),
    "error: bad.json: position: board(P1)[4,4] #2 snow: 'lots' does not fit its type, int":
        (STACKS, position(_at_44({"label": "Light", "snow": "lots"})), []),
    "error: bad.json: position: board(P1): rows from [3,2] reach row 8; the grid has 7 rows":
        (STACKS, position({"board(P1)": {"at": [3, 2], "rows": [["Light"]] * 6}}), []),
    "error: bad.json: position: board(P1): row 4 from [3,2] reaches column 9; the grid has 7 columns":
        (STACKS, position({"board(P1)": {"at": [3, 2], "rows": [[], ["Light"] * 8]}}), []),
    'error: bad.json: position: tray(P1) #1: a component written as an object needs its "label": a label or '
    '{"label": "...", "property": value}': (STACKS, position({"tray(P1)": [{"bright": True}]}), []),
    "error: bad.json: position: tray(P1) #2 'Chip2': no component has this label; did you mean 'Chip 2'?":
        (STACKS, position({"tray(P1)": ["Chip 1", "Chip2"]}), []),
    "error: no scoring named 'tallly'; the scorings of Stacks: tally, points (final)":
        (STACKS, None, ["--scoring", "tallly"]),
}


def test_every_error_line_of_the_doc_is_what_the_command_prints(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    shown = re.findall(r"^error: .*$", DOC.read_text(encoding="utf-8"), re.M)
    assert sorted(shown) == sorted(DOC_ERRORS)
    monkeypatch.chdir(tmp_path)  # the file is named as typed: bad.json
    for line, (rules, data, extra) in DOC_ERRORS.items():
        path: Path | str = EXAMPLE
        if data is not None:
            path = "bad.json"
            Path(path).write_text(json.dumps(data))
        result = run("score", rules, path, *extra)
        assert (result.exit_code, result.stdout, result.stderr) == (1, "", line + "\n"), line
