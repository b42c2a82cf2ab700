"""Screenshots of the review states at 80x24 and 120x40: a pinned compare in full view,
the export question, `?` from the Run pane (its keys first, every pane's listed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pto_tui.tui.app import PtoApp
from tests.tui.keys import loaded

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]

SCREENS: dict[str, tuple[str, ...]] = {
    "rounds_pinned": ("j", "P", "j", "j", "j", "space"),  # ◆ and ▶ in the mark column
    "compare_pinned_full": ("j", "P", "j", "j", "j", "c", "d"),
    "export": ("X",),
    "help_from_run": ("4", "question_mark"),
}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("screen", list(SCREENS))
def test_review_screens(snap_compare, campaign_root: Path, screen: str,
                        size: tuple[int, int]) -> None:
    async def run_before(pilot) -> None:
        await loaded(pilot)
        await pilot.press(*SCREENS[screen])
        await pilot.pause(0.3)

    assert snap_compare(PtoApp(campaign_root), terminal_size=size, run_before=run_before)
