"""What the eye needs: the focused field is marked without colour and in view at every size
down to 60x20, and every verdict stands 4.5:1 or more against its background in the
default theme and under NO_COLOR, measured on the segments the app renders."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.segment import Segment
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import DataTable

from pto_tui.tui.app import PtoApp
from pto_tui.tui.format import VERDICT_MARKS
from pto_tui.tui.screens.round_detail import AmendScreen
from tests.tui.keys import loaded, rounds_drawn, tab_to, type_into, wait_for
from tests.tui.test_demo_loop import run_finished, start_scripted_round
from tests.tui.test_leaving import kill_left_over
from tests.tui.text import screen_text

BAR = "▌"  # the focus marker at a field's left edge


def row_of(app: PtoApp, widget_id: str) -> str:
    widget = app.screen.query_one(f"#{widget_id}")
    return screen_text(app)[widget.region.y]


async def test_the_focused_field_is_marked_without_colour(
        campaign_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = PtoApp(campaign_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("3")
        await pilot.pause()
        assert row_of(app, "pe-title").startswith(BAR)
        await tab_to(pilot, "pe-kernel")
        await pilot.pause()
        assert row_of(app, "pe-kernel").startswith(BAR)
        assert not row_of(app, "pe-title").startswith(BAR)
        await tab_to(pilot, "pe-evidence")
        await pilot.pause()
        box = app.screen.query_one("#pe-evidence").region
        assert screen_text(app)[box.y][box.x] == "┏"  # heavy lines while focused
        await tab_to(pilot, "pe-hypothesis")
        await pilot.pause()
        assert screen_text(app)[box.y][box.x] == "╭"


async def test_tab_moves_without_selecting_the_text(campaign_root: Path) -> None:
    app = PtoApp(campaign_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("3")
        kernel = app.screen.query_one("#pe-kernel").value  # type: ignore[attr-defined]
        assert kernel  # pre-filled
        await type_into(pilot, "pe-kernel", "!")
        assert app.screen.query_one("#pe-kernel").value == kernel + "!"  # type: ignore[attr-defined]


def visible(app: PtoApp, text: str) -> bool:
    return any(text in line for line in screen_text(app))


async def test_every_field_typed_into_is_on_a_60x20_screen(campaign_root: Path) -> None:
    app = PtoApp(campaign_root)
    async with app.run_test(size=(60, 20)) as pilot:
        await loaded(pilot)
        await rounds_drawn(pilot)
        await pilot.press("3")
        last_note = "pe-note-bottleneck_shift"
        for widget_id in ("pe-title", "pe-scope", last_note):
            await type_into(pilot, widget_id, f"typed {widget_id[3:8]}")
            await pilot.pause()
            assert visible(app, f"typed {widget_id[3:8]}"), "\n".join(screen_text(app))
        await pilot.press("escape", "5", "escape", "f5", *"TMATMUL hal")
        await pilot.pause()
        assert visible(app, "TMATMUL hal")
        await pilot.press("f2", "slash", *"class:tile")
        await pilot.pause()
        assert visible(app, "class:tile")
        await pilot.press("escape", "escape", "4", "exclamation_mark", *"echo seen")
        await pilot.pause()
        assert visible(app, "echo seen")
        await pilot.press("escape", "2", "j", "enter", "a", *"amended text")
        await wait_for(pilot, lambda: isinstance(app.screen, AmendScreen))
        await pilot.press("enter", *"why it changed")
        await pilot.pause()
        assert visible(app, "amended text") and visible(app, "why it changed")


async def test_post_run_typed_after_a_run_is_on_a_60x20_screen(demo_root: Path) -> None:
    """The Run pane after a whole run (its step table full, its log long): the Analysis
    and Next being typed are on the screen."""
    start_scripted_round(demo_root, 0)
    app = PtoApp(demo_root)
    try:
        async with app.run_test(size=(60, 20)) as pilot:
            await loaded(pilot)
            await pilot.press("4", "r")
            await run_finished(pilot, app)
            # the verdict is in the pane: no notice over the Post-Run form as well
            assert not [n for n in app._notifications if n.title == "verdict"]
            await pilot.press("a", *"analysis in view")
            await pilot.pause()
            assert visible(app, "analysis in view"), "\n".join(screen_text(app))
            await pilot.press("tab", *"next in view")
            await pilot.pause()
            assert visible(app, "next in view"), "\n".join(screen_text(app))
    finally:
        kill_left_over(demo_root)


# ------------------------------------------------------------------ contrast

def _linear(value: int) -> float:
    v = value / 255
    return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4


def luminance(rgb: tuple[int, int, int]) -> float:
    r, g, b = rgb
    return 0.2126 * _linear(r) + 0.7152 * _linear(g) + 0.0722 * _linear(b)


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def verdict_segments(widget: Widget) -> list[Segment]:
    """The rendered segments of the widget that show a verdict (its mark first)."""
    lines = widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))
    marks = tuple(VERDICT_MARKS.values())
    return [seg for line in lines for seg in line if seg.text.strip().startswith(marks)]


def ratios(widget: Widget) -> list[tuple[str, float]]:
    found = []
    for seg in verdict_segments(widget):
        style = seg.style
        assert style is not None and style.color is not None and style.bgcolor is not None, seg
        fg, bg = style.color.get_truecolor(), style.bgcolor.get_truecolor()
        found.append((seg.text.strip(), round(contrast(fg, bg), 2)))
    return found


@pytest.mark.parametrize("no_color", [False, True], ids=["default-theme", "NO_COLOR"])
async def test_every_verdict_stands_out_from_its_background(
        campaign_root: Path, monkeypatch: pytest.MonkeyPatch, no_color: bool) -> None:
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    app = PtoApp(campaign_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        await rounds_drawn(pilot)
        assert app.no_color is no_color
        table = app.screen.query_one("#rounds-table", DataTable)
        seen: dict[str, float] = {}
        for row in range(table.row_count):  # each verdict off and under the cursor row
            table.move_cursor(row=row, animate=False)
            await pilot.pause()
            for text, ratio in ratios(table) + ratios(app.screen.query_one("#rounds-counts")):
                seen[text] = min(ratio, seen.get(text, ratio))
        words = {text.split()[1] for text in seen}
        assert {"baseline", "kept", "neutral", "failure", "inconclusive"} <= words, seen
        low = {text: ratio for text, ratio in seen.items() if ratio < 4.5}
        assert not low, f"below 4.5:1: {low}"
        await pilot.press("enter")  # the round's detail names its verdict at the top
        await pilot.pause()
        top = ratios(app.screen.query_one(".topbar"))
        assert top and all(ratio >= 4.5 for _text, ratio in top), top
