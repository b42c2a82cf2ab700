"""The log pane on a real local subprocess (cancelled from the keyboard), and on a large
stream: everything kept, searchable, errors reachable, old lines read back from disk."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual.app import App, ComposeResult

from pto_tui.jobs.model import JobState, list_records
from pto_tui.tui.app import PtoApp
from pto_tui.tui.widgets.log_pane import LogPane
from pto_tui.tui.widgets.log_store import STDERR, STDOUT
from pto_tui.tui.widgets.log_view import LogView
from tests.tui.keys import loaded, wait_for
from tests.tui.text import screen_text, static_text


async def test_cancel_a_running_job_from_the_log_pane(fresh_root: Path) -> None:
    app = PtoApp(fresh_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("4", "exclamation_mark", *"seq 1 999999999", "enter")
        view = app.screen.query_one(LogView)
        await wait_for(pilot, lambda: len(view.store) > 1000)
        await pilot.press("l", "x")
        jobs = fresh_root / ".pto-tui" / "jobs"
        await wait_for(pilot, lambda: [r.state for r in list_records(jobs)]
                       == [JobState.CANCELLED])
        await wait_for(pilot, lambda: "cancelled" in static_text(
            app.screen.query_one("#log-header")))
        await wait_for(pilot, lambda: view.source_done)  # what the job wrote before, drained
        lines = len(view.store)
        await pilot.pause(0.5)
        assert len(view.store) == lines  # and nothing after


@dataclass(frozen=True)
class Line:
    stream: str
    text: str


async def lines(count: int):
    for i in range(count):
        if i % 10_000 == 9_999:
            yield Line("stderr", f"warning at {i}")
        else:
            yield Line("stdout", f"line {i}")
    yield Line("stdout", "make: *** [all] Error 2")


class LogApp(App[None]):
    def compose(self) -> ComposeResult:
        yield LogPane(memory_lines=1000)

    def on_mount(self) -> None:
        self.query_one(LogPane).follow(lines(100_000), "test stream")


async def test_large_stream_search_errors_and_read_back() -> None:
    app = LogApp()
    async with app.run_test(size=(80, 24)) as pilot:
        view = app.query_one(LogView)
        await wait_for(pilot, lambda: view.source_done and len(view.store) == 100_001)
        assert view.store.line(5) == "line 5"  # long gone from memory: read from the file
        assert len(view.store.tail) == 1000
        assert view.store.errors.tolist()[:2] == [9_999, 19_999]
        view.focus()
        await pilot.press("slash", *"line 4242", "enter")
        await wait_for(pilot, lambda: view.current == 4242)
        assert view.matches[:2] == [4242, 42420]
        await pilot.press("n")
        assert view.current == 42420
        await pilot.press("G", "E")  # from the end, back to the last error
        assert view.current == 100_000
        assert not view.following
        await pilot.press("f")
        assert view.following


async def test_a_commands_output_reaches_the_log_whole_and_in_order(fresh_root: Path) -> None:
    app = PtoApp(fresh_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("4", "exclamation_mark", *"seq 1 30000; echo bad >&2", "enter")
        view = app.screen.query_one(LogView)
        await wait_for(pilot, lambda: view.source_done and "succeeded" in static_text(
            app.screen.query_one("#log-header")))
        store = view.store
        lines = [(store.stream(i), store.line(i)) for i in range(len(store))]
        out = [text for stream, text in lines if stream == STDOUT]
        assert out == [str(i) for i in range(1, 30001)]
        assert (STDERR, "bad") in lines
        assert view.following
        # at the end, once the last lines' scroll has come (a frame after they are drawn)
        await wait_for(pilot, lambda: view.scroll_offset.y == view.max_scroll_y > 0)


async def test_a_log_whose_pane_is_hidden_is_stored_and_shown_when_the_pane_is(
        fresh_root: Path) -> None:
    """While another pane is shown the Run pane's log keeps every line but is not laid out
    again (that would cost each key typed meanwhile a layout of the screen); shown again,
    it is on its newest lines."""
    app = PtoApp(fresh_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        command = "for i in $(seq 1 400); do echo line-$i; sleep 0.005; done"
        await pilot.press("4", "exclamation_mark", *command, "enter")
        view = app.screen.query_one(LogView)
        await wait_for(pilot, lambda: len(view.store) > 20)
        await pilot.press("escape", "2")
        assert view.hidden()
        drawn = view.virtual_size.height
        await wait_for(pilot, lambda: view.source_done, timeout=60)
        await pilot.pause(0.5)  # flushes came and went
        assert any(view.store.line(i) == "line-400" for i in range(len(view.store)))
        assert view.virtual_size.height == drawn  # stored, not laid out
        await pilot.press("4")
        await wait_for(pilot, lambda: view.virtual_size.height == len(view.store))
        await pilot.pause()
        assert any("line-400" in row for row in screen_text(app)), screen_text(app)
