"""Typed values read out of parsed JSON, every bad one a ReportError naming its key."""

from __future__ import annotations

import math
import statistics
from typing import Any

from pto_tui.core.numbers import MAX_TFLOPS, MAX_US, MIN_US, NUMBER_TEXT, quantity_problem
from pto_tui.core.reports.result import ReportError


def _joined(at: str, path: str) -> str:
    return f"{at}.{path}" if at else path


def get_key(data: Any, path: str, source: str, *, at: str = "") -> Any:
    """The value at dotted `path` below `data`; `at` is where `data` itself sits in the file."""
    node = data
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            full = _joined(at, path)
            raise ReportError(f"missing key '{full}'", file=source, key=full)
        node = node[part]
    return node


def finite_number(value: Any, key: str, source: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ReportError(f"'{key}' is not a finite number: {value!r}", file=source, key=key)
    try:
        number = float(value)
    except OverflowError:  # an integer of hundreds of digits
        raise ReportError(f"'{key}' is not a finite number: an integer of {len(str(value))} digits",
                          file=source, key=key) from None
    if not math.isfinite(number):
        raise ReportError(f"'{key}' is not a finite number: {value!r}", file=source, key=key)
    return number


def duration_ms(value: Any, key: str, source: str) -> float:
    """A measured duration: finite, above zero (a run takes time), and not absurd (a
    picosecond to eleven days)."""
    number = finite_number(value, key, source)
    if number <= 0:
        raise ReportError(f"'{key}' is not a duration above zero: {value!r}", file=source, key=key)
    if not MIN_US <= number * 1000.0 <= MAX_US:
        raise ReportError(
            f"'{key}' is {number:g} ms: not a measured duration ({MIN_US / 1000:g} to "
            f"{MAX_US / 1000:g} ms)",
            file=source,
            key=key,
        )
    return number


def measured_tflops(value: Any, key: str, source: str) -> float:
    """A reported TFLOPS: finite, zero or more, not absurd."""
    number = finite_number(value, key, source)
    problem = quantity_problem(f"'{key}'", number, high=MAX_TFLOPS, zero_ok=True)
    if problem:
        raise ReportError(problem, file=source, key=key)
    return number


def max_abs_diff(value: Any, key: str, source: str) -> float:
    """A correctness difference: finite and zero or more."""
    number = finite_number(value, key, source)
    if number < 0:
        raise ReportError(f"'{key}' is {number:g}: a difference is 0 or more", file=source, key=key)
    return number


def number_text(text: str, key: str, source: str, line: int) -> float:
    """A number written in a text report (report.csv), in the syntax benchmarks write."""
    stripped = text.strip()
    if not NUMBER_TEXT.fullmatch(stripped):
        raise ReportError(f"{key} {text!r} is not a number", file=source, line=line, key=key)
    return float(stripped)


def optional_bool(value: Any, key: str, source: str) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    raise ReportError(f"'{key}' is not true/false: {value!r}", file=source, key=key)


Timings = tuple[float, float | None, float | None]


def ms_timings(data: Any, path: str, source: str, *, at: str = "") -> Timings:
    """(median, min, max) in microseconds from a `timings_ms` object; min and max may be absent."""
    key = _joined(at, path)
    timings = get_key(data, path, source, at=at)
    median = duration_ms(get_key(timings, "median", source, at=key), f"{key}.median", source)
    low_raw = timings.get("min") if isinstance(timings, dict) else None
    high_raw = timings.get("max") if isinstance(timings, dict) else None
    low = duration_ms(low_raw, f"{key}.min", source) if low_raw is not None else None
    high = duration_ms(high_raw, f"{key}.max", source) if high_raw is not None else None
    check_order(key, median, low, high, source)
    return (
        median * 1000.0,
        low * 1000.0 if low is not None else None,
        high * 1000.0 if high is not None else None,
    )


def check_order(key: str, median: float, low: float | None, high: float | None, source: str) -> None:
    """min <= median <= max: a report that says otherwise was not written by a measurement
    (or was edited), and none of its numbers can be trusted."""
    pairs = (("min", low, "median", median), ("median", median, "max", high), ("min", low, "max", high))
    for small_name, small, big_name, big in pairs:
        if small is not None and big is not None and small > big:
            raise ReportError(
                f"'{key}.{small_name}' ({small:g} ms) is above '{key}.{big_name}' ({big:g} ms): "
                "timings must keep min <= median <= max",
                file=source,
                key=f"{key}.{small_name}",
            )


def tflops_from(duration_us: float, flops: float | None) -> float | None:
    """TFLOPS of `flops` done in `duration_us`; None when either cannot give a number."""
    if not flops or not math.isfinite(duration_us) or duration_us < MIN_US:
        return None
    tflops = flops / (duration_us * 1e-6) / 1e12
    return tflops if math.isfinite(tflops) else None


def tflops_at_median(samples_us: list[float], duration_us: float, tflops: float) -> float:
    """TFLOPS at the median duration, from one run's: the workload's FLOPs are the same in
    every run, so TFLOPS scales with 1 / duration."""
    return tflops * duration_us / statistics.median(samples_us)
