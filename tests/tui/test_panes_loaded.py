"""Every pane is a ProjectPane that shows what the screen loaded, handed over in its
`loaded` attribute; widgets reach the app's own methods through pto_app."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from pto_tui.tui.app import PtoApp
from pto_tui.tui.screens.project import PANES, ProjectScreen
from pto_tui.tui.typed_app import pto_app
from pto_tui.tui.widgets.pane import ProjectPane
from tests.tui.keys import loaded, wait_for


async def test_every_pane_holds_what_was_loaded_then_what_was_reloaded(fresh_root: Path) -> None:
    app = PtoApp(fresh_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        screen = app.screen
        assert isinstance(screen, ProjectScreen)
        await screen.mount_panes()
        await pilot.pause()
        panes = screen.panes
        assert list(panes) == [pid for pid, _title in PANES]
        first = app.session.loaded if app.session else None
        assert first is not None
        for pid, pane in panes.items():
            assert isinstance(pane, ProjectPane), pid
            assert pane.loaded is first, pid
        await pilot.press("ctrl+r")  # read again: a new LoadedProject, to every pane
        await wait_for(pilot, lambda: app.session is not None and app.session.loaded is not first)
        again = app.session.loaded if app.session else None
        for pid, pane in panes.items():
            assert pane.loaded is again, pid
        assert pto_app(screen) is app


class OtherApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("not pto-tui")


async def test_pto_app_refuses_another_app() -> None:
    app = OtherApp()
    async with app.run_test():
        with pytest.raises(TypeError, match="OtherApp"):
            pto_app(app.query_one(Static))


def test_no_untyped_app_call_is_left() -> None:
    """The app's own methods are reached through pto_app, never past the type checker."""
    tui = Path(pto_app.__code__.co_filename).parent
    found = [f"{path.relative_to(tui)}:{number}"
             for path in sorted(tui.rglob("*.py"))
             for number, line in enumerate(path.read_text().splitlines(), 1)
             if "ignore[attr-defined]" in line]
    assert found == []
