"""Costmodel results as records: the version stamp, cycles, FLOPs, efficiency; sorting,
the best configuration, CSV/Markdown export and the evidence text for a round."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pto_tui.core.cycles.metrics import flop_count, ideal_cycles
from pto_tui.core.cycles.query import Query
from pto_tui.core.errors import InputError


@dataclass(frozen=True)
class VersionStamp:
    """Where a number came from: engine, costmodel version, compiler, flags."""

    engine: str  # builtin | external
    costmodel: str  # pto-isa commit ("git:<sha>") or content hash ("sha256:<hex>")
    compiler: str = ""  # compiler version line (builtin); empty for the external tool
    flags: str = ""

    @property
    def key(self) -> str:
        return "|".join((self.engine, self.costmodel, self.compiler, self.flags))

    def short(self) -> str:
        text = f"{self.engine} {self.costmodel[:20]}"
        if self.compiler:
            text += f", {self.compiler}"
        return text

    def to_dict(self) -> dict[str, str]:
        return {
            "engine": self.engine,
            "costmodel": self.costmodel,
            "compiler": self.compiler,
            "flags": self.flags,
        }


@dataclass(frozen=True)
class CycleResult:
    """One query's outcome: cycles, or the error that prevented them."""

    query: Query
    cycles: int | None
    stamp: VersionStamp
    cached: bool = False
    error: str = ""
    oversized: bool = False  # refused before running: its operands overflow a buffer

    @property
    def ok(self) -> bool:
        return self.cycles is not None and not self.error

    @property
    def label(self) -> str:
        return self.query.label

    @property
    def flops(self) -> int:
        return flop_count(self.query)

    @property
    def cycles_per_flop(self) -> float | None:
        return self.cycles / self.flops if self.ok and self.cycles is not None else None

    @property
    def flop_per_cycle(self) -> float | None:
        return self.flops / self.cycles if self.ok and self.cycles else None

    @property
    def ideal_cycles(self) -> float | None:
        return ideal_cycles(self.query)

    @property
    def efficiency(self) -> float | None:
        """ideal / simulated cycles, in (0, 1]; None where no ideal is known."""
        ideal = self.ideal_cycles
        if ideal is None or not self.ok or not self.cycles:
            return None
        return ideal / self.cycles

    def column(self, name: str) -> Any:
        return _COLUMNS[name](self)

    def to_dict(self) -> dict[str, Any]:
        data = self.query.to_dict()
        data.update(
            cycles=self.cycles,
            flops=self.flops,
            flops_kind="2*M*K*N" if self.query.is_matmul else "elements (rows*cols)",
            cycles_per_flop=self.cycles_per_flop,
            flop_per_cycle=self.flop_per_cycle,
            ideal_cycles=self.ideal_cycles,
            efficiency=self.efficiency,
            cached=self.cached,
            oversized=self.oversized,
            error=self.error or None,
            stamp=self.stamp.to_dict(),
        )
        return data


_COLUMNS: dict[str, Any] = {
    "label": lambda r: r.label,
    "instr": lambda r: r.query.instr,
    "dtype": lambda r: ",".join(r.query.dtypes),
    "shape": lambda r: r.query.shape,
    "rows": lambda r: r.query.rows or None,
    "cols": lambda r: r.query.cols or None,
    "m": lambda r: r.query.m or None,
    "k": lambda r: r.query.k or None,
    "n": lambda r: r.query.n or None,
    "cycles": lambda r: r.cycles,
    "flops": lambda r: r.flops,
    "cycles_per_flop": lambda r: r.cycles_per_flop,
    "flop_per_cycle": lambda r: r.flop_per_cycle,
    "ideal_cycles": lambda r: r.ideal_cycles,
    "efficiency": lambda r: r.efficiency,
}
SORT_COLUMNS: tuple[str, ...] = tuple(_COLUMNS)


def sort_results(
    results: Iterable[CycleResult], column: str = "cycles", descending: bool = False
) -> list[CycleResult]:
    """Sorted by a column of SORT_COLUMNS; failed rows and rows without a value go last."""
    column = column.replace("-", "_").replace("/", "_per_").lower()
    if column not in _COLUMNS:
        raise InputError(f"unknown column {column!r}; choose one of: {', '.join(SORT_COLUMNS)}")
    items = list(results)
    present: list[CycleResult] = []
    missing: list[CycleResult] = []
    for r in items:
        (present if r.ok and r.column(column) is not None else missing).append(r)
    present.sort(key=lambda r: r.column(column), reverse=descending)
    return present + missing


def best_result(results: Iterable[CycleResult]) -> CycleResult | None:
    """The best configuration: lowest cycles per FLOP (per element for vector
    families), ties broken by fewer cycles.

    Lowest raw cycles would always pick the smallest tile of a shape sweep, which
    says nothing about throughput; per-FLOP cost is what a tile choice is about.
    For a sweep over dtypes at one shape both rules pick the same row.
    """
    ok = [r for r in results if r.ok]
    if not ok:
        return None
    return min(ok, key=lambda r: (r.cycles_per_flop, r.cycles))


# ---------------------------------------------------------------- export

TABLE_COLUMNS: tuple[str, ...] = (
    "label",
    "cycles",
    "flops",
    "cycles_per_flop",
    "flop_per_cycle",
    "ideal_cycles",
    "efficiency",
)


def _fmt(value: Any, column: str) -> str:
    if value is None:
        return ""
    if column == "efficiency":
        return f"{value * 100:.1f}%"
    if isinstance(value, float):
        return f"{value:.4g}" if column != "ideal_cycles" else f"{value:.1f}"
    return str(value)


def table_rows(results: Sequence[CycleResult], columns: Sequence[str] = TABLE_COLUMNS) -> list[list[str]]:
    """Formatted cells; failed rows show their error in the cycles column."""
    rows = []
    for r in results:
        cells = []
        for col in columns:
            if col == "cycles" and not r.ok:
                cells.append("too big" if r.oversized else "error")
            else:
                cells.append(_fmt(r.column(col), col))
        rows.append(cells)
    return rows


def to_csv(results: Sequence[CycleResult]) -> str:
    """CSV with raw values, a 'best' column and the version stamp of each row."""
    best = best_result(results)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    cols = [
        "label",
        "instr",
        "dtype",
        "shape",
        "cycles",
        "flops",
        "cycles_per_flop",
        "flop_per_cycle",
        "ideal_cycles",
        "efficiency",
    ]
    writer.writerow([*cols, "best", "error", "costmodel", "compiler"])
    for r in results:
        values = ["" if r.column(c) is None else r.column(c) for c in cols]
        writer.writerow([*values, "*" if r is best else "", r.error, r.stamp.costmodel, r.stamp.compiler])
    return out.getvalue()


def to_markdown(results: Sequence[CycleResult], columns: Sequence[str] = TABLE_COLUMNS) -> str:
    """A Markdown table; the best row is marked with '**best**'."""
    best = best_result(results)
    header = ["", *columns]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for r, cells in zip(results, table_rows(results, columns), strict=True):
        mark = "**best**" if r is best else ""
        lines.append("| " + " | ".join([mark, *cells]) + " |")
    return "\n".join(lines) + "\n"


def format_evidence(results: Sequence[CycleResult], limit: int = 8) -> str:
    """A short Markdown block for a round's Pre-Edit 'Evidence' section."""
    ok = [r for r in results if r.ok]
    failed = len(results) - len(ok)
    stamps = sorted({r.stamp.short() for r in results})
    lines = [f"Costmodel (A2/A3, simulated cycles; {', '.join(stamps) or 'no version'}):"]
    if not ok:
        lines.append(f"- no successful query ({failed} failed)")
        return "\n".join(lines) + "\n"
    best = best_result(ok)
    shown = sort_results(ok, "cycles_per_flop")[:limit]
    lines.append("")
    lines.append(to_markdown(shown, ("label", "cycles", "cycles_per_flop", "efficiency")).rstrip())
    lines.append("")
    if best is not None:
        per = "FLOP" if best.query.is_matmul else "element"
        lines.append(
            f"- best: `{best.label}` = {best.cycles} cycles "
            f"({best.cycles_per_flop:.4g} cycles/{per}"
            + (f", {best.efficiency * 100:.1f}% of cube peak" if best.efficiency else "")
            + ")"
        )
    worst = max(ok, key=lambda r: (r.cycles_per_flop, r.cycles))
    if best is not None and worst is not best and best.cycles_per_flop:
        ratio = worst.cycles_per_flop / best.cycles_per_flop  # type: ignore[operator]
        lines.append(f"- worst: `{worst.label}` = {worst.cycles} cycles ({ratio:.2f}x the best per FLOP)")
    if len(ok) > limit:
        lines.append(f"- {len(ok)} configurations queried; the {limit} cheapest per FLOP shown")
    if failed:
        lines.append(f"- {failed} configuration(s) failed to compile or run")
    return "\n".join(lines) + "\n"
