"""Bounds of the numbers a measurement may hold: finite, positive, and not absurd.

A duration of 1e-322 us, a TFLOPS of -1 or a baseline of 1e308 is a typo or a broken
report, never a measurement; each is refused where it enters, naming the field."""

from __future__ import annotations

import math
import re

# A number as a person or a benchmark writes it: digits, a point, an exponent. Python's
# float() also takes "1_000", "infinity" and "nan", which are no measurement.
NUMBER_TEXT = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")

# A duration in microseconds above this (about 11 days) is a typo, not a measurement.
MAX_US = 1e12
# Below a picosecond no kernel runs: a duration this small is a broken report (it made
# a division by it overflow).
MIN_US = 1e-6
# Far above any accelerator's throughput.
MAX_TFLOPS = 1e6


def quantity_problem(
    name: str, value: object, *, high: float, low: float = 0.0, zero_ok: bool = False
) -> str | None:
    """Why `value` cannot be the measured quantity `name` (finite, positive, at least
    `low`, at most `high`; zero only when `zero_ok`), or None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"{name} {value!r} is not a number"
    try:
        number = float(value)
    except OverflowError:
        return f"{name} is an integer of {len(str(value))} digits, not a measurement"
    if not math.isfinite(number):
        return f"{name} is {number} (not a finite number)"
    if number == 0 and zero_ok:
        return None
    if number <= 0:
        return f"{name} is {number:g} (must be {'0 or more' if zero_ok else 'positive'})"
    if number < low:
        return f"{name} is {number:g}, below {low:g}: not a measurement"
    if number > high:
        return f"{name} is {number:g}, above {high:g}: a typo, not a measurement"
    return None


def duration_problem(name: str, value: object) -> str | None:
    """A duration in microseconds."""
    return quantity_problem(name, value, high=MAX_US, low=MIN_US)


def tflops_problem(name: str, value: object) -> str | None:
    return quantity_problem(name, value, high=MAX_TFLOPS)
