"""Verdicts from repeated measurements: pure functions, the statistics spelled out.

Definitions (durations, lower is better):

- A sample set is valid when it is non-empty and every sample is a finite positive
  number. A NaN, zero or negative duration means the benchmark is broken, so the
  round is invalid (failure), not averaged around.
- gain: how much faster the round is than the frontier (0.05 = 5% faster), estimated
  with a lower and an upper bound from all pairs of runs (`comparison.py`: the
  Hodges-Lehmann shift of the log durations and the Mann-Whitney bounds around it). Each
  bound holds at the discipline's `confidence` (95% by default), so "better than" and
  "no better than" are each claimed with at most 5% error (two one-sided tests; together
  the bounds are a 90% interval).
- The noise floor (`noise_floor`) is the smallest gain that counts. The bounds decide,
  with a margin of 40% of the floor (`MARGIN`) on either side of it:
  - kept: the estimate is above the floor and the lower bound above 0.6 floors;
  - neutral: the estimate is at or below the floor and the upper bound below 1.4 floors
    (no gain worth having, and the bounds say so); "slower" when the upper bound is
    below zero;
  - otherwise undecided: more runs narrow the bounds, so a round keeps measuring up to
    the discipline's `max_repeats`, and is inconclusive when still undecided there.
  A round's loop looks after every run from `repeats` on. Looking many times gives a
  chance gain many chances to look kept, so before the budget a round stops as kept only
  when it is kept at a tenth of the error (99.5% for 95%; `EARLY_STOP`); neutral stops it
  at once. At the budget, and at close, the bounds are at `confidence`. (Haybittle and
  Peto's rule for looking early: the error over all looks stays close to 5%.)
  With too few runs (fewer than 3 against 3 at 95%) there are no bounds: undecided.
  More runs narrow the bounds: over many rounds a real gain is kept more often with more
  runs, never less (one round's estimate still moves as runs come in).
- spread = (max - min) / median of a set, kept as information: above `max_spread` the
  round is marked noisy. It does not decide: the range grows with the number of runs.
  A run far outside its set is named in the reason as an outlier; it cannot decide the
  verdict alone (it is one run in each of its pairs, see `comparison.py`).
- Identical repeats: when the round's runs are all equal and so are the frontier's (at
  least two runs each: one and its confirmation), the metric is deterministic (pto-isa's
  perf_sim cycle model gives the same count on every run) and there is no noise to bound:
  the gain is exactly frontier / round - 1. It is kept when above the noise floor, else
  neutral ("slower" below zero); never undecided, so never inconclusive. This holds for
  any such pair of sample sets, whatever the mode that measured them.
- A speedup over the frontier above `review_gain` (default 10x) is flagged for review:
  it is more often a broken benchmark than a real win. A round the numbers would keep is
  then *held for review*: inconclusive, never the frontier, until the user confirms it
  with a reason (`pto-tui round confirm N --reason ...`).

Every closed round records the rule it was decided with (`RULE`); a closed round keeps
its verdict when the rule changes. Version 2 added the rule for identical repeats (version
1 bounded them like any other sets).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from pto_tui.core.rules.comparison import Comparison, compare
from pto_tui.core.vocabulary import Verdict

# the rule a round's verdict was decided with, recorded on the round when it closes
RULE = "hodges-lehmann/mann-whitney 2"
# the bounds must clear the noise floor by this share of it (module docstring)
MARGIN = 0.4
# a round stops before max_repeats as kept only with a tenth of the error (module docstring)
EARLY_STOP = 10


@dataclass(frozen=True)
class SampleStats:
    n: int
    median: float
    minimum: float
    maximum: float

    @property
    def spread(self) -> float:
        return (self.maximum - self.minimum) / self.median


@dataclass(frozen=True)
class VerdictResult:
    verdict: Verdict
    reason: str
    stability: str  # stable | noisy
    gain: float | None = None  # relative gain over the frontier
    speedup: float | None = None  # 1 + gain: how many times faster than the frontier
    flags: tuple[str, ...] = ()
    held: bool = False  # kept by the numbers, held for review (speedup above review_gain)
    # why a round's loop would measure on (up to max_repeats); "" when it would stop
    pending: str = ""
    comparison: Comparison | None = None

    @property
    def settled(self) -> bool:
        return not self.pending


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
    confidence: float,
) -> VerdictResult:
    """The verdict of a round against the frontier (the best so far)."""
    failure = _failure(build_ok, correct, same_workload, samples)
    if failure is not None:
        return failure
    mine = sample_stats(samples)
    stability = "noisy" if mine.spread > max_spread else "stable"
    frontier_problem = invalid_sample_reason(frontier)
    if frontier_problem:
        return VerdictResult(
            Verdict.INCONCLUSIVE, f"the frontier has no valid samples ({frontier_problem})", stability
        )
    exact = exact_comparison(samples, frontier, confidence)
    comparison = exact or compare(samples, frontier, confidence)
    gain = comparison.estimate
    speedup = 1.0 + gain
    flags = (
        (f"review: {speedup:.1f}x over the frontier is above {review_gain:g}x",)
        if speedup > review_gain
        else ()
    )
    verdict: Verdict | None
    if exact is not None:  # identical repeats: no noise, nothing left to measure
        (verdict, reason), pending = judge_exact(exact, noise_floor), ""
    else:
        verdict, reason = judge_gain(comparison, noise_floor)
        pending = _pending(verdict, comparison, samples, frontier, noise_floor)
    if comparison.outliers:
        reason += f"; outliers seen ({'; '.join(comparison.outliers)}), they cannot decide alone"
    if verdict is Verdict.KEPT and flags:
        reason = (
            f"held for review: {reason}, but {speedup:.1f}x is above {review_gain:g}x "
            "(more often a broken benchmark than a win); confirm it with a reason to keep it"
        )
        return VerdictResult(Verdict.INCONCLUSIVE, reason, stability, gain, speedup, flags, True,
                             comparison=comparison)
    return VerdictResult(verdict or Verdict.INCONCLUSIVE, reason, stability, gain, speedup, flags,
                         pending=pending, comparison=comparison)


def is_constant(samples: Sequence[float]) -> bool:
    """A set of at least two runs, all equal: a run and its confirmation agree."""
    return len(samples) >= 2 and len(set(samples)) == 1


def exact_comparison(
    samples: Sequence[float], frontier: Sequence[float], confidence: float
) -> Comparison | None:
    """The comparison of two sets of identical repeats (module docstring): the gain itself,
    with no width either side; None when either set varies or has a single run."""
    if not (is_constant(samples) and is_constant(frontier)):
        return None
    gain = frontier[0] / samples[0] - 1.0
    return Comparison(gain, gain, gain, confidence, len(samples), len(frontier))


def judge_exact(c: Comparison, noise_floor: float) -> tuple[Verdict, str]:
    """Identical repeats against identical repeats: no noise, the gain against the floor."""
    runs = f"{c.runs} against {c.frontier_runs} runs, each set identical: no noise"
    floor = f"{noise_floor:.1%}"
    if c.estimate > noise_floor:
        return Verdict.KEPT, f"gain {c.estimate:+.1%} ({runs}) is above the noise floor {floor}"
    if c.estimate < 0:
        return Verdict.NEUTRAL, slower_text(c.estimate, runs)
    return Verdict.NEUTRAL, f"gain {c.estimate:+.1%} ({runs}) is within the noise floor {floor}"


def slower_text(gain: float, detail: str) -> str:
    """A negative gain in the words a kernel engineer reads time in: the gain is the
    frontier's time over the round's, less 1, so -20.4% is a round taking 25.6% longer and
    -71.7% one taking 3.53x as long."""
    longer = 1.0 / (1.0 + gain) - 1.0
    took = f"{1.0 + longer:.2f}x as long" if longer >= 1.0 else f"{longer:.1%} longer"
    return f"slower than the frontier: takes {took} (gain {gain:+.1%}, {detail})"


def early_confidence(confidence: float) -> float:
    """The confidence a round must reach to stop early as kept (module docstring)."""
    return 1.0 - (1.0 - confidence) / EARLY_STOP


def _pending(verdict: Verdict | None, c: Comparison, samples: Sequence[float], frontier: Sequence[float],
             noise_floor: float) -> str:
    """Why a round's loop would measure on: undecided, or kept but not yet at the early-stop
    confidence; "" when more runs are not needed."""
    if verdict is None:
        return f"undecided: gain {c.estimate:+.1%}, {c.interval_text()}"
    if verdict is not Verdict.KEPT:
        return ""
    confidence = c.confidence
    strict = early_confidence(confidence)
    early, _ = judge_gain(compare(samples, frontier, strict), noise_floor)
    if early is Verdict.KEPT:
        return ""
    return f"kept at {confidence:.0%}, not yet at {strict:.1%}, the confidence that stops a round early"


def judge_gain(c: Comparison, noise_floor: float) -> tuple[Verdict | None, str]:
    """The interval against the noise floor (module docstring); None: undecided yet."""
    margin = MARGIN * noise_floor
    interval = f"{c.interval_text()}, {c.runs} against {c.frontier_runs} runs"
    floor = f"{noise_floor:.1%}"
    if c.low is None or c.high is None:
        if min(c.runs, c.frontier_runs) == 1:
            side = "this round" if c.runs == 1 else "the frontier"
            return None, f"gain {c.estimate:+.1%} from a single measurement of {side}: repeat to confirm"
        return None, f"gain {c.estimate:+.1%} ({interval}): undecided, more runs decide"
    if c.estimate > noise_floor and c.low > noise_floor - margin:
        return Verdict.KEPT, f"gain {c.estimate:+.1%} ({interval}) is above the noise floor {floor}"
    if c.estimate <= noise_floor and c.high < noise_floor + margin:
        if c.high < 0:
            return Verdict.NEUTRAL, slower_text(c.estimate, interval)
        return Verdict.NEUTRAL, f"gain {c.estimate:+.1%} ({interval}) is within the noise floor {floor}"
    return None, (
        f"gain {c.estimate:+.1%} ({interval}) cannot be told from the noise floor {floor}: "
        "undecided, more runs decide"
    )


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
