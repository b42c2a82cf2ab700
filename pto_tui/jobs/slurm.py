"""The slurm target kind: a Slurm cluster reached from its login node (over SSH, or this
machine). Steps that need an NPU (and builds, when `[target.slurm] build = "job"`) are
batch jobs: submitted with sbatch, their output followed live from the files Slurm writes
in the job's folder (which the login node and the compute nodes share), stopped with
scancel, and their state, reason, node and NPU read from scontrol, squeue or sacct. A batch
job outlives pto-tui: its record is detached, and re-attached by its Slurm id. Every other
job (probes, helpers, builds on the login node) runs on the login node as on an SSH or
local target. docs/remote.md §14.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace

from pto_tui.core.project.config import Target
from pto_tui.core.project.limits import timed_out_text
from pto_tui.core.vocabulary import TargetKind
from pto_tui.jobs import shell
from pto_tui.jobs import slurm_text as text
from pto_tui.jobs.executor import Executor, ExitInfo, Process
from pto_tui.jobs.follow import Ending, Follower
from pto_tui.jobs.limits import KILL_GRACE, REATTACH_TRIES, TERM_GRACE
from pto_tui.jobs.local import LocalExecutor
from pto_tui.jobs.model import NEEDS_BUILD, NEEDS_NPU, QUEUE_NOTE, JobState
from pto_tui.jobs.probes import REACHABLE
from pto_tui.jobs.slurm_probes import slurm_probes
from pto_tui.jobs.ssh import SshExecutor
from pto_tui.jobs.ssh_pool import SshPool
from pto_tui.jobs.target_spec import TargetKindSpec

POLL_SECONDS = 1.0  # how often the queue is asked about a batch job (the first after 0.25 s)
SUBMIT_TIMEOUT = 60.0  # sbatch on a busy controller may take a while


class SlurmFollower(Follower):
    """Job control of a slurm target: batch jobs through Slurm, the rest on the login node."""

    slurm_id = ""
    started: float | None = None  # when Slurm started the batch job (its limit counts from then)

    def slurm(self, script: str) -> str:
        """A script of Slurm commands, run after the target's env_setup line."""
        return text.with_setup(self.target.env_setup, script)

    def scheduled(self) -> bool:
        """Whether this job is a batch job: it needs an NPU, or is a build run in a job."""
        needs = self.spec.needs
        return needs == NEEDS_NPU or (needs == NEEDS_BUILD and self.target.slurm.build == "job")

    async def run_attached(self) -> tuple[ExitInfo, Ending]:
        if not self.scheduled():
            return await super().run_attached()
        return await self._run_batch()

    async def run_detached(self) -> tuple[ExitInfo, Ending]:
        if not self.scheduled():
            return await super().run_detached()
        return await self._run_batch()

    async def follow_detached(self) -> tuple[ExitInfo, Ending]:
        """Re-attach: a batch job by its Slurm id (from the record, else its folder)."""
        slurm_id = self.record.scheduler_id
        if not slurm_id:
            found = await self.helper(f"cat {shell.quote_path(self.remote_dir)}/slurm_id 2>/dev/null")
            slurm_id = text.job_id_of(found or "")
        if not slurm_id:
            return await super().follow_detached()
        self.slurm_id = slurm_id
        await self.output.meta(f"{QUEUE_NOTE}following slurm job {slurm_id} again")
        return await self._follow_batch()

    # ------------------------------------------------------------ submit

    async def _run_batch(self) -> tuple[ExitInfo, Ending]:
        inner = shell.inner_script(self.target, self.spec, self.cwd)
        batch = text.batch_script(self.remote_dir, shell.bash_command(inner, self.spec.line_buffered))
        npu = self.spec.needs == NEEDS_NPU
        options = text.sbatch_options(self.target.slurm, npu=npu, node=self.spec.node)
        script = text.submit_script(self.remote_dir, batch, f"pto-tui-{self.job_id}", options)
        result = await self.executor.run(self.slurm(script), timeout=SUBMIT_TIMEOUT)
        slurm_id = text.job_id_of(result.stdout.decode(errors="replace"))
        if not result.ok or not slurm_id:
            why = text.refusal_line(result.stderr.decode(errors="replace"))
            await self.output.meta(f"slurm refused the job: {why}")
            self.events.started.set()
            return ExitInfo(detail=f"slurm refused the job: {why}"), "exit"
        self.slurm_id = slurm_id
        # a batch job outlives pto-tui: its record is re-attachable by its Slurm id
        self.update(scheduler_id=slurm_id, scheduler_state="PENDING", detached=True,
                    queued_at=time.time(), started_at=None)
        asked = " ".join(options) or "the cluster's defaults"
        await self.output.meta(f"{QUEUE_NOTE}submitted to slurm as job {slurm_id} ({asked})")
        self.events.started.set()
        return await self._follow_batch()

    # ------------------------------------------------------------ follow

    async def _follow_batch(self) -> tuple[ExitInfo, Ending]:
        """Follow the output files while the queue is watched; then the job's end."""
        self.remaining = lambda: None  # the step's limit counts from its start (_watch)
        for attempt in range(REATTACH_TRIES + 1):
            if attempt:
                await asyncio.sleep(0.5 * attempt)
            offsets = self.output.offsets
            script = text.follow_script(self.remote_dir, self.slurm_id, offsets["stdout"], offsets["stderr"])
            watch = asyncio.create_task(self._watch())
            try:
                process = await self.executor.start(self.slurm(script))
                try:
                    info, why = await self.follow(process)
                finally:
                    process.close()
            finally:
                watch.cancel()
            await self.output.flush_tails()
            if why == "detach":
                return info, why
            ended = await self._ended(why)
            if ended is not None:
                return ended, why
            await self.output.meta(f"slurm job {self.slurm_id} still listed; following it again")
        return ExitInfo(detail=f"slurm job {self.slurm_id}: its end could not be read"), "exit"

    async def _watch(self) -> None:
        """Ask the queue about the job until cancelled: its state and reason go into the
        record (the Run pane's "pending (Resources) 2m 10s"), its start sets started_at,
        its limit counts from then, and a reason it can never start ends it."""
        seen = ("", "")
        if self.started is None and self.record.scheduler_state == "RUNNING":  # re-attached
            self.started = self.record.started_at
        delays = iter((0.25, 0.5))  # soon after the submission, then every POLL_SECONDS
        while True:
            await asyncio.sleep(next(delays, POLL_SECONDS))
            state = await self._state()
            if state is None or not state.state:
                continue
            changes: dict[str, object] = {"scheduler_state": state.state, "scheduler_reason": state.reason}
            if state.node:
                changes["node"] = state.node
            if state.npu:
                changes["npu"] = state.npu
            if self.started is None and not state.pending:
                self.started = time.time()
                changes["started_at"] = self.started
            self.update(**changes)
            if (state.state, state.reason) != seen:  # after the update: the note's record is current
                seen = (state.state, state.reason)
                await self.output.meta(f"{QUEUE_NOTE}slurm job {self.slurm_id}: {state.shown()}")
            if state.pending and state.reason in text.NEVER_STARTS:
                why = text.ended_by_slurm(self.slurm_id, state)
                self.update(error=f"{why}: it can never start as asked")
                self.events.request_stop(JobState.LOST)
            limit = self.spec.timeout
            if self.started is not None and limit is not None and time.time() - self.started > limit:
                await self.output.meta(f"{timed_out_text(limit)}: stopping it")
                self.events.request_stop(JobState.TIMED_OUT)

    async def _state(self) -> text.SlurmJobState | None:
        answer = await self.helper(self.slurm(text.state_script(self.slurm_id)))
        return None if answer is None else text.parse_state(answer)

    async def _ended(self, why: Ending) -> ExitInfo | None:
        """How the job ended: its own exit status (J/rc), or Slurm's reason when Slurm
        ended it (the step is then interrupted: LOST, the reason as its error). None while
        Slurm still runs it (the follow ended early: a dropped connection, a slow queue)."""
        answer = await self.helper(self.slurm(text.rc_and_state_script(self.remote_dir, self.slurm_id)))
        if answer is None:
            return None if why == "exit" else ExitInfo(detail="slurm could not be asked how the job ended")
        rc_line, _, rest = answer.partition("\n")
        placed, _, rest = rest.partition("\n")
        rc = int(rc_line) if rc_line.strip().lstrip("-").isdigit() else None
        state = text.parse_state(rest)
        node, npu = text.parse_placement(placed)  # what the job itself said, when Slurm no longer does
        state = replace(state, node=state.node or node, npu=state.npu or npu)
        self._record_end(state)
        if why != "exit":  # stopped by pto-tui (cancel, timeout, a reason it never starts)
            return ExitInfo(exit_code=rc) if rc is not None else ExitInfo(detail="stopped before it ended")
        if state.state in text.SLURM_ENDED:
            return ExitInfo(detail=text.ended_by_slurm(self.slurm_id, state))
        if rc is not None:
            return ExitInfo(exit_code=rc)
        if state.active:
            return None
        if state.state in text.SCRIPT_ENDED and state.exit_code is not None:
            return ExitInfo(exit_code=state.exit_code)
        return ExitInfo(detail=f"slurm job {self.slurm_id} ended without an exit status "
                        f"({state.state or 'no longer known to Slurm'})")

    def _record_end(self, state: text.SlurmJobState) -> None:
        changes: dict[str, object] = {}
        if state.state:
            changes.update(scheduler_state=state.state, scheduler_reason=state.reason)
        if state.node:
            changes["node"] = state.node
        if state.npu:
            changes["npu"] = state.npu
        if changes:
            self.update(**changes)

    async def _terminate(
        self, process: Process, finished: asyncio.Task[ExitInfo], pumps: list[asyncio.Task[None]]
    ) -> ExitInfo:
        """scancel (Slurm sends TERM, then KILL after its KillWait), then wait for the
        follow to see the end, bounded."""
        if not self.slurm_id:
            return await super()._terminate(process, finished, pumps)
        await self.output.meta(f"stopping: scancel {self.slurm_id}")
        await self.helper(self.slurm(text.cancel_script(self.slurm_id)))
        done, _ = await asyncio.wait({finished}, timeout=TERM_GRACE + KILL_GRACE + 10)
        if done:
            return finished.result()
        await self.output.meta("slurm did not end the job in time; no longer following it")
        process.close()
        for task in (finished, *pumps):
            task.cancel()
        await asyncio.gather(finished, *pumps, return_exceptions=True)
        return ExitInfo(detail="scancel did not end it in time")


def _slurm_executor(target: Target, pool: SshPool) -> Executor:
    """The login node: over SSH when the target names a host, else this machine."""
    return SshExecutor(target, pool) if target.host else LocalExecutor(target)


# [target] kind = "slurm": NPU steps as Slurm batch jobs, from the login node
SLURM_TARGET = TargetKindSpec(
    TargetKind.SLURM, executor=_slurm_executor, follower=SlurmFollower,
    probes=(REACHABLE,), target_probes=slurm_probes,
    host_key=True,  # a login node over SSH (`host`): trusted once, as an ssh target's
)
