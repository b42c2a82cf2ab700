"""What the chart shows, decided without drawing (pto_tui.core.summary.chart_model)."""

from __future__ import annotations

import pytest

from pto_tui.core.errors import InputError
from pto_tui.core.summary.chart_model import axis_slots, build_model, chart_rounds, milestones
from pto_tui.core.summary.chart_scales import LOG_RATIO, choose_units, use_log_scale
from tests.chart.builders import (
    PHASES,
    TORCH,
    F,
    K,
    N,
    baseline,
    eight_rounds,
    forty_rounds,
    make_round,
    open_round,
)


def test_no_rounds_is_a_clear_error() -> None:
    with pytest.raises(InputError, match="no closed rounds"):
        chart_rounds([])


def test_open_baseline_only_is_a_clear_error() -> None:
    with pytest.raises(InputError, match="no closed rounds"):
        chart_rounds([open_round(0)])


def test_rounds_without_baseline_measurement_are_refused() -> None:
    with pytest.raises(InputError, match="baseline"):
        chart_rounds([make_round(1, K, 500.0)])


def test_speedups_frontier_and_rounds_without_valid_numbers() -> None:
    charted = chart_rounds(eight_rounds())
    by = {r.number: r for r in charted}
    assert [r.number for r in charted] == list(range(8))
    assert by[0].verdict == "baseline" and by[0].speedup == pytest.approx(1.0)
    assert by[1].speedup == pytest.approx(1000 / 700)
    # failed build and failed correctness: no number, the reason is kept
    assert by[3].median_us is None and by[3].reason == "build failed"
    assert by[6].median_us is None and by[6].reason == "incorrect"
    # the frontier only moves on kept rounds: the inconclusive 440 does not count
    assert [by[n].frontier_us for n in range(8)] == [1000, 700, 700, 700, 450, 450, 450, 400]
    assert by[7].frontier_speedup == pytest.approx(2.5)


def test_open_rounds_are_not_charted() -> None:
    rounds = [*eight_rounds(), open_round(8)]
    assert [r.number for r in chart_rounds(rounds)] == list(range(8))
    assert build_model(rounds, TORCH, PHASES, "op").open_rounds == [8]


def test_milestones_are_kept_rounds_that_raise_the_frontier() -> None:
    assert milestones(chart_rounds(eight_rounds())) == [1, 4, 7]


def test_many_milestones_keep_the_biggest_gains_and_the_final_best() -> None:
    rounds = [baseline(1000.0)]
    median = 1000.0
    gains = [0.9, 0.5, 0.95, 0.97, 0.6, 0.98, 0.99, 0.96, 0.7, 0.99]
    for n, g in enumerate(gains, start=1):
        median *= g
        rounds.append(make_round(n, K, median))
    chosen = milestones(chart_rounds(rounds), limit=4)
    assert chosen == [2, 5, 9, 10]  # the three biggest gains, and the last (final best)


def test_ten_rounds_or_fewer_are_all_on_the_axis() -> None:
    slots = axis_slots(chart_rounds(eight_rounds()))
    assert [s.shown for s in slots] == list(range(8))
    assert not any(s.folded for s in slots)
    assert [s.label for s in slots] == [str(n) for n in range(8)]


def test_forty_rounds_fold_runs_into_representatives() -> None:
    charted = chart_rounds(forty_rounds())
    slots = axis_slots(charted)
    shown = [s.shown for s in slots]
    # every round belongs to exactly one run; the axis is much shorter than 40
    covered = sorted({n for s in slots for n in s.covers})
    assert covered == list(range(40))
    assert len(slots) < 20
    # key rounds: the baseline, every kept round, the final best
    for n in (0, 3, 9, 10, 18, 27, 35):
        assert n in shown
        assert not next(s for s in slots if s.shown == n).folded
    # run 19-26 (neutral, a failure at 20, an inconclusive at 21): the typical failure
    # and the fastest correct round stand for it, labelled with the fold
    run = [s for s in slots if s.covers == tuple(range(19, 27))]
    assert [s.shown for s in run] == [20, 21]
    assert all("19-26" in s.label and "(8 folded)" in s.label for s in run)
    # the trailing run of neutral rounds keeps one representative (no failure in it)
    tail = [s for s in slots if 39 in s.covers]
    assert len(tail) == 1 and tail[0].covers == (36, 37, 38, 39)
    # short runs (1-2 rounds) stay unfolded
    assert next(s for s in slots if s.shown == 1).covers == (1,)


def test_only_failures_keep_the_baseline_as_best() -> None:
    rounds = [baseline(1000.0)] + [make_round(n, F, None, build="failed") for n in range(1, 13)]
    model = build_model(rounds, None, PHASES, "op")
    assert model.best.number == 0
    assert model.milestones == []
    assert model.counts["failure"] == 12
    assert "no round beat the initial PTO version" in model.conclusion
    assert "torch_npu not measured" in model.header
    assert model.slots[0].shown == 0
    assert {n for s in model.slots for n in s.covers} == set(range(13))
    assert [s.shown for s in model.slots] == [0, 1]  # one run, one typical failure


def test_units_switch_to_ms_at_ten_milliseconds() -> None:
    assert choose_units([500.0, 9_999.0]).name == "us"
    assert choose_units([500.0, 12_000.0]).name == "ms"
    assert choose_units([12_000.0]).scale == 1000.0


def test_log_scale_when_the_range_is_wide() -> None:
    assert not use_log_scale([100.0, 100.0 * LOG_RATIO])
    assert use_log_scale([100.0, 100.0 * LOG_RATIO * 1.01])
    assert not use_log_scale([])


def test_model_texts() -> None:
    model = build_model(eight_rounds(), TORCH, PHASES, "fa")
    assert model.header.startswith("7 rounds after the baseline")
    assert "kept 3, neutral 1, failure 2, inconclusive 1" in model.header
    assert "final speedup 2.50x" in model.header
    assert "2.22x slower than torch_npu" in model.header
    assert "PTO initial (iter-000): 1000.0 us" in model.footer
    assert "PTO best (iter-007): 400.0 us" in model.footer
    assert "torch_npu: avg 180.0 us" in model.footer
    assert model.conclusion.startswith("Conclusion: iter-007 (BLOCK_DIM 8)")
    assert model.phases == list(PHASES)


def test_phase_order_follows_the_configuration_and_skips_unused_phases() -> None:
    rounds = [baseline(1000.0), make_round(1, N, 1010.0, phase="手工 phase")]
    rounds.append(make_round(2, N, 1020.0, phase="fine-tune"))
    model = build_model(rounds, None, PHASES, "fa")
    assert model.phases == ["baseline", "fine-tune", "手工 phase"]


def test_neutral_round_faster_than_torch_reads_faster() -> None:
    rounds = [baseline(1000.0), make_round(1, K, 90.0), make_round(2, N, 95.0)]
    model = build_model(rounds, TORCH, PHASES, "fa")
    assert "2.00x faster than torch_npu" in model.header
    assert model.log_scale  # 1000 / 90 > 10
