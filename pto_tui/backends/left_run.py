"""Which job of a round's run pto-tui left goes on: pure over job records, light to import
(the terminal application asks as a project opens, on its event loop)."""

from __future__ import annotations

from collections.abc import Container, Iterable

from pto_tui.jobs.model import JobRecord, JobState

# how a job of a run pto-tui left may stand: still running (kept, or its pto-tui gone), or
# ended on its own since (a re-attach or `pto-tui attach` collected its end). A
# cancelled, lost or timed-out job is no outcome to take: that step runs again.
LEFT_STATES = (JobState.RUNNING, JobState.SUCCEEDED, JobState.FAILED)


def left_running(records: Iterable[JobRecord], label: str, since: float,
                 followed: Container[str]) -> JobRecord | None:
    """The newest job of the round's run that pto-tui left (submitted after the journal's
    last step ended: its outcome is in no journal) that this runner does not follow, when
    it is running or ended on its own; None otherwise (a lost or cancelled step runs again,
    and a helper job before it is no outcome of it). No other pto-tui follows it: resuming
    writes the round, and the project's writer lock is held. Without a journal (`since` 0)
    only a job still running: an ended one may be of a run already recorded."""
    states = LEFT_STATES if since > 0 else (JobState.RUNNING,)
    found = [r for r in records if r.name.startswith(f"{label} ") and r.submitted_at >= since]
    newest = max(found, key=lambda r: r.submitted_at, default=None)
    if newest is None or newest.id in followed or not newest.detached or newest.state not in states:
        return None
    return newest
