"""report.json as the pto-kernels runner writes it, read from fixtures in its structure:
the top-level status is the spec's maturity, the outcome is pto.benchmark, dry runs and
variant_reports are read for what they are."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from pto_tui.core.reports.parsers import ReportError, parse_report_json

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "runner_reports"
SOURCE = "bench/results/gmm/grouped_matmul/20260312T101500Z/report.json"


def fixture(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    return data


def parse(data: dict[str, Any], flops: float | None = None):
    return parse_report_json(json.dumps(data), SOURCE, flops)


def rejection(data: dict[str, Any]) -> str:
    with pytest.raises(ReportError) as info:
        parse(data)
    text = info.value.render()
    assert SOURCE in text
    return text


def test_planned_spec_with_an_ok_benchmark_is_a_result() -> None:
    result = parse(fixture("grouped_matmul_planned_ok.json"), flops=2 * 128 * 128 * 128)
    assert result.correct and result.detail == ""
    assert result.spec_status == "planned"
    assert result.duration_us == pytest.approx(183.3)
    assert (result.min_us, result.max_us) == (pytest.approx(179.0), pytest.approx(205.1))
    assert result.reference_us == pytest.approx(37.1)
    assert result.max_abs_diff == pytest.approx(1.52587890625e-05)
    assert result.tflops == pytest.approx(2 * 128**3 / 183.3e-6 / 1e12)
    assert result.extra["baseline_status"] == "ok" and result.extra["compile_status"] == "ready"
    assert result.extra["variant"]["m"] == 128 and result.extra["device"]["soc"] == "ascend910b"
    assert result.variants == ()  # a single-variant report has no variant_reports


def test_blocked_baseline_is_recorded_not_an_error() -> None:
    result = parse(fixture("grouped_matmul_baseline_blocked.json"))
    assert result.correct and result.duration_us == pytest.approx(183.3)
    assert result.reference_us is None
    assert result.extra["baseline_status"] == "blocked"
    assert "aclnnGroupedMatmulV5 failed" in result.extra["baseline_reason"]


def test_blocked_pto_benchmark_names_the_status_its_reason_and_the_compile() -> None:
    text = rejection(fixture("flash_attention_score_pto_blocked.json"))
    assert "[pto.benchmark.status] PTO benchmark blocked: PTO compile failed: ptoas exited" in text
    assert "pto.compile.status is 'blocked'" in text


def test_a_failed_benchmark_status_is_a_failure_too() -> None:
    data = fixture("grouped_matmul_planned_ok.json")
    data["pto"]["benchmark"] = {"status": "failed", "reason": "kernel.so not found"}
    assert "PTO benchmark failed: kernel.so not found" in rejection(data)


def test_dry_run_is_named_as_such() -> None:
    text = rejection(fixture("grouped_matmul_dry_run.json"))
    assert "[dry_run] a dry run (dry_run = true): nothing was compiled or measured" in text
    assert "run the benchmark without --dry-run" in text


def test_no_benchmark_section_without_dry_run_names_the_key() -> None:
    data = fixture("grouped_matmul_dry_run.json")
    data["dry_run"] = False
    text = rejection(data)
    assert "missing key 'pto.benchmark'" in text and "pto.compile.status is 'absent'" in text


def test_every_variant_report_is_read() -> None:
    result = parse(fixture("flash_attention_score_variants.json"))
    assert result.correct and result.detail == "" and result.failing_variants == ()
    # the aggregate (the slowest variant's median) stays the sample
    assert result.duration_us == pytest.approx(110.4)
    assert (result.min_us, result.max_us) == (pytest.approx(78.8), pytest.approx(120.7))
    assert [v.index for v in result.variants] == [0, 1, 2]
    assert [v.variant["seq_len"] for v in result.variants] == [32, 64, 32]
    assert [v.median_us for v in result.variants] == pytest.approx([80.2, 110.4, 89.3])
    last = result.variants[2]
    assert (last.min_us, last.max_us) == (pytest.approx(87.1), pytest.approx(99.8))
    assert result.variants[1].max_abs_diff == pytest.approx(0.0009765625)
    assert result.variants[0].shape_summary["scores"] == [32, 32]
    assert result.variants[2].label.startswith("variant_reports[2] (batch=1, dtype=float16, head_dim=128")
    assert len(result.extra["variant"]) == 3  # `variants`, the list of shapes


def test_a_variant_failing_while_the_aggregate_passes_is_said() -> None:
    data = fixture("flash_attention_score_variants.json")
    data["pto"]["benchmark"]["variant_reports"][1]["correctness"]["max_abs_diff"] = 0.0625
    result = parse(data)
    assert result.correct  # what the report says; the detail says what it hides
    assert [v.index for v in result.failing_variants] == [1]
    assert "the aggregate correctness passes (atol 0.002, rtol 0.001) but 1 variant(s) fail" in result.detail
    assert "variant_reports[1] (batch=1" in result.detail and "max_abs_diff 0.0625" in result.detail


def test_a_variant_judged_false_by_its_adapter_fails() -> None:
    data = fixture("flash_attention_score_variants.json")
    data["pto"]["benchmark"]["variant_reports"][0]["correctness"]["passes"] = False
    result = parse(data)
    assert [v.index for v in result.failing_variants] == [0] and "(passes false)" in result.detail


def test_failed_aggregate_lists_the_failing_variants() -> None:
    data = fixture("flash_attention_score_variants.json")
    data["pto"]["benchmark"]["variant_reports"][2]["correctness"]["max_abs_diff"] = 0.5
    data["pto"]["benchmark"]["correctness"].update(max_abs_diff=0.5, passes=False)
    result = parse(data)
    assert not result.correct
    assert result.detail.startswith("correctness failed: max_abs_diff 0.5 (atol 0.002, rtol 0.001)")
    assert "failing: variant_reports[2]" in result.detail


def test_variant_without_median_is_named_by_index() -> None:
    text = rejection(fixture("flash_attention_score_variant_without_median.json"))
    assert "[pto.benchmark.variant_reports[1].timings_ms.median] missing key" in text


def _edit(entry: int, change: Any) -> dict[str, Any]:
    data = fixture("flash_attention_score_variants.json")
    reports = data["pto"]["benchmark"]["variant_reports"]
    if callable(change):
        change(reports[entry])
    else:
        reports[entry] = change
    return data


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (_edit(2, "fast"), "'pto.benchmark.variant_reports[2]' is not an object"),
        (
            _edit(0, lambda e: e.pop("timings_ms")),
            "missing key 'pto.benchmark.variant_reports[0].timings_ms'",
        ),
        (
            _edit(1, lambda e: e["timings_ms"].update(median="slow")),
            "'pto.benchmark.variant_reports[1].timings_ms.median' is not a finite number",
        ),
        (
            _edit(1, lambda e: e["timings_ms"].update(min=math.inf)),
            "'pto.benchmark.variant_reports[1].timings_ms.min' is not a finite number",
        ),
        (
            _edit(2, lambda e: e.pop("correctness")),
            "missing key 'pto.benchmark.variant_reports[2].correctness.max_abs_diff'",
        ),
        (
            _edit(0, lambda e: e["correctness"].update(max_abs_diff=None)),
            "'pto.benchmark.variant_reports[0].correctness.max_abs_diff' is not a finite number",
        ),
        (
            _edit(0, lambda e: e["correctness"].update(passes="yes")),
            "'pto.benchmark.variant_reports[0].correctness.passes' is not true/false",
        ),
        (
            _edit(1, lambda e: e.update(variant=[64, 64])),
            "'pto.benchmark.variant_reports[1].variant' is not an object",
        ),
        (
            _edit(1, lambda e: e.update(status="blocked", reason="rank 3 timed out")),
            "'pto.benchmark.variant_reports[1].status' is 'blocked' (rank 3 timed out)",
        ),
    ],
)
def test_malformed_variant_reports(data: dict[str, Any], message: str) -> None:
    assert message in rejection(data)


def test_variant_reports_not_a_list() -> None:
    data = fixture("flash_attention_score_variants.json")
    data["pto"]["benchmark"]["variant_reports"] = {"0": {}}
    assert "[pto.benchmark.variant_reports] 'pto.benchmark.variant_reports' is not a list" in rejection(data)


def test_fixtures_keep_the_runner_structure() -> None:
    """The fixtures stay faithful to what the runner writes: its top-level keys, a spec status
    that is a maturity, and dry runs without compile/benchmark sections."""
    runner_keys = {"name", "family", "wave", "inventory_ref", "status", "device", "bench", "correctness",
                   "capture_msprof", "baseline", "pto", "artifacts_dir", "dry_run", "report_path"}
    for path in sorted(FIXTURES.glob("*.json")):
        data = fixture(path.name)
        assert runner_keys <= data.keys(), path.name
        assert data["status"] in ("planned", "prototype"), path.name
        assert ("benchmark" in data["pto"]) is (not data["dry_run"]), path.name


REAL_VARIANTS = "flash_attention_score_b1_n1_s32_d64.json"


def _set(path: str, value: float) -> dict[str, Any]:
    """The real three-variant report with one timing (dotted path, list indices as ints) set."""
    data = fixture(REAL_VARIANTS)
    *parents, last = path.split(".")
    node: Any = data
    for part in parents:
        node = node[int(part)] if part.isdigit() else node[part]
    node[last] = value
    return data


def test_a_report_of_several_variants_keeps_each_side_s_entries() -> None:
    result = parse(fixture(REAL_VARIANTS))
    assert result.duration_us == pytest.approx(84.8)  # the aggregate: the slowest variant's median
    assert [v.median_us for v in result.variants] == pytest.approx([30.1, 84.8, 47.2])
    assert [v.median_us for v in result.reference_variants] == pytest.approx([41.2, 65.5, 53.7])
    assert result.reference_variants[2].variant["head_dim"] == 128


@pytest.mark.parametrize(
    ("path", "value", "field", "message"),
    [
        ("pto.benchmark.timings_ms.min", 0.09, "pto.benchmark.timings_ms.min", "(0.09 ms) is above"),
        (
            "pto.benchmark.variant_reports.0.timings_ms.max",
            0.0290,
            "pto.benchmark.variant_reports[0].timings_ms.median",
            "(0.0301 ms) is above 'pto.benchmark.variant_reports[0].timings_ms.max' (0.029 ms)",
        ),
        (
            "baseline.benchmark.timings_ms.min",
            0.08,
            "baseline.benchmark.timings_ms.min",
            "is above 'baseline.benchmark.timings_ms.median'",
        ),
        (
            "baseline.benchmark.variant_reports.1.timings_ms.min",
            0.07,
            "baseline.benchmark.variant_reports[1].timings_ms.min",
            "is above 'baseline.benchmark.variant_reports[1].timings_ms.median'",
        ),
    ],
)
def test_timings_out_of_order_are_refused_naming_the_field(
    path: str, value: float, field: str, message: str
) -> None:
    text = rejection(_set(path, value))
    assert f"[{field}]" in text and message in text and "min <= median <= max" in text


def test_a_flat_or_single_variant_report_in_order_is_accepted() -> None:
    data = fixture("grouped_matmul_planned_ok.json")
    data["pto"]["benchmark"]["timings_ms"] = {"median": 0.1833, "min": 0.1833, "max": 0.1833}
    assert parse(data).duration_us == pytest.approx(183.3)  # equal values keep the order


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        # below every variant's median (30.1, 84.8, 47.2 us), yet above the aggregate min
        ("pto.benchmark.timings_ms.median", 0.0295, "'pto.benchmark.timings_ms.median' (0.0295 ms) is below"),
        ("pto.benchmark.timings_ms.median", 0.0900, "'pto.benchmark.timings_ms.median' (0.09 ms) is above"),
        ("pto.benchmark.timings_ms.max", 0.2, "'pto.benchmark.timings_ms.max' (0.2 ms) is above every"),
        ("baseline.benchmark.timings_ms.median", 0.04, "'baseline.benchmark.timings_ms.median' (0.04 ms) is"),
    ],
)
def test_an_aggregate_outside_its_variants_is_refused(path: str, value: float, message: str) -> None:
    text = rejection(_set(path, value))
    assert message in text and "does not add up from its variants" in text


def test_an_aggregate_equal_to_one_of_its_variants_adds_up() -> None:
    """The adapters' aggregate: the highest median, the lowest min, the highest max."""
    result = parse(fixture(REAL_VARIANTS))
    assert (result.min_us, result.max_us) == (pytest.approx(28.8), pytest.approx(93.2))
