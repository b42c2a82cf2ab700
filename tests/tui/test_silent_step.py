"""A running step that prints nothing: its row in the Run pane says "no output for N s"
(with the limit it is stopped at), updated while it stays silent, and the note goes once
it prints. A real job: the torch_npu stand-in, made to sleep before it prints."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import DataTable

from pto_tui.core.project.file import ProjectFile
from pto_tui.tui.app import PtoApp
from pto_tui.tui.widgets.run_pane import RunPane
from pto_tui.tui.widgets.step_table import StepTable
from tests.tui.keys import loaded, wait_for

STEP = "torch_npu baseline"


def state_of(app: PtoApp, step: str) -> str:
    table = app.screen.query_one("#run-steps", DataTable)
    return str(table.get_cell(step, "state")) if step in table.rows else ""


async def test_a_silent_step_says_how_long_it_has_printed_nothing(demo_root: Path) -> None:
    project = ProjectFile(demo_root / "project.toml")
    reference = project.config.commands.reference
    project.set("commands.reference", f"sleep 4 && {reference}")
    project.set("limits.benchmark", 90)  # the reference runs under the benchmark limit
    project.save()
    app = PtoApp(demo_root)
    async with app.run_test(size=(100, 30)) as pilot:
        await loaded(pilot)
        await pilot.press("4")
        pane = app.screen.query_one(RunPane)
        # the step table's own 30 s, shortened for the test
        app.screen.query_one("#run-steps", StepTable).silence_after = 1.0
        await pilot.press("T")
        await wait_for(pilot, lambda: "no output for" in state_of(app, STEP), timeout=30)
        first = state_of(app, STEP)
        assert first.startswith("running · no output for ") and first.endswith("· limit 90 s"), first
        await wait_for(pilot, lambda: state_of(app, STEP) not in ("", first), timeout=30)
        later = state_of(app, STEP)
        if later.startswith("running · no output for"):  # updated while it stays silent
            assert _seconds(later) > _seconds(first)
        await wait_for(pilot, lambda: pane.worker is not None and pane.worker.is_finished, timeout=120)
        await pilot.pause(1.2)  # a tick of the pane's timer after the end
        assert state_of(app, STEP) == "succeeded"  # the note is gone with the silence


def _seconds(state: str) -> int:
    return int(state.split("no output for ", 1)[1].split(" ", 1)[0])
