"""What notes.md says of a perf-sim round: its cycles and the per-pipe summary of the run,
the bottleneck evidence the Pre-Edit form is offered (core/reports/perf_sim.py reads it);
and of a round of another mode that predicts with perf_sim ([target] predict), its
predicted cycles and their pipes."""

from __future__ import annotations

from pto_tui.core.project.modes import CYCLES, recorded_mode
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


def perf_sim_cycles(m: Measurement) -> int | None:
    """perf_sim's cycles of a measurement: a perf-sim round's median sample, or the cycles
    another mode's round recorded as its prediction ([target] predict); None without."""
    if m.in_cycles:
        return round(m.median_us) if m.median_us is not None else None
    return m.predicted_cycles


def perf_sim_evidence(m: Measurement) -> str:
    """The bottleneck evidence of a perf_sim measurement or prediction ("" without its
    pipes), e.g. `perf_sim 44619 cycles: Vector 46% busy, MTE2 25%, Fixpipe 23% → pipeline
    bubble / poor overlap`."""
    cycles = perf_sim_cycles(m)
    if not m.pipes or cycles is None:
        return ""
    from pto_tui.core.reports.perf_sim import PerfSimResult  # a round with pipes only

    return PerfSimResult(cycles, tuple(m.pipes)).evidence


def prediction_text(m: Measurement) -> str:
    """What notes.md says of a round's prediction ([target] predict), "" when it has none."""
    if m.predicted_cycles is not None:
        return (f"{format_duration(m.predicted_cycles, CYCLES)} by pto-isa's perf_sim cycle model for this "
                "configuration (a prediction beside the measurement, never a sample)")
    return f"none: {m.prediction_problem}" if m.prediction_problem else ""


def perf_sim_bullets(m: Measurement) -> list[tuple[str, str]]:
    """notes.md's Post-Run bullets of perf_sim, (label, text): a round's prediction when it
    has one, then the pipes that were busy (busy cycles and share, a Markdown table) and the
    evidence line; none without either."""
    bullets = [("perf_sim prediction", text)] if (text := prediction_text(m)) else []
    if not m.pipes:
        return bullets
    rows = ["| pipe | busy cycles | share |", "|---|---:|---:|"]
    rows += [f"| {p.name} | {p.busy_cycles} | {p.share:.0%} |" for p in m.pipes if p.busy_cycles]
    return [
        *bullets,
        ("perf_sim pipes (busy cycles, share of the units' active cycles)", "\n".join(rows)),
        ("perf_sim evidence", perf_sim_evidence(m)),
    ]
