"""Driving the app by keys only."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.pilot import Pilot

from pto_tui.tui.screens.project import ProjectScreen
from pto_tui.tui.session import Session


async def loaded(pilot: Pilot) -> None:
    """Wait until the project has been read (off the UI thread) and shown."""
    for _ in range(200):
        await pilot.pause(0.05)
        session = getattr(pilot.app, "session", None)
        if session is not None and session.loaded is not None:
            await pilot.pause()
            return
    raise AssertionError("the project never loaded")


async def tab_to(pilot: Pilot, widget_id: str, limit: int = 80) -> None:
    """Press tab until the widget has the focus, as a person would."""
    for _ in range(limit):
        focused = pilot.app.focused
        if focused is not None and focused.id == widget_id:
            return
        await pilot.press("tab")
    raise AssertionError(f"tab never reached #{widget_id} (focus: {pilot.app.focused})")


async def type_into(pilot: Pilot, widget_id: str, text: str) -> None:
    await tab_to(pilot, widget_id)
    await pilot.press(*text)


def current(app: App[Any]) -> str:
    """The pane the project screen shows."""
    screen = app.screen
    assert isinstance(screen, ProjectScreen), screen
    return screen.current


def session_of(app: App[Any]) -> Session:
    """The open project's session (the app has opened one)."""
    session = getattr(app, "session", None)
    assert isinstance(session, Session), "no project is open"
    return session


async def wait_for(pilot: Pilot, condition: Callable[[], object], timeout: float = 20.0) -> None:
    steps = int(timeout / 0.05)
    for _ in range(steps):
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError("condition not met in time")


async def rounds_drawn(pilot: Pilot) -> None:
    """Wait until the Rounds pane's table is filled and drawn with its final column widths:
    a dialog opened before that freezes the table behind it half laid out."""
    from pto_tui.tui.widgets.rounds_pane import RoundsPane

    screen = pilot.app.screen
    pane = screen.query_one(RoundsPane)
    await wait_for(pilot, lambda: pane.drawn)
    # the other panes mount after the rows are drawn, and lay the screen out again
    await wait_for(pilot, lambda: getattr(screen, "panes_mounted", True))
    await pilot.pause()
