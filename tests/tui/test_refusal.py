"""A refused Pre-Edit start lists every failing gate where it can be seen at 80x24 (a box
that stays at the top while the form scrolls), and the first missing field has the focus."""

from __future__ import annotations

from pathlib import Path

import pytest

from pto_tui.core.rules.sequence import start_findings
from pto_tui.tui.app import PtoApp
from pto_tui.tui.widgets.preedit_form import PreEditForm
from tests.tui.keys import loaded, type_into, wait_for
from tests.tui.test_snapshots import SIZES
from tests.tui.text import static_text


async def test_every_failing_gate_is_listed_in_view_and_the_first_field_focused(
        fresh_root: Path) -> None:
    app = PtoApp(fresh_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("3")
        await type_into(pilot, "pe-title", "S1 128")
        await type_into(pilot, "pe-kernel", "fa")
        await pilot.press("ctrl+s")
        await pilot.pause()
        form = app.screen.query_one(PreEditForm)
        box = app.screen.query_one("#pe-refusal")
        assert not box.has_class("hidden")
        shown = static_text(box)
        findings = start_findings(form.pre_edit(), form.loaded.rounds if form.loaded else [])
        assert len(findings) >= 5
        assert f"{len(findings)} gate(s) fail" in shown
        for finding in findings:  # every one, not only the first
            assert finding.message[:40] in shown, finding.message
        # wholly on the 80x24 screen, with no scrolling
        assert box.region.y >= 0 and box.region.bottom <= 24 and box.region.height > len(findings)
        assert app.focused is not None and app.focused.id == "pe-bottleneck"  # the first missing

        await type_into(pilot, "pe-hypothesis", "overlap")  # the list follows the form
        assert "Hypothesis" not in static_text(box)
        assert f"{len(findings) - 1} gate(s) fail" in static_text(box)


@pytest.mark.parametrize("size", SIZES)
def test_refusal_snapshot(snap_compare, fresh_root: Path, size: tuple[int, int]) -> None:
    async def run_before(pilot) -> None:
        await loaded(pilot)
        await pilot.press("3")
        await type_into(pilot, "pe-title", "S1 128")
        await pilot.press("ctrl+s")
        await pilot.pause(0.3)

    assert snap_compare(PtoApp(fresh_root), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", [pytest.param((80, 24), id="80x24")])
def test_run_pane_while_a_round_runs_snapshot(snap_compare, campaign_root: Path,
                                              size: tuple[int, int]) -> None:
    """The Run pane at 80x24 while a round runs: the log has most of the screen. The run
    is staged (its steps and lines fixed here): a real job's timings are not deterministic."""
    from pto_tui.tui.widgets.run_pane import RunPane
    from pto_tui.tui.widgets.step_table import StepTable

    async def run_before(pilot) -> None:
        await loaded(pilot)
        await pilot.press("4")
        pane = pilot.app.screen.query_one(RunPane)
        pane._begin("round", "iter-005 round")
        table = pane.query_one(StepTable)
        table.started("build")
        table.finished("build", "succeeded", 1.5)
        table.started("benchmark 1/7")
        pane.log_pane.set_title("iter-005 round: benchmark 1/7")
        for i in range(40):
            pane.log_pane.write("stdout", f"case 128,128,1024,128 repeat {i + 1}: 91.{i % 10} us")
        pane.log_pane.write("stderr", "warning: clock throttled (demo line)")
        await pilot.pause(0.5)
        view = pane.log_pane.view  # following: the newest lines, once laid out
        await wait_for(pilot, lambda: view.max_scroll_y > 0
                       and view.scroll_offset.y == view.max_scroll_y)

    assert snap_compare(PtoApp(campaign_root), terminal_size=size, run_before=run_before)
