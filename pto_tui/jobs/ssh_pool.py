"""The SSH connection pool: one pooled connection per host, a cap on channels, lazy reconnect.

Measured facts behind the choices (docs/remote.md §3): a command on an open connection costs
~3 ms against ~92 ms for a new one, so connections are kept; OpenSSH refuses sessions
beyond MaxSessions (10 by default), so each connection carries at most `max_channels`
(an SFTP session counts) and a busy host gets a second connection, then a queue;
output is read as bytes (encoding=None): one invalid UTF-8 byte must not drop a
connection that carries other jobs.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import asyncssh

from pto_tui.core.project.config import Target
from pto_tui.jobs.connect import ConnectOptions, open_connection
from pto_tui.jobs.errors import SshConnectError

BULK_WINDOW = 2 * 1024 * 1024  # asyncssh's default receive window (ssh.py: LIVE_WINDOW)


@dataclass(eq=False)
class PooledConnection:
    conn: asyncssh.SSHClientConnection | None
    cap: int  # channels allowed at once; lowered if the server refuses sooner
    in_use: int = 0
    closed: bool = False


@dataclass
class _Host:
    connections: list[PooledConnection] = field(default_factory=list)
    connecting: int = 0
    waiters: list[asyncio.Future[None]] = field(default_factory=list)

    def wake(self) -> None:
        for waiter in self.waiters:
            if not waiter.done():
                waiter.set_result(None)
        self.waiters.clear()


class SshPool:
    """Connections per (alias, ssh_config, agent forwarding), shared by every job of the runner."""

    def __init__(
        self,
        options: ConnectOptions | None = None,
        max_channels: int = 8,
        max_connections: int = 4,
    ) -> None:
        self.options = options or ConnectOptions()
        self.max_channels = max_channels
        self.max_connections = max_connections
        self._hosts: dict[tuple[str, str, bool], _Host] = {}
        self.connects = 0  # connections opened so far (tests and benchmarks read it)

    def _host(self, target: Target) -> _Host:
        key = (target.host, target.ssh_config, target.forward_agent)
        return self._hosts.setdefault(key, _Host())

    def connections(self, target: Target) -> list[PooledConnection]:
        return [c for c in self._host(target).connections if not c.closed]

    async def acquire(self, target: Target) -> PooledConnection:
        """A connection with a free channel slot: reuse, open another, or wait in line."""
        host = self._host(target)
        while True:
            host.connections = [c for c in host.connections if not c.closed]
            for pooled in host.connections:
                if pooled.in_use < pooled.cap:
                    pooled.in_use += 1
                    return pooled
            if len(host.connections) + host.connecting < self.max_connections:
                break
            waiter = asyncio.get_running_loop().create_future()
            host.waiters.append(waiter)
            await waiter
        host.connecting += 1
        pooled = PooledConnection(None, self.max_channels, in_use=1)

        def lost(_exc: Exception | None) -> None:
            pooled.closed = True
            host.wake()

        try:
            pooled.conn = await open_connection(target, self.options, on_lost=lost)
        finally:
            host.connecting -= 1
            host.wake()
        self.connects += 1
        host.connections.append(pooled)
        return pooled

    def release(self, target: Target, pooled: PooledConnection) -> None:
        pooled.in_use -= 1
        self._host(target).wake()

    async def open_process(
        self, target: Target, command: str, *, pty: bool = False, window: int = BULK_WINDOW
    ) -> tuple[asyncssh.SSHClientProcess[bytes], PooledConnection]:
        """A new session channel running command; retried elsewhere if the server refuses."""
        for _attempt in range(50):
            pooled = await self.acquire(target)
            assert pooled.conn is not None
            try:
                proc = await pooled.conn.create_process(
                    command,
                    encoding=None,
                    term_type="xterm" if pty else None,
                    term_size=(200, 50) if pty else None,
                    window=window,
                )
                return proc, pooled
            except asyncssh.ChannelOpenError as error:
                self.release(target, pooled)
                if pooled.in_use == 0:
                    raise SshConnectError(
                        f"{target.host} refused a session: {error.reason}"
                    ) from None
                # the server allows fewer sessions than our cap (sshd MaxSessions): learn it
                pooled.cap = max(1, pooled.in_use)
            except (asyncssh.Error, OSError) as error:
                self.release(target, pooled)
                pooled.closed = True
                raise SshConnectError(f"connection to {target.host} failed: {error}") from None
        raise SshConnectError(f"{target.host}: no session channel could be opened")

    @contextlib.asynccontextmanager
    async def sftp(self, target: Target) -> AsyncIterator[asyncssh.SFTPClient]:
        pooled = await self.acquire(target)
        assert pooled.conn is not None
        try:
            try:
                client = await pooled.conn.start_sftp_client()
            except (asyncssh.Error, OSError) as error:
                raise SshConnectError(f"SFTP to {target.host} failed: {error}") from None
            try:
                yield client
            finally:
                client.exit()
        finally:
            self.release(target, pooled)

    async def close(self) -> None:
        closing = []
        for host in self._hosts.values():
            for pooled in host.connections:
                if pooled.conn is not None and not pooled.closed:
                    pooled.conn.close()
                    closing.append(pooled.conn.wait_closed())
            host.connections.clear()
            host.wake()
        if closing:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.gather(*closing, return_exceptions=True), 5.0)
