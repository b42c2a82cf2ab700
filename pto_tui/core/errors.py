"""Errors the user can act on. Each names where the problem is (file, line, key)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any


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
    """A workflow rule refuses the action. `rule` names the rule applied; `findings` are
    every finding of the refusal as (rule, message, hint, files), the first one `rule`'s."""

    exit_code = 1

    def __init__(
        self,
        rule: str,
        message: str,
        findings: list[tuple[str, str, str, tuple[str, ...]]] | None = None,
        **kwargs: object,
    ) -> None:
        self.rule = rule
        self.findings = findings if findings is not None else [(rule, message, "", ())]
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


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def read_regular_bytes(path: Path) -> bytes:
    """The bytes of a regular file, or an InputError naming the file when it is a FIFO,
    a directory or a device: opened without blocking (a FIFO with no writer would block
    for ever) and looked at before it is read. FileNotFoundError passes through."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except IsADirectoryError:
        raise InputError("is a directory, not a file", file=path) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
            raise InputError(f"is {kind}, not a regular file", file=path)
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb") as handle:
            fd = -1
            return handle.read()
    finally:
        if fd >= 0:
            os.close(fd)


def read_utf8(path: Path) -> str:
    """A text file pto-tui reads, or an InputError naming the line of the first byte that
    is not UTF-8, or naming a file that is not a regular file (OSError, FileNotFoundError
    included, passes through to the caller)."""
    data = read_regular_bytes(path)
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


# JSON state files nest a few levels; past this a file is broken or hostile (and Python's
# parser would exhaust the stack on it).
MAX_JSON_DEPTH = 64


def json_depth_problem(text: str, limit: int = MAX_JSON_DEPTH) -> str | None:
    """Why `text` nests deeper than `limit` arrays and objects, or None; bad JSON is
    left to the decoder to name."""
    try:
        value = json.loads(text)
    except RecursionError:
        return f"JSON nested more than {limit} levels deep"
    except ValueError:
        return None
    return _too_deep(value, limit)


def _too_deep(value: Any, limit: int) -> str | None:
    """The nesting of a decoded value, walked without recursion: a state file holds a
    thousand rounds' records, and only its containers are visited (never its characters)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        if depth > limit:
            return f"JSON nested more than {limit} levels deep"
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return None


def strict_json(text: str) -> Any:
    """json.loads refusing NaN and Infinity (not JSON; pto-tui never writes them), and a
    nesting the decoder cannot follow as a ValueError, never a RecursionError."""
    try:
        return json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise ValueError(f"JSON nested more than {MAX_JSON_DEPTH} levels deep") from None


def bounded_json(text: str) -> Any:
    """strict_json with its nesting bounded: past MAX_JSON_DEPTH a ValueError, as for any
    other bad JSON (so a caller's `except ValueError` holds)."""
    value = strict_json(text)
    problem = _too_deep(value, MAX_JSON_DEPTH)
    if problem:
        raise ValueError(problem)
    return value


def read_text(path: Path, errors: str = "strict") -> str:
    """A text file's contents, read only when it is a regular file (read_regular_bytes);
    `errors` as for bytes.decode."""
    return read_regular_bytes(path).decode("utf-8", errors=errors)


def load_json(text: str, path: Path, line: int | None = None) -> Any:
    """The JSON value in `text` of file `path` (a line of it, for a log), its nesting
    bounded; an InputError naming the file otherwise. Non-finite numbers (NaN, Infinity)
    are refused: pto-tui never writes them."""
    try:
        return bounded_json(text)
    except ValueError as error:
        raise InputError(f"invalid JSON: {error}", file=path, line=line) from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def inside(path: Path, root: Path) -> bool:
    """`path`, with its symlinks resolved, lies inside `root` (itself resolved)."""
    try:
        return path.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):  # a symlink loop
        return False


def read_utf8_inside(path: Path, root: Path) -> str:
    """read_utf8 of a file inside the project `root`: a symlink leading out of it (a
    notes.md pointing at /etc/shadow) is refused, never followed."""
    if not inside(path, root):
        raise InputError(f"leads outside the project ({root}): not followed", file=path)
    return read_utf8(path)
