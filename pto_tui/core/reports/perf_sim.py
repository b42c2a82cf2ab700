"""A perf_sim run read: pto-isa's kernel-level cycle model (include/pto/costmodel/perf_sim).

`LAUNCH_KERNEL` under `-D__COSTMODEL` runs the kernel once per core and sub-block, prints a
report (`Cores : N`, `Instructions : N`, `Total cycles : N`, a per-pipe table) and writes
`<output_dir>/<kernel>_pipeline_summary.csv`: one row per unit (AIC, AIV0, AIV1) per core,
with the busy cycles of each pipe the unit has. The sample of a perf_sim round is the total
cycles; the per-pipe busy cycles are the bottleneck evidence.

How a pipe's share is computed: its busy cycles summed over every unit that has it, divided
by the active cycles of those units summed (`active_cycles`, each unit's window from its
first to its last instruction; a unit that recorded none, e.g. the idle vector units of a
cube-only kernel, counts with the total cycles). The AIC pipes (Matrix, MTE1, Fixpipe,
Scalar, the AIC's MTE2) have one unit per core; the AIV pipes (Vector, MTE3, the AIVs' MTE2)
have two per core (the sub-blocks AIV0 and AIV1). So a share is how busy that pipe was
while its units were at work: on a multi-core kernel whose cores run at different times
(gemm over 24 blocks: core 0 done after 3 M cycles, the last after 37 M) the shares
against the overall total would read as idle pipes (MTE2 8%) where each core's MTE2 was
busy for most of its own window (97% on core 0). MTE2 exists on both sides and they are
separate engines: its busy cycles are the sum of both, its share the larger of the two
sides' shares (the busier engine is the one that can limit).
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass

from pto_tui.core.reports.result import ReportError

SUMMARY_COLUMNS = (
    "op_name",
    "core_id",
    "unit",
    "total_cycles",
    "active_start_cycle",
    "active_end_cycle",
    "active_cycles",
    "busy_cycles",
    "scalar_cycles",
    "mte2_aic_cycles",
    "mte2_aiv_cycles",
    "mte1_cycles",
    "cube_cycles",
    "fixp_cycles",
    "vec_cycles",
    "mte3_cycles",
)
# The pipes as a kernel engineer names them, with the CSV columns whose cycles they sum.
_PIPES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Matrix", ("cube_cycles",)),
    ("Vector", ("vec_cycles",)),
    ("MTE2", ("mte2_aic_cycles", "mte2_aiv_cycles")),
    ("MTE1", ("mte1_cycles",)),
    ("MTE3", ("mte3_cycles",)),
    ("Fixpipe", ("fixp_cycles",)),
    ("Scalar", ("scalar_cycles",)),
)
_AIV_COLUMNS = frozenset({"vec_cycles", "mte3_cycles", "mte2_aiv_cycles"})
_COUNT_LINE = r"^\s*{label}\s*:\s*(\S+)\s*$"

# The rule that names a bottleneck class (see bottleneck_class)
IMBALANCE_BUSY = 0.70  # one compute side at least this busy ...
IMBALANCE_RATIO = 0.5  # ... and the other at most this fraction of it
BUSY_FLOOR = 0.50  # no pipe this busy: the pipes wait on each other


@dataclass(frozen=True)
class PipeBusy:
    name: str  # Matrix, Vector, MTE2, MTE1, MTE3, Fixpipe, Scalar
    busy_cycles: int  # summed over every unit that has the pipe
    share: float  # of the total cycles, 0..1 (see the module docstring)


@dataclass(frozen=True)
class PerfSimResult:
    total_cycles: int
    pipes: tuple[PipeBusy, ...]  # in the order of _PIPES
    cores: int | None = None  # the printed `Cores` line, when present
    instructions: int | None = None  # the printed `Instructions` line, when present

    def pipe(self, name: str) -> PipeBusy:
        return next(p for p in self.pipes if p.name == name)

    @property
    def bottleneck(self) -> str:
        return bottleneck_class(self.pipes)

    @property
    def evidence(self) -> str:
        return evidence_text(self)


def parse_perf_sim_run(
    output: str,
    summary_csv: str | None,
    output_source: str = "perf_sim output",
    csv_source: str = "pipeline summary CSV",
) -> PerfSimResult:
    """The run's printed report and its pipeline summary CSV (None: the run wrote none)."""
    total = total_cycles(output, output_source)
    if summary_csv is None:
        raise ReportError("the perf_sim run wrote no pipeline summary CSV", file=csv_source)
    rows = _summary_rows(summary_csv, csv_source)
    return PerfSimResult(
        total_cycles=total,
        pipes=_pipes(rows, total),
        cores=_count(output, "Cores", output_source),
        instructions=_count(output, "Instructions", output_source),
    )


def total_cycles(output: str, source: str = "perf_sim output") -> int:
    """The `Total cycles : N` of the printed report: one run, a positive count."""
    found = re.findall(_COUNT_LINE.format(label="Total cycles"), output, re.M)
    if not found:
        raise ReportError("the perf_sim run printed no 'Total cycles' line", file=source)
    if len(found) > 1:
        raise ReportError(
            f"the perf_sim run printed {len(found)} 'Total cycles' lines: one kernel launch expected",
            file=source,
        )
    value = _integer(found[0], "Total cycles", source, None)
    if value == 0:
        raise ReportError("'Total cycles' is 0: the kernel recorded no instructions", file=source)
    return value


def _count(output: str, label: str, source: str) -> int | None:
    found = re.findall(_COUNT_LINE.format(label=label), output, re.M)
    return _integer(found[-1], label, source, None) if found else None


def _integer(text: str, key: str, source: str, line: int | None) -> int:
    if not re.fullmatch(r"\d+", text.strip()):
        raise ReportError(f"{key} {text!r} is not a non-negative integer", file=source, line=line, key=key)
    return int(text)


def _summary_rows(text: str, source: str) -> list[dict[str, int | str]]:
    """The CSV's rows, every cycle column an integer; the header must have every column."""
    if not text.strip():
        raise ReportError("the pipeline summary CSV is empty", file=source)
    try:
        table = list(csv.reader(io.StringIO(text)))
    except csv.Error as error:
        raise ReportError(f"the pipeline summary is not readable CSV: {error}", file=source) from None
    header = [name.strip() for name in table[0]]
    missing = [name for name in SUMMARY_COLUMNS if name not in header]
    if missing:
        raise ReportError(f"the pipeline summary CSV has no column {', '.join(missing)}", file=source, line=1)
    rows: list[dict[str, int | str]] = []
    for number, fields in enumerate(table[1:], start=2):
        if not fields:
            continue
        if len(fields) != len(header):
            raise ReportError(
                f"row has {len(fields)} fields, the header {len(header)} (truncated?)",
                file=source,
                line=number,
            )
        row: dict[str, int | str] = {"unit": fields[header.index("unit")].strip()}
        for name in SUMMARY_COLUMNS[3:]:
            row[name] = _integer(fields[header.index(name)], name, source, number)
        rows.append(row)
    if not any(str(row["unit"]) == "AIC" for row in rows):
        raise ReportError("the pipeline summary CSV has no AIC row", file=source)
    return rows


def _pipes(rows: list[dict[str, int | str]], total: int) -> tuple[PipeBusy, ...]:
    aic = [row for row in rows if row["unit"] == "AIC"]
    aiv = [row for row in rows if str(row["unit"]).startswith("AIV")]
    pipes = []
    for name, columns in _PIPES:
        busy, share = 0, 0.0
        for column in columns:
            units = aiv if column in _AIV_COLUMNS else aic
            cycles = sum(int(row[column]) for row in units)
            busy += cycles
            window = sum(int(row["active_cycles"]) or total for row in units)  # module docstring
            if window:
                share = max(share, cycles / window)
        pipes.append(PipeBusy(name, busy, share))
    return tuple(pipes)


def bottleneck_class(pipes: tuple[PipeBusy, ...]) -> str:
    """A bottleneck class (core/vocabulary.py) from the pipes' shares, or "" when the rule
    names none. In order:

    1. both Matrix and Vector work, one of them at least 70% busy and the other at most half
       of it: AIC/AIV imbalance (one side waits on the other);
    2. no pipe at least 50% busy: pipeline bubble / poor overlap (the pipes wait on each
       other more than they work);
    3. MTE2 the busiest pipe: GMEM traffic bound (the loads from global memory limit);
    4. otherwise none: the evidence names the busiest pipe.
    """
    share = {p.name: p.share for p in pipes}
    matrix, vector = share.get("Matrix", 0.0), share.get("Vector", 0.0)
    if matrix > 0 and vector > 0:
        high, low = max(matrix, vector), min(matrix, vector)
        if high >= IMBALANCE_BUSY and low <= high * IMBALANCE_RATIO:
            return "AIC/AIV imbalance"
    busiest = max(pipes, key=lambda p: p.share, default=None)
    if busiest is None or busiest.share < BUSY_FLOOR:
        return "pipeline bubble / poor overlap"
    if busiest.name == "MTE2":
        return "GMEM traffic bound"
    return ""


def evidence_text(result: PerfSimResult) -> str:
    """One line for the Pre-Edit form's evidence, e.g. `perf_sim 44619 cycles: Vector 85% busy,
    Matrix 19%, MTE2 30% → AIC/AIV imbalance`: the three busiest pipes (and Matrix and
    Vector both when the class is their imbalance), then the class or the busiest pipe."""
    ranked = sorted((p for p in result.pipes if p.busy_cycles), key=lambda p: -p.share)
    named = ranked[:3]
    kind = result.bottleneck
    if kind == "AIC/AIV imbalance":
        named += [p for p in ranked if p.name in ("Matrix", "Vector") and p not in named]
    if not named:
        return f"perf_sim {result.total_cycles} cycles: no pipe was busy"
    parts = [f"{p.name} {p.share * 100:.0f}%" for p in named]
    parts[0] += " busy"
    tail = kind or f"{named[0].name} the busiest pipe"
    return f"perf_sim {result.total_cycles} cycles: {', '.join(parts)} → {tail}"
