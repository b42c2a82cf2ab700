"""Screenshots of the what-changed view (iter-004 of the campaign fixture against the round
it was based on, and against the frontier) and of the rerun question, at 80x24 and 120x40.
The fixture's samples are fixed (CLI `round measure`), the view shows no time or path."""

from __future__ import annotations

from pathlib import Path

import pytest

from pto_tui.tui.app import PtoApp
from pto_tui.tui.screens.rerun import RerunScreen
from pto_tui.tui.screens.what_changed import WhatChangedScreen
from tests.tui.keys import loaded, rounds_drawn, wait_for

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]

SCREENS: dict[str, tuple[str, ...]] = {
    "what_changed": ("G", "D"),
    "what_changed_frontier": ("G", "D", "f"),
    "rerun_question": ("G", "u"),
}


def _settled(app: PtoApp) -> bool:
    """The what-changed view has its diff or its reason (the core runs in a thread); the
    rerun question is laid out."""
    screen = app.screen
    if isinstance(screen, RerunScreen):
        return screen.is_mounted and not screen._dirty_regions
    if not isinstance(screen, WhatChangedScreen):
        return True
    return bool(screen.problem) or (
        screen.diff is not None and screen.diff.against_how == screen.against)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("screen", list(SCREENS))
def test_what_changed_and_rerun_screens(snap_compare, campaign_root: Path, screen: str,
                                        size: tuple[int, int]) -> None:
    async def run_before(pilot) -> None:
        await loaded(pilot)
        await rounds_drawn(pilot)
        for key in SCREENS[screen]:
            await pilot.press(key)
            await pilot.pause(0.2)
            await wait_for(pilot, lambda: _settled(pilot.app))
            # a dialog opened on a screen not yet repainted freezes it behind half drawn
            await wait_for(pilot, lambda: not pilot.app.screen._dirty_regions)
        # under load the screen asked for can come up after the first look
        wanted = RerunScreen if screen == "rerun_question" else WhatChangedScreen
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, wanted)
                       and _settled(pilot.app))
        await pilot.pause(0.6)

    assert snap_compare(PtoApp(campaign_root), terminal_size=size, run_before=run_before)
