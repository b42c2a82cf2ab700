"""runs/closed.log's lines: the entry each holds, and the one pass over the file that
reads them and checks the chain's links (closed_log.py keeps what it found)."""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pto_tui.core.errors import bounded_json, read_text
from pto_tui.core.rounds.log_chain import Chain

TORCH_EVENT = "torch"  # a line recording the torch baseline, not a round


@dataclass(frozen=True, slots=True)
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


@dataclass
class LogRead:
    latest: dict[int, LogEntry]
    problems: list[str]
    chain: Chain
    last_line: str = ""  # the SHA-256 of the file's last line (what the next line names)


def line_hash(line: str) -> str:
    return hashlib.sha256(line.encode("utf-8")).hexdigest()


def hashes_of(value: Any) -> dict[str, str]:
    """A line's `hashes` (its names interned: every line of 10,000 names the same five)."""
    return {sys.intern(str(k)): str(v) for k, v in dict(value or {}).items()}


def median_of(value: Any) -> float | None:
    """A summary's median as the log line holds it (a number, or none)."""
    if value is None or (isinstance(value, int | float) and not isinstance(value, bool)):
        return value
    raise ValueError(f"not a median: {value!r}")


def line_record(path: Path, entry: LogEntry) -> LogEntry | None:
    """`entry` with the record of its line (at `entry.line`, else the newest line of the
    same round, seq and hash); None when no line of the file is it."""
    lines = read_text(path, errors="replace").splitlines()
    at = [entry.line - 1] if 0 < entry.line <= len(lines) else []
    for index in [*at, *range(len(lines) - 1, -1, -1)]:
        if str(entry.number) not in lines[index]:  # not worth decoding
            continue
        try:
            data = bounded_json(lines[index])
            if (isinstance(data, dict) and data.get("round") == entry.number
                    and data.get("sha256") == entry.sha256 and data.get("seq", -1) == entry.seq
                    and isinstance(data.get("record"), dict)):
                return replace(entry, record=dict(data["record"]), line=index + 1)
        except (ValueError, TypeError):
            continue
    return None


def read_lines(path: Path, distrusted: frozenset[int] = frozenset(), *, records: bool = True) -> LogRead:
    """Long on purpose: one pass; the chain's state (the last hash and seq, the lines
    before the chain, the entry to undo at a break) changes at every line. A line whose
    seq or prev does not follow the line before it is a break, and the two lines at the
    break are suspect. `distrusted`: seqs the anchor says are not pto-tui's. `records`:
    keep each entry's record (else {}: full_entry reads it when asked for)."""
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
            event = sys.intern(str(data["event"]))
            entry = LogEntry(
                number=int(data["round"]),
                event=event,
                sha256=str(data.get("sha256", "")),
                verdict=sys.intern(str(data.get("verdict") or "")),
                median_us=median_of(data.get("median_us")),
                record=dict(data["record"]) if event != TORCH_EVENT and records else {},
                hashes=hashes_of(data.get("hashes")),
                seq=seq,
                line=number,
            )
            torch = data.get("torch_baseline")
            if torch is not None and not isinstance(torch, dict):
                raise TypeError("torch_baseline is not a table")
            if event != TORCH_EVENT and dict(data["record"]).get("number") != entry.number:
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
                    note_suspect(latest, before, suspect)
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
            note_suspect(latest, entry.number, suspect)
            continue
        undo = (entry.number, latest.get(entry.number))
        latest[entry.number] = entry
    chain.prefix = prefix.hexdigest() if chain.unchained else ""
    # a first chained line after unchained ones names the hash of all of them
    return LogRead(latest, problems, chain, last_hash if chain.entries else chain.prefix)


def note_suspect(latest: dict[int, LogEntry], number: int, why: str) -> None:
    """Round `number` keeps its newest trusted entry (a placeholder when it has none),
    marked with why a later line of it is not trusted."""
    known = latest.get(number)
    if known is None:
        latest[number] = LogEntry(number, "suspect", "", "", None, {}, {}, -1, 0, why)
    elif not known.suspect:
        latest[number] = LogEntry(known.number, known.event, known.sha256, known.verdict,
                                  known.median_us, known.record, known.hashes, known.seq,
                                  known.line, why)
