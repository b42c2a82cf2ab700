"""A run's result read from what its benchmark prints ([result], sections_result.py): the
formats pto-isa's drivers print, or the user's own regular expressions. Pure.

A run's verdict is its pass/fail line (any failed line fails it; a passed line with none
failed passes it; neither: it cannot be told); its time is the time lines', converted to
microseconds: the one after the `label` line, else all of them summed (a driver that times
several kernels, each a block of its own, is timed as a whole).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pto_tui.core.numbers import MAX_US, MIN_US
from pto_tui.core.project.config import ResultConfig

_NUMBER = r"([0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)"
# each built-in format's own time line and unit
FORMAT_TIMES: dict[str, tuple[str, str]] = {
    "average-time": (rf"^\s*Average time:\s*{_NUMBER}\s*ms\b", "ms"),
    "avg-us": (rf"\bavg={_NUMBER}\s*us\b", "us"),
}
# the pass/fail lines pto-isa's drivers print (flash_atten and gemm, fused_add_relu_mul, topk,
# allgather_gemm, moe_combine)
PASSED_LINES = (
    r"^\s*test success\s*$",
    r"\bAll tests PASSED\b",
    r"\bAll tests passed!",
    r"^\s*\[SUCCESS\]",
    r"\bverify=PASS\b",
)
FAILED_LINES = (
    r"^\s*test failed\s*$",
    r"\bSome tests FAILED\b",
    r"\bSome tests failed!",
    r"^\s*\[FAILED\]",
    r"\bverify=FAIL\b",
)
_TO_US = {"s": 1e6, "ms": 1e3, "us": 1.0, "ns": 1e-3}


@dataclass(frozen=True)
class PrintedResult:
    correct: bool | None  # None: no pass/fail line
    duration_us: float | None  # None: no time line
    times: int = 0  # how many time lines were read
    problem: str = ""
    detail: str = ""  # how the time was made, e.g. "the sum of 3 time lines"


def time_pattern(result: ResultConfig) -> tuple[str, str]:
    """(regular expression, unit) of a run's time line: the project's own, else the format's."""
    if result.time:
        return result.time, result.unit
    return FORMAT_TIMES.get(result.format, ("", result.unit))


def verdict_of(text: str, result: ResultConfig) -> bool | None:
    """The run's verdict from its pass/fail lines (the project's patterns, else the known ones)."""
    passed = [result.passed] if result.passed else list(PASSED_LINES)
    failed = [result.failed] if result.failed else list(FAILED_LINES)
    if any(re.search(p, text, re.M) for p in failed):
        return False
    return True if any(re.search(p, text, re.M) for p in passed) else None


def read_printed(text: str, result: ResultConfig) -> PrintedResult:
    """The result of one run from its output."""
    correct = verdict_of(text, result)
    pattern, unit = time_pattern(result)
    if not pattern:
        return PrintedResult(correct, None, problem=f"result format {result.format!r} reads no time")
    lines = text.splitlines()
    start = 0
    if result.label:
        start = next((i for i, line in enumerate(lines) if result.label in line), -1)
        if start < 0:
            return PrintedResult(correct, None, problem=f"no line holds the result label {result.label!r}")
    times: list[float] = []
    for line in lines[start:]:
        match = re.search(pattern, line)
        if match:
            try:
                times.append(float(match.group(1)))
            except (IndexError, ValueError):
                problem = f"{line.strip()!r}: no number in the time's group"
                return PrintedResult(correct, None, problem=problem)
            if result.label:
                break
    if not times:
        where = f" after {result.label!r}" if result.label else ""
        return PrintedResult(correct, None, problem=f"no time line{where} in the output (/{pattern}/)")
    duration = sum(times) * _TO_US[unit]
    if not MIN_US <= duration <= MAX_US:
        return PrintedResult(correct, None, len(times), problem=f"{duration:g} us is not a measured time")
    detail = f"the sum of {len(times)} time lines" if len(times) > 1 else ""
    return PrintedResult(correct, duration, len(times), detail=detail)
