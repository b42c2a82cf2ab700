"""What notes.md says of a perf-sim round: its cycles and the per-pipe summary of the run,
the bottleneck evidence the Pre-Edit form is offered (core/reports/perf_sim.py reads it)."""

from __future__ import annotations

from pto_tui.core.project.modes import CYCLES, recorded_mode
from pto_tui.core.reports.perf_sim import PerfSimResult
from pto_tui.core.rounds.durations import format_duration
from pto_tui.core.rounds.records import Measurement

# ITERATIONS.md's note above the table of a project whose samples are cycles
CYCLES_NOTE = (
    "Samples in cycles were counted by pto-isa's perf_sim cycle model (a perf-sim target), "
    "not measured on an NPU: the same on every run, comparable only with each other."
)


def cycles_text(m: Measurement) -> str:
    """A perf-sim round's performance: cycles, how many runs, whether they agreed."""
    perf = ""
    if m.median_us is not None:
        runs = len(m.samples_us)
        same = ", identical" if runs > 1 and len(set(m.samples_us)) == 1 else ""
        perf = f"perf_sim {format_duration(m.median_us, CYCLES)} (median of {runs} runs{same})"
        mode = recorded_mode(m.target_mode)
        perf += f"; {mode.timing_note}" if mode is not None else ""
    if m.problem:
        perf = (perf + "; " if perf else "") + m.problem
    return perf


def perf_sim_evidence(m: Measurement) -> str:
    """The bottleneck evidence of a perf-sim measurement ("" without its pipes), e.g.
    `perf_sim 44619 cycles: Vector 46% busy, MTE2 25%, Fixpipe 23% → pipeline bubble / poor
    overlap`."""
    if not m.pipes or m.median_us is None:
        return ""
    return PerfSimResult(round(m.median_us), tuple(m.pipes)).evidence


def pipes_bullets(m: Measurement) -> list[tuple[str, str]]:
    """notes.md's Post-Run bullets of a perf-sim run, (label, text): the pipes that were busy
    (busy cycles and share, a Markdown table), then the evidence line; none without pipes."""
    if not m.pipes:
        return []
    rows = ["| pipe | busy cycles | share |", "|---|---:|---:|"]
    rows += [f"| {p.name} | {p.busy_cycles} | {p.share:.0%} |" for p in m.pipes if p.busy_cycles]
    return [
        ("perf_sim pipes (busy cycles, share of the units' active cycles)", "\n".join(rows)),
        ("perf_sim evidence", perf_sim_evidence(m)),
    ]
