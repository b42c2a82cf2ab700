"""Strict host keys: the user's known_hosts and pto-tui's own are trusted; nothing else.

asyncssh asks the client to validate a key it does not find in known_hosts, both for
a new host and for a host whose key changed, so we tell those apart ourselves: the
known_hosts lookup records whether the host had keys at all (docs/remote.md §2).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncssh

from pto_tui.core.paths import app_home
from pto_tui.jobs.errors import HostKeyChanged, JobError, UnknownHostKey


def app_known_hosts() -> Path:
    return app_home() / "known_hosts"


def user_known_hosts() -> Path:
    return Path("~/.ssh/known_hosts").expanduser()


def known_hosts_name(host: str, port: int | None) -> str:
    """How OpenSSH writes a host in known_hosts: bare on port 22, else [host]:port."""
    return host if not port or port == 22 else f"[{host}]:{port}"


@dataclass
class HostKeyCheck:
    """Filled in during one connection attempt: what was looked up and what was offered."""

    host: str = ""
    port: int | None = None
    known_keys: int = 0  # keys known for this host before the attempt
    offered: asyncssh.SSHKey | None = None

    def known_hosts(self, host: str, addr: str, port: int | None) -> tuple[Any, ...]:
        """The known_hosts callable given to asyncssh: match both files for this host."""
        self.host, self.port = host, port
        files = [str(p) for p in (user_known_hosts(), app_known_hosts()) if p.is_file()]
        if not files:
            return ((), (), ())
        matched = asyncssh.read_known_hosts(files).match(host, addr, port)
        self.known_keys = len(matched[0]) + len(matched[1])
        return matched[:3]  # host keys, CA keys, revoked keys

    def error(self) -> JobError:
        """The error to raise after asyncssh refused the host key."""
        name = known_hosts_name(self.host, self.port)
        if self.offered is None:
            return HostKeyChanged(self.host, "(a revoked or unusable key)", name)
        fingerprint = self.offered.get_fingerprint("sha256")
        if self.known_keys:
            return HostKeyChanged(self.host, fingerprint, name)
        key_line = self.offered.export_public_key("openssh").decode().split()
        return UnknownHostKey(self.host, fingerprint, name, " ".join(key_line[:2]))


def trust_host_key(known_as: str, key_line: str, path: Path | None = None) -> Path:
    """Append 'known_as key_line' to pto-tui's known_hosts (created 0600 if needed)."""
    path = path or app_known_hosts()
    path.parent.mkdir(parents=True, exist_ok=True)
    line = f"{known_as} {key_line.strip()}\n"
    existing = path.read_text() if path.exists() else ""
    if line not in existing:
        with path.open("a") as handle:
            if existing and not existing.endswith("\n"):
                handle.write("\n")
            handle.write(line)
        path.chmod(0o600)
    return path
