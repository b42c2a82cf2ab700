"""Running an explore group (core/campaign/explore.py): its rounds built and measured at
once, each in a copy of its own workspace, then closed in order against the group's base.

Each round's files (its snapshot) are written to `.pto-tui/explore/iter-XXX/` and, on a
target with a work dir W, uploaded to `W-explore/iter-XXX` (a local target without a work
dir builds in the copy itself). On a local or SSH target each round holds one NPU of
`[target] npu_ids` for its whole run (build, correctness, benchmark), so as many rounds run
at once as there are NPUs listed; on a slurm target each NPU step is a Slurm job, and Slurm
queues them onto the NPUs it has free. Each round's steps are named after it ("iter-005
build", "iter-005 benchmark 2/5"), so the caller shows the group's steps side by side. Rounds
close in order, each as soon as it and the ones before it are measured; a round whose run
is interrupted (cancelled, a lost job) stays open, its samples in its journal, the others
close; cancelling the group cancels every round's running step.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from pto_tui.backends.kinds.registry import backend_for
from pto_tui.backends.loop import case_flops, measure, run_plan, site_for, undecided_after
from pto_tui.backends.sample_journal import SampleJournal
from pto_tui.backends.site import EventSink, OperatorSite, StepEvent
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.explore import group_rounds
from pto_tui.core.errors import InputError, PtoError
from pto_tui.core.project.layout import round_name
from pto_tui.core.rounds.records import Measurement, Round
from pto_tui.core.vocabulary import TargetKind
from pto_tui.jobs.runner import JobRunner

FOLDER = "explore"  # in the project's .pto-tui/


class GroupInterrupted(PtoError):
    """Some rounds of the group could not be measured: they stay open; the rest closed."""


@dataclass
class GroupOutcome:
    closed: list[Round]
    interrupted: dict[int, str]  # round -> why its run stopped


def npu_slots(campaign: Campaign, rounds: int, slots: int | None) -> list[int | None]:
    """The NPUs the group's rounds take turns on: `[target] npu_ids` (or npu_id alone) on a
    local or SSH target; on a slurm target one slot per round (Slurm places the jobs)."""
    target = campaign.config.target
    if target.kind is TargetKind.SLURM:
        ids: list[int | None] = [None] * rounds
    else:
        ids = list(target.npu_ids or (target.npu_id,))
    if slots is not None:
        if slots < 1:
            raise InputError(f"--slots must be 1 or more, got {slots}", key="slots")
        ids = ids[:slots]
    return ids


def open_group(campaign: Campaign, group: str = "") -> list[Round]:
    """The open rounds of `group` (by default the newest group with open rounds), in order."""
    rounds = campaign.current_rounds()
    if not group:
        grouped = [r.group for r in rounds if r.group and not r.is_closed]
        if not grouped:
            raise InputError("no explore group has open rounds: start one with `pto-tui explore`")
        group = grouped[-1]
    found = [r for r in group_rounds(rounds, group) if not r.is_closed]
    if not found:
        raise InputError(f"explore group {group!r} has no open round")
    return found


async def run_group(campaign: Campaign, runner: JobRunner, on_event: EventSink | None = None, *,
                    rounds: Sequence[Round] | None = None, slots: int | None = None) -> GroupOutcome:
    """Build and measure the group's open `rounds` (by default the newest group's) at
    once, then close them in order."""
    rounds = rounds or open_group(campaign)
    if campaign.config.discipline.interleave:
        raise InputError("explore with [discipline] interleave = true is not supported yet: each "
                         "round would build the frontier in the same work dir; explore without it",
                         key="discipline.interleave")
    name = rounds[0].group
    with campaign.running(None, f"explore {name}"):
        free: asyncio.Queue[int | None] = asyncio.Queue()
        for npu in npu_slots(campaign, len(rounds), slots):
            free.put_nowait(npu)
        tasks: list[asyncio.Future[Measurement]] = [
            asyncio.ensure_future(_measured(campaign, runner, record, free, on_event)) for record in rounds]
        try:
            return await _close_in_order(campaign, rounds, tasks)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


async def _close_in_order(campaign: Campaign, rounds: Sequence[Round],
                          tasks: list[asyncio.Future[Measurement]]) -> GroupOutcome:
    outcome = GroupOutcome([], {})
    for record, task in zip(rounds, tasks, strict=True):
        try:
            measurement = await asyncio.shield(task)
        except PtoError as error:  # its step was lost, refused: the round stays open
            outcome.interrupted[record.number] = error.render()
            continue
        outcome.closed.append(campaign.close_group_round(record.number, measurement))
        SampleJournal.resume(campaign.layout, record.number, 0)[0].finished()  # in round.toml now
    return outcome


async def _measured(campaign: Campaign, runner: JobRunner, record: Round,
                    free: asyncio.Queue[int | None], on_event: EventSink | None) -> Measurement:
    """One round's build and benchmark runs, in its own copy, on an NPU of its own."""
    npu = await free.get()
    try:
        site = await asyncio.to_thread(_site, campaign, runner, record, npu, _labelled(record, on_event))
        await site.sync()
        flops = case_flops(campaign.config.case, campaign.config.operator)
        plan = run_plan(campaign.config, undecided_after(campaign, record.number))
        journal, so_far = SampleJournal.resume(campaign.layout, record.number, plan.repeats)
        return await measure(backend_for(site, flops), dict(record.changes.parameter_values), plan,
                             journal.write, so_far.measurement)
    finally:
        free.put_nowait(npu)


def _labelled(record: Round, on_event: EventSink | None) -> EventSink:
    """The caller's sink, each step named after its round ("iter-005 build")."""
    sink = on_event or (lambda _event: None)
    name = round_name(record.number)
    return lambda event: sink(StepEvent(f"{name} {event.step}", event.kind, event.line, event.record))


def _site(campaign: Campaign, runner: JobRunner, record: Round, npu: int | None,
          sink: EventSink) -> OperatorSite:
    """The round's own copy of its workspace (its snapshot), on its own work dir and NPU."""
    name = round_name(record.number)
    folder = campaign.layout.state_dir / FOLDER / name
    partial = folder.with_name(name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    campaign.snapshots.write_copy(record.snapshot, partial)
    shutil.rmtree(folder, ignore_errors=True)
    partial.rename(folder)
    site = site_for(campaign, runner, sink)
    configured = campaign.config.target
    work_dir = "" if site.on_this_machine and not configured.work_dir else (
        f"{site.target.work_dir.rstrip('/')}-{FOLDER}/{name}")
    site = site.elsewhere(Path(folder), work_dir)
    if npu is not None:  # {npu} and PTO_NPU_ID are this round's NPU
        site.target = replace(site.target, npu_id=npu)
        site.config = replace(site.config, target=replace(site.config.target, npu_id=npu))
    site.for_round(record.number)
    return site
