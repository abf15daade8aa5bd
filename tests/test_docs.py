"""The documentation stays in step with the grammar, the checker and the games.

- every ```rules block in docs/*.md parses with the real parser (a block may be a fragment:
  statements, an expression, score items, kind members or component entries);
- ```rules from=FILE blocks are real excerpts of FILE (lines in order; `...` skips lines), and
  each implemented game (Hagakure, Naishi, the Naishi expansion, Nakasendo) is excerpted;
- the keyword list in docs/language.md is exactly the grammar's keywords, and every built-in
  name of the checker is documented;
- every link between and within the docs points at a file and heading that exist;
- the ```python blocks of docs/*.md run;
- behaviour the reference describes (tables, aggregates, modifiers, triggers, setup-time rules,
  keyword pitfalls) holds on small games.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from lark import Tree
from lark.exceptions import LarkError

from ruleforge import checker
from ruleforge.diagnostics import RulesError
from ruleforge.parser import grammar_text, parse_rules

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
LANGUAGE = DOCS / "language.md"

# A fragment is tried as a whole file first, then inside each of these wrappers.
WRAPPERS = [
    "{}",
    "flow {{\n{}\n}}",
    "def doc_example =\n{}",
    "scoring doc_example for p {{\n{}\n}}",
    "kind DocExample {{\n{}\n}}",
    "components {{\n{}\n}}",
]

FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```", re.S | re.M)


def blocks(path: Path, tag: str) -> list[tuple[int, str, str]]:
    """(line, info string, code) of every fenced block whose first info word is `tag`."""
    text = path.read_text(encoding="utf-8")
    out = []
    for m in FENCE.finditer(text):
        info = m.group(1).strip()
        if info.split(" ")[0] == tag:
            out.append((text.count("\n", 0, m.start()) + 1, info, m.group(2)))
    return out


def all_blocks(tag: str) -> list[tuple[str, int, str, str]]:
    return [(p.name, line, info, code) for p in sorted(DOCS.glob("*.md")) for line, info, code in blocks(p, tag)]


def keywords(grammar: str) -> set[str]:
    return set(re.findall(r'"([a-z_]+)"', grammar))


def bare_words(tree: object) -> list[str]:
    """Statements that are a lone name (phase calls), from an AST or a Lark tree."""
    if isinstance(tree, Tree):
        return [str(t.children[0]) for t in tree.find_data("call_stmt")]
    return re.findall(r"CallPhase\(pos=Pos\([^)]*\), name='(\w+)'\)", repr(tree))


def first_parse(code: str, parse: Callable[[str], object], reserved: set[str]) -> str | None:
    """None if some wrapping of `code` parses, else the error of parsing it as a whole file.

    The contextual lexer reads a misplaced keyword as a name, and a lone name is a statement
    (a phase call), so `flow { def x = 1 }` parses; a wrapping whose statements include a
    keyword standing alone is not accepted.
    """
    first_error = None
    for wrapper in WRAPPERS:
        try:
            tree = parse(wrapper.format(code))
        except (RulesError, LarkError) as err:
            if first_error is None:
                first_error = str(err)
            continue
        stray = [w for w in bare_words(tree) if w in reserved]
        if not stray:
            return None
        if first_error is None:
            first_error = f"keyword(s) {stray} read as statements"
    return first_error


def _ids(items: list) -> list[str]:
    return [f"{name}:{line}" for name, line, *_ in items]


RULES_BLOCKS = all_blocks("rules")


def test_docs_have_examples() -> None:
    assert len(RULES_BLOCKS) >= 20
    assert any("from=" in info for _, _, info, _ in RULES_BLOCKS)


@pytest.mark.parametrize("name,line,info,code", RULES_BLOCKS, ids=_ids(RULES_BLOCKS))
def test_rules_example_parses(name: str, line: int, info: str, code: str) -> None:
    # an excerpt's `...` line separates pieces that parse on their own
    for piece in re.split(r"^\s*\.\.\.\s*$", code, flags=re.M):
        error = first_parse(piece, lambda text: parse_rules(text, f"{name}:{line}"), keywords(grammar_text()))
        assert error is None, f"docs/{name} line {line}: example does not parse:\n{error}"


EXCERPTS = [b for b in RULES_BLOCKS if "from=" in b[2]]


@pytest.mark.parametrize("name,line,info,code", EXCERPTS, ids=_ids(EXCERPTS))
def test_excerpt_is_real(name: str, line: int, info: str, code: str) -> None:
    source_name = re.search(r"from=(\S+)", info).group(1)
    source = (ROOT / source_name).read_text(encoding="utf-8").splitlines()
    at = 0
    for wanted in code.splitlines():
        if wanted.strip() in ("", "..."):
            continue
        while at < len(source) and source[at].rstrip() != wanted.rstrip():
            at += 1
        assert at < len(source), f"docs/{name} line {line}: {wanted!r} is not in {source_name} (in order)"
        at += 1


# Every implemented game is shown by real excerpts; a file that does not exist yet is skipped.
EXCERPTED_GAMES = ["games/hagakure.rules", "games/naishi.rules", "games/naishi_legends.rules",
                   "games/nakasendo.rules", "games/love_letter.rules", "games/no_thanks.rules",
                   "games/kingdomino.rules", "games/sushi_go.rules", "games/tictactoe.rules",
                   "games/connect_four.rules"]


@pytest.mark.parametrize("source_name", EXCERPTED_GAMES)
def test_every_game_is_excerpted(source_name: str) -> None:
    if not (ROOT / source_name).exists():
        pytest.skip(f"{source_name} does not exist yet")
    sources = [re.search(r"from=(\S+)", info).group(1) for _, _, info, _ in EXCERPTS]
    assert sources.count(source_name) >= 2, f"docs/language.md should quote {source_name} in real excerpts"


def test_excerpt_sources_exist() -> None:
    for name, line, info, _ in EXCERPTS:
        source_name = re.search(r"from=(\S+)", info).group(1)
        assert (ROOT / source_name).is_file(), f"docs/{name} line {line}: no file {source_name}"


def _between(text: str, marker: str) -> str:
    m = re.search(rf"<!-- {marker}:start -->(.*?)<!-- {marker}:end -->", text, re.S)
    assert m, f"docs/language.md lacks the {marker} markers"
    return m.group(1)


def test_keyword_list_matches_grammar() -> None:
    grammar_keywords = keywords(grammar_text())
    documented = set(re.findall(r"`([a-z_]+)`", _between(LANGUAGE.read_text(encoding="utf-8"), "keywords")))
    assert documented == grammar_keywords, (
        f"missing from the docs: {sorted(grammar_keywords - documented)}; "
        f"not keywords: {sorted(documented - grammar_keywords)}")


def test_builtins_are_documented() -> None:
    listed = set(re.findall(r"`([a-z_]+)`", _between(LANGUAGE.read_text(encoding="utf-8"), "builtins")))
    builtins = checker.AGGREGATES | set(checker.FUNCTIONS) | set(checker.CONSTANTS) | checker.ZONE_SHAPES
    for name, members in checker.BUILTIN_ENUMS.items():
        builtins |= {name, *members}
    assert listed == builtins


def _state_io_missing() -> bool:
    try:
        import ruleforge.state_io  # noqa: F401
    except ImportError:
        return True
    return False


PYTHON_BLOCKS = all_blocks("python")


def test_api_has_examples() -> None:
    assert sum(1 for name, *_ in PYTHON_BLOCKS if name == "api.md") >= 5


@pytest.mark.parametrize("name,line,info,code", PYTHON_BLOCKS, ids=_ids(PYTHON_BLOCKS))
def test_python_example_runs(name: str, line: int, info: str, code: str) -> None:
    if "load_game" in code and _state_io_missing():
        pytest.skip("Rules.load_game needs ruleforge.state_io, which is not written yet")
    if "import pyspiel" in code and importlib.util.find_spec("pyspiel") is None:
        pytest.skip("open_spiel is not installed (the rl extra installs it on Python 3.11 and later)")
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(code, f"docs/{name}:{line}", "exec"), {"__name__": "docs_example"})  # noqa: S102
    finally:
        os.chdir(cwd)


# --- files shown whole ----------------------------------------------------------------------------


def file_blocks() -> list[tuple[str, int, str, str]]:
    """Every block of docs/*.md whose info names a file it shows (`json file=docs/examples/x.json`)."""
    out = []
    for path in sorted(DOCS.glob("*.md")):
        text = path.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            if "file=" in m.group(1):
                out.append((path.name, text.count("\n", 0, m.start()) + 1, m.group(1).strip(), m.group(2)))
    return out


FILE_BLOCKS = file_blocks()


def _last_per_file(blocks: list[tuple[str, int, str, str]]) -> list[tuple[str, int, str, str]]:
    """The last block showing each file: earlier ones are steps of a walk-through."""
    last = {re.search(r"file=(\S+)", info).group(1): (name, line, info, code) for name, line, info, code in blocks}
    return list(last.values())


@pytest.mark.parametrize("name,line,info,code", _last_per_file(FILE_BLOCKS), ids=_ids(_last_per_file(FILE_BLOCKS)))
def test_a_file_shown_is_the_file(name: str, line: int, info: str, code: str) -> None:
    """A block that says it shows a file (`file=PATH`) shows it whole, as it is (the last
    block showing a file, when a walk-through shows it changing: the file is its end)."""
    path = ROOT / re.search(r"file=(\S+)", info).group(1)
    assert path.is_file(), f"docs/{name} line {line}: {path} does not exist"
    if info.split(" ")[0] == "json":
        assert json.loads(code) == json.loads(path.read_text(encoding="utf-8")), f"docs/{name} line {line}"
    else:
        assert code.rstrip() == path.read_text(encoding="utf-8").rstrip(), f"docs/{name} line {line}: not {path}"


# --- links ------------------------------------------------------------------------------------

LINK = re.compile(r"\]\(([^)\s]+)\)")


def _slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))  # a '#' in a code block is no heading
    found: set[str] = set(re.findall(r'<a id="([^"]+)"', text))
    seen: dict[str, int] = {}
    for heading in re.findall(r"^#{1,6} (.+)$", text, re.M):
        slug = _slug(heading)
        found.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
        seen[slug] = seen.get(slug, 0) + 1
    return found


def test_slug_matches_github() -> None:
    assert _slug("Counts as: `is` and `counted_as`") == "counts-as-is-and-counted_as"
    assert _slug("Legends & Travellers: an overlay (`games/naishi_legends.rules`)") == \
        "legends--travellers-an-overlay-gamesnaishi_legendsrules"


def test_links_resolve() -> None:
    broken = []
    for path in sorted(DOCS.glob("*.md")):
        text = FENCE.sub("", path.read_text(encoding="utf-8"))
        for target in LINK.findall(text):
            if re.match(r"[a-z]+:", target):
                continue  # an outside address
            file_part, _, anchor = target.partition("#")
            dest = (path.parent / file_part).resolve() if file_part else path
            if not dest.exists():
                broken.append(f"{path.name}: {target} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                broken.append(f"{path.name}: {target} (no such heading)")
    assert not broken, "broken links:\n" + "\n".join(broken)


# --- documented behaviour (docs/language.md) holds ----------------------------------------

SEMANTICS = """
game "Semantics"
players 2..3
kind Chip { value: int }
zone bag: pile
zone out: pile
zone tray per player: pile
components {
  Chip(value: 1..3) in bag
  2 of Chip(value: 9) in bag
}
var moved: int = 0
var points per player: int = 0
def t(n: int) = table n { 0: 100, 3+: 3, 5+: 5, 1: 1, else: -1 }
flow {
  for p in players { turn p: take, pass }
  turn first(players): take
  score s into points
  for c in bag { move c to out  moved += 1 }
}
action take(c in bag) "take {c.value}" once per game { move c to tray(me) }
scoring s for p {
  "chips": sum(c.value for c in tray(p))
  "doubled": double if p == first(players)
  "bonus": 1
  "times 3": multiply by 3
  "zeroed": zero if p != first(players)
}
"""


@pytest.fixture()
def semantics_game(tmp_path: Path):
    path = tmp_path / "semantics.rules"
    path.write_text(SEMANTICS, encoding="utf-8")
    import ruleforge

    return ruleforge.load(path).new_game(players=2, seed=0)


def test_documented_expression_edge_cases(semantics_game) -> None:
    g = semantics_game
    # tables: exact keys first, then `k+` keys from the highest down, then else
    assert [g.evaluate(f"t({n})") for n in (0, 1, 2, 3, 4, 5, 9)] == [100, 1, -1, 3, 3, 5, 5]
    assert g.evaluate("min(c.value for c in out)") == 0
    assert g.evaluate("max(c.value for c in out)") == 0
    assert g.evaluate("first(c for c in out)") is None
    assert g.evaluate("last(out)") is None
    assert g.evaluate("any(c.value > 0 for c in out)") is False
    assert g.evaluate("every(c.value > 0 for c in out)") is True
    # argmax: the first of equal keys (the two 9s are components 3 and 4, bottom first)
    assert g.evaluate("index(argmax(c for c in bag by c.value))") == 3
    assert g.evaluate("distinct(c.value for c in bag)") == 4


def test_documented_run_rules(semantics_game) -> None:
    g = semantics_game
    assert g.legal_labels() == ["take 1", "take 2", "take 3", "take 9", "take 9 #2", "pass"]
    g.apply("take 9")           # P1
    g.apply("take 2")           # P2
    # P1's second `take` is refused by `once per game` (per player): the decision is skipped
    assert g.is_over
    assert "P1 has no legal action and is skipped" in g.log_lines()
    # `for c in bag` moved all three remaining chips, though the body empties the zone
    assert g.evaluate("moved") == 3 and g.evaluate("count(out)") == 3
    # modifiers act on the running total and are their own items:
    # P1: 9, doubled +9 = 18, bonus 19, times 3 → +38 = 57, not zeroed
    # P2: 2, bonus 3, times 3 → +6 = 9, zeroed −9 = 0
    s = g.scores()
    assert s[0]["breakdown"] == {"chips": 9, "doubled": 9, "bonus": 1, "times 3": 38, "zeroed": 0}
    assert s[1]["breakdown"] == {"chips": 2, "doubled": 0, "bonus": 1, "times 3": 6, "zeroed": -9}
    assert [row["total"] for row in s] == [57, 0]
    assert all(sum(row["breakdown"].values()) == row["total"] for row in s)
    assert g.winners() == [0]


# --- triggers, as the reference describes them ---------------------------------------------

TRIGGERS = """
game "Triggered"
players 2
kind Chip { value: int  label "{value}" }
zone bag: pile
zone tray per player: pile
zone out: pile
zone board: grid, size 1 by 2
components { Chip(value: 1..6) in bag }
var arrivals per player: int = 0
var order: int = 0
var left: int = 0
var hops: int = 0
when moved into tray { arrivals(me) += 1  order = order * 10 + it.value }
when moved out of tray into out { left = left * 10 + count(out) }
when moved into board { hops += 1 }
flow {
  deal 1 from bag to tray
  swap tray(first(players)) with tray(next(first(players)))
  move top 0 of bag to tray(first(players))
  move top 2 of bag to tray(next(first(players)))
  move tray(next(first(players))) to tray(first(players))
  move tray(first(players)) to out
  move top 1 of bag to cell(board, 1, 1)
  move top_of(cell(board, 1, 1)) to cell(board, 1, 2)
}
"""


def _load_text(tmp_path: Path, text: str, name: str = "doc_example.rules"):
    import ruleforge

    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return ruleforge.load(path)


def test_documented_trigger_rules(tmp_path: Path) -> None:
    g = _load_text(tmp_path, TRIGGERS).new_game(players=2, seed=0)
    # By hand. The bag holds 1..6, bottom first. `deal` (P1 gets 6, P2 gets 5) and `swap`
    # fire nothing; `top 0` moves nothing; `top 2` moves 4 then 3 into P2's tray (me = P2);
    # moving P2's tray (6, 4, 3, bottom first) into P1's fires `into tray` three more times
    # (another instance of the same zone), for P1; the order of arrival is 4 3 6 4 3.
    assert [g.evaluate("arrivals(p)", p=p) for p in (0, 1)] == [3, 2]
    assert g.evaluate("order") == 43643
    # P1's 4 chips leave for `out` one at a time, each trigger right after its own move:
    # it sees 1, 2, 3, then 4 chips in `out`.
    assert g.evaluate("left") == 1234
    # onto a cell from the bag, then from one cell to another of the same grid: two arrivals
    assert g.evaluate("hops") == 2
    # `none is Kind` is false
    assert g.evaluate("top_of(cell(board, 1, 1)) is Chip") is False
    assert g.evaluate("top_of(cell(board, 1, 2)) is Chip") is True


def test_a_deciding_trigger_needs_one_component_per_move(tmp_path: Path) -> None:
    text = """
game "Deciding"
players 2
kind Chip { value: int }
zone bag: pile
zone tray per player: pile
components { Chip(value: 1..3) in bag }
action keep "keep" { }
when moved into tray { choose: keep, pass }
flow { turn first(players) { MOVE } }
"""
    one = _load_text(tmp_path, text.replace("MOVE", "move top_of(bag) to tray(me)"), "one.rules")
    game = one.new_game(players=2)
    assert game.legal_labels() == ["keep", "pass"] and game.current_player == 0
    several = _load_text(tmp_path, text.replace("MOVE", "move top 1 of bag to tray(me)"), "several.rules")
    with pytest.raises(RulesError, match="a move of several components fired a trigger that makes a decision"):
        several.new_game(players=2)


# --- keywords as names, setup-time values -----------------------------------------------------

def test_documented_keyword_pitfalls(tmp_path: Path) -> None:
    base = 'game "Names"\nplayers 2\nvar score per player: int = 4\nvar turn: int = 1\n'
    ok = _load_text(tmp_path, base + "def t = turn + score(first(players))\nflow { }\n", "ok.rules")
    assert ok.new_game(players=2).evaluate("t") == 5  # statement keywords read fine in expressions
    with pytest.raises(RulesError, match=r"unexpected '\+='"):
        _load_text(tmp_path, base + "flow { turn += 1 }\n", "assign.rules")  # but cannot start a statement
    with pytest.raises(RulesError, match="unexpected"):
        _load_text(tmp_path, base + "var table: int = 0\ndef x = table + 1\nflow { }\n", "table.rules")


def test_documented_setup_time_rules(tmp_path: Path) -> None:
    head = 'game "Setup"\nplayers 2..3\nkind Chip { value: int }\nzone bag: pile\nvar n: int = 2\n'
    with pytest.raises(RulesError, match="variable 'n' cannot be read when the game is set up"):
        _load_text(tmp_path, head + "components { (n) of Chip(value: 1) in bag }\nflow { }\n", "var.rules")
    rules = _load_text(tmp_path, head + "def r = table player_count { 2: 1 }\nflow { }\n", "table.rules")
    assert rules.new_game(players=2).evaluate("r") == 1
    with pytest.raises(RulesError, match="this table has no entry for 3"):
        rules.new_game(players=3)


def test_the_limits_table_is_the_limits_of_the_code() -> None:
    """docs/limits.md lists every limit of ruleforge/limits.py, with its default, and no other."""
    import attrs

    from ruleforge.limits import Limits

    text = (DOCS / "limits.md").read_text(encoding="utf-8")
    table = text.split("<!-- limits:start -->")[1].split("<!-- limits:end -->")[0]
    documented = {m.group(1): int(m.group(2).replace(",", ""))
                  for m in re.finditer(r"^\| `(\w+)` \| ([\d,]+) \|", table, re.M)}
    assert documented == {f.name: f.default for f in attrs.fields(Limits)}
