"""A silent attached job outlives a killed client (and a dropped connection): the next
runner to reach the target kills what its recorded process group left, and the job is
shown LOST, never "running" forever. A detached job is left running, re-attachable."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

from pto_tui.core.project.config import Target
from pto_tui.core.vocabulary import TargetKind
from pto_tui.jobs.model import JobSpec, JobState, load_record, shown_state
from pto_tui.jobs.runner import JobRunner
from tests.jobs.conftest import Place, quick_pool
from tests.jobs.helpers import live_processes, unique_seconds, wait_until

REPO = Path(__file__).resolve().parents[2]
CLIENT = """
import asyncio, json, sys
from pathlib import Path
from pto_tui.core.project.config import Target
from pto_tui.jobs.model import JobSpec
from pto_tui.jobs.runner import JobRunner

async def main():
    runner = JobRunner(Path(sys.argv[2]))
    spec = JobSpec(sys.argv[3], detached=sys.argv[4] == "detached")
    job = await runner.submit(Target(**json.loads(sys.argv[1])), spec)
    await job.wait_started()
    print(job.id, flush=True)
    await job.wait()

asyncio.run(main())
"""


async def client_killed_while_running(target: Target, log_dir: Path, marker: str, how: str) -> str:
    """Start a job from a separate pto-tui process, then SIGKILL that process."""
    command = f"sleep {marker}"  # silent: it never notices its reader is gone
    client = subprocess.Popen(
        [sys.executable, "-c", CLIENT, json.dumps(asdict(target)), str(log_dir), command, how],
        stdout=subprocess.PIPE,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    try:
        assert client.stdout is not None
        job_id = client.stdout.readline().decode().strip()
        assert await wait_until(lambda: len(live_processes(marker)) >= 1, 15), "the job never ran"
    finally:
        client.kill()  # SIGKILL: no clean-up of any kind in the client
        client.wait(timeout=10)
    return job_id


async def test_the_next_runner_reaps_an_attached_job_of_a_killed_client(place: Place, tmp_path: Path) -> None:
    log_dir = tmp_path / "jobs"
    marker = unique_seconds()
    job_id = await client_killed_while_running(place.target, log_dir, marker, "attached")
    await asyncio.sleep(0.5)
    assert live_processes(marker), "the orphan keeps running after its client died"
    record = load_record(log_dir / job_id)
    assert record is not None and record.state is JobState.RUNNING
    assert shown_state(record) == "lost"  # shown as what it is, not "running"

    runner = JobRunner(log_dir, pool=quick_pool())
    try:
        job = await runner.submit(place.target, JobSpec("echo next"))
        assert (await asyncio.wait_for(job.wait(), 30)).state is JobState.SUCCEEDED
        assert await wait_until(lambda: not live_processes(marker), 10), live_processes(marker)
    finally:
        await runner.close()
        kill_leftovers(marker)
    reaped = load_record(log_dir / job_id)
    assert reaped is not None and reaped.state is JobState.LOST and not reaped.orphan
    assert "ended before the job did" in reaped.error and "was killed" in reaped.error
    assert shown_state(reaped) == "lost"


async def test_a_detached_job_of_a_killed_client_is_left_to_reattach(place: Place, tmp_path: Path) -> None:
    log_dir = tmp_path / "jobs"
    marker = unique_seconds()
    job_id = await client_killed_while_running(place.target, log_dir, marker, "detached")
    runner = JobRunner(log_dir, pool=quick_pool())
    try:
        job = await runner.submit(place.target, JobSpec("echo next"))
        assert (await asyncio.wait_for(job.wait(), 30)).state is JobState.SUCCEEDED
        await asyncio.sleep(0.5)
        assert live_processes(marker), "a detached job outlives its client on purpose"
        record = load_record(log_dir / job_id)
        assert record is not None and shown_state(record) == "re-attachable"
        again = await runner.reattach(place.target, job_id)
        await asyncio.sleep(0.5)  # following again
        cancelled = await asyncio.wait_for(again.cancel(), 30)
        assert cancelled.state is JobState.CANCELLED
        assert await wait_until(lambda: not live_processes(marker), 10)
    finally:
        await runner.close()
        kill_leftovers(marker)


async def test_a_detached_job_that_ends_unfollowed_is_shown_ended_then_collected(
        place: Place, tmp_path: Path) -> None:
    """Its client killed, the job runs to its own end with nobody following it: the target
    says it ended and with what status (never "running"), its record still says running
    until a runner re-attaches, which collects its whole output and its exit code."""
    log_dir = tmp_path / "jobs"
    marker = unique_seconds()
    job_id = await client_killed_while_running(place.target, log_dir, marker, "detached")
    runner = JobRunner(log_dir, pool=quick_pool())
    try:
        record = load_record(log_dir / job_id)
        assert record is not None
        assert await runner.ended_unfollowed(place.target, [record]) == {}  # still running
        assert shown_state(record) == "re-attachable"
        end_the_sleep(marker)  # its command ends (killed: its shell exits 137)
        assert await wait_until(lambda: not live_processes(marker), 10)
        ended: dict[str, int] = {}
        for _try in range(50):  # the job's shell writes its rc as the command ends
            ended = await runner.ended_unfollowed(place.target, [record])
            if ended:
                break
            await asyncio.sleep(0.1)
        assert ended == {job_id: 137}, ended
        assert shown_state(record, ended_on_target=True) == "ended"
        elsewhere = Target(kind=TargetKind.SSH, host="another-host")
        assert await runner.ended_unfollowed(elsewhere, [record]) == {}  # not asked there
        collected = await asyncio.wait_for((await runner.reattach(place.target, job_id)).wait(), 30)
        assert (collected.state, collected.exit_code) == (JobState.FAILED, 137)
    finally:
        await runner.close()
        kill_leftovers(marker)


def end_the_sleep(marker: str) -> None:
    """Kill the job's command alone (`sleep MARKER`), not the shell that records its end."""
    for pid in live_processes(marker):
        with contextlib.suppress(OSError):
            if Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].endswith(b"sleep"):
                os.kill(pid, signal.SIGKILL)


def kill_leftovers(marker: str) -> None:
    """A failed test must not leave its long sleep behind."""
    for pid in live_processes(marker):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


async def test_an_orphan_the_runner_could_not_kill_is_killed_by_the_next_one(proxied, tmp_path: Path) -> None:
    """The connection drops during a silent job and the target cannot be reached to kill
    it: the record says so (orphan), and the next runner that reaches the target kills it."""
    proxy, target = proxied
    log_dir = tmp_path / "jobs"
    marker = unique_seconds()
    runner = JobRunner(log_dir, pool=quick_pool())
    try:
        job = await runner.submit(target, JobSpec(f"echo started; sleep {marker}"))
        async for line in job.subscribe():
            if line.text == "started":
                break
        proxy.frozen = True  # the network hangs: the drop is noticed, the kill cannot get through
        proxy.drop()
        record = await asyncio.wait_for(job.wait(), 20)
        assert record.state is JobState.LOST
        await runner.close()
        left = load_record(log_dir / job.id)
        assert left is not None and left.orphan, left
        assert live_processes(marker), "the silent job outlived the connection"

        proxy.frozen = False
        runner = JobRunner(log_dir, pool=quick_pool())
        again = await runner.submit(target, JobSpec("echo next"))
        assert (await asyncio.wait_for(again.wait(), 30)).state is JobState.SUCCEEDED
        assert await wait_until(lambda: not live_processes(marker), 10), live_processes(marker)
        reaped = load_record(log_dir / job.id)
        assert reaped is not None and not reaped.orphan and "was killed" in reaped.error
    finally:
        await runner.close()
        kill_leftovers(marker)
