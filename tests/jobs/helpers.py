"""Helpers for the job-layer tests: the process table, a freezable TCP proxy."""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import time
from pathlib import Path


def unique_seconds() -> str:
    """A sleep duration no other process on the machine uses: a marker in the process table."""
    return f"{900 + secrets.randbelow(99)}.{secrets.randbelow(10**6):06d}"


def live_processes(marker: str) -> list[int]:
    """PIDs of running (not zombie) processes whose command line contains marker."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


async def wait_until(predicate, timeout: float, interval: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        await asyncio.sleep(interval)
    return bool(predicate())


class TcpProxy:
    """Forwards 127.0.0.1:port to an upstream port; can freeze (hold every byte, like a
    hung peer) or drop (abort every connection, like a broken network)."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.port = 0
        self.frozen = False
        self._writers: list[asyncio.StreamWriter] = []
        self._server: asyncio.Server | None = None

    async def start(self) -> TcpProxy:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        except OSError:
            writer.close()
            return
        self._writers += [writer, up_writer]
        await asyncio.gather(
            self._pipe(reader, up_writer), self._pipe(up_reader, writer), return_exceptions=True
        )

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                while self.frozen:
                    await asyncio.sleep(0.05)
                writer.write(data)
                await writer.drain()
        finally:
            writer.close()

    def drop(self) -> None:
        for writer in self._writers:
            writer.transport.abort()
        self._writers.clear()

    async def close(self) -> None:
        self.frozen = False
        self.drop()
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)
