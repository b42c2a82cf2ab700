"""report.json as the pto-kernels benchmark runner writes it (docs/formats.md §2).

The runner copies the spec's maturity (`planned`, `prototype`, ...) into the top-level
`status`: that is information, never the outcome. The outcome is `pto.benchmark.status`
(and `baseline.benchmark.status` for the baseline). A `--dry-run` report has
`dry_run: true` and no `pto.compile` / `pto.benchmark` at all. Multi-variant adapters
add `pto.benchmark.variant_reports` (and `baseline.benchmark.variant_reports`), one entry
per shape; their aggregate `timings_ms` (the slowest variant's median, the lowest min, the
highest max) must lie within its variants' own timings. Which of them times the case is
the rules' decision (`rules.workload.case_timing`).
"""

from __future__ import annotations

from typing import Any

from pto_tui.core.reports.fields import get_key, max_abs_diff, ms_timings, optional_bool, tflops_from
from pto_tui.core.reports.result import BenchResult, ReportError, VariantReport

PTO_BENCHMARK = "pto.benchmark"
VARIANT_REPORTS = f"{PTO_BENCHMARK}.variant_reports"
BASELINE_BENCHMARK = "baseline.benchmark"
# a relative slack for an aggregate equal to one of its variants' values, written with
# other rounding
_SLACK = 1e-9


def parse_runner_report(data: dict[str, Any], source: str, flops: float | None) -> BenchResult:
    if data.get("dry_run") is True:
        raise ReportError(
            "a dry run (dry_run = true): nothing was compiled or measured; "
            "run the benchmark without --dry-run",
            file=source,
            key="dry_run",
        )
    benchmark = _pto_benchmark(data, source)
    passes = get_key(benchmark, "correctness.passes", source, at=PTO_BENCHMARK)
    if not isinstance(passes, bool):
        key = f"{PTO_BENCHMARK}.correctness.passes"
        raise ReportError(f"'{key}' is not true/false: {passes!r}", file=source, key=key)
    median, low, high = ms_timings(benchmark, "timings_ms", source, at=PTO_BENCHMARK)
    correctness = benchmark["correctness"]
    variants = parse_variant_reports(benchmark, source)
    check_aggregate((median, low, high), variants, source, PTO_BENCHMARK)
    failing = failing_variants(variants, correctness.get("atol"))
    diff = _checked_diff(correctness, passes, source)
    baseline_status, baseline_reason, reference, reference_variants = _baseline(data, source)
    extra: dict[str, Any] = {
        "baseline_status": baseline_status,
        "device": data.get("device", {}),
        "compile_status": _compile_status(data)[0],
        "variant": benchmark.get("variant", benchmark.get("variants")),
    }
    if baseline_reason:
        extra["baseline_reason"] = baseline_reason
    return BenchResult(
        correct=passes,
        duration_us=median,
        min_us=low,
        max_us=high,
        reference_us=reference,
        tflops=tflops_from(median, flops),
        max_abs_diff=diff,
        detail=_correctness_detail(passes, correctness, failing),
        extra=extra,
        spec_status=str(data.get("status") or ""),
        variants=variants,
        failing_variants=failing,
        reference_variants=reference_variants,
    )


def _checked_diff(correctness: dict[str, Any], passes: bool, source: str) -> float | None:
    """`pto.benchmark.correctness.max_abs_diff` when given: finite, 0 or more, and within
    the report's own atol when the report says it passes (the adapters judge the aggregate
    as max_abs_diff <= atol): `passes: true` beside a difference of 1e9 is no pass."""
    key = f"{PTO_BENCHMARK}.correctness.max_abs_diff"
    raw = correctness.get("max_abs_diff")
    if raw is None:
        return None
    diff = max_abs_diff(raw, key, source)
    atol = correctness.get("atol")
    if passes and isinstance(atol, int | float) and not isinstance(atol, bool) and diff > atol:
        raise ReportError(
            f"'{key}' is {diff:g}, above the report's atol {atol:g}, yet "
            f"'{PTO_BENCHMARK}.correctness.passes' is true: the report contradicts itself",
            file=source,
            key=key,
        )
    return diff


def _compile_status(data: dict[str, Any]) -> tuple[str, str]:
    """(status, reason) of `pto.compile`; ("absent", "") when the runner did not compile."""
    pto = data.get("pto")
    compile_ = pto.get("compile") if isinstance(pto, dict) else None
    if not isinstance(compile_, dict):
        return "absent", ""
    return str(compile_.get("status", "absent")), str(compile_.get("reason", ""))


def _pto_benchmark(data: dict[str, Any], source: str) -> dict[str, Any]:
    """`pto.benchmark` when its status is ok; otherwise the failure, naming status and reason."""
    compile_status, compile_reason = _compile_status(data)
    compiled = f"pto.compile.status is {compile_status!r}" + (f": {compile_reason}" if compile_reason else "")
    pto = data["pto"]
    if not isinstance(pto, dict) or not isinstance(pto.get("benchmark"), dict):
        raise ReportError(
            f"missing key '{PTO_BENCHMARK}': the runner did not benchmark the PTO kernel ({compiled})",
            file=source,
            key=PTO_BENCHMARK,
        )
    benchmark: dict[str, Any] = pto["benchmark"]
    status = get_key(benchmark, "status", source, at=PTO_BENCHMARK)
    if status != "ok":
        reason = benchmark.get("reason", "no reason given")
        note = f" ({compiled})" if compile_status != "ready" else ""
        raise ReportError(
            f"PTO benchmark {status}: {reason}{note}", file=source, key=f"{PTO_BENCHMARK}.status"
        )
    return benchmark


def _baseline(
    data: dict[str, Any], source: str
) -> tuple[str, str, float | None, tuple[VariantReport, ...]]:
    """(status, reason, median in us, variant entries) of `baseline.benchmark`. A blocked
    baseline is no error: the report simply has no reference."""
    baseline = data.get("baseline")
    benchmark = baseline.get("benchmark") if isinstance(baseline, dict) else None
    if not isinstance(benchmark, dict):
        return "absent", "", None, ()
    status = str(benchmark.get("status", "absent"))
    if status != "ok":
        return status, str(benchmark.get("reason", "")), None, ()
    timings = ms_timings(benchmark, "timings_ms", source, at=BASELINE_BENCHMARK)
    variants = parse_variant_reports(benchmark, source, at=BASELINE_BENCHMARK, judged=False)
    check_aggregate(timings, variants, source, BASELINE_BENCHMARK)
    return status, "", timings[0], variants


def parse_variant_reports(
    benchmark: dict[str, Any], source: str, *, at: str = PTO_BENCHMARK, judged: bool = True
) -> tuple[VariantReport, ...]:
    """Every entry of `<at>.variant_reports` (none when absent); a malformed entry is a
    ReportError naming it by index. `judged`: each entry must say its max_abs_diff (the PTO
    side; the baseline's is the reference, not judged here)."""
    raw = benchmark.get("variant_reports")
    key = f"{at}.variant_reports"
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise ReportError(f"'{key}' is not a list: {raw!r}", file=source, key=key)
    return tuple(
        _variant_report(entry, f"{key}[{index}]", index, source, judged) for index, entry in enumerate(raw)
    )


def check_aggregate(
    aggregate: tuple[float, float | None, float | None],
    variants: tuple[VariantReport, ...],
    source: str,
    at: str,
) -> None:
    """An aggregate over variants lies within them: each of its median, min and max between
    the lowest and the highest of the variants' own (true of the slowest variant's timings,
    of pooled samples, and of the runner's max-of-medians). One outside was not computed
    from these variants."""
    if not variants:
        return
    stats = (
        ("median", aggregate[0], [v.median_us for v in variants]),
        ("min", aggregate[1], [v.min_us for v in variants]),
        ("max", aggregate[2], [v.max_us for v in variants]),
    )
    for name, value, own in stats:
        values = [v for v in own if v is not None]
        if value is None or len(values) != len(own):
            continue
        low, high = min(values), max(values)
        side = "below" if value < low * (1 - _SLACK) else "above" if value > high * (1 + _SLACK) else ""
        if side:
            key = f"{at}.timings_ms.{name}"
            raise ReportError(
                f"'{key}' ({value / 1000:g} ms) is {side} every variant's {name} "
                f"({low / 1000:g} to {high / 1000:g} ms in {at}.variant_reports): the aggregate "
                "does not add up from its variants",
                file=source,
                key=key,
            )


def _variant_report(entry: Any, at: str, index: int, source: str, judged: bool) -> VariantReport:
    if not isinstance(entry, dict):
        raise ReportError(f"'{at}' is not an object: {entry!r}", file=source, key=at)
    status = entry.get("status", "ok")  # only some adapters (mc2) write a per-variant status
    if status != "ok":
        reason = entry.get("reason", "no reason given")
        side = at.split(".variant_reports")[0]
        raise ReportError(
            f"'{at}.status' is {status!r} ({reason}) while '{side}.status' is 'ok'",
            file=source,
            key=f"{at}.status",
        )
    variant = entry.get("variant", {})
    if not isinstance(variant, dict):
        raise ReportError(f"'{at}.variant' is not an object: {variant!r}", file=source, key=f"{at}.variant")
    median, low, high = ms_timings(entry, "timings_ms", source, at=at)
    diff: float | None = None
    passes: bool | None = None
    if judged:
        diff_key = f"{at}.correctness.max_abs_diff"
        diff = max_abs_diff(get_key(entry, "correctness.max_abs_diff", source, at=at), diff_key, source)
        passes = optional_bool(entry["correctness"].get("passes"), f"{at}.correctness.passes", source)
    return VariantReport(
        index=index,
        variant=variant,
        median_us=median,
        min_us=low,
        max_us=high,
        max_abs_diff=diff,
        passes=passes,
        shape_summary=entry.get("shape_summary"),
    )


def failing_variants(variants: tuple[VariantReport, ...], atol: Any) -> tuple[VariantReport, ...]:
    """Variants that fail on their own: judged false by the adapter, or beyond the report's atol
    (the adapters judge the aggregate as max_abs_diff <= atol)."""
    limit = float(atol) if isinstance(atol, int | float) and not isinstance(atol, bool) else None
    return tuple(
        v
        for v in variants
        if v.passes is False or (limit is not None and v.max_abs_diff is not None and v.max_abs_diff > limit)
    )


def _correctness_detail(passes: bool, correctness: dict[str, Any], failing: tuple[VariantReport, ...]) -> str:
    tolerance = f"atol {correctness.get('atol')}, rtol {correctness.get('rtol')}"
    failed = "; ".join(
        f"{v.label} max_abs_diff {v.max_abs_diff}" + (" (passes false)" if v.passes is False else "")
        for v in failing
    )
    if not passes:
        text = f"correctness failed: max_abs_diff {correctness.get('max_abs_diff')} ({tolerance})"
        return text + (f"; failing: {failed}" if failed else "")
    if failing:
        return (
            f"the aggregate correctness passes ({tolerance}) but {len(failing)} variant(s) fail on "
            f"their own: {failed}"
        )
    return ""
