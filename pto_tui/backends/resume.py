"""Finishing a round run that pto-tui left: the job kept running is adopted, not run again.

When the app leaves with a step's job kept running (or its runs were cut short), the round
stays open with what was measured so far in its sample journal. Resuming runs the round's
pipeline from where it stopped: the steps the journal holds are not run again, the step
whose job was kept adopts that job (re-attached and followed to its end; the helper jobs
of the same step that had already ended are read back from their logs), and the steps
after it run as usual. The measurement is then recorded as an uninterrupted run records
it (the same gates: workload fingerprint, protected files, risk justification).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pto_tui.backends.interleave import interleaved_frontier
from pto_tui.backends.kinds.registry import backend_for
from pto_tui.backends.left_run import left_running
from pto_tui.backends.loop import case_flops, measure, pin_to_baseline, run_plan, undecided_after
from pto_tui.backends.sample_journal import SampleJournal
from pto_tui.backends.site import (
    EventSink,
    OperatorSite,
    StepEvent,
    StepOutput,
    finished,
    take_line,
)
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.requests import CloseRequest
from pto_tui.core.errors import PtoError
from pto_tui.core.project.layout import round_name
from pto_tui.core.rounds.records import Round
from pto_tui.jobs.logfile import read_log
from pto_tui.jobs.model import JobRecord, job_name, list_records
from pto_tui.jobs.runner import JobRunner


def step_of(name: str, label: str) -> str:
    """The loop step a job ran for: 'iter-003 benchmark 2/7: clock' -> 'benchmark 2/7'."""
    return name.removeprefix(f"{label} ").split(": ")[0]


def adoptable(records: Iterable[JobRecord], kept: JobRecord, label: str,
              since: float) -> dict[str, JobRecord]:
    """The kept job and the jobs of its step that ran before it in the same run (submitted
    after the journal's last step ended), by job name: the newest of each name."""
    base = f"{label} {step_of(kept.name, label)}"
    found: dict[str, JobRecord] = {}
    for record in sorted(records, key=lambda r: r.submitted_at):
        same_step = record.name == base or record.name.startswith(f"{base}: ")
        if same_step and since <= record.submitted_at <= kept.submitted_at:
            found[record.name] = record
    found[kept.name] = kept
    return found


class ResumingSite(OperatorSite):
    """An operator site whose steps named in `adopt` take that job's outcome, not a new run."""

    adopt: dict[str, JobRecord]

    async def run(self, step: str, command: str, *, quiet: bool = False,
                  **options: Any) -> StepOutput:
        record = self.adopt.pop(job_name(self.label, step), None)
        if record is None:
            return await super().run(step, command, quiet=quiet, **options)
        return await self._adopted(step, record, (lambda _e: None) if quiet else self.on_event)

    def adopts(self, step: str) -> bool:
        name = job_name(self.label, step)
        return any(key == name or key.startswith(f"{name}: ") for key in self.adopt)

    async def _adopted(self, step: str, record: JobRecord, emit: EventSink) -> StepOutput:
        output = StepOutput(record=record)
        emit(StepEvent(step, "started", record=record))
        if record.state.is_final:  # ended while it was followed: its log is its output
            for line in await asyncio.to_thread(lambda: list(read_log(Path(record.log_path)))):
                take_line(step, line, output, emit)
            return finished(step, output, emit)
        job = await self.runner.reattach(self.target, record.id)
        subscription = job.subscribe()  # before anything awaits: no line is lost
        self.current = job
        return await self.follow(step, job, subscription, output, emit, Path(record.log_path))


async def resume_round(
    campaign: Campaign,
    runner: JobRunner,
    on_event: EventSink | None = None,
    *,
    kept: JobRecord | None = None,
    close: bool = True,
    analysis: str = "",
    next_step: str = "",
) -> Round:
    """Finish the open round's run from its journal, adopting `kept` (a job of that run
    left running; by default the one found in the job records) for the step it ran, and
    close it as `run_round` does (close=False: measured, left open for its Post-Run)."""
    record = campaign.open_round()
    label = round_name(record.number)
    if kept is not None and not kept.name.startswith(f"{label} "):
        raise PtoError(f"job {kept.id} ({kept.name or 'unnamed'}) is not a step of {label}")
    with campaign.running(record.number, "round run (resumed)"):
        return await _resume(campaign, runner, record, on_event, kept=kept, close=close,
                             analysis=analysis, next_step=next_step)


async def _resume(campaign: Campaign, runner: JobRunner, record: Round, on_event: EventSink | None,
                  *, kept: JobRecord | None, close: bool, analysis: str, next_step: str) -> Round:
    label = round_name(record.number)
    campaign.preflight(record)
    plan = run_plan(campaign.config, undecided_after(campaign, record.number))
    journal, so_far = SampleJournal.resume(campaign.layout, record.number, plan.repeats)
    site = pin_to_baseline(ResumingSite(campaign.layout, campaign.config, runner, on_event), campaign)
    site.for_round(record.number)
    records = list_records(campaign.layout.jobs_dir)
    kept = kept or left_running(records, label, so_far.written_at, runner.jobs)
    site.adopt = {} if kept is None else adoptable(
        records, kept, label, so_far.written_at if so_far.measurement is not None else kept.submitted_at)
    flops = case_flops(campaign.config.case, campaign.config.operator)
    frontier = await interleaved_frontier(campaign, site, flops)  # shares `adopt`: its kept job too
    await site.sync()
    backend = backend_for(site, flops)
    measurement = await measure(backend, dict(record.changes.parameter_values), plan, journal.write,
                                so_far.measurement, frontier)
    measured = campaign.record_measurement(measurement, record.number)
    journal.finished()
    if not close:
        return measured
    return campaign.close_round(CloseRequest(record.number, analysis=analysis, next_step=next_step))
