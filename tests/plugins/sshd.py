"""pytest plugin: a real OpenSSH sshd on loopback, and SSH targets addressed by alias.

Fixtures:
- sshd_server (session): a running LoopbackSshd (pto_tui/jobs/loopback_sshd.py):
  .alias, .port, .ssh_config (client config with the alias), .client_key, .user.
- ssh_target (function): an SshTestTarget: .target (a core Target of kind "ssh" whose
  host is the alias and ssh_config the file above), .work_dir (a fresh remote work dir
  in the test's tmp dir), .server. The server's host key is already trusted in this
  test's pto-tui known_hosts (PTO_TUI_HOME is per test).
- make_sshd (function): factory for a dedicated server, e.g. make_sshd("MaxSessions 3");
  stopped at the end of the test.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pto_tui.core.paths import app_home
from pto_tui.core.project.config import Target
from pto_tui.jobs.hostkeys import trust_host_key
from pto_tui.jobs.loopback_sshd import LoopbackSshd


@dataclass(frozen=True)
class SshTestTarget:
    server: LoopbackSshd
    work_dir: Path
    target: Target

    @property
    def alias(self) -> str:
        return self.server.alias

    @property
    def ssh_config(self) -> Path:
        return self.server.ssh_config


def trust_server(server: LoopbackSshd, port: int | None = None) -> None:
    """Trust the server's host key (at its port, or a proxy's) in pto-tui's known_hosts."""
    known_as, key = server.known_hosts_line(port).split(" ", 1)
    trust_host_key(known_as, key, app_home() / "known_hosts")


def make_target(server: LoopbackSshd, work_dir: Path, **changes: object) -> Target:
    values: dict[str, object] = {
        "kind": "ssh",
        "host": server.alias,
        "work_dir": str(work_dir),
        "ssh_config": str(server.ssh_config),
    }
    values.update(changes)
    return Target(**values)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def sshd_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LoopbackSshd]:
    server = LoopbackSshd(tmp_path_factory.mktemp("sshd"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def ssh_target(sshd_server: LoopbackSshd, tmp_path: Path) -> SshTestTarget:
    work_dir = tmp_path / "remote-work"
    trust_server(sshd_server)
    return SshTestTarget(sshd_server, work_dir, make_target(sshd_server, work_dir))


@pytest.fixture
def make_sshd(tmp_path: Path) -> Iterator[Callable[..., LoopbackSshd]]:
    started: list[LoopbackSshd] = []

    def make(*extra_config: str, alias: str = "pto-extra") -> LoopbackSshd:
        server = LoopbackSshd(tmp_path / f"sshd-{len(started)}", alias=alias,
                              extra_config=tuple(extra_config))
        server.start()
        started.append(server)
        return server

    try:
        yield make
    finally:
        for server in started:
            server.stop()
