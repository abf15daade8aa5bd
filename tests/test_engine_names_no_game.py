"""The engine knows no game: no game's title, none of the games' own compound names (a
variable, zone or function such as a path kept for scoring) and none of their own pieces' names
appears in ruleforge/, in code or in the data it ships (the hover notes taken from the docs). Plain
words a game also uses (hand, deck, score) are the language's vocabulary, not a game's."""

from __future__ import annotations

import re
from pathlib import Path

import ruleforge

ROOT = Path(__file__).resolve().parents[1]
GAMES = sorted((ROOT / "games").glob("*.rules"))


# The games' own card names, which the titles and compound names found below do not give. Love
# Letter's Guard and King are left out: they are plain words of programming (a "guard" is a test
# in generated code).
CARD_WORDS = {"Tempura", "Sashimi", "Dumpling", "Maki", "Nigiri", "Wasabi", "Chopsticks", "Pudding",
              "Priest", "Baron", "Handmaid", "Prince", "Countess", "Princess",
              # the seed games' own pieces (Naishi's cards, Hagakure's banners and its land of the dead,
              # Nakasendo's inns)
              "Ninja", "Ronin", "Torii", "Sentinel", "Horseman", "Ryokan", "Nobori", "Yomi", "Juku"}


def game_words() -> set[str]:
    words: set[str] = set(CARD_WORDS)
    for path in GAMES:
        rules = ruleforge.load(path)
        words.update(w for w in re.split(r"[^A-Za-z]+", rules.title) if len(w) > 3 and w[0].isupper())
        m = rules.model
        words.update(n for n in (*m.zones, *m.vars, *m.defs) if "_" in n)
    # Kingdomino's own words: its pieces and terrains ("Mine" is also a plain word of code)
    words.update({"Domino", "Dominoes", "Kingdom", "Castle", "Crowns", "Wheat", "Grassland", "Swamp", "Lake", "Forest"})
    # Tic-Tac-Toe's own words, whose title gives none ("crosses" and "yellow" are plain words of prose)
    words.update({"TicTacToe", "Tic-Tac-Toe", "Noughts"})
    # source_text: a Nakasendo helper and a ruleforge function, a plain name both chose;
    # Letter (Love Letter) is a plain word too, as the lexer's "letter" shows, and Four (Connect Four)
    # as the four sides of a cell show
    return words - {"Great", "Paddies", "Legends", "Travellers", "short", "wide", "source_text", "Letter", "Four"}


def test_ruleforge_names_no_game() -> None:
    words = game_words()
    assert {"Hagakure", "Naishi", "Nakasendo", "Love", "Thanks", "Sushi", "Wasabi", "Kingdomino", "Connect"} <= words
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, sorted(words))) + r")\b", re.IGNORECASE)
    found = [f"{p.relative_to(ROOT)}:{n}: {m.group(0)}"
             for p in sorted((ROOT / "ruleforge").rglob("*")) if p.suffix in (".py", ".lark", ".js", ".css", ".json")
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if (m := pattern.search(line.replace("connect-src", "")))]  # a Content-Security-Policy directive
    assert not found, "game names in ruleforge/:\n" + "\n".join(found)
