"""Verdict statistics: the documented rules and their edges."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from pto_tui.core.rules.comparison import interval_rank, u_counts
from pto_tui.core.rules.verdict import (
    RULE,
    VerdictResult,
    decide,
    invalid_sample_reason,
    percents,
    sample_stats,
)
from pto_tui.core.vocabulary import Verdict

FRONTIER = [100.0, 101.0, 99.0]  # median 100, spread 2%


def verdict(samples: list[float], frontier: list[float] = FRONTIER, **kw: object) -> VerdictResult:
    args = dict(
        build_ok=True,
        correct=True,
        same_workload=True,
        samples=samples,
        frontier=frontier,
        noise_floor=0.02,
        max_spread=0.10,
        review_gain=10.0,
        confidence=0.95,
    )
    args.update(kw)
    return decide(**args)  # type: ignore[arg-type]


def test_failure_paths_come_first() -> None:
    assert verdict([50.0, 50.0], build_ok=False).verdict is Verdict.FAILURE
    result = verdict([50.0, 50.0], correct=False)
    assert result.verdict is Verdict.FAILURE and "correctness" in result.reason
    result = verdict([50.0, 50.0], same_workload=False)
    assert result.verdict is Verdict.FAILURE and "workload" in result.reason


@pytest.mark.parametrize(
    ("samples", "reason"),
    [
        ([], "no benchmark samples"),
        ([90.0, math.nan], "NaN"),
        ([90.0, 0.0], "positive"),
        ([90.0, -5.0], "positive"),
        ([90.0, math.inf], "infinite"),
    ],
)
def test_invalid_samples_make_the_round_a_failure(samples: list[float], reason: str) -> None:
    result = verdict(samples)
    assert result.verdict is Verdict.FAILURE and reason in result.reason


def test_clear_repeatable_gain_is_kept() -> None:
    result = verdict([80.0, 80.5, 81.0])
    assert result.verdict is Verdict.KEPT
    # the Hodges-Lehmann estimate: the median of the nine pairwise ratios
    assert result.speedup == pytest.approx(100 / 80.5)
    assert result.comparison is not None and result.comparison.low == pytest.approx(99 / 81 - 1)
    assert result.stability == "stable" and result.flags == ()
    assert "95% bounds" in result.reason and "noise floor 2.0%" in result.reason


def test_a_round_stops_early_as_kept_only_at_the_stricter_confidence() -> None:
    # 3 against 3 runs are kept at 95%, but cannot reach 99.5%: a loop would measure on
    result = verdict([80.0, 80.5, 81.0])
    assert result.verdict is Verdict.KEPT and not result.settled
    assert "kept at 95%, not yet at 99.5%" in result.pending
    frontier = [100.0 + 0.1 * i for i in range(8)]
    result = verdict([80.0 + 0.1 * i for i in range(8)], frontier=frontier)
    assert result.verdict is Verdict.KEPT and result.settled and result.pending == ""
    # neutral settles at once, at the nominal confidence
    result = verdict([100.0, 100.2, 99.8, 100.1, 99.9], frontier=[100.0, 100.1, 99.9, 100.2, 99.8])
    assert result.verdict is Verdict.NEUTRAL and result.settled


def test_identical_samples_have_zero_spread() -> None:
    assert sample_stats([90.0, 90.0, 90.0]).spread == 0
    assert verdict([90.0, 90.0, 90.0], frontier=[100.0, 100.0, 100.0]).verdict is Verdict.KEPT
    # identical to the frontier: no gain at all, and the bounds say so
    assert verdict([100.0] * 3, frontier=[100.0] * 3).verdict is Verdict.NEUTRAL


def test_identical_repeats_are_judged_without_noise() -> None:
    """Two identical runs against two identical runs (pto-isa's perf_sim cycles): the gain
    is exact; above the noise floor kept, anything else neutral, never inconclusive."""
    assert RULE == "hodges-lehmann/mann-whitney 2"
    kept = verdict([44619.0, 44619.0], frontier=[56068.0, 56068.0])  # too few runs for bounds
    assert kept.verdict is Verdict.KEPT and kept.settled
    assert kept.gain == pytest.approx(56068 / 44619 - 1)
    assert kept.reason == (
        "gain +25.7% (2 against 2 runs, each set identical: no noise) is above the noise floor 2.0%"
    )
    slower = verdict([56068.0, 56068.0], frontier=[44619.0] * 2)
    assert slower.verdict is Verdict.NEUTRAL and slower.settled
    assert slower.reason == ("slower than the frontier: takes 25.7% longer (gain -20.4%, "
                             "2 against 2 runs, each set identical: no noise)")
    same = verdict([44619.0] * 2, frontier=[44619.0] * 5)
    assert (same.verdict, same.gain, same.settled) == (Verdict.NEUTRAL, 0.0, True)
    assert "gain +0.0% (2 against 5 runs, each set identical: no noise) is within the noise" in same.reason
    # a gain under the floor is neutral however exact; just above it, kept
    assert verdict([100.0] * 2, frontier=[101.0] * 2).verdict is Verdict.NEUTRAL
    assert verdict([100.0] * 2, frontier=[102.1] * 2).verdict is Verdict.KEPT
    # any sample sets, whatever measured them: microseconds too
    assert verdict([90.0, 90.0, 90.0], frontier=[100.0] * 3).settled
    # a large exact gain is still held for review, as any other
    held = verdict([1000.0] * 2, frontier=[20000.0] * 2)
    assert held.verdict is Verdict.INCONCLUSIVE and held.held
    # one run is no confirmation; sets that vary are bounded as before
    assert verdict([44619.0], frontier=[44619.0] * 2).verdict is Verdict.INCONCLUSIVE
    varied = verdict([44619.0, 44620.0], frontier=[56068.0, 56068.0])
    assert varied.verdict is Verdict.INCONCLUSIVE and "too few runs" in varied.reason


def test_single_measurement_never_makes_a_kept_round() -> None:
    result = verdict([80.0])
    assert result.verdict is Verdict.INCONCLUSIVE and "single measurement" in result.reason
    assert not result.settled  # more runs could decide it
    result = verdict([80.0, 80.2], frontier=[100.0])
    assert result.verdict is Verdict.INCONCLUSIVE and "the frontier" in result.reason


def test_too_few_runs_for_bounds_are_undecided() -> None:
    # 2 against 3: the most extreme ordering has probability 1/10, above 5%
    result = verdict([50.0, 50.0])
    assert result.verdict is Verdict.INCONCLUSIVE and not result.settled
    assert "too few runs" in result.reason


def test_gain_within_the_noise_floor_is_neutral() -> None:
    result = verdict([98.5, 98.6, 98.7])  # +1.4%, and at most +2.5%: below 1.4 floors
    assert result.verdict is Verdict.NEUTRAL and "within the noise floor" in result.reason


def test_slower_is_neutral() -> None:
    result = verdict([110.0, 110.5, 111.0])
    assert result.verdict is Verdict.NEUTRAL and "slower" in result.reason


def test_a_gain_the_bounds_cannot_place_is_undecided() -> None:
    # a 5% gain against a frontier with a 16% range: the lower bound is below zero
    result = verdict([95.0, 95.2, 95.4], frontier=[92.0, 100.0, 108.0], max_spread=0.5)
    assert result.verdict is Verdict.INCONCLUSIVE and not result.settled
    assert "undecided" in result.reason and result.pending.startswith("undecided: gain +5.0%")


def test_a_wide_spread_is_noisy_but_does_not_decide() -> None:
    result = verdict([40.0, 80.0, 120.0])
    assert result.verdict is Verdict.INCONCLUSIVE and result.stability == "noisy"
    # the same spread with a gain the bounds clear: kept, and marked noisy
    result = verdict([50.0, 60.0, 55.0], max_spread=0.10)
    assert result.verdict is Verdict.KEPT and result.stability == "noisy"


def test_spread_exactly_at_the_limit_is_not_noisy() -> None:
    result = verdict([76.0, 80.0, 84.0], max_spread=0.10)  # spread exactly 10%
    assert result.stability == "stable" and result.verdict is Verdict.KEPT


def test_one_wild_run_does_not_decide_and_is_named() -> None:
    frontier = [100.0, 100.4, 99.6, 100.2, 99.8]
    same = [100.1, 99.9, 100.3, 99.7, 100.0]
    assert verdict(same, frontier=frontier).verdict is Verdict.NEUTRAL
    wild = [*same[:4], 10.0]  # one run ten times faster (a broken run, a clock glitch)
    result = verdict(wild, frontier=frontier)
    assert result.verdict is not Verdict.KEPT
    assert "outliers seen (this round: 10.0 us)" in result.reason
    # and one wild slow run cannot make a clear gain neutral
    gain = [90.1, 89.9, 90.3, 89.7, 900.0]
    result = verdict(gain, frontier=frontier)
    assert result.verdict is not Verdict.NEUTRAL and "outlier" in result.reason


def test_more_than_10x_is_flagged_and_held_for_review() -> None:
    result = verdict([9.0, 9.1, 9.05])
    # held: never kept (nor the frontier) on the numbers alone
    assert result.verdict is Verdict.INCONCLUSIVE and result.held
    assert result.reason.startswith("held for review")
    assert result.flags and "review" in result.flags[0] and "11.0x" in result.flags[0]
    assert verdict([10.0, 10.0, 10.0], frontier=[100.0] * 3).flags == ()  # exactly 10x is not above


def test_frontier_without_valid_samples() -> None:
    result = verdict([80.0, 81.0], frontier=[])
    assert result.verdict is Verdict.INCONCLUSIVE


def _brute_u_counts(m: int, n: int) -> list[int]:
    """U over every placement of m frontier runs among m + n ranks (no ties)."""
    counts = [0] * (m * n + 1)
    for chosen in itertools.combinations(range(m + n), m):
        # U: pairs (frontier run, candidate run) with the candidate ranked below
        u = sum(sum(1 for r in range(rank) if r not in chosen) for rank in chosen)
        counts[u] += 1
    return counts


@pytest.mark.parametrize(("m", "n"), [(1, 1), (2, 3), (3, 3), (4, 6), (5, 5), (7, 4)])
def test_exact_u_distribution_matches_enumeration(m: int, n: int) -> None:
    assert list(u_counts(m, n)) == _brute_u_counts(m, n)


def test_bound_ranks_at_95_percent() -> None:
    # P(U = 0) for 3 against 3 is 1/20, exactly 5%: the extreme pairs bound the gain
    assert interval_rank(3, 3, 0.95) == 1
    assert interval_rank(2, 3, 0.95) == 0
    assert interval_rank(5, 5, 0.95) == 5  # P(U <= 4) = 12/252, P(U <= 5) = 19/252
    # the normal approximation (beyond the exact table) lands where the exact count does
    exact = list(itertools.accumulate(u_counts(50, 50)))
    total = math.comb(100, 50)
    k_exact = next(k for k, below in enumerate(exact, start=1) if below / total > 0.05) - 1
    assert abs(interval_rank(50, 50, 0.95) - k_exact) <= 1


def _share_kept(gain: float, repeats: int, pairs: int = 200, seed: int = 11) -> float:
    rng = random.Random(seed)

    def runs(median: float) -> list[float]:
        return [median * math.exp(rng.gauss(0.0, 0.03)) for _ in range(repeats)]

    kept = 0
    for _ in range(pairs):
        frontier = runs(100.0)
        kept += verdict(runs(100.0 / (1 + gain)), frontier=frontier).verdict is Verdict.KEPT
    return kept / pairs


def test_more_repeats_make_a_real_gain_more_decisive_never_less() -> None:
    """Seeded pairs with 3% lognormal noise: a true 6% gain is kept more often with more
    runs (the old range rule kept it less often), no change is almost never kept."""
    shares = [_share_kept(0.06, n) for n in (5, 10, 20, 40)]
    assert shares[1] >= 0.9 and shares == sorted(shares), shares
    assert max(_share_kept(0.0, n) for n in (5, 10, 40)) <= 0.05
    assert max(_share_kept(0.01, n) for n in (5, 10, 40)) <= 0.05  # below the 2% floor


def test_invalid_sample_reason_accepts_good_sets() -> None:
    assert invalid_sample_reason([1.0, 2.0]) is None
    assert "not a number" in (invalid_sample_reason([True]) or "")


@pytest.mark.parametrize(
    ("value", "limit", "sign", "shown"),
    [
        (0.788, 0.35, "", ("78.8%", "35.0%")),
        (0.35004, 0.35, "", ("35.004%", "35.000%")),
        (0.0201, 0.02, "+", ("+2.01%", "2.00%")),
        (0.35, 0.35, "", ("35.0%", "35.0%")),
    ],
)
def test_percents_show_enough_digits_to_see_why(
    value: float, limit: float, sign: str, shown: tuple[str, str]
) -> None:
    assert percents(value, limit, sign) == shown


def test_kept_reason_prints_the_gain_and_bounds() -> None:
    import re

    # gain +2.0096%; the frontier varies a little (identical repeats on both sides are
    # judged without bounds: test_identical_repeats_are_judged_without_noise)
    result = verdict([98.03, 98.03, 98.03], frontier=[100.0, 100.0, 100.01])
    assert result.verdict is Verdict.KEPT
    assert re.fullmatch(
        r"gain \+2\.0% \(95% bounds \+2\.0% to \+2\.0%, 3 against 3 runs\) is above the noise floor 2\.0%",
        result.reason,
    ), result.reason


def test_a_slower_round_is_said_in_time_taken() -> None:
    """The gain is frontier time over round time, less 1: a round at -71.7% takes 3.53x
    as long, which is how its reason says it (not "71.7% slower")."""
    slow = verdict([353.0, 354.0, 352.0, 353.5, 352.5], frontier=[100.0, 101.0, 99.0, 100.5, 99.5])
    assert slow.verdict is Verdict.NEUTRAL and slow.gain is not None and slow.gain < -0.7
    assert slow.reason.startswith("slower than the frontier: takes 3.53x as long (gain -71.7%, 95% bounds")
    near = verdict([103.0, 104.0, 102.0, 103.5, 102.5], frontier=[100.0, 101.0, 99.0, 100.5, 99.5])
    assert near.reason.startswith("slower than the frontier: takes 3.0% longer (gain -2.9%, "), near.reason
