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

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pto_tui.core.atomic import flush_to_disk
from pto_tui.core.errors import bounded_json, disk_full, read_text
from pto_tui.core.rounds.log_chain import Chain

LOG_NAME = "closed.log"
TORCH_EVENT = "torch"  # a line recording the torch baseline, not a round
HASHED = ("notes.md", "patch.diff", "files.txt", "row", "torch")  # what `hashes` covers


@dataclass(frozen=True)
class LogEntry:
    number: int
    event: str  # closed | amended | started | chained (the log begun or chained as found)
    sha256: str  # of the round.toml text
    verdict: str
    median_us: float | None
    record: dict[str, Any]  # the record as written (round_to_dict)
    # the SHA-256 of notes.md, patch.diff, files.txt, the ITERATIONS.md row ("row") and
    # the torch baseline ("torch"), "" for one that is absent; {} on a line from before
    hashes: dict[str, str] = field(default_factory=dict)
    seq: int = -1  # its place in the chain (-1: a line from before the chain)
    line: int = 0  # its line in the file (1-based)
    suspect: str = ""  # why the chain does not vouch for this line ("" when it does)


@dataclass(frozen=True)
class Prepared:
    """A line ready to append, its place in the chain and its hash."""

    entry: LogEntry
    torch: dict[str, Any] | None
    line: str
    seq: int
    digest: str


@dataclass
class LogRead:
    latest: dict[int, LogEntry]
    problems: list[str]
    chain: Chain
    last_line: str = ""  # the SHA-256 of the file's last line (what the next line names)


def line_hash(line: str) -> str:
    return hashlib.sha256(line.encode("utf-8")).hexdigest()


class ClosedLog:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._stamp: tuple[int, int, int] | None = None
        self._latest: dict[int, LogEntry] = {}
        self._problems: list[str] = []
        self._chain = Chain()
        self._partial = False  # the entries came from a summary: their records are not read
        self.version = 0  # counts the changes of what latest() gives
        self.distrusted: frozenset[int] = frozenset()  # seqs the anchor says pto-tui never wrote
        self._last_line_hash = ""  # what the next line names as `prev`

    def exists(self) -> bool:
        return self.path.is_file()

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
            self._stamp, self._latest, self._problems = None, {}, []
            self._chain, self._last_line_hash = Chain(), ""
            return {}, []
        if stamp != self._stamp:
            self._take(_read(self.path, self.distrusted))
            self._stamp, self._partial = stamp, False
            self.version += 1
        return dict(self._latest), list(self._problems)

    def reread(self) -> None:
        """Read the whole file again (the anchor changed what is trusted, or the seqs of
        the chain are needed: a summary does not keep them)."""
        if self._stat() is not None:
            self._take(_read(self.path, self.distrusted))
            self._stamp, self._partial = self._stat(), False
            self.version += 1

    def full_entry(self, number: int) -> LogEntry | None:
        """Round `number`'s newest entry with its record (read from the file when the
        entries came from a summary)."""
        if self._partial and self._stamp == self._stat():
            self._take(_read(self.path, self.distrusted))
            self._partial = False
        return self._latest.get(number)

    def summary(self) -> dict[str, Any] | None:
        """What latest() found, without the records, and the file's stamp (None before a read)."""
        if self._stamp is None:
            return None
        return {
            "stamp": list(self._stamp),
            "latest": {
                str(n): [e.event, e.sha256, e.verdict, e.median_us, e.hashes, e.seq, e.line, e.suspect]
                for n, e in self._latest.items()
            },
            "problems": list(self._problems),
            "chain": self._chain.summary(),
            "last_line": self._last_line_hash,
            "distrusted": sorted(self.distrusted),
        }

    def seed(self, summary: Any) -> None:
        """Take a summary() kept from an earlier read as what the file holds, if the file
        still has its stamp and nothing was read yet (anything unexpected: ignored)."""
        if self._stamp is not None or not isinstance(summary, dict):
            return
        try:
            stamp = tuple(int(v) for v in summary["stamp"])
            latest = {
                int(n): LogEntry(int(n), str(e[0]), str(e[1]), str(e[2]), _median(e[3]), {},
                                 {str(k): str(v) for k, v in dict(e[4]).items()}, int(e[5]),
                                 int(e[6]), str(e[7]))
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
            self._partial = True
            self.version += 1


def _median(value: Any) -> float | None:
    """A summary's median as the log line holds it (a number, or none)."""
    if value is None or (isinstance(value, int | float) and not isinstance(value, bool)):
        return value
    raise ValueError(f"not a median: {value!r}")


def read_log(path: Path, distrusted: frozenset[int] = frozenset()) -> LogRead:
    """The whole log read and its links checked, trusting no summary (`pto-tui verify`)."""
    return _read(path, distrusted)


def _read(path: Path, distrusted: frozenset[int] = frozenset()) -> LogRead:
    """Long on purpose: one pass; the chain's state (the last hash and seq, the lines
    before the chain, the entry to undo at a break) changes at every line. A line whose
    seq or prev does not follow the line before it is a break, and the two lines at the
    break are suspect. `distrusted`: seqs the anchor says are not pto-tui's."""
    latest: dict[int, LogEntry] = {}
    problems: list[str] = []
    chain = Chain()
    prefix = hashlib.sha256()
    last_hash, last_seq = "", -1
    # the previous line's round and the entry it replaced, to undo when a break follows it
    undo: tuple[int, LogEntry | None] | None = None
    where = f"runs/{path.name}"
    for index, line in enumerate(read_text(path, errors="replace").splitlines()):
        if not line.strip():
            continue
        digest = line_hash(line)
        number = index + 1
        try:
            data = bounded_json(line)
            if not isinstance(data, dict):
                raise TypeError("not an object")
            chained = "seq" in data
            seq = int(data["seq"]) if chained else -1
            prev = str(data.get("prev", ""))
            event = str(data["event"])
            entry = LogEntry(
                number=int(data["round"]),
                event=event,
                sha256=str(data.get("sha256", "")),
                verdict=str(data.get("verdict") or ""),
                median_us=_median(data.get("median_us")),
                record=dict(data["record"]) if event != TORCH_EVENT else {},
                hashes={str(k): str(v) for k, v in dict(data.get("hashes") or {}).items()},
                seq=seq,
                line=number,
            )
            torch = data.get("torch_baseline")
            if torch is not None and not isinstance(torch, dict):
                raise TypeError("torch_baseline is not a table")
            if event != TORCH_EVENT and entry.record.get("number") != entry.number:
                raise ValueError(f"the record is not round {entry.number}'s")  # `record: {}`
        except (ValueError, KeyError, TypeError) as error:
            problems.append(f"{path}:{number}: unreadable log line ({error})")
            if chain.entries:
                chain.breaks.append(f"{where}:{number}: unreadable line inside the chain")
            else:  # before the chain: covered by the first chained line's prev
                chain.unchained += 1
                prefix.update((line + "\n").encode("utf-8"))
            last_hash = digest
            continue
        suspect = ""
        if not chained:
            if chain.entries:  # a line without a place in the chain, after it began
                suspect = f"{where}:{number} is not in the chain (written by hand)"
                chain.breaks.append(suspect)
            else:
                chain.unchained += 1
                prefix.update((line + "\n").encode("utf-8"))
        else:
            expected_prev = last_hash if chain.entries else (prefix.hexdigest() if chain.unchained else "")
            if seq != last_seq + 1:  # this line is out of its place
                suspect = (f"{where}:{number}: the chain is broken (entry {seq} follows entry "
                           f"{last_seq}: a line removed, inserted or moved)")
                chain.breaks.append(suspect)
            elif prev != expected_prev:  # the line before it changed (or this one)
                suspect = (f"{where}:{number}: the chain is broken (entry {seq} does not name "
                           "the hash of the line before it: a line rewritten)")
                chain.breaks.append(suspect)
                if undo is not None:
                    before, replaced = undo
                    if replaced is None:
                        latest.pop(before, None)
                    else:
                        latest[before] = replaced
                    _note_suspect(latest, before, suspect)
            elif seq in distrusted:
                suspect = (f"{where}:{number}: entry {seq} was not written by pto-tui "
                           "(after the anchored head)")
            chain.entries += 1
            chain.seqs.setdefault(seq, digest)
            if seq > chain.head_seq:  # the head: the highest entry (pto-tui appends after it)
                chain.head_seq, chain.head = seq, digest
            last_seq = max(last_seq, seq)
        last_hash = digest
        undo = None
        if event == TORCH_EVENT:
            if not suspect:
                chain.torch, chain.torch_logged = torch, True
            continue
        if chained and not suspect:
            chain.torch_logged = True
        if suspect:
            _note_suspect(latest, entry.number, suspect)
            continue
        undo = (entry.number, latest.get(entry.number))
        latest[entry.number] = entry
    chain.prefix = prefix.hexdigest() if chain.unchained else ""
    # a first chained line after unchained ones names the hash of all of them
    return LogRead(latest, problems, chain, last_hash if chain.entries else chain.prefix)


def _note_suspect(latest: dict[int, LogEntry], number: int, why: str) -> None:
    """Round `number` keeps its newest trusted entry (a placeholder when it has none),
    marked with why a later line of it is not trusted."""
    known = latest.get(number)
    if known is None:
        latest[number] = LogEntry(number, "suspect", "", "", None, {}, {}, -1, 0, why)
    elif not known.suspect:
        latest[number] = LogEntry(known.number, known.event, known.sha256, known.verdict,
                                  known.median_us, known.record, known.hashes, known.seq,
                                  known.line, why)
