"""A summary of every parsed round.toml kept beside the records, so a command reads the
ledger without parsing a thousand TOML files again.

Never the source of truth: an entry is used only while its round.toml has the same stamp
(modification time in ns, size, inode) as when it was parsed; anything else is parsed
from the file and the index is rewritten. A missing, stale or unreadable index is
rebuilt from the records.

The records are kept in shards of SHARD rounds (`.pto-tui/rounds-index/NNNN.json`): a
command that writes one round rewrites one shard, and one that shows one round reads
one, at any size of campaign. The head (`.pto-tui/rounds-index.json`) names the
generation the shards belong to: a head that is missing or broken disowns every shard.

Beside the shards (`log.json`) it also keeps what the last read of runs/closed.log found,
without the records (each round's newest line: its hash, event, verdict, median), with
the log's stamp: a command takes it instead of decoding the whole log while the log keeps
that stamp (`ClosedLog.seed`).
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pto_tui.core.atomic import atomic_write_text
from pto_tui.core.errors import DiskFullError, read_text, strict_json
from pto_tui.core.rounds.hashes import sha256_text
from pto_tui.core.rounds.numbering import Stamp
from pto_tui.core.rounds.record_toml import round_from_dict, round_to_dict
from pto_tui.core.rounds.records import Round

INDEX_FILE = "rounds-index.json"
SHARDS_DIR = "rounds-index"
VERSION = 2
SHARD = 256  # rounds a shard holds: one write rewrites at most this many entries
LOG_FILE = "log.json"  # beside the shards: runs/closed.log's summary


@dataclass(frozen=True, slots=True)
class Indexed:
    stamp: Stamp
    sha: str
    data: dict[str, Any]  # the record as round_to_dict gives it

    def record(self) -> Round | None:
        try:
            return round_from_dict(self.data)
        except (KeyError, ValueError, TypeError, RecursionError):
            return None  # an index from another pto-tui (or hand-made): parse the file instead


class _Shard:
    """The entries of SHARD consecutive rounds, read at first use."""

    def __init__(self, path: Path, generation: str) -> None:
        self.path = path
        self.generation = generation
        self.changed = False
        self._entries: dict[int, Indexed] | None = None
        # per round: its side files' stamps when they hashed as logged
        self._sides: dict[str, Any] | None = None

    @property
    def entries(self) -> dict[int, Indexed]:
        if self._entries is None:
            self._load()
        assert self._entries is not None
        return self._entries

    @property
    def sides(self) -> dict[str, Any]:
        if self._sides is None:
            self._load()
        assert self._sides is not None
        return self._sides

    @property
    def entries_held(self) -> bool:
        return self._entries is not None

    def let_go(self) -> None:
        """Forget the entries unless written since (read again when asked for); the
        sides, a read's next step, are kept."""
        if not self.changed:
            self._entries = None

    def _load(self) -> None:
        """Both parts from one read of the file (missing, unreadable or another
        generation's: empty, rebuilt from the records)."""
        self._entries, self._sides = {}, {}
        try:
            data = strict_json(read_text(self.path))
            if data.get("version") == VERSION and data.get("generation") == self.generation:
                self._entries = {int(n): Indexed(tuple(e["stamp"]), str(e["sha"]), dict(e["data"]))
                                 for n, e in data["rounds"].items()}
                sides = data.get("sides")
                self._sides = sides if isinstance(sides, dict) else {}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            self._entries = {}

    def save(self) -> None:
        rounds = {str(n): {"stamp": list(e.stamp), "sha": e.sha, "data": e.data}
                  for n, e in sorted(self.entries.items())}
        document = {"version": VERSION, "generation": self.generation, "rounds": rounds,
                    "sides": self.sides}
        atomic_write_text(self.path, json.dumps(document))
        self.changed = False


class RoundIndex:
    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / INDEX_FILE
        self.shards_dir = state_dir / SHARDS_DIR
        self._changed = False
        # the closed log's summary (ClosedLog.summary) as the file is to hold it, until
        # saved; and the digest of the file's text (None: not read yet). A summary of
        # 10,000 rounds is 6 MiB decoded: it is compared by digest, never kept decoded
        self._log_text: str | None = None
        self._log_digest: str | None = None
        self._shards: dict[int, _Shard] = {}

    @property
    def log_path(self) -> Path:
        return self.shards_dir / LOG_FILE

    @functools.cached_property
    def _generation(self) -> str:
        """The shards' generation the head names (a new one when the head is unusable):
        read at first use, so a command that looks at nothing parses no index."""
        try:
            data = strict_json(read_text(self.path))
            if data.get("version") == VERSION and isinstance(data.get("generation"), str):
                return str(data["generation"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            pass
        self._changed = True  # missing or unreadable: a new generation, every shard rebuilt
        return os.urandom(8).hex()  # as secrets.token_hex, without importing random

    def _log_read(self, *, decode: bool = True) -> Any:
        """The log's summary as kept (its generation's only), read again at every call: a
        campaign asks for it once, to seed the log."""
        try:
            text = self._log_text if self._log_text is not None else read_text(self.log_path)
        except OSError:
            text = ""
        if self._log_text is None:
            self._log_digest = sha256_text(text)
        if not decode:
            return None
        try:
            # pto-tui's own cache, the largest state file: decoded without the nesting walk
            # (a hostile nesting fails the decoder: read from the log instead)
            data = strict_json(text)
            return data.get("log") if data.get("generation") == self._generation else None
        except (ValueError, AttributeError):
            return None

    def _shard(self, number: int) -> _Shard:
        key = number // SHARD
        shard = self._shards.get(key)
        if shard is None:
            shard = _Shard(self.shards_dir / f"{key:04d}.json", self._generation)
            self._shards[key] = shard
        return shard

    def sides_ok(self, number: int) -> Any:
        """What set_sides_ok kept for round `number` (None when nothing)."""
        return self._shard(number).sides.get(str(number))

    def set_sides_ok(self, number: int, key: Any) -> None:
        if self.sides_ok(number) != key:
            shard = self._shard(number)
            shard.sides[str(number)] = key
            shard.changed = True

    def log_summary(self) -> Any:
        """The closed log's summary as the index keeps it (None when it keeps none)."""
        return self._log_read()

    def set_log(self, summary: dict[str, Any] | None) -> None:
        if summary is None:
            return
        text = json.dumps({"generation": self._generation, "log": summary})
        if self._log_text is None and self._log_digest is None:
            self._log_read(decode=False)
        if sha256_text(text) != (sha256_text(self._log_text) if self._log_text is not None
                                 else self._log_digest):
            self._log_text = text

    def get(self, number: int, stamp: Stamp | None) -> tuple[Round, str] | None:
        """The record and sha of round `number` if its file still has `stamp`."""
        entry = self.entry(number, stamp)
        record = entry.record() if entry is not None else None
        return (record, entry.sha) if entry is not None and record is not None else None

    def entry(self, number: int, stamp: Stamp | None) -> Indexed | None:
        """Round `number`'s entry, unparsed, if its file still has `stamp`."""
        entry = self._shard(number).entries.get(number)
        if entry is None or stamp is None or tuple(entry.stamp) != tuple(stamp):
            return None
        return entry

    def entries(self, numbers: list[int]) -> Iterator[tuple[int, Indexed | None]]:
        """The entries of `numbers` (ascending), unparsed and unchecked, a shard at a
        time: a shard read is let go once its rounds are passed."""
        for index, number in enumerate(numbers):
            shard = self._shard(number)
            yield number, shard.entries.get(number)
            following = numbers[index + 1] if index + 1 < len(numbers) else None
            if not shard.changed and (following is None or following // SHARD != number // SHARD):
                del self._shards[number // SHARD]

    def put(
        self, number: int, stamp: Stamp, sha: str, record: Round, data: dict[str, Any] | None = None
    ) -> None:
        """Index the record (`data`: its round_to_dict, when the caller has it already)."""
        shard = self._shard(number)
        shard.entries[number] = Indexed(stamp, sha, data if data is not None else round_to_dict(record))
        shard.changed = True

    def in_order(self, numbers: list[int]) -> Iterator[int]:
        """`numbers` (ascending), each shard's entries let go once its rounds are passed: a
        whole read holds one shard's at a time."""
        for index, number in enumerate(numbers):
            yield number
            following = numbers[index + 1] if index + 1 < len(numbers) else None
            shard = self._shards.get(number // SHARD)
            if shard is not None and (following is None or following // SHARD != number // SHARD):
                shard.let_go()

    def release(self) -> None:
        """Write what changed and let go of every shard read (read again when asked for):
        what a whole read took from them is in the records now."""
        self.save()
        self._shards = {key: shard for key, shard in self._shards.items() if shard.changed}

    def keep_only(self, numbers: set[int]) -> None:
        """Forget the rounds not in `numbers` (in the shards read: a round folder removed
        leaves at most a stale entry, never used, since no file has its stamp)."""
        for shard in self._shards.values():
            if not shard.entries_held:  # a stale entry is never used: no file has its stamp
                continue
            for gone in set(shard.entries) - numbers:
                del shard.entries[gone]
                shard.sides.pop(str(gone), None)
                shard.changed = True

    def save(self) -> None:
        """Write what changed; a failure to write only costs speed."""
        if not self.path.parent.is_dir():
            return
        try:
            changed = [s for s in self._shards.values() if s.changed]
            if changed or self._log_text is not None:
                self.shards_dir.mkdir(exist_ok=True)
            for shard in changed:
                shard.save()
            if self._log_text is not None:
                atomic_write_text(self.log_path, self._log_text)
                self._log_digest, self._log_text = sha256_text(self._log_text), None
            if self._changed:
                document = {"version": VERSION, "generation": self._generation}
                atomic_write_text(self.path, json.dumps(document))
                self._changed = False
        except (OSError, DiskFullError):  # a full disk too: a read command still answers
            pass
