"""Fixtures of the job-layer tests: a target of each kind, and a runner."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from pto_tui.core.project.config import Target
from pto_tui.core.vocabulary import TargetKind
from pto_tui.jobs.connect import ConnectOptions
from pto_tui.jobs.runner import JobRunner
from pto_tui.jobs.ssh_pool import SshPool
from tests.jobs.helpers import TcpProxy
from tests.plugins.sshd import SshTestTarget, trust_server


@dataclass(frozen=True)
class Place:
    """Where a behavioural test runs its jobs: kind "local" or "ssh"."""

    kind: str
    target: Target
    work_dir: Path  # the target's work dir as a local path (sshd runs on this machine)


@pytest.fixture(params=["local", "ssh"])
def place(request: pytest.FixtureRequest, tmp_path: Path) -> Place:
    if request.param == "ssh":
        ssh = request.getfixturevalue("ssh_target")
        ssh.work_dir.mkdir(parents=True, exist_ok=True)
        return Place("ssh", ssh.target, ssh.work_dir)
    work_dir = tmp_path / "local-work"
    work_dir.mkdir()
    return Place("local", Target(kind=TargetKind.LOCAL, work_dir=str(work_dir)), work_dir)


def quick_pool() -> SshPool:
    # quick keepalive so a dead peer is noticed within a few seconds in tests
    return SshPool(ConnectOptions(keepalive_interval=1, keepalive_count_max=3, connect_timeout=10))


@pytest.fixture
async def runner(tmp_path: Path) -> AsyncIterator[JobRunner]:
    job_runner = JobRunner(tmp_path / "jobs", pool=quick_pool())
    try:
        yield job_runner
    finally:
        await job_runner.close()


@pytest.fixture
async def proxied(ssh_target: SshTestTarget, tmp_path: Path):
    """(proxy, target through the proxy) to the session's sshd."""
    server = ssh_target.server
    proxy = await TcpProxy(server.port).start()
    config = tmp_path / "proxy_ssh_config"
    server.write_client_config(config, "via-proxy", proxy.port, server.client_key)
    trust_server(server, proxy.port)
    ssh_target.work_dir.mkdir(parents=True, exist_ok=True)
    target = replace(ssh_target.target, host="via-proxy", ssh_config=str(config))
    try:
        yield proxy, target
    finally:
        await proxy.close()
