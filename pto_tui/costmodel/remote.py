"""Running the external costmodel tool on a target through the job layer, and the one
entry the CLI and the TUI share to run a project's queries where its settings say."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path

from pto_tui.core.cycles.query import Query
from pto_tui.core.cycles.results import CycleResult
from pto_tui.core.project.config import ProjectConfig, Target
from pto_tui.costmodel.cache import CostmodelCache
from pto_tui.costmodel.engine import ProgressFn, Runner
from pto_tui.costmodel.service import Settings, make_engine, run_queries
from pto_tui.costmodel.toolchain import CostmodelError
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


async def run_for_project(
    queries: Sequence[Query],
    settings: Settings,
    config: ProjectConfig,
    jobs_dir: Path,
    cache: CostmodelCache | None,
    progress: ProgressFn | None = None,
) -> list[CycleResult]:
    """The one way the CLI and the TUI console run a project's queries: with
    `on_target` the [costmodel] tool runs on the project's target as jobs (its path is
    the target's own), otherwise the engine runs here."""
    if settings.engine == "external" and settings.on_target:
        if not config.costmodel.tool:
            raise CostmodelError("on_target needs [costmodel] tool: the tool's path on the target")
        runner = JobRunner(jobs_dir)
        try:
            engine = make_engine("external", pto_isa="", tool=config.costmodel.tool,
                                 compiler=config.costmodel.compiler,
                                 runner=job_layer_runner(runner, config.target))
            return await run_queries(queries, engine, cache, progress)
        finally:
            await runner.close()
    engine = make_engine(settings.engine, pto_isa=settings.pto_isa, tool=settings.tool,
                         compiler=settings.compiler)
    return await run_queries(queries, engine, cache, progress)
