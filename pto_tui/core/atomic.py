"""Atomic file writes: a record is either the old file or the new one, never half of each.

The temporary file is written beside the file, or in a `scratch` folder of the same file
system: the ledger's round folders are many, and on ext4 a new file in a folder made
late in a 1,000-round campaign costs twenty times one made in the project's own state
folder (the rename into place costs the same either way)."""

from __future__ import annotations

import contextvars
import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pto_tui.core.errors import disk_full

# set inside synced_once(): writes skip their own fsync, one sync at the end covers them
_DEFERRED = contextvars.ContextVar("deferred_sync", default=False)


@contextmanager
def synced_once() -> Iterator[None]:
    """Writes made inside are atomic as ever (a reader sees the old file or the new one)
    but not flushed to disk one by one: one sync at the end makes them durable together.
    For a write of thousands of files at once (an import), where each fsync costs more
    than its write; whatever a crash before the end loses, the import writes again."""
    token = _DEFERRED.set(True)
    try:
        yield
    finally:
        _DEFERRED.reset(token)
        os.sync()


def flush_to_disk(fd: int) -> None:
    """fsync, unless inside synced_once()."""
    if not _DEFERRED.get():
        os.fsync(fd)


def atomic_write_bytes(path: Path, data: bytes, scratch: Path | None = None) -> None:
    import tempfile  # with random and shutil: a read command that writes nothing never needs it

    path.parent.mkdir(parents=True, exist_ok=True)
    folder = scratch or path.parent
    folder.mkdir(parents=True, exist_ok=True)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as error:
        full = disk_full(error, path)
        if full is not None:
            raise full from None
        raise
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            flush_to_disk(handle.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as error:
        Path(tmp).unlink(missing_ok=True)
        full = disk_full(error, path)
        if full is not None:
            raise full from None
        if scratch is None or error.errno != errno.EXDEV:
            raise
        atomic_write_bytes(path, data)  # the scratch folder is on another file system
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str, scratch: Path | None = None) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), scratch)


def staged_write_text(path: Path, text: str) -> None:
    """A file of a folder no reader sees yet (a new round's, put together aside): written
    in place and flushed to disk, no temporary file and rename of its own, since the
    folder appears whole by one rename once all its files are written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(fd, 0o644)  # as atomic_write_bytes gives a new file, whatever the umask
            handle.write(text.encode("utf-8"))
            handle.flush()
            flush_to_disk(fd)
    except OSError as error:
        full = disk_full(error, path)
        if full is not None:
            raise full from None
        raise
