"""What a parsed benchmark result is: the error for an unreadable file and the typed records."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pto_tui.core.errors import PtoError


class ReportError(PtoError):
    """A result file that cannot be read as a benchmark result."""


@dataclass(frozen=True)
class VariantReport:
    """One entry of the runner's `pto.benchmark.variant_reports`: one shape, measured alone."""

    index: int  # position in variant_reports, so a message can point at the entry
    variant: dict[str, Any]  # the shape and dtypes the adapter ran (m, n, k, seq_len, ...)
    median_us: float
    min_us: float | None = None
    max_us: float | None = None
    max_abs_diff: float | None = None  # None only in the baseline's entries (not judged here)
    passes: bool | None = None  # only some adapters (mc2) judge each variant themselves
    shape_summary: Any = None  # as the adapter wrote it (a dict of tensor shapes, usually)

    @property
    def label(self) -> str:
        shape = ", ".join(f"{key}={value}" for key, value in self.variant.items() if key != "seed")
        return f"variant_reports[{self.index}]" + (f" ({shape})" if shape else "")


@dataclass(frozen=True)
class BenchResult:
    """One benchmark run of the PTO kernel, durations in microseconds."""

    correct: bool
    duration_us: float  # the run's statistic (median for the runner; the slowest variant's)
    min_us: float | None = None
    max_us: float | None = None
    reference_us: float | None = None  # the report's own baseline (e.g. torch) when present
    tflops: float | None = None
    max_abs_diff: float | None = None
    detail: str = ""  # why correctness failed, or other notes
    extra: dict[str, Any] = field(default_factory=dict)
    # the runner's top-level `status`: the spec's maturity (planned, prototype, ...), not the outcome
    spec_status: str = ""
    variants: tuple[VariantReport, ...] = ()  # pto.benchmark.variant_reports, when written
    failing_variants: tuple[VariantReport, ...] = ()  # those outside the tolerance
    # baseline.benchmark.variant_reports: the reference (torch_npu) of each variant, when written
    reference_variants: tuple[VariantReport, ...] = ()
