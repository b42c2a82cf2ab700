"""Jobs on a slurm target, against the real one-node cluster (tests/plugins/slurm.py): a
step that needs an NPU is a batch job followed live, the rest runs on the login node; the
queue is shown while a job waits; cancel is scancel, pending or running; and a job whose
runner is gone is followed again by its Slurm id."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from pathlib import Path

import pytest

from pto_tui.core.project.config import Target
from pto_tui.core.vocabulary import TargetKind
from pto_tui.jobs.job import Job
from pto_tui.jobs.local_slurm import LocalSlurm
from pto_tui.jobs.model import NEEDS_BUILD, NEEDS_NPU, QUEUE_NOTE, JobRecord, JobSpec, JobState, LogLine
from pto_tui.jobs.runner import JobRunner
from tests.plugins.slurm import slurm_settings
from tests.plugins.sshd import SshTestTarget

pytestmark = pytest.mark.slurm


async def lines_of(job: Job) -> list[LogLine]:
    return [line async for line in job.subscribe()]


async def until(check: object, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not (callable(check) and check()):
        assert time.monotonic() < deadline, "timed out waiting"
        await asyncio.sleep(0.1)


def slurm_state(slurm: LocalSlurm, slurm_id: str) -> str:
    out = slurm.command("scontrol", "-o", "show", "job", slurm_id).stdout
    return next((f.split("=", 1)[1] for f in out.split() if f.startswith("JobState=")), "")


async def test_a_step_that_needs_an_npu_is_a_batch_job_followed_live(
    slurm: LocalSlurm, slurm_target: Target, runner: JobRunner
) -> None:
    command = 'echo "out $ASCEND_RT_VISIBLE_DEVICES"; echo problem >&2; exit 3'
    job = await runner.submit(slurm_target, JobSpec(command, needs=NEEDS_NPU, name="benchmark 1/5"))
    lines = await lines_of(job)
    record = await job.wait()
    assert record.state is JobState.FAILED and record.exit_code == 3  # the command's own status
    assert record.scheduler_id.isdigit() and record.detached  # outlives pto-tui: re-attachable
    assert record.node == "pto-node1" and record.npu in ("0", "1")
    assert record.scheduler_state == "COMPLETED"
    out = [line.text for line in lines if line.stream == "stdout"]
    assert out == [f"out {record.npu}"]  # the NPU Slurm gave it is device 0's in the job
    assert [line.text for line in lines if line.stream == "stderr"] == ["problem"]
    notes = [line.text for line in lines if line.text.startswith(QUEUE_NOTE)]
    submitted = f"submitted to slurm as job {record.scheduler_id} (--partition=ascend --gres=npu:1)"
    assert f"{QUEUE_NOTE}{submitted}" in notes
    folder = Path(record.remote_dir)
    assert (folder / "slurm_id").read_text().strip() == record.scheduler_id
    assert (folder / "rc").read_text().strip() == "3"


@pytest.mark.sshd
async def test_a_login_node_over_ssh_submits_and_follows_the_same_way(
    slurm: LocalSlurm, ssh_target: SshTestTarget, runner: JobRunner
) -> None:
    ssh_target.work_dir.mkdir(parents=True)
    login = replace(ssh_target.target, kind=TargetKind.SLURM, env_setup=slurm.env_setup,
                    slurm=slurm_settings())
    job = await runner.submit(login, JobSpec('echo "on $SLURMD_NODENAME"', needs=NEEDS_NPU))
    lines = [line.text for line in await lines_of(job) if line.stream == "stdout"]
    record = await job.wait()
    assert record.state is JobState.SUCCEEDED and record.target == f"slurm:{ssh_target.alias}"
    assert lines == ["on pto-node1"] and record.scheduler_id and record.npu in ("0", "1")
    assert Path(record.remote_dir).parent == ssh_target.work_dir / ".pto-tui" / "jobs"  # the shared work dir
    queued = await runner.submit(login, JobSpec("sleep 30", needs=NEEDS_NPU))
    await until(lambda: queued.record.scheduler_state == "RUNNING")
    cancelled = await queued.cancel()
    assert cancelled.state is JobState.CANCELLED
    await until(lambda: slurm_state(slurm, cancelled.scheduler_id) == "CANCELLED")


async def test_helpers_and_builds_run_on_the_login_node_unless_builds_go_to_a_job(
    slurm: LocalSlurm, slurm_target: Target, runner: JobRunner
) -> None:
    helper = await (await runner.submit(slurm_target, JobSpec("echo $SLURM_JOB_ID-helper"))).wait()
    build = await (await runner.submit(slurm_target, JobSpec("echo built", needs=NEEDS_BUILD))).wait()
    assert helper.state is JobState.SUCCEEDED and not helper.scheduler_id
    assert build.state is JobState.SUCCEEDED and not build.scheduler_id
    in_job = replace(slurm_target, slurm=slurm_settings(build="job"))
    job = await runner.submit(in_job, JobSpec("echo built in $SLURM_JOB_ID", needs=NEEDS_BUILD))
    lines = [line.text for line in await lines_of(job) if line.stream == "stdout"]
    record = await job.wait()
    assert record.state is JobState.SUCCEEDED and record.scheduler_id
    assert lines == [f"built in {record.scheduler_id}"]
    assert not record.npu  # a build asks for no NPU
    batch = slurm.command("scontrol", "-o", "show", "job", record.scheduler_id).stdout
    assert "gres:npu" not in batch


async def test_a_third_one_npu_job_waits_pending_for_resources_then_runs(
    slurm: LocalSlurm, slurm_target: Target, runner: JobRunner
) -> None:
    jobs = [await runner.submit(slurm_target, JobSpec(f"sleep 3; echo job{i}", needs=NEEDS_NPU))
            for i in range(3)]
    await until(lambda: sum(j.record.scheduler_state == "RUNNING" for j in jobs) == 2)
    waiting = [j for j in jobs if j.record.pending]
    assert len(waiting) == 1 and waiting[0].record.scheduler_reason in ("Resources", "Priority")
    shown = waiting[0].record.pending_text(time.time())
    assert shown.startswith(f"pending ({waiting[0].record.scheduler_reason}) ") and shown.endswith("s")
    records = await asyncio.gather(*(j.wait() for j in jobs))
    assert all(r.state is JobState.SUCCEEDED for r in records)
    assert sorted({r.npu for r in records}) == ["0", "1"]  # two slots, shared by three jobs
    log = Path(waiting[0].record.log_path).read_text()
    assert "pending (Resources)" in log or "pending (Priority)" in log


async def test_cancel_while_pending_and_while_running_is_scancel(
    slurm: LocalSlurm, slurm_target: Target, runner: JobRunner, tmp_path: Path
) -> None:
    marker = tmp_path / "still-ran"
    running = [await runner.submit(slurm_target, JobSpec(f"sleep 4; touch {marker}", needs=NEEDS_NPU))
               for _ in range(2)]
    await until(lambda: all(j.record.scheduler_state == "RUNNING" for j in running))
    queued = await runner.submit(slurm_target, JobSpec(f"touch {marker}", needs=NEEDS_NPU))
    await until(lambda: queued.record.scheduler_reason == "Resources")
    pending_id = queued.record.scheduler_id
    record = await queued.cancel()
    assert record.state is JobState.CANCELLED
    assert slurm_state(slurm, pending_id) == "CANCELLED" and pending_id not in slurm.jobs()
    stopped = await running[0].cancel()
    assert stopped.state is JobState.CANCELLED
    await until(lambda: slurm_state(slurm, stopped.scheduler_id) == "CANCELLED")  # after COMPLETING
    await running[1].wait()
    assert marker.exists()  # the one left alone finished; the cancelled ones never touched it ...
    marker.unlink()
    await asyncio.sleep(1.0)
    assert not marker.exists()  # ... nor did anything of theirs keep running


async def test_a_job_whose_runner_is_gone_is_followed_again_by_its_slurm_id(
    slurm: LocalSlurm, slurm_target: Target, tmp_path: Path
) -> None:
    first = JobRunner(tmp_path / "jobs")
    job = await first.submit(slurm_target, JobSpec("for i in 1 2 3 4 5 6; do echo line$i; sleep 0.5; done",
                                                   needs=NEEDS_NPU))
    seen = []
    async for line in job.subscribe():
        seen.append(line)
        if line.text == "line2":
            break
    await first.close()  # pto-tui leaves: the batch job is left running, not cancelled
    left = job.record
    assert left.state is JobState.RUNNING and left.scheduler_id in slurm.jobs()
    second = JobRunner(tmp_path / "jobs")
    try:
        again = await second.reattach(slurm_target, left.id)
        await again.wait()
    finally:
        await second.close()
    record = again.record
    assert record.state is JobState.SUCCEEDED and record.scheduler_id == left.scheduler_id
    logged = [line.split(" ", 2)[2] for line in Path(record.log_path).read_text().splitlines()
              if line.split(" ", 2)[1] == "stdout"]
    assert logged == [f"line{i}" for i in range(1, 7)]  # nothing lost, nothing twice


async def test_a_step_past_its_limit_counts_from_its_start_not_its_wait(
    slurm: LocalSlurm, slurm_target: Target, runner: JobRunner
) -> None:
    blockers = [await runner.submit(slurm_target, JobSpec("sleep 3", needs=NEEDS_NPU)) for _ in range(2)]
    await until(lambda: all(b.record.scheduler_state == "RUNNING" for b in blockers))
    quick = await runner.submit(slurm_target, JobSpec("echo done", needs=NEEDS_NPU, timeout=2.0))
    slow = await runner.submit(slurm_target, JobSpec("sleep 30", needs=NEEDS_NPU, timeout=2.0))
    done: JobRecord = await quick.wait()  # waited ~3 s in the queue, ran well within 2 s
    assert done.state is JobState.SUCCEEDED
    stopped = await slow.wait()
    assert stopped.state is JobState.TIMED_OUT and stopped.error == "timed out after 2 s"
    assert slurm_state(slurm, stopped.scheduler_id) == "CANCELLED"


@pytest.mark.parametrize(("settings", "said"), [
    ({"partition": "no-such-partition"}, "Batch job submission failed: Invalid partition name specified"),
    ({"gres": "gpu:1"}, "Invalid generic resource (gres) specification"),
    ({"time_limit": "2:00:00"},  # over the partition's 60 minutes (EnforcePartLimits=ALL)
     "Batch job submission failed: Requested time limit is invalid (missing or exceeds some limit)"),
])
async def test_a_job_slurm_refuses_ends_lost_with_slurms_own_reason(
    slurm: LocalSlurm, slurm_target: Target, runner: JobRunner, settings: dict[str, str], said: str
) -> None:
    target = replace(slurm_target, slurm=slurm_settings(**settings))
    record = await (await runner.submit(target, JobSpec("echo never", needs=NEEDS_NPU))).wait()
    assert record.state is JobState.LOST and record.exit_code is None  # no outcome: never ran
    assert record.error == f"slurm refused the job: {said}"
    assert "\n" not in record.error and not record.scheduler_id


async def test_a_preempted_job_ends_lost_saying_so(
    slurm: LocalSlurm, slurm_target: Target, runner: JobRunner
) -> None:
    job = await runner.submit(slurm_target, JobSpec("sleep 30", needs=NEEDS_NPU))
    await until(lambda: job.record.scheduler_state == "RUNNING")
    urgent = slurm.command("sbatch", "--parsable", "-p", "urgent", "--gres=npu:2", "-o", "/dev/null",
                           "--wrap", "sleep 1")
    assert urgent.returncode == 0, urgent.stderr
    record = await job.wait()
    assert record.state is JobState.LOST
    assert record.error == (f"slurm job {record.scheduler_id} PREEMPTED on pto-node1 "
                            "(preempted by another job)")
    await until(lambda: urgent.stdout.strip() not in slurm.jobs())  # the urgent job ran and ended


async def test_a_node_failing_mid_job_ends_it_lost_with_slurms_reason(
    slurm: LocalSlurm, slurm_target: Target, runner: JobRunner
) -> None:
    job = await runner.submit(slurm_target, JobSpec("sleep 30", needs=NEEDS_NPU))
    await until(lambda: job.record.scheduler_state == "RUNNING")
    slurm.set_node("DOWN", "disk failure")
    try:
        record = await job.wait()
    finally:
        slurm.set_node("RESUME")
    assert record.state is JobState.LOST
    assert record.error == (f"slurm job {record.scheduler_id} NODE_FAIL on pto-node1, reason NodeDown "
                            "(its node failed)")
