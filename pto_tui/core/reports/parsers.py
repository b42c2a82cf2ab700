"""Parsers of what the operators' benchmarks write (docs/formats.md §2, §3). Pure functions.

Every malformed input becomes a ReportError naming the file and the missing or bad
key; a caller turns it into a failure verdict with that reason, never a crash or a
silent pass.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from dataclasses import dataclass
from typing import Any

from pto_tui.core.errors import json_depth_problem
from pto_tui.core.numbers import MAX_TFLOPS, MAX_US, MIN_US
from pto_tui.core.reports.fields import duration_ms, get_key, measured_tflops, number_text, tflops_from
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
    "rows_of_this_run",
    "sample_row",
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
    depth = json_depth_problem(text)
    if depth:
        raise ReportError(f"not a report: {depth}", file=source)
    try:
        data = json.loads(text)  # NaN and Infinity parse, and are refused naming their key
    except json.JSONDecodeError as error:
        raise ReportError(
            f"not valid JSON ({error.msg} at line {error.lineno}); truncated?", file=source, line=error.lineno
        ) from None
    except RecursionError:
        raise ReportError("not a report: objects or arrays nested too deeply", file=source) from None
    except ValueError as error:  # e.g. an integer of more digits than Python converts
        raise ReportError(f"not a usable report: {error}", file=source) from None
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
    duration = duration_ms(get_key(data, "duration_ms", source), "duration_ms", source) * 1000.0
    tflops_raw = data.get("TFLOPS")
    if tflops_raw is None:
        tflops = tflops_from(duration, flops)
    else:
        tflops = measured_tflops(tflops_raw, "TFLOPS", source)
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
    successes: int = 0  # "test success" lines: the binary prints one verdict per case it ran
    failures: int = 0


def parse_tilelib_output(text: str) -> TileLibOutput:
    """Correctness from the binary's output. The exit code is 0 even when the test fails,
    so only these lines count."""
    successes = len(re.findall(r"^\s*test success\s*$", text, re.M))
    failures = len(re.findall(r"^\s*test failed\s*$", text, re.M))
    diff = re.findall(r"max diff:\s*(\S+)", text)
    # several cases, one failed: the run failed
    correct = False if failures else (True if successes else None)
    return TileLibOutput(
        correct=correct,
        max_diff=diff[-1] if diff else "",
        no_case_matched="No cases matched" in text,
        successes=successes,
        failures=failures,
    )


@dataclass(frozen=True)
class CsvRow:
    case: str
    duration_us: float
    tflops: float | None
    ok: bool
    line: int = 0  # where it stands in report.csv, for messages


def parse_report_csv(text: str, source: str, skip_rows: int = 0) -> list[CsvRow]:
    """Rows of report.csv after the first `skip_rows` data rows (those of earlier runs:
    the file is appended to on every run)."""
    if not text.strip():
        raise ReportError("report.csv is empty", file=source)
    try:
        return _read_csv(text, source)[skip_rows:]
    except csv.Error as error:  # a NUL byte, a field past the csv module's size limit, ...
        raise ReportError(f"report.csv is not readable CSV: {error}", file=source) from None


def _read_csv(text: str, source: str) -> list[CsvRow]:
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
    return rows


def rows_of_this_run(before: str | None, after: str, source: str) -> list[CsvRow]:
    """The rows a run added to report.csv, given the file before and after it. The binary
    appends; a file that no longer starts with what was there before was replaced by this
    run (pto-isa's run.sh starts from an empty build folder), so all its rows are new."""
    old = before or ""
    skip = count_csv_rows(old) if old.strip() and after.startswith(old) else 0
    return parse_report_csv(after, source, skip_rows=skip)


def file_state(text: str | None) -> str:
    """A result file's state before a run, small enough to keep in the run's job record (a
    run resumed later reads the file only after it): its length and the SHA-256 of its text;
    "" when it is absent or empty."""
    if not text:
        return ""
    return f"{len(text)}:{hashlib.sha256(text.encode()).hexdigest()}"


def rows_after_state(state: str, after: str, source: str) -> list[CsvRow]:
    """rows_of_this_run when what is known of the file before the run is its state
    (file_state): the rows after that text when the file still starts with it, else all."""
    length, _, digest = state.partition(":")
    before = after[: int(length)] if length.isdigit() else None
    if before is not None and hashlib.sha256(before.encode()).hexdigest() == digest:
        return rows_of_this_run(before, after, source)
    return rows_of_this_run(None, after, source)


def sample_row(rows: list[CsvRow], expected: list[str] | None, under: str, source: str) -> CsvRow:
    """The run's sample: the row of the case under tuning, after checking that the run wrote
    one row per expected case, named as expected. `expected` None: the case string does not
    say which cases run, so the row must be the only one or the only one named `under`."""
    found = [row.case for row in rows]
    if expected is not None and sorted(found) != sorted(expected):
        raise ReportError(
            f"this run wrote {len(found)} row(s) ({', '.join(found) or 'none'}); expected "
            f"{len(expected)}, one per case of the case string ({', '.join(expected)})",
            file=source,
        )
    named = rows if len(rows) == 1 and expected is None else [row for row in rows if row.case == under]
    if len(named) != 1:
        what = f"{len(named)} rows are" if named else "no row is"
        raise ReportError(
            f"this run wrote {len(rows)} rows ({', '.join(found) or 'none'}) and {what} for the case "
            f"under tuning {under!r}",
            file=source,
        )
    row = named[0]
    if row.duration_us <= 0:  # main.cpp writes 0 (and TFLOPS NA) when it found no valid timestamps
        raise ReportError(
            f"duration_us of {row.case} is {row.duration_us}: no valid timing", file=source, line=row.line
        )
    return row


def _csv_row(row: list[str], index: dict[str, int], source: str, line: int) -> CsvRow:
    duration = number_text(row[index["duration_us"]], "duration_us", source, line)
    # 0 is main.cpp's "no valid timestamps" (sample_row refuses it with that reason)
    if duration != 0 and not MIN_US <= duration <= MAX_US:
        raise ReportError(
            f"duration_us {duration:g} is not a measured duration ({MIN_US:g} to {MAX_US:g} us)",
            file=source,
            line=line,
            key="duration_us",
        )
    tflops_text = row[index["TFLOPS"]].strip()
    if tflops_text in ("", "NA", "nan"):
        tflops = None
    else:
        tflops = number_text(tflops_text, "TFLOPS", source, line)
        if not 0 <= tflops <= MAX_TFLOPS:
            raise ReportError(
                f"TFLOPS {tflops_text!r} is not a measured TFLOPS", file=source, line=line, key="TFLOPS"
            )
    result = row[index["result"]].strip()
    if result not in ("OK", "NOK"):
        raise ReportError(f"result {result!r} is neither OK nor NOK", file=source, line=line)
    return CsvRow(
        case=row[index["case"]].strip(), duration_us=duration, tflops=tflops, ok=result == "OK", line=line
    )


def count_csv_rows(text: str) -> int:
    """Data rows already in report.csv (so the next run's rows can be told apart)."""
    if not text.strip():
        return 0
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    # counted as parse_report_csv reads them: a repeated header is no data row
    return sum(1 for line in lines[1:] if line != lines[0])


def attention_flops(batch: int, heads: int, s_q: int, s_kv: int, head_dim: int, causal: bool) -> float:
    """docs/formats.md §5: 4 * B * N * S_q * S_kv * D, halved when causal."""
    flops = 4.0 * batch * heads * s_q * s_kv * head_dim
    return flops / 2 if causal else flops
