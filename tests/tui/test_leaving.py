"""Quitting with work running: asked, never silent; a kept job runs on and is re-attached
with its log when the project opens again; a stopped one is really stopped."""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

from pto_tui.jobs.model import JobRecord, JobState, list_records
from pto_tui.tui.app import PtoApp
from pto_tui.tui.screens.leave import LeaveScreen
from pto_tui.tui.widgets.log_view import LogView
from tests.tui.keys import loaded, wait_for
from tests.tui.text import static_text

TICKS = "echo start; for i in $(seq 1 2000); do echo tick $i; sleep 0.05; done"


def records(root: Path) -> list[JobRecord]:
    return list_records(root / ".pto-tui" / "jobs")


def group_alive(record: JobRecord) -> bool:
    """A live (not zombie) process in the job's group (a reaped leader may linger as one)."""
    pgid = (Path(record.remote_dir) / "pgid").read_text().strip()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if fields[2] == pgid and fields[0] != "Z":
                return True
    return False


def kill_left_over(root: Path) -> None:
    for record in records(root):
        with contextlib.suppress(OSError, ValueError):
            os.killpg(int((Path(record.remote_dir) / "pgid").read_text().strip()), signal.SIGKILL)


async def start_command(pilot, app: PtoApp) -> LogView:
    await loaded(pilot)
    await pilot.press("4", "exclamation_mark", *TICKS, "enter")
    view = app.screen.query_one(LogView)
    await wait_for(pilot, lambda: len(view.store) > 5)
    return view


async def test_quit_asks_and_keeps_the_job_then_reattaches(fresh_root: Path) -> None:
    try:
        app = PtoApp(fresh_root)
        async with app.run_test(size=(80, 24)) as pilot:
            await start_command(pilot, app)
            await pilot.press("q")
            await wait_for(pilot, lambda: isinstance(app.screen, LeaveScreen))
            question = static_text(app.screen.query_one("#leave-text"))
            assert "'command'" in question and "is running" in question
            assert "keep it running in the background" in question
            await pilot.press("escape")  # cancel: nothing stops, the app stays
            await wait_for(pilot, lambda: not isinstance(app.screen, LeaveScreen))
            assert [r.state for r in records(fresh_root)] == [JobState.RUNNING]
            await pilot.press("q", "k")
            await wait_for(pilot, lambda: not app.is_running)
        [kept] = records(fresh_root)
        assert kept.state is JobState.RUNNING and kept.detached
        assert group_alive(kept)  # still running, nobody follows it

        again = PtoApp(fresh_root)
        async with again.run_test(size=(80, 24)) as pilot:
            await loaded(pilot)
            view = again.screen.query_one(LogView)
            await wait_for(pilot, lambda: "re-attached" in static_text(
                again.screen.query_one("#log-header")))
            await wait_for(pilot, lambda: len(view.store) > 40)
            texts = [view.store.line(i) for i in range(len(view.store))]
            ticks = [t for t in texts if t.startswith("tick ")]
            # the log from its first line, then live, nothing lost or repeated
            assert "start" in texts
            assert ticks == [f"tick {i}" for i in range(1, len(ticks) + 1)]
            await pilot.press("4", "x")
            await wait_for(pilot, lambda: records(fresh_root)[0].state is JobState.CANCELLED)
            await pilot.press("q")  # nothing runs any more: quits without asking
            await wait_for(pilot, lambda: not again.is_running)
        assert not group_alive(records(fresh_root)[0])
    finally:
        kill_left_over(fresh_root)


async def test_quit_and_stop_stops_the_job(fresh_root: Path) -> None:
    try:
        app = PtoApp(fresh_root)
        async with app.run_test(size=(120, 40)) as pilot:
            await start_command(pilot, app)
            await pilot.press("ctrl+q")  # the same question as q
            await wait_for(pilot, lambda: isinstance(app.screen, LeaveScreen))
            await pilot.press("s")
            await wait_for(pilot, lambda: not app.is_running)
        [stopped] = records(fresh_root)
        assert stopped.state is JobState.CANCELLED
        assert not group_alive(stopped)
    finally:
        kill_left_over(fresh_root)
