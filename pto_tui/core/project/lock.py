"""One writer at a time per project: a lock file holding the writer's owner token, pid
and host.

Every write (a CLI command, an MCP tool, the terminal application) takes the lock only
for the write itself, so a person in the terminal application and a coding agent share
one project: a second writer waits a little (`WAIT_SECONDS`), then is refused with the
holder named. Reads take no lock: the files are written atomically.

The lock belongs to an owner (a token each `ProjectLock` makes, or is given), not to a
process: two owners in one process (two MCP calls, an `exec` and a round) exclude each
other as two processes do, only the same owner may take it again (nested), and releasing
removes only one's own lock. A lock left by a dead process on this host is detected as
stale and taken over; a lock from another host cannot be checked, so it is reported.
Releasing renames the lock to `last-write.json`, so a reader can tell who wrote last
without an extra write; a write its rules refused (or its input) removes the lock instead,
naming no one: nothing was written.
"""

from __future__ import annotations

import errno
import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pto_tui.core.errors import InputError, LockedError, RuleViolation, bounded_json, disk_full, read_text

LOCK_NAME = "lock.json"
LAST_WRITE_NAME = "last-write.json"
WRITES_NAME = "writes.log"  # one JSON line per write, so a reader names every writer since it looked
WRITES_KEPT = 200  # lines kept when the log is trimmed
WRITES_LIMIT = 128 * 1024  # bytes past which it is trimmed
WAIT_SECONDS = 5.0  # a write is short: wait this long for another writer before refusing
POLL_SECONDS = 0.05
UNREADABLE = -1  # the pid of a lock file that does not read as one
UNREADABLE_GRACE = 2.0  # seconds: a pto-tui before whole-file locks wrote its lock in this time


def host_name() -> str:
    import socket  # with selectors and select: a read command never needs them

    return socket.gethostname()


@dataclass(frozen=True)
class LockHolder:
    pid: int
    host: str
    since: float
    command: str = ""
    owner: str = ""  # the owner token ("" in a lock written before tokens)

    def describe(self) -> str:
        started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.since))
        what = f" ({self.command})" if self.command else ""
        return f"pid {self.pid} on {self.host}{what} since {started}"


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    return True


def read_holder(path: Path) -> LockHolder | None:
    try:
        data = bounded_json(read_text(path))
        return LockHolder(
            pid=int(data["pid"]),
            host=str(data["host"]),
            since=float(data.get("since", 0)),
            command=str(data.get("command", "")),
            owner=str(data.get("owner", "")),
        )
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        # unreadable (empty, cut off by a full disk, garbled): held by nobody known, stale
        # once it is older than a write of an older pto-tui could take
        try:
            since = path.stat().st_mtime
        except OSError:
            since = 0.0
        return LockHolder(pid=UNREADABLE, host="?", since=since)


def create_whole(path: Path, data: Mapping[str, object]) -> bool:
    """Create `path` holding `data`, complete or not at all (written aside, then linked
    into place: a reader never sees it empty or half-written, a full disk leaves nothing);
    False when it exists already."""
    tmp = path.with_name(f".{path.name}.{os.urandom(16).hex()}.tmp")
    try:
        try:
            with tmp.open("x", encoding="utf-8") as handle:
                json.dump(data, handle)
                handle.flush()
            os.link(tmp, path)  # atomic, and refused when the lock exists
        except FileExistsError:
            return False
        except OSError as error:
            full = disk_full(error, path)
            if full is not None:
                raise full from None
            if error.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP):
                raise
            return _create_in_place(path, data)  # a file system without hard links
        return True
    finally:
        tmp.unlink(missing_ok=True)


def _create_in_place(path: Path, data: Mapping[str, object]) -> bool:
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(data, handle)
    return True


def take_over(path: Path, seen: LockHolder) -> None:
    """Remove the stale lock `seen`, one taker at a time (an advisory lock on a guard file,
    released by the kernel if the taker dies): a taker that comes second finds the lock
    changed and leaves the new one alone, so a takeover has one winner."""
    import fcntl

    guard = path.with_name(f".{path.name}.takeover")
    with guard.open("a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            if read_holder(path) == seen:
                path.unlink(missing_ok=True)
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def new_owner() -> str:
    """A fresh owner token."""
    return os.urandom(16).hex()  # as random as uuid4, without importing uuid


def is_stale(holder: LockHolder) -> bool:
    """Stale when its process is gone on this host, or when the file cannot be read (after
    a moment); another host's lock is never presumed stale."""
    if holder.pid == UNREADABLE:
        return time.time() - holder.since > UNREADABLE_GRACE
    return holder.host == host_name() and not _pid_alive(holder.pid)


class ProjectLock:
    """Exclusive write access to a project. Use as a context manager or acquire()/release()."""

    def __init__(self, state_dir: Path, command: str = "", owner: str = "") -> None:
        self.path = state_dir / LOCK_NAME
        self.command = command
        self.owner = owner or new_owner()
        self.held = False
        self._nested = False  # acquired again by the owner that already holds it

    def acquire(self, wait: float | None = None) -> None:
        """Take the lock, waiting up to `wait` seconds (WAIT_SECONDS by default) while
        another live process holds it; then refuse naming the holder."""
        deadline = time.monotonic() + (WAIT_SECONDS if wait is None else wait)
        while True:
            try:
                self._try_acquire()
                return
            except LockedError as error:
                if time.monotonic() >= deadline:
                    waited = WAIT_SECONDS if wait is None else wait
                    if waited > 0:
                        error.message += f" (waited {waited:g} s)"
                    raise
            time.sleep(POLL_SECONDS)

    def _try_acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        me = {
            "pid": os.getpid(),
            "host": host_name(),
            "since": time.time(),
            "command": self.command,
            "owner": self.owner,
        }
        for _attempt in range(3):
            if create_whole(self.path, me):
                self.held = True
                return
            holder = read_holder(self.path)
            if holder is None:
                continue  # released meanwhile: try again
            if holder.owner == self.owner:
                self.held = True  # re-entrant for its own owner only
                self._nested = True
                return
            if is_stale(holder):
                take_over(self.path, holder)  # the owner died: one taker removes its lock
                continue
            raise LockedError(
                f"project is locked by another pto-tui: {holder.describe()}",
                file=self.path,
                hint="a write holds it for a moment: try again; if that process is "
                "gone on another host, delete the lock file",
            )
        raise LockedError(
            "could not take the project lock (it keeps changing hands)", file=self.path
        )

    def release(self, wrote: bool = True) -> None:
        """Free the lock; `wrote`: a write happened under it, so its holder becomes the last
        writer (a write its rules refused wrote nothing and names no one)."""
        if not self.held:
            return
        if self._nested:  # the outer holder releases it
            self.held = self._nested = False
            return
        holder = read_holder(self.path)
        if holder and holder.owner == self.owner:
            try:  # released by a rename: the holder stays readable as the last writer
                if not wrote:
                    raise OSError("nothing written")
                os.replace(self.path, self.path.with_name(LAST_WRITE_NAME))
                log_write(self.path.parent, holder)
            except OSError:
                self.path.unlink(missing_ok=True)
        self.held = False

    def __enter__(self) -> ProjectLock:
        self.acquire()
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        # a refusal or bad input is raised before a write: the last writer stays who it was
        self.release(wrote=kind is None or not issubclass(kind, RuleViolation | InputError))

    def holder(self) -> LockHolder | None:
        """Who holds the lock now (None when free or stale)."""
        holder = read_holder(self.path)
        if holder is None or is_stale(holder):
            return None
        return holder


def log_write(state_dir: Path, holder: LockHolder) -> None:
    """Append the write to writes.log (trimmed to its last WRITES_KEPT lines when large); a
    log that cannot be written costs only the naming of this writer."""
    path = state_dir / WRITES_NAME
    line = json.dumps({"pid": holder.pid, "host": holder.host, "command": holder.command,
                       "at": time.time()}) + "\n"
    try:
        if path.is_file() and path.stat().st_size > WRITES_LIMIT:
            kept = path.read_text(encoding="utf-8", errors="replace").splitlines()[-WRITES_KEPT:]
            temporary = path.with_suffix(".tmp")
            temporary.write_text("".join(f"{k}\n" for k in kept), encoding="utf-8")
            os.replace(temporary, path)
        with path.open("a", encoding="utf-8") as handle:
            handle.write(line)
    except OSError:
        return


def writers_since(state_dir: Path, offset: int) -> tuple[list[LockHolder], int]:
    """The writes logged after byte `offset` of writes.log, and its size now (a log trimmed
    since is read from its start)."""
    path = state_dir / WRITES_NAME
    try:
        data = path.read_bytes()
    except OSError:
        return [], 0
    start = offset if offset <= len(data) else 0
    found = []
    for raw in data[start:].decode("utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(raw)
            found.append(LockHolder(int(entry["pid"]), str(entry["host"]), float(entry["at"]),
                                    str(entry.get("command", ""))))
        except (ValueError, KeyError, TypeError):
            continue
    return found, len(data)


def last_writer(state_dir: Path) -> LockHolder | None:
    """Who took the write lock last (None when nobody has yet)."""
    holder = read_holder(state_dir / LAST_WRITE_NAME)
    return holder if holder is not None and holder.pid != UNREADABLE else None
