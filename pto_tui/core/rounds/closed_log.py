"""runs/closed.log: an append-only log of every closed round as pto-tui wrote it.

round.toml is plain text a person or an agent can rewrite; the log is what makes such a
rewrite visible. Every time pto-tui saves a closed record (the close itself, an
amendment, a confirmed review) it appends one JSON line: the round, the event, its
verdict and median, the SHA-256 of the round.toml text written, and the whole record.
The newest line of a round is the round as pto-tui last closed it: a round.toml that no
longer hashes to it, or that is gone, is tampered, and the campaign's counts and rules
use the logged record instead.

What a read found can be kept as a summary (`summary` / `seed`: each round's newest
line without its record, and the file's stamp), so a command reading a 1,000-round
ledger does not decode every record again while the file is unchanged; a record is read
from the file only when it is asked for (`full_entry`, for a tampered round).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pto_tui.core.errors import bounded_json, read_text

LOG_NAME = "closed.log"


@dataclass(frozen=True)
class LogEntry:
    number: int
    event: str  # closed | amended | started (the log begun from records as found)
    sha256: str  # of the round.toml text
    verdict: str
    median_us: float | None
    record: dict[str, Any]  # the record as written (round_to_dict)


class ClosedLog:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._stamp: tuple[int, int, int] | None = None
        self._latest: dict[int, LogEntry] = {}
        self._problems: list[str] = []
        self._partial = False  # the entries came from a summary: their records are not read
        self.version = 0  # counts the changes of what latest() gives

    def exists(self) -> bool:
        return self.path.is_file()

    def append(self, entry: LogEntry) -> None:
        """One line, appended and flushed to disk: the log is never rewritten."""
        line = json.dumps(
            {
                "round": entry.number,
                "event": entry.event,
                "sha256": entry.sha256,
                "verdict": entry.verdict,
                "median_us": entry.median_us,
                "record": entry.record,
            },
            sort_keys=True,
        )
        self.path.parent.mkdir(parents=True, exist_ok=True)
        known = self._stamp is not None and self._stamp == self._stat()
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(line + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        if known:  # what was read plus this line: the log is not read again for it
            self._latest[entry.number] = entry
            self._stamp = self._stat()
            self.version += 1

    def _stat(self) -> tuple[int, int, int] | None:
        try:
            info = self.path.stat()
        except FileNotFoundError:
            return None
        return (info.st_mtime_ns, info.st_size, info.st_ino)

    def latest(self) -> tuple[dict[int, LogEntry], list[str]]:
        """The newest entry of every logged round, and the lines that could not be read
        (each naming the file and line). Re-read only when the file changed."""
        stamp = self._stat()
        if stamp is None:
            self.version += self._stamp is not None
            self._stamp, self._latest, self._problems = None, {}, []
            return {}, []
        if stamp != self._stamp:
            self._latest, self._problems = _read(self.path)
            self._stamp, self._partial = stamp, False
            self.version += 1
        return dict(self._latest), list(self._problems)

    def full_entry(self, number: int) -> LogEntry | None:
        """Round `number`'s newest entry with its record (read from the file when the
        entries came from a summary)."""
        if self._partial and self._stamp == self._stat():
            self._latest, self._problems = _read(self.path)
            self._partial = False
        return self._latest.get(number)

    def summary(self) -> dict[str, Any] | None:
        """What latest() found, without the records, and the file's stamp (None before a read)."""
        if self._stamp is None:
            return None
        return {
            "stamp": list(self._stamp),
            "latest": {str(n): [e.event, e.sha256, e.verdict, e.median_us] for n, e in self._latest.items()},
            "problems": list(self._problems),
        }

    def seed(self, summary: Any) -> None:
        """Take a summary() kept from an earlier read as what the file holds, if the file
        still has its stamp and nothing was read yet (anything unexpected: ignored)."""
        if self._stamp is not None or not isinstance(summary, dict):
            return
        try:
            stamp = tuple(int(v) for v in summary["stamp"])
            latest = {
                int(n): LogEntry(int(n), str(e[0]), str(e[1]), str(e[2]), _median(e[3]), {})
                for n, e in summary["latest"].items()
            }
            problems = [str(p) for p in summary["problems"]]
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            return
        if len(stamp) == 3 and stamp == self._stat():
            self._stamp, self._latest, self._problems = (stamp[0], stamp[1], stamp[2]), latest, problems
            self._partial = True
            self.version += 1


def _median(value: Any) -> float | None:
    """A summary's median as the log line holds it (a number, or none)."""
    if value is None or (isinstance(value, int | float) and not isinstance(value, bool)):
        return value
    raise ValueError(f"not a median: {value!r}")


def _read(path: Path) -> tuple[dict[int, LogEntry], list[str]]:
    latest: dict[int, LogEntry] = {}
    problems: list[str] = []
    for index, line in enumerate(read_text(path, errors="replace").splitlines()):
        if not line.strip():
            continue
        try:
            data = bounded_json(line)
            entry = LogEntry(
                number=int(data["round"]),
                event=str(data["event"]),
                sha256=str(data["sha256"]),
                verdict=str(data.get("verdict") or ""),
                median_us=data.get("median_us"),
                record=dict(data["record"]),
            )
            if entry.record.get("number") != entry.number:  # `record: {}` is no round's record
                raise ValueError(f"the record is not round {entry.number}'s")
        except (ValueError, KeyError, TypeError) as error:
            problems.append(f"{path}:{index + 1}: unreadable log line ({error})")
            continue
        latest[entry.number] = entry
    return latest, problems


def differences(logged: dict[str, Any], found: dict[str, Any], limit: int = 6) -> list[str]:
    """What differs between the record as logged and as found, key by key (dotted)."""
    out: list[str] = []
    _compare("", logged, found, out)
    return out[:limit] + ([f"and {len(out) - limit} more"] if len(out) > limit else [])


def _compare(prefix: str, old: Any, new: Any, out: list[str]) -> None:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new), key=str):
            _compare(f"{prefix}{key}.", old.get(key), new.get(key), out)
        return
    if old != new:
        out.append(f"{prefix.rstrip('.')}: {_short(old)} as closed, now {_short(new)}")


def _short(value: Any) -> str:
    text = "none" if value is None else repr(value)
    return text if len(text) <= 40 else text[:39] + "…"
