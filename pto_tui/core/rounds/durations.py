"""Durations as text: one value in a sensible unit, or several in one unit. Pure."""

from __future__ import annotations

from collections.abc import Sequence

MS_FROM_US = 10_000.0  # durations from 10 ms up read in ms


def duration_in(us: float | None, unit: str) -> str:
    """A duration in the given unit ("ms" or "us"): "23.987 ms", "9060.3 us", "-"."""
    if us is None:
        return "-"
    return f"{us / 1000:.3f} ms" if unit == "ms" else f"{us:.1f} us"


def format_duration(us: float | None) -> str:
    """Microseconds as text in a sensible unit (us below 10 ms, ms above)."""
    return duration_in(us, "ms" if us is not None and us >= MS_FROM_US else "us")


def duration_unit(values: Sequence[float | None]) -> str:
    """The one unit for several durations: "ms" when the middle of the known values is
    10 ms or more, else "us" (one outlier does not turn a column into ms)."""
    known = sorted(v for v in values if v is not None)
    if not known:
        return "us"
    half = len(known) // 2
    middle = known[half] if len(known) % 2 else (known[half - 1] + known[half]) / 2
    return "ms" if middle >= MS_FROM_US else "us"


def format_durations(values: Sequence[float | None]) -> list[str]:
    """Several durations (microseconds) in one unit, so a column or a sentence never
    mixes us and ms (23.987 ms beside 9060.3 us)."""
    unit = duration_unit(values)
    return [duration_in(v, unit) for v in values]
