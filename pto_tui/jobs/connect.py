"""Opening one SSH connection to a target: config alias, strict host keys, keys only.

The alias is resolved by asyncssh from the SSH config (HostName, User, Port,
IdentityFile, ProxyJump). Passwords and keyboard-interactive are switched off:
nothing secret is ever asked for or stored. Agent and X11 forwarding are off whatever
the SSH config says (ForwardAgent, ForwardX11Trusted): a job on the NPU host must not
reach the user's ssh-agent or display unless `[target] forward_agent = true`.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import asyncssh

from pto_tui.core.errors import InputError
from pto_tui.core.project.config import Target
from pto_tui.jobs.errors import AuthFailed, HostKeyChanged, SshConnectError, UnknownHostKey
from pto_tui.jobs.hostkeys import HostKeyCheck, known_hosts_name, trust_host_key

# AES-GCM first: asyncssh's chacha20-poly1305 builds three cipher contexts per packet
# in Python and was the bottleneck of streaming big outputs (measured: about 2x slower).
PREFERRED_CIPHERS = (
    "aes128-gcm@openssh.com",
    "aes256-gcm@openssh.com",
    "chacha20-poly1305@openssh.com",
    "aes128-ctr",
    "aes192-ctr",
    "aes256-ctr",
)


@dataclass(frozen=True)
class ConnectOptions:
    keepalive_interval: float = 15.0  # a dead peer is noticed after interval x count_max
    keepalive_count_max: int = 3
    connect_timeout: float = 20.0


class VerifyingClient(asyncssh.SSHClient):
    """Records the host key offered when it is not known (and never accepts it)."""

    def __init__(
        self, check: HostKeyCheck, on_lost: Callable[[Exception | None], None] | None = None
    ) -> None:
        self.check = check
        self.on_lost = on_lost

    def validate_host_public_key(
        self, host: str, addr: str, port: int, key: asyncssh.SSHKey
    ) -> bool:
        self.check.offered = key
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        if self.on_lost is not None:
            self.on_lost(exc)


def _require_ssh(target: Target) -> None:
    if not target.host:
        raise InputError(f"target {target.label} is not an SSH target with a host alias")
    if target.ssh_config and not Path(target.ssh_config).expanduser().is_file():
        raise InputError(f"SSH config file not found: {target.ssh_config}", key="target.ssh_config")


async def open_connection(
    target: Target,
    options: ConnectOptions | None = None,
    on_lost: Callable[[Exception | None], None] | None = None,
) -> asyncssh.SSHClientConnection:
    """A new authenticated connection to target.host, or a PtoError saying what failed."""
    _require_ssh(target)
    options = options or ConnectOptions()
    check = HostKeyCheck()
    config = [str(Path(target.ssh_config).expanduser())] if target.ssh_config else ()
    try:
        return await asyncssh.connect(
            target.host,
            config=config,
            known_hosts=check.known_hosts,
            client_factory=lambda: VerifyingClient(check, on_lost),
            keepalive_interval=options.keepalive_interval,
            keepalive_count_max=options.keepalive_count_max,
            connect_timeout=options.connect_timeout,
            password_auth=False,
            kbdint_auth=False,
            encryption_algs=PREFERRED_CIPHERS,
            # explicit, so the SSH config's ForwardAgent / ForwardX11Trusted never apply
            agent_forwarding=target.forward_agent,
            x11_forwarding=False,
        )
    except asyncssh.HostKeyNotVerifiable:
        raise check.error() from None
    except asyncssh.PermissionDenied as error:
        raise AuthFailed(target.host, error.reason) from None
    except socket.gaierror as error:
        # the name is neither a Host alias of the SSH config read nor a resolvable host
        read = target.ssh_config or "~/.ssh/config"
        raise SshConnectError(
            f"cannot connect to {target.host}: {error.strerror or error} (the name is not a "
            f"Host alias in {read} nor a known host name)",
            hint="add a `Host` entry for it to ~/.ssh/config, or name the SSH config that has "
            "one ([target] ssh_config; --ssh-config at new); check with `ssh HOST true`",
        ) from None
    except (TimeoutError, asyncssh.Error, OSError) as error:
        detail = str(error) or type(error).__name__
        raise SshConnectError(f"cannot connect to {target.host}: {detail}") from None


@dataclass(frozen=True)
class HostKeyStatus:
    host: str
    known_as: str  # the known_hosts name, e.g. [127.0.0.1]:2222
    fingerprint: str  # SHA256:...
    key_line: str  # "ssh-ed25519 AAAA..."
    trusted: bool


async def scan_host_key(target: Target, options: ConnectOptions | None = None) -> HostKeyStatus:
    """The target's host key and whether it is trusted. A changed key raises HostKeyChanged."""
    try:
        conn = await open_connection(target, options)
    except UnknownHostKey as error:
        return HostKeyStatus(target.host, error.known_as, error.fingerprint, error.key_line, False)
    try:
        key = conn.get_server_host_key()
        fingerprint = key.get_fingerprint("sha256") if key is not None else ""
        key_line = " ".join(key.export_public_key("openssh").decode().split()[:2]) if key else ""
        return HostKeyStatus(target.host, "", fingerprint, key_line, True)
    finally:
        conn.close()


async def trust_host(
    target: Target,
    confirm: Callable[[HostKeyStatus], bool] | None = None,
    options: ConnectOptions | None = None,
) -> HostKeyStatus:
    """Store an unknown host key in pto-tui's known_hosts once `confirm` agrees.

    A changed key raises HostKeyChanged: it is never accepted from here.
    """
    status = await scan_host_key(target, options)
    if status.trusted:
        return status
    if confirm is not None and not confirm(status):
        raise SshConnectError(f"host key {status.fingerprint} of {target.host} was not trusted")
    trust_host_key(status.known_as, status.key_line)
    return HostKeyStatus(status.host, status.known_as, status.fingerprint, status.key_line, True)


__all__ = [
    "ConnectOptions",
    "HostKeyChanged",
    "HostKeyStatus",
    "known_hosts_name",
    "open_connection",
    "scan_host_key",
    "trust_host",
]
