"""The random generator: every draw of chance a game makes, the same in every engine.

A game's chance must be reproducible from its seed by any engine that plays ruleforge's rules,
the Python one here and engines written in C alike, bit for bit. So the generator is one that is
exact and cheap in C, with every step written down (docs/random.md):

- the state is four 64-bit words, seeded from the game's seed (any int, taken mod 2**64) by four
  outputs of splitmix64 (Vigna), which never gives four zero words;
- each output is xoshiro256** (Blackman & Vigna, 2018): small, fast, passes BigCrush, and a few
  shifts, rotations and multiplications of 64-bit words that C does natively;
- a number below n is Lemire's multiply-and-reject ("Fast random integer generation in an
  interval", 2019): unbiased, and almost never more than one output;
- a shuffle is Fisher-Yates from the top, as Python's `random.shuffle` orders it.

The state is a tuple of the four words (`State.rng`): immutable, so a clone shares it and a
saved game writes it as a list of four numbers. Functions here take the words and give back the
new words beside what they drew; nothing is kept in this module.

The generator before it, `splitmix64-mt` (LEGACY), stays at the bottom of this module, unchanged,
so that logs, saved states, records and counts made with it replay as they were made: its state
is one int (a splitmix64 counter) and its shuffle seeds Python's Mersenne Twister from one draw.
A game's generator is told by its state: a tuple is xoshiro256**, an int the legacy one
(`generator_of`); files name theirs in a `generator` field, absent in the files made before.
"""

from __future__ import annotations

import random

__all__ = ["GENERATOR", "GENERATORS", "LEGACY", "XOSHIRO", "Stream", "below", "draw", "generator_of", "initial",
           "legacy_below", "legacy_seed", "legacy_shuffle", "reseeded", "seed_words", "shuffle"]

XOSHIRO = "xoshiro256**"
LEGACY = "splitmix64-mt"
GENERATORS = (XOSHIRO, LEGACY)
GENERATOR = XOSHIRO
"""The generator of every game started now; LEGACY only replays what was made with it."""

MASK64 = (1 << 64) - 1
TWO64 = 1 << 64
GOLDEN = 0x9E3779B97F4A7C15  # splitmix64's increment
UNIT53 = 2.0 ** -53  # a 53-bit number times this is a float in [0, 1), exactly


def seed_words(seed: int) -> tuple[int, int, int, int]:
    """The xoshiro256** state of a seed: the seed mod 2**64 as a splitmix64 counter, and its
    next four outputs as the four words."""
    s = seed & MASK64
    words = []
    for _ in range(4):
        s = (s + GOLDEN) & MASK64
        z = s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        words.append(z ^ (z >> 31))
    return (words[0], words[1], words[2], words[3])


def draw(words: tuple) -> tuple[int, tuple]:
    """One xoshiro256** output (a 64-bit number) and the words after it."""
    s0, s1, s2, s3 = words
    x = (s1 * 5) & MASK64
    result = ((((x << 7) & MASK64) | (x >> 57)) * 9) & MASK64
    t = (s1 << 17) & MASK64
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = ((s3 << 45) & MASK64) | (s3 >> 19)
    return result, (s0, s1, s2, s3)


def below(words: tuple, n: int) -> tuple[int, tuple]:
    """A number in [0, n) for 1 <= n < 2**63, uniform (Lemire's method), and the words after
    it: the output times n, its high word, unless its low word falls in the `2**64 mod n` values
    that would favour some results, when the next output is tried. Always one draw at least,
    n == 1 too. (`draw` written out: a random agent calls this at every decision.)"""
    s0, s1, s2, s3 = words
    x = s1 * 5 & MASK64
    m = ((x << 7 | x >> 57) * 9 & MASK64) * n  # rotl(x, 7) * 9 (the bits of x << 7 past 64 drop out), times n
    t = s1 << 17 & MASK64
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    words = (s0, s1, s2, (s3 << 45 | s3 >> 19) & MASK64)
    if m & MASK64 < n:
        m, words = _rejected(m, n, words)
    return m >> 64, words


def shuffle(words: tuple, z: list) -> tuple:
    """Shuffle the list `z` in place, Fisher-Yates from the top: for i from len(z) - 1 down to 1,
    swap z[i] with z[below(i + 1)]. The words after it. `draw` and `below` written out in the
    loop (this is a game's commonest use of chance, and Python pays for every call)."""
    s0, s1, s2, s3 = words
    mask = MASK64
    for n in range(len(z), 1, -1):  # n = i + 1
        x = s1 * 5 & mask
        m = ((x << 7 | x >> 57) * 9 & mask) * n  # rotl(x, 7) * 9 (the bits of x << 7 past 64 drop out), times n
        s2 ^= s0
        s3 ^= s1
        t = s1 << 17 & mask
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = (s3 << 45 | s3 >> 19) & mask
        if m & mask < n:  # rare (n in 2**64): `below`'s rejection, from the words as they are now
            m, (s0, s1, s2, s3) = _rejected(m, n, (s0, s1, s2, s3))
        n -= 1
        j = m >> 64
        z[n], z[j] = z[j], z[n]
    return (s0, s1, s2, s3)


def _rejected(m: int, n: int, words: tuple) -> tuple[int, tuple]:
    """`below`'s loop after a first product `m` whose low word is below n."""
    threshold = (TWO64 - n) % n
    while m & MASK64 < threshold:
        result, words = draw(words)
        m = result * n
    return m, words


class Stream:
    """A generator of one's own outside a game's state (a random agent's, a search's): each draw
    takes from its words, which it keeps, so that an engine in C that copies the words draws the
    same numbers."""

    __slots__ = ("words",)

    def __init__(self, seed: int):
        self.words = seed_words(seed)

    def below(self, n: int) -> int:
        k, self.words = below(self.words, n)
        return k

    # --- the draws of a search (ruleforge/search.py, determinize.py), each written down in
    # docs/random.md so that the native search (native/c/rf_search.c) draws the same numbers.

    def randrange(self, n: int) -> int:
        """`below(n)`, under the name `random.Random` gives it (a determinization's callers
        draw from either generator)."""
        return self.below(n)

    def random(self) -> float:
        """A float in [0, 1): an output's top 53 bits times 2**-53, exact in a double."""
        x, self.words = draw(self.words)
        return (x >> 11) * UNIT53

    def getrandbits(self, k: int) -> int:
        """The top `k` bits (1 <= k <= 64) of one output: 64 of them seed a game's chance to come
        (`reseeded`)."""
        if not 1 <= k <= 64:
            raise ValueError("a stream gives 1 to 64 bits at a time")
        x, self.words = draw(self.words)
        return x >> (64 - k)

    def shuffle(self, items: list) -> None:
        """Shuffle `items` in place as a game's shuffle does (`shuffle`: Fisher-Yates from the top)."""
        self.words = shuffle(self.words, items)

    def sample(self, items: list, k: int) -> list:
        """`k` of `items` (0 <= k <= len), by a partial Fisher-Yates from the bottom on a copy: for
        i from 0 to k - 1, swap place i with place i + below(len - i); the first k places, in
        that order."""
        pool = list(items)
        n = len(pool)
        if not 0 <= k <= n:
            raise ValueError("a sample larger than its population")
        for i in range(k):
            j = i + self.below(n - i)
            pool[i], pool[j] = pool[j], pool[i]
        return pool[:k]


# --- a game's generator, by name --------------------------------------------------------------


def initial(seed: int, generator: str = GENERATOR):
    """The generator state a game starts from: four words for xoshiro256**, one int for the
    legacy generator. ValueError for a name that is neither."""
    if generator == XOSHIRO:
        return seed_words(seed)
    if generator == LEGACY:
        return legacy_seed(seed)
    raise ValueError(f"unknown generator {generator!r} (generators: {', '.join(GENERATORS)})")


def generator_of(rng) -> str:
    """The name of the generator whose state `rng` is (a tuple of words, or the legacy int)."""
    return XOSHIRO if type(rng) is tuple else LEGACY


def reseeded(rng, bits: int):
    """A fresh state of the same generator as `rng`, from 64 random bits (a determinization
    draws the chance to come again): the words seeded from them, or, for the legacy generator,
    the bits themselves, as it always did."""
    return seed_words(bits) if type(rng) is tuple else bits & MASK64


# --- LEGACY: splitmix64-mt, the generator of games made before xoshiro256** ---------------------
# Kept only to replay what was made with it (a file with no `generator`): do not change it.


def legacy_seed(seed: int) -> int:
    """The legacy state of a seed: one 64-bit splitmix64 counter."""
    return (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & MASK64


def legacy_below(x: int, n: int) -> tuple[int, int]:
    """A number in [0, n) from the legacy state (splitmix64's next output, times n, its high
    word: slightly biased) and the state after it."""
    x = (x + 0x9E3779B97F4A7C15) & MASK64
    state = x
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    x ^= x >> 31
    return (x * n) >> 64, state


def legacy_shuffle(x: int, z: list) -> int:
    """The legacy shuffle: one draw below 2**62 seeds Python's Mersenne Twister, whose
    `shuffle` shuffles `z` in place. The state after the draw."""
    seed, x = legacy_below(x, 1 << 62)
    random.Random(seed).shuffle(z)
    return x
