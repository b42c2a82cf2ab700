"""The one interface both executors (local subprocesses, SSH) implement."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pto_tui.core.project.config import Target

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

    def __init__(self, target: Target) -> None:
        self.target = target

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
