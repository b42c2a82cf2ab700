"""How much faster one set of durations is than another, with confidence bounds.

Pure statistics, no verdict: the verdict rule (`verdict.py`) decides from what this
module measures.

- Durations are compared on a log scale, so the change is a ratio: every pair of one
  frontier run f_i and one candidate run c_j gives d_ij = log(f_i) - log(c_j) (positive:
  the candidate is faster).
- The estimate is the Hodges-Lehmann shift, the median of all m*n pairwise d_ij; the
  relative gain is exp(shift) - 1 (with an even count of pairs, the mean of the middle
  two ratios f_i / c_j). One wild candidate run is in m of the m*n pairs and moves
  their median by at most m/2 places, however wild: it cannot decide a verdict alone.
- The bounds are the distribution-free ones that go with the Mann-Whitney U test: the
  k-th smallest and the k-th largest d_ij, with k the largest count for which
  P(U <= k - 1) <= 1 - confidence under no change. Each is a one-sided bound at
  `confidence` (the lower one: the gain is at least this); together they are an
  interval at 2 * confidence - 1. P comes from U's exact distribution (computed, not
  tabled) while m*n is small, from its normal approximation beyond. No assumption
  about the shape of the noise is made; the bounds are exact for continuous durations
  and conservative with ties.
- With too few runs no k exists (2 against 3 at 95%: even the most extreme ordering has
  probability 1/10 > 5%): there are no bounds and nothing can be decided yet.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from pto_tui.core.rounds.durations import duration_in, duration_unit

# Above this many pairs U's normal approximation is used (the exact count costs m*n*min(m, n)).
EXACT_PAIRS = 2500
# A run this far from its set's median (as a ratio) and this many robust deviations away
# is called an outlier in the reason: far outside the noise of any benchmark that works.
OUTLIER_RATIO = 0.25
OUTLIER_DEVIATIONS = 5.0


@dataclass(frozen=True)
class Comparison:
    """The candidate against the frontier: gains are relative (0.05 = 5% faster)."""

    estimate: float  # Hodges-Lehmann gain
    low: float | None  # bounds on the gain; None: too few runs to bound it
    high: float | None
    confidence: float
    runs: int  # candidate runs
    frontier_runs: int
    outliers: tuple[str, ...] = ()  # per side: "this round: 412.0 us, 415.0 us"

    @property
    def bounded(self) -> bool:
        return self.low is not None and self.high is not None

    def interval_text(self) -> str:
        if self.low is None or self.high is None:
            return f"too few runs for {self.confidence:.0%} bounds"
        return f"{self.confidence:.0%} bounds {self.low:+.1%} to {self.high:+.1%}"


def compare(samples: Sequence[float], frontier: Sequence[float], confidence: float) -> Comparison:
    """The candidate `samples` against `frontier` (both valid: positive, finite, non-empty)."""
    # the ratios f_i / c_j are in the same order as the d_ij: taken directly, a 10x gain
    # reads 10x exactly, not 10x plus a rounding of log and exp
    ratios = sorted(f / c for f in frontier for c in samples)
    estimate = statistics.median(ratios) - 1.0
    k = interval_rank(len(frontier), len(samples), confidence)
    low = ratios[k - 1] - 1.0 if k > 0 else None
    high = ratios[len(ratios) - k] - 1.0 if k > 0 else None
    unit = duration_unit([*samples, *frontier])  # one unit for the sentence, as the round's
    seen = tuple(
        f"{side}: {', '.join(duration_in(v, unit) for v in found)}"
        for side, found in (("this round", outliers(samples)), ("the frontier", outliers(frontier)))
        if found
    )
    return Comparison(estimate, low, high, confidence, len(samples), len(frontier), seen)


@lru_cache(maxsize=512)
def interval_rank(m: int, n: int, confidence: float) -> int:
    """k of the bounds d_(k) and d_(mn+1-k) (1-based), each a one-sided bound at
    `confidence`; 0 when no such bound exists."""
    tail = 1.0 - confidence
    pairs = m * n
    if pairs > EXACT_PAIRS:
        # normal approximation of U (mean mn/2, variance mn(m+n+1)/12)
        z = statistics.NormalDist().inv_cdf(1.0 - tail)
        k = math.floor(pairs / 2 - z * math.sqrt(pairs * (m + n + 1) / 12.0))
        return max(k, 0)
    counts = u_counts(m, n)
    total = math.comb(m + n, m)
    below = 0  # orderings with U <= k - 1
    for k, count in enumerate(counts, start=1):
        below += count
        if below / total > tail + 1e-12:  # 1/20 is at most 5%, however 1 - 0.95 rounds
            return k - 1
    return 0  # unreachable: the whole distribution sums to 1 > tail


@lru_cache(maxsize=512)
def u_counts(m: int, n: int) -> tuple[int, ...]:
    """How many of the C(m+n, m) orderings give each value of U = 0 .. m*n: the
    coefficients of the Gaussian binomial [m+n choose m]_q, built as the product over
    i = 1..m of (1 - q^(n+i)) / (1 - q^i), every division exact."""
    m, n = min(m, n), max(m, n)
    poly = [1] + [0] * (m * n)
    for i in range(1, m + 1):
        grow = n + i
        for k in range(len(poly) - 1, grow - 1, -1):  # times (1 - q^grow)
            poly[k] -= poly[k - grow]
        for k in range(i, len(poly)):  # divided by (1 - q^i)
            poly[k] += poly[k - i]
    return tuple(poly)


def outliers(samples: Sequence[float]) -> list[float]:
    """Runs far from the rest of their set (see OUTLIER_RATIO and OUTLIER_DEVIATIONS)."""
    if len(samples) < 3:
        return []
    center = statistics.median(samples)
    logs = [math.log(v / center) for v in samples]
    deviation = 1.4826 * statistics.median(abs(x) for x in logs)
    return [
        v
        for v, x in zip(samples, logs, strict=True)
        if abs(v / center - 1) > OUTLIER_RATIO and abs(x) > OUTLIER_DEVIATIONS * deviation
    ]
