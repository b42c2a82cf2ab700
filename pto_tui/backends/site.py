"""Where an operator runs and how a step becomes a job whose output is followed.

An OperatorSite joins a project (its config and workspace) to a job runner and its
target. Every step (probe, build, benchmark) is one job: its lines go to the job's log
file on disk and, live, to the caller's event callback. Commands run in the workspace's
operator folder, which for a PTO-DSL operator inside a repository is the repository's root
(workspace/pto-kernels/), with its python folder on PYTHONPATH, and for a tile-lib operator
inside a repository the operator folder inside the repository's copy
(workspace/kernel/<path>/, where its CMakeLists.txt finds the shared folders it reaches).
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import shlex
import tempfile
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from pto_tui.backends.step_times import baseline_step_seconds
from pto_tui.core.errors import PtoError
from pto_tui.core.operators.case_strings import check_case_given
from pto_tui.core.project.commands import (
    check_value,
    env_parameters,
    render_command,
    template_values,
)
from pto_tui.core.project.config import ProjectConfig, Scalar, Target, operator_folder
from pto_tui.core.project.layout import ProjectLayout, round_name
from pto_tui.core.project.limits import step_limit
from pto_tui.jobs.errors import FetchError
from pto_tui.jobs.job import Job
from pto_tui.jobs.logfile import read_log
from pto_tui.jobs.model import NEEDS_NPU, QUEUE_NOTE, JobRecord, JobSpec, JobState, LogLine, job_name
from pto_tui.jobs.runner import JobRunner


@dataclass(frozen=True)
class StepEvent:
    """What a caller (CLI printer, TUI pane, test) sees of a running step."""

    step: str  # e.g. "build", "benchmark 2/5", "probe: python"
    kind: str  # started | line | finished
    line: LogLine | None = None
    record: JobRecord | None = None


EventSink = Callable[[StepEvent], None]


class StepInterrupted(PtoError):
    """A step was cancelled or lost: its outcome is unknown, nothing is recorded."""


class StepTimedOut(PtoError):
    """A step ran past its limit ([limits]) and was stopped, its process tree killed. Its
    outcome is known: the step failed, `after` says how ("timed out after 600 s")."""

    def __init__(self, step: str, after: str) -> None:
        self.step = step
        self.after = after
        super().__init__(f"{step} {after}")


@dataclass
class StepOutput:
    record: JobRecord
    stdout: list[str] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.record.state is JobState.SUCCEEDED

    @property
    def text(self) -> str:
        return "\n".join(self.stdout)

    def tail(self, lines: int = 12) -> str:
        """The end of the output, for a readable failure reason."""
        return "\n".join((self.stdout + self.stderr)[-lines:])

    def failure(self, lines: int = 3) -> str:
        """Why the step failed, in words: the job's own error when the command never ran
        (an unknown host key, a refused login: with what to do), else its output's end."""
        if self.record.error and self.record.exit_code is None:
            return self.record.error
        return self.tail(lines) or f"exit code {self.record.exit_code}"


def take_line(step: str, line: LogLine, output: StepOutput, emit: EventSink, job: Job | None = None) -> None:
    """A job's line into the step's output and to the caller; of pto-tui's own lines
    about the job, only those about its place in a scheduler's queue, with the job's
    record as it is then (its state and reason: "pending (Resources)")."""
    if line.stream != "meta":
        (output.stdout if line.stream == "stdout" else output.stderr).append(line.text)
        emit(StepEvent(step, "line", line=line))
    elif line.text.startswith(QUEUE_NOTE):
        emit(StepEvent(step, "line", line=line, record=job.record if job is not None else None))


def finished(step: str, output: StepOutput, emit: EventSink) -> StepOutput:
    """The step's end: a cancelled or lost job raises StepInterrupted, a timed-out one
    StepTimedOut (the caller records the step as failed)."""
    emit(StepEvent(step, "finished", record=output.record))
    state = output.record.state
    if state is JobState.TIMED_OUT:
        raise StepTimedOut(step, output.record.error or state.value)
    if state in (JobState.CANCELLED, JobState.LOST):
        why = output.record.error or state.value
        raise StepInterrupted(f"step '{step}' {state.value}: {why}")
    return output


class OperatorSite:
    """One project's operator on its target, with a job runner to run steps."""

    def __init__(
        self,
        layout: ProjectLayout,
        config: ProjectConfig,
        runner: JobRunner,
        on_event: EventSink | None = None,
        target: Target | None = None,
    ) -> None:
        self.layout = layout
        self.config = config
        self.runner = runner
        self.on_event = on_event or (lambda _event: None)
        self.workspace = layout.workspace  # the copy of the operator the steps run on
        target = target or config.target
        # the target sees this machine's files (its kind's executor says so)
        self.on_this_machine = runner.executor(target).on_this_machine
        if self.on_this_machine and not target.work_dir:
            # a local target with no work dir runs in the project's own workspace
            target = replace(target, work_dir=str(layout.workspace))
        self.target = target
        self.subdir = operator_folder(config)
        self.current: Job | None = None
        # prefixed to job names so a round's logs can be found again (e.g. "iter-003")
        self.label = ""
        self.round_number: int | None = None  # the round its jobs run steps of (for_round)
        # the scheduler node NPU steps must run on: with [target.slurm] same_node, the
        # baseline's (site_for), else the first NPU step's
        self.pinned_node = ""
        self.same_node = target.slurm.same_node
        self.last_placement = ""  # where the last NPU step ran, when a scheduler said
        self._baseline_seconds: dict[str, float] | None = None  # read once, when first needed

    def for_round(self, number: int, label: str = "") -> None:
        """Run this site's jobs for round `number`: their records say so, and their names
        start with `label` (by default the round's folder name: "iter-003 build")."""
        self.round_number = number
        self.label = label or round_name(number)

    def adopts(self, step: str) -> bool:
        """Whether `step` takes the outcome of a job an earlier run left (never here: see
        ResumingSite)."""
        del step
        return False

    def elsewhere(self, workspace: Path, work_dir: str) -> OperatorSite:
        """This site (same target, runner, events and label) for another copy of the
        workspace, `workspace`, uploaded to `work_dir` on the target; "" runs a local target
        in `workspace` itself."""
        other = copy.copy(self)
        other.workspace = workspace
        other.target = replace(self.target, work_dir=work_dir or str(workspace))
        other.current = None
        return other

    async def limit(self, kind: str) -> float:
        """The seconds a step of `kind` (build, correctness, benchmark) may run: [limits],
        or derived from the baseline's own time when it says 0 (core/project/limits.py)."""
        configured = self.config.limits.configured(kind)
        if configured <= 0 and self._baseline_seconds is None:
            self._baseline_seconds = await asyncio.to_thread(baseline_step_seconds, self.runner.log_dir)
        return step_limit(kind, configured, (self._baseline_seconds or {}).get(kind))

    @property
    def synced(self) -> bool:
        """Whether the workspace must be uploaded (it is not when the target runs in it)."""
        return not (
            self.on_this_machine
            and Path(self.target.work_dir).expanduser().resolve() == self.workspace.resolve()
        )

    def render(self, template: str, parameters: Mapping[str, Scalar]) -> str:
        check_case_given(self.config.operator, self.config.case, template)
        return render_command(template, template_values(self.config, parameters))

    async def sync(self) -> str:
        """Upload the workspace (only what changed). Returns a one-line description."""
        if not self.synced:
            return "local target runs in the workspace: nothing to upload"
        self.on_event(StepEvent("sync", "started"))
        report = await self.runner.sync_workspace(self.target, self.workspace)
        self.on_event(StepEvent("sync", "finished"))
        return (
            f"synced {len(report.uploaded)} changed of {report.files} file(s), removed "
            f"{len(report.deleted)}, to {self.target.label}:{self.target.work_dir} ({report.method})"
        )

    async def run(
        self,
        step: str,
        command: str,
        *,
        parameters: Mapping[str, Scalar] | None = None,
        cwd: str | None = None,
        timeout: float | None = None,
        extra_env: Mapping[str, str] | None = None,
        quiet: bool = False,
        notes: Mapping[str, str] | None = None,
        env_setup: bool = True,
        needs: str = "",
    ) -> StepOutput:
        """Run one command in the operator folder on the target, following its output.
        `needs`: what the step needs of a scheduler (NEEDS_NPU, NEEDS_BUILD: a Slurm target
        runs it as a batch job; jobs/model.py).
        `notes` go into the job's record (JobSpec.notes): the output's record has them, also
        when the job is one an earlier run left (adopted).

        A cancelled, timed-out or lost job raises StepInterrupted; a command that ran and
        failed is returned (its exit code is in the record)."""
        env = self.workload_env()
        env.update(env_parameters(self.config, parameters or {}))
        env.update(extra_env or {})
        spec = JobSpec(
            command=self.with_python_path(command),
            cwd=self.subdir if cwd is None else cwd,
            env=env,
            timeout=timeout,
            name=job_name(self.label, step),
            round_number=self.round_number,
            notes=dict(notes or {}),
            internal=quiet,
            env_setup=env_setup,
            needs=needs,
            node=self.pinned_node if needs else "",
        )
        emit = (lambda _event: None) if quiet else self.on_event
        job = await self.runner.submit(self.target, spec)
        self.current = job
        subscription = job.subscribe()
        emit(StepEvent(step, "started", record=job.record))
        out = await self.follow(step, job, subscription, StepOutput(record=job.record), emit)
        if needs == NEEDS_NPU:
            self.last_placement = out.record.placement
            if self.same_node and not self.pinned_node:
                self.pinned_node = out.record.node
        return out

    async def follow(
        self,
        step: str,
        job: Job,
        subscription: AsyncIterator[LogLine],
        output: StepOutput,
        emit: EventSink,
        earlier: Path | None = None,
    ) -> StepOutput:
        """Follow a job to its end, its lines into `output` (first those already in its
        log file `earlier`, for a job re-attached); a cancel here cancels the job."""
        try:
            if earlier is not None:
                for line in await asyncio.to_thread(lambda: list(read_log(earlier))):
                    take_line(step, line, output, emit)
            async for line in subscription:
                take_line(step, line, output, emit, job)
            output.record = await job.wait()
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await asyncio.shield(job.cancel())
            raise
        finally:
            self.current = None
        return finished(step, output, emit)

    def workload_env(self) -> dict[str, str]:
        """The case's shape knobs, so a build outside the runner builds the case's shape."""
        return {name: check_value(name, str(value)) for name, value in self.config.case.knobs.items()}

    def with_python_path(self, command: str) -> str:
        """The command with the repository's python folder first on PYTHONPATH: commands run
        from the repository root, and its runner imports the operator from its package."""
        folder = self.config.operator.pythonpath
        if not folder:
            return command
        return f'export PYTHONPATH="$PWD"/{shlex.quote(folder)}"${{PYTHONPATH:+:$PYTHONPATH}}"\n{command}'

    async def cancel(self) -> None:
        job = self.current
        if job is not None:
            await job.cancel()

    async def read_text(self, rel: str, step: str) -> str | None:
        """A result file's text (relative to the operator folder), None when absent."""
        path = f"{self.subdir}/{rel}"
        if self.on_this_machine:
            local = Path(self.target.work_dir).expanduser() / path
            try:
                return local.read_text(encoding="utf-8", errors="replace")
            except FileNotFoundError:
                return None
        with tempfile.TemporaryDirectory() as tmp:
            try:
                fetched = await self.runner.fetch(self.target, [path], Path(tmp))
            except FetchError:
                return None
            return fetched[0].read_text(encoding="utf-8", errors="replace")

    async def fetch(self, rel: str, dest: Path) -> Path:
        """Copy a result file from the target into the project (kept as evidence)."""
        dest.mkdir(parents=True, exist_ok=True)
        paths = await self.runner.fetch(self.target, [f"{self.subdir}/{rel}"], dest)
        return paths[0]
