"""ctrl+n in the Pre-Edit form explores the costmodel's ranking of the knob in scope: the
drafted rounds are shown once (with the high-risk values and a field for the
justification), the group opens, the Run pane runs it with each step named after its round,
and x cancels every round's run, the rounds left open."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable, Input, Static

from pto_tui.core.campaign.campaign import Campaign
from pto_tui.tui.app import PtoApp
from pto_tui.tui.screens.explore import ExploreScreen
from pto_tui.tui.widgets.run_pane import RunPane
from tests.tui.keys import loaded, wait_for
from tests.tui.test_preedit_suggest import PLAN
from tests.tui.test_round_flow import fill_pre_edit
from tests.tui.text import static_text


def step_rows(app: PtoApp) -> list[str]:
    table = app.screen.query_one("#run-steps", DataTable)
    return [str(key.value) for key in table.rows]


async def test_ctrl_n_explores_the_ranking_as_a_group_run_in_the_run_pane(fresh_root: Path) -> None:
    (fresh_root / "workspace" / "pto-operator.toml").write_text(PLAN)
    app = PtoApp(fresh_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("3")
        await fill_pre_edit(pilot)
        await pilot.press("ctrl+n")
        # pushed, then composed: its drafts are there once the screen is mounted
        await wait_for(pilot, lambda: isinstance(app.screen, ExploreScreen)
                       and bool(app.screen.query("#explore-drafts")), 60)
        shown = static_text(app.screen.query_one("#explore-drafts", Static))
        assert shown.startswith("explore-001: 3 rounds based on iter-000")
        assert "1. kFaTileS1 256 -> 1024 (explore)" in shown  # the ranking's best first
        assert "evidence: Suggestion: kFaTileS1 256 -> 1024 (costmodel rank 1" in shown
        assert "high-risk: bigger tile kFaTileS1" in shown  # a wider tile: asks why it is safe
        justify = app.screen.query_one("#explore-justify", Input)
        await wait_for(pilot, lambda: justify.has_focus, 5)  # the justification is asked first
        justify.value = "the stand-in kernel has room for every tile width tried"
        await pilot.press("enter")
        pane = app.screen.query_one(RunPane)
        await wait_for(pilot, lambda: any(row.startswith("iter-00") for row in step_rows(app)), 60)
        with Campaign(fresh_root) as campaign:
            group = [r for r in campaign.rounds() if r.group == "explore-001"]
        assert [r.number for r in group] == [1, 2, 3] and not any(r.is_closed for r in group)
        assert [r.changes.parameter_values["kFaTileS1"] for r in group][0] == 1024
        await pilot.press("x")  # cancels the group: every round's running step
        await wait_for(pilot, lambda: pane.worker is not None and pane.worker.is_finished, 60)
        await pilot.pause(1.2)
        assert all(state in ("cancelled", "succeeded", "failed") for state in (
            str(app.screen.query_one("#run-steps", DataTable).get_cell(row, "state"))
            for row in step_rows(app)))
    with Campaign(fresh_root) as campaign:
        after = [r for r in campaign.rounds() if r.group == "explore-001"]
    assert len(after) == 3 and not any(r.is_closed for r in after)  # each left open, sane
