"""Fixtures of the job-layer tests: a target of each kind, and a runner."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pto_tui.core.project.config import Target
from pto_tui.jobs.connect import ConnectOptions
from pto_tui.jobs.runner import JobRunner
from pto_tui.jobs.ssh import SshPool


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
    return Place("local", Target(kind="local", work_dir=str(work_dir)), work_dir)


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
