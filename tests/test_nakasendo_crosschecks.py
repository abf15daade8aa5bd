"""Cross-checks of formulations Nakasendo's rules file uses for speed. (The rulebook's worked
examples, the Blue player among them, are data in games/nakasendo.examples.json; the plugin runs
them, and tests/test_game_examples.py keeps their breakdowns as snapshots.)"""

from __future__ import annotations

import json
import random
from pathlib import Path

from seeded import decisions

import ruleforge

ROOT = Path(__file__).parents[1]
RULES = ruleforge.load(ROOT / "games" / "nakasendo.rules")
BLUE = json.loads((ROOT / "docs" / "examples" / "nakasendo_blue.json").read_text())
ZERO = {"Juku": 0, "Samurai": 0, "Temple": 0, "Wheel": 0, "Observation Point": 0, "colours": 0,
        "Extra Actions": 0, "Bears": 0, "Snow": 0, "reservations": 0}
PATH = ["board(P1)[3,6]", "board(P1)[4,6]", "board(P1)[5,6]", "board(P1)[6,6]", "board(P1)[6,5]",
        "board(P1)[5,5]", "board(P1)[4,5]", "board(P1)[4,4]", "board(P1)[4,3]"]


def test_each_scoring_token_alone_adds_up_to_the_intermediate_scoring() -> None:
    # for each slot's token (A+B, B+C or A+C), `intermediate` gives what its tokens' own
    # scorings give, player by player, on grids of random games
    for seed in range(8):
        game = RULES.new_game(3, seed=seed)
        rng = random.Random(seed)
        for _ in range(150):
            game.apply(game.legal_actions()[rng.randrange(len(game.legal_actions()))])
        alone = {name: [row["total"] for row in game.preview_scoring(name)]
                 for name in ("path_a", "composition_b", "path_c")}
        for slot in (1, 2, 3):
            game.set_var("scoring_slot", slot)
            token = game.view(None)["zones"][f"inter_slots[1,{slot}]"][0]  # "A+B", "B+C" or "A+C"
            names = {"A": "path_a", "B": "composition_b", "C": "path_c"}
            wanted = [sum(alone[names[k]][p] for k in token.split("+")) for p in range(3)]
            assert [row["total"] for row in game.preview_scoring("intermediate")] == wanted


def test_the_window_is_the_span_limit() -> None:
    # tile_cells (a window worked out once per grid) holds exactly the cells next to or under
    # a tile where a new tile keeps the span within max_span, on grids of random games
    every = ("list(x for x in cells(board(q)) if (count(x) > 0 or any(count(y) > 0 for y in adjacent(x)))"
             " and span_rows(board(q), x) <= max_span and span_columns(board(q), x) <= max_span)")
    for seed in range(10):
        game = RULES.new_game(2, seed=seed)
        rng = random.Random(seed)
        for _ in decisions(game, seed):
            for q in (0, 1):
                assert sorted(game.evaluate("tile_cells(q)", q=q)) == sorted(game.evaluate(every, q=q))
            game.apply(game.legal_actions()[rng.randrange(len(game.legal_actions()))])
