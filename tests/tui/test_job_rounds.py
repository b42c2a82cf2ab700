"""Every job a loop step runs says in its record which round it ran for, and the environment
round's checks are found by the names the code that runs them gives them (real demo runs)."""

from __future__ import annotations

from pathlib import Path

from pto_tui.backends.environment import run_environment
from pto_tui.backends.environment_checks import (
    CHECK_STEPS,
    WORKSPACE_UPLOADED,
    check_evidence,
    check_job_name,
)
from pto_tui.backends.loop import run_baseline, run_round
from pto_tui.backends.reference import run_reference
from pto_tui.jobs.model import JobSpec, list_records
from pto_tui.tui.screens.round_detail import round_jobs
from pto_tui.tui.widgets.context_pane import probe_job
from tests.backends.helpers import demo_project, open_loop, start


async def test_loop_jobs_carry_their_round_and_environment_checks_their_names(tmp_path: Path) -> None:
    root = demo_project(tmp_path, "dsl")
    async with open_loop(root) as (campaign, runner):
        notes = await run_environment(campaign, runner)
        assert notes.passed, notes.problems
        await run_reference(campaign, runner)
        await run_baseline(campaign, runner)
        start(campaign, ["DEMO_ATTN_BLOCK_KV"], {"DEMO_ATTN_BLOCK_KV": 32})
        measured = await run_round(campaign, runner, close=False)
        job = await runner.submit(campaign.config.target, JobSpec(command="true", name="command"))
        await job.wait()
    jobs = list_records(campaign.layout.jobs_dir)
    by_round = {number: [j.name for j in round_jobs(jobs, number)] for number in (0, measured.number)}
    assert all(name.startswith("iter-000 ") for name in by_round[0])
    assert any("torch_npu baseline" in name for name in by_round[0])
    assert all(name.startswith(f"iter-{measured.number:03d} ") for name in by_round[measured.number])
    assert any("benchmark" in name for name in by_round[measured.number])
    assert [j.round_number for j in jobs if j.name == "command"] == [None]
    # every check that ran as a job has its log found by its name, of round 0
    for check in notes.probes:
        found = probe_job(check, jobs)
        if check == WORKSPACE_UPLOADED:  # an upload, not a job
            assert found is None
            continue
        assert found is not None and found.round_number == 0, check
        assert found.name == check_job_name(check)
        assert found.name.endswith(CHECK_STEPS.get(check) or f"probe: {check}")
        assert check_evidence(check, notes)
