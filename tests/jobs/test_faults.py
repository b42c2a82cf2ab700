"""Fault injection: broken and frozen connections, bad keys, session limits.

A TCP proxy between the client and the real sshd drops or freezes the connection
(the in-process asyncssh server was not needed: the real server behind a proxy is
closer to a real network fault).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from pathlib import Path

import pytest

from pto_tui.jobs.connect import ConnectOptions, open_connection
from pto_tui.jobs.errors import AuthFailed
from pto_tui.jobs.logfile import read_log
from pto_tui.jobs.loopback_sshd import LoopbackSshd, generate_key
from pto_tui.jobs.model import JobSpec, JobState
from pto_tui.jobs.runner import JobRunner
from pto_tui.jobs.ssh_pool import SshPool
from tests.jobs.conftest import quick_pool
from tests.jobs.helpers import live_processes, unique_seconds, wait_until
from tests.plugins.sshd import SshTestTarget, make_target, trust_server


async def test_dropped_connection_mid_stream_is_lost(proxied, runner: JobRunner) -> None:
    proxy, target = proxied
    marker = unique_seconds()
    job = await runner.submit(target, JobSpec(f"echo started; sleep {marker}"))
    async for line in job.subscribe():
        if line.text == "started":
            break
    assert await wait_until(lambda: len(live_processes(marker)) == 1, 5)
    proxy.drop()
    record = await asyncio.wait_for(job.wait(), 10)
    assert record.state is JobState.LOST
    assert record.exit_code is None and record.signal is None
    # the silent command would outlive the connection: the runner reconnects and kills it
    assert await wait_until(lambda: not live_processes(marker), 12), live_processes(marker)
    # and the pool reconnects lazily for the next job
    again = await runner.submit(target, JobSpec("echo back"))
    assert (await again.wait()).state is JobState.SUCCEEDED


async def test_frozen_server_is_detected_by_keepalive(proxied, runner: JobRunner) -> None:
    proxy, target = proxied
    marker = unique_seconds()
    job = await runner.submit(target, JobSpec(f"echo started; sleep {marker}"))
    async for line in job.subscribe():
        if line.text == "started":
            break
    proxy.frozen = True
    frozen_at = time.monotonic()
    record = await asyncio.wait_for(job.wait(), 15)
    assert record.state is JobState.LOST
    assert time.monotonic() - frozen_at < 8  # keepalive 1 s x 3 in these tests
    proxy.frozen = False


async def test_detached_job_survives_a_drop_and_is_followed_again(
    proxied, runner: JobRunner
) -> None:
    proxy, target = proxied
    command = "for i in $(seq 1 20); do echo line-$i; sleep 0.1; done"
    job = await runner.submit(target, JobSpec(command, detached=True))
    async for line in job.subscribe():
        if line.text == "line-5":
            break
    proxy.drop()
    record = await asyncio.wait_for(job.wait(), 20)
    assert record.state is JobState.SUCCEEDED and record.exit_code == 0
    lines = [line.text for line in read_log(job.job_dir / "output.log") if line.stream == "stdout"]
    assert lines == [f"line-{i}" for i in range(1, 21)]
    assert any("re-attaching" in line.text for line in read_log(job.job_dir / "output.log"))


async def test_auth_failure_is_a_clear_error(sshd_server: LoopbackSshd, tmp_path: Path) -> None:
    wrong_key = tmp_path / "wrong_key"
    generate_key(wrong_key)
    config = tmp_path / "ssh_config"
    sshd_server.write_client_config(config, "wrong-key", sshd_server.port, wrong_key)
    trust_server(sshd_server)
    target = replace(make_target(sshd_server, tmp_path), host="wrong-key", ssh_config=str(config))
    with pytest.raises(AuthFailed) as caught:
        await open_connection(target, ConnectOptions(connect_timeout=10))
    assert "authentication to wrong-key failed" in caught.value.render()
    runner = JobRunner(tmp_path / "jobs", pool=quick_pool())
    try:
        record = await (await runner.submit(target, JobSpec("true"))).wait()
    finally:
        await runner.close()
    assert record.state is JobState.FAILED and "authentication" in record.error


async def test_server_session_limit_below_our_cap(make_sshd, tmp_path: Path) -> None:
    server = make_sshd("MaxSessions 3")
    trust_server(server)
    target = make_target(server, tmp_path)
    runner = JobRunner(tmp_path / "jobs", pool=SshPool(max_channels=8, max_connections=1))
    try:
        jobs = [await runner.submit(target, JobSpec(f"sleep 0.3; echo {i}")) for i in range(10)]
        records = await asyncio.wait_for(asyncio.gather(*(j.wait() for j in jobs)), 30)
    finally:
        await runner.close()
    assert [r.state for r in records] == [JobState.SUCCEEDED] * 10, [r.error for r in records]
    assert runner.pool.connects == 1


async def test_channel_cap_queues_jobs(ssh_target: SshTestTarget, tmp_path: Path) -> None:
    ssh_target.work_dir.mkdir(parents=True)
    pool = SshPool(max_channels=2, max_connections=1)
    runner = JobRunner(tmp_path / "jobs", pool=pool)
    peak = 0

    async def watch() -> None:
        nonlocal peak
        while True:
            for pooled in pool.connections(ssh_target.target):
                peak = max(peak, pooled.in_use)
            await asyncio.sleep(0.01)

    watcher = asyncio.create_task(watch())
    try:
        started = time.monotonic()
        jobs = [await runner.submit(ssh_target.target, JobSpec("sleep 0.5")) for _ in range(6)]
        records = await asyncio.wait_for(asyncio.gather(*(j.wait() for j in jobs)), 30)
        elapsed = time.monotonic() - started
    finally:
        watcher.cancel()
        await runner.close()
    assert all(r.state is JobState.SUCCEEDED for r in records)
    assert peak == 2 and pool.connects == 1
    assert elapsed >= 1.4  # three waves of two
