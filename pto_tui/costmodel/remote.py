"""Running the external costmodel tool on a target through the job layer."""

from __future__ import annotations

import shlex

from pto_tui.core.project.config import Target
from pto_tui.costmodel.engine import Runner
from pto_tui.jobs.model import JobSpec, JobState
from pto_tui.jobs.runner import JobRunner


def job_layer_runner(runner: JobRunner, target: Target) -> Runner:
    """An ExternalEngine runner that executes each command as a job on `target`
    (logs on disk like every other job; cwd relative to the target's work dir)."""

    async def run(argv: list[str], cwd: str | None) -> tuple[int, str, str]:
        job = await runner.submit(target, JobSpec(command=shlex.join(argv), cwd=cwd, name="costmodel"))
        out: list[str] = []
        err: list[str] = []
        async for line in job.subscribe():
            if line.stream == "stdout":
                out.append(line.text)
            elif line.stream == "stderr":
                err.append(line.text)
        record = await job.wait()
        if record.state in (JobState.LOST, JobState.CANCELLED, JobState.TIMED_OUT):
            return 1, "\n".join(out), f"job {record.state.value}: {record.error}"
        code = record.exit_code if record.exit_code is not None else 1
        return code, "\n".join(out) + "\n", "\n".join(err)

    return run
