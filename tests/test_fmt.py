"""`ruleforge fmt`: the canonical layout on a worked example, and its properties (only white
space changes, comments all kept in order, a second run changes nothing) over every rules file
of the project, texts the grammar generates, mutated games and games re-spaced at random."""

from __future__ import annotations

import os
import random
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from fuzz.strategies import GAMES, grammar_files, mutated_games
from hypothesis import HealthCheck, example, given, settings
from lark import Token, Tree
from stopping import GUARD, ROOT

from ruleforge import lexical
from ruleforge.diagnostics import RulesError
from ruleforge.formatter import format_text, syntax_tree
from ruleforge.formatter.layout import Comment, events
from ruleforge.formatter.roles import full_parser, roles

MESSY = """\


# The example: every rule of the layout at least once.
game "Layout"   players 2..3
enum   Colour{Red,Blue , }
kind Card{value:int=-1 # a trailing comment
 var  owner : player
   label "{value}" }
kind Marker { label "m" }
zone hand   per
  player: hand, visible owner
zone board: grid, size 2 by 2   # aligned with the next comment
zone pile: pile # the next one
def worth(c:Card)=table c.value{0:1 , 2+:3,else:-2}
def firsts = [ count(hand(me)) , 2 ][0]
def total(p: player) = sum(c.value for c in hand(p)
      if c.value > 0)
   + (1)
phase round
{
  if count(pile)>0 { move top 1 of pile to hand(me) at top } elif count(board) == 0 { log "none" }
  else {
      # alone on its line



      shuffle pile
  }

  repeat { turn next(me) : take } until count(pile)==0
  # before the closing brace
}
flow {
}
action take(c in pile) "take {c}" { move c to hand(me) }
scoring points for p { "cards":count(hand(p))
  "worth": sum(worth(c)for c in hand(p)) }
ranking for p { points(p) }
"""

EXPECTED = """\
# The example: every rule of the layout at least once.
game "Layout"
players 2..3
enum Colour { Red, Blue, }
kind Card {
  value: int = -1  # a trailing comment
  var owner: player
  label "{value}"
}
kind Marker {
  label "m"
}
zone hand per player: hand, visible owner
zone board: grid, size 2 by 2  # aligned with the next comment
zone pile: pile                # the next one
def worth(c: Card) = table c.value { 0: 1, 2+: 3, else: -2 }
def firsts = [count(hand(me)), 2][0]
def total(p: player) = sum(c.value for c in hand(p)
                           if c.value > 0)
  + (1)
phase round {
  if count(pile) > 0 {
    move top 1 of pile to hand(me) at top
  } elif count(board) == 0 {
    log "none"
  } else {
    # alone on its line

    shuffle pile
  }

  repeat {
    turn next(me): take
  } until count(pile) == 0
  # before the closing brace
}
flow {}
action take(c in pile) "take {c}" {
  move c to hand(me)
}
scoring points for p {
  "cards": count(hand(p))
  "worth": sum(worth(c) for c in hand(p))
}
ranking for p { points(p) }
"""


def project_files() -> list[Path]:
    """Every rules file of the project: the games, the docs' examples, the synthetic and broken
    files of the tests, and the fuzzers' known inputs."""
    return sorted({*ROOT.glob("games/*.rules"), *ROOT.glob("docs/**/*.rules"), *ROOT.glob("tests/**/*.rules")})


def comments_of(text: str) -> list[str]:
    tree = full_parser().parse(text)
    return [e.item.text for e in events(text, roles(tree)) if isinstance(e.item, Comment)]


def shape(text: str) -> list[tuple[str, str, object]]:
    """The syntax tree of a text as a flat list in reading order, walked with a stack: a
    fuzzed text may nest deeper than comparing trees recursively can go."""
    out: list[tuple[str, str, object]] = []
    stack: list[Tree | Token | None] = [syntax_tree(text)]
    while stack:
        node = stack.pop()
        if isinstance(node, Tree):
            out.append(("tree", str(node.data), len(node.children)))
            stack.extend(reversed(node.children))
        elif isinstance(node, Token):
            out.append(("token", node.type, str(node)))
        else:  # an optional part left out (`[...]` in the grammar)
            out.append(("absent", "", None))
    return out


def assert_only_layout_changed(before: str, after: str) -> None:
    """The formatted text parses to the same tree, keeps every comment in order, and is
    already in the layout."""
    before = lexical.normalize(before)  # a byte-order mark dropped, CR and CRLF made LF, as read
    assert shape(after) == shape(before)
    assert comments_of(after) == comments_of(before)
    assert format_text(after) == after


def test_the_worked_example_is_laid_out_as_documented():
    formatted = format_text(MESSY)
    assert formatted == EXPECTED
    assert_only_layout_changed(MESSY, formatted)


# A hand-aligned table kept as written between `# fmt: off` and `# fmt: on`, and a region left
# open to the end of the file; the code around them formatted, a trailing `# fmt: off` and an
# `# fmt: on` with no region open being ordinary comments.
KEPT = """\
kind  Card { value:int }
scoring points for p {
  "none":   0   # fmt: off
  #fmt:off
  "one":    1   # one
  "twenty": 20
  # fmt: on
  "two":   2
}
# fmt: on
def  a = 1
# fmt: off
def  b = 2


def  c  =  3   \n\n"""

KEPT_FORMATTED = """\
kind Card {
  value: int
}
scoring points for p {
  "none": 0  # fmt: off
  #fmt:off
  "one":    1   # one
  "twenty": 20
  # fmt: on
  "two": 2
}
# fmt: on
def a = 1
# fmt: off
def  b = 2


def  c  =  3
"""


def test_regions_between_fmt_off_and_on_are_kept_as_written():
    formatted = format_text(KEPT)
    assert formatted == KEPT_FORMATTED
    assert_only_layout_changed(KEPT, formatted)
    docs = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
    shown = docs.split("```rules\n")[1].split("```")[0]  # the hand-aligned table docs/editors.md shows
    assert "# fmt: off" in shown and format_text(shown) == shown
    assert format_text(shown.replace("  # fmt: off\n", "")) != shown.replace("  # fmt: off\n", "")


@pytest.mark.parametrize("game", ["hagakure", "naishi", "kingdomino"])
def test_regions_anywhere_in_a_game_come_back_as_written(game):
    """`# fmt: off` and `# fmt: on` put between any two lines of a re-spaced game, inside a
    statement too: each region comes back exactly as written, and the rest in the layout."""
    rng = random.Random(game)
    for _ in range(3):
        lines = respaced(GAMES[game], rng).split("\n")
        cuts = sorted(rng.sample(range(len(lines) + 1), 4))
        regions = ["\n".join(["# fmt: off", *lines[a:b], "# fmt: on"]) for a, b in zip(cuts[::2], cuts[1::2])]
        text = "\n".join([*lines[:cuts[0]], regions[0], *lines[cuts[1]:cuts[2]], regions[1], *lines[cuts[3]:]])
        formatted = format_text(text)
        assert_only_layout_changed(text, formatted)
        for region in regions:
            assert "\n".join(line.rstrip() for line in region.split("\n")) in formatted


def test_every_game_is_formatted():
    """The games are kept in the layout (`ruleforge fmt games` writes it)."""
    for path in sorted(ROOT.glob("games/*.rules")):
        text = path.read_text(encoding="utf-8")
        assert format_text(text, str(path)) == text, f"{path.name} is not formatted: run `ruleforge fmt games`"


@pytest.mark.parametrize("path", project_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_project_file_keeps_its_tree(path):
    """Over every rules file of the project: a file that parses keeps its tree and comments and
    formats to a fixed point; one that does not is refused with the checker's own error."""
    text = path.read_bytes().decode("utf-8", errors="replace")
    try:
        formatted = format_text(text, str(path))
    except RulesError as err:
        assert err.diagnostics and "error" in err.render()
        return
    assert_only_layout_changed(text, formatted)


def respaced(text: str, rng: random.Random) -> str:
    """`text` with the white space between tokens replaced by random white space (a comment
    still ends its line): the same tokens and comments, any layout."""
    tree = full_parser().parse(text)
    out: list[str] = []
    for event in events(text, roles(tree)):
        gap = rng.choice(["", " ", "  ", "\n", "\t", "\n\n\n", " \n  "])
        if isinstance(event.item, Comment):
            out.append(rng.choice([" ", "\n"]) + event.item.text + "\n")
        else:
            needs_space = out and (out[-1][-1:].isalnum() or out[-1][-1:] in "_\"'") and not out[-1].endswith("\n")
            out.append((gap or " ") if needs_space else gap)
            out.append(event.item.text)
    return "".join(out)


def generated(examples: int) -> settings:
    """Derandomized as the fuzzing suite is, so CI sees the inputs a local run saw; for a long
    run, RULEFORGE_FUZZ_EXAMPLES=N and RULEFORGE_FUZZ_RANDOM=1 (new inputs each run)."""
    return settings(max_examples=int(os.environ.get("RULEFORGE_FUZZ_EXAMPLES", examples)), deadline=None,
                    database=None, derandomize=os.environ.get("RULEFORGE_FUZZ_RANDOM") != "1",
                    suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("game", ["hagakure", "naishi", "nakasendo", "love_letter"])
def test_games_respaced_at_random_come_back_to_a_fixed_point(game):
    text = (ROOT / "games" / f"{game}.rules").read_text(encoding="utf-8")
    rng = random.Random(game)
    for _ in range(3):
        messy = respaced(text, rng)
        assert shape(messy) == shape(text)
        formatted = format_text(messy)
        assert_only_layout_changed(messy, formatted)


@generated(40)
@given(grammar_files())
def test_texts_from_the_grammar_keep_their_tree(text):
    try:
        formatted = format_text(text)
    except RulesError:
        return
    assert_only_layout_changed(text, formatted)


@generated(25)
@given(mutated_games())
@example(("tictactoe", "\ufeff" + GAMES["tictactoe"]))  # a byte-order mark, and old Mac line ends:
@example(("tictactoe", GAMES["tictactoe"].replace("\n", "\r")))  # written back as plain LF text
@example(("tictactoe", "\ufeff\ufeff" + GAMES["tictactoe"]))  # two marks: both dropped, as `check` drops them
def test_mutated_games_keep_their_tree(game_and_text):
    _, text = game_and_text
    try:
        formatted = format_text(text)
    except RulesError:
        return
    assert_only_layout_changed(text, formatted)


# --- the command ---------------------------------------------------------------------------------


def fmt(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ruleforge", "fmt", *args], cwd=cwd, input=stdin,
                          capture_output=True, text=True, timeout=GUARD)


def test_check_names_the_files_to_format_and_changes_nothing(tmp_path):
    (tmp_path / "messy.rules").write_text(MESSY)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "clean.rules").write_text(EXPECTED)
    result = fmt("--check", ".", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout == "would format messy.rules\n1 of 2 file(s) would be formatted\n"
    assert (tmp_path / "messy.rules").read_text() == MESSY
    assert fmt("--check", "sub/clean.rules", cwd=tmp_path).returncode == 0


def test_formatting_rewrites_in_place_keeping_the_mode(tmp_path):
    path = tmp_path / "messy.rules"
    path.write_text(MESSY)
    path.chmod(0o640)
    result = fmt("messy.rules", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "formatted messy.rules\n1 of 1 file(s) formatted\n"
    assert path.read_text() == EXPECTED
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    assert fmt("messy.rules", cwd=tmp_path).stdout == "1 file(s) already formatted\n"  # a second run changes nothing


def test_diff_shows_the_change_with_control_characters_made_visible(tmp_path):
    path = tmp_path / "odd.rules"
    path.write_text('game  "x\x1b[31m"\nplayers 2\n')
    result = fmt("--diff", "odd.rules", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout
    assert '-game  "x' in result.stdout and '+game "x' in result.stdout
    assert path.read_text() == 'game  "x\x1b[31m"\nplayers 2\n'


def test_standard_input_to_standard_output(tmp_path):
    result = fmt("-", cwd=tmp_path, stdin="kind A{x:int}")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "kind A {\n  x: int\n}\n"


def test_a_syntax_error_is_reported_and_the_file_left_alone(tmp_path):
    (tmp_path / "bad.rules").write_text('game "x"\nkind A {\n')
    (tmp_path / "good.rules").write_text("kind A{x:int}")
    result = fmt("bad.rules", "good.rules", cwd=tmp_path)
    assert result.returncode == 1
    assert "bad.rules:2:8: error: unexpected end of file: this '{' is never closed" in result.stderr
    assert "Traceback" not in result.stderr
    assert (tmp_path / "bad.rules").read_text() == 'game "x"\nkind A {\n'
    assert (tmp_path / "good.rules").read_text() == "kind A {\n  x: int\n}\n"


def test_a_missing_file_is_a_clear_error(tmp_path):
    result = fmt("nowhere.rules", cwd=tmp_path)
    assert result.returncode == 1
    assert "cannot read rules file 'nowhere.rules'" in result.stderr and "Traceback" not in result.stderr
