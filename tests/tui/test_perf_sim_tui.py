"""A perf-sim project in the terminal application: the top bar and the rounds table say
cycles, and ctrl+g in the Pre-Edit form offers the frontier's perf_sim pipes as evidence."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static, TextArea

from pto_tui.tui.app import PtoApp
from tests.tui.keys import loaded, tab_to, wait_for
from tests.tui.projects import FIXTURES, run
from tests.tui.text import static_text

OP = "kernels/manual/common/attn_op"


def _perf_sim_project(base: Path) -> Path:
    """The stand-in's attn_op in mode perf-sim, its baseline measured for real (g++, cmake)."""
    shutil.copytree(FIXTURES / "perf_sim", base / "pto-isa")
    run("new", str(base / "pto-isa" / OP), "--projects-root", str(base / "projects"),
        "--case-spec", "64,128,512", "--mode", "perf-sim", "--compiler", "g++")
    root = base / "projects" / "attn_op"
    run("--project", str(root), "env", "--declare-environment", "probes given by hand in this test",
        "--probe", "g++=ok")
    run("--project", str(root), "baseline")
    return root


@pytest.mark.skipif(not (shutil.which("g++") and shutil.which("cmake")), reason="needs g++ and cmake")
async def test_cycles_are_shown_and_their_pipes_offered_as_evidence(tmp_path: Path) -> None:
    root = await asyncio.to_thread(_perf_sim_project, tmp_path)  # the CLI runs its own event loop
    app = PtoApp(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        assert "CYCLES (perf_sim)" in static_text(app.screen.query_one("#topbar", Static))
        await pilot.press("2")
        row = [str(cell) for cell in app.screen.query_one("#rounds-table", DataTable).get_row_at(0)]
        assert "4536 cycles" in row and not any(cell.endswith((" us", " ms", "(sim)")) for cell in row)
        await pilot.press("3")
        await tab_to(pilot, "pe-title")
        await pilot.press("ctrl+g")  # no costmodel in this project: the measured evidence alone
        evidence = app.screen.query_one("#pe-evidence", TextArea)
        await wait_for(pilot, lambda: "perf_sim 4536 cycles" in evidence.text, 30)
        assert evidence.text.startswith("iter-000: perf_sim 4536 cycles: ")
        assert "busy" in evidence.text and "→" in evidence.text
