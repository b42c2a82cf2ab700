"""Running a service from the CLI: a job runner for the project, live output, Ctrl-C.

Ctrl-C cancels the running step (TERM, then KILL on the target, bounded) and leaves the
round open; asyncio.run turns the interrupt into a cancellation of the main task. A step
that prints nothing is said to be silent once a minute ("no output for 60 s"), so a hung
one is told from a slow one before its limit ([limits]) stops it.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import TypeVar

from pto_tui.backends.silence import Silence
from pto_tui.backends.site import StepEvent
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.project.layout import ProjectLayout
from pto_tui.jobs.runner import JobRunner

T = TypeVar("T")

# seconds of silence before the CLI says a step prints nothing, and again every as many
SILENCE_EVERY = 60.0


def printer(quiet: bool = False, silence: Silence | None = None) -> Callable[[StepEvent], None]:
    """Step headers and live lines; stderr lines go to stderr; pto-tui's notes between
    steps (why a round measures on) are shown even when quiet. `silence` follows them."""

    def show(event: StepEvent) -> None:
        if silence is not None:
            silence.see(event)
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


async def tell_silence(silence: Silence, every: float = SILENCE_EVERY, tick: float = 1.0) -> None:
    """Say of a step that has printed nothing for `every` seconds that it is silent, and
    again after each further `every` seconds of silence (until cancelled)."""
    told: tuple[tuple[str, float], int] = (("", 0.0), 0)  # (the step's stretch of silence, times)
    while True:
        await asyncio.sleep(tick)
        quiet = silence.silent(every)
        if quiet is None:
            continue
        stretch, times = (quiet.step, silence.since), int(quiet.seconds // every)
        if told[0] != stretch or told[1] < times:
            told = (stretch, times)
            print(f"--- {quiet.step}: {quiet.text}", file=sys.stderr, flush=True)


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
    silence = Silence()
    show = printer(quiet, silence)

    async def work(runner: JobRunner) -> T:
        watch = asyncio.create_task(tell_silence(silence))
        try:
            return await service(campaign, runner, show, **options)
        finally:
            watch.cancel()

    return run_service(campaign.layout, work)
