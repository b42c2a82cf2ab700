"""Errors of the job layer a person can act on (all PtoError: the CLI prints them cleanly)."""

from __future__ import annotations

from pto_tui.core.errors import PtoError


class JobError(PtoError):
    """A job could not be started, followed or stopped."""


class SshConnectError(JobError):
    """The SSH connection to a target could not be made or was lost."""


class AuthFailed(SshConnectError):
    """The server refused every key offered (agent and key files; no passwords)."""

    def __init__(self, host: str, detail: str = "") -> None:
        self.host = host
        message = f"authentication to {host} failed"
        if detail:
            message += f" ({detail})"
        super().__init__(
            message,
            hint="check IdentityFile in your SSH config, or add the key to ssh-agent",
        )


class UnknownHostKey(SshConnectError):
    """The host presented a key pto-tui has never seen: the user must trust it explicitly."""

    def __init__(self, host: str, fingerprint: str, known_as: str = "", key_line: str = "") -> None:
        self.host = host
        self.fingerprint = fingerprint
        self.known_as = known_as or host  # the known_hosts name, e.g. [10.0.0.5]:2222
        self.key_line = key_line  # "ssh-ed25519 AAAA..."
        super().__init__(
            f"unknown host key {fingerprint} for {host} ({self.known_as})",
            hint=f"check the fingerprint, then trust it with `pto-tui trust-host` (host {host})",
        )


class HostKeyChanged(SshConnectError):
    """The host's key differs from the one known: refused, with no way to accept it here."""

    def __init__(self, host: str, fingerprint: str, known_as: str = "") -> None:
        self.host = host
        self.fingerprint = fingerprint
        self.known_as = known_as or host
        super().__init__(
            f"HOST KEY CHANGED for {host} ({self.known_as}): it now presents {fingerprint}; "
            "refusing to connect (possible man-in-the-middle)",
            hint="if the change is legitimate, remove the old entry from known_hosts by hand",
        )


class SyncError(JobError):
    """The workspace could not be uploaded to the target."""


class FetchError(JobError):
    """A result file could not be fetched back (missing, unreadable)."""
