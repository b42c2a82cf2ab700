"""The SSH executor: scripts and files over the runner's pooled connections (ssh_pool.py)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterable
from functools import partial
from pathlib import Path

import asyncssh

from pto_tui.core.project.config import Target
from pto_tui.core.vocabulary import TargetKind
from pto_tui.jobs.errors import JobError, SshConnectError
from pto_tui.jobs.executor import CHUNK, CommandResult, Executor, ExitInfo, OutStream, Process
from pto_tui.jobs.ssh_pool import BULK_WINDOW, PooledConnection, SshPool
from pto_tui.jobs.target_spec import TargetKindSpec

PARALLEL_TRANSFERS = 16  # SFTP requests in flight on one session

# The receive window of a session channel (bytes the server may send ahead of our reads).
# A line-buffered job writes a line per write(). With asyncssh's 2 MiB window sshd is never
# held back: it sends each few lines as their own packet (1M lines of 80 bytes: 40-90k
# packets of ~1 KiB), and asyncssh's work per packet, in Python, was most of the streaming
# time. asyncssh gives back half the window at a time, so a small window holds sshd back
# while we are busy: the job's pipe fills and sshd sends it in packets of up to half the
# window. Measured on loopback, 1M lines to a live subscriber against
# `ssh 'stdbuf -oL cmd' > file`: 2 MiB 0.45x (40-90k packets), 256 KiB 0.6-0.7x (~25k),
# 128 KiB 0.9x, 64 KiB 0.95x (5-8k packets; each half window given back is one more packet
# we send, so smaller still is no better). The price is a bound of window / round-trip
# time on live output (64 KiB at 10 ms: 6.4 MB/s, 80k lines of 80 bytes a second);
# block-buffered jobs, which come in big writes anyway, keep the large window.
LIVE_WINDOW = 64 * 1024


class SshProcess(Process):
    def __init__(
        self,
        pool: SshPool,
        target: Target,
        proc: asyncssh.SSHClientProcess[bytes],
        pooled: PooledConnection,
    ) -> None:
        self.pool = pool
        self.target = target
        self.proc = proc
        self.pooled = pooled
        self.lost_reason = ""
        self._released = False

    async def read(self, stream: OutStream) -> bytes:
        reader = self.proc.stdout if stream == "stdout" else self.proc.stderr
        try:
            return await reader.read(CHUNK)
        except (asyncssh.Error, OSError) as error:
            self.lost_reason = str(error) or type(error).__name__
            return b""

    def signal(self, name: str) -> None:
        # OpenSSH delivers it to the whole process group of the session
        with contextlib.suppress(asyncssh.Error, OSError):
            self.proc.send_signal(name)

    async def wait(self) -> ExitInfo:
        with contextlib.suppress(asyncssh.Error, OSError):
            await self.proc.wait_closed()
        exit_signal = self.proc.exit_signal
        if exit_signal is not None:
            return ExitInfo(signal=exit_signal[0])
        status = self.proc.exit_status
        if status is None or status < 0:
            reason = self.lost_reason or ("connection lost" if self.pooled.closed else "")
            return ExitInfo(detail=reason or "the session closed without an exit status")
        return ExitInfo(exit_code=status)

    def close(self) -> None:
        self.proc.close()
        if not self._released:
            self._released = True
            self.pool.release(self.target, self.pooled)


class SshExecutor(Executor):
    """Jobs on the host of an SSH alias, over the runner's pooled connections."""

    def __init__(self, target: Target, pool: SshPool) -> None:
        super().__init__(target)
        self.pool = pool

    async def start(
        self, script: str, *, pty: bool = False, line_buffered: bool = False
    ) -> Process:
        window = LIVE_WINDOW if line_buffered else BULK_WINDOW
        proc, pooled = await self.pool.open_process(self.target, script, pty=pty, window=window)
        if not pty:
            proc.stdin.write_eof()  # nothing to read: commands waiting on stdin end at once
        return SshProcess(self.pool, self.target, proc, pooled)

    async def run(
        self, script: str, *, stdin: bytes | None = None, timeout: float = 60.0
    ) -> CommandResult:
        proc, pooled = await self.pool.open_process(self.target, script)
        process = SshProcess(self.pool, self.target, proc, pooled)
        try:
            async with asyncio.timeout(timeout):
                # always send EOF: asyncssh's communicate() sends none for empty input
                if stdin:
                    proc.stdin.write(stdin)
                proc.stdin.write_eof()
                out, err = await proc.communicate()
                info = await process.wait()
        except TimeoutError:
            process.signal("KILL")
            raise JobError(
                f"{self.target.host}: command did not finish within {timeout:g} s"
            ) from None
        except (asyncssh.Error, OSError) as error:
            raise SshConnectError(f"{self.target.host}: {error}") from None
        finally:
            process.close()
        return CommandResult(info.exit_code, out or b"", err or b"")

    async def put_files(self, files: list[tuple[Path, str]]) -> None:
        async with self.pool.sftp(self.target) as sftp:
            await _parallel(
                partial(sftp.put, str(src), _sftp_path(dst), preserve=True) for src, dst in files
            )

    async def get_files(self, files: list[tuple[str, Path]]) -> None:
        for _src, dst in files:
            dst.parent.mkdir(parents=True, exist_ok=True)
        async with self.pool.sftp(self.target) as sftp:
            await _parallel(
                partial(sftp.get, _sftp_path(src), str(dst), preserve=True) for src, dst in files
            )


def _sftp_path(path: str) -> str:
    # SFTP does not expand ~, but its relative paths start at the home directory
    if path == "~":
        return "."
    return path[2:] if path.startswith("~/") else path


async def _parallel(transfers: Iterable[Callable[[], Awaitable[object]]]) -> None:
    """Run transfers PARALLEL_TRANSFERS at a time; the first failure stops the rest."""
    gate = asyncio.Semaphore(PARALLEL_TRANSFERS)

    async def one(transfer: Callable[[], Awaitable[object]]) -> None:
        async with gate:
            await transfer()

    try:
        async with asyncio.TaskGroup() as group:
            for transfer in transfers:
                group.create_task(one(transfer))
    except* (asyncssh.SFTPError, OSError) as errors:
        raise JobError(f"file transfer failed: {errors.exceptions[0]}") from None


# [target] kind = "ssh": an SSH config alias (host) and a work dir on it
SSH_TARGET = TargetKindSpec(TargetKind.SSH, executor=SshExecutor, host_key=True)
