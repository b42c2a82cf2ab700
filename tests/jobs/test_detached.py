"""Detached jobs: they outlive the client, are found again and re-attached."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path

from pto_tui.jobs.logfile import read_log
from pto_tui.jobs.model import JobSpec, JobState, load_record
from pto_tui.jobs.runner import JobRunner
from tests.jobs.conftest import Place, quick_pool
from tests.jobs.helpers import live_processes, unique_seconds, wait_until

CLIENT = """
import asyncio, json, sys
from pathlib import Path
from pto_tui.core.project.config import Target
from pto_tui.jobs.model import JobSpec
from pto_tui.jobs.runner import JobRunner

async def main():
    runner = JobRunner(Path(sys.argv[2]))
    job = await runner.submit(Target(**json.loads(sys.argv[1])), JobSpec(sys.argv[3], detached=True))
    print(job.id, flush=True)
    await job.wait()

asyncio.run(main())
"""


def stdout_lines(log: Path) -> list[str]:
    return [line.text for line in read_log(log) if line.stream == "stdout"]


async def test_detached_job_runs_and_reports(place: Place, runner: JobRunner) -> None:
    job = await runner.submit(place.target, JobSpec("echo a; echo b >&2; exit 4", detached=True))
    lines = [(line.stream, line.text) async for line in job.subscribe()]
    record = await job.wait()
    assert record.state is JobState.FAILED and record.exit_code == 4
    assert ("stdout", "a") in lines and ("stderr", "b") in lines
    assert record.detached


async def test_reattach_after_the_client_was_killed(
    place: Place, runner: JobRunner, tmp_path: Path
) -> None:
    command = "for i in $(seq 1 30); do echo line-$i; sleep 0.1; done; exit 3"
    client = subprocess.Popen(
        [sys.executable, "-c", CLIENT, json.dumps(asdict(place.target)), str(runner.log_dir),
         command],
        stdout=subprocess.PIPE,
        cwd=Path(__file__).parents[2],
    )
    try:
        assert client.stdout is not None
        job_id = client.stdout.readline().decode().strip()
        log = runner.log_dir / job_id / "output.log"
        assert await wait_until(lambda: len(stdout_lines(log)) >= 5, 15)
    finally:
        client.kill()  # SIGKILL: no clean-up of any kind in the client
        client.wait(timeout=10)
    before = len(stdout_lines(log))
    assert before < 30, "the job should still be running when the client dies"
    record = load_record(runner.log_dir / job_id)
    assert record is not None and record.state is JobState.RUNNING

    job = await runner.reattach(place.target, job_id)
    record = await asyncio.wait_for(job.wait(), 30)
    assert record.state is JobState.FAILED and record.exit_code == 3
    assert stdout_lines(log) == [f"line-{i}" for i in range(1, 31)]


async def test_reattach_to_a_finished_job(place: Place, runner: JobRunner) -> None:
    job = await runner.submit(place.target, JobSpec("echo done-line", detached=True))
    await job.detach()  # stop following at once; the job finishes on its own
    assert (runner.log_dir / job.id / "record.json").exists()
    await asyncio.sleep(1.0)
    again = await runner.reattach(place.target, job.id)
    record = await asyncio.wait_for(again.wait(), 20)
    assert record.state is JobState.SUCCEEDED and record.exit_code == 0
    assert stdout_lines(again.job_dir / "output.log") == ["done-line"]


async def test_cancel_a_detached_job_kills_its_tree(place: Place, runner: JobRunner) -> None:
    marker = unique_seconds()
    job = await runner.submit(
        place.target, JobSpec(f"sleep {marker} & sleep {marker}; wait", detached=True)
    )
    assert await wait_until(lambda: len(live_processes(marker)) >= 2, 10)
    record = await job.cancel()
    assert record.state is JobState.CANCELLED
    assert await wait_until(lambda: not live_processes(marker), 5)


async def test_killed_without_exit_status_is_lost(place: Place, runner: JobRunner) -> None:
    marker = unique_seconds()
    job = await runner.submit(place.target, JobSpec(f"sleep {marker}", detached=True))
    pgid_file = Path(job.record.remote_dir) / "pgid"
    # the launching shell's command line names the marker too: wait for the recorded pgid
    assert await wait_until(
        lambda: len(live_processes(marker)) >= 1 and pgid_file.is_file() and pgid_file.read_text().strip(), 10
    )
    pgid = int(pgid_file.read_text())
    os.killpg(pgid, signal.SIGKILL)  # the whole session, its exit-status writer included
    record = await asyncio.wait_for(job.wait(), 20)
    assert record.state is JobState.LOST
    assert record.exit_code is None
    assert "without recording an exit status" in record.error


async def test_unknown_job_cannot_be_reattached(place: Place, tmp_path: Path) -> None:
    runner = JobRunner(tmp_path / "other-jobs", pool=quick_pool())
    try:
        started = time.monotonic()
        job = await runner.reattach(place.target, "20200101-000000-abcdef")
        record = await asyncio.wait_for(job.wait(), 20)
        assert record.state is JobState.LOST
        assert "no job 20200101-000000-abcdef" in record.error
        assert time.monotonic() - started < 15
    finally:
        await runner.close()
