"""Errors the user can act on. Each names where the problem is (file, line, key)."""

from __future__ import annotations

from pathlib import Path


class PtoError(Exception):
    """A failure pto-tui reports as a clear message, never a traceback.

    exit_code follows the CLI contract: 2 for usage or bad input, 1 for other failures.
    """

    exit_code = 1

    def __init__(
        self,
        message: str,
        *,
        file: str | Path | None = None,
        line: int | None = None,
        key: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.message = message
        self.file = str(file) if file is not None else None
        self.line = line
        self.key = key
        self.hint = hint
        super().__init__(self.render())

    def render(self) -> str:
        where = ""
        if self.file:
            where = self.file
            if self.line is not None:
                where += f":{self.line}"
            where += ": "
        key = f"[{self.key}] " if self.key else ""
        text = f"{where}{key}{self.message}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


class InputError(PtoError):
    """Bad input: a file, a value or an argument that cannot be used as given."""

    exit_code = 2


class ConfigError(InputError):
    """project.toml (or another configuration file) is invalid."""


class RuleViolation(PtoError):
    """A workflow rule refuses the action. `rule` names the rule applied."""

    exit_code = 1

    def __init__(self, rule: str, message: str, **kwargs: object) -> None:
        self.rule = rule
        super().__init__(f"refused by rule '{rule}': {message}", **kwargs)  # type: ignore[arg-type]


class LockedError(PtoError):
    """Another pto-tui process holds the project lock."""


class DiskFullError(PtoError):
    """The disk (or the user's quota) has no room for a write; nothing half-written stays."""


def disk_full(error: OSError, path: Path) -> DiskFullError | None:
    """The error as a disk-full message naming where, None when it is another error."""
    import errno

    if error.errno not in (errno.ENOSPC, errno.EDQUOT):
        return None
    return DiskFullError(
        "no space left on the disk holding this file: nothing was written "
        "(the file is as it was); free some space and try again",
        file=path,
    )


def read_utf8(path: Path) -> str:
    """A text file pto-tui reads, or an InputError naming the line of the first byte that
    is not UTF-8 (OSError, FileNotFoundError included, passes through to the caller)."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InputError(
            f"not UTF-8 text (byte 0x{data[error.start]:02x} at offset {error.start})",
            file=path,
            line=line,
            hint="save the file as UTF-8",
        ) from None
