"""The Context pane marks an environment round whose probes were given by hand."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from pto_tui.tui.app import PtoApp
from tests.tui.keys import loaded
from tests.tui.projects import new_project, run
from tests.tui.text import static_text


async def test_the_context_pane_shows_declared_probes_and_their_reason(tmp_path: Path) -> None:
    root = new_project(tmp_path, environment=False, baseline=False, torch=False, costmodel=False)
    run("--project", str(root), "env", "--probe", "npu reachable=ok",
        "--declare-environment", "checked on the board by hand")
    app = PtoApp(root)
    async with app.run_test(size=(160, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("1")
        await pilot.pause()
        summary = static_text(app.screen.query_one("#ctx-summary", Static))
        assert "passed  1/1 probes ok" in summary
        assert ("DECLARED: probes given by hand via cli, not run on the target; "
                "reason: checked on the board by hand") in summary


async def test_the_context_pane_shows_no_declaration_for_a_run_environment(tmp_path: Path) -> None:
    from pto_tui.core.campaign.campaign import Campaign
    from pto_tui.core.rounds.records import EnvironmentNotes

    root = new_project(tmp_path, environment=False, baseline=False, torch=False, costmodel=False)
    with Campaign(root, write=True) as campaign:  # as run_environment records a probed round
        campaign.record_environment(EnvironmentNotes(probes={"target reachable": True}, passed=True))
    app = PtoApp(root)
    async with app.run_test(size=(160, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("1")
        await pilot.pause()
        summary = static_text(app.screen.query_one("#ctx-summary", Static))
        assert "passed  1/1 probes ok" in summary and "DECLARED" not in summary
