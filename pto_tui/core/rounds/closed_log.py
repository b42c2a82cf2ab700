"""runs/closed.log: an append-only, hash-chained log of every closed round as pto-tui wrote it.

round.toml, notes.md, patch.diff, files.txt and ITERATIONS.md are plain text a person or an
agent can rewrite; the log is what makes such a rewrite visible. Every time pto-tui saves a
closed record (the close itself, an amendment, a confirmed review) it appends one JSON
line: the round, the event, its verdict and median, the SHA-256 of the round.toml text
written, the whole record, and the SHA-256 of the round's notes.md, patch.diff, files.txt
and ITERATIONS.md row and of the campaign's torch baseline (`hashes`). A torch baseline set
is logged too (event `torch`, the baseline in the line). The newest line of a round is the
round as pto-tui last closed it: a round.toml that no longer hashes to it, or that is gone,
is tampered, and the campaign's counts and rules use the logged record instead.

The chain: every line carries its sequence number (`seq`, from 0) and the SHA-256 of the
line before it (`prev`; the first chained line names the hash of everything before it, the
lines of a log from before the chain). A line rewritten, removed, inserted or moved breaks
a link, which a read names by file and line; the lines around a break are not trusted.
What the links cannot show (the whole chain recomputed, lines appended with good links, the
log cut short or deleted) the anchor shows: pto-tui keeps the chain's head (sequence and
hash) outside the project, in its home (`core/rounds/history.py`), moved at every append.

What it protects against, and what it cannot, is said in history.py; besides, between two
reads of `status` a side file edited with its size and modification time kept is not seen
(status compares stamps; `pto-tui verify` hashes every file).

What a read found can be kept as a summary (`summary` / `seed`: each round's newest line
without its record, the chain's head, the file's stamp), so a 1,000-round ledger is not
decoded again while the file is unchanged (`full_entry` reads a record when asked for).
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pto_tui.core.atomic import flush_to_disk
from pto_tui.core.errors import disk_full
from pto_tui.core.rounds import log_lines
from pto_tui.core.rounds.log_chain import Chain
from pto_tui.core.rounds.log_lines import TORCH_EVENT, LogEntry, LogRead, hashes_of, line_hash, median_of

LOG_NAME = "closed.log"
HASHED = ("notes.md", "patch.diff", "files.txt", "row", "torch")  # what `hashes` covers


@dataclass(frozen=True)
class Prepared:
    """A line ready to append, its place in the chain and its hash."""

    entry: LogEntry
    torch: dict[str, Any] | None
    line: str
    seq: int
    digest: str


class ClosedLog:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._stamp: tuple[int, int, int] | None = None
        # each round's newest entry, kept without its record (a read keeps none: 10,000
        # records are 30 MiB); full_entry reads one from its line when asked for
        self._latest: dict[int, LogEntry] = {}
        self._problems: list[str] = []
        self._chain = Chain()
        # the entries are a summary's of some rounds only (a snapshot's working set): a
        # round outside them is read from the file when asked for
        self.subset = False
        self.version = 0  # counts the changes of what latest() gives
        self.distrusted: frozenset[int] = frozenset()  # seqs the anchor says pto-tui never wrote
        self._last_line_hash = ""  # what the next line names as `prev`

    def exists(self) -> bool:
        return self.path.is_file()

    @property
    def known(self) -> bool:
        """The file was read, or a summary of it taken, and is not gone since."""
        return self._stamp is not None

    def chain(self) -> Chain:
        """The chain as the last latest() read it."""
        return self._chain

    def append(self, entry: LogEntry, torch: dict[str, Any] | None = None) -> tuple[int, str]:
        """One line, appended and flushed to disk: the log is never rewritten. It follows
        the last line of the file (its seq and hash). Returns its (seq, hash)."""
        return self.write(self.prepare(entry, torch))

    def prepare(self, entry: LogEntry, torch: dict[str, Any] | None = None) -> Prepared:
        """The line `append` would write now, and its (seq, hash), nothing written: the
        anchor can name it before it is in the file."""
        self.latest()  # the chain's head (read only when the file changed)
        data: dict[str, Any] = {
            "round": entry.number,
            "event": entry.event,
            "sha256": entry.sha256,
            "verdict": entry.verdict,
            "median_us": entry.median_us,
            "record": entry.record,
            "hashes": entry.hashes,
            "seq": self._chain.head_seq + 1,
            "prev": self._last_line_hash,
        }
        if torch is not None or entry.event == TORCH_EVENT:
            data["torch_baseline"] = torch
        line = json.dumps(data, sort_keys=True)
        return Prepared(entry, torch, line, self._chain.head_seq + 1, line_hash(line))

    def write(self, prepared: Prepared) -> tuple[int, str]:
        """Append a prepared line (the log as it was when prepared)."""
        entry, torch, chain = prepared.entry, prepared.torch, self._chain
        known = self._stamp is not None and self._stamp == self._stat()
        self._write_line(prepared.line)
        seq, digest = prepared.seq, prepared.digest
        if known:  # what was read plus this line: the log is not read again for it
            chain.entries += 1
            chain.head_seq, chain.head = seq, digest
            chain.seqs[seq] = digest
            self._last_line_hash = digest
            if entry.event == TORCH_EVENT:
                chain.torch, chain.torch_logged = torch, True
            else:
                self._latest[entry.number] = LogEntry(
                    entry.number, entry.event, entry.sha256, entry.verdict, entry.median_us,
                    entry.record, dict(entry.hashes), seq,
                )
            self._stamp = self._stat()
            self.version += 1
        return seq, digest

    def append_line(self, line: str) -> None:
        """A line pto-tui prepared and kept in its anchor, appended as it is (a close the
        anchor knows but the log missed); the log is read again at the next latest()."""
        self._write_line(line)
        self._stamp = None

    def _write_line(self, line: str) -> None:
        """A line written whole and flushed, or cut back off: a full disk never leaves
        half a line, which would break the chain."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as handle:
            size = handle.tell()
            try:
                handle.write(line + "\n")
                handle.flush()
                flush_to_disk(handle.fileno())
            except OSError as error:
                os.truncate(self.path, size)
                raise disk_full(error, self.path) or error from None

    def _stat(self) -> tuple[int, int, int] | None:
        try:
            info = self.path.stat()
        except FileNotFoundError:
            return None
        return (info.st_mtime_ns, info.st_size, info.st_ino)

    def _take(self, found: LogRead) -> None:
        self._latest, self._problems, self._chain = found.latest, found.problems, found.chain
        self._last_line_hash = found.last_line

    def latest(self) -> tuple[dict[int, LogEntry], list[str]]:
        """The newest entry of every logged round, and the lines that could not be read
        (each naming the file and line). Re-read only when the file changed."""
        stamp = self._stat()
        if stamp is None:
            self.version += self._stamp is not None
            self._stamp, self._latest, self._problems, self.subset = None, {}, [], False
            self._chain, self._last_line_hash = Chain(), ""
            return {}, []
        if stamp != self._stamp:
            self._take(log_lines.read_lines(self.path, self.distrusted, records=False))
            self._stamp, self.subset = stamp, False
            self.version += 1
        return dict(self._latest), list(self._problems)

    def reread(self, *, records: bool = False) -> None:
        """Read the whole file again (the anchor changed what is trusted, or the seqs of
        the chain are needed: a summary does not keep them); `records`: every entry with
        its record (the log chained again, line by line)."""
        if self._stat() is not None:
            self._take(log_lines.read_lines(self.path, self.distrusted, records=records))
            self._stamp, self.subset = self._stat(), False
            self.version += 1

    def full_entry(self, number: int) -> LogEntry | None:
        """Round `number`'s newest entry with its record, read from its line when the entry
        was kept without it (as it is when the file changed since: latest() reads again)."""
        unchanged = self._stamp is not None and self._stamp == self._stat()
        if unchanged and self.subset and number not in self._latest:
            self._take(log_lines.read_lines(self.path, self.distrusted, records=False))  # a round outside it
            self.subset = False
        entry = self._latest.get(number)
        if entry is None or entry.record or entry.event == "suspect" or not unchanged:
            return entry
        return log_lines.line_record(self.path, entry) or entry

    def summary(self, numbers: set[int] | None = None) -> dict[str, Any] | None:
        """What latest() found, without the records, and the file's stamp (None before a
        read, and for a subset unless asked for `numbers`): the entries of `numbers`
        only when given."""
        if self._stamp is None or (self.subset and numbers is None):
            return None
        return {
            "stamp": list(self._stamp),
            "latest": {
                str(n): [e.event, e.sha256, e.verdict, e.median_us, e.hashes, e.seq, e.line, e.suspect]
                for n, e in self._latest.items() if numbers is None or n in numbers
            },
            "problems": list(self._problems),
            "chain": self._chain.summary(),
            "last_line": self._last_line_hash,
            "distrusted": sorted(self.distrusted),
        }

    def seed(self, summary: Any, *, subset: bool = False) -> None:
        """Take a summary() kept from an earlier read as what the file holds, if the file
        still has its stamp and nothing was read yet (anything unexpected: ignored).
        `subset`: the summary holds some rounds' entries only."""
        if self._stamp is not None or not isinstance(summary, dict):
            return
        try:
            stamp = tuple(int(v) for v in summary["stamp"])
            latest = {
                int(n): LogEntry(int(n), sys.intern(str(e[0])), str(e[1]), sys.intern(str(e[2])),
                                 median_of(e[3]), {}, hashes_of(e[4]), int(e[5]), int(e[6]),
                                 str(e[7]))
                for n, e in summary["latest"].items()
            }
            problems = [str(p) for p in summary["problems"]]
            chain = Chain.from_summary(summary["chain"])
            last_line = str(summary["last_line"])
            distrusted = frozenset(int(s) for s in summary["distrusted"])
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            return
        if len(stamp) == 3 and stamp == self._stat() and distrusted == self.distrusted:
            self._stamp, self._latest, self._problems = (stamp[0], stamp[1], stamp[2]), latest, problems
            self._chain, self._last_line_hash = chain, last_line
            self.subset = subset
            self.version += 1


def read_log(path: Path, distrusted: frozenset[int] = frozenset()) -> LogRead:
    """The whole log read and its links checked, trusting no summary (`pto-tui verify`)."""
    return log_lines.read_lines(path, distrusted)
