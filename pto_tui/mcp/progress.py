"""A long step's events (build, correctness, benchmark repeats, probes) as MCP progress
notifications, and a short record of the steps for the tool's result."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from pto_tui.backends.site import StepEvent
from pto_tui.core.project.layout import ProjectLayout
from pto_tui.jobs.runner import JobRunner

# sends one notification: (progress, total, message)
Notify = Callable[[float, float | None, str], Awaitable[None]]


@dataclass
class ProgressRelay:
    """The EventSink of a backend step: every step start and finish becomes a progress
    notification (log lines stay in the job logs; the last few are kept per step)."""

    notify: Notify
    steps: list[dict[str, Any]] = field(default_factory=list)
    _pending: list[asyncio.Future[None]] = field(default_factory=list)
    _count: int = 0

    def __call__(self, event: StepEvent) -> None:
        if event.kind == "line":
            if self.steps and event.line is not None:
                tail = self.steps[-1]["tail"]
                tail.append(event.line.text)
                del tail[:-5]
            return
        if event.kind == "started":
            self._count += 1
            self.steps.append({"step": event.step, "state": "running", "exit_code": None, "tail": []})
            message = f"{event.step}: started"
        else:
            record = event.record
            state = record.state.value if record is not None else "finished"
            for step in reversed(self.steps):
                if step["step"] == event.step:
                    step["state"] = state
                    step["exit_code"] = record.exit_code if record is not None else None
                    break
            message = f"{event.step}: {state}"
        loop = asyncio.get_running_loop()
        self._pending.append(asyncio.ensure_future(self.notify(self._count, None, message), loop=loop))

    async def drain(self) -> None:
        """Wait for the notifications sent so far (a failed send never fails the step)."""
        await asyncio.gather(*self._pending, return_exceptions=True)
        self._pending.clear()


async def with_runner(layout: ProjectLayout, work: Callable[[JobRunner], Awaitable[Any]]) -> Any:
    """Run `work` with a job runner whose logs go to the project's .pto-tui/jobs."""
    runner = JobRunner(layout.jobs_dir)
    try:
        return await work(runner)
    finally:
        await runner.close()
