"""The Markdown campaign report (projects/<op>/REPORT.md): what the campaign found.

Sections: summary figures and the chart; the conclusion; the comparison with
torch_npu; the round table; the kept rounds with their hypotheses and evidence; the
failures and what was learned (then the rounds without gain); the rounds whose verdicts
the history does not vouch for (in none of those: `unverified`); the reproducibility
record. `render_report` is a pure function of the records; `write_campaign_report`
wraps it for a project and (re)draws the chart when it is missing or older than the
records, so the report never links a stale picture.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pto_tui.core.atomic import atomic_write_text
from pto_tui.core.operators.case_strings import case_text
from pto_tui.core.project.layout import ProjectLayout, round_name
from pto_tui.core.project.modes import CYCLES
from pto_tui.core.rounds.counts import UNVERIFIED, counted_as
from pto_tui.core.rounds.durations import format_duration
from pto_tui.core.rounds.export import export_rows, markdown_reproducibility, markdown_table
from pto_tui.core.rounds.ledger import ROUND_FILE
from pto_tui.core.rounds.records import Round, TorchBaseline
from pto_tui.core.rounds.render import SIMULATED_NOTE, changes_summary
from pto_tui.core.rounds.render_cycles import CYCLES_NOTE
from pto_tui.core.summary.chart_model import BASELINE, ChartModel, build_model
from pto_tui.core.vocabulary import Verdict

if TYPE_CHECKING:
    from pto_tui.core.campaign.campaign import Campaign

REPORT_FILE = "REPORT.md"


@dataclass(frozen=True)
class ReportContext:
    """What the report says about the project besides its rounds."""

    operator: str
    kind: str = ""
    case: str = ""
    target: str = ""


@dataclass(frozen=True)
class ReportResult:
    path: Path
    chart: Path
    chart_drawn: bool  # the chart was (re)drawn for this report


def _text(value: str) -> str:
    return " ".join(value.split()) or "-"


def _block(label: str, value: str) -> str:
    """A bullet whose value may span lines (kept readable as an indented block)."""
    value = value.strip()
    if "\n" in value:
        return f"- **{label}**:\n" + "\n".join("  " + line for line in value.splitlines())
    return f"- **{label}**: {value or '-'}"


def _speed(value: float | None) -> str:
    return f"{value:.2f}x" if value else "-"


def _heading(record: Round) -> str:
    return f"### {round_name(record.number)}: {_text(record.short_hypothesis(80))}"


def _summary(model: ChartModel, ctx: ReportContext) -> list[str]:
    counts = ", ".join(f"{k} {v}" for k, v in model.counts.items())
    n = len(model.rounds) - 1  # the closed rounds after the baseline
    best = model.best
    lines = [f"- **Operator**: {ctx.operator}" + (f" ({ctx.kind})" if ctx.kind else "")]
    if ctx.case:
        lines.append(f"- **Case**: {ctx.case}")
    if ctx.target:
        lines.append(f"- **Target**: {ctx.target}")
    unit = model.sample_unit
    if unit == CYCLES:
        lines.append(f"- **Samples**: cycles (perf_sim). {CYCLES_NOTE}")
    elif model.simulated:
        lines.append(f"- **Timings**: simulated. {SIMULATED_NOTE}")
    rounds = f"- **Rounds**: {n} after the baseline ({counts})"
    if model.open_rounds:
        rounds += "; open, not reported: " + ", ".join(round_name(r) for r in model.open_rounds)
    lines += [
        rounds,
        f"- **Initial PTO (iter-000)**: {format_duration(model.initial_us, unit)}",
        f"- **Best PTO ({round_name(best.number)})**: {format_duration(best.median_us, unit)}, "
        f"{_speed(best.frontier_speedup)} over the initial version",
    ]
    torch = model.torch
    missing = "not comparable with perf_sim cycles" if unit == CYCLES else "not measured"
    lines.append(f"- **{torch.label}**: avg {format_duration(torch.avg_us)}" if torch
                 else f"- **torch_npu**: {missing}")
    return lines


def _torch_section(model: ChartModel) -> list[str]:
    torch = model.torch
    lines = ["## Comparison with torch_npu", ""]
    if model.sample_unit == CYCLES:
        return [*lines, "The samples are perf_sim cycles: they do not compare with torch_npu's timings.", ""]
    if torch is None:
        return [
            *lines,
            "The torch_npu reference was not measured (`pto-tui torch-baseline`), so the "
            "campaign cannot be compared with it.",
            "",
        ]
    best_us = model.best.median_us or model.initial_us
    lines += [
        f"Reference: {torch.label}"
        + (f", {torch.warmup} warm-up and {torch.runs} timed runs" if torch.runs else "")
        + (f", measured {torch.measured_at}" if torch.measured_at else ""),
        "",
        "| | Duration | TFLOPS | Speed vs torch_npu |",
        "|---|---:|---:|---:|",
        f"| {torch.label} (avg; min {format_duration(torch.min_us)}, "
        f"max {format_duration(torch.max_us)}) | {format_duration(torch.avg_us)} | "
        f"{f'{torch.tflops:.3f}' if torch.tflops is not None else '-'} | 1.00x |",
        f"| PTO initial (iter-000) | {format_duration(model.initial_us)} | - "
        f"| {_speed(torch.avg_us / model.initial_us)} |",
        f"| PTO best ({round_name(model.best.number)}) | {format_duration(best_us)} | - "
        f"| {_speed(torch.avg_us / best_us)} |",
        "",
        "Speed vs torch_npu above 1.00x means faster than torch_npu.",
        "",
    ]
    return lines


def _kept_section(rounds: Sequence[Round], initial_us: float) -> list[str]:
    lines = ["## Kept rounds", ""]
    best = initial_us
    kept = 0
    for r in rounds:
        median = r.measurement.median_us
        if counted_as(r) != Verdict.KEPT.value or median is None:
            continue
        kept += 1
        pre = r.pre_edit
        gain = f"{best / median:.2f}x over the frontier before it" if median < best else ""
        best = min(best, median)
        result = f"{format_duration(median, r.sample_unit)}, {initial_us / median:.2f}x over the initial"
        result += " version"
        if gain:
            result += f", {gain}"
        if r.stability:
            result += f"; {r.stability}"
        if r.measurement.in_cycles:
            result += "; kept from perf_sim cycles (perf-sim), to be confirmed on an NPU"
        elif r.simulated:
            result += ("; kept from the CPU simulation's wall-clock timings (cpu-sim), no ranking "
                       "on the NPU: to be confirmed there, or by the perf-sim mode's cycles")
        lines += [
            _heading(r),
            "",
            f"- **Phase**: {r.phase or '-'}",
            f"- **Bottleneck**: {pre.bottleneck or '-'}",
            _block("Hypothesis", pre.hypothesis),
            _block("Why it should help on Ascend", pre.why_ascend),
            _block("Evidence", pre.evidence),
            _block("Changes", changes_summary(r)),
            f"- **Result**: {result}",
            _block("Why kept", r.verdict_reason),
            _block("Analysis", r.analysis),
            "",
        ]
    if not kept:
        lines += ["No round beat the initial PTO version.", ""]
    return lines


def _failures_section(rounds: Sequence[Round]) -> list[str]:
    failures = [r for r in rounds if counted_as(r) == Verdict.FAILURE.value]
    other = [r for r in rounds if counted_as(r) in (Verdict.NEUTRAL.value, Verdict.INCONCLUSIVE.value)]
    lines = ["## Failures and what was learned", ""]
    if not failures:
        lines += ["No failed round.", ""]
    for r in failures:
        m = r.measurement
        happened = [t for t in (r.verdict_reason, m.problem) if t.strip()]
        if m.build == "failed":
            happened.insert(0, "build failed")
        elif m.correctness == "fail":
            happened.insert(0, "correctness failed")
        lines += [
            _heading(r),
            "",
            _block("Hypothesis", r.pre_edit.hypothesis),
            _block("Changes", changes_summary(r)),
            _block("What happened", "; ".join(dict.fromkeys(happened))),  # no repeats
            _block("What was learned", r.analysis),
            _block("Next", r.next),
            "",
        ]
    lines += ["## Rounds without gain", ""]
    if not other:
        lines += ["None.", ""]
    for r in other:
        verdict = r.effective_verdict()
        median = format_duration(r.measurement.median_us, r.sample_unit)
        lines.append(
            f"- **{round_name(r.number)}** ({verdict.value if verdict else '-'}, {median}): "
            f"{_text(r.short_hypothesis(120))}. {_text(r.verdict_reason)}"
            + (f" Learned: {_text(r.analysis)}" if r.analysis.strip() else "")
        )
    if other:
        lines.append("")
    return lines


def _unverified_section(rounds: Sequence[Round]) -> list[str]:
    """The rounds whose verdicts no trusted line of runs/closed.log backs: named, not reported
    as results (none when the history is intact)."""
    unverified = [r for r in rounds if counted_as(r) == UNVERIFIED]
    if not unverified:
        return []
    lines = ["## Unverified rounds", "",
             "The history does not vouch for these verdicts (`pto-tui verify` lists why); they are "
             "not counted as results above.", ""]
    for r in unverified:
        verdict = r.effective_verdict()
        lines.append(f"- **{round_name(r.number)}** (claims {verdict.value if verdict else '-'}): "
                     f"{_text(r.short_hypothesis(120))}. {_text('; '.join(r.tampered))}")
    return [*lines, ""]


def _toolchain(rounds: Sequence[Round]) -> list[str]:
    env = next((r.environment for r in rounds if r.is_baseline and r.environment), None)
    lines = ["### Toolchain (environment round, iter-000)", ""]
    if env is None or not env.versions:
        return [*lines, "unknown (not recorded by the environment round)", ""]
    return [*lines, *(f"- {k}: {v}" for k, v in env.versions.items()), ""]


def render_report(
    rounds: Sequence[Round],
    torch: TorchBaseline | None,
    ctx: ReportContext,
    phases: Sequence[str] = (),
    chart_link: str | None = None,
) -> str:
    """The report text. Raises InputError (from the chart model) without a baseline."""
    model = build_model(rounds, torch, phases, ctx.operator)
    closed = sorted((r for r in rounds if r.is_closed), key=lambda r: r.number)
    rows = export_rows(closed, torch)
    best = next(r for r in closed if r.number == model.best.number)
    lines = [f"# {ctx.operator}: PTO optimisation campaign report", "", *_summary(model, ctx), ""]
    if chart_link:
        lines += [f"![Summary chart]({chart_link})", ""]
    lines += ["## Conclusion", "", model.conclusion.removeprefix("Conclusion: "), ""]
    lines += _torch_section(model)
    lines += ["## Rounds", "", markdown_table(rows)]
    lines += _kept_section(closed, model.initial_us)
    lines += _failures_section(closed)
    lines += _unverified_section(closed)
    values = ", ".join(f"{k}={v}" for k, v in best.changes.parameter_values.items()) or "-"
    lines += [
        "## Reproducibility",
        "",
        f"Best round: {round_name(best.number)}"
        + (" (the baseline)" if model.best.verdict == BASELINE else ""),
        "",
        f"- **Parameter snapshot**: {values}",
        f"- **Workload fingerprint**: {best.measurement.fingerprint or '-'}",
        f"- **Workspace snapshot**: {best.snapshot or '-'}",
        f"- **Result files**: {', '.join(best.measurement.reports) or '-'}",
        "",
        *_toolchain(closed),
        "### Every round",
        "",
        markdown_reproducibility(rows),
    ]
    return "\n".join(lines)


# ---------------------------------------------------------------- for a project


def chart_is_stale(layout: ProjectLayout) -> bool:
    """The chart is missing, or older than a round record or project.toml."""
    chart = layout.chart
    if not chart.is_file():
        return True
    drawn = chart.stat().st_mtime
    sources = [layout.project_file, *layout.runs.glob(f"iter-*/{ROUND_FILE}")]
    return any(p.is_file() and p.stat().st_mtime > drawn for p in sources)


def write_campaign_report(campaign: Campaign, output: Path | None = None) -> ReportResult:
    """Write the report (default projects/<op>/REPORT.md), drawing the chart if needed."""
    from pto_tui.core.summary.chart import write_campaign_chart  # matplotlib only when writing

    layout = campaign.layout
    path = output or layout.root / REPORT_FILE
    rounds = campaign.rounds()
    torch = campaign.torch_baseline()
    config = campaign.config
    ctx = ReportContext(
        operator=config.operator.name,
        kind=config.operator.kind.value,
        case=case_text(config.case, config.operator),
        target=config.target.label,
    )
    # render first: a project without a baseline fails here, before anything is written
    render_report(rounds, torch, ctx, config.phases)
    drawn = chart_is_stale(layout)
    if drawn:
        write_campaign_chart(campaign)
    link = Path(os.path.relpath(layout.chart.resolve(), path.resolve().parent)).as_posix()
    atomic_write_text(path, render_report(rounds, torch, ctx, config.phases, link))
    return ReportResult(path=path, chart=layout.chart, chart_drawn=drawn)
