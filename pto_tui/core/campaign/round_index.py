"""A summary of every parsed round.toml kept beside the records (`.pto-tui/rounds-index.json`),
so a command reads the ledger without parsing a thousand TOML files again.

Never the source of truth: an entry is used only while its round.toml has the same stamp
(modification time in ns, size, inode) as when it was parsed; anything else is parsed
from the file and the index is rewritten. A missing, stale or unreadable index is
rebuilt from the records.

It also keeps what the last read of runs/closed.log found, without the records (each
round's newest line: its hash, event, verdict, median), with the log's stamp: a command
takes it instead of decoding the whole log while the log keeps that stamp
(`ClosedLog.seed`).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pto_tui.core.atomic import atomic_write_text
from pto_tui.core.errors import DiskFullError, read_text, strict_json
from pto_tui.core.rounds.numbering import Stamp
from pto_tui.core.rounds.record_toml import round_from_dict, round_to_dict
from pto_tui.core.rounds.records import Round

INDEX_FILE = "rounds-index.json"
VERSION = 1


@dataclass(frozen=True)
class Indexed:
    stamp: Stamp
    sha: str
    data: dict[str, Any]  # the record as round_to_dict gives it

    def record(self) -> Round | None:
        try:
            return round_from_dict(self.data)
        except (KeyError, ValueError, TypeError, RecursionError):
            return None  # an index from another pto-tui (or hand-made): parse the file instead


class RoundIndex:
    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / INDEX_FILE
        self._changed = False
        self._log: Any = None  # the closed log's summary (ClosedLog.summary)
        # per round: its side files' stamps when they last hashed as logged (a shortcut
        # for status; `pto-tui verify` hashes them every time)
        self._sides: dict[str, Any] = {}

    @functools.cached_property
    def _entries(self) -> dict[int, Indexed]:
        """Read at first use: a command that looks at one round parses no index."""
        return self._read()

    def _read(self) -> dict[int, Indexed]:
        try:
            # pto-tui's own cache, the largest state file: decoded without the nesting walk
            # (a hostile nesting fails the decoder or a record's typed read: rebuilt either way)
            data = strict_json(read_text(self.path))
            if data.get("version") != VERSION:
                return {}
            entries = {
                int(n): Indexed(tuple(e["stamp"]), str(e["sha"]), dict(e["data"]))
                for n, e in data["rounds"].items()
            }
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return {}  # missing or unreadable: rebuilt from the records
        self._log = data.get("log")  # checked by ClosedLog.seed, which ignores a bad one
        sides = data.get("sides")
        self._sides = sides if isinstance(sides, dict) else {}
        return entries

    def sides_ok(self, number: int) -> Any:
        """What set_sides_ok kept for round `number` (None when nothing)."""
        _ = self._entries  # the file read
        return self._sides.get(str(number))

    def set_sides_ok(self, number: int, key: Any) -> None:
        if self.sides_ok(number) != key:
            self._sides[str(number)] = key
            self._changed = True

    def log_summary(self) -> Any:
        """The closed log's summary as the index keeps it (None when it keeps none)."""
        _ = self._entries  # the file read
        return self._log

    def set_log(self, summary: dict[str, Any] | None) -> None:
        if summary is not None and summary != self.log_summary():
            self._log = summary
            self._changed = True

    def get(self, number: int, stamp: Stamp | None) -> tuple[Round, str] | None:
        """The record and sha of round `number` if its file still has `stamp`."""
        entry = self._entries.get(number)
        if entry is None or stamp is None or tuple(entry.stamp) != tuple(stamp):
            return None
        record = entry.record()
        return (record, entry.sha) if record is not None else None

    def put(
        self, number: int, stamp: Stamp, sha: str, record: Round, data: dict[str, Any] | None = None
    ) -> None:
        """Index the record (`data`: its round_to_dict, when the caller has it already)."""
        self._entries[number] = Indexed(stamp, sha, data if data is not None else round_to_dict(record))
        self._changed = True

    def keep_only(self, numbers: set[int]) -> None:
        for gone in set(self._entries) - numbers:
            del self._entries[gone]
            self._sides.pop(str(gone), None)
            self._changed = True

    def save(self) -> None:
        """Write the index if anything changed; a failure to write only costs speed."""
        if not self._changed or not self.path.parent.is_dir():
            return
        rounds = {
            str(n): {"stamp": list(e.stamp), "sha": e.sha, "data": e.data} for n, e in self._entries.items()
        }
        try:
            document = {"version": VERSION, "rounds": rounds, "log": self._log, "sides": self._sides}
            atomic_write_text(self.path, json.dumps(document))
            self._changed = False
        except (OSError, DiskFullError):  # a full disk too: a read command still answers
            pass
