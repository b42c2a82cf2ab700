"""The ledger as the campaign reads it: every round parsed once, kept in memory.

Long on purpose: one cache. Its parts (the stamps, the log's summary, the history's
anchor, what is derived from the closed rounds, the operation's read) change together
and share every private field; split, each part would reach into the others.

pto-tui's own writes replace their round's entry in place. A person or a coding agent
may edit `runs/` by hand while a campaign stays open (the terminal application keeps one
for hours), so every read also compares a cheap stamp of each round.toml (time, size,
inode) and the set of iter-XXX folders with what was read, and re-parses only the files
whose stamp changed.

Records handed out are copies: callers change them freely (an open round being
recorded, a preview) without touching the model.

Every read also checks the closed rounds against runs/closed.log (`tamper`): a closed
round rewritten or removed by hand is handed out as it was closed, marked tampered.

One command reads the ledger from disk once: inside `operation()` (every public call of a
`Campaign`) the first read compares the stamps, later reads of the same call use what it
found plus the call's own writes, so one round's bookkeeping costs the same at 10 rounds
and at 1,000. Reads outside an operation always compare the stamps.

A command that starts on a campaign of thousands of rounds takes what the last whole read
found (`core/campaign/snapshot.py`) instead of reading every round again: a write when
runs/, runs/closed.log, ITERATIONS.md and the anchor are as the snapshot says (its
working set then stands for the campaign: a round outside it asked for is a whole read),
`status` when the stamps of every round folder's files are too. Whole reads make it, and
writes made on it keep it up to date.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from pto_tui.core.campaign import snapshot_reads
from pto_tui.core.campaign.ledger_reads import Entry, Read
from pto_tui.core.campaign.round_index import RoundIndex
from pto_tui.core.campaign.snapshot import Snapshot, count_delta
from pto_tui.core.campaign.snapshot_model import SnapshotSide
from pto_tui.core.campaign.tamper import Found, check_history, checked, side_changes
from pto_tui.core.errors import InputError
from pto_tui.core.project.layout import round_name
from pto_tui.core.rounds.counts import verdict_counts
from pto_tui.core.rounds.hashes import SIDE_FILES, sha256_text
from pto_tui.core.rounds.history import History
from pto_tui.core.rounds.ledger import Ledger, LedgerProblems
from pto_tui.core.rounds.log_lines import LogEntry
from pto_tui.core.rounds.numbering import Stamp, numbering_gaps
from pto_tui.core.rounds.records import CLOSED, Round, copy_record
from pto_tui.core.rounds.sealed import seal

T = TypeVar("T")


def _stamp(path: str) -> list[int] | None:
    """A file's (mtime_ns, size, inode), as JSON keeps it; None when there is none."""
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return [info.st_mtime_ns, info.st_size, info.st_ino]


def _sealed(record: Round) -> Round:
    """A closed round as the model keeps it (read only: its empty fields shared)."""
    return seal(record) if record.status == CLOSED else record


def _same_closed(before: Round | None, after: Round | None) -> bool:
    """Replacing `before` by `after` leaves the closed rounds as they were."""
    return before is after or not any(r is not None and r.status == CLOSED for r in (before, after))


def _matches(found: Found | None, logged: LogEntry) -> bool:
    """The round.toml found is the one logged (checked() then needs no logged record)."""
    if found is None or found.record is None or found.error is not None:
        return False
    return found.sha == logged.sha256


class LedgerReadModel(SnapshotSide):
    def __init__(self, ledger: Ledger) -> None:
        self._ledger = ledger
        self._entries: dict[int, Entry] = {}
        self._index = RoundIndex(ledger.layout.state_dir)
        self._lock = threading.RLock()  # the terminal application reads from worker threads
        self._local = threading.local()  # per thread: the operation under way and its read
        # the last check of each round against the log, by what it was made from
        self._checks: dict[int, tuple[tuple[object, ...], Round | None]] = {}
        self._runs_stamp: tuple[int, int] | None = None  # runs/ at the last full scan
        self._last: Read | None = None  # the newest read, for a write's next read
        self.history: History | None = None  # the chain against its anchor, at the last full read
        # the last check of each closed round's notes.md, patch.diff, files.txt: by their stamps
        # (by a digest of the stamps and hashes: 10,000 rounds' lists would be MiBs)
        self._sides: dict[int, tuple[bytes, tuple[str, ...]]] = {}
        self._snapshot: Snapshot | None = None  # as this process last made, took or kept it
        self._snapshot_read_once = False
        self._log_seeded = -1  # the log's version when seeded from the index's summary

    # -------------------------------------------------------------- reading

    @contextmanager
    def operation(self, *, write: bool = False) -> Iterator[None]:
        """One command's reads: the disk is compared at its first read only (nested calls
        join the outer operation). A `write` operation compares only what its rules can
        see change (`_sealed_stamps`), so recording a round does not stat every round.toml."""
        depth = getattr(self._local, "depth", 0)
        if depth == 0:
            self._local.read = None
            self._local.write = write
        self._local.depth = depth + 1
        try:
            yield
        finally:
            self._local.depth = depth
            if depth == 0:
                self._local.read = None

    def current(self) -> tuple[list[Round], LedgerProblems]:
        """Every readable round (the model's own records: do not change them) and the
        problems (the gaps in the numbering, the unreadable and stray folders)."""
        read: Read | None = getattr(self._local, "read", None)
        if read is None:
            in_operation = getattr(self._local, "depth", 0) > 0
            read = self._read_disk(light=in_operation and getattr(self._local, "write", False))
            if in_operation:
                self._local.read = read
        if read.ordered is None:
            read.ordered = [read.rounds[n] for n in sorted(read.rounds)]
        return list(read.ordered), read.problems.copy()

    def derived(self, compute: Callable[[list[Round]], T]) -> T:
        """compute(current rounds), a pure function of the closed ones among them (the
        frontier, the newest reference round), kept until a closed round changes: a write
        asks the same of a thousand rounds at every step, and only a close, an amendment
        or a closed round's file changed by hand changes the answer."""
        rounds, _problems = self.current()
        read: Read | None = getattr(self._local, "read", None)
        if read is None:  # outside an operation: nothing to keep it with
            return compute(rounds)
        if compute not in read.derived:
            read.derived[compute] = compute(rounds)
        kept: T = read.derived[compute]  # what `compute` returned for these rounds
        return kept

    def close(self) -> None:
        """Keep the index of what this campaign wrote (and the log it read) for the next
        command."""
        with self._lock:
            self._keep_log_summary()
            self._index.save()

    def _keep_log_summary(self) -> None:
        """The log's summary for the next command, saved with the index: unless it is the
        one the log was seeded from (10,000 rounds' summary is not made again to compare)."""
        log = self._ledger.closed_log
        if log.version != self._log_seeded:
            self._index.set_log(log.summary())

    def seed_log(self) -> None:
        """runs/closed.log as read, from the index's summary while the log is unchanged."""
        with self._lock:
            self._logged()

    def _logged(self) -> tuple[dict[int, LogEntry], list[str]]:
        """runs/closed.log's newest entries: from the index's summary while the log has
        the stamp it kept (their records read only when asked for), else from the log."""
        self._seed_log()  # a snapshot's subset, or a read, is never replaced by the summary
        return self._ledger.closed_log.latest()

    def _seed_log(self) -> None:
        log = self._ledger.closed_log
        if not log.known:
            log.seed(self._index.log_summary())
            self._log_seeded = log.version if log.known else -1

    def _read_disk(self, *, light: bool = False) -> Read:
        with self._lock:
            unchanged = self._unchanged_read() if light else None
            if unchanged is not None:
                return unchanged
            if light and self._last is None:
                taken = self._from_snapshot(scanned=False)
                if taken is not None:
                    return taken
            partial = self._last is not None and self._last.partial
            stamps = self._sealed_stamps() if light and not partial else None
            base = None
            if stamps is None:
                base = snapshot_reads.base_of(self._ledger)  # before anything is read
                if self._ledger.closed_log.subset:  # a snapshot's: every round's entry now
                    self._ledger.closed_log.reread()
                # taken before the scan: a folder added meanwhile shows at the next read
                self._runs_stamp = self._ledger.runs_stamp()
                stamps = self._ledger.stamps()
            else:
                self._snapshot = None  # sealed rounds not looked at: this read makes none
            numbers = list(stamps)
            for gone in set(self._entries) - set(numbers):
                del self._entries[gone]
            for gone in set(self._checks) - set(numbers):
                del self._checks[gone]
            entries = {number: self._fresh(number, stamps[number])
                       for number in self._index.in_order(numbers)}
            if not light:
                self._index.keep_only(set(numbers))
            problems = LedgerProblems(missing=numbering_gaps(numbers))
            problems.unreadable = [e.error.render() for e in entries.values() if e.error is not None]
            problems.unreadable += self._ledger.stray_problems()  # never counted as rounds
            logged, log_lost = self._log_state(entries, problems)
            rounds = {}
            for number in sorted(set(entries) | set(logged)):
                record = self._check(number, entries.get(number), logged, log_lost)
                if record is not None:
                    rounds[number] = self._side_checked(number, record, logged.get(number))
            unsealed = {n for n, e in entries.items() if n not in logged or e.stamp is None}
            self._last = Read(rounds, problems, log_lost, self._ledger.closed_log.version, unsealed,
                               counts=verdict_counts(rounds.values()))
            if base is not None:
                self._make_snapshot(self._last, base)
            if not light:
                self._index.release()  # for the next command now, not at close; then let go
            return self._last

    def _unchanged_read(self) -> Read | None:
        """A write's read when runs/ and runs/closed.log are as the newest read saw them:
        that read, with only its unsealed rounds looked at again; None otherwise."""
        last = self._last
        if last is None or self._runs_stamp is None or self._runs_stamp != self._ledger.runs_stamp():
            return None
        logged, _problems = self._logged()
        if self._ledger.closed_log.version != last.log_version:
            return None
        rounds = dict(last.rounds)
        for number in last.unsealed:
            record = self._check(number, self._entry(number), logged, last.log_lost)
            if record is None:
                rounds.pop(number, None)
            else:
                rounds[number] = record
        problems = last.problems.copy()
        problems.unreadable = [e.error.render() for e in self._entries.values() if e.error is not None]
        # no closed round changed (the unsealed ones the same, or open before and now):
        # what was derived from the closed rounds holds
        same = all(_same_closed(last.rounds.get(n), rounds.get(n)) for n in last.unsealed)
        counts = dict(last.counts) if last.counts is not None else None
        for number in last.unsealed:
            if counts is not None and last.rounds.get(number) is not rounds.get(number):
                count_delta(counts, last.rounds.get(number), rounds.get(number))
        self._last = Read(rounds, problems, last.log_lost, last.log_version, set(last.unsealed),
                           dict(last.derived) if same else {}, counts=counts, partial=last.partial,
                           numbers=list(last.numbers), written=set(last.written))
        kept = self._snapshot
        if kept is not None and snapshot_reads.key_of(self._ledger) != kept.key:
            self._snapshot = None  # another process wrote since: a whole read makes the next
        return self._last

    def _sealed_stamps(self) -> dict[int, Stamp | None] | None:
        """The stamps for a write operation, None when a full scan is needed (no read yet,
        or a round folder added or removed: runs/ changed). A closed round in
        runs/closed.log is sealed: whatever happens to its round.toml, the rules use it as
        logged (a hand edit only adds the tampered mark, which a full read shows), so its
        file is not looked at; every other round's is."""
        if self._runs_stamp is None or self._runs_stamp != self._ledger.runs_stamp():
            return None
        logged, _problems = self._logged()
        return {
            n: e.stamp if n in logged and e.stamp is not None else self._ledger.stamp(n)
            for n, e in sorted(self._entries.items())
        }

    def _log_state(
        self, entries: dict[int, Entry], problems: LedgerProblems
    ) -> tuple[dict[int, LogEntry], bool]:
        """runs/closed.log's newest entries (the log begun here for a project from before
        the log, chained for one from before the chain), and whether the log is gone; the
        chain's breaks against its anchor are notices."""
        self._seed_log()
        history, log_lost, notices = check_history(
            self._ledger, [e.record for e in entries.values() if e.record]
        )
        self.history = history
        problems.notices += notices
        logged, log_problems = self._logged()
        self._keep_log_summary()
        problems.notices += log_problems
        problems.notices += history.problems
        if log_lost:
            problems.notices.append("runs/closed.log is gone: closed rounds cannot be checked")
        return logged, log_lost

    def _side_checked(self, number: int, record: Round, logged: LogEntry | None) -> Round:
        """The round marked when its notes.md, patch.diff or files.txt is not the one logged.
        Hashed again only when a file's stamp changed since they last matched (kept in the
        index for the next command: this runs over every closed round at each status)."""
        if logged is None or not logged.hashes or record.status != CLOSED:
            return record
        folder = f"{self._ledger.layout.runs}/{round_name(number)}"
        key = [[logged.hashes.get(n, "-") for n in SIDE_FILES],
               [_stamp(f"{folder}/{n}") for n in SIDE_FILES]]
        digest = hashlib.blake2b(repr(key).encode(), digest_size=16).digest()
        known = self._sides.get(number)
        if known is not None and known[0] == digest:
            why = known[1]
        elif self._index.sides_ok(number) == key:
            why = ()
        else:
            why = tuple(side_changes(self._ledger, number, logged))
            if not why:
                self._index.set_sides_ok(number, key)
        self._sides[number] = (digest, why)
        if not why:
            return record
        marked = copy_record(record)
        marked.tampered = [*record.tampered, *why]
        return marked

    def _check(
        self, number: int, entry: Entry | None, logged: dict[int, LogEntry], log_lost: bool
    ) -> Round | None:
        """checked() of one round, again only when its entry or its log line changed."""
        upto = self.history.rewritten_upto if self.history is not None else -1
        key = (entry, logged.get(number), log_lost, upto)
        known = self._checks.get(number)
        if known is not None and all(a is b for a, b in zip(known[0], key, strict=True)):
            return known[1]
        found = Found(entry.record, entry.error, entry.sha) if entry else None
        logged_entry = key[1]
        if logged_entry is not None and not logged_entry.record and not _matches(found, logged_entry):
            # from the summary, without its record: the round as closed is needed now
            logged_entry = self._ledger.closed_log.full_entry(number)
        record = checked(number, found, logged_entry, log_lost, upto)
        self._checks[number] = (key, record)
        return record

    def rounds(self) -> tuple[list[Round], LedgerProblems]:
        """As current(), with records the caller may change."""
        rounds, problems = self.current()
        return copy_record(rounds), problems

    def numbers(self) -> list[int]:
        """The round folders on disk, as last read."""
        with self._lock:
            read: Read | None = getattr(self._local, "read", None) or self._last
            if read is not None and read.partial:
                return list(read.numbers)
            return sorted(self._entries)

    def record(self, number: int) -> Round | None:
        """Round `number` (a copy), None when it has no round.toml; an unreadable record
        raises its error. A tampered closed round is the round as it was closed."""
        as_closed = self._tampered(number)
        if as_closed is not None:
            return as_closed
        entry = self._entry(number)
        if entry is None or entry.stamp is None:
            return None
        return self._unwrap(entry)

    def round(self, number: int) -> Round:
        """Round `number` (a copy), or an error saying why there is none. A tampered closed
        round is the round as it was closed."""
        as_closed = self._tampered(number)
        if as_closed is not None:
            return as_closed
        entry = self._entry(number)
        if entry is None:
            raise InputError(f"no round {number} in this project")
        if entry.stamp is None:
            raise InputError(
                f"round {number} exists on disk but has no round.toml",
                hint="import the hand-written project with `pto-tui import`",
            )
        return self._unwrap(entry)

    # -------------------------------------------------------------- writing

    def runs_known(self) -> bool:
        """runs/ is as the last full scan left it (take before a write that may add a
        round folder, give to save())."""
        return self._runs_stamp is not None and self._runs_stamp == self._ledger.runs_stamp()

    def save(self, record: Round, runs_known: bool = False, *, staged: bool = False) -> None:
        """Write the record's round.toml and keep it as a later read would see it (and
        the index for the next command). `runs_known`: runs/ was as scanned before this
        write's files were written, so a folder it added is its own; `staged`: as
        Ledger.save_data."""
        runs_known = runs_known or self.runs_known()
        log = self._ledger.closed_log
        before = log.version
        text, data = self._ledger.save_data(record, staged=staged)
        own = log.version - before  # 1: this write's own line appended to the log read
        stamp = self._ledger.stamp(record.number)
        as_read = _sealed(self._ledger.from_tables(data))
        with self._lock:
            if runs_known:  # a new round folder is this write's own: no full scan for it
                self._runs_stamp = self._ledger.runs_stamp()
            entry = Entry(stamp, as_read, None, sha256_text(text))
            self._entries[record.number] = entry
            if stamp is not None:
                self._index.put(record.number, stamp, entry.sha, as_read, data)
            read: Read | None = getattr(self._local, "read", None)
            if read is not None:  # the operation's read, with this write in it
                if not _same_closed(read.rounds.get(record.number), as_read):
                    read.derived.clear()  # derived from the closed rounds before this write
                read.ordered = None
                in_sync = read.log_version == before and own <= 1
                logged, _problems = self._logged()
                checked_now = self._check(record.number, entry, logged, read.log_lost)
                if read.counts is not None:
                    count_delta(read.counts, read.rounds.get(record.number), checked_now)
                read.written.add(record.number)
                if read.partial and record.number not in read.numbers:
                    read.numbers = sorted({*read.numbers, record.number})
                if checked_now is not None:
                    read.rounds[record.number] = checked_now
                read.problems.missing = [n for n in read.problems.missing if n != record.number]
                if record.number not in logged:
                    read.unsealed.add(record.number)
                # still the log as read plus this write's line, or a whole read next time
                read.log_version = log.version if in_sync and log.version == before + own else -1
            if self._last is not read:  # another thread's read, or none: the next one is whole
                self._last = None

    # -------------------------------------------------------------- internals

    def _tampered(self, number: int) -> Round | None:
        """Round `number` as it was closed when it is tampered (a copy), else None."""
        self._need(number)
        read: Read | None = getattr(self._local, "read", None)
        if read is None and (self._ledger.closed_log.exists() or self._ledger.log_marker.exists()):
            if self._ledger.closed_log.subset:  # a snapshot's entries: this round's may not be
                self._ledger.closed_log.reread()
            # one round asked for (`show 5`): only it is checked against the log
            logged, _log_problems = self._logged()
            log_lost = not self._ledger.closed_log.exists()
            with self._lock:
                marked = self._check(number, self._entry(number), logged, log_lost)
            marked = marked if marked is not None and marked.tampered else None
        elif read is None:  # a project from before the log: the first read begins it
            rounds, _ledger_problems = self.current()
            marked = next((r for r in rounds if r.number == number and r.tampered), None)
        else:
            found = read.rounds.get(number)
            marked = found if found is not None and found.tampered else None
        return copy_record(marked) if marked is not None else None

    def _entry(self, number: int) -> Entry | None:
        """One round brought up to date (None: no such round folder)."""
        with self._lock:
            if not self._ledger.layout.round_dir(number).is_dir():
                self._entries.pop(number, None)
                return None
            return self._fresh(number, self._ledger.stamp(number))

    def _fresh(self, number: int, stamp: Stamp | None) -> Entry:
        """The entry of an existing round folder, re-parsed only when its stamp changed.
        The stamp is taken before the read: a file changed meanwhile is read again."""
        known = self._entries.get(number)
        if known is not None and known.stamp == stamp:
            return known
        indexed = self._index.get(number, stamp)
        if indexed is not None:
            self._entries[number] = Entry(stamp, _sealed(indexed[0]), None, indexed[1])
            return self._entries[number]
        try:
            entry = Entry(stamp, _sealed(self._ledger.load(number)), None)
        except InputError as error:
            entry = Entry(stamp, None, error)
        if stamp is not None:
            entry = Entry(entry.stamp, entry.record, entry.error, self._ledger.file_sha(number))
            # a round written by hand is read from its Markdown and the table row: not indexed
            if entry.record is not None and self._ledger.has_record(number):
                self._index.put(number, stamp, entry.sha, entry.record)
        self._entries[number] = entry
        return entry

    @staticmethod
    def _unwrap(entry: Entry) -> Round:
        if entry.error is not None:
            raise entry.error.with_traceback(None)
        assert entry.record is not None
        return copy_record(entry.record)
