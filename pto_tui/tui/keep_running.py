"""Jobs of the terminal app outlive it: started detached, kept running on quit or hangup.

Every job the app submits (loop steps, `!` commands) is started detached on its target,
so a dropped SSH terminal or a quit leaves it running; the next time the project opens,
the Run pane re-attaches to it and shows its log. While `keeping` is set, the services'
own cancel on their way out (a worker cancelled as the app closes) only lets go of the
job; an explicit stop still stops it (TERM, then KILL).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from pto_tui.core.project.config import Target
from pto_tui.jobs.executor import OutStream
from pto_tui.jobs.job import Job
from pto_tui.jobs.model import JobRecord, JobSpec
from pto_tui.jobs.runner import JobRunner
from pto_tui.jobs.targets import executor_for


class KeptJob(Job):
    """A job whose cancel() lets it run on while its runner is keeping jobs."""

    keeper: KeepRunningRunner | None = None

    async def cancel(self) -> JobRecord:
        if self.keeper is not None and self.keeper.keeping and self.spec.detached:
            return await self.detach()
        return await super().cancel()


class KeepRunningRunner(JobRunner):
    def __init__(self, log_dir: Path) -> None:
        super().__init__(log_dir)
        self.keeping = False  # set when the app leaves and the user chose to keep jobs

    async def submit(self, target: Target, spec: JobSpec, **options: Any) -> Job:
        return await super().submit(target, replace(spec, detached=True), **options)

    def _job(
        self,
        target: Target,
        spec: JobSpec,
        record: JobRecord,
        offsets: Mapping[OutStream, int] | None = None,
    ) -> Job:
        job = KeptJob(target, spec, record, executor_for(target, self.pool),
                      job_dir=self.log_dir / record.id, upkeep=self.upkeep, offsets=offsets)
        job.keeper = self
        return job

    def live(self) -> list[Job]:
        """Jobs of this app that have not ended (oldest first)."""
        return [job for job in self.jobs.values() if not job.done()]

