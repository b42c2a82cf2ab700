"""A throw-away OpenSSH server on loopback, for the tests and the benchmarks.

Everything it needs (host key, client key, authorized_keys, sshd_config and an
SSH client config with a Host alias) lives in one directory, so a target is
addressed by alias exactly as a user would. Facts it relies on: docs/remote.md §12.
Plain stdlib: no pytest here.
"""

from __future__ import annotations

import getpass
import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

SSHD = "/usr/sbin/sshd"
SSH_KEYGEN = "ssh-keygen"


class SshdStartError(RuntimeError):
    """The loopback sshd could not be started (not installed, port race, bad config)."""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def generate_key(path: Path, comment: str = "pto-tui-test") -> None:
    """An unencrypted ed25519 key pair at path and path.pub."""
    for stale in (path, path.with_name(path.name + ".pub")):
        stale.unlink(missing_ok=True)
    subprocess.run(
        [SSH_KEYGEN, "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", str(path)],
        check=True,
        capture_output=True,
        timeout=30,
    )


def wait_for_banner(port: int, deadline: float) -> bool:
    """True once something on 127.0.0.1:port answers with an SSH banner."""
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1.0) as sock:
                sock.settimeout(1.0)
                if sock.recv(64).startswith(b"SSH-"):
                    return True
        except OSError:
            pass
        time.sleep(0.02)
    return False


@dataclass
class LoopbackSshd:
    """One sshd process on 127.0.0.1, reachable through `alias` in `ssh_config`."""

    root: Path  # a private directory for keys, config and logs
    alias: str = "pto-test"
    extra_config: tuple[str, ...] = ()  # extra sshd_config lines, e.g. "MaxSessions 3"
    # Debian's bash sources ~/.bashrc for every command run by sshd (the shell level is
    # 1); a user's slow .bashrc (pyenv, conda init) then costs 100+ ms a command. SHLVL=1
    # in the session makes bash skip it, so tests measure pto-tui, not this machine.
    skip_bashrc: bool = True
    port: int = 0
    user: str = field(default_factory=getpass.getuser)
    process: subprocess.Popen[bytes] | None = None

    @property
    def host_key(self) -> Path:
        return self.root / "ssh_host_ed25519_key"

    @property
    def client_key(self) -> Path:
        return self.root / "id_ed25519"

    @property
    def ssh_config(self) -> Path:
        return self.root / "ssh_config"

    @property
    def sshd_config(self) -> Path:
        return self.root / "sshd_config"

    @property
    def log_file(self) -> Path:
        return self.root / "sshd.log"

    def host_public_key(self) -> str:
        """The server's public key as 'type base64' (no comment)."""
        text = self.host_key.with_name(self.host_key.name + ".pub").read_text()
        return " ".join(text.split()[:2])

    def known_hosts_line(self, port: int | None = None) -> str:
        """A known_hosts line trusting this server at 127.0.0.1:port (default: its own)."""
        return f"[127.0.0.1]:{port or self.port} {self.host_public_key()}\n"

    def write_client_config(self, path: Path, alias: str, port: int, identity: Path) -> None:
        """An SSH client config with one Host alias (tests add aliases for proxies, bad keys)."""
        text = (
            f"Host {alias}\n"
            f"    HostName 127.0.0.1\n"
            f"    Port {port}\n"
            f"    User {self.user}\n"
            f"    IdentityFile {identity}\n"
            f"    IdentitiesOnly yes\n"
            f"    UserKnownHostsFile {self.root / 'ssh_known_hosts'}\n"
            f"    StrictHostKeyChecking yes\n"
            f"    BatchMode yes\n"
            f"    LogLevel ERROR\n"
        )
        with path.open("a") as handle:
            handle.write(text)

    def prepare(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        if not Path(SSHD).exists():
            raise SshdStartError(f"{SSHD} not found: apt-get install -y openssh-server")
        if not self.host_key.exists():
            generate_key(self.host_key, "pto-tui-test-host")
        if not self.client_key.exists():
            generate_key(self.client_key)
        pub = self.client_key.with_name(self.client_key.name + ".pub").read_text()
        (self.root / "authorized_keys").write_text(pub)
        os.chmod(self.root / "authorized_keys", 0o600)
        if os.geteuid() == 0:
            # sshd running as root needs its privilege-separation directory
            Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)

    def _write_sshd_config(self) -> None:
        lines = [
            f"Port {self.port}",
            "ListenAddress 127.0.0.1",
            f"HostKey {self.host_key}",
            f"PidFile {self.root / 'sshd.pid'}",
            f"AuthorizedKeysFile {self.root / 'authorized_keys'}",
            "UsePAM no",
            "StrictModes no",
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no",
            "PermitRootLogin prohibit-password",
            "Subsystem sftp internal-sftp",
            "MaxStartups 64:30:128",
            "LogLevel ERROR",
            *(["SetEnv SHLVL=1"] if self.skip_bashrc else []),
            *self.extra_config,
        ]
        self.sshd_config.write_text("\n".join(lines) + "\n")

    def start(self, timeout: float = 10.0) -> None:
        """Start sshd on a free port (retrying a port race) and write the client config."""
        self.prepare()
        wanted = self.port
        for _attempt in range(5):
            self.port = wanted or free_port()
            self._write_sshd_config()
            log = self.log_file.open("ab")
            try:
                self.process = subprocess.Popen(
                    [SSHD, "-D", "-e", "-f", str(self.sshd_config)],
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=log,
                )
            finally:
                log.close()
            deadline = time.monotonic() + timeout
            if wait_for_banner(self.port, deadline) and self.process.poll() is None:
                break
            self.stop()
        else:
            tail = self.log_file.read_text(errors="replace")[-2000:]
            raise SshdStartError(f"sshd did not start on 127.0.0.1:{self.port}:\n{tail}")
        self.ssh_config.write_text("")
        self.write_client_config(self.ssh_config, self.alias, self.port, self.client_key)
        (self.root / "ssh_known_hosts").write_text(self.known_hosts_line())

    def stop(self, timeout: float = 5.0) -> None:
        """Stop sshd by its PID: TERM, then KILL, every wait bounded."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=timeout)

    def __enter__(self) -> LoopbackSshd:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
