"""Verdicts from repeated measurements: pure functions, the statistics spelled out.

Definitions (durations, lower is better; all fractions relative to a median):

- A sample set is valid when it is non-empty and every sample is a finite positive
  number. A NaN, zero or negative duration means the benchmark is broken, so the
  round is invalid (failure), not averaged around.
- spread = (max - min) / median of a set. Above `max_spread` the set is noisy and the
  round is inconclusive: rerun to confirm.
- measurement noise of a set = spread / 2 (half the relative range). For small n the
  range is a robust, conservative estimate; with one sample it is unknown.
- gain = frontier_median / round_median - 1 (0.25 means 25% faster than the frontier).
- The noise floor (`noise_floor`) is the smallest gain that counts at all: a gain at or
  below it is no real gain, so the round is neutral (correct, not better).
- A gain above the floor but within the measurement noise of either set is
  inconclusive. A gain above both is a win; a win needs repeats (n >= 2 on both
  sides): from one measurement it is inconclusive, never kept.
- A speedup over the frontier above `review_gain` (default 10x) is flagged for review:
  it is more often a broken benchmark than a real win. A round the numbers would keep is
  then *held for review*: inconclusive, never the frontier, until the user confirms it
  with a reason (`pto-tui round confirm N --reason ...`).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from pto_tui.core.vocabulary import Verdict


@dataclass(frozen=True)
class SampleStats:
    n: int
    median: float
    minimum: float
    maximum: float

    @property
    def spread(self) -> float:
        return (self.maximum - self.minimum) / self.median

    @property
    def noise(self) -> float | None:
        """Relative measurement noise; None when one sample cannot tell."""
        return self.spread / 2 if self.n >= 2 else None


@dataclass(frozen=True)
class VerdictResult:
    verdict: Verdict
    reason: str
    stability: str  # stable | noisy
    gain: float | None = None  # relative gain over the frontier
    speedup: float | None = None  # frontier median / round median
    flags: tuple[str, ...] = ()
    held: bool = False  # kept by the numbers, held for review (speedup above review_gain)


def invalid_sample_reason(samples: Sequence[float]) -> str | None:
    """Why a sample set cannot be used, or None when it can."""
    if not samples:
        return "no benchmark samples"
    for value in samples:
        if not isinstance(value, int | float) or isinstance(value, bool):
            return f"sample {value!r} is not a number"
        if math.isnan(value):
            return "a sample is NaN"
        if math.isinf(value):
            return "a sample is infinite"
        if value <= 0:
            return f"a sample is {value:g} (durations must be positive)"
    return None


def sample_stats(samples: Sequence[float]) -> SampleStats:
    """Statistics of a valid sample set (check invalid_sample_reason first)."""
    return SampleStats(
        n=len(samples),
        median=float(statistics.median(samples)),
        minimum=float(min(samples)),
        maximum=float(max(samples)),
    )


def percents(value: float, limit: float, sign: str = "") -> tuple[str, str]:
    """Two ratios as percentages with enough digits to tell them apart (35.04% above
    35.00%, not 35.0% above 35.0%): one decimal, more only when needed."""
    for digits in range(1, 5):
        a, b = f"{value:{sign}.{digits}%}", f"{limit:.{digits}%}"
        if a.lstrip("+") != b:
            return a, b
    return f"{value:{sign}.1%}", f"{limit:.1%}"  # equal: one decimal says so


def stability_of(samples: Sequence[float], max_spread: float) -> tuple[str, str]:
    """"stable" or "noisy" for a valid sample set, and the spread said in words."""
    stats = sample_stats(samples)
    spread, limit = percents(stats.spread, max_spread)
    if stats.spread > max_spread:
        return "noisy", f"spread {spread} is above max_spread {limit}"
    return "stable", f"spread {spread} within max_spread {limit}"


def decide(
    *,
    build_ok: bool,
    correct: bool,
    same_workload: bool,
    samples: Sequence[float],
    frontier: Sequence[float],
    noise_floor: float,
    max_spread: float,
    review_gain: float,
) -> VerdictResult:
    """The verdict of a round against the frontier (the best so far)."""
    failure = _failure(build_ok, correct, same_workload, samples)
    if failure is not None:
        return failure
    mine = sample_stats(samples)
    frontier_problem = invalid_sample_reason(frontier)
    if frontier_problem:
        return VerdictResult(
            Verdict.INCONCLUSIVE, f"the frontier has no valid samples ({frontier_problem})", "noisy"
        )
    best = sample_stats(frontier)
    stability = "noisy" if mine.spread > max_spread else "stable"
    speedup = best.median / mine.median
    gain = speedup - 1
    flags = (
        (f"review: {speedup:.1f}x over the frontier is above {review_gain:g}x",)
        if speedup > review_gain
        else ()
    )
    verdict, reason = _judge_gain(mine, best, gain, noise_floor, max_spread)
    if flags and verdict is Verdict.KEPT:
        reason = (
            f"held for review: {reason}, but {speedup:.1f}x is above {review_gain:g}x "
            "(more often a broken benchmark than a win); confirm it with a reason to keep it"
        )
        return VerdictResult(Verdict.INCONCLUSIVE, reason, stability, gain, speedup, flags, True)
    return VerdictResult(verdict, reason, stability, gain, speedup, flags)


def _failure(
    build_ok: bool, correct: bool, same_workload: bool, samples: Sequence[float]
) -> VerdictResult | None:
    """The failure of a round whose numbers cannot be used at all, or None."""
    if not build_ok:
        return VerdictResult(Verdict.FAILURE, "build failed", "")
    if not correct:
        return VerdictResult(Verdict.FAILURE, "correctness failed: the numbers are invalid", "")
    if not same_workload:
        return VerdictResult(
            Verdict.FAILURE, "workload differs from the baseline: invalid round", ""
        )
    problem = invalid_sample_reason(samples)
    if problem:
        return VerdictResult(Verdict.FAILURE, f"invalid measurement: {problem}", "")
    return None


def _judge_gain(
    mine: SampleStats, best: SampleStats, gain: float, noise_floor: float, max_spread: float
) -> tuple[Verdict, str]:
    """Spread, noise floor, measurement noise and repeats, in that order (module docstring)."""
    if mine.spread > max_spread:
        spread, limit = percents(mine.spread, max_spread)
        return Verdict.INCONCLUSIVE, f"spread {spread} is above the limit {limit}: rerun to confirm"
    if gain <= noise_floor:
        if gain < -noise_floor:
            return Verdict.NEUTRAL, f"{-gain:.1%} slower than the frontier"
        shown, floor = percents(gain, noise_floor, "+")
        return Verdict.NEUTRAL, f"gain {shown} is within the noise floor {floor}"
    noises = [n for n in (mine.noise, best.noise) if n is not None]
    noise = max(noises, default=0.0)
    if gain <= noise:
        shown, limit = percents(gain, noise, "+")
        return Verdict.INCONCLUSIVE, f"gain {shown} is within the measurement noise {limit}: rerun to confirm"
    if mine.n < 2 or best.n < 2:
        side = "this round" if mine.n < 2 else "the frontier"
        return (
            Verdict.INCONCLUSIVE,
            f"gain {gain:+.1%} from a single measurement of {side}: repeat to confirm",
        )
    shown, limit = percents(gain, max(noise, noise_floor), "+")
    return Verdict.KEPT, f"gain {shown} over the frontier exceeds the noise {limit}"
