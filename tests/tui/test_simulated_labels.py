"""A project on a cpu-sim target says on every screen that its timings are simulated."""

from __future__ import annotations

import shutil
from pathlib import Path

from textual.widgets import DataTable, Static

from pto_tui.tui.app import PtoApp
from tests.tui.keys import loaded
from tests.tui.projects import FIXTURES, run
from tests.tui.text import static_text

OP = "kernels/manual/common/fa_like"


def _cpu_sim_project(base: Path) -> Path:
    shutil.copytree(FIXTURES / "tilelib_repo", base / "repo")
    run("new", str(base / "repo" / OP), "--projects-root", str(base / "projects"),
        "--case-spec", "64,128,512", "--mode", "cpu-sim")
    root = base / "projects" / "fa_like"
    run("--project", str(root), "env", "--declare-environment", "probes given by hand in this test",
        "--probe", "ssh=ok", "--probe", "build=ok")
    run("--project", str(root), "baseline", "--build", "ok", "--correctness", "pass",
        "--samples", "100,101,99")
    return root


async def test_the_topbar_context_and_rounds_table_mark_simulated_timings(tmp_path: Path) -> None:
    root = _cpu_sim_project(tmp_path)
    app = PtoApp(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        assert "SIMULATED timings (cpu-sim)" in static_text(app.screen.query_one("#topbar", Static))
        await pilot.press("2")
        table = app.screen.query_one("#rounds-table", DataTable)
        row = [str(cell) for cell in table.get_row_at(0)]
        assert "100.0 us (sim)" in row
