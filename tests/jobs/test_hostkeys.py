"""Strict host keys against the real sshd: unknown → explicit trust, changed → refused."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from pto_tui.core.paths import app_home
from pto_tui.jobs.connect import HostKeyStatus, open_connection, scan_host_key, trust_host
from pto_tui.jobs.errors import HostKeyChanged, SshConnectError, UnknownHostKey
from pto_tui.jobs.loopback_sshd import LoopbackSshd, generate_key
from pto_tui.jobs.model import JobSpec, JobState
from pto_tui.jobs.runner import JobRunner
from tests.plugins.sshd import make_target


def fingerprint(server: LoopbackSshd) -> str:
    out = subprocess.run(
        ["ssh-keygen", "-lf", f"{server.host_key}.pub", "-E", "sha256"],
        capture_output=True, text=True, check=True,
    ).stdout
    return out.split()[1]


async def test_unknown_key_fails_with_its_fingerprint(sshd_server: LoopbackSshd,
                                                      tmp_path: Path) -> None:
    target = make_target(sshd_server, tmp_path)
    with pytest.raises(UnknownHostKey) as caught:
        await open_connection(target)
    expected = fingerprint(sshd_server)
    assert caught.value.fingerprint == expected
    assert f"unknown host key {expected}" in caught.value.render()
    assert "pto-tui trust-host" in caught.value.render()
    assert caught.value.known_as == f"[127.0.0.1]:{sshd_server.port}"


async def test_job_on_unknown_host_fails_cleanly(sshd_server: LoopbackSshd, tmp_path: Path) -> None:
    runner = JobRunner(tmp_path / "jobs")
    try:
        job = await runner.submit(make_target(sshd_server, tmp_path), JobSpec("true"))
        record = await job.wait()
    finally:
        await runner.close()
    assert record.state is JobState.FAILED
    assert "unknown host key SHA256:" in record.error


async def test_trust_host_stores_the_key_then_connects(sshd_server: LoopbackSshd,
                                                       tmp_path: Path) -> None:
    target = make_target(sshd_server, tmp_path)
    shown: list[str] = []

    def confirm(status: HostKeyStatus) -> bool:
        shown.append(status.fingerprint)
        return True

    status = await trust_host(target, confirm=confirm)
    assert status.trusted and shown == [fingerprint(sshd_server)]
    known = (app_home() / "known_hosts").read_text()
    assert known.startswith(f"[127.0.0.1]:{sshd_server.port} ssh-ed25519 ")
    conn = await open_connection(target)
    conn.close()
    again = await scan_host_key(target)
    assert again.trusted and again.fingerprint == fingerprint(sshd_server)
    assert (app_home() / "known_hosts").read_text() == known  # not appended twice


async def test_declined_trust_stores_nothing(sshd_server: LoopbackSshd, tmp_path: Path) -> None:
    with pytest.raises(SshConnectError):
        await trust_host(make_target(sshd_server, tmp_path), confirm=lambda s: False)
    assert not (app_home() / "known_hosts").exists()


async def test_changed_key_is_refused_and_cannot_be_trusted(
    sshd_server: LoopbackSshd, tmp_path: Path
) -> None:
    other = tmp_path / "other_key"
    generate_key(other)
    old_key = " ".join(Path(f"{other}.pub").read_text().split()[:2])
    known = app_home() / "known_hosts"
    known.parent.mkdir(parents=True, exist_ok=True)
    known.write_text(f"[127.0.0.1]:{sshd_server.port} {old_key}\n")
    target = make_target(sshd_server, tmp_path)
    with pytest.raises(HostKeyChanged) as caught:
        await open_connection(target)
    assert fingerprint(sshd_server) in caught.value.render()
    assert "HOST KEY CHANGED" in caught.value.render()
    with pytest.raises(HostKeyChanged):
        await trust_host(target, confirm=lambda s: True)
    assert known.read_text() == f"[127.0.0.1]:{sshd_server.port} {old_key}\n"
