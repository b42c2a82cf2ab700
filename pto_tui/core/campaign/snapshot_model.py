"""The read model's side of the snapshot (core/campaign/snapshot.py): made by a whole
read, taken by the next command's first read when the files it is keyed by are as it
says, kept up to date by the writes made on it (snapshot_reads.py does the work on the
records; this is what the read model holds of it)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from pto_tui.core.campaign import rows_cache, snapshot, snapshot_reads
from pto_tui.core.campaign.ledger_reads import Entry, Read
from pto_tui.core.campaign.snapshot import Snapshot
from pto_tui.core.rounds.ledger import LedgerProblems
from pto_tui.core.rounds.numbering import Stamp
from pto_tui.core.rounds.records import Round

if TYPE_CHECKING:
    from pto_tui.core.campaign.round_index import RoundIndex
    from pto_tui.core.rounds.history import History
    from pto_tui.core.rounds.ledger import Ledger
    from pto_tui.core.rounds.log_lines import LogEntry

# what `status` takes from a snapshot: the working set, the problems, the counts, and
# ITERATIONS.md's rows as checked (rows_check)
StatusParts = tuple[list[Round], LedgerProblems, dict[str, int], dict[str, list[int]]]


class SnapshotSide:
    """Mixed into LedgerReadModel, whose fields and reads it shares."""

    _ledger: Ledger
    _index: RoundIndex
    _lock: threading.RLock
    _local: threading.local
    _entries: dict[int, Entry]
    _last: Read | None
    _runs_stamp: tuple[int, int] | None
    _snapshot: Snapshot | None
    _snapshot_read_once: bool
    history: History | None

    def _read_disk(self, *, light: bool = False) -> Read:
        raise NotImplementedError

    def _logged(self) -> tuple[dict[int, LogEntry], list[str]]:
        raise NotImplementedError

    def _entry(self, number: int) -> Entry | None:
        raise NotImplementedError

    def _check(self, number: int, entry: Entry | None, logged: dict[int, LogEntry],
               log_lost: bool) -> Round | None:
        raise NotImplementedError

    def current(self) -> tuple[list[Round], LedgerProblems]:
        raise NotImplementedError

    def _make_snapshot(self, read: Read, base: snapshot_reads.Base) -> None:
        """Keep what this whole read found for the next command, when nothing was wrong
        with the records (a problem is named by a whole read at every command)."""
        held = self._snapshot
        if (held is not None and held.key == base.key and held.numbers == base.numbers
                and held.hashes == base.hashes):
            return  # the disk is as the snapshot this process holds says: it stands
        history = self.history
        clean = (not read.problems.unreadable and not read.log_lost and history is not None
                 and read.problems.notices == history.notices)
        made = None
        if clean and history is not None and read.counts is not None:
            made = snapshot_reads.build(
                base, [read.rounds[n] for n in sorted(read.rounds)], unsealed=self._unsealed(read),
                counts=read.counts, missing=read.problems.missing, history=history, ledger=self._ledger)
        self._snapshot = made
        snapshot.save(self._ledger.layout.state_dir, made)

    def _unsealed(self, read: Read) -> dict[int, tuple[Stamp, str]]:
        """The stamp and sha of each round a write looks at again (not in runs/closed.log:
        open, or never closed by pto-tui), as read."""
        logged, _problems = self._logged()
        out = {}
        for number in sorted(read.unsealed):
            entry = self._entries.get(number)
            if number not in logged and entry is not None and entry.stamp is not None:
                out[number] = (entry.stamp, entry.sha)
        return out

    def _kept_snapshot(self) -> Snapshot | None:
        """The snapshot this process holds, else the one on disk (read once)."""
        if self._snapshot is None and not self._snapshot_read_once:
            self._snapshot_read_once = True
            self._snapshot = snapshot.load(self._ledger.layout.state_dir)
        return self._snapshot

    def _from_snapshot(self, *, scanned: bool) -> Read | None:
        """The snapshot's working set as this command's read, when the files it is keyed
        by are as it says (`scanned`: every round folder's files too); None otherwise."""
        kept = self._kept_snapshot()
        if kept is None or snapshot_reads.key_of(self._ledger) != kept.key:
            return None
        if scanned and snapshot.scan(self._ledger.layout.runs, kept.numbers, kept.marks) != kept.hashes:
            return None
        log = self._ledger.closed_log
        if not log.known:
            log.seed(kept.log, subset=True)
        if not log.known or not log.subset:
            return None
        self.history = snapshot_reads.history_of(kept.history)
        self._runs_stamp = self._ledger.runs_stamp()
        rounds = snapshot_reads.checked_rounds(kept)
        logged, _problems = log.latest()
        for number, (stamp, sha) in kept.unsealed.items():
            if number not in rounds:
                return None
            self._entries[number] = Entry(tuple(stamp), snapshot_reads.as_found(rounds[number]), None, sha)
            record = self._check(number, self._entry(number), logged, False)
            if record is None:
                rounds.pop(number)
            else:
                rounds[number] = record
        self._last = Read(rounds, LedgerProblems(missing=list(kept.missing)), False, log.version,
                           set(kept.unsealed), counts=dict(kept.counts), partial=True,
                           numbers=list(kept.numbers))
        return self._last

    def snapshot_status(self, *, scanned: bool = True) -> StatusParts | None:
        """For `status`: the working set, the problems, the counts and ITERATIONS.md's rows
        as checked, when every round folder's files are as the snapshot says (a stat of
        each, nothing read; `scanned` False: the files it is keyed by only, for a command
        that checks the rounds it shows itself, `snapshot_records`); None otherwise (then
        read the whole ledger)."""
        with self._lock:
            if getattr(self._local, "read", None) is not None or self._last is not None:
                return None
            read = self._from_snapshot(scanned=scanned)
            kept = self._snapshot
            if read is None or kept is None:
                self._last = None
                return None
            if getattr(self._local, "depth", 0) > 0:
                self._local.read = read
            rows = {k: list(v) for k, v in kept.iterations.items() if k != "owned"}
            rounds = [read.rounds[n] for n in sorted(read.rounds)]
            return rounds, read.problems.copy(), dict(kept.counts), rows

    def forget_taken(self) -> None:
        """A snapshot taken for this operation did not serve: the next read is whole."""
        with self._lock:
            self._local.read = self._last = None

    def snapshot_records(self, numbers: list[int]) -> list[Round] | None:
        """Rounds `numbers` as checked, from the snapshot (the working set) and the index,
        when the files of each are as the snapshot says; None otherwise (or when one is
        not a round folder, or is not indexed)."""
        kept = self._snapshot
        if kept is None:
            return None
        where = {n: i for i, n in enumerate(kept.numbers)}
        if any(n not in where for n in numbers):
            return None
        marks = [kept.marks[where[n]] for n in numbers]
        hashes = [kept.hashes[where[n]] for n in numbers]
        if snapshot.scan(self._ledger.layout.runs, numbers, marks) != hashes:
            return None
        out = []
        for number in numbers:
            if number in kept.rounds:
                out.append(snapshot_reads.checked_rounds(kept, [number])[number])
                continue
            indexed = self._index.get(number, self._ledger.stamp(number))
            if indexed is None:
                return None
            out.append(indexed[0])
        return out

    def snapshot_round(self, number: int) -> tuple[Round, list[str], list[int]] | None:
        """For `show N`: round `number` as checked, its marks (ITERATIONS.md's row's too)
        and its reruns, from the snapshot when the files it is keyed by and the round's
        own are as it says; None otherwise."""
        with self._lock:
            if self.snapshot_status(scanned=False) is None or self._snapshot is None:
                return None
            found = self.snapshot_records([number])
            if found is None:
                self.forget_taken()
                return None
            record = found[0]
            rows = self._snapshot.iterations
            marks = [*record.tampered,
                     *(["its ITERATIONS.md row was edited by hand"] if number in rows["differing"] else []),
                     *(["its ITERATIONS.md row was removed by hand"] if number in rows["missing"] else [])]
            return record, marks or record.tampered, list(self._snapshot.reruns.get(number, []))

    def after_write(self) -> None:
        """Keep the snapshot up to date with this process's writes (called holding the
        project lock, once a write is done): made from what it held before them, or
        forgotten when it cannot say."""
        with self._lock:
            read, kept = self._last, self._snapshot
            if read is None or not read.written:
                return
            written, read.written = read.written, set()
            if kept is None or read.counts is None:
                return
            made = snapshot_reads.refresh(
                kept, [read.rounds[n] for n in sorted(read.rounds)], written,
                unsealed=self._unsealed(read), counts=read.counts, missing=read.problems.missing,
                ledger=self._ledger)
            self._snapshot = made
            state_dir = self._ledger.layout.state_dir
            snapshot.save(state_dir, made)
            if made is not None:  # the table's rows of the rounds written, when kept
                rows_cache.append(state_dir, [read.rounds[n] for n in sorted(written) if n in read.rounds],
                                  kept.token, made.token)

    def snapshot_token(self) -> str | None:
        """The token of the snapshot this process holds (None: none)."""
        return self._snapshot.token if self._snapshot is not None else None

    def need(self, number: int | None) -> None:
        """A round outside the working set this operation took from a snapshot: the whole
        ledger is read now (a rule about to look for it among the rounds finds it)."""
        if number is not None:
            self.current()  # the operation's read, taken now if it is not yet
            self._need(number)

    def _need(self, number: int) -> None:
        read: Read | None = getattr(self._local, "read", None)
        if read is not None and read.partial and number not in read.rounds:
            self._last = None
            self._local.read = self._read_disk(light=False)
