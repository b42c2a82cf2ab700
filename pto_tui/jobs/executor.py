"""The one interface every target kind's executor (local subprocesses, SSH) implements."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pto_tui.core.project.config import Target
from pto_tui.jobs.shell import REMOTE_JOBS_DIR, join_path

OutStream = Literal["stdout", "stderr"]
CHUNK = 65536  # bytes per read: reading big chunks and splitting lines ourselves is ~4x faster


@dataclass(frozen=True)
class ExitInfo:
    """How a process ended. Neither exit code nor signal means the outcome is unknown."""

    exit_code: int | None = None
    signal: str | None = None  # "TERM", "KILL", ...
    detail: str = ""  # why the outcome is unknown (connection lost, ...)

    @property
    def known(self) -> bool:
        return self.exit_code is not None or self.signal is not None


@dataclass(frozen=True)
class CommandResult:
    exit_code: int | None
    stdout: bytes
    stderr: bytes

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


class Process(ABC):
    """A running command whose output is read in chunks."""

    @abstractmethod
    async def read(self, stream: OutStream) -> bytes:
        """The next chunk of a stream; b"" once it has ended (or the connection was lost)."""

    @abstractmethod
    def signal(self, name: str) -> None:
        """Best effort: deliver SIG<name> to the command's process group."""

    @abstractmethod
    async def wait(self) -> ExitInfo:
        """Until the command has ended. Unbounded: callers wrap it in a timeout."""

    @abstractmethod
    def close(self) -> None:
        """Release the process (channel, pipes). Never blocks."""


class Executor(ABC):
    """Runs shell scripts and moves files on one target."""

    # jobs run on this machine: the target sees this machine's files (a job's folder is
    # its log folder, a work dir may be the workspace itself) and no connection is lost
    on_this_machine: bool = False
    # a signal to a job's process reaches its whole process group (locally killpg); over
    # SSH a signal request may not be honoured, so a stop also signals the group recorded
    # in the job's folder
    signals_reach_group: bool = False

    def __init__(self, target: Target) -> None:
        self.target = target

    def job_dir(self, job_id: str, log_dir: str) -> str:
        """The job's folder on the target (its pgid, a detached job's output and exit
        status): under the work dir, or the home directory."""
        return join_path(self.target.work_dir, f"{REMOTE_JOBS_DIR}/{job_id}")

    @abstractmethod
    async def start(
        self, script: str, *, pty: bool = False, line_buffered: bool = False
    ) -> Process:
        """Start a script (POSIX shell text) with stdin closed. line_buffered: its output
        comes a line per write (a live job), which an executor may read differently."""

    @abstractmethod
    async def run(
        self, script: str, *, stdin: bytes | None = None, timeout: float = 60.0
    ) -> CommandResult:
        """Run a short script to completion; JobError when it outlives timeout."""

    @abstractmethod
    async def put_files(self, files: list[tuple[Path, str]]) -> None:
        """Copy local files to target paths (parents exist), keeping mode bits and mtimes."""

    @abstractmethod
    async def get_files(self, files: list[tuple[str, Path]]) -> None:
        """Copy target files to local paths, keeping mode bits and mtimes."""
