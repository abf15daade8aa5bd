"""The random generator (ruleforge/chance.py, docs/random.md): xoshiro256** seeded by splitmix64,
Lemire's bounded draw, Fisher-Yates from the top; the same numbers as a second implementation
(a transcription of the spec here) and as the published C code (the worked numbers below); the
legacy generator still replays what was made with it (the files of tests/legacy/, written by
ruleforge before xoshiro256**)."""

from __future__ import annotations

import json
import math
import random
import shutil
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import ruleforge
from ruleforge import chance, runtime
from ruleforge.agents import RandomAgent, agent_seed, make_agents
from ruleforge.cli import main
from ruleforge.diagnostics import GameError
from ruleforge.playthrough import playthrough
from ruleforge.testing.perft_files import read_perft, run_perft
from ruleforge.testing.playthroughs import PlaythroughFileError, parse_header, run_playthrough

ROOT = Path(__file__).parents[1]
LEGACY = ROOT / "tests" / "legacy"
HAGAKURE = ROOT / "games" / "hagakure.rules"
M64 = 2 ** 64


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


# --- a second implementation: the spec of docs/random.md, written out as it reads ---------------


class Spec:
    """xoshiro256** as the spec words it, every step reduced mod 2**64 on its own."""

    def __init__(self, seed: int):
        s = seed % M64
        words = []
        for _ in range(4):
            s = (s + 0x9E3779B97F4A7C15) % M64
            z = s
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % M64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % M64
            z ^= z >> 31
            words.append(z)
        self.s = words

    @staticmethod
    def rotl(x: int, k: int) -> int:
        return ((x << k) | (x >> (64 - k))) % M64

    def next(self) -> int:
        s = self.s
        result = (self.rotl((s[1] * 5) % M64, 7) * 9) % M64
        t = (s[1] << 17) % M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = self.rotl(s[3], 45)
        return result

    def below(self, n: int) -> int:
        x = self.next()
        m = x * n
        low = m % M64
        if low < n:
            threshold = (M64 - n) % n
            while low < threshold:
                x = self.next()
                m = x * n
                low = m % M64
        return m >> 64

    def shuffle(self, z: list) -> None:
        for i in range(len(z) - 1, 0, -1):
            j = self.below(i + 1)
            z[i], z[j] = z[j], z[i]

    @property
    def words(self) -> tuple:
        return tuple(self.s)


# Worked numbers from the reference C code of xoshiro256** and splitmix64 (Blackman & Vigna, as
# published at prng.di.unimi.it), with Lemire's draw on a 128-bit product, compiled with gcc:
# the words a seed gives, then the first five outputs.
C_SEEDS = {
    0: ((16294208416658607535, 7960286522194355700, 487617019471545679, 17909611376780542444),
        (11091344671253066420, 13793997310169335082, 1900383378846508768, 7684712102626143532,
         13521403990117723737)),
    1: ((10451216379200822465, 13757245211066428519, 17911839290282890590, 8196980753821780235),
        (12966619160104079557, 9600361134598540522, 10590380919521690900, 7218738570589545383,
         12860671823995680371)),
    42: ((13679457532755275413, 2949826092126892291, 5139283748462763858, 6349198060258255764),
         (1546998764402558742, 6990951692964543102, 12544586762248559009, 17057574109182124193,
          18295552978065317476)),
    2 ** 64 - 1: ((16490336266968443936, 16834447057089888969, 4048727598324417001, 7862637804313477842),
                  (10328197420357168392, 14156678507024973869, 9357971779955476126, 13791585006304312367,
                   10463432026814718762)),
    7: ((7191089600892374487, 309689372594955804, 16616101746815609346, 10753165928301472203),
        (12923355070828475994, 5142052590334782674, 15488392906492639638, 18098058644649177664,
         18278145976438096664)),
}


def outputs(words: tuple, count: int) -> list[int]:
    out = []
    for _ in range(count):
        x, words = chance.draw(words)
        out.append(x)
    return out


def test_the_words_of_seed_0_are_splitmix64_s_published_outputs() -> None:
    # splitmix64 from 0, the test vector every port of it prints: e220a8397b1dcdaf 6e789e6aa1b965f4
    # 06c45d188009454f f88bb8a8724c81ec
    assert chance.seed_words(0) == (0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F, 0xF88BB8A8724C81EC)
    assert chance.seed_words(0)[0] == 16294208416658607535


@pytest.mark.parametrize("seed", sorted(C_SEEDS))
def test_seeds_and_first_outputs_are_the_c_code_s(seed: int) -> None:
    words, first = C_SEEDS[seed]
    assert chance.seed_words(seed) == words
    assert outputs(chance.seed_words(seed), 5) == list(first)
    spec = Spec(seed)
    assert [spec.next() for _ in range(5)] == list(first)


def test_the_first_output_of_seed_0_worked_by_hand() -> None:
    # result = rotl(s1 * 5, 7) * 9 with s1 = 7960286522194355700: s1 * 5 = 39801432610971778500,
    # less 2 * 2**64 = 2907944463552675268, whose top 7 bits are 0b0010100 = 20; rotated left by 7
    # (those bits come round to the bottom): 3282009860551402004; times 9 = 29538088744962618036,
    # less 2**64 = 11091344671253066420, the C code's first output
    s1 = 7960286522194355700
    x = s1 * 5 - 2 * M64
    assert s1 * 5 == 39801432610971778500 and x == 2907944463552675268 and x >> 57 == 0b0010100 == 20
    rotated = (x << 7) % M64 + (x >> 57)
    assert rotated == 3282009860551402004
    assert rotated * 9 == 29538088744962618036 and rotated * 9 - M64 == 11091344671253066420 == C_SEEDS[0][1][0]


def test_a_seed_is_taken_mod_2_64() -> None:
    assert chance.seed_words(-1) == chance.seed_words(2 ** 64 - 1) == C_SEEDS[2 ** 64 - 1][0]
    assert chance.seed_words(2 ** 64 + 7) == chance.seed_words(7) == chance.seed_words(-(2 ** 64) + 7)
    assert chance.seed_words(2 ** 200 + 42) == C_SEEDS[42][0]


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 99, -5, 2 ** 63, 123456789012345678901234567890])
def test_the_module_draws_what_the_spec_draws(seed: int) -> None:
    spec = Spec(seed)
    words = chance.seed_words(seed)
    assert words == spec.words
    rng = random.Random(seed)
    for _ in range(300):
        n = rng.choice([1, 2, 3, 5, 6, 7, 52, 60, 1000, 2 ** 31 + 11, 2 ** 62 + 1, 3 * 2 ** 61, 2 ** 63 - 1])
        k, words = chance.below(words, n)
        assert k == spec.below(n)
        assert words == spec.words
    for size in [0, 1, 2, 3, 10, 60, 200]:
        mine, theirs = list(range(size)), list(range(size))
        words = chance.shuffle(words, mine)
        spec.shuffle(theirs)
        assert mine == theirs and words == spec.words


def test_bounded_draws_are_the_c_code_s() -> None:
    words = chance.seed_words(7)
    drawn = []
    for _ in range(10):
        k, words = chance.below(words, 6)
        drawn.append(k)
    assert drawn == [4, 1, 5, 5, 5, 5, 0, 0, 2, 0]
    # n = 2**62 + 1 rejects a quarter of the outputs (those whose low word is under 2**62 - 3)
    words = chance.seed_words(7)
    drawn = []
    for _ in range(4):
        k, words = chance.below(words, 2 ** 62 + 1)
        drawn.append(k)
    assert drawn == [1285513147583695668, 3872098226623159910, 4524514661162294416, 4569536494109524166]
    words = chance.seed_words(7)
    drawn = []
    for _ in range(4):
        k, words = chance.below(words, 2 ** 63 - 1)
        drawn.append(k)
    assert drawn == [6461677535414237996, 2571026295167391336, 7744196453246319818, 9049029322324588831]


def test_shuffles_are_the_c_code_s() -> None:
    z = list(range(10))
    words = chance.shuffle(chance.seed_words(3), z)
    assert z == [9, 4, 8, 0, 7, 2, 3, 1, 5, 6]
    assert words == (5630624735712855833, 16260020605823905256, 12357241452705830614, 12360672419143111213)
    z = list(range(60))
    words = chance.shuffle(chance.seed_words(3), z)
    assert z == [27, 17, 36, 15, 57, 10, 1, 42, 55, 49, 22, 47, 3, 18, 59, 16, 50, 6, 8, 28, 7, 26, 13, 53, 54, 25,
                 45, 51, 39, 0, 14, 43, 40, 20, 34, 32, 2, 38, 19, 24, 29, 52, 44, 5, 4, 31, 35, 56, 33, 46, 9, 48,
                 58, 11, 21, 23, 30, 12, 37, 41]
    assert words == (7318461425144295279, 11175671976173688921, 17680772030242817213, 13267161281989064022)


# --- below: in range, unbiased by construction ----------------------------------------------------


def drawing(x: int, s0: int = 1, s2: int = 2, s3: int = 3) -> tuple:
    """Words whose next output is `x`: the output depends on s1 alone, through maps that can be
    undone (times 5 and times 9 are odd multipliers, a rotation is a rotation)."""
    y = x * pow(9, -1, M64) % M64
    y = ((y >> 7) | (y << 57)) % M64  # rotate right by 7
    s1 = y * pow(5, -1, M64) % M64
    words = (s0, s1, s2, s3)
    assert chance.draw(words)[0] == x
    return words


def test_n_1_still_draws_once() -> None:
    words = chance.seed_words(5)
    k, after = chance.below(words, 1)
    assert k == 0 and after == chance.draw(words)[1]


@pytest.mark.parametrize("n", [1, 2, 3, 7, 60, 2 ** 32 - 1, 2 ** 32 + 1, 2 ** 62 + 1, 3 * 2 ** 61, 2 ** 63 - 1])
def test_below_is_never_out_of_range(n: int) -> None:
    words = chance.seed_words(n)
    for _ in range(2000):
        k, words = chance.below(words, n)
        assert 0 <= k < n
    for x in [0, 1, n - 1, M64 - 1, M64 // 2, (M64 - 1) // n * n]:  # the edges of the products
        k, _ = chance.below(drawing(x % M64), n)
        assert 0 <= k < n


def test_below_3_is_even_over_many_draws() -> None:
    words = chance.seed_words(2024)
    counts = Counter()
    draws = 60_000
    for _ in range(draws):
        k, words = chance.below(words, 3)
        counts[k] += 1
    assert set(counts) == {0, 1, 2}
    sigma = math.sqrt(draws * (1 / 3) * (2 / 3))
    for k in range(3):
        assert abs(counts[k] - draws / 3) < 5 * sigma, counts  # 5 sigma: fails once in 1.7 million runs
    chi2 = sum((counts[k] - draws / 3) ** 2 / (draws / 3) for k in range(3))
    assert chi2 < 20  # 2 degrees of freedom: p < 0.00005


def test_the_rejection_path_redraws_exactly_below_the_threshold() -> None:
    """An output is taken unless its product's low word is below 2**64 mod n: then every result
    has the same number of outputs mapping to it, floor(2**64 / n), which is what unbiased means."""
    for n in [3, 5, 6, 2 ** 62 + 1, 3 * 2 ** 61, 2 ** 63 - 1]:
        threshold = M64 % n
        assert threshold == (M64 - n) % n
        inverse = pow(n, -1, M64) if n % 2 else None
        if inverse is None:
            continue  # an even n: no output gives every low word; the odd ones cover the boundary
        rejected_x = (threshold - 1) * inverse % M64 if threshold else None
        taken_x = threshold * inverse % M64
        k, after = chance.below(drawing(taken_x), n)  # low word == threshold: taken, one draw
        assert k == taken_x * n >> 64 and after == chance.draw(drawing(taken_x))[1]
        if rejected_x is not None:  # low word == threshold - 1: rejected, the next output decides
            words = drawing(rejected_x)
            k, after = chance.below(words, n)
            again, next_words = chance.below(chance.draw(words)[1], n)
            assert (k, after) == (again, next_words)


def test_the_rejection_path_is_taken_near_2_63() -> None:
    n = 3 * 2 ** 61  # 2**64 mod n is 2**62: a quarter of the outputs are drawn again
    words = chance.seed_words(11)
    spec = Spec(11)
    redrawn = 0
    for _ in range(400):
        before = words
        k, words = chance.below(words, n)
        assert k == spec.below(n) and words == spec.words
        redrawn += words != chance.draw(before)[1]
    assert 50 < redrawn < 150  # about 100


def test_the_shuffle_s_own_rejection_is_the_spec_s() -> None:
    # an output of 0 makes a product of 0, below the threshold 2**64 mod 3 = 1: drawn again
    for x, size in [(0, 3), (0, 5), (pow(3, -1, M64), 3)]:
        words = drawing(x)
        mine = list(range(size))
        after = chance.shuffle(words, mine)
        spec = Spec(0)
        spec.s = list(words)
        theirs = list(range(size))
        spec.shuffle(theirs)
        assert mine == theirs and after == spec.words


def test_a_shuffle_is_a_permutation() -> None:
    words = chance.seed_words(8)
    for size in [0, 1, 2, 5, 60, 500]:
        z = [f"c{i}" for i in range(size)]
        words = chance.shuffle(words, z)
        assert sorted(z) == sorted(f"c{i}" for i in range(size))
    orders = Counter()
    for _ in range(6000):
        z = [0, 1, 2]
        words = chance.shuffle(words, z)
        orders[tuple(z)] += 1
    assert len(orders) == 6 and all(800 < n < 1200 for n in orders.values()), orders


def test_a_stream_draws_as_below() -> None:
    stream = chance.Stream(99)
    words = chance.seed_words(99)
    for n in [1, 2, 10, 1000]:
        k, words = chance.below(words, n)
        assert stream.below(n) == k
    assert stream.words == words


# --- in the runtime: the state's generator, told by its type ----------------------------------------


def state(rng, zone: list) -> runtime.State:
    st = runtime.State.__new__(runtime.State)
    st.z, st.f, st.rng = [zone], [0] * 100, rng
    return st


def legacy_old_code(x: int, n: int) -> tuple[int, int]:
    """`rand_below` as ruleforge had it before xoshiro256**, copied."""
    x = (x + 0x9E3779B97F4A7C15) & (M64 - 1)
    new = x
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & (M64 - 1)
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & (M64 - 1)
    x ^= x >> 31
    return (x * n) >> 64, new


def test_the_runtime_draws_from_xoshiro_words() -> None:
    st = state(chance.seed_words(4), list(range(30)))
    spec = Spec(4)
    assert runtime.rand_below(st, 6) == spec.below(6)
    assert runtime.rand_choice(st, "abcdefg") == "abcdefg"[spec.below(7)]
    runtime.shuffle(st, 0)
    z = list(range(30))
    spec.shuffle(z)
    assert st.z[0] == z and st.rng == spec.words and type(st.rng) is tuple
    assert all(st.f[c] == -1 for c in z) and st.f[30] == 0
    with pytest.raises(RuntimeError, match="pick from nothing"):
        runtime.rand_choice(st, [])


def test_the_runtime_draws_from_a_legacy_state_as_it_did() -> None:
    seed = 12345
    x = (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & (M64 - 1)  # the old seed_state
    assert chance.initial(seed, chance.LEGACY) == chance.legacy_seed(seed) == x
    st = state(x, list(range(30)))
    want, x = legacy_old_code(x, 6)
    assert runtime.rand_below(st, 6) == want and st.rng == x
    runtime.shuffle(st, 0)
    draw, x = legacy_old_code(x, 1 << 62)
    z = list(range(30))
    random.Random(draw).shuffle(z)  # the old shuffle: one draw seeds the Mersenne Twister
    assert st.z[0] == z and st.rng == x


def test_generators_by_name() -> None:
    assert chance.GENERATOR == chance.XOSHIRO == "xoshiro256**" and chance.LEGACY == "splitmix64-mt"
    assert chance.generator_of(chance.initial(3)) == chance.XOSHIRO
    assert chance.generator_of(chance.initial(3, chance.LEGACY)) == chance.LEGACY
    assert type(chance.reseeded(chance.initial(3), 77)) is tuple and chance.reseeded(5, 77) == 77
    with pytest.raises(ValueError, match="unknown generator"):
        chance.initial(3, "mt19937")


# --- games: new ones on xoshiro256**, their files naming it ------------------------------------------


def test_a_new_game_draws_from_xoshiro_and_saves_its_words() -> None:
    rules = ruleforge.load(HAGAKURE)
    game = rules.new_game(3, 5)
    assert game.generator == "xoshiro256**"
    copy = game.clone()
    assert copy.state.rng == game.state.rng and copy.generator == game.generator
    saved = game.to_json()
    assert saved["format"] == "ruleforge-state/2" and saved["generator"] == "xoshiro256**"
    assert isinstance(saved["state"]["rng"], list) and len(saved["state"]["rng"]) == 4
    back = rules.load_game(json.loads(json.dumps(saved)))
    assert back.digest() == game.digest() and back.state.rng == game.state.rng
    seats = make_agents("random", 3, 5)
    for _ in range(40):  # past a round's end: its shuffle and deal draw the same on both
        action = seats[game.current_player].choose(game)
        game.apply(action)
        back.apply(action)
    assert back.digest() == game.digest()
    legacy = rules.new_game(3, 5, generator="splitmix64-mt")
    assert legacy.generator == "splitmix64-mt" and legacy.digest() != rules.new_game(3, 5).digest()
    with pytest.raises(GameError, match="unknown generator"):
        rules.new_game(3, 5, generator="mt")


@pytest.mark.parametrize(("change", "message"), [
    ({"generator": "mt"}, "'generator' must be one of"),
    ({"rng": 5}, "'rng' must be a list of four numbers"),
    ({"rng": [1, 2, 3]}, "'rng' must be a list of four numbers"),
    ({"rng": [0, 0, 0, 0]}, "'rng' must not be four zeros"),
    ({"rng": [1, 2, 3, 2 ** 64]}, "'rng' entry 3 is too large"),
    ({"rng": [1, 2, -3, 4]}, "'rng' entry 2 must be 0 or more"),
    ({"generator": "splitmix64-mt"}, "'rng' must be an integer"),
])
def test_a_saved_state_s_generator_is_checked(change: dict, message: str) -> None:
    rules = ruleforge.load(HAGAKURE)
    saved = json.loads(json.dumps(rules.new_game(3, 1).to_json()))
    for key, value in change.items():
        (saved if key == "generator" else saved["state"])[key] = value
    with pytest.raises(GameError, match=message):
        rules.load_game(saved)


def test_a_determinization_keeps_the_game_s_generator() -> None:
    rules = ruleforge.load(HAGAKURE)
    for generator in chance.GENERATORS:
        game = rules.new_game(3, 2, generator=generator)
        assert game.determinize(0, random.Random(1)).generator == generator


def test_a_random_agent_draws_below_from_its_own_words() -> None:
    rules = ruleforge.load(HAGAKURE)
    game = rules.new_game(3, 1)
    legal = game.legal_actions()
    agent, words = RandomAgent(17), chance.seed_words(17)
    for _ in range(20):
        k, words = chance.below(words, len(legal))
        assert agent.choose(game) == legal[k]
    old = RandomAgent(17, generator="splitmix64-mt")  # the legacy agent: a Mersenne Twister's randrange
    mt = random.Random(17)
    assert [old.choose(game) for _ in range(20)] == [legal[mt.randrange(len(legal))] for _ in range(20)]
    assert [type(a.rng) for a in make_agents("random", 2, 0)] == [chance.Stream, chance.Stream]
    seat = make_agents("random", 2, 9)[1]
    assert seat.rng.words == chance.seed_words(agent_seed(9, 1))


def test_a_new_log_names_its_generator_and_replays(tmp_path: Path) -> None:
    log = tmp_path / "game.json"
    result = run("play", str(HAGAKURE), "--players", "3", "--seed", "4", "--agents", "random", "--log", str(log))
    assert result.exit_code == 0, result.output
    data = json.loads(log.read_text())
    assert data["format"] == "ruleforge-log/3" and data["generator"] == "xoshiro256**" and data["seed"] == 4
    result = run("replay", str(log))
    assert result.exit_code == 0, result.output
    assert "identical" in result.stdout
    data["generator"] = "splitmix64-mt"  # the same seed for another generator: another deal
    log.write_text(json.dumps(data))
    result = run("replay", str(log))
    assert result.exit_code == 1 and "step 1 of" in result.stderr
    data["generator"] = "xorshift"
    log.write_text(json.dumps(data))
    result = run("replay", str(log))
    assert result.exit_code == 1 and "'generator' must be one of" in result.stderr


def test_a_record_and_a_counts_entry_name_their_generator(tmp_path: Path) -> None:
    rules = ruleforge.load(HAGAKURE)
    record = playthrough(rules, 3, 2, max_decisions=3)
    head = record.text().split("\n", 1)[0]
    assert head == "Hagakure: 3 players, seed 2, generator xoshiro256**, agents random"
    assert parse_header(head, "x").generator == "xoshiro256**"
    assert record.to_json()["generator"] == "xoshiro256**"
    assert parse_header("Hagakure: 3 players, seed 2, agents random", "x").generator == "splitmix64-mt"
    with pytest.raises(PlaythroughFileError, match="unknown generator 'mt'"):
        parse_header("Hagakure: 3 players, seed 2, generator mt, agents random", "x")
    shutil.copy(HAGAKURE, tmp_path / "hagakure.rules")
    result = run("perft", str(tmp_path / "hagakure.rules"), "--players", "3", "--depth", "2", "--write")
    assert result.exit_code == 0, result.output
    entry = json.loads((tmp_path / "hagakure.perft.json").read_text())["counts"][0]
    assert entry["generator"] == "xoshiro256**"
    (tmp_path / "hagakure.perft.json").write_text(json.dumps({
        "format": "ruleforge-perft/1", "rules": "hagakure.rules",
        "counts": [{**entry, "generator": "mt"}]}))
    with pytest.raises(GameError, match="'generator' must be one of"):
        read_perft(tmp_path / "hagakure.perft.json")


def test_a_position_names_its_generator() -> None:
    rules = ruleforge.load(HAGAKURE)
    position = {"format": "ruleforge-position/1", "players": 3, "seed": 3}
    assert rules.position(position).generator == "splitmix64-mt"  # written before the generator was named
    assert rules.position({**position, "generator": "xoshiro256**"}).generator == "xoshiro256**"
    assert rules.position({**position, "generator": "xoshiro256**"}).digest() == rules.new_game(3, 3).digest()
    with pytest.raises(GameError, match="position: generator: must be"):
        rules.position({**position, "generator": 3})


def test_simulate_records_name_the_generator(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    result = run("simulate", str(ROOT / "games" / "tictactoe.rules"), "-n", "2", "--records", str(out), "--json")
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["generator"] for r in lines] == ["xoshiro256**"] * 2
    assert json.loads(result.stdout)["generator"] == "xoshiro256**"


# --- the legacy generator replays what was made with it ----------------------------------------------


def test_a_legacy_log_still_replays() -> None:
    log = LEGACY / "hagakure-3p-seed11.log.json"
    assert "generator" not in json.loads(log.read_text())  # format 2: made before the generator was named
    result = run("replay", str(log), "--rules", str(HAGAKURE))
    assert result.exit_code == 0, result.output
    assert result.stdout == "replayed 165 steps: identical\n"


def test_a_legacy_saved_state_plays_on_as_it_did() -> None:
    """The state after step 15 of the legacy log, saved then: read as the legacy generator's, the
    log's next 150 steps (a shuffle and a deal every round) give the very states the log records."""
    rules = ruleforge.load(HAGAKURE)
    saved = json.loads((LEGACY / "hagakure-3p-seed11-step15.state.json").read_text())
    assert saved["format"] == "ruleforge-state/1" and type(saved["state"]["rng"]) is int
    game = rules.load_game(saved)
    assert game.generator == "splitmix64-mt"
    steps = json.loads((LEGACY / "hagakure-3p-seed11.log.json").read_text())["steps"]
    assert game.digest() == steps[14]["digest"]
    for step in steps[15:]:
        game.apply(step["action"])
        assert game.digest() == step["digest"]
    assert game.is_over
    again = json.loads(json.dumps(game.to_json()))  # saved now: format 2, the legacy generator named
    assert again["generator"] == "splitmix64-mt" and type(again["state"]["rng"]) is int
    assert rules.load_game(again).digest() == game.digest()


@pytest.mark.parametrize(("rules_file", "record"), [
    ("hagakure.rules", "hagakure-3p-seed0.txt"),
    ("kingdomino.rules", "kingdomino-2p-seed1-greedy.txt"),  # greedy: determinizations of a legacy game
])
def test_a_legacy_playthrough_record_still_replays(rules_file: str, record: str) -> None:
    path = LEGACY / record
    assert "generator" not in path.read_text().split("\n", 1)[0]
    outcome = run_playthrough(ruleforge.load(ROOT / "games" / rules_file), path)
    assert outcome.passed, "\n".join(outcome.report())


def test_legacy_move_counts_still_count(tmp_path: Path) -> None:
    counts = tmp_path / "hagakure.perft.json"
    shutil.copy(LEGACY / "hagakure-counts.json", counts)
    entries = read_perft(counts)
    assert {e.generator for e in entries} == {"splitmix64-mt"}
    rules = ruleforge.load(HAGAKURE)
    for entry in entries:
        outcome = run_perft(rules, entry, HAGAKURE)
        assert outcome.passed, outcome.report()
