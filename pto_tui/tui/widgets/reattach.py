"""Following again a job that kept running after pto-tui closed: its log so far, then live.

The earlier lines are read from the job's log file before the job is re-attached, and
the live ones subscribed at once after, so no line is lost or shown twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any

from pto_tui.core.project.layout import round_dir_name
from pto_tui.jobs.logfile import read_log
from pto_tui.jobs.model import JobRecord, LogLine
from pto_tui.tui.session import Session, Snapshot
from pto_tui.tui.widgets.log_pane import LogPane


async def then_live(earlier: Iterable[LogLine], live: AsyncIterator[LogLine]) -> AsyncIterator[LogLine]:
    for line in earlier:
        yield line
    async for line in live:
        yield line


async def reattach(session: Session, record: JobRecord):  # noqa: ANN201 - (Job, lines)
    """Re-attach to a job left running; returns it and its whole log as one stream."""
    earlier = await asyncio.to_thread(lambda: list(read_log(Path(record.log_path))))
    target = session.campaign.config.target
    job = await session.runner().reattach(target, record.id)
    return job, then_live(earlier, job.subscribe())  # subscribed before anything awaits


def kept_step_of_round(record: JobRecord, snap: Snapshot | None) -> bool:
    """Whether a job left running was a step of the open round's run (the services name
    them "iter-003 build", "iter-003 benchmark 2/7"...): that run goes on from it."""
    if snap is None or snap.open_round is None:
        return False
    return record.name.startswith(f"{round_dir_name(snap.open_round.number)} ")


def ended_note(record: JobRecord) -> str:
    """What to do once a re-attached job has ended (its round was not measured from it)."""
    name = record.name or record.id
    if record.name.startswith("iter-"):
        return (f"{name} ended: {record.state.value}. Its output is in the log; the round "
                "was not measured from it: r runs the round again to record a measurement.")
    return f"{name} ended: {record.state.value}"


async def follow_again(session: Session, record: JobRecord, log_pane: LogPane,
                       notify: Any) -> JobRecord:
    """Show a job left running in the log pane until it ends; returns its last record."""
    job, lines = await reattach(session, record)
    name = record.name or record.id
    log_pane.follow(lines, f"{name} (re-attached)", job.cancel)
    notify(f"{name} kept running while pto-tui was closed; re-attached: its log is in "
           "the Run pane (x stops it)", title="job re-attached", timeout=10)
    final: JobRecord = await job.wait()
    log_pane.set_state(final.state.value)
    if final.state.is_final:
        notify(ended_note(final), title="re-attached job", timeout=15)
    return final
