"""A launch draws the round table before the other panes are built, and a pane asked for
before they are (a digit pressed at once) is built then and shown."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable

from pto_tui.tui.app import PtoApp
from pto_tui.tui.screens.project import PANES, ProjectScreen
from pto_tui.tui.widgets.run_pane import RunPane
from tests.tui.keys import loaded, wait_for


async def test_the_first_frame_holds_only_the_round_table(
    campaign_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    attached_at_first_apply: list[dict[str, bool]] = []
    apply = ProjectScreen.apply

    def watched(screen: ProjectScreen, snap) -> None:  # noqa: ANN001 - a Snapshot
        if not attached_at_first_apply:
            attached_at_first_apply.append(
                {pid: pane.is_attached for pid, pane in screen.panes.items()})
        apply(screen, snap)

    monkeypatch.setattr(ProjectScreen, "apply", watched)
    app = PtoApp(campaign_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        assert attached_at_first_apply == [
            {pid: pid == "rounds" for pid, _title, _make in PANES}]
        screen = app.screen
        assert isinstance(screen, ProjectScreen)
        await wait_for(pilot, lambda: all(p.is_attached for p in screen.panes.values()))
        # mounted after the first frame, then filled from the same snapshot
        assert screen.query_one("#context").display is False
        await pilot.press("1")
        tunables = screen.query_one("#ctx-tunables", DataTable)
        assert tunables.row_count == len(app.session.campaign.config.tunables) > 0


async def test_a_pane_asked_for_at_once_is_built_and_shown(campaign_root: Path) -> None:
    app = PtoApp(campaign_root)
    async with app.run_test(size=(80, 24)) as pilot:
        while not isinstance(app.screen, ProjectScreen):
            await pilot.pause(0.01)
        await pilot.press("4")  # before the snapshot is read: only the table exists
        screen = app.screen
        await wait_for(pilot, lambda: screen.current == "run")
        run = screen.query_one(RunPane)
        assert run.display is True
        assert screen.query_one("#rounds").display is False
        assert app.focused is screen.query_one("#run-loop")
        await loaded(pilot)
        assert screen.query_one("#run-hint").render()
