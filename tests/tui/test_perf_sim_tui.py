"""A perf-sim project in the terminal application: the top bar and the rounds table say
cycles, and ctrl+g in the Pre-Edit form offers the frontier's perf_sim pipes as evidence. A
cpu-sim project that predicts with perf_sim: the rounds table and the what-changed view set
the predicted change beside the measured one."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static, TextArea

from pto_tui.core.project.layout import ProjectLayout
from pto_tui.core.rounds.prediction import predicted_change
from pto_tui.tui.app import PtoApp
from pto_tui.tui.screens.what_changed import WhatChangedScreen
from tests.core.helpers import read_every_round
from tests.core.perf_sim_build import predicting_project
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


@pytest.mark.skipif(not (shutil.which("g++") and shutil.which("cmake")), reason="needs g++ and cmake")
async def test_predicted_against_measured_in_the_rounds_table_and_what_changed(tmp_path: Path) -> None:
    root = await asyncio.to_thread(predicting_project, tmp_path)
    rounds, _problems = read_every_round(ProjectLayout(root))
    base, tile = sorted(rounds, key=lambda r: r.number)
    change = predicted_change(tile, base)
    assert change is not None and change.predicted is not None and change.measured is not None
    app = PtoApp(root)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        await pilot.press("2")
        table = app.screen.query_one("#rounds-table", DataTable)
        headers = [str(column.label) for column in table.ordered_columns]
        assert headers[headers.index("duration") + 1] == "perf_sim/meas"
        at = headers.index("perf_sim/meas")
        assert str(table.get_row_at(0)[at]) == "-"  # the baseline has no round it was based on
        assert str(table.get_row_at(1)[at]) == f"{change.predicted:+.1%} / {change.measured:+.1%}"
        await pilot.press("G", "D")
        screen = app.screen
        assert isinstance(screen, WhatChangedScreen)
        await wait_for(pilot, lambda: screen.diff is not None)
        await pilot.pause()
        body = static_text(screen.query_one("#changed-text", Static))
        assert "Predicted (perf_sim) against measured" in body
        assert f"{base.measurement.predicted_cycles} -> {tile.measurement.predicted_cycles} cycles" in body
