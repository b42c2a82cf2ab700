"""Screenshots of every main screen at 80x24 and 120x40 (pytest-textual-snapshot).

Deterministic: projects are made by the CLI with fixed numbers; no time, job id or
temporary path is on these screens; cursors do not blink.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pto_tui.tui.app import PtoApp
from tests.tui.keys import loaded

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]

# screen name -> keys pressed after the project has loaded
SCREENS: dict[str, tuple[str, ...]] = {
    "rounds": ("p",),
    "context": ("1",),
    "round_form": ("3",),
    "run": ("4",),
    "costmodel": ("5", *"TMATMUL half"),
    "round_detail": ("j", "enter"),
    "amend": ("j", "enter", "a"),
    "compare": ("j", "space", "j", "j", "j", "space", "c"),
    "help": ("question_mark",),
}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("screen", list(SCREENS))
def test_project_screens(snap_compare, campaign_root: Path, screen: str,
                         size: tuple[int, int]) -> None:
    async def run_before(pilot) -> None:
        await loaded(pilot)
        # the panes other than the first are mounted after the first paint: wait for them,
        # so what shows behind a dialog does not depend on the machine's speed
        await pilot.app.screen.mount_panes()
        await pilot.pause()
        await pilot.press(*SCREENS[screen])
        await pilot.pause(0.3)
        # a pane scrolls its focused widget into view with an animation: the picture is
        # taken once it has ended, whatever the machine's speed
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()

    assert snap_compare(PtoApp(campaign_root), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_launcher(snap_compare, campaign_root: Path, size: tuple[int, int]) -> None:
    start = campaign_root.parent.parent  # holds projects/fa_tilelib
    assert snap_compare(PtoApp(None, start_dir=start), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_wizard(snap_compare, tmp_path: Path, size: tuple[int, int]) -> None:
    async def run_before(pilot) -> None:
        await pilot.press("n")
        await pilot.pause(0.2)

    assert snap_compare(PtoApp(None, start_dir=tmp_path), terminal_size=size,
                        run_before=run_before)


@pytest.mark.parametrize("size", SIZES)
def test_leave_question(snap_compare, campaign_root: Path, size: tuple[int, int]) -> None:
    """Asked before quitting while work runs (names fixed here: job ids carry the time)."""
    from pto_tui.tui.screens.leave import LeaveScreen

    async def run_before(pilot) -> None:
        await loaded(pilot)
        pilot.app.push_screen(LeaveScreen("quit pto-tui", [
            "the iter-005 round", "job 'iter-005 benchmark 1/7' (20260101-000000-abcdef) on local"]))
        await pilot.pause(0.3)

    assert snap_compare(PtoApp(campaign_root), terminal_size=size, run_before=run_before)
