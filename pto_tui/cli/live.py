"""Running a service from the CLI: a job runner for the project, live output, Ctrl-C.

Ctrl-C cancels the running step (TERM, then KILL on the target, bounded) and leaves the
round open; asyncio.run turns the interrupt into a cancellation of the main task.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import TypeVar

from pto_tui.backends.site import StepEvent
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.project.layout import ProjectLayout
from pto_tui.jobs.runner import JobRunner

T = TypeVar("T")


def printer(quiet: bool = False) -> Callable[[StepEvent], None]:
    """Step headers and live lines; stderr lines go to stderr; pto-tui's notes between
    steps (why a round measures on) are shown even when quiet."""

    def show(event: StepEvent) -> None:
        if event.kind == "started":
            print(f"==> {event.step}", file=sys.stderr, flush=True)
        elif event.kind == "line" and event.line is not None and event.line.stream == "meta":
            print(f"--- {event.line.text}", file=sys.stderr, flush=True)  # pto-tui's own word
        elif event.kind == "line" and event.line is not None and not quiet:
            stream = sys.stderr if event.line.stream == "stderr" else sys.stdout
            print(f"    {event.line.text}", file=stream, flush=True)
        elif event.kind == "finished" and event.record is not None:
            record = event.record
            took = f" in {record.duration:.1f}s" if record.duration is not None else ""
            code = f", exit {record.exit_code}" if record.exit_code not in (None, 0) else ""
            print(f"<== {event.step}: {record.state.value}{code}{took}", file=sys.stderr, flush=True)

    return show


def run_service(layout: ProjectLayout, work: Callable[[JobRunner], Awaitable[T]]) -> T:
    """Run `work` with a job runner whose logs go to the project's .pto-tui/jobs."""

    async def main() -> T:
        runner = JobRunner(layout.jobs_dir)
        try:
            return await work(runner)
        finally:
            await runner.close()

    return asyncio.run(main())


def run_campaign_service(
    campaign: Campaign,
    service: Callable[..., Awaitable[T]],
    *,
    quiet: bool = False,
    **options: object,
) -> T:
    """Run service(campaign, runner, on_event, **options) with live output on the terminal."""
    show = printer(quiet)
    return run_service(campaign.layout, lambda runner: service(campaign, runner, show, **options))
