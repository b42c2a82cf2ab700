"""A job: its record, live lines to subscribers, and the flows that run, follow, stop
and finish it (the JobRunner in runner.py creates them).

The parts live below: output.py (log file and subscribers), follow.py (following and
stopping its processes), upkeep.py (background clean-up shared by a runner's jobs).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine, Iterable, Mapping
from pathlib import Path
from typing import Any

from pto_tui.core.errors import PtoError
from pto_tui.core.project.config import Target
from pto_tui.core.project.limits import timed_out_text
from pto_tui.jobs.errors import JobError
from pto_tui.jobs.executor import Executor, ExitInfo, OutStream
from pto_tui.jobs.fetch import fetch_with
from pto_tui.jobs.follow import Ending, JobEvents
from pto_tui.jobs.model import LOG_FILE, JobRecord, JobSpec, JobState, save_record
from pto_tui.jobs.output import JobOutput, Subscription
from pto_tui.jobs.reaper import reap
from pto_tui.jobs.sync import SyncReport, sync_with
from pto_tui.jobs.targets import target_kind
from pto_tui.jobs.upkeep import Upkeep


class Job:
    """One job: its current record, live lines, and the handles to wait, cancel, detach."""

    def __init__(
        self,
        target: Target,
        spec: JobSpec,
        record: JobRecord,
        executor: Executor,
        *,
        job_dir: Path,
        upkeep: Upkeep,
        offsets: Mapping[OutStream, int] | None = None,
    ) -> None:
        self.target = target
        self.spec = spec
        self.executor = executor
        self.job_dir = job_dir
        self._upkeep = upkeep
        self._record = record
        self._output = JobOutput(self.job_dir / LOG_FILE, offsets)
        self._events = JobEvents()
        # the job control of the target's kind (targets.py)
        follower = target_kind(target.kind).follower
        self._follower = follower(executor, spec, record, self._output, self._events, self._remaining,
                                  self._update)
        self._task: asyncio.Task[None] | None = None
        self._done = asyncio.get_running_loop().create_future()
        save_record(self.job_dir, record)

    # ------------------------------------------------------------ public

    @property
    def id(self) -> str:
        return self._record.id

    @property
    def record(self) -> JobRecord:
        return self._record

    @property
    def state(self) -> JobState:
        return self._record.state

    def subscribe(self, max_batches: int = 64) -> Subscription:
        """Lines from now on (the log file holds the earlier ones). Each batch is one read
        chunk (up to 64 KiB), so max_batches bounds the memory held for a slow reader."""
        return self._output.subscribe(max_batches)

    async def wait_started(self) -> JobRecord:
        """Until the command runs on the target (a detached one: launched), or the job ended."""
        await self._events.started.wait()
        return self._record

    async def wait(self) -> JobRecord:
        """The final record (or the last one, for a job that was detached from)."""
        return await asyncio.shield(self._done)

    def done(self) -> bool:
        """True once wait() returns at once."""
        return self._done.done()

    async def cancel(self) -> JobRecord:
        """Stop the job (TERM, KILL, close: bounded) and return its final record."""
        self._request_stop(JobState.CANCELLED)
        return await self.wait()

    @property
    def detached(self) -> bool:
        """Outlives its client: started detached, or handed to a scheduler (the record says)."""
        return self.spec.detached or self._record.detached

    async def detach(self) -> JobRecord:
        """Stop following a detached job; it keeps running on the target."""
        if not self.detached:
            raise JobError("only a detached job can be left running; use cancel()")
        self._events.detach.set()
        return await self.wait()

    def let_go(self) -> None:
        """What closing the runner does: a detached job is left running, others stopped."""
        if self.detached:
            self._events.detach.set()
        else:
            self._request_stop(JobState.CANCELLED)

    def start(self, flow: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run one of this job's flows (run, reattach_flow) as its task."""
        task = asyncio.get_running_loop().create_task(flow)
        self._task = task
        task.add_done_callback(self._task_done)
        return task

    # ------------------------------------------------------------ flows

    async def run(self, sync_from: Path | None, excludes: Iterable[str], fetch_to: Path) -> None:
        meta = self._output.meta
        try:
            await meta(f"job {self.id} on {self.target.label}: {self.spec.command}")
            if sync_from is not None:
                self._update(state=JobState.SYNCING)
                report = await sync_with(self.executor, sync_from, excludes)
                self._update(workspace_hash=report.workspace_hash)
                await meta(describe_sync(report))
            self._update(state=JobState.RUNNING, started_at=time.time())
            if self.spec.detached:
                info, why = await self._follower.run_detached()
            else:
                info, why = await self._follower.run_attached()
            await self._finish(info, why, fetch_to)
        except asyncio.CancelledError:
            self._update(state=self._events.stop_reason or JobState.CANCELLED, ended_at=time.time())
            await meta(f"{self.state.value} before it started")
        except PtoError as error:
            await self._end_with(JobState.FAILED, error.render())
        except Exception as error:  # a bug must still end the job, never hang its waiters
            await self._end_with(JobState.FAILED, f"{type(error).__name__}: {error}")
        finally:
            self._end()

    async def reattach_flow(self, fetch_to: Path) -> None:
        try:
            await self._output.meta(f"re-attaching to job {self.id} on {self.target.label}")
            info, why = await self._follower.follow_detached()
            await self._finish(info, why, fetch_to)
        except PtoError as error:
            await self._end_with(JobState.LOST, error.render())
        except Exception as error:
            await self._end_with(JobState.LOST, f"{type(error).__name__}: {error}")
        finally:
            self._end()

    # ------------------------------------------------------------ internals

    def _request_stop(self, reason: JobState) -> None:
        self._events.request_stop(reason)
        if self._task is not None and self.state in (JobState.QUEUED, JobState.SYNCING):
            self._task.cancel()  # nothing runs yet: no process to stop

    def _update(self, **changes: object) -> None:
        self._record = self._record.evolve(**changes)
        save_record(self.job_dir, self._record)

    def _remaining(self) -> float | None:
        if self.spec.timeout is None:
            return None
        started = self._record.started_at or time.time()
        return max(0.0, self.spec.timeout - (time.time() - started))

    async def _end_with(self, state: JobState, error: str) -> None:
        """A flow broke off with an error: the job ends in state (failed, lost)."""
        self._update(state=state, ended_at=time.time(), error=error)
        await self._output.meta(f"{state.value}: {error}")

    def _end(self) -> None:
        self._events.started.set()
        self._output.end()
        if not self._done.done():
            self._done.set_result(self._record)

    def _task_done(self, task: asyncio.Task[None]) -> None:
        """Safety net: a task cancelled before it ever ran still ends the job."""
        if self._done.done():
            return
        if not self._record.state.is_final:
            state = self._events.stop_reason or JobState.CANCELLED
            self._update(state=state, ended_at=time.time())
        self._end()

    async def _finish(self, info: ExitInfo, why: Ending, fetch_to: Path) -> None:
        meta = self._output.meta
        changes: dict[str, object] = {
            "ended_at": time.time(),
            "exit_code": info.exit_code,
            "signal": info.signal,
        }
        if why == "detach":
            self._update(state=JobState.RUNNING)
            await meta("detached: the job keeps running on the target")
            return
        if why in ("stop", "timeout"):
            state = self._events.stop_reason or JobState.CANCELLED
            if state is JobState.TIMED_OUT:  # the step's failure, in words
                changes["error"] = timed_out_text(self.spec.timeout or 0)
            self._update(state=state, **changes)
            await meta(f"{state.value} ({describe_exit(info)})")
        elif not info.known:
            self._update(state=JobState.LOST, error=info.detail or "outcome unknown", **changes)
            await meta(f"lost: {info.detail or 'outcome unknown'}")
            self._orphan_clean_up()
            return
        elif info.exit_code == 0:
            self._update(state=JobState.SUCCEEDED, **changes)
            await meta(f"succeeded ({describe_exit(info)})")
            if self.spec.fetch:
                await self._fetch(fetch_to)
        else:
            self._update(state=JobState.FAILED, **changes)
            await meta(f"failed ({describe_exit(info)})")
        if not self.detached and not self.executor.on_this_machine:
            self._upkeep.remove_later(self.target, self._record.remote_dir)

    async def _fetch(self, fetch_to: Path) -> None:
        self._update(state=JobState.FETCHING)
        try:
            paths = await fetch_with(self.executor, self.spec.fetch, fetch_to, self._record.cwd)
        except PtoError as error:
            self._update(state=JobState.FAILED, error=error.render())
            await self._output.meta(f"fetch failed: {error.render()}")
            return
        self._update(state=JobState.SUCCEEDED, fetched=tuple(str(p) for p in paths))
        await self._output.meta(f"fetched {len(paths)} file(s) into {fetch_to}")

    def _orphan_clean_up(self) -> None:
        """After a lost connection, kill what may survive of an attached job (a silent
        command outlives the connection, docs/remote.md §5), once the target answers again."""
        if self.detached or self.executor.on_this_machine:
            return
        self._update(orphan=True)  # until the kill is done: the next runner retries it
        self._upkeep.background(self._reap)

    async def _reap(self) -> None:
        self._record = await reap(self.executor, self.job_dir.parent, self._record)


def describe_exit(info: ExitInfo) -> str:
    if info.signal:
        return f"killed by SIG{info.signal}"
    if info.exit_code is not None:
        return f"exit code {info.exit_code}"
    return info.detail or "no exit status"


def describe_sync(report: SyncReport) -> str:
    if report.method == "noop":
        return f"sync: not needed (the target works in {report.remote_dir})"
    return (
        f"sync: {len(report.uploaded)} uploaded, {len(report.deleted)} deleted "
        f"of {report.files} files ({report.method}, {report.seconds:.2f} s)"
    )
