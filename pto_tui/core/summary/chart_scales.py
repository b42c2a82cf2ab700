"""The duration panel's scale: its unit (us, ms, or the cycles of a perf-sim project), log or
linear, and the bar labels' digits (chart_model.py decides what is shown with them)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pto_tui.core.project.modes import CYCLES, MICROSECONDS
from pto_tui.core.rounds.durations import MS_FROM_US

LOG_RATIO = 10.0  # max/min duration above which the duration axis is logarithmic


@dataclass(frozen=True)
class Units:
    name: str  # "us", "ms" or "cycles"
    scale: float  # divide microseconds by this


def choose_units(values_us: Sequence[float], sample_unit: str = MICROSECONDS) -> Units:
    if sample_unit == CYCLES:
        return Units(CYCLES, 1.0)
    largest = max(values_us, default=0.0)
    return Units("ms", 1000.0) if largest >= MS_FROM_US else Units("us", 1.0)


def use_log_scale(values_us: Sequence[float], ratio: float = LOG_RATIO) -> bool:
    positive = [v for v in values_us if v > 0]
    return bool(positive) and max(positive) / min(positive) > ratio


def format_value(value: float) -> str:
    """A bar label: about four significant digits, no exponent."""
    if value >= 10_000:
        return f"{value:.0f}"
    if value >= 100:
        return f"{value:.1f}"
    if value >= 10:
        return f"{value:.2f}"
    return f"{value:.3f}"
