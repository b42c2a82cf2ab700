"""What pto-tui left when it last closed, and following it again: jobs kept running (their
log so far, then live) and a round run that did not finish (its sample journal).

A job belongs to a round by its record's `round_number`, never by its name. The earlier
lines of a job re-attached are read from its log file before it is re-attached, and the
live ones subscribed at once after, so no line is lost or shown twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.widgets import Static

from pto_tui.core.project.layout import round_name
from pto_tui.jobs.logfile import read_log
from pto_tui.jobs.model import JobRecord, JobState, LogLine
from pto_tui.tui.session import LoadedProject, Session
from pto_tui.tui.widgets.log_pane import LogPane

if TYPE_CHECKING:  # the job layer brings asyncssh: imported when a job is re-attached
    from pto_tui.jobs.job import Job


async def then_live(earlier: Iterable[LogLine], live: AsyncIterator[LogLine]) -> AsyncIterator[LogLine]:
    for line in earlier:
        yield line
    async for line in live:
        yield line


async def reattach(session: Session, record: JobRecord) -> tuple[Job, AsyncIterator[LogLine]]:
    """Re-attach to a job left running; returns it and its whole log as one stream."""
    earlier = await asyncio.to_thread(lambda: list(read_log(Path(record.log_path))))
    target = session.campaign.config.target
    job = await session.runner().reattach(target, record.id)
    return job, then_live(earlier, job.subscribe())  # subscribed before anything awaits


def kept_step_of_round(record: JobRecord, loaded: LoadedProject | None) -> bool:
    """Whether a job left running was a step of the open round's run: that run goes on
    from it."""
    if loaded is None or loaded.open_round is None:
        return False
    return record.round_number == loaded.open_round.number


def ended_note(record: JobRecord) -> str:
    """What to do once a re-attached job has ended (its round was not measured from it)."""
    name = record.name or record.id
    if record.round_number is not None:
        return (f"{name} ended: {record.state.value}. Its output is in the log; the round "
                "was not measured from it: r runs the round again to record a measurement.")
    return f"{name} ended: {record.state.value}"


async def follow_again(session: Session, record: JobRecord, log_pane: LogPane,
                       notify: Callable[..., Any]) -> JobRecord:
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


def unfinished_of_open_round(loaded: LoadedProject | None) -> dict[str, Any] | None:
    """The open round's journal of a run that did not finish (its own file, not the older
    ones kept beside it), None when there is none."""
    if loaded is None or loaded.open_round is None:
        return None
    name = f"{round_name(loaded.open_round.number)}.json"
    return next((j for j in loaded.journals if j["file"].endswith(f"/{name}")), None)


async def discard_unfinished(session: Session, loaded: LoadedProject | None,
                             notify: Callable[..., None]) -> bool:
    """The open round's unfinished samples set aside, so its run starts over; False (and
    said) when there are none."""
    from pto_tui.backends.sample_journal import discard  # backends are imported when first used

    journal = unfinished_of_open_round(loaded)
    if journal is None:
        notify("no unfinished samples of the open round to discard", title="run")
        return False
    moved = await asyncio.to_thread(discard, session.layout, journal["round"])
    notify(f"unfinished samples set aside in {moved}; r runs the round from its start",
           title="discarded")
    return True


def left_over_text(loaded: LoadedProject | None, following: list[JobRecord],
                   running: bool) -> Text | None:
    """What pto-tui left when it last closed: jobs kept running (re-attached now) and a
    round run that did not finish, with the key that acts on each. None: nothing left."""
    text = Text()
    for record in following:
        name = f"job {record.name or record.id} ({record.id})"
        if record.state.is_final:  # ended while nobody followed it: its outcome is taken
            text.append(f"{name} ended while pto-tui was closed ({record.state.value}): "
                        "its result goes into the round's run\n", style="cyan")
            continue
        text.append(f"{name} still running on {record.target}: re-attached", style="cyan")
        text.append(" (x stops it)\n", style="dim")
    journal = unfinished_of_open_round(loaded)
    if journal is not None and not running and loaded is not None and loaded.open_round is not None:
        number = loaded.open_round.number
        ours = [j for j in loaded.jobs if j.round_number == number]
        last = max(ours, key=lambda j: j.submitted_at, default=None)
        why = (f"lost: job {last.name} ({last.id}) is gone"
               if last is not None and last.state is JobState.LOST else "its run did not finish")
        text.append(f"{round_name(number)} {why}; {len(journal['samples_us'])} of "
                    f"{journal['planned_runs']} samples recorded (journal)", style="yellow")
        text.append(" — r runs the rest, d discards them\n", style="bold")
    text.rstrip()
    return text if text.plain else None


class LeftRunningNotice(Static):
    """Above the loop, hidden when nothing was left: the jobs left running that the pane
    re-attached to and still follows, and the open round's run that did not finish."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.seen: set[str] = set()  # ids of jobs left running: each is re-attached once
        self.following: dict[str, JobRecord] = {}  # those of them still running

    def not_seen(self, left: list[JobRecord]) -> list[JobRecord]:
        """The jobs left running not re-attached yet; from now on they are followed."""
        fresh = [record for record in left if record.id not in self.seen]
        for record in fresh:
            self.seen.add(record.id)
            self.following[record.id] = record
        return fresh

    def ended(self, job_id: str) -> bool:
        """A job has ended: no longer followed. Whether it was one left running."""
        return self.following.pop(job_id, None) is not None

    def draw(self, loaded: LoadedProject | None, running: bool) -> None:
        left = left_over_text(loaded, list(self.following.values()), running)
        self.update(left or "")
        self.set_class(left is None, "hidden")
