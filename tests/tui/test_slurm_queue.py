"""A step whose Slurm job waits in the queue: the Run pane's row reads "pending (Resources)
12s", counting, until the job runs; cancelling it there (x) is scancel. Real jobs on the
one-node test cluster, both of its NPU slots taken by jobs of someone else."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pto_tui.core.project.file import ProjectFile
from pto_tui.jobs.local_slurm import LocalSlurm
from pto_tui.jobs.model import list_records
from pto_tui.tui.app import PtoApp
from pto_tui.tui.widgets.run_pane import RunPane
from tests.tui.keys import loaded, wait_for
from tests.tui.test_silent_step import state_of

pytestmark = pytest.mark.slurm

STEP = "torch_npu baseline"


@pytest.fixture
def busy(slurm: LocalSlurm) -> Iterator[list[str]]:
    """Both NPU slots taken by someone else's jobs (their ids), until cancelled."""
    ids = [slurm.command("sbatch", "--parsable", "--gres=npu:1", "-o", "/dev/null", "--wrap", "sleep 60")
           .stdout.strip() for _ in range(2)]
    yield ids
    slurm.command("scancel", *ids)


def on_slurm(root: Path, slurm: LocalSlurm) -> None:
    project = ProjectFile(root / "project.toml")
    project.set("target.kind", "slurm")
    project.set("target.env_setup", f"export PATH={Path(sys.executable).parent}:$PATH; {slurm.env_setup}")
    project.set("target.slurm.partition", "ascend")
    project.set("target.slurm.gres", "npu:1")
    project.save()


def seconds_waited(state: str) -> int:
    return int(state.removeprefix("pending (Resources) ").removesuffix("s"))


async def test_a_queued_step_reads_pending_with_its_wait_until_it_runs(
    demo_root: Path, slurm: LocalSlurm, busy: list[str]
) -> None:
    on_slurm(demo_root, slurm)
    app = PtoApp(demo_root)
    async with app.run_test(size=(100, 30)) as pilot:
        await loaded(pilot)
        await pilot.press("4")
        pane = app.screen.query_one(RunPane)
        await pilot.press("T")
        await wait_for(pilot, lambda: state_of(app, STEP).startswith("pending (Resources) "), timeout=30)
        first = state_of(app, STEP)
        await wait_for(pilot, lambda: state_of(app, STEP) != first, timeout=10)
        assert seconds_waited(state_of(app, STEP)) > seconds_waited(first)  # it counts
        slurm.command("scancel", busy[0])  # a slot frees: the job runs
        await wait_for(pilot, lambda: pane.worker is not None and pane.worker.is_finished, timeout=60)
        await pilot.pause(1.2)
        assert state_of(app, STEP) == "succeeded"


async def test_cancelling_a_queued_step_cancels_its_slurm_job(
    demo_root: Path, slurm: LocalSlurm, busy: list[str]
) -> None:
    on_slurm(demo_root, slurm)
    app = PtoApp(demo_root)
    async with app.run_test(size=(100, 30)) as pilot:
        await loaded(pilot)
        await pilot.press("4")
        pane = app.screen.query_one(RunPane)
        await pilot.press("T")
        await wait_for(pilot, lambda: state_of(app, STEP).startswith("pending (Resources) "), timeout=30)
        await pilot.press("x")
        await wait_for(pilot, lambda: pane.worker is not None and pane.worker.is_finished, timeout=30)
        await pilot.pause(1.2)
        assert state_of(app, STEP) == "cancelled"
    records = list_records(demo_root / ".pto-tui/jobs")
    job = next(r for r in records if r.name.endswith(STEP) and r.scheduler_id)
    state = slurm.command("scontrol", "-o", "show", "job", job.scheduler_id).stdout
    assert "JobState=CANCELLED" in state and job.scheduler_id not in slurm.jobs()
