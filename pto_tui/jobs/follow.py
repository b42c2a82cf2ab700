"""Following a job's process on its target until it ends, is stopped, detached from or
times out; stopping it is bounded at every step (TERM, KILL, close)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Literal

from pto_tui.core.errors import PtoError
from pto_tui.core.project.limits import timed_out_text
from pto_tui.jobs import shell
from pto_tui.jobs.errors import JobError
from pto_tui.jobs.executor import Executor, ExitInfo, Process
from pto_tui.jobs.limits import HELPER_TIMEOUT, KILL_GRACE, REATTACH_TRIES, TERM_GRACE
from pto_tui.jobs.model import JobRecord, JobSpec, JobState
from pto_tui.jobs.output import JobOutput

# what ended a follow: the process exited, the job was stopped, timed out or detached from
Ending = Literal["exit", "stop", "timeout", "detach"]


class JobEvents:
    """What a job's flow waits for or is asked: started, stop (and why), detach."""

    def __init__(self) -> None:
        self.started = asyncio.Event()  # the command runs on the target (or the job ended)
        self.stop = asyncio.Event()
        self.detach = asyncio.Event()
        self.stop_reason: JobState | None = None

    def request_stop(self, reason: JobState) -> None:
        if self.stop_reason is None:
            self.stop_reason = reason
        self.stop.set()


class Follower:
    """Runs, follows and stops the processes of one job on its target: the job control of
    the local and SSH target kinds (a kind with a scheduler of its own subclasses it)."""

    def __init__(
        self,
        executor: Executor,
        spec: JobSpec,
        record: JobRecord,
        output: JobOutput,
        events: JobEvents,
        remaining: Callable[[], float | None],
        update: Callable[..., None] = lambda **_changes: None,
    ) -> None:
        self.executor = executor
        self.target = executor.target
        self.spec = spec
        self.job_id = record.id
        self.remote_dir = record.remote_dir  # the job's folder on the target
        self.cwd = record.cwd
        self.output = output
        self.events = events
        self.remaining = remaining  # seconds left before the job's timeout, if it has one
        self.record = record  # as the job began (a re-attached one's: as it was recorded)
        self.update = update  # changes the job's record (a scheduler's id, state, node)

    async def helper(self, script: str) -> str | None:
        """Run a small command on the target; None when it could not be run in time."""
        try:
            result = await asyncio.wait_for(self.executor.run(script), HELPER_TIMEOUT)
        except (PtoError, TimeoutError, OSError):
            return None
        return result.stdout.decode(errors="replace")

    async def run_attached(self) -> tuple[ExitInfo, Ending]:
        inner = shell.inner_script(self.target, self.spec, self.cwd)
        script = shell.attached_script(self.remote_dir, inner, self.spec.line_buffered)
        process = await self.executor.start(
            script, pty=self.spec.pty, line_buffered=self.spec.line_buffered
        )
        self.events.started.set()
        try:
            return await self.follow(process)
        finally:
            await self.output.flush_tails()
            process.close()

    async def follow(self, process: Process) -> tuple[ExitInfo, Ending]:
        """Read a process until it ends, the job is stopped/detached, or the timeout hits."""
        pumps = [asyncio.create_task(self.output.pump(process, s)) for s in ("stdout", "stderr")]

        async def drain_and_wait() -> ExitInfo:
            await asyncio.gather(*pumps)
            return await process.wait()

        finished = asyncio.create_task(drain_and_wait())
        stop = asyncio.create_task(self.events.stop.wait())
        detach = asyncio.create_task(self.events.detach.wait())
        try:
            done, _ = await asyncio.wait(
                {finished, stop, detach}, timeout=self.remaining(),
                return_when=asyncio.FIRST_COMPLETED,
            )
        finally:
            stop.cancel()
            detach.cancel()
        if finished in done:
            return finished.result(), "exit"
        if detach in done and not self.events.stop.is_set():
            await _abandon(process, finished, pumps)
            return ExitInfo(), "detach"
        why: Ending = "stop" if self.events.stop.is_set() else "timeout"
        if why == "timeout":
            self.events.stop_reason = JobState.TIMED_OUT
            await self.output.meta(f"{timed_out_text(self.spec.timeout or 0)}: stopping it")
        info = await self._terminate(process, finished, pumps)
        return info, why

    async def _terminate(
        self,
        process: Process,
        finished: asyncio.Task[ExitInfo],
        pumps: list[asyncio.Task[None]],
    ) -> ExitInfo:
        """TERM the whole process group, then KILL, then close: every wait bounded."""
        remote_dir = self.remote_dir
        for name, grace in (("TERM", TERM_GRACE), ("KILL", KILL_GRACE)):
            await self.output.meta(f"stopping: sending {name} to the process group")
            if not self.spec.detached:
                process.signal(name)  # an SSH signal request, or killpg locally
            if remote_dir and (self.spec.detached or not self.executor.signals_reach_group):
                # works even when the SSH signal request is not honoured
                await self.helper(shell.kill_script(remote_dir, name))
            done, _ = await asyncio.wait({finished}, timeout=grace)
            if done:
                return finished.result()
        await self.output.meta("the process did not stop; closing its channel")
        await _abandon(process, finished, pumps)
        return ExitInfo(detail="did not stop after TERM and KILL")

    async def run_detached(self) -> tuple[ExitInfo, Ending]:
        inner = shell.inner_script(self.target, self.spec, self.cwd)
        script = shell.detached_launch_script(self.remote_dir, inner, True)
        result = await self.executor.run(script, timeout=30)
        pgid = result.stdout.decode(errors="replace").strip()
        if not result.ok or not pgid.isdigit():
            detail = result.stderr.decode(errors="replace").strip() or "no process group id"
            raise JobError(f"detached launch failed on {self.target.label}: {detail}")
        await self.output.meta(f"detached: process group {pgid} in {self.remote_dir}")
        self.events.started.set()
        return await self.follow_detached()

    async def follow_detached(self) -> tuple[ExitInfo, Ending]:
        """Tail the job's output files until its session leader ends, then read J/rc.

        A follow cut by a lost connection is resumed from the byte offsets already
        logged, so no line is lost or repeated."""
        remote_dir, offsets = self.remote_dir, self.output.offsets
        for attempt in range(REATTACH_TRIES + 1):
            if attempt:
                await asyncio.sleep(0.5 * attempt)
            status = await self._job_status()
            if status is None:
                continue
            pgid, _rc = status
            if pgid is None:
                raise JobError(f"no job {self.job_id} on {self.target.label} ({remote_dir})")
            script = shell.follow_script(remote_dir, pgid, offsets["stdout"], offsets["stderr"])
            try:
                process = await self.executor.start(script)
            except PtoError:
                continue
            try:
                info, why = await self.follow(process)
            finally:
                process.close()
            if why == "exit" and not info.known:
                await self.output.meta(
                    f"connection lost while following ({info.detail}); re-attaching"
                )
                continue
            await self.output.flush_tails()
            if why == "detach":
                return info, why
            return await self._recorded_exit(why), why
        await self.output.flush_tails()
        return ExitInfo(detail=f"{self.target.label} cannot be reached"), "exit"

    async def _recorded_exit(self, why: Ending) -> ExitInfo:
        """The session leader is gone (or was stopped): its exit status is in J/rc."""
        status = await self._job_status()
        rc = status[1] if status is not None else None
        if rc is not None:
            return ExitInfo(exit_code=rc)
        if why != "exit":
            return ExitInfo(detail="stopped before it recorded an exit status")
        if status is None:
            return ExitInfo(detail=f"cannot read the exit status on {self.target.label}")
        return ExitInfo(detail="the job ended without recording an exit status")

    async def _job_status(self) -> tuple[int | None, int | None] | None:
        """(pgid, rc) of the job folder on the target; None when the target does not answer."""
        text = await self.helper(shell.status_script(self.remote_dir))
        if text is None:
            return None
        fields = (text.split() + ["-", "-"])[:2]
        pgid, rc = (int(f) if f.lstrip("-").isdigit() else None for f in fields)
        return pgid, rc


async def _abandon(
    process: Process, finished: asyncio.Task[ExitInfo], pumps: list[asyncio.Task[None]]
) -> None:
    """Stop reading a process without waiting for it (it may keep running)."""
    process.close()
    for task in (finished, *pumps):
        task.cancel()
    await asyncio.gather(finished, *pumps, return_exceptions=True)
