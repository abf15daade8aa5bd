"""95% intervals for the balance statistics, in pure Python (no numpy, no scipy): Wilson for a
proportion, Student's t for a mean, Newcombe's hybrid score for a difference of proportions,
Welch's t or a paired t for a difference of means. Every function returns (low, high), or
None where the data cannot define an interval (no games, one game)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile: a two-sided 95% interval

# Student's t 97.5% quantile for 1..30 degrees of freedom; beyond, a Cornish-Fisher expansion
# (error under 1e-6 there), so that no table of statistics is needed.
_T975 = (12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004, 2.262157,
         2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905, 2.109816, 2.100922,
         2.093024, 2.085963, 2.079614, 2.073873, 2.068658, 2.063899, 2.059539, 2.055529, 2.051831,
         2.048407, 2.045230, 2.042272)

Interval = tuple[float, float]


def t975(df: float) -> float:
    """Student's t 97.5% quantile for `df` degrees of freedom (fractional for Welch)."""
    if df < 1:
        raise ValueError("a t quantile needs at least one degree of freedom")
    if df < 31:
        return _T975[int(df) - 1]  # a fractional df (Welch) rounded down: the wider, safer interval
    z, v = Z95, df
    return (z + (z**3 + z) / (4 * v) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
            + (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / (92160 * v**4))


def wilson(successes: int, n: int) -> Interval | None:
    """Wilson's score interval: unlike p ± 1.96·se it stays inside [0, 1] and is not zero wide
    at 0 or n successes, where a rare event (a seat that never wins) needs it most."""
    if n <= 0:
        return None
    p = successes / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_interval(values: Sequence[float]) -> Interval | None:
    """Student's t interval for the mean (needs two values); a constant sample gives a point."""
    n = len(values)
    if n < 2:
        return None
    mean = statistics.fmean(values)
    half = t975(n - 1) * statistics.stdev(values) / math.sqrt(n)
    return (mean - half, mean + half)


def proportion_difference(k_a: int, n_a: int, k_b: int, n_b: int) -> Interval | None:
    """Newcombe's hybrid score interval (his method 10) for p_b − p_a, the two proportions taken
    as independent: built from each side's Wilson interval, so it behaves at 0% and 100% too."""
    wa, wb = wilson(k_a, n_a), wilson(k_b, n_b)
    if wa is None or wb is None:
        return None
    pa, pb = k_a / n_a, k_b / n_b
    d = pb - pa
    low = d - math.sqrt((pb - wb[0]) ** 2 + (wa[1] - pa) ** 2)
    high = d + math.sqrt((wb[1] - pb) ** 2 + (pa - wa[0]) ** 2)
    return (max(-1.0, low), min(1.0, high))


def welch_difference(a: Sequence[float], b: Sequence[float]) -> Interval | None:
    """Welch's t interval for mean(b) − mean(a): two independent samples, variances not assumed equal."""
    if len(a) < 2 or len(b) < 2:
        return None
    va, vb = statistics.variance(a) / len(a), statistics.variance(b) / len(b)
    d = statistics.fmean(b) - statistics.fmean(a)
    se2 = va + vb
    if se2 == 0:
        return (d, d)
    df = se2 * se2 / (va * va / (len(a) - 1) + vb * vb / (len(b) - 1))
    half = t975(df) * math.sqrt(se2)
    return (d - half, d + half)


def paired_difference(a: Sequence[float], b: Sequence[float]) -> Interval | None:
    """The t interval of the mean of b_i − a_i, for samples paired item by item (the same seed
    on both sides): what the two games share cancels, so the interval is narrower than Welch's."""
    if len(a) != len(b):
        raise ValueError("paired samples must have the same length")
    return mean_interval([y - x for x, y in zip(a, b)])
