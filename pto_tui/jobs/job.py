"""A job: its record, live lines to subscribers, and the flows that run, follow, stop
and finish it (the JobRunner in runner.py creates them)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from pto_tui.core.errors import PtoError
from pto_tui.core.project.config import Target
from pto_tui.jobs import shell
from pto_tui.jobs.errors import JobError
from pto_tui.jobs.executor import Executor, ExitInfo, OutStream, Process
from pto_tui.jobs.logfile import LineSplitter, LogWriter, decode_line
from pto_tui.jobs.model import (
    LOG_FILE,
    JobRecord,
    JobSpec,
    JobState,
    LogLine,
    Stream,
    save_record,
)
from pto_tui.jobs.sync import SyncReport, fetch_with, sync_with

if TYPE_CHECKING:
    from pto_tui.jobs.runner import JobRunner

TERM_GRACE = 3.0  # seconds between TERM and KILL
KILL_GRACE = 2.0  # seconds between KILL and giving up (closing the channel)
HELPER_TIMEOUT = 10.0  # bound on the small helper commands (kill, status, clean-up)
CLOSE_GRACE = 2.0  # how long close() lets background clean-up finish
REATTACH_TRIES = 3  # a detached job's follow is resumed this often after a drop
CLEAN_UP_BATCH = 50  # finished attached jobs whose remote folders are removed together


class Subscription:
    """Live lines of one job. Bounded: a slow reader slows the job (back-pressure)."""

    def __init__(self, job: Job, max_batches: int) -> None:
        self._job = job
        self._queue: asyncio.Queue[list[LogLine] | None] = asyncio.Queue(max_batches)
        self._batch: list[LogLine] = []
        self._ended = False

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> LogLine:
        while not self._batch:
            if self._ended and self._queue.empty():
                raise StopAsyncIteration
            batch = await self._queue.get()
            if batch is None:
                self._ended = True
                raise StopAsyncIteration
            self._batch = batch[::-1]
        return self._batch.pop()

    async def put(self, batch: list[LogLine]) -> None:
        await self._queue.put(batch)

    def end(self) -> None:
        try:
            self._queue.put_nowait(None)
        except asyncio.QueueFull:
            self._ended = True  # the reader stops once it has drained the queue

    def close(self) -> None:
        """Stop receiving lines; never blocks the job again."""
        self._ended = True
        self._job._subscribers.discard(self)
        while not self._queue.empty():
            self._queue.get_nowait()

    async def aclose(self) -> None:
        self.close()


class Job:
    """One job: its current record, live lines, and the handles to wait, cancel, detach."""

    def __init__(
        self,
        runner: JobRunner,
        target: Target,
        spec: JobSpec,
        record: JobRecord,
        executor: Executor,
    ) -> None:
        self.runner = runner
        self.target = target
        self.spec = spec
        self.executor = executor
        self._record = record
        self.job_dir = runner.log_dir / record.id
        self._log = LogWriter(self.job_dir / LOG_FILE)
        self._subscribers: set[Subscription] = set()
        self._stop_reason: JobState | None = None
        self._stop = asyncio.Event()
        self._detach = asyncio.Event()
        self._started = asyncio.Event()  # the command runs on the target (or the job ended)
        self._task: asyncio.Task[None] | None = None
        self._done = asyncio.get_running_loop().create_future()
        self._offsets: dict[OutStream, int] = {"stdout": 0, "stderr": 0}
        self._splitters: dict[OutStream, LineSplitter] = {
            "stdout": LineSplitter(),
            "stderr": LineSplitter(),
        }
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
        subscription = Subscription(self, max_batches)
        if self._done.done():
            subscription.end()
        else:
            self._subscribers.add(subscription)
        return subscription

    async def wait_started(self) -> JobRecord:
        """Until the command runs on the target (a detached one: launched), or the job ended."""
        await self._started.wait()
        return self._record

    async def wait(self) -> JobRecord:
        """The final record (or the last one, for a job that was detached from)."""
        return await asyncio.shield(self._done)

    async def cancel(self) -> JobRecord:
        """Stop the job (TERM, KILL, close: bounded) and return its final record."""
        self._request_stop(JobState.CANCELLED)
        return await self.wait()

    async def detach(self) -> JobRecord:
        """Stop following a detached job; it keeps running on the target."""
        if not self.spec.detached:
            raise JobError("only a detached job can be left running; use cancel()")
        self._detach.set()
        return await self.wait()

    # ------------------------------------------------------------ internals

    def _request_stop(self, reason: JobState) -> None:
        if self._stop_reason is None:
            self._stop_reason = reason
        self._stop.set()
        if self._task is not None and self.state in (JobState.QUEUED, JobState.SYNCING):
            self._task.cancel()  # nothing runs yet: no process to stop

    def _update(self, **changes: object) -> None:
        self._record = self._record.evolve(**changes)
        save_record(self.job_dir, self._record)

    async def _emit(self, stream: Stream, lines: list[bytes], when: float) -> None:
        self._log.write(stream, lines, when)
        if self._subscribers:
            batch = [LogLine(stream, decode_line(raw), when) for raw in lines]
            for subscription in list(self._subscribers):
                await subscription.put(batch)

    async def _meta(self, text: str) -> None:
        await self._emit("meta", [text.encode()], time.time())

    async def _pump(self, process: Process, stream: OutStream) -> None:
        splitter = self._splitters[stream]
        while True:
            chunk = await process.read(stream)
            if not chunk:
                return
            self._offsets[stream] += len(chunk)
            lines = splitter.feed(chunk)
            if lines:
                await self._emit(stream, lines, time.time())

    async def _flush_tails(self) -> None:
        for stream, splitter in self._splitters.items():
            tail = splitter.flush()
            if tail:
                await self._emit(stream, tail, time.time())

    def _remaining(self) -> float | None:
        if self.spec.timeout is None:
            return None
        started = self._record.started_at or time.time()
        return max(0.0, self.spec.timeout - (time.time() - started))

    async def _helper(self, script: str) -> str | None:
        """Run a small command on the target; None when it could not be run in time."""
        try:
            result = await asyncio.wait_for(self.executor.run(script), HELPER_TIMEOUT)
        except (PtoError, TimeoutError, OSError):
            return None
        return result.stdout.decode(errors="replace")

    async def _follow(self, process: Process) -> tuple[ExitInfo, str]:
        """Read a process until it ends, the job is stopped/detached, or the timeout hits.

        Returns the exit info and what ended it: "exit", "stop", "timeout" or "detach".
        """
        pumps = [asyncio.create_task(self._pump(process, s)) for s in ("stdout", "stderr")]

        async def drain_and_wait() -> ExitInfo:
            await asyncio.gather(*pumps)
            return await process.wait()

        finished = asyncio.create_task(drain_and_wait())
        stop = asyncio.create_task(self._stop.wait())
        detach = asyncio.create_task(self._detach.wait())
        try:
            done, _ = await asyncio.wait(
                {finished, stop, detach}, timeout=self._remaining(),
                return_when=asyncio.FIRST_COMPLETED,
            )
        finally:
            stop.cancel()
            detach.cancel()
        if finished in done:
            return finished.result(), "exit"
        if detach in done and not self._stop.is_set():
            await self._abandon(process, finished, pumps)
            return ExitInfo(), "detach"
        why = "stop" if self._stop.is_set() else "timeout"
        if why == "timeout":
            self._stop_reason = JobState.TIMED_OUT
            await self._meta(f"timeout after {self.spec.timeout:g} s")
        info = await self._terminate(process, finished, pumps)
        return info, why

    async def _abandon(
        self, process: Process, finished: asyncio.Task[ExitInfo], pumps: list[asyncio.Task[None]]
    ) -> None:
        process.close()
        for task in (finished, *pumps):
            task.cancel()
        await asyncio.gather(finished, *pumps, return_exceptions=True)

    async def _terminate(
        self, process: Process, finished: asyncio.Task[ExitInfo], pumps: list[asyncio.Task[None]]
    ) -> ExitInfo:
        """TERM the whole process group, then KILL, then close: every wait bounded."""
        remote_dir = self._record.remote_dir
        for name, grace in (("TERM", TERM_GRACE), ("KILL", KILL_GRACE)):
            await self._meta(f"stopping: sending {name} to the process group")
            if not self.spec.detached:
                process.signal(name)  # an SSH signal request, or killpg locally
            if remote_dir and (self.spec.detached or not self.target.is_local):
                # works even when the SSH signal request is not honoured
                await self._helper(shell.kill_script(remote_dir, name))
            done, _ = await asyncio.wait({finished}, timeout=grace)
            if done:
                return finished.result()
        await self._meta("the process did not stop; closing its channel")
        await self._abandon(process, finished, pumps)
        return ExitInfo(detail="did not stop after TERM and KILL")

    # ------------------------------------------------------------ flows

    async def run(self, sync_from: Path | None, excludes: Iterable[str], fetch_to: Path) -> None:
        try:
            await self._meta(f"job {self.id} on {self.target.label}: {self.spec.command}")
            if sync_from is not None:
                self._update(state=JobState.SYNCING)
                report = await sync_with(self.executor, sync_from, excludes)
                self._update(workspace_hash=report.workspace_hash)
                await self._meta(describe_sync(report))
            self._update(state=JobState.RUNNING, started_at=time.time())
            if self.spec.detached:
                info, why = await self._run_detached()
            else:
                info, why = await self._run_attached()
            await self._finish(info, why, fetch_to)
        except asyncio.CancelledError:
            self._update(state=self._stop_reason or JobState.CANCELLED, ended_at=time.time())
            await self._meta(f"{self.state.value} before it started")
        except PtoError as error:
            self._update(state=JobState.FAILED, ended_at=time.time(), error=error.render())
            await self._meta(f"failed: {error.render()}")
        except Exception as error:  # a bug must still end the job, never hang its waiters
            text = f"{type(error).__name__}: {error}"
            self._update(state=JobState.FAILED, ended_at=time.time(), error=text)
            await self._meta(f"failed: {text}")
        finally:
            await self._close()

    async def reattach_flow(self, fetch_to: Path) -> None:
        try:
            await self._meta(f"re-attaching to job {self.id} on {self.target.label}")
            info, why = await self._follow_detached()
            await self._finish(info, why, fetch_to)
        except PtoError as error:
            self._update(state=JobState.LOST, ended_at=time.time(), error=error.render())
            await self._meta(f"lost: {error.render()}")
        except Exception as error:
            text = f"{type(error).__name__}: {error}"
            self._update(state=JobState.LOST, ended_at=time.time(), error=text)
            await self._meta(f"lost: {text}")
        finally:
            await self._close()

    async def _close(self) -> None:
        self._end()

    def _end(self) -> None:
        self._started.set()
        for subscription in list(self._subscribers):
            subscription.end()
        self._subscribers.clear()
        self._log.close()
        if not self._done.done():
            self._done.set_result(self._record)

    def _task_done(self, task: asyncio.Task[None]) -> None:
        """Safety net: a task cancelled before it ever ran still ends the job."""
        if self._done.done():
            return
        if not self._record.state.is_final:
            state = self._stop_reason or JobState.CANCELLED
            self._update(state=state, ended_at=time.time())
        self._end()

    async def _run_attached(self) -> tuple[ExitInfo, str]:
        cwd = self._record.cwd
        remote_dir = self._record.remote_dir
        inner = shell.inner_script(self.target, self.spec, cwd)
        script = shell.attached_script(remote_dir, inner, self.spec.line_buffered)
        process = await self.executor.start(script, pty=self.spec.pty)
        self._started.set()
        try:
            return await self._follow(process)
        finally:
            await self._flush_tails()
            process.close()

    async def _run_detached(self) -> tuple[ExitInfo, str]:
        inner = shell.inner_script(self.target, self.spec, self._record.cwd)
        script = shell.detached_launch_script(self._record.remote_dir, inner, True)
        result = await self.executor.run(script, timeout=30)
        pgid = result.stdout.decode(errors="replace").strip()
        if not result.ok or not pgid.isdigit():
            detail = result.stderr.decode(errors="replace").strip() or "no process group id"
            raise JobError(f"detached launch failed on {self.target.label}: {detail}")
        await self._meta(f"detached: process group {pgid} in {self._record.remote_dir}")
        self._started.set()
        return await self._follow_detached()

    async def _follow_detached(self) -> tuple[ExitInfo, str]:
        """Tail the job's output files until its session leader ends, then read J/rc.

        A follow cut by a lost connection is resumed from the byte offsets already
        logged, so no line is lost or repeated."""
        remote_dir = self._record.remote_dir
        for attempt in range(REATTACH_TRIES + 1):
            if attempt:
                await asyncio.sleep(0.5 * attempt)
            status = await self._job_status()
            if status is None:
                continue
            pgid, _rc = status
            if pgid is None:
                raise JobError(f"no job {self.id} on {self.target.label} ({remote_dir})")
            script = shell.follow_script(
                remote_dir, pgid, self._offsets["stdout"], self._offsets["stderr"]
            )
            try:
                process = await self.executor.start(script)
            except PtoError:
                continue
            try:
                info, why = await self._follow(process)
            finally:
                process.close()
            if why == "detach":
                await self._flush_tails()
                return info, why
            if why == "exit" and not info.known:
                await self._meta(f"connection lost while following ({info.detail}); re-attaching")
                continue
            # the session leader is gone (or was stopped): its exit status is in J/rc
            await self._flush_tails()
            status = await self._job_status()
            rc = status[1] if status is not None else None
            if rc is not None:
                return ExitInfo(exit_code=rc), why
            if why != "exit":
                return ExitInfo(detail="stopped before it recorded an exit status"), why
            if status is None:
                return ExitInfo(detail=f"cannot read the exit status on {self.target.label}"), why
            return ExitInfo(detail="the job ended without recording an exit status"), why
        await self._flush_tails()
        return ExitInfo(detail=f"{self.target.label} cannot be reached"), "exit"

    async def _job_status(self) -> tuple[int | None, int | None] | None:
        """(pgid, rc) of the job folder on the target; None when the target does not answer."""
        text = await self._helper(shell.status_script(self._record.remote_dir))
        if text is None:
            return None
        fields = (text.split() + ["-", "-"])[:2]
        pgid, rc = (int(f) if f.lstrip("-").isdigit() else None for f in fields)
        return pgid, rc

    async def _finish(self, info: ExitInfo, why: str, fetch_to: Path) -> None:
        now = time.time()
        changes: dict[str, object] = {
            "ended_at": now,
            "exit_code": info.exit_code,
            "signal": info.signal,
        }
        if why == "detach":
            self._update(state=JobState.RUNNING)
            await self._meta("detached: the job keeps running on the target")
            return
        if why in ("stop", "timeout"):
            state = self._stop_reason or JobState.CANCELLED
            self._update(state=state, **changes)
            await self._meta(f"{state.value} ({describe_exit(info)})")
        elif not info.known:
            self._update(state=JobState.LOST, error=info.detail or "outcome unknown", **changes)
            await self._meta(f"lost: {info.detail or 'outcome unknown'}")
            self._orphan_clean_up()
            return
        elif info.exit_code == 0:
            self._update(state=JobState.SUCCEEDED, **changes)
            await self._meta(f"succeeded ({describe_exit(info)})")
            if self.spec.fetch:
                await self._fetch(fetch_to)
        else:
            self._update(state=JobState.FAILED, **changes)
            await self._meta(f"failed ({describe_exit(info)})")
        if not self.spec.detached:
            self._clean_up_remote()

    async def _fetch(self, fetch_to: Path) -> None:
        self._update(state=JobState.FETCHING)
        try:
            paths = await fetch_with(self.executor, self.spec.fetch, fetch_to, self._record.cwd)
        except PtoError as error:
            self._update(state=JobState.FAILED, error=error.render())
            await self._meta(f"fetch failed: {error.render()}")
            return
        self._update(state=JobState.SUCCEEDED, fetched=tuple(str(p) for p in paths))
        await self._meta(f"fetched {len(paths)} file(s) into {fetch_to}")

    def _clean_up_remote(self) -> None:
        """An attached job's folder on the target (its pgid file) is removed later, in one
        command for many jobs (see JobRunner.clean_up)."""
        if not self.target.is_local:
            self.runner._finished_dirs.setdefault(self.target, []).append(self._record.remote_dir)
            if len(self.runner._finished_dirs[self.target]) >= CLEAN_UP_BATCH:
                self.runner.clean_up()

    def _orphan_clean_up(self) -> None:
        """After a lost connection, kill what may survive of an attached job (a silent
        command outlives the connection, REMOTE.md), once the target answers again."""
        if self.spec.detached or self.target.is_local:
            return
        kill = shell.kill_script(self._record.remote_dir, "KILL")
        script = f"{kill}; rm -rf {shell.quote_path(self._record.remote_dir)}"
        self.runner._background(lambda: self._helper(script))


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


