"""NO_COLOR: every verdict and state reads without colour; the live log gets room while
a job runs (more than half of an 80x24 screen) and can be maximised."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable, Static

from pto_tui.tui.app import PtoApp
from pto_tui.tui.widgets.log_pane import LogPane
from pto_tui.tui.widgets.log_view import LogView
from tests.tui.keys import loaded, wait_for
from tests.tui.test_leaving import kill_left_over, start_command
from tests.tui.text import static_text


async def test_verdicts_read_without_colour(campaign_root: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = PtoApp(campaign_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        assert app.no_color
        table = app.screen.query_one("#rounds-table", DataTable)
        cells = {str(table.get_row_at(i)[3]) for i in range(table.row_count)}
        # baseline, kept, neutral, failure, inconclusive: each with its own mark
        assert {"■ baseline", "✓ kept", "= neutral", "✗ failure", "? inconclusive"} <= cells
        counts = static_text(app.screen.query_one("#rounds-counts", Static))
        for marked in ("✓ kept 1", "= neutral 1", "✗ failure 1", "? inconclusive 1"):
            assert marked in counts


async def test_log_has_room_while_a_job_runs_and_maximises(fresh_root: Path) -> None:
    app = PtoApp(fresh_root)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await start_command(pilot, app)
            await pilot.pause(0.2)
            pane = app.screen.query_one("#run-log", LogPane)
            assert pane.size.height >= 12  # at least half of the 24 rows
            await pilot.press("m")  # from the Run pane
            await wait_for(pilot, lambda: app.screen.maximized is pane)
            assert pane.size.height >= 22
            assert isinstance(app.focused, LogView)
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen.maximized is None)
            await pilot.press("m", "m")  # m in the log toggles too
            assert app.screen.maximized is None
            await pilot.press("x")
    finally:
        kill_left_over(fresh_root)
