"""The local executor: subprocesses of this machine, each in its own session."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal as signals
from pathlib import Path

from pto_tui.core.project.config import Target
from pto_tui.core.vocabulary import TargetKind
from pto_tui.jobs.errors import JobError
from pto_tui.jobs.executor import CHUNK, CommandResult, Executor, ExitInfo, OutStream, Process
from pto_tui.jobs.shell import join_path
from pto_tui.jobs.ssh_pool import SshPool
from pto_tui.jobs.target_spec import TargetKindSpec


def _kill_group(pid: int, name: str) -> None:
    # the script runs in a new session, so its pid is also its process group id
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, getattr(signals, f"SIG{name}"))


def _exit_info(returncode: int) -> ExitInfo:
    if returncode < 0:
        return ExitInfo(signal=signals.Signals(-returncode).name.removeprefix("SIG"))
    return ExitInfo(exit_code=returncode)


def _set_done(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class _PtyReader:
    """Reads the master side of a PTY; EIO (every slave closed) is the end of output."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        os.set_blocking(fd, False)

    async def read(self) -> bytes:
        loop = asyncio.get_running_loop()
        while self.fd >= 0:
            try:
                return os.read(self.fd, CHUNK)
            except BlockingIOError:
                ready: asyncio.Future[None] = loop.create_future()
                loop.add_reader(self.fd, _set_done, ready)
                try:
                    await ready
                finally:
                    loop.remove_reader(self.fd)
            except OSError:
                return b""
        return b""

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


class LocalProcess(Process):
    def __init__(self, proc: asyncio.subprocess.Process, pty_reader: _PtyReader | None) -> None:
        self.proc = proc
        self.pty_reader = pty_reader

    async def read(self, stream: OutStream) -> bytes:
        if self.pty_reader is not None:
            return await self.pty_reader.read() if stream == "stdout" else b""
        reader = self.proc.stdout if stream == "stdout" else self.proc.stderr
        assert reader is not None
        return await reader.read(CHUNK)

    def signal(self, name: str) -> None:
        if self.proc.returncode is None:
            _kill_group(self.proc.pid, name)

    async def wait(self) -> ExitInfo:
        return _exit_info(await self.proc.wait())

    def close(self) -> None:
        if self.proc.returncode is None:
            _kill_group(self.proc.pid, "KILL")  # nothing of ours outlives a closed process
        if self.pty_reader is not None:
            self.pty_reader.close()


class LocalExecutor(Executor):
    """Runs scripts with bash on this machine; "remote" paths are local paths."""

    on_this_machine = True
    signals_reach_group = True

    def job_dir(self, job_id: str, log_dir: str) -> str:
        """The runner's own log folder of the job."""
        return join_path(log_dir, job_id) if log_dir else super().job_dir(job_id, log_dir)

    async def start(
        self, script: str, *, pty: bool = False, line_buffered: bool = False
    ) -> Process:
        if not pty:
            proc = await asyncio.create_subprocess_exec(
                "bash", "-c", script,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
            )
            return LocalProcess(proc, None)
        master, slave = os.openpty()
        try:
            proc = await asyncio.create_subprocess_exec(
                "bash", "-c", script,
                stdin=slave, stdout=slave, stderr=slave,
                start_new_session=True,
            )
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)
        return LocalProcess(proc, _PtyReader(master))

    async def run(
        self, script: str, *, stdin: bytes | None = None, timeout: float = 60.0
    ) -> CommandResult:
        proc = await asyncio.create_subprocess_exec(
            "bash", "-c", script,
            stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
        try:
            out, err = await asyncio.wait_for(proc.communicate(stdin), timeout)
        except TimeoutError:
            _kill_group(proc.pid, "KILL")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), 5.0)
            raise JobError(f"local command did not finish within {timeout:g} s") from None
        return CommandResult(proc.returncode, out, err)

    async def put_files(self, files: list[tuple[Path, str]]) -> None:
        await asyncio.to_thread(_copy_all, [(src, Path(dst).expanduser()) for src, dst in files])

    async def get_files(self, files: list[tuple[str, Path]]) -> None:
        await asyncio.to_thread(_copy_all, [(Path(src).expanduser(), dst) for src, dst in files])


def _copy_all(pairs: list[tuple[Path, Path]]) -> None:
    for src, dst in pairs:
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)  # copy2 keeps mode bits and mtime


def _local_executor(target: Target, _pool: SshPool) -> Executor:
    return LocalExecutor(target)


# [target] kind = "local": this machine, in the workspace or a work dir of its own
LOCAL_TARGET = TargetKindSpec(TargetKind.LOCAL, executor=_local_executor)
