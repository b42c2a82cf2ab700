"""Verdict statistics: the documented rules and their edges."""

from __future__ import annotations

import math

import pytest

from pto_tui.core.rules.verdict import decide, invalid_sample_reason, percents, sample_stats
from pto_tui.core.vocabulary import Verdict

FRONTIER = [100.0, 101.0, 99.0]  # median 100, spread 2%, noise 1%


def verdict(samples: list[float], frontier: list[float] = FRONTIER, **kw: object):  # type: ignore[no-untyped-def]
    args = dict(
        build_ok=True,
        correct=True,
        same_workload=True,
        samples=samples,
        frontier=frontier,
        noise_floor=0.02,
        max_spread=0.10,
        review_gain=10.0,
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
    assert result.speedup == pytest.approx(100 / 80.5)
    assert result.stability == "stable" and result.flags == ()


def test_identical_samples_have_zero_spread() -> None:
    stats = sample_stats([90.0, 90.0, 90.0])
    assert stats.spread == 0 and stats.noise == 0
    assert verdict([90.0, 90.0, 90.0], frontier=[100.0, 100.0]).verdict is Verdict.KEPT
    # identical to the frontier: no gain at all
    assert verdict([100.0, 100.0], frontier=[100.0, 100.0]).verdict is Verdict.NEUTRAL


def test_single_measurement_never_makes_a_kept_round() -> None:
    result = verdict([80.0])
    assert result.verdict is Verdict.INCONCLUSIVE and "single measurement" in result.reason
    result = verdict([80.0, 80.2], frontier=[100.0])
    assert result.verdict is Verdict.INCONCLUSIVE and "the frontier" in result.reason
    assert sample_stats([80.0]).noise is None


def test_gain_within_the_noise_floor_is_neutral() -> None:
    result = verdict([98.5, 98.6, 98.7])  # +1.4% < 2% floor
    assert result.verdict is Verdict.NEUTRAL and "noise floor" in result.reason


def test_slower_is_neutral() -> None:
    result = verdict([110.0, 110.5, 111.0])
    assert result.verdict is Verdict.NEUTRAL and "slower" in result.reason


def test_gain_within_measurement_noise_is_inconclusive() -> None:
    # frontier 100 with a 16% range (noise 8%); a 5% gain cannot be told from noise
    result = verdict([95.0, 95.2, 95.4], frontier=[92.0, 100.0, 108.0], max_spread=0.5)
    assert result.verdict is Verdict.INCONCLUSIVE and "measurement noise" in result.reason


def test_huge_spread_is_inconclusive_and_noisy() -> None:
    result = verdict([40.0, 80.0, 120.0])
    assert result.verdict is Verdict.INCONCLUSIVE and result.stability == "noisy"
    assert "spread" in result.reason


def test_spread_exactly_at_the_limit_is_not_noisy() -> None:
    result = verdict([76.0, 80.0, 84.0], max_spread=0.10)  # spread exactly 10%
    assert result.stability == "stable" and result.verdict is Verdict.KEPT


def test_more_than_10x_is_flagged_and_held_for_review() -> None:
    result = verdict([9.0, 9.1, 9.05])
    # held: never kept (nor the frontier) on the numbers alone
    assert result.verdict is Verdict.INCONCLUSIVE and result.held
    assert result.reason.startswith("held for review")
    assert result.flags and "review" in result.flags[0] and "11.0x" in result.flags[0]
    assert verdict([10.0, 10.0, 10.0]).flags == ()  # exactly 10x is not above


def test_frontier_without_valid_samples() -> None:
    result = verdict([80.0, 81.0], frontier=[])
    assert result.verdict is Verdict.INCONCLUSIVE


def test_invalid_sample_reason_accepts_good_sets() -> None:
    assert invalid_sample_reason([1.0, 2.0]) is None
    assert "not a number" in (invalid_sample_reason([True]) or "")  # type: ignore[list-item]


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


def test_kept_reason_prints_the_gain_and_noise_apart() -> None:
    """Just above the 2% noise floor: not "+2.0% exceeds the noise 2.0%"."""
    import re

    result = verdict([98.03, 98.03, 98.03])  # gain +2.0096%
    assert result.verdict is Verdict.KEPT
    assert re.fullmatch(r"gain \+2\.0[1-9]% over the frontier exceeds the noise 2\.00%",
                        result.reason), result.reason
