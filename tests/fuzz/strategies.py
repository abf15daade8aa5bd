"""Hypothesis strategies for fuzz inputs: rules files from the grammar or mutated from the
games, and saved states, hand-written positions and replay logs with mutations."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from hypothesis import strategies as st
from hypothesis.extra.lark import from_lark
from lark import Lark

ROOT = Path(__file__).resolve().parents[2]
GRAMMAR = ROOT / "ruleforge" / "grammar" / "ruleforge.lark"
GAMES = {path.stem: path.read_text(encoding="utf-8") for path in sorted((ROOT / "games").glob("*.rules"))}
TOKEN = re.compile(r'"[^"\n]*"|\w+|[^\w\s]')

# --- rules files from the grammar ---------------------------------------------------------------

# A small complete game: generated declarations are appended to it too, so that they meet
# names that exist and reach the checker's and compiler's later stages.
PICK = (Path(__file__).parents[1] / "synthetic" / "pick.rules").read_text(encoding="utf-8")

NAMES = ["p", "me", "t", "pool", "taken", "Token", "take", "c", "x", "n", "hand", "deck", "discard", "board", "Card",
         "Colour", "Red", "value",
         "score", "int", "flag", "text", "pile", "row", "grid", "player_count", "count", "sum", "any", "top_of",
         "cell", "take", "main", "points", "tricks", "_", "A1", "zone_of", "owner", "size_of"]
INTS = st.one_of(st.integers(0, 6).map(str), st.sampled_from(["10", "100", "65536", "99999999999999999999999"]))
STRINGS = st.sampled_from(['"x"', '"Game"', '"{p}"', '"{c.value}"', '"{"', '"}"', '"{x"', "''", "'a b'", '""'])


def _spaced(strategy: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """Tokens padded with spaces: the generator does not always separate them otherwise."""
    return strategy.map(lambda s: f" {s} ")


def grammar_files() -> st.SearchStrategy[str]:
    """Rules files the grammar derives, with names, numbers and strings that often resolve."""
    lark = Lark(GRAMMAR.read_text(encoding="utf-8"), parser="lalr", start="start")
    explicit = {"NAME": _spaced(st.sampled_from(NAMES)), "INT": _spaced(INTS), "STRING": _spaced(STRINGS),
                "COMMENT": st.just("# note\n"), "WS": st.sampled_from([" ", "\n", "\t"])}
    for terminal in lark.terminals:  # keywords, spaced, so that `kind` and `p` never run together
        if terminal.pattern.type == "str" and re.fullmatch(r"[a-z_]+", terminal.pattern.value):
            explicit[terminal.name] = st.just(f" {terminal.pattern.value} ")
    files = from_lark(lark, explicit=explicit)
    return st.one_of(files, files.map(lambda text: PICK + text))


# --- rules files mutated from the games ---------------------------------------------------------


def _spans(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in TOKEN.finditer(text)]


@st.composite
def delete_token(draw: st.DrawFn, text: str) -> str:
    a, b = draw(st.sampled_from(_spans(text)))
    return text[:a] + text[b:]


@st.composite
def duplicate_token(draw: st.DrawFn, text: str) -> str:
    a, b = draw(st.sampled_from(_spans(text)))
    return text[:b] + " " + text[a:b] + text[b:]


@st.composite
def swap_tokens(draw: st.DrawFn, text: str) -> str:
    spans = _spans(text)
    i = draw(st.integers(0, len(spans) - 2))
    (a, b), (c, d) = spans[i], spans[i + 1]
    return text[:a] + text[c:d] + text[b:c] + text[a:b] + text[d:]


@st.composite
def huge_number(draw: st.DrawFn, text: str) -> str:
    numbers = [m.span() for m in re.finditer(r"\b\d+\b", text)]
    if not numbers:  # digits only inside names, after earlier mutations: nothing to change
        return text
    a, b = draw(st.sampled_from(numbers))
    big = draw(st.sampled_from(["0", "1000000", "2147483648", "10000000000", "9" * 30, "9" * 400]))
    return text[:a] + big + text[b:]


@st.composite
def duplicate_line(draw: st.DrawFn, text: str) -> str:
    lines = text.splitlines(keepends=True)
    k = draw(st.integers(0, len(lines) - 1))
    times = draw(st.sampled_from([2, 10, 100, 1000, 3000]))
    return "".join(lines[:k] + [lines[k]] * times + lines[k + 1:])


@st.composite
def deep_nesting(draw: st.DrawFn, text: str) -> str:
    """An expression or a block nested very deep, in place of a number or at a flow's start."""
    depth = draw(st.sampled_from([30, 120, 250, 1000, 5000]))
    how = draw(st.sampled_from(["parens", "minus", "not", "list", "if-expr", "block", "sum"]))
    if how == "block":
        m = re.search(r"\bflow\s*\{", text)
        if m:
            body = "if true {\n" * depth + "log \"deep\"\n" + "}\n" * depth
            return text[:m.end()] + "\n" + body + text[m.end():]
        how = "parens"
    forms = {
        "parens": lambda n: "(" * depth + n + ")" * depth,
        "minus": lambda n: "- " * depth + n,
        "not": lambda n: "not " * depth + n,
        "list": lambda n: "[" * depth + n + "]" * depth,
        "if-expr": lambda n: "if 1 == 1 then " * depth + n + " else 0" * depth,
        "sum": lambda n: " + ".join([n] * depth),
    }
    numbers = [m.span() for m in re.finditer(r"\b\d+\b", text)]
    if not numbers:  # digits only inside names, after earlier mutations: nothing to change
        return text
    a, b = draw(st.sampled_from(numbers))
    return text[:a] + forms[how](text[a:b]) + text[b:]


@st.composite
def encoding_noise(draw: st.DrawFn, text: str) -> str:
    how = draw(st.sampled_from(["bom", "crlf", "cr", "nul", "tab", "unicode", "truncate"]))
    if how == "bom":
        return "\ufeff" + text
    if how == "crlf":
        return text.replace("\n", "\r\n")
    if how == "cr":
        return text.replace("\n", "\r")
    if how == "truncate":
        return text[:draw(st.integers(0, len(text)))]
    at = draw(st.integers(0, len(text)))
    noise = {"nul": "\0", "tab": "\t\v\f", "unicode": draw(st.sampled_from(["é", "名前", "\u200b", "\U0001f600"]))}
    return text[:at] + noise[how] + text[at:]


RULES_MUTATIONS = [delete_token, duplicate_token, swap_tokens, huge_number, duplicate_line, deep_nesting,
                   encoding_noise]


@st.composite
def mutated_games(draw: st.DrawFn) -> tuple[str, str]:
    """(game, text): one of games/*.rules with one to three mutations."""
    game = draw(st.sampled_from(sorted(GAMES)))
    text = GAMES[game]
    for _ in range(draw(st.integers(1, 3))):
        mutation = draw(st.sampled_from(RULES_MUTATIONS))
        if _spans(text) and len(_spans(text)) > 1 and re.search(r"\d", text) and text.strip():
            text = draw(mutation(text))
    return game, text


# --- JSON documents: states, positions, logs -------------------------------------------------


def json_paths(doc: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path into a JSON document (keys and indexes), the document itself included."""
    out = [prefix]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += json_paths(v, prefix + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc[:40]):  # long lists: their first items are enough
            out += json_paths(v, prefix + (i,))
    return out


def _get(doc: Any, path: tuple) -> Any:
    for step in path:
        doc = doc[step]
    return doc


def _set(doc: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    _get(doc, path[:-1])[path[-1]] = value
    return doc


DEEP = re.compile(r'"@deep:(\d+)"')


def deep_list(depth: int) -> str:
    """A placeholder for a list nested `depth` deep, written out by `dump` (too deep for json.dumps)."""
    return f"@deep:{depth}"


def dump(doc: Any) -> str:
    return DEEP.sub(lambda m: "[" * int(m.group(1)) + "0" + "]" * int(m.group(1)), json.dumps(doc))


MAX_CHARS = 2_000_000  # a list made huge is at most about this long as JSON (the test process must not swell)
ODD_VALUES = st.sampled_from([
    None, True, False, 0, -1, 1, 2, 7, 2**31, 2**63, 2**64, 10**30, -(10**30), 0.5, 1e308, "", "x", "P1", "P9",
    "pass", "Mountain", "18", "ruleforge-state/1", "ruleforge-position/1", "ruleforge-log/1", [], {}, [[]], [0],
    [-1], [10**9], {"x": 1},
])


@st.composite
def mutate_json(draw: st.DrawFn, doc: Any) -> Any:
    """One change somewhere in a JSON document."""
    doc = copy.deepcopy(doc)
    paths = json_paths(doc)
    path = draw(st.sampled_from(paths))
    here = _get(doc, path)
    how = draw(st.sampled_from(["replace", "replace", "nudge", "delete", "add", "dup", "drop", "swap", "deep",
                                "big"]))
    if how == "nudge" and isinstance(here, int) and not isinstance(here, bool):
        return _set(doc, path, here + draw(st.sampled_from([-1, 1, -1000, 1000])))
    if how == "delete" and path and isinstance(_get(doc, path[:-1]), dict):
        del _get(doc, path[:-1])[path[-1]]
        return doc
    if how == "add" and isinstance(here, dict):
        here[draw(st.sampled_from(["x", "format", "players", "zones", "z", "steps"]))] = draw(ODD_VALUES)
        return doc
    if how in ("dup", "drop") and isinstance(here, list) and here:
        i = draw(st.integers(0, len(here) - 1))
        here.insert(i, copy.deepcopy(here[i])) if how == "dup" else here.pop(i)
        return doc
    if how == "swap":
        return _set(doc, path, copy.deepcopy(_get(doc, draw(st.sampled_from(paths)))))
    if how == "deep":
        return _set(doc, path, deep_list(draw(st.sampled_from([100, 5000, 100_000]))))
    if how == "big" and isinstance(here, list) and here:
        times = min(draw(st.sampled_from([100, 10_000])), MAX_CHARS // len(json.dumps(here)))  # within reason
        return _set(doc, path, here * max(times, 2))
    return _set(doc, path, draw(ODD_VALUES))


@st.composite
def mutated_json(draw: st.DrawFn, docs: list[tuple[str, Any]]) -> tuple[str, str]:
    """(game, JSON text): one of `docs` with one to three changes, or its text cut short."""
    game, doc = docs[draw(st.integers(0, len(docs) - 1))]
    for _ in range(draw(st.integers(1, 3))):
        doc = draw(mutate_json(doc))
        if len(json.dumps(doc)) > MAX_CHARS // 2:  # made huge: one such change is enough
            break
    text = dump(doc)
    if draw(st.integers(0, 9)) == 0:
        text = text[:draw(st.integers(0, len(text)))]
    return game, text


def saved_states() -> list[tuple[str, Any]]:
    """`Game.to_json()` of games in progress (and over) of each game, with seeded random play."""
    import random

    import ruleforge

    out = []
    for game in sorted(GAMES):
        rules = ruleforge.load(ROOT / "games" / f"{game}.rules")
        lo, hi = rules.player_range
        for players, stop in ((lo, 0), (hi, 7), (lo, 25), (hi, 10_000)):
            g, rng = rules.new_game(players, seed=players + stop), random.Random(stop)
            for _ in range(stop):
                if g.is_over:
                    break
                actions = g.legal_actions()
                g.apply(actions[rng.randrange(len(actions))])
            out.append((game, g.to_json()))
    return out


def positions() -> list[tuple[str, Any]]:
    """Hand-written positions: docs/examples/*.json and the position blocks of docs/positions.md."""
    docs = [json.loads(p.read_text()) for p in sorted((ROOT / "docs" / "examples").glob("*.json"))]
    text = (ROOT / "docs" / "positions.md").read_text()
    for block in re.findall(r"^```json\n(.*?)^```", text, re.S | re.M):
        data = json.loads(block)
        if data.get("format") == "ruleforge-position/1":
            docs.append(data)
    return [(game, doc) for doc in docs for game in ("naishi", "naishi_legends")]


def replay_logs(folder: Path) -> list[tuple[str, Any]]:
    """Logs written by `ruleforge play --log` (whatever format the command writes today)."""
    from ruleforge.cli import main

    out = []
    for game in sorted(GAMES):
        path = folder / f"{game}.log.json"
        rules = str(ROOT / "games" / f"{game}.rules")
        result = CliRunner().invoke(main, ["play", rules, "--seed", "3", "-q", "--log", str(path)])
        assert result.exit_code == 0, result.output
        out.append((game, json.loads(path.read_text())))
    return out
