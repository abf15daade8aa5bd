"""Output is inert: text from a stranger's files (titles, labels, log texts, example names and
notes, positions, logs) never reaches the terminal as control sequences or rich markup.

Every command runs as a real process on a rules file whose strings hold ESC, OSC (a window
title, the clipboard), CSI as a C1 byte, DEL, NEL, a bidi override and rich markup; nothing but
newline and tab may come out raw, and the escaped form must be there.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]

NASTY = ("T\x1b[31mR\x1b]0;pwned\x07\x1b]52;c;aGk=\x07\x9b2J\u202eevil\x7f\x85"
         "[bold red]mk[/][link=http://x.test]ln[/link]")
SHOWN = ("T\\x1b[31mR\\x1b]0;pwned\\x07\\x1b]52;c;aGk=\\x07\\x9b2J\\u202eevil\\x7f\\x85"
         "[bold red]mk[/][link=http://x.test]ln[/link]")

RULES = """game "Pick {n}"
players 2

enum Colour {{ red, blue }}

kind Token {{
  value: int
  label "tok {n} {{value}}"
}}

zone pool: pile, visible everyone
zone taken per player: pile, visible everyone

components {{
  Token(value: 1..3) in pool
}}

var score per player: int = 0

flow {{
  for p in players {{
    log "log {n}"
    turn p: take
  }}
  score points into score
}}

action take(t in pool) "take {n} {{t}}" {{
  move t to taken(me)
}}

scoring points for p {{
  "tokens {n}": sum(t.value for t in taken(p))
}}

ranking for p {{ score(p) }}
"""


def raw_controls(text: str) -> list[str]:
    """The characters of `text` a terminal would act on: controls but newline and tab, and the
    bidirectional formatting characters."""
    return sorted({f"U+{ord(c):04X}" for c in text
                   if (unicodedata.category(c) == "Cc" and c not in "\n\t")
                   or unicodedata.bidirectional(c) in ("LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI")})


def run(folder: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "400", "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "ruleforge", *args], cwd=folder, env=env, input=stdin,
                          capture_output=True, text=True, timeout=300, encoding="utf-8")


def assert_inert(proc: subprocess.CompletedProcess[str], *shown: str) -> str:
    """Nothing raw on either stream; each of `shown` (escaped forms) printed; the output."""
    both = proc.stdout + proc.stderr
    assert raw_controls(proc.stdout) == [], proc.stdout
    assert raw_controls(proc.stderr) == [], proc.stderr
    assert "internal error" not in both and "Traceback" not in both, both
    for text in shown:
        assert text in both, both
    return both


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("inert")
    (folder / "bad.rules").write_text(RULES.format(n=NASTY), encoding="utf-8")
    (folder / "ok.rules").write_text(RULES.format(n=NASTY), encoding="utf-8")
    for name, points in (("bad", 5), ("ok", 1)):  # bad's example fails, ok's passes
        examples = {"format": "ruleforge-examples/1", "examples": [{
            "name": f"ex {NASTY}", "source": f"src {NASTY}", "note": "note", "scoring": "points",
            "position": {"format": "ruleforge-position/1", "players": 2,
                         "zones": {"taken(P1)": [f"tok {NASTY} 1"]}},
            "expect": {"P1": {f"tokens {NASTY}": points}}}]}
        (folder / f"{name}.examples.json").write_text(json.dumps(examples), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def played(folder: Path) -> subprocess.CompletedProcess[str]:
    """A person's game (P1 at the prompt), its log and its final state written."""
    return run(folder, "play", "bad.rules", "--agents", "human,random", "--seed", "1",
               "--log", "game.json", "--save", "end.json", stdin="1\n1\n1\n")


def test_check_prints_the_title_escaped(folder: Path) -> None:
    proc = run(folder, "check", "bad.rules")
    assert proc.returncode == 0, proc.stderr
    assert_inert(proc, f"Pick {SHOWN}")


def test_a_diagnostic_quotes_its_line_escaped_with_the_caret_under_the_error(folder: Path) -> None:
    (folder / "err.rules").write_text(f'game "{NASTY}" oops\nplayers 2\n', encoding="utf-8")
    proc = run(folder, "check", "err.rules")
    assert proc.returncode == 1
    # \x85 is whitespace to the language: a quoted line shows it as a space, as a form feed
    quoted_line = SHOWN.replace("\\x85", " ")
    out = assert_inert(proc, f'    game "{quoted_line}" oops')
    lines = out.splitlines()
    quoted = next(i for i, line in enumerate(lines) if line.startswith("    game "))
    assert lines[quoted + 1] == " " * (4 + len(f'game "{SHOWN}" ') - 3) + "^", out  # under the o of oops


def test_play_screen_prompts_and_log_are_escaped(played: subprocess.CompletedProcess[str]) -> None:
    assert played.returncode == 0, played.stderr
    assert_inert(played, f"take {SHOWN} tok {SHOWN} 1", f"log {SHOWN}", f"tokens {SHOWN}", f"Pick {SHOWN}")


def test_the_files_written_keep_the_exact_text(folder: Path, played: subprocess.CompletedProcess[str]) -> None:
    assert played.returncode == 0, played.stderr
    log = (folder / "game.json").read_text(encoding="utf-8")
    assert f"take {NASTY} tok {NASTY} 1" in json.loads(log)["steps"][0]["action"]


def test_replay_and_score_explain_are_escaped(folder: Path, played: subprocess.CompletedProcess[str]) -> None:
    assert played.returncode == 0, played.stderr
    assert_inert(run(folder, "replay", "game.json", "-v"), f"take {SHOWN}", f"log {SHOWN}")
    score = run(folder, "score", "bad.rules", "end.json", "--explain")
    assert score.returncode == 0, score.stderr
    assert_inert(score, f"tokens {SHOWN}", f"Pick {SHOWN}")


def test_playthrough_is_escaped(folder: Path) -> None:
    proc = run(folder, "playthrough", "bad.rules", "--seed", "1")
    assert proc.returncode == 0, proc.stderr
    assert_inert(proc, f"take {SHOWN}", f"log {SHOWN}", f"tok {SHOWN} 3", f"tokens {SHOWN}")


def test_simulate_and_compare_tables_are_escaped(folder: Path) -> None:
    proc = run(folder, "simulate", "bad.rules", "-n", "3")
    assert proc.returncode == 0, proc.stderr
    assert_inert(proc, f"Pick {SHOWN}", f"tokens {SHOWN}")
    proc = run(folder, "compare", "bad.rules", "bad.rules", "-n", "3")
    assert proc.returncode == 0, proc.stderr
    assert_inert(proc, f"tokens {SHOWN}")


def test_json_printed_is_inert_and_reads_back_to_the_exact_text(folder: Path) -> None:
    proc = run(folder, "test", "bad.rules", "--json")
    assert_inert(proc)
    assert json.loads(proc.stdout)["game"] == f"Pick {NASTY}"


def test_a_position_naming_a_stranger_s_component_is_refused_escaped(folder: Path) -> None:
    position = {"format": "ruleforge-position/1", "players": 2, "zones": {"pool": [f"no such {NASTY}"]}}
    (folder / "pos.json").write_text(json.dumps(position), encoding="utf-8")
    proc = run(folder, "score", "bad.rules", "pos.json", "--explain")
    assert proc.returncode != 0
    assert_inert(proc, f"no such {SHOWN}")


def test_ruleforge_test_shows_a_failing_example_escaped(folder: Path) -> None:
    proc = run(folder, "test", "bad.rules")
    assert proc.returncode == 1
    assert_inert(proc, f"ex {SHOWN}", f"tokens {SHOWN}")


def test_the_pytest_plugin_reports_escaped(folder: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1", "COLUMNS": "400"}
    for name in ("PYTEST_ADDOPTS", "CI", "BUILD_NUMBER"):
        env.pop(name, None)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", "bad.examples.json"],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=300, encoding="utf-8")
    assert proc.returncode == 1, proc.stdout
    assert_inert(proc, f"ex {SHOWN}", f"src {SHOWN}", f"tokens {SHOWN}")


def test_mutate_report_is_escaped(folder: Path) -> None:
    proc = run(folder, "mutate", "ok.rules", "--sample", "6", "--hint-seeds", "0")
    assert_inert(proc, SHOWN)
