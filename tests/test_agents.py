"""Agents: a designer's own agent by `module:Class` or `file.py:Class`, the names agent specs
accept, and their errors as one line."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import ruleforge
from ruleforge.agents import DesignerAgent, agent_names, make_agents
from ruleforge.cli import main

ROOT = Path(__file__).resolve().parent.parent
HAGAKURE = str(ROOT / "games" / "hagakure.rules")
NAISHI = str(ROOT / "games" / "naishi.rules")

LAST_AGENT = '''
class LastAgent:
    """Always the last legal action: easy to tell from random."""
    def __init__(self, seed=0):
        self.seed = seed
    def choose(self, game):
        return game.legal_actions()[-1]

class NoChoose:
    def __init__(self, seed=0):
        pass

class Illegal:
    def __init__(self, seed=0):
        pass
    def choose(self, game):
        return (999, ())

class Broken:
    def __init__(self, seed=0):
        pass
    def choose(self, game):
        raise ValueError("my bug")

NOT_A_CLASS = 3
'''


@pytest.fixture
def agent_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "my_agents.py"
    path.write_text(LAST_AGENT)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield path
    sys.modules.pop("my_agents", None)


def test_designer_agent_by_module_and_by_file(agent_file: Path) -> None:
    for name in ("my_agents:LastAgent", f"{agent_file}:LastAgent"):
        seats = make_agents(f"random,{name}", 3, seed=4)
        assert isinstance(seats[2], DesignerAgent) and seats[2].inner.seed != seats[1].inner.seed
        game = ruleforge.load(HAGAKURE).new_game(3, seed=4)
        while game.current_player != 1:
            game.apply(game.legal_actions()[0])
        assert seats[1].choose(game) == game.legal_actions()[-1]
    assert agent_names("my_agents:LastAgent", 2) == ["my_agents:LastAgent"] * 2   # case kept


def test_designer_agent_plays_through_the_cli(agent_file: Path) -> None:
    result = CliRunner().invoke(main, ["playthrough", HAGAKURE, "--players", "3", "--agents",
                                       "my_agents:LastAgent,random", "--seed", "2"])
    assert result.exit_code == 0, result.output
    assert "P1 my_agents:LastAgent" in result.output


@pytest.mark.parametrize("spec, message", [
    ("no_such_module_xyz:A", "agent 'no_such_module_xyz:A': cannot import 'no_such_module_xyz': "
                             "ModuleNotFoundError"),
    ("my_agents:Missing", "agent 'my_agents:Missing': 'my_agents' has no 'Missing'"),
    ("my_agents:NoChoose", "'NoChoose' is not a class with a choose(game) method"),
    ("my_agents:NOT_A_CLASS", "'NOT_A_CLASS' is not a class with a choose(game) method"),
    ("nowhere/x.py:A", "agent 'nowhere/x.py:A': no file 'nowhere/x.py'"),
    ("my_agents:", "give it as module:Class or path/to/file.py:Class"),
    ("mcts:0", "the budget after 'mcts:' must be a whole number of iterations of at least 1"),
    ("mcts:lots", "the budget after 'mcts:' must be a whole number"),
])
def test_bad_agent_is_one_error_line(agent_file: Path, spec: str, message: str) -> None:
    result = CliRunner().invoke(main, ["simulate", HAGAKURE, "-n", "2", "--agents", spec])
    assert result.exit_code != 0
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("cls, message", [
    ("Illegal", "agent 'my_agents:Illegal' chose (999, ()), which is not a legal action"),
    ("Broken", "agent 'my_agents:Broken' failed: ValueError: my bug"),
])
def test_failing_designer_agent_is_a_game_error(agent_file: Path, cls: str, message: str) -> None:
    seat = make_agents(f"my_agents:{cls}", 2, 0)[0]
    game = ruleforge.load(NAISHI).new_game(2, seed=1)
    with pytest.raises(ruleforge.GameError) as err:
        seat.choose(game)
    assert str(err.value) == message


def test_mcts_names() -> None:
    assert agent_names("MCTS:0500,random", 3) == ["mcts:500", "random", "random"]
    assert agent_names("mcts", 1) == ["mcts"]
    assert [type(a).__name__ for a in make_agents("mcts:20,mcts", 2, 0)] == ["MCTSAgent", "MCTSAgent"]
    assert make_agents("mcts:20,mcts", 2, 0)[0].budget == 20


# --- determinization and search ------------------------------------------------------------


def _mid_game(path: str, players: int, seed: int, decisions: int) -> ruleforge.Game:
    """A game played at random for `decisions` decisions, then on to P1's next decision."""
    import random

    game = ruleforge.load(path).new_game(players, seed)
    rng = random.Random(seed)
    for _ in range(decisions):
        game.apply(game.legal_actions()[rng.randrange(len(game.legal_actions()))])
    while game.current_player != 0:
        game.apply(game.legal_actions()[rng.randrange(len(game.legal_actions()))])
    return game


def _swap_hidden(game: ruleforge.Game, player: int) -> ruleforge.Game:
    """The same game but for two components traded between two hidden zones of `player`."""
    from ruleforge.determinize import hidden_zones

    st = game.state.clone()
    full = [zi for zi in hidden_zones(game, player) if st.z[zi]]
    a, b = full[0], full[-1]
    ca, cb = st.z[a][-1], st.z[b][0]
    assert ca != cb and game.program.comp_kind[ca] == game.program.comp_kind[cb]
    st.z[a][-1], st.z[b][0] = cb, ca
    st.w[ca], st.w[cb] = b, a
    return ruleforge.Game(game.program, game.seed, st)


def test_determinize_keeps_what_the_player_sees() -> None:
    import random

    game = _mid_game(HAGAKURE, 4, seed=3, decisions=30)
    before = game.view(0)
    seen = [game.determinize(0, random.Random(k)) for k in range(5)]
    for other in seen:
        assert other.view(0) == before            # everything P1 may see, sizes of hidden zones too
        assert all(other.state.w[c] == zi for zi, z in enumerate(other.state.z) for c in z)
    hands = {tuple(other.state.z[game.program.zone_base["hand"] + 1]) for other in seen}
    assert len(hands) > 1                          # P2's hand is drawn again, not read
    assert game.determinize(0, random.Random(1)).state.z == seen[1].state.z   # seeded
    assert game.view(0) == before                  # the game itself is untouched


def test_determinize_keeps_what_a_reveal_showed() -> None:
    import random

    game = ruleforge.load(HAGAKURE).new_game(4, seed=7)
    rng = random.Random(0)
    while not any(zi >= 0 for zi, _ in game.state.seen[game.current_player or 0]) and not game.is_over:
        game.apply(game.legal_actions()[rng.randrange(len(game.legal_actions()))])
    me = next(p for p in range(4) if game.state.seen[p])
    zi, comps = next((zi, comps) for zi, comps in game.state.seen[me] if zi >= 0)
    still = [c for c in comps if game.state.w[c] == zi]
    assert still and not game.zone_visible_to(zi, me)
    for k in range(5):
        assert set(still) <= set(game.determinize(me, random.Random(k)).state.z[zi])


@pytest.mark.parametrize("path, players, seed", [(HAGAKURE, 4, 5), (NAISHI, 2, 4)])
def test_search_never_reads_a_hidden_zone(path: str, players: int, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from ruleforge.search import MCTSAgent

    game = _mid_game(path, players, seed=seed, decisions=6)
    other = _swap_hidden(game, 0)
    assert other.view(0) == game.view(0) and other.state.z != game.state.z

    def stats(g: ruleforge.Game) -> dict:
        agent = MCTSAgent(seed=11, budget=40)
        agent.choose(g)
        assert agent.last_root is not None
        return {a: (n.visits, round(n.reward, 9)) for a, n in agent.last_root.children.items()}

    assert stats(game) == stats(other)             # the same search, to the last visit
    # The check has teeth: a search that plays the real state forward tells the two apart.
    monkeypatch.setattr(ruleforge.Game, "determinize", lambda self, p, rng: self.clone())
    assert stats(game) != stats(other)


@pytest.mark.xfail(strict=True, reason="known leak: MCTSAgent judges when a playout stops against every player's "
                                       "standing in the real game (`_start`), which reads the others' hidden cards")
def test_search_s_root_standings_read_no_hidden_zone() -> None:
    """Naishi, seed 2 (with the search's portable stream, chance.Stream): P1's swap of two cards it
    cannot know (the top of a face-down pile, a card of P2's Hand) changes P2's standing at the
    root, so the search differs between two games P1 cannot tell apart. Found when the records
    moved to the new generator (seed 11 then; the search's own draws moved since);
    `test_search_never_reads_a_hidden_zone` uses seeds where the swap leaves every standing alone."""
    from ruleforge.search import MCTSAgent

    game = _mid_game(NAISHI, 2, seed=2, decisions=6)
    other = _swap_hidden(game, 0)
    assert other.view(0) == game.view(0)

    def stats(g: ruleforge.Game) -> dict:
        agent = MCTSAgent(seed=11, budget=40)
        agent.choose(g)
        assert agent.last_root is not None
        return {a: (n.visits, round(n.reward, 9)) for a, n in agent.last_root.children.items()}

    assert stats(game) == stats(other)


@pytest.mark.parametrize("path, players, games", [(HAGAKURE, 4, 40), (NAISHI, 2, 30),
                                                  (str(ROOT / "games" / "naishi_legends.rules"), 2, 30)])
def test_greedy_beats_random(path: str, players: int, games: int) -> None:
    from ruleforge.arena import head_to_head

    match = head_to_head(ruleforge.load(path), players, "greedy", "random", games, seed=900)
    low, _high = match.interval
    assert low > match.fair, match.to_json()       # better than a random seat, beyond the interval


def test_wilson_interval() -> None:
    from ruleforge.arena import wilson

    assert wilson(0, 10) == (0.0, pytest.approx(0.2775, abs=1e-4))
    low, high = wilson(5, 10)
    assert (low, high) == (pytest.approx(0.2366, abs=1e-4), pytest.approx(0.7634, abs=1e-4))
    assert wilson(140, 200)[0] > 0.63 and wilson(0, 0) == (0.0, 1.0)


def test_search_beats_random_and_the_skill_trace_lists_its_matches() -> None:
    from ruleforge.arena import head_to_head, skill_trace

    rules = ruleforge.load(NAISHI)
    match = head_to_head(rules, 2, "mcts:30", "random", 16, seed=40)
    assert match.interval[0] > match.fair, match.to_json()
    assert match.decisions > 16 and match.per_second is not None and match.per_second > 0
    trace = skill_trace(rules, 2, [2, 4], games=2, seed=1)
    assert [(m.agent, m.opponent, m.games) for m in trace] == \
        [("mcts:2", "random", 2), ("mcts:4", "random", 2), ("mcts:4", "mcts:2", 2)]


# --- the search's playouts and reward -------------------------------------------------------


def test_search_beats_greedy_in_naishi() -> None:
    """Measured 17.5 of 30 (58%) at these seeds; the search that played uniformly at random to
    the game's end won about a fifth (5 of 24 at mcts:60, 24% over 200 games at mcts:100)."""
    from ruleforge.arena import head_to_head

    match = head_to_head(ruleforge.load(NAISHI), 2, "mcts:100", "greedy", 30, seed=70)
    assert match.rate >= 0.35, match.to_json()


def _count_playout(agent, game: ruleforge.Game, monkeypatch: pytest.MonkeyPatch) -> tuple[int, list[float]]:
    """How many decisions one playout of `agent` takes from `game`, and its rewards."""
    calls = []
    real = ruleforge.Game._apply_unchecked

    def counted(self, action):
        calls.append(action)
        return real(self, action)

    monkeypatch.setattr(ruleforge.Game, "_apply_unchecked", counted)
    result = agent._playout(game.clone())
    monkeypatch.setattr(ruleforge.Game, "_apply_unchecked", real)
    return len(calls), result


def test_playouts_stop_at_the_horizon_once_a_standing_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    from ruleforge.search import MCTSAgent
    from ruleforge.standing import Standing

    game = _mid_game(NAISHI, 2, seed=1, decisions=10)  # its first two playout decisions change a standing
    judge = Standing(game)
    marks = judge.all(game)
    assert marks[0] != marks[1]
    agent = MCTSAgent(seed=1, budget=10)
    agent._standing, agent.horizon, agent.guide, agent._start = judge, 1, 1, marks
    steps, result = _count_playout(agent, game, monkeypatch)
    assert steps <= 2 and 0 < min(result) and max(result) < 1      # cut, and judged by the standing
    agent.horizon = None
    steps, result = _count_playout(agent, game, monkeypatch)
    assert steps > 10 and sorted(result)[-1] >= 0.9                # to the end: the winner's reward
    # Hagakure scores at a round's end: from its start no standing changes for a while, so
    # the playout plays on past the horizon (a standing unchanged would judge nothing).
    start = ruleforge.load(HAGAKURE).new_game(4, seed=2)
    agent._standing, agent.horizon, agent._start = Standing(start), 1, [(0,)] * 4
    steps, _ = _count_playout(agent, start, monkeypatch)
    assert steps > 4
    agent._start = [(1,), (0,), (0,), (0,)]                         # as if P1 had scored since
    steps, _ = _count_playout(agent, start, monkeypatch)
    assert steps == 4


def test_estimate_rewards_a_larger_lead_more() -> None:
    from ruleforge.search import MCTSAgent

    agent = MCTSAgent()
    near, far = agent._estimate([(12,), (10,)]), agent._estimate([(20,), (10,)])
    assert 0.5 < near[0] < far[0] < 1 and 0 < far[1] < near[1] < 0.5
    assert sum(near) == pytest.approx(1) and agent._estimate([(7,), (7,), (7,)]) == [0.5, 0.5, 0.5]
    assert agent._estimate([(9,), (3,), (9,), (1,)])[0] == 0.5      # tied for the lead
    # a ranking's tie-break: ahead of the other on it, less ahead than by a point
    broken = agent._estimate([(7, 2), (7, 1)])
    assert near[0] > broken[0] > 0.5 > broken[1]
    # "fewest points wins" is a key of -points: -3 leads -8
    assert agent._estimate([(-3,), (-8,)])[0] > 0.5


# --- what a determinization keeps: a card the player saw go into a hidden zone --------------

GIFT = str(ROOT / "tests" / "synthetic" / "gift.rules")


def _do(game: ruleforge.Game, label: str) -> None:
    game.apply(game.legal_actions()[game.legal_labels().index(label)])


def _hand_cards(game: ruleforge.Game, player: int) -> list[str]:
    return [game.program.comp_label[c] for c in game.state.z[game.program.zone_base["hand"] + player]]


def _deals(game: ruleforge.Game, player: int = 0) -> list[ruleforge.Game]:
    import random

    return [game.determinize(player, random.Random(k)) for k in range(12)]


def test_determinize_keeps_a_card_the_player_gave() -> None:
    game = ruleforge.load(GIFT).new_game(2, seed=1)
    given = _hand_cards(game, 0)[0]
    _do(game, f"give {given}")
    _do(game, f"lay {next(c for c in _hand_cards(game, 1) if c != given)}")
    assert game.current_player == 0 and given in _hand_cards(game, 1)
    place = _hand_cards(game, 1).index(given)
    hands = set()
    for other in _deals(game):
        assert _hand_cards(other, 1)[place] == given       # P1 saw it go there
        hands.add(tuple(_hand_cards(other, 1)))
    assert len(hands) > 1                                 # the rest of P2's hand is dealt again
    # P2 did not see it go: for P2, P1's hand is dealt afresh.
    _do(game, "shuffle the deck")
    kept = _hand_cards(game, 0)
    assert any(_hand_cards(other, 0) != kept for other in _deals(game, 1))


def test_determinize_forgets_a_card_once_its_zone_is_shuffled_or_it_moves_unseen() -> None:
    game = ruleforge.load(GIFT).new_game(2, seed=2)
    buried = _hand_cards(game, 0)[0]
    _do(game, f"bury {buried}")
    deck = game.program.zone_base["deck"]
    labels = game.program.comp_label
    _do(game, "mark the top of the deck")                  # P2's turn: the deck is not shuffled
    assert all(labels[other.state.z[deck][-1]] == buried for other in _deals(game))
    _do(game, "shuffle the deck")                          # P1 shuffles it: it could be anywhere
    _do(game, f"lay {_hand_cards(game, 1)[0]}")
    assert len({labels[other.state.z[deck][-1]] for other in _deals(game)}) > 1
    # A card P1 gave, then moved by P2 out of P2's hand (which P1 cannot see), is forgotten too.
    game = ruleforge.load(GIFT).new_game(2, seed=3)
    given = _hand_cards(game, 0)[0]
    _do(game, f"give {given}")
    _do(game, f"bury {given}")
    assert len({labels[other.state.z[deck][-1]] for other in _deals(game)}) > 1


def test_determinize_keeps_properties_with_their_component_and_hidden_variables() -> None:
    game = ruleforge.load(GIFT).new_game(2, seed=4)
    _do(game, "mark the top of the deck")
    deck = game.program.zone_base["deck"]
    marked = game.state.z[deck][-1]
    mark = game.program.props.index("mark")
    places = set()
    for other in _deals(game, 1):
        assert other.state.p == game.state.p                # each component keeps its own
        places.add(other.state.z[deck].index(marked) if marked in other.state.z[deck] else -1)
        assert other.state.p[mark][marked] == 1
    assert len(places) > 1                                  # but it is dealt anywhere hidden
    naka = _mid_game(str(ROOT / "games" / "nakasendo.rules"), 2, seed=1, decisions=20)
    assert all(other.state.v == naka.state.v for other in _deals(naka))
