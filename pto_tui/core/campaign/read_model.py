"""The ledger as the campaign reads it: every round parsed once, kept in memory.

pto-tui's own writes replace their round's entry in place. A person or a coding agent
may edit `runs/` by hand while a campaign stays open (the terminal application keeps one
for hours), so every read also compares a cheap stamp of each round.toml (time, size,
inode) and the set of iter-XXX folders with what was read, and re-parses only the files
whose stamp changed.

Records handed out are copies: callers change them freely (an open round being
recorded, a preview) without touching the model.

Every read also checks the closed rounds against runs/closed.log (`tamper`): a closed
round rewritten or removed by hand is handed out as it was closed, marked tampered.
"""

from __future__ import annotations

import copy
import threading
from dataclasses import dataclass

from pto_tui.core.campaign.round_index import RoundIndex
from pto_tui.core.campaign.tamper import Found, checked, start_log
from pto_tui.core.errors import InputError
from pto_tui.core.rounds.ledger import Ledger, LedgerProblems, Stamp, numbering_gaps, sha256_text
from pto_tui.core.rounds.records import Round


@dataclass(frozen=True)
class _Entry:
    """One round folder as last read: its record, or why it could not be read."""

    stamp: Stamp | None  # None: the folder has no round.toml
    record: Round | None
    error: InputError | None
    sha: str = ""  # of the round.toml read ("" when there is none)


class LedgerReadModel:
    def __init__(self, ledger: Ledger) -> None:
        self._ledger = ledger
        self._entries: dict[int, _Entry] = {}
        self._index = RoundIndex(ledger.layout.state_dir)
        self._lock = threading.Lock()  # the terminal application reads from worker threads

    # -------------------------------------------------------------- reading

    def current(self) -> tuple[list[Round], LedgerProblems]:
        """Every readable round (the model's own records: do not change them) and the
        problems, as `Ledger.load_all()` reports them."""
        numbers = self._ledger.round_numbers()
        with self._lock:
            for gone in set(self._entries) - set(numbers):
                del self._entries[gone]
            entries = {number: self._fresh(number) for number in numbers}
            self._index.keep_only(set(numbers))
            self._index.save()
            problems = LedgerProblems(missing=numbering_gaps(numbers))
            problems.unreadable = [e.error.render() for e in entries.values() if e.error is not None]
            return self._checked(entries, problems), problems

    def _checked(self, entries: dict[int, _Entry], problems: LedgerProblems) -> list[Round]:
        """The rounds to use, checked against runs/closed.log (begun here for a project
        from before the log)."""
        log = self._ledger.closed_log
        log_lost = not log.exists() and self._ledger.log_marker.exists()
        if not log.exists() and not log_lost:
            notice = start_log(self._ledger, [e.record for e in entries.values() if e.record])
            problems.notices += [notice] if notice else []
        logged, log_problems = log.latest()
        problems.notices += log_problems
        if log_lost:
            problems.notices.append("runs/closed.log is gone: closed rounds cannot be checked")
        out = []
        for number in sorted(set(entries) | set(logged)):
            entry = entries.get(number)
            found = Found(entry.record, entry.error, entry.sha) if entry else None
            record = checked(number, found, logged.get(number), log_lost)
            if record is not None:
                out.append(record)
        return out

    def rounds(self) -> tuple[list[Round], LedgerProblems]:
        """As current(), with records the caller may change."""
        rounds, problems = self.current()
        return copy.deepcopy(rounds), problems

    def numbers(self) -> list[int]:
        """The round folders on disk, as last read."""
        with self._lock:
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

    def save(self, record: Round) -> None:
        """Write the record's round.toml and keep it as a later read would see it."""
        text = self._ledger.save(record)
        stamp = self._ledger.stamp(record.number)
        as_read = self._ledger.parse(text, record.number)
        with self._lock:
            self._entries[record.number] = _Entry(stamp, as_read, None, sha256_text(text))

    # -------------------------------------------------------------- internals

    def _tampered(self, number: int) -> Round | None:
        """Round `number` as it was closed when it is tampered (a copy), else None."""
        rounds, _problems = self.current()
        marked = next((r for r in rounds if r.number == number and r.tampered), None)
        return copy.deepcopy(marked) if marked is not None else None

    def _entry(self, number: int) -> _Entry | None:
        """One round brought up to date (None: no such round folder)."""
        with self._lock:
            if not self._ledger.layout.round_dir(number).is_dir():
                self._entries.pop(number, None)
                return None
            return self._fresh(number)

    def _fresh(self, number: int) -> _Entry:
        """The entry of an existing round folder, re-parsed only when its stamp changed.
        The stamp is taken before the read: a file changed meanwhile is read again."""
        stamp = self._ledger.stamp(number)
        known = self._entries.get(number)
        if known is not None and known.stamp == stamp:
            return known
        indexed = self._index.get(number, stamp)
        if indexed is not None:
            self._entries[number] = _Entry(stamp, indexed[0], None, indexed[1])
            return self._entries[number]
        try:
            entry = _Entry(stamp, self._ledger.load(number), None)
        except InputError as error:
            entry = _Entry(stamp, None, error)
        if stamp is not None:
            entry = _Entry(entry.stamp, entry.record, entry.error, self._ledger.file_sha(number))
            # a round written by hand is read from its Markdown and the table row: not indexed
            if entry.record is not None and self._ledger.has_record(number):
                self._index.put(number, stamp, entry.sha, entry.record)
        self._entries[number] = entry
        return entry

    @staticmethod
    def _unwrap(entry: _Entry) -> Round:
        if entry.error is not None:
            raise entry.error.with_traceback(None)
        assert entry.record is not None
        return copy.deepcopy(entry.record)
