"""JobRunner: submit jobs to targets, follow their output, cancel them, re-attach. Each
target's executor and job control are its kind's (targets.py).

A job moves queued → syncing → running → fetching → succeeded, or ends failed,
cancelled, timed_out or lost. Each has a folder under the runner's log_dir with
record.json (the latest JobRecord) and output.log (see logfile.py). Stopping is
our own and bounded at every step: TERM to the process group, then KILL, then
close (docs/remote.md §5: asyncssh's own timeouts leave the remote command running).
"""

from __future__ import annotations

import asyncio
import shlex
import time
from collections.abc import Coroutine, Iterable, Mapping
from pathlib import Path
from typing import Any

from pto_tui.core.errors import InputError, PtoError
from pto_tui.core.project.config import Target
from pto_tui.core.workspace.files import DEFAULT_EXCLUDES
from pto_tui.jobs import shell
from pto_tui.jobs.errors import JobError
from pto_tui.jobs.executor import Executor, OutStream
from pto_tui.jobs.fetch import fetch_with
from pto_tui.jobs.job import Job
from pto_tui.jobs.limits import HELPER_TIMEOUT, KILL_GRACE, TERM_GRACE
from pto_tui.jobs.logfile import repair_and_count
from pto_tui.jobs.model import (
    LOG_FILE,
    JobRecord,
    JobSpec,
    JobState,
    load_record,
    new_job_id,
    this_client,
)
from pto_tui.jobs.reaper import orphans, reap
from pto_tui.jobs.ssh_pool import SshPool
from pto_tui.jobs.sync import SyncReport, sync_with
from pto_tui.jobs.targets import executor_for
from pto_tui.jobs.upkeep import Upkeep


class JobRunner:
    """Runs jobs on targets of every kind; one SSH pool shared by all of them."""

    def __init__(self, log_dir: Path, pool: SshPool | None = None) -> None:
        self.log_dir = Path(log_dir)
        self.pool = pool or SshPool()
        self.jobs: dict[str, Job] = {}
        self.upkeep = Upkeep(self.pool)
        self._reaped: set[Target] = set()  # targets already checked for orphaned jobs

    def clean_up(self) -> None:
        """Remove the remote folders of finished attached jobs (in the background)."""
        self.upkeep.clean_up()

    def _start(self, job: Job, flow: Coroutine[Any, Any, None]) -> Job:
        self.jobs[job.id] = job
        self.upkeep.track(job.start(flow))
        return job

    async def submit(
        self,
        target: Target,
        spec: JobSpec,
        *,
        sync_from: Path | None = None,
        excludes: Iterable[str] = DEFAULT_EXCLUDES,
        fetch_to: Path | None = None,
        workspace: Path | None = None,
    ) -> Job:
        """Queue a job and return at once; subscribe() before awaiting anything else to
        see every line. sync_from uploads that folder to the target first. workspace: the
        job runs in its copy (the target's work dir) even when nothing is uploaded; on a
        local target without a work dir that is the workspace itself."""
        job_id = new_job_id()
        while job_id in self.jobs or (self.log_dir / job_id).exists():
            job_id = new_job_id()
        home = sync_from or workspace
        executor = self.executor(target)
        here = executor.on_this_machine
        if here and not target.work_dir and home is not None and not home.is_dir():
            raise InputError(f"workspace folder not found: {home}", key="target.work_dir")
        default_cwd = str(home) if here and home else ""
        cwd = shell.job_cwd(target, spec, default_cwd)
        record = JobRecord(
            id=job_id,
            command=spec.command,
            target=target.label,
            name=spec.name,
            round_number=spec.round_number,
            notes=dict(spec.notes),
            timeout=spec.timeout,
            internal=spec.internal,
            cwd=cwd,
            env=dict(spec.env),
            detached=spec.detached,
            submitted_at=time.time(),
            log_path=str(self.log_dir / job_id / LOG_FILE),
            remote_dir=executor.job_dir(job_id, str(self.log_dir)),
            **this_client(),
        )
        await self.reap_orphans(target)
        job = self._job(target, spec, record)
        fetched = fetch_to or job.job_dir / "fetched"
        return self._start(job, job.run(sync_from, tuple(excludes), fetched))

    async def reattach(self, target: Target, job_id: str) -> Job:
        """Follow a detached job again (after a restart or a drop): the log continues from
        where it stopped; an outcome that cannot be read makes the job LOST."""
        job_dir = self.log_dir / job_id
        record = load_record(job_dir)
        if record is None:
            record = JobRecord(
                id=job_id,
                command="(unknown: no local record)",
                target=target.label,
                detached=True,
                submitted_at=time.time(),
                log_path=str(job_dir / LOG_FILE),
                remote_dir=self.executor(target).job_dir(job_id, str(self.log_dir)),
            )
        if not record.detached:
            raise JobError(f"job {job_id} was not started detached; it cannot be re-attached")
        offsets = repair_and_count(job_dir / LOG_FILE)
        record = record.evolve(state=JobState.RUNNING, ended_at=None, error="", **this_client())
        spec = JobSpec(command=record.command, detached=True, name=record.name)
        resume_at: dict[OutStream, int] = {"stdout": offsets["stdout"], "stderr": offsets["stderr"]}
        job = self._job(target, spec, record, resume_at)
        return self._start(job, job.reattach_flow(job.job_dir / "fetched"))

    async def ended_unfollowed(self, target: Target, records: Iterable[JobRecord]) -> dict[str, int]:
        """Of the detached jobs on `target` that no pto-tui follows (their records still say
        running), those that ended there, with the exit status each recorded: their output
        is collected when they are re-attached. One small command for all of them; {} when
        the target does not answer in time."""
        left = [r for r in records if r.detached and r.target == target.label
                and not r.state.is_final and r.remote_dir]
        if not left:
            return {}
        script = "; ".join(f"echo {shlex.quote(r.id)} $({shell.status_script(r.remote_dir)})"
                           for r in left)
        try:
            result = await asyncio.wait_for(self.executor(target).run(script), HELPER_TIMEOUT)
        except (PtoError, TimeoutError, OSError):
            return {}
        ended: dict[str, int] = {}
        for line in result.stdout.decode(errors="replace").splitlines():
            fields = line.split()
            if len(fields) >= 3 and fields[2].lstrip("-").isdigit():
                ended[fields[0]] = int(fields[2])
        return ended

    async def reap_orphans(self, target: Target) -> list[JobRecord]:
        """Kill what jobs of a pto-tui that is gone left running on `target` (once per
        target and runner, and only when the records show some); they become LOST."""
        if target in self._reaped:
            return []
        self._reaped.add(target)
        executor = self.executor(target)
        return [await reap(executor, self.log_dir, r) for r in orphans(self.log_dir, target, self.jobs)]

    def executor(self, target: Target) -> Executor:
        """What runs scripts and moves files on `target` (its kind's, jobs/targets.py)."""
        return executor_for(target, self.pool)

    def _job(
        self,
        target: Target,
        spec: JobSpec,
        record: JobRecord,
        offsets: Mapping[OutStream, int] | None = None,
    ) -> Job:
        return Job(target, spec, record, self.executor(target),
                   job_dir=self.log_dir / record.id, upkeep=self.upkeep, offsets=offsets)

    async def sync_workspace(
        self, target: Target, local_dir: Path, excludes: Iterable[str] = DEFAULT_EXCLUDES
    ) -> SyncReport:
        return await sync_with(self.executor(target), local_dir, excludes)

    async def fetch(
        self, target: Target, remote_paths: Iterable[str], local_dir: Path, base: str = ""
    ) -> list[Path]:
        return await fetch_with(self.executor(target), remote_paths, local_dir, base)

    async def close(self) -> None:
        """Cancel attached jobs, leave detached ones running, close connections."""
        for job in list(self.jobs.values()):
            if not job.done():
                job.let_go()
        pending = [job.wait() for job in self.jobs.values() if not job.done()]
        if pending:
            await asyncio.wait_for(
                asyncio.gather(*pending), TERM_GRACE + KILL_GRACE + 2 * HELPER_TIMEOUT
            )
        self.clean_up()
        await self.upkeep.close()
        await self.pool.close()
