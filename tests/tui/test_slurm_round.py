"""The demo campaign's round run to a verdict by keys on the one-node Slurm test cluster:
r submits each benchmark run as its own Slurm job (real jobs, real sbatch), the verdict is
shown with its numbers, and Post-Run closes the round. Every check reads the records on
disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from pto_tui.jobs.local_slurm import NODE, LocalSlurm
from pto_tui.jobs.model import list_records
from pto_tui.tui.app import PtoApp
from tests.tui.keys import loaded, wait_for
from tests.tui.test_demo_loop import read, run_finished, start_scripted_round, verdict_box
from tests.tui.test_slurm_queue import on_slurm

pytestmark = pytest.mark.slurm


async def test_a_round_runs_to_a_verdict_through_slurm_by_keys(demo_root: Path, slurm: LocalSlurm) -> None:
    on_slurm(demo_root, slurm)
    start_scripted_round(demo_root, 0)  # wider KV tiles, justified
    app = PtoApp(demo_root)
    async with app.run_test(size=(100, 30)) as pilot:
        await loaded(pilot)
        await pilot.press("4", "r")
        await run_finished(pilot, app)
        record = read(demo_root, 1)
        samples, placements = record.measurement.samples_us, record.measurement.placements
        assert not record.is_closed and samples and len(placements) == len(samples)
        assert all(p in (f"{NODE} npu 0", f"{NODE} npu 1") for p in placements), placements
        shown = verdict_box(app)
        assert "iter-001" in shown and f"{len(samples)} samples" in shown

        await pilot.press("a", *"through slurm", "enter", *"KV 128", "enter")
        await wait_for(pilot, lambda: read(demo_root, 1).is_closed)
        record = read(demo_root, 1)
        assert record.verdict is not None and record.analysis == "through slurm", record.verdict_reason
    jobs = [r for r in list_records(demo_root / ".pto-tui/jobs") if r.round_number == 1]
    batch = {r.name for r in jobs if r.scheduler_id}  # each benchmark run its own Slurm job, nothing else
    assert batch == {f"iter-001 benchmark {n}/{len(samples)}" for n in range(1, len(samples) + 1)}
