"""Driving the app by keys only."""

from __future__ import annotations

from textual.pilot import Pilot


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


async def wait_for(pilot: Pilot, condition, timeout: float = 20.0) -> None:  # noqa: ANN001
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

    pane = pilot.app.screen.query_one(RoundsPane)
    await wait_for(pilot, lambda: pane.drawn)
    await pilot.pause()
