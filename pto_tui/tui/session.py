"""One open project: the campaign and what panes read.

Panes never touch files themselves: they read the LoadedProject (read off the UI thread by
`Session.load`, handed to every pane by the project screen) and write through the
campaign's methods, the same calls the CLI makes. Each write takes the project lock for
itself only, so a coding agent's CLI or MCP writes go in between; `watch` notices them
(`disk_watch`). The project opens read-only only when its folder is not writable by this
user.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pto_tui.backends.left_run import left_running
from pto_tui.backends.sample_journal import unfinished
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.status import CampaignStatus
from pto_tui.core.errors import PtoError
from pto_tui.core.project.layout import ProjectLayout, round_name
from pto_tui.core.rounds.drafts import Draft, list_drafts
from pto_tui.core.rounds.records import Round, copy_record
from pto_tui.jobs.model import JobRecord, JobState, list_records
from pto_tui.tui.disk_watch import DiskWatch

if TYPE_CHECKING:
    from pto_tui.jobs.job import Job
    from pto_tui.tui.keep_running import KeepRunningRunner


class PendingDraft(Protocol):
    """A form's draft keeper as the session sees it (tui/drafts.py): one it can flush."""

    async def flush(self) -> None: ...


@dataclass
class LoadedProject:
    """What the panes show of the project: its records as last read from disk."""

    status: CampaignStatus
    rounds: list[Round]
    jobs: list[JobRecord] = field(default_factory=list)  # every job of the project, oldest first
    # sample journals of round runs that did not finish (backends.sample_journal.unfinished)
    journals: list[dict[str, Any]] = field(default_factory=list)

    def round(self, number: int) -> Round | None:
        return next((r for r in self.rounds if r.number == number), None)

    @property
    def open_round(self) -> Round | None:
        number = self.status.open_round
        return self.round(number) if number is not None else None


class Session:
    def __init__(self, root: Path) -> None:
        self.root = root
        writable = os.access(root, os.W_OK)
        self.lock_problem = "" if writable else f"{root} is not writable by you"
        self.campaign = Campaign(root, write=writable, command="pto-tui (terminal app)")
        self.watch = DiskWatch(self.campaign.layout)
        self.campaign.after_write = self.watch.note_own  # our own writes are not news
        self._runner: KeepRunningRunner | None = None
        self.loaded: LoadedProject | None = None  # set by the project screen as it shows it
        self.draft_keepers: set[PendingDraft] = set()  # the forms open now that keep drafts

    @property
    def read_only(self) -> bool:
        return not self.campaign.writable

    @property
    def layout(self) -> ProjectLayout:  # re-exported for panes
        return self.campaign.layout

    def load(self) -> LoadedProject:
        """Read rounds, status and jobs (blocking: call from a thread worker)."""
        self.campaign.refresh_project()  # another process may have changed project.toml
        # the closed rounds as the read model holds them (sealed: panes only read them),
        # copies of the open ones, which forms fill in: no second copy of 10,000 records
        rounds = [r if r.is_closed else copy_record(r) for r in self.campaign.current_rounds()]
        closed = {r.number for r in rounds if r.is_closed}  # a closed round's journal is spent
        return LoadedProject(status=self.campaign.status(rounds), rounds=rounds,
                             jobs=list_records(self.layout.jobs_dir),
                             journals=[j for j in unfinished(self.layout) if j["round"] not in closed])

    def runner(self) -> KeepRunningRunner:
        if self._runner is None:  # imported when first needed: asyncssh is heavy
            from pto_tui.tui.keep_running import KeepRunningRunner

            self._runner = KeepRunningRunner(self.layout.jobs_dir)
        return self._runner

    def live_jobs(self) -> list[Job]:
        """Jobs started or re-attached by this app that have not ended."""
        return [] if self._runner is None else self._runner.live()

    def left_running(self) -> list[JobRecord]:
        """Detached jobs of this project still running that this app does not follow
        (kept running when pto-tui last closed): the Run pane re-attaches to them. Also the
        open round's step whose job ended while no pto-tui followed it (after its run's
        journal was last written): the run goes on from its outcome."""
        if self.read_only or self.loaded is None:
            return []
        ours: set[str] = set() if self._runner is None else set(self._runner.jobs)
        left = [job for job in self.loaded.jobs
                if job.detached and job.state is JobState.RUNNING and job.id not in ours]
        ended = self._ended_step_of_open_round(ours)
        return left if ended is None or ended in left else [*left, ended]

    def _ended_step_of_open_round(self, ours: set[str]) -> JobRecord | None:
        loaded = self.loaded
        if loaded is None or loaded.open_round is None:
            return None
        label = round_name(loaded.open_round.number)
        journal = next((j for j in loaded.journals
                        if Path(j["file"]).name == f"{label}.json"), None)
        if journal is None or not journal.get("written_at"):
            return None
        found = left_running(loaded.jobs, label, float(journal["written_at"]), ours)
        return found if found is not None and found.state.is_final else None

    def keep_jobs(self, keep: bool) -> None:
        """Whether leaving the app lets running jobs go on (True) or stops them (no runner
        yet: no job either)."""
        if self._runner is not None:
            self._runner.keeping = keep

    async def flush_drafts(self) -> list[Draft]:
        """Every form's pending draft written; the project's drafts then."""
        for keeper in list(self.draft_keepers):
            await keeper.flush()
        if self.read_only:
            return []
        return await asyncio.to_thread(list_drafts, self.layout)

    async def aclose(self) -> None:
        if self._runner is not None:
            with contextlib.suppress(PtoError, OSError, TimeoutError):
                await self._runner.close()
        self.campaign.close()
