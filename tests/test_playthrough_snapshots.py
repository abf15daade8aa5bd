"""The project's own recorded playthroughs (games/*.playthroughs/*.txt, one per game and player
count, two for the expansion), checked against independent implementations. `ruleforge test`
and the pytest plugin replay those files, so that a change to any rule a game goes through — a
legal action more or less, a label, a log line, a reveal, a position, a score — fails with a diff.
The files are the one source of truth; this module checks that each is a game the rules allow.

Nobody can check thousands of lines by eye, so each test checks its game against an independent
implementation, and then that the recorded file is that game's record, byte for byte:

- Hagakure: the oracle of tests/test_hagakure.py, written from the rulebook, replays the log:
  every trick's winner and every round's score;
- Naishi: the hand-written engine's scorer (bench/handwritten_naishi.py), through the check of
  tests/test_naishi_properties.py: every final item, total, colour count, Ninja copy and the winner;
- Naishi: Legends & Travellers: the scorer of tests/test_naishi_legends_properties.py and its end
  and component checks;
- Love Letter: the checks of tests/test_love_letter.py over the recorded actions: every round's
  token and the next starter, the cards each player holds at each decision, and that no view or
  log line of a seat tells it a card the rules keep from it;
- No Thanks!: the checks of tests/test_no_thanks.py at every recorded decision (chips and cards
  kept, the forced take) and at the end (each total counted again, the winners);
- Tic-Tac-Toe and Connect Four: the hand-written engines (bench/handwritten_tictactoe.py,
  bench/handwritten_connect_four.py) replay the recorded moves: the seat, the legal count and the
  move at every decision, then the same end, winner and board;
- Nakasendo: the checks of tests/test_nakasendo_properties.py, whose final check compares with the
  hand-written engine's scorer (bench/handwritten_nakasendo.py) and an independent scorer: each
  Intermediate Scoring when it happens, the final scoring, components, 4x4 grids, Hikers, views.

The hand-written engines deal their own games with their own generator, so they cannot replay the
engine's actions; what they agree on is the scoring of the positions the games reach.
tests/test_playthrough.py checks that a record is its game (decisions, legal counts, each
player's log, reveals, scores), so these checks of the game hold for the record. If a record
changes on purpose, run `ruleforge playthrough games/GAME.rules --players N --seed S --record
--update` (its first line gives N and S) and read the diff: these checks must still pass.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_hagakure import _check_log_by_rules, score_entries, top_tied, totals_after
from test_love_letter import check_hands as check_love_letter_hands
from test_love_letter import check_hidden as check_love_letter_hidden
from test_love_letter import check_rounds as check_love_letter_rounds
from test_love_letter import replayed as love_letter_replayed
from test_naishi_legends_properties import LAY as LEGENDS
from test_naishi_legends_properties import check_end as check_legends_end
from test_naishi_legends_properties import check_places as check_legends_places
from test_naishi_properties import check_components as check_naishi_components
from test_naishi_properties import check_scores as check_naishi_scores
from test_nakasendo_properties import LAYOUTS, check_final, check_intermediate, check_state, check_views
from test_no_thanks import check_game as check_no_thanks
from test_small_games import replayed_by_hand

import ruleforge
from ruleforge.playthrough import Playthrough, playthrough
from ruleforge.testing.playthroughs import parse_header, playthroughs_dir, typed_options

GAMES = Path(__file__).parents[1] / "games"


def recorded(name: str, file: str) -> str:
    return (playthroughs_dir(GAMES / f"{name}.rules") / file).read_text(encoding="utf-8")


def record(name: str, players: int, seed: int) -> Playthrough:
    """The game recorded in games/NAME.playthroughs/{players}p-seed{seed}.txt, played again; the
    file must say so in its first line (random agents, no options)."""
    text = recorded(name, f"{players}p-seed{seed}.txt")
    header = parse_header(text.split("\n", 1)[0], name)
    assert (header.players, header.seed, set(header.agents), header.options) == (players, seed, {"random"}, {})
    rec = playthrough(ruleforge.load(GAMES / f"{name}.rules"), players, seed)
    assert rec.over and rec.game is not None and rec.error is None
    return rec


def test_every_recorded_playthrough_is_checked_here() -> None:
    """A record added to games/ without an independent check here would be trusted unread."""
    files = sorted(p.relative_to(GAMES).as_posix() for p in GAMES.glob("*.playthroughs/*.txt"))
    assert files == sorted(CHECKED)


# Kingdomino's records are played by greedy agents (one with both optional rules): their file
# names, as `ruleforge playthrough --save` writes them.
KINGDOMINO = ["2p-seed1-greedy", "2p-seed5-greedy-middle_kingdom=true-harmony=true", "3p-seed2-greedy",
              "4p-seed3-greedy"]

CHECKED = ["hagakure.playthroughs/3p-seed0.txt", "hagakure.playthroughs/3p-seed3.txt",
           "hagakure.playthroughs/4p-seed0.txt", "hagakure.playthroughs/4p-seed5.txt",
           "hagakure.playthroughs/5p-seed1.txt", "naishi.playthroughs/2p-seed3.txt",
           *(f"naishi.playthroughs/2p-seed{seed}.txt" for seed in (0, 1, 2, 5, 6, 14, 896)),
           "naishi_legends.playthroughs/2p-seed9.txt", "naishi_legends.playthroughs/2p-seed55.txt",
           "nakasendo.playthroughs/2p-seed8.txt", "nakasendo.playthroughs/3p-seed9.txt",
           "nakasendo.playthroughs/4p-seed3.txt", "nakasendo.playthroughs/2p-seed6.txt",
           "nakasendo.playthroughs/3p-seed13.txt", "nakasendo.playthroughs/3p-seed3.txt",
           "nakasendo.playthroughs/4p-seed19.txt", "nakasendo.playthroughs/4p-seed0.txt",
           *(f"love_letter.playthroughs/{n}p-seed1.txt" for n in (2, 3, 4)),
           *(f"no_thanks.playthroughs/{n}p-seed0.txt" for n in (3, 5, 7)),
           "sushi_go.playthroughs/2p-seed3.txt", "sushi_go.playthroughs/4p-seed5.txt",
           *(f"kingdomino.playthroughs/{name}.txt" for name in KINGDOMINO),
           "tictactoe.playthroughs/2p-seed0.txt", "tictactoe.playthroughs/2p-seed1.txt",
           "connect_four.playthroughs/2p-seed3.txt"]


# The rounds each game lasts, from the rulebook: 9, 8 or 5 by player count, then one more round
# while the top is tied (ruling). Read here, not from the rules file, so a wrong count fails.
RULEBOOK_ROUNDS = {3: 9, 4: 8, 5: 5}


def rounds_by_rulebook(game: ruleforge.Game) -> int:
    """The round after which the game must end: the first from the rulebook's count on whose
    totals the highest is held by one player alone."""
    rounds = RULEBOOK_ROUNDS[game.players]
    while top_tied(totals_after(game, rounds)):
        rounds += 1
    return rounds


@pytest.mark.parametrize("players, seed, rounds", [(3, 3, 9), (3, 0, 9), (4, 5, 10), (4, 0, 8), (5, 1, 5)],
                         ids=["3 players", "3 players, seed 0", "4 players", "4 players, seed 0", "5 players"])
def test_hagakure(players: int, seed: int, rounds: int) -> None:
    """Checked against the oracle: every trick winner and round score; the final totals are the
    sum of the rounds, and the game ends when the rulebook and the tie ruling say. By hand (3
    players, seed 3, round 1): P3 7, P1 14, P2 8: P1; P1 12, then two
    Old Fools: the last, P3's, wins; P3 21, P1 18, P2 must follow with its Old Fool (1 legal): 21
    wins; P2 17 and P1 22 win the last two. P1 (Nobori 2) scores 0; P2 (Nobori 3, Villagers 10, 11
    and 17: 3 of the 4 needed) 1; P3 (Nobori 1) 2 tricks + #18 = 3, doubled: 6.
    By hand (4 players, seed 5): after 8 rounds P3 and P4 share the lead with 8 (P1 7, P2 5),
    so P3 deals a 9th round; then P1 and P4 share it with 9, and P4 deals a 10th; P4 wins alone
    with 12. Seeds 3 and 1 (3 and 5 players) show Nobori 5 looks at a hand and at the Yomi.
    Seeds 0 end on the rulebook's count with no tie, which seeds 3 and 5 cannot show (they are
    tied after 8 rounds): 3 players, after 8 rounds P1 16, P2 18, P3 7, so a 9th is played
    (P2 wins, 20); 4 players, after 8 rounds P1 12, P2 -9, P3 15, P4 3: over, P3 wins."""
    rec = record("hagakure", players, seed)
    game = rec.game
    _check_log_by_rules(game)
    assert len(score_entries(game)) == rounds == rounds_by_rulebook(game)
    assert [row["total"] for row in rec.scores] == totals_after(game, rounds)
    assert rec.text() == recorded("hagakure", f"{players}p-seed{seed}.txt")


def test_naishi() -> None:
    """Checked against the hand-written scorer (the final territories, with the Ninja's copy the
    game chose). Both gifts are secret (the other sees `choose a gift`). By hand, from the final
    position: P1 (Line Ninja-as-Advisor and 4 Mountains; Hand Sentinel, Mountain, Ninja-as-Sentinel,
    Rice Field, Advisor): 6 Mountains -5, Advisors 2 (column 1) + 2 (column 5), Sentinels 3 + 3
    (neither beside a Sentinel or a Fort): 5, colours white, purple, green, yellow: 4. P2 (Line
    Mountain x3, Banner, Mountain; Hand Fort, Sentinel, Advisor, Fort, Monk): -5, Advisor 3, Fort 6
    (column 1 only), Sentinel 3 + 4 (the Fort beside it), Monk 5 (in the Hand), Banner 3: 19, with
    6 colours. P2 wins."""
    rec = record("naishi", 2, 3)
    game = rec.game
    check_naishi_components(game.state, laid=True)
    check_naishi_scores(game, 3)
    text = rec.text()
    assert "\n  P2 sees: P1: choose a gift\n" in text and "\n  P1 sees: P2: choose a gift\n" in text
    assert text == recorded("naishi", "2p-seed3.txt")


def naishi_turns(text: str) -> list[tuple[str, list[str]]]:
    """The main-phase turns of a Naishi record, read from its decision lines: (player, actions),
    the Gift and the Ninjas' copies left out."""
    turns: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        head, _, action = line.partition(": ")
        number, _, rest = head.partition(". ")
        if not number.isdigit() or action.startswith("give ") or " copies " in action:
            continue
        player = rest.split(" ", 1)[0]
        if not turns or turns[-1][0] != player:
            turns.append((player, []))
        turns[-1][1].append(action)
    return turns


@pytest.mark.parametrize("seed", [0, 1, 2, 5, 6, 14, 896])
def test_naishi_more(seed: int) -> None:
    """More Naishi records, kept because each tells apart rules the examples leave loose (the
    seeds `ruleforge mutate` named: the Discard-2 spots and their conditions, the Decree's
    Emissary, the turn's bonus flags, the Ninja's copy targets, declaring, scoring items). Seed
    896 ends with a group of exactly 4 Rice Fields, which an example in games/naishi.examples.json
    would also run in every variant (and pin docs/testing.md's Great Paddies survivor). By hand:
    P1 (Line Mountain, Mountain, Rice x3; Hand Mountain, Sentinel, Mountain, Rice, Torii): Rice
    L3-L4-L5-H4 one group of 4: 30, 4 Mountains -5, Sentinel 3, one Torii -5: 23; P2 (Line
    Mountain x3, Horseman, Mountain; Hand Advisor, Naishi, Fort, Rice, Naishi): Mountains -5,
    Advisor 2 (column 1) + 4 (Naishi beside it), the Line Horseman, column-2 and -5 Naishi,
    column-3 Fort and the lone Rice Field 0: 1.
    Checked as test_naishi: every final item, total, colour count, Ninja copy and the winner
    against the hand-written scorer; components. And §5 from the record's own decisions: turns
    alternate; a declaration gives the other player exactly one more turn; a game nobody
    declared ends with two piles or more depleted (no River card and no face-down card in the
    column), after the second player's turn."""
    rec = record("naishi", 2, seed)
    game = rec.game
    check_naishi_components(game.state, laid=True)
    check_naishi_scores(game, seed)
    text = rec.text()
    assert text == recorded("naishi", f"2p-seed{seed}.txt")
    turns = naishi_turns(text)
    assert all(a[0] != b[0] for a, b in zip(turns, turns[1:], strict=False))
    declared = [i for i, (_, actions) in enumerate(turns) if "declare the end" in actions]
    if declared:
        assert declared == [len(turns) - 2], (seed, declared, len(turns))
    else:
        final = text.split("final position:\n", 1)[1]
        shown = {line.split("[1,", 1)[1][0] for line in final.splitlines()
                 if line.startswith(("  river[1,", "  piles[1,"))}
        assert 5 - len(shown) >= 2, (seed, shown)
        assert turns[-1][0] != turns[0][0]  # the round is complete: the second player ends it


def test_naishi_legends() -> None:
    """Checked against the independent scorer of the Legends tests and their end checks. By hand,
    from the final position: P2's Legendary Monk (Line 2) scores 2 for each adjacent character,
    the Horseman and the Advisor: 4, and counts as its one Torii: -5; its Legendary Ronin finds no
    three cards sharing an icon: 0; Advisor 4 (column 2), Sentinel 3, five Mountains -5: 1. P1:
    Naishi 8 (Hand 3; the other, Hand 2, 0), Advisor 4, Sentinel 3, the Ryokan 4 (its 4 side), a
    Ronin with 6 types (Advisor, Rice Field, Sentinel, Naishi, Ronin, the Ryokan): 0, three
    Mountains -5: 14."""
    rec = record("naishi_legends", 2, 9)
    declared = [d.player for d in rec.decisions if LEGENDS.names.get(d.action[0]) == "declare"]
    check_legends_places(rec.game)
    check_legends_end(rec.game, declared[0] if declared else None)
    assert rec.text() == recorded("naishi_legends", "2p-seed9.txt")


# 2p seed 6, 3p seeds 13 and 3, 4p seeds 19 and 0 were chosen by `ruleforge mutate` (see
# games/nakasendo.mutants.json): each plays a rarely reached rule that the first three games do not.
@pytest.mark.parametrize("players, seed", [(2, 8), (3, 9), (4, 3), (2, 6), (3, 13), (3, 3), (4, 19), (4, 0)],
                         ids=["2 players", "3 players", "4 players", "2 players, seed 6", "3 players, seed 13",
                              "3 players, seed 3", "4 players, seed 19", "4 players, seed 0"])
def test_nakasendo(players: int, seed: int) -> None:
    """The recorded actions replayed in a fresh game, each Intermediate Scoring checked when it
    happens; then the final scoring against the hand-written engine's scorer and the test's own,
    and the state's invariants. In seed 3's last round (4 players) the supplies have run out: P4,
    P1 and P2 have no element to play and are skipped (rulings: "Actions that cannot be taken are
    skipped"). The five later records each reach a rule the first three do not. 2 players, seed 6:
    P1's path ends on the Water N-E bear at 2,4, whose one Bear symbol, protected by the Bell at
    3,4, scores nothing but counts in the tie-break (-2). 3 players, seed 13, decision 13: P3's
    only placement is a token on its one Path tile, and the Extra Action is still offered. 3
    players, seed 3, decision 318: one tile left in the pile, and taking it blind is offered (3 legal). 4 players, seed
    19, decision 322: the last token of the pile is the only refill, and it is compulsory. 4
    players, seed 0, decision 333: the last tile of the pile is the only refill, and it is taken."""
    rec = record("nakasendo", players, seed)
    lay = LAYOUTS[players]
    game = ruleforge.load(GAMES / "nakasendo.rules").new_game(players, seed)
    intermediate = 0
    for d in rec.decisions:
        game.apply(d.action)
        for line in d.log:
            (text,) = {part.text for part in line}
            if text.startswith("scoring intermediate"):
                check_intermediate(game, lay, text)
                intermediate += 1
    assert intermediate == 3 and game.is_over and game.digest() == rec.game.digest()
    check_state(game, lay)
    check_views(game, lay)
    check_final(game, lay)
    assert rec.text() == recorded("nakasendo", f"{players}p-seed{seed}.txt")


def test_naishi_legends_travellers() -> None:
    """A second Legends game, chosen for its Travellers: checked like the first, then by hand
    against rulings §7.3-7.4 at each Traveller, and the final scores from the position.
    12: P2 takes the Old Man from the River into Hand 1: no effect on entering, but the Ryokan
    (neutral) on its 4 side. 16: another Traveller enters P2's Line 3 while P2 holds it on 4:
    flipped to 7. 22-23: a Develop replaces that Umbrella Lady (leaving): any two of P2's 10
    cards may swap, or not (45 pairs + decline = 46 legal). 26: the Samurai enters P1's Line 4:
    P1 takes the Ryokan from P2, set to 7 (no other line: its effect replaces the 4). 30-32: the
    Porter enters P1's Line 2 (P1 on 7: nothing more); P1 has an Emissary on a Discard-2 spot,
    so the recall is offered (2 legal) and taken, and the turn's bonus action still follows
    (32). 37-38: the Cherry Blossom Lady enters: 46 legal again. 41-42: the Old Man leaves P2's
    Hand 1; P2's two Emissaries are on Swap spots, so its recall is offered; declined. 45: the
    Cherry Blossom Lady is replaced: an entering Traveller leaving fires nothing.
    Scores by hand. P1 (Legendary Sentinel, Porter, Mountain, Samurai, Banner / Mountain, Fort,
    Torii, Rice Field, Fort): two Mountains -5; the Legendary Sentinel 5 (no Sentinel beside
    it; no Fort or Rice Field in the Line); Fort 6 (column 5 only); one Torii -5; Banner 3 (one
    in the Line); Ryokan 7: 11, with 7 colours (the Ryokan's black among them). P2 (Mountain,
    Monk, Legendary Ronin, Sentinel, Advisor / Torii, Rice Field, Horseman, Mountain, Mountain):
    -5; the Monk 0 (in the Line, no Torii beside it); the Legendary Ronin 0 (no icon twice);
    Sentinel 3; Advisor 2 (column 5); Torii -5; Horseman 3 (in the Hand, no Banner above): -2."""
    rec = record("naishi_legends", 2, 55)
    check_legends_places(rec.game)
    check_legends_end(rec.game, None)
    by_number = {d.number: d for d in rec.decisions}
    effects = {n: (by_number[n].player, by_number[n].legal, by_number[n].label)
               for n in (23, 31, 38, 42)}
    assert effects == {23: (1, 46, "Umbrella Lady: swap Line 3 and Line 4"),
                       31: (0, 2, "Porter: recall your Emissaries"),
                       38: (0, 46, "Cherry Blossom Lady: swap Hand 1 and Hand 2"),
                       42: (1, 2, "Old Man: no effect")}
    ryokan = {d.number: [part.text for line in d.log[1:] for part in line] for d in rec.decisions if len(d.log) > 1}
    assert ryokan == {12: ["P2 takes the Ryokan on its 4 side"], 16: ["P2 turns the Ryokan to its 7 side"],
                      26: ["P1 takes the Ryokan on its 7 side"], 45: ["scoring points: P1 +11, P2 -2"]}
    assert [(row["total"], row["rank"]) for row in rec.scores] == [(11, [11, 7]), (-2, [-2, 8])]
    assert rec.text() == recorded("naishi_legends", "2p-seed55.txt")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_love_letter(players: int) -> None:
    """The recorded actions replayed, checked by the Love Letter tests' own checks. Read by hand
    (seed 1): at 2 players P1 wins 7 rounds to 1, the three face-up cards lie apart all game, and
    round 7 ends on the empty deck with P1's Princess over P2's Guard; at 3 players, decision 4
    plays the King with no effect (P1 behind a Handmaid, P3 out), decision 16 is a forced Countess
    (P1 holds the Prince) and round 2 ends on the empty deck after 12 draws (11 turns and a
    Prince), Prince 5 over Guard 1; P1 reaches 5 tokens in round 7. At 4 players the last round
    ends on the empty deck, four hands shown, the Princess (P3) over the King, and P3 reaches 4."""
    rec = record("love_letter", players, 1)
    game, steps = love_letter_replayed(players, 1, [d.action for d in rec.decisions])
    assert game.is_over and game.digest() == rec.game.digest()
    check_love_letter_rounds(game)
    check_love_letter_hands(steps)
    check_love_letter_hidden(game, steps)
    assert [row["total"] for row in rec.scores] == {2: [7, 1], 3: [5, 1, 1], 4: [1, 1, 4, 2]}[players]
    assert rec.text() == recorded("love_letter", f"{players}p-seed1.txt")


@pytest.mark.parametrize("players", [3, 5, 7])
def test_no_thanks(players: int) -> None:
    """The recorded actions replayed, checked at every decision and at the end by the No Thanks!
    tests' own checks. Read by hand (seed 0). 3 players: P1 holds 6, 9, 11, 15, 17, 27, 34 (no
    run): 119, 11 chips: 108; P2 5, 13, 21, 25, 30-31, 35: 129 - 10 = 119; P3 3, 7-8, 10, 16, 18,
    24, 26, 29, 33: 166 - 12 = 154; P1 wins; 11 + 10 + 12 = 33 chips. 5 players: P4's 5, 8,
    10-11, 13, 17, 25, 30-31: 108 - 12 = 96, tied with P1 (108 - 12) below the winner, P5, with
    no card and 7 chips. 7 players: P4's 5, 10, 13, 17-18, 24-25, 27, 30: 126 - 14 = 112; P5
    took no card and wins with its 4 chips: -4; the 49 chips are all in hands."""
    rec = record("no_thanks", players, 0)
    game = ruleforge.load(GAMES / "no_thanks.rules").new_game(players, 0)
    states = []
    for d in rec.decisions:
        states.append(game.clone())
        game.apply(d.action)
    assert game.digest() == rec.game.digest()
    check_no_thanks(game, states)
    expected = {3: [108, 119, 154], 5: [96, 91, 80, 96, -7], 7: [38, 93, 57, 112, -4, 5, 52]}[players]
    assert [row["total"] for row in rec.scores] == expected
    assert rec.text() == recorded("no_thanks", f"{players}p-seed0.txt")


@pytest.mark.parametrize("players, seed", [(2, 3), (4, 5)])
def test_sushi_go(players: int, seed: int) -> None:
    """Checked against a scorer written in the test (tests/test_sushi_go.py's `recomputed`,
    from the cards the log says were played), and the shape of every turn: each player's
    "has chosen", then the picks in seat order. By hand (2 players, seed 3, round 1): P1 plays
    Maki 2, 1, 2, 2 (7 rolls), a Salmon Nigiri before its Wasabi (2), 2 Sashimi and a Dumpling:
    6 + 2 + 1 = 9; P2 Maki 1, 4 Salmon and an Egg Nigiri, one Tempura, 2 Sashimi: 3 + 8 + 1 = 12.
    At the end P2 has 4 puddings to P1's 2: +6, and with 2 players P1 loses nothing. (4 players,
    seed 5): P3 has the most puddings, 4: +6; P1 the fewest, 1: -6."""
    from test_sushi_go import HAND, recomputed

    rec = record("sushi_go", players, seed)
    game = rec.game
    assert [row["total"] for row in rec.scores] == recomputed(game)
    log = game.log_lines()
    seats = [f"P{p + 1}" for p in range(players)]
    turns = [i for i, line in enumerate(log) if line == "P1 has chosen"]
    assert len(turns) == 3 * HAND[players]
    for i in turns:
        assert log[i:i + players] == [f"{s} has chosen" for s in seats]
        assert [line.split(":")[0] for line in log[i + players:i + 2 * players]] == seats
    assert rec.text() == recorded("sushi_go", f"{players}p-seed{seed}.txt")


@pytest.mark.parametrize("name", KINGDOMINO)
def test_kingdomino(name: str) -> None:
    """Replayed from the header's agents and options, and checked by tests/test_kingdomino.py's
    own reading of the final kingdoms: each player's points per terrain equal a flood fill of
    the board as the spectator's view shows it, and no invariant is broken. Read by hand (2
    players, seed 1, greedy as it follows the ranking): each line sorted by number; the kings
    play in the order of their dominoes on the line (#4 P2, #15 P1, #39 P1, #48 P2, then #38 P1,
    #41 P2, #43 P2, #44 P1); every placement touches the castle or its own terrain; P1's #25
    discarded when nothing fits; both kingdoms within 5x5 (P1 rows 2-6, columns 4-8); P1 31 =
    wheat 2 (5,4-6,4 with a crown) + forest 1 + grassland 8 (four squares, two crowns) + swamp
    20 (five squares, four crowns), ranking 31, 5, 8; P2 34 = 1 + 1 + lake 9 + grassland 6 +
    swamp 2 + mine 15, ranking 34, 6, 15. With both options (seed 5): three discards, so no
    Harmony; neither castle in the middle (P1 rows 4-8, P2 columns 5-9), so no Middle Kingdom;
    P2's lake of four squares and three crowns: 12."""
    from test_kingdomino import TERRAINS, kingdom, score_by_hand

    text = recorded("kingdomino", f"{name}.txt")
    header = parse_header(text.split("\n", 1)[0], name)
    rules = ruleforge.load(GAMES / "kingdomino.rules")
    rec = playthrough(rules, header.players, header.seed, agents=list(header.agents),
                      options=typed_options(rules, header, name))
    assert rec.over and rec.game is not None and rec.error is None
    game = rec.game
    assert game.invariant_problems() == []
    for seat, row in enumerate(game.scores()):
        by_hand = score_by_hand(kingdom(game, seat))
        assert row["breakdown"]["Wheat field"] == by_hand["Wheat"]
        assert all(row["breakdown"][t] == by_hand[t] for t in TERRAINS[1:])
    assert rec.text() == text


@pytest.mark.parametrize(("name", "seed", "winner", "board"), [
    ("tictactoe", 0, 1, ". X X / O O O / . X ."),
    ("tictactoe", 1, None, "X O X / X O O / O X X"),
    ("connect_four", 3, 1, None),
], ids=["tictactoe, O wins", "tictactoe, a draw", "connect_four"])
def test_small_games(name: str, seed: int, winner: int | None, board: str | None) -> None:
    """Replayed on the hand-written engine, which must end the game at the same move with the same
    winner. By hand: Tic-Tac-Toe seed 0, O fills the middle row at its third move (X holds 1,2, 1,3
    and 3,2, no line); seed 1 fills the board with no line (rows XOX, XOO, OXX; columns XXO, OOX,
    XOX; diagonals XOX, XOO): a draw, 0 each. Connect Four seed 3: Yellow's fourth disc in column 4
    (rows 3 to 6) at the 24th move, 12 discs each."""
    rec = record(name, 2, seed)
    hand = replayed_by_hand(name, [(d.player, d.legal, d.label) for d in rec.decisions])
    assert hand.winner == winner  # type: ignore[attr-defined]
    assert [row["total"] for row in rec.scores] == ([0, 0] if winner is None else [int(winner == 0), int(winner == 1)])
    if board is not None:
        marks = [None if v == 0 else "XO"[v - 1] for v in hand.board]  # type: ignore[attr-defined]
        assert " / ".join(" ".join(m or "." for m in marks[r:r + 3]) for r in (0, 3, 6)) == board
    else:
        column = [hand.cell(r, 4) for r in range(1, 7)]  # type: ignore[attr-defined]
        assert column[2:] == [1, 1, 1, 1] and len(rec.decisions) == 24
    assert rec.text() == recorded(name, f"2p-seed{seed}.txt")
