"""Durations as text: one value in a sensible unit, or several in one unit. Pure.

A sample is a duration in microseconds unless its measurement says otherwise: a perf-sim
round's samples are cycles of pto-isa's cycle model (`sample_unit` CYCLES), shown as
"44619 cycles" and never turned into us or ms.
"""

from __future__ import annotations

from collections.abc import Sequence

from pto_tui.core.project.modes import CYCLES, MICROSECONDS

MS_FROM_US = 10_000.0  # durations from 10 ms up read in ms


def duration_in(us: float | None, unit: str) -> str:
    """A sample in the given unit ("ms", "us" or "cycles"): "23.987 ms", "9060.3 us",
    "44619 cycles", "-"."""
    if us is None:
        return "-"
    if unit == CYCLES:
        return f"{us:.0f} cycles"
    return f"{us / 1000:.3f} ms" if unit == "ms" else f"{us:.1f} us"


def format_duration(us: float | None, sample_unit: str = MICROSECONDS) -> str:
    """A sample as text: cycles as cycles; microseconds in a sensible unit (us below
    10 ms, ms above)."""
    if sample_unit == CYCLES:
        return duration_in(us, CYCLES)
    return duration_in(us, "ms" if us is not None and us >= MS_FROM_US else "us")


def duration_unit(values: Sequence[float | None], sample_unit: str = MICROSECONDS) -> str:
    """The one unit for several samples: "cycles" for cycles; "ms" when the middle of the
    known durations is 10 ms or more, else "us" (one outlier does not turn a column into ms)."""
    if sample_unit == CYCLES:
        return CYCLES
    known = sorted(v for v in values if v is not None)
    if not known:
        return "us"
    half = len(known) // 2
    middle = known[half] if len(known) % 2 else (known[half - 1] + known[half]) / 2
    return "ms" if middle >= MS_FROM_US else "us"


def format_durations(values: Sequence[float | None], sample_unit: str = MICROSECONDS) -> list[str]:
    """Several samples in one unit, so a column or a sentence never mixes us and ms
    (23.987 ms beside 9060.3 us)."""
    unit = duration_unit(values, sample_unit)
    return [duration_in(v, unit) for v in values]


def unit_label(sample_unit: str) -> str:
    """The unit as a JSON field and an export column say it: "cycles" or "us"."""
    return CYCLES if sample_unit == CYCLES else "us"
