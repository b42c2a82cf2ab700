"""Parsers of what the operators' benchmarks write (FORMATS.md §2, §3). Pure functions.

Every malformed input becomes a ReportError naming the file and the missing or bad
key; a caller turns it into a failure verdict with that reason, never a crash or a
silent pass.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from pto_tui.core.errors import PtoError

TILELIB_CSV_HEADER = (
    "case,HEAD,S0,S1,CUBE_S0,CUBE_S1,TILE_S1,start_time,end_time,duration_us,avg_block_us,GOPS,TFLOPS,result"
)


class ReportError(PtoError):
    """A result file that cannot be read as a benchmark result."""


@dataclass(frozen=True)
class BenchResult:
    """One benchmark run of the PTO kernel, durations in microseconds."""

    correct: bool
    duration_us: float  # the run's statistic (median for the runner)
    min_us: float | None = None
    max_us: float | None = None
    reference_us: float | None = None  # the report's own baseline (e.g. torch) when present
    tflops: float | None = None
    max_abs_diff: float | None = None
    detail: str = ""  # why correctness failed, or other notes
    extra: dict[str, Any] = field(default_factory=dict)


def _get(data: Any, path: str, source: str) -> Any:
    node = data
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            raise ReportError(f"missing key '{path}'", file=source, key=path)
        node = node[part]
    return node


def _number(value: Any, path: str, source: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ReportError(f"'{path}' is not a finite number: {value!r}", file=source, key=path)
    return float(value)


def _ms_timings(data: Any, path: str, source: str) -> tuple[float, float | None, float | None]:
    timings = _get(data, path, source)
    median = _number(_get(timings, "median", f"{source}"), f"{path}.median", source)
    low = timings.get("min") if isinstance(timings, dict) else None
    high = timings.get("max") if isinstance(timings, dict) else None
    return (
        median * 1000.0,
        _number(low, f"{path}.min", source) * 1000.0 if low is not None else None,
        _number(high, f"{path}.max", source) * 1000.0 if high is not None else None,
    )


def parse_report_json(text: str, source: str, flops: float | None = None) -> BenchResult:
    """report.json in the pto-kernels runner schema or the flat schema of simpler scripts.

    TFLOPS is computed from the case's FLOP count when the report has none.
    """
    if not text.strip():
        raise ReportError("report is empty", file=source)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ReportError(
            f"not valid JSON ({error.msg} at line {error.lineno}); truncated?", file=source, line=error.lineno
        ) from None
    if not isinstance(data, dict):
        raise ReportError("report is not a JSON object", file=source)
    if "pto" in data:
        return _parse_runner(data, source, flops)
    if "correctness" in data or "duration_ms" in data:
        return _parse_flat(data, source, flops)
    raise ReportError(
        "unknown report schema: expected the runner's 'pto' section or the flat "
        "'correctness' + 'duration_ms' keys",
        file=source,
    )


def _tflops(duration_us: float, flops: float | None) -> float | None:
    return flops / (duration_us * 1e-6) / 1e12 if flops and duration_us > 0 else None


def _parse_runner(data: dict[str, Any], source: str, flops: float | None) -> BenchResult:
    status = data.get("status")
    if status not in (None, "ok"):
        raise ReportError(
            f"report status is {status!r}: {data.get('reason', 'no reason given')}", file=source
        )
    bench_status = _get(data, "pto.benchmark.status", source)
    if bench_status != "ok":
        reason = data["pto"]["benchmark"].get("reason", "no reason given")
        raise ReportError(f"PTO benchmark {bench_status}: {reason}", file=source, key="pto.benchmark.status")
    passes = _get(data, "pto.benchmark.correctness.passes", source)
    if not isinstance(passes, bool):
        raise ReportError(
            f"'pto.benchmark.correctness.passes' is not true/false: {passes!r}",
            file=source,
            key="pto.benchmark.correctness.passes",
        )
    median, low, high = _ms_timings(data, "pto.benchmark.timings_ms", source)
    reference = None
    baseline = data.get("baseline", {}).get("benchmark", {}) if isinstance(data.get("baseline"), dict) else {}
    if baseline.get("status") == "ok":
        reference = _ms_timings(data, "baseline.benchmark.timings_ms", source)[0]
    correctness = data["pto"]["benchmark"]["correctness"]
    diff = correctness.get("max_abs_diff")
    detail = ""
    if not passes:
        tolerance = f"atol {correctness.get('atol')}, rtol {correctness.get('rtol')}"
        detail = f"correctness failed: max_abs_diff {diff} ({tolerance})"
    return BenchResult(
        correct=passes,
        duration_us=median,
        min_us=low,
        max_us=high,
        reference_us=reference,
        tflops=_tflops(median, flops),
        max_abs_diff=float(diff) if isinstance(diff, int | float) else None,
        detail=detail,
        extra={"baseline_status": baseline.get("status", "absent"), "device": data.get("device", {})},
    )


def _parse_flat(data: dict[str, Any], source: str, flops: float | None) -> BenchResult:
    passes = _get(data, "correctness.passes", source)
    if not isinstance(passes, bool):
        raise ReportError("'correctness.passes' is not true/false", file=source, key="correctness.passes")
    duration = _number(_get(data, "duration_ms", source), "duration_ms", source) * 1000.0
    tflops_raw = data.get("TFLOPS")
    tflops = _number(tflops_raw, "TFLOPS", source) if tflops_raw is not None else _tflops(duration, flops)
    return BenchResult(
        correct=passes,
        duration_us=duration,
        tflops=tflops,
        detail="" if passes else "correctness failed (correctness.passes is false)",
    )


# ---------------------------------------------------------------- PTO-tile-lib


@dataclass(frozen=True)
class TileLibOutput:
    correct: bool | None  # None: neither "test success" nor "test failed" was printed
    max_diff: str = ""
    no_case_matched: bool = False


def parse_tilelib_output(text: str) -> TileLibOutput:
    """Correctness from the binary's output. The exit code is 0 even when the test fails,
    so only these lines count."""
    success = re.search(r"^\s*test success\s*$", text, re.M) is not None
    failed = re.search(r"^\s*test failed\s*$", text, re.M) is not None
    diff = re.findall(r"max diff:\s*(\S+)", text)
    correct = None if success == failed else success and not failed
    if success and failed:
        correct = False  # several cases, one failed: the run failed
    return TileLibOutput(
        correct=correct,
        max_diff=diff[-1] if diff else "",
        no_case_matched="No cases matched" in text,
    )


@dataclass(frozen=True)
class CsvRow:
    case: str
    duration_us: float
    tflops: float | None
    ok: bool


def parse_report_csv(text: str, source: str, skip_rows: int = 0) -> list[CsvRow]:
    """Rows of report.csv after the first `skip_rows` data rows (those of earlier runs:
    the file is appended to on every run)."""
    if not text.strip():
        raise ReportError("report.csv is empty", file=source)
    reader = csv.reader(io.StringIO(text))
    header = next(reader)
    expected = TILELIB_CSV_HEADER.split(",")
    missing = [c for c in ("case", "duration_us", "TFLOPS", "result") if c not in header]
    if missing:
        raise ReportError(f"report.csv header lacks {', '.join(missing)}", file=source, line=1)
    index = {name: header.index(name) for name in expected if name in header}
    rows: list[CsvRow] = []
    for number, row in enumerate(reader, start=2):
        if not row or row == header:
            continue
        if len(row) != len(header):
            raise ReportError(
                f"row has {len(row)} fields, the header {len(header)} (truncated?)", file=source, line=number
            )
        rows.append(_csv_row(row, index, source, number))
    return rows[skip_rows:]


def _csv_row(row: list[str], index: dict[str, int], source: str, line: int) -> CsvRow:
    try:
        duration = float(row[index["duration_us"]])
    except ValueError:
        raise ReportError(
            f"duration_us {row[index['duration_us']]!r} is not a number", file=source, line=line
        ) from None
    if not math.isfinite(duration):
        raise ReportError("duration_us is not finite", file=source, line=line)
    tflops_text = row[index["TFLOPS"]].strip()
    try:
        tflops = None if tflops_text in ("", "NA", "nan") else float(tflops_text)
    except ValueError:
        raise ReportError(f"TFLOPS {tflops_text!r} is not a number or NA", file=source, line=line) from None
    result = row[index["result"]].strip()
    if result not in ("OK", "NOK"):
        raise ReportError(f"result {result!r} is neither OK nor NOK", file=source, line=line)
    return CsvRow(case=row[index["case"]], duration_us=duration, tflops=tflops, ok=result == "OK")


def count_csv_rows(text: str) -> int:
    """Data rows already in report.csv (so the next run's rows can be told apart)."""
    if not text.strip():
        return 0
    lines = [line for line in text.splitlines() if line.strip()]
    return max(0, len(lines) - 1)


def attention_flops(batch: int, heads: int, s_q: int, s_kv: int, head_dim: int, causal: bool) -> float:
    """FORMATS.md §5: 4 * B * N * S_q * S_kv * D, halved when causal."""
    flops = 4.0 * batch * heads * s_q * s_kv * head_dim
    return flops / 2 if causal else flops
