"""Fuzzing the texts and names of a rules file: whatever a stranger writes in a title, a label,
a log line, a score item, an invariant's message or a compared text, and whatever they name
their variables, enums, attributes, properties, phases, defs and measures, the game shows the
texts back exactly, runs the rules as written and makes no file (tests/security/hostile.py has
the template and the strategies).

The long run: `RULEFORGE_FUZZ_EXAMPLES=1000 python -m pytest tests/fuzz/test_hostile_texts.py`.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from security.hostile import HOSTILE_NAMES, HOSTILE_TEXTS, hostile_rules

import ruleforge
from ruleforge.cli import main as cli_main

from .conftest import fuzz_settings

pytestmark = pytest.mark.fuzz


@fuzz_settings(40)
@given(text=HOSTILE_TEXTS, name=HOSTILE_NAMES)
def test_hostile_texts_and_names_are_shown_back_exactly(text: str, name: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "hostile.rules"
        path.write_text(hostile_rules(text, name), encoding="utf-8")
        before = os.getcwd()
        os.chdir(folder)
        try:
            rules = ruleforge.load(path)
            game = rules.new_game(2, seed=3)
            while not game.is_over:
                game.apply(game.legal_actions()[-1])
            result = CliRunner().invoke(cli_main, ["check", str(path)])
        finally:
            os.chdir(before)
        assert rules.title == text
        assert game.log_lines()[:10] == [f"P1: {text} take {text} 3", f"P1: {text} keep", f"{text} kept",
                                        f"{text} {text} 3", f"P2: {text} take {text} 3", f"P2: {text} keep",
                                        f"{text} kept", f"{text} {text} 3", f"{text} {text} 3", f"{text} 7"]
        items = game.preview_scoring("coins")[1]
        assert (items[text], items[f"{text} unrolled"], items[f"{text} def"]) == (3, 3, 4)
        assert game.measures() == {f"{name}_m": 3, f"{name}_r": 1}
        assert game.invariant_problems() == []
        assert result.exit_code == 0, result.output
        assert sorted(os.listdir(folder)) == ["hostile.rules"]  # nothing was written
