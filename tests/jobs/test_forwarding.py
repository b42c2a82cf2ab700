"""Jobs over the loopback sshd never carry the user's ssh-agent or display along, whatever
the SSH config says, unless the project asks for agent forwarding."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from pto_tui.core.project.config import Target
from pto_tui.jobs.loopback_sshd import LoopbackSshd
from pto_tui.jobs.model import JobSpec, JobState
from pto_tui.jobs.runner import JobRunner
from tests.plugins.sshd import make_target, trust_server

PRINT = 'echo "agent=${SSH_AUTH_SOCK:-none}"; echo "display=${DISPLAY:-none}"'


@pytest.fixture
def agent_socket(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A real ssh-agent of this test, as the user's SSH_AUTH_SOCK; DISPLAY set too."""
    socket = tmp_path / "agent.sock"
    started = subprocess.run(["ssh-agent", "-a", str(socket), "-s"], capture_output=True,
                             text=True, timeout=30, check=True)
    pid = int(started.stdout.split("SSH_AGENT_PID=")[1].split(";")[0])
    monkeypatch.setenv("SSH_AUTH_SOCK", str(socket))
    monkeypatch.setenv("DISPLAY", "127.0.0.1:0")
    try:
        yield socket
    finally:
        os.kill(pid, 15)


@pytest.fixture
def target(make_sshd: Callable[..., LoopbackSshd], tmp_path: Path) -> Target:
    """A dedicated sshd that grants X11 forwarding (the shared one does not), reached
    through an SSH config that asks for every forwarding."""
    server = make_sshd("X11Forwarding yes")
    trust_server(server)
    config = tmp_path / "forwarding_ssh_config"
    server.write_client_config(config, server.alias, server.port, server.client_key)
    config.write_text(config.read_text() + "    ForwardAgent yes\n    ForwardX11 yes\n"
                      "    ForwardX11Trusted yes\n")
    (tmp_path / "work").mkdir()
    return make_target(server, tmp_path / "work", ssh_config=str(config))


async def remote_env(runner: JobRunner, target: Target) -> dict[str, str]:
    job = await runner.submit(target, JobSpec(PRINT))
    lines = [line.text async for line in job.subscribe() if line.stream == "stdout"]
    record = await job.wait()
    assert record.state is JobState.SUCCEEDED, record.error
    return dict(line.split("=", 1) for line in lines)


async def test_forwarding_is_off_whatever_the_ssh_config_says(
    target: Target, runner: JobRunner, agent_socket: Path
) -> None:
    assert not target.forward_agent  # the default
    seen = await remote_env(runner, target)
    assert seen == {"agent": "none", "display": "none"}


async def test_forward_agent_true_forwards_the_agent_only(
    target: Target, runner: JobRunner, agent_socket: Path
) -> None:
    target = replace(target, forward_agent=True)
    seen = await remote_env(runner, target)
    # sshd made its own socket for the forwarded agent (not the local path), and X11 stays off
    assert seen["agent"] != "none" and seen["agent"] != str(agent_socket)
    assert seen["display"] == "none"
    # the forwarded agent answers: it is the test's agent, holding no keys
    job = await runner.submit(target, JobSpec("ssh-add -l; echo rc=$?"))
    out = [line.text async for line in job.subscribe() if line.stream == "stdout"]
    await job.wait()
    assert out[-1] == "rc=1"  # 1: the agent has no identities; 2 would be: no agent reached
