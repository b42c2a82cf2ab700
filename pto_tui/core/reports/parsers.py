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
from dataclasses import dataclass
from typing import Any

from pto_tui.core.reports.fields import finite_number, get_key, tflops_from
from pto_tui.core.reports.result import BenchResult, ReportError, VariantReport
from pto_tui.core.reports.runner_report import parse_runner_report

__all__ = [
    "TILELIB_CSV_HEADER",
    "BenchResult",
    "CsvRow",
    "ReportError",
    "TileLibOutput",
    "VariantReport",
    "attention_flops",
    "count_csv_rows",
    "parse_report_csv",
    "parse_report_json",
    "parse_tilelib_output",
]

TILELIB_CSV_HEADER = (
    "case,HEAD,S0,S1,CUBE_S0,CUBE_S1,TILE_S1,start_time,end_time,duration_us,avg_block_us,GOPS,TFLOPS,result"
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
        return parse_runner_report(data, source, flops)
    if "correctness" in data or "duration_ms" in data:
        return _parse_flat(data, source, flops)
    raise ReportError(
        "unknown report schema: expected the runner's 'pto' section or the flat "
        "'correctness' + 'duration_ms' keys",
        file=source,
    )


def _parse_flat(data: dict[str, Any], source: str, flops: float | None) -> BenchResult:
    passes = get_key(data, "correctness.passes", source)
    if not isinstance(passes, bool):
        raise ReportError("'correctness.passes' is not true/false", file=source, key="correctness.passes")
    duration = finite_number(get_key(data, "duration_ms", source), "duration_ms", source) * 1000.0
    tflops_raw = data.get("TFLOPS")
    if tflops_raw is None:
        tflops = tflops_from(duration, flops)
    else:
        tflops = finite_number(tflops_raw, "TFLOPS", source)
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
