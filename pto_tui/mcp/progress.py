"""A long step's events (build, correctness, benchmark repeats, probes) as MCP progress
notifications, and a short record of the steps for the tool's result.

Progress only ever increases: a step's start counts half a step, its end a whole one
(0.5, 1, 1.5, 2, ...). The total is sent when it is known: the steps the run plans (the
build, the correctness check, the benchmark runs the discipline asks for), raised when a
step's name says more are coming ("benchmark 3/9" after a plan of 7: the verdict still
undecided asks for more runs); the last notification says the tool is done, at the total.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from pto_tui.backends.site import StepEvent
from pto_tui.core.project.layout import ProjectLayout
from pto_tui.jobs.runner import JobRunner

# sends one notification: (progress, total, message)
Notify = Callable[[float, float | None, str], Awaitable[None]]
_NUMBERED = re.compile(r"^(benchmark|warm-up)\b.*?(\d+)/(\d+)")


@dataclass
class ProgressRelay:
    """The EventSink of a backend step: every step start and finish becomes a progress
    notification (log lines stay in the job logs; the last few are kept per step).
    `total`: the steps planned, None when unknown."""

    notify: Notify
    total: float | None = None
    steps: list[dict[str, Any]] = field(default_factory=list)
    _pending: list[asyncio.Future[None]] = field(default_factory=list)
    _done: int = 0  # steps finished
    _last: float = 0.0  # the progress last sent

    def __call__(self, event: StepEvent) -> None:
        if event.kind == "line":
            if self.steps and event.line is not None:
                tail = self.steps[-1]["tail"]
                tail.append(event.line.text)
                del tail[:-5]
            return
        if event.kind == "started":
            self.steps.append({"step": event.step, "state": "running", "exit_code": None, "tail": []})
            self._raise_total(event.step)
            self._send(self._done + 0.5, f"{event.step}: started")
            return
        record = event.record
        state = record.state.value if record is not None else "finished"
        for step in reversed(self.steps):
            if step["step"] == event.step:
                step["state"] = state
                step["exit_code"] = record.exit_code if record is not None else None
                break
        self._done += 1
        self._send(self._done, f"{event.step}: {state}")

    def _raise_total(self, step: str) -> None:
        """More steps than planned: a numbered run's name ("benchmark 3/9") says how many
        of its kind are coming."""
        match = _NUMBERED.match(step)
        if self.total is None or match is None:
            return
        coming = int(match.group(3)) - int(match.group(2))  # after this one
        self.total = max(self.total, self._done + 1 + coming)

    def _send(self, progress: float, message: str) -> None:
        progress = max(progress, self._last + 0.01)  # never the same twice
        self._last = progress
        if self.total is not None and progress >= self.total:
            self.total = progress + 1  # one more is coming: the step's end, or the result
        loop = asyncio.get_running_loop()
        self._pending.append(asyncio.ensure_future(self.notify(progress, self.total, message), loop=loop))

    async def finish(self, message: str = "done") -> None:
        """The last notification: the tool is done (at the total, when there is one)."""
        final = max(self._last + 0.01, self.total or 0.0)
        self.total = final if self.total is not None else None
        self._last = final
        await self.drain()
        try:
            await self.notify(final, self.total, message)
        except Exception:
            return

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
