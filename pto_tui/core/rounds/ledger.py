"""The iteration ledger on disk: runs/iter-XXX/{round.toml, files.txt, patch.diff, notes.md}
and ITERATIONS.md.

round.toml is the record; the Markdown is rendered from it. Files a person or an
agent edited by hand are never overwritten silently: pto-tui remembers the hash of
what it last wrote and, when the file on disk differs, leaves it alone (ITERATIONS.md
then only gets the missing rows appended; notes.md gets a sibling notes.pto-tui.md).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pto_tui.core.atomic import atomic_write_text, staged_write_text
from pto_tui.core.errors import InputError, read_regular_bytes, read_utf8
from pto_tui.core.project.layout import MAX_ROUND, MAX_ROUND_GAP, ProjectLayout, round_name
from pto_tui.core.rounds import toml_text
from pto_tui.core.rounds.closed_log import LOG_NAME, ClosedLog
from pto_tui.core.rounds.hashes import SIDE_FILES, file_hash, row_hash, sha256_text, torch_hash
from pto_tui.core.rounds.history import commit, stage
from pto_tui.core.rounds.ledger_markdown import MarkdownFiles
from pto_tui.core.rounds.log_lines import TORCH_EVENT, LogEntry
from pto_tui.core.rounds.numbering import Stamp, folder_number, stray_numbers
from pto_tui.core.rounds.record_toml import round_from_dict, round_to_dict
from pto_tui.core.rounds.records import Round
from pto_tui.core.rounds.render import (
    iterations_row,
)

ROUND_FILE = "round.toml"
HAND_WRITTEN = "notes.md"  # a round folder holding only Markdown was written by hand
_ROUND_DIR = re.compile(r"^iter-(\d{3,})$")


def _file_stamp(folder: str) -> Stamp | None:
    for name in (ROUND_FILE, HAND_WRITTEN):
        try:
            info = os.stat(os.path.join(folder, name))
        except (FileNotFoundError, NotADirectoryError):
            continue
        if stat.S_ISREG(info.st_mode):
            return (info.st_mtime_ns, info.st_size, info.st_ino)
    return None


@dataclass
class LedgerProblems:
    """What could not be read; reported to the user, never silently dropped."""

    missing: list[int] = field(default_factory=list)  # gaps in the numbering
    unreadable: list[str] = field(default_factory=list)  # round folders without a valid record
    notices: list[str] = field(default_factory=list)  # about runs/closed.log itself

    def copy(self) -> LedgerProblems:
        return LedgerProblems(list(self.missing), list(self.unreadable), list(self.notices))


class Ledger(MarkdownFiles):
    def __init__(self, layout: ProjectLayout) -> None:
        self.layout = layout
        self._rendered_path = layout.state_dir / "rendered.json"
        self.closed_log = ClosedLog(layout.runs / LOG_NAME)
        # written when the log is begun: a project whose log is gone afterwards was not
        # made before the log existed, its log was deleted
        self.log_marker = layout.state_dir / "closed-log-started"
        self.torch_source: Callable[[], dict[str, Any] | None] | None = None
        self.rows_follow = False  # a campaign writes each closed round's ITERATIONS.md row
        # the stray folder names (see stray_numbers) the last listing of runs/ left out
        self.strays: list[str] = []

    # -------------------------------------------------------------- listing

    def round_numbers(self) -> list[int]:
        """Numbers of the round folders on disk (runs/_template and others are ignored)."""
        try:  # one listing, no stat per folder: this runs per command at any size
            folders = [entry.name for entry in os.scandir(self.layout.runs) if entry.is_dir()]
        except (FileNotFoundError, NotADirectoryError):
            return []
        return [number for number, _name in self._rounds_among(folders)]

    def _rounds_among(self, folders: list[str]) -> list[tuple[int, str]]:
        """The round folders among `folders` (names in runs/) with their numbers, in order;
        the stray ones are kept in self.strays to be reported, never counted."""
        numbered = sorted(
            (folder_number(m.group(1)), name) for name in folders if (m := _ROUND_DIR.match(name))
        )
        strays = set(stray_numbers([number for number, _name in numbered]))
        self.strays = [str(self.layout.runs / name) for number, name in numbered if number in strays]
        return [(number, name) for number, name in numbered if number not in strays]

    def stamps(self) -> dict[int, Stamp | None]:
        """Every round folder's stamp (as stamp() gives it), by number: the one pass over
        runs/ a read of the ledger makes (plain os calls: this runs per command at any size)."""
        runs = str(self.layout.runs)
        try:
            entries = [(e.name, e.is_dir()) for e in os.scandir(runs)]
        except (FileNotFoundError, NotADirectoryError):
            return {}
        found: dict[int, Stamp | None] = {}
        for number, name in self._rounds_among([name for name, is_dir in entries if is_dir]):
            try:  # the common case in one call: a round.toml
                info = os.stat(f"{runs}/{name}/{ROUND_FILE}")
            except (FileNotFoundError, NotADirectoryError):
                info = None
            if info is not None and stat.S_ISREG(info.st_mode):
                found[number] = (info.st_mtime_ns, info.st_size, info.st_ino)
            else:
                found[number] = _file_stamp(os.path.join(runs, name))
        return dict(sorted(found.items()))

    def stray_problems(self) -> list[str]:
        """The stray folders of the last listing of runs/, as problems to report."""
        return [
            f"{path}: not a round folder (its number is above {MAX_ROUND}, or more than "
            f"{MAX_ROUND_GAP} past the round before it); rename it or move it out of runs/"
            for path in self.strays
        ]

    def runs_stamp(self) -> tuple[int, int] | None:
        """runs/ itself (time, inode): it changes when a round folder is added or removed."""
        try:
            info = os.stat(self.layout.runs)
        except FileNotFoundError:
            return None
        return (info.st_mtime_ns, info.st_ino)

    def next_number(self) -> int:
        numbers = self.round_numbers()
        return (max(numbers) + 1) if numbers else 0

    def has_record(self, number: int) -> bool:
        return (self.layout.round_dir(number) / ROUND_FILE).is_file()

    def stamp(self, number: int) -> Stamp | None:
        """The round.toml's stamp; for a round written by hand (no round.toml, a notes.md)
        the notes.md's, so an edit of it is read again; None when there is neither."""
        return _file_stamp(str(self.layout.round_dir(number)))

    def hand_written(self, number: int) -> Round:
        """A round folder an agent or a person wrote without pto-tui (notes.md, no
        round.toml), read in memory from its Markdown and its ITERATIONS.md row: never
        written, not a tampered round (pto-tui never closed it), its findings as flags."""
        # imported here: only a project with hand-written rounds reads Markdown
        from pto_tui.core.rounds.markdown_checks import rule_findings
        from pto_tui.core.rounds.markdown_read import parse_iterations_table
        from pto_tui.core.rounds.markdown_round import round_from_markdown

        try:
            rows, _problems = parse_iterations_table(self.layout.iterations)
        except InputError:
            rows = []
        row = next((r for r in rows if r.number == number), None)
        problems: list[str] = []
        record = round_from_markdown(self.layout, number, row, problems)
        record.flags = rule_findings(record) + problems
        return record

    # -------------------------------------------------------------- reading

    def load(self, number: int) -> Round:
        path = self.layout.round_dir(number) / ROUND_FILE
        try:
            text = read_utf8(path)
        except FileNotFoundError:
            if (path.parent / HAND_WRITTEN).is_file():
                return self.hand_written(number)
            raise InputError(f"round {number} has no record", file=path) from None
        return self.parse(text, number)

    def parse(self, text: str, number: int) -> Round:
        """The record in round.toml text of round `number`; errors name the file."""
        path = self.layout.round_dir(number) / ROUND_FILE
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            line = re.search(r"line (\d+)", str(error))
            raise InputError(
                f"invalid TOML: {error}", file=path, line=int(line.group(1)) if line else None
            ) from None
        except RecursionError:
            raise InputError("invalid TOML: tables or arrays nested too deeply", file=path) from None
        except ValueError as error:  # e.g. an integer of more digits than Python converts
            raise InputError(f"invalid TOML: {error}", file=path) from None
        try:
            record = round_from_dict(data)
        except (KeyError, ValueError, TypeError) as error:
            raise InputError(f"invalid round record: {error!r}", file=path) from None
        if record.number != number:
            raise InputError(
                f"record says round {record.number} but lives in {round_name(number)}",
                file=path,
                key="number",
            )
        return record

    @staticmethod
    def from_tables(data: dict[str, Any]) -> Round:
        """The record in save_data()'s tables: what parsing its text gives, unparsed."""
        return round_from_dict(data)

    # -------------------------------------------------------------- writing

    def save(self, record: Round) -> str:
        """Write round.toml; returns the text written."""
        return self.save_data(record)[0]

    def _write(self, path: Path, text: str) -> None:
        """A round folder's file, its temporary file in .pto-tui/tmp (see core/atomic.py)."""
        atomic_write_text(path, text, scratch=self.layout.state_dir / "tmp")

    def staging_dir(self, number: int) -> Path:
        """Where a new round's folder is put together before it appears whole in runs/."""
        folder = self.layout.round_dir(number)
        return folder.with_name(f".{folder.name}.new")

    def save_data(self, record: Round, *, staged: bool = False) -> tuple[str, dict[str, Any]]:
        """Write round.toml; returns the text and its tables (round_to_dict of the record).
        `staged`: a new round's other files are in staging_dir() already."""
        folder = self.layout.round_dir(record.number)
        data = round_to_dict(record)
        text = toml_text.dumps(data)  # tomlkit's bytes, without its cost
        # a close is told to the anchor before its round.toml is written (history.py)
        entry = self.close_entry(record, text, data=data) if record.is_closed else None
        told = stage(self.closed_log, self.layout.root, entry) if entry is not None else None
        if folder.is_dir():
            self._write(folder / ROUND_FILE, text)
        else:  # a new round appears with its record in it, never as an empty folder
            staging = self.staging_dir(record.number)
            if not staged:
                shutil.rmtree(staging, ignore_errors=True)
            staged_write_text(staging / ROUND_FILE, text)
            staging.rename(folder)
        if told is not None:
            self._begin_log()
            commit(self.closed_log, self.layout.root, told)
        return text, data

    def file_sha(self, number: int) -> str:
        """SHA-256 of round `number`'s round.toml as it is on disk ("" when there is none)."""
        try:
            data = read_regular_bytes(self.layout.round_dir(number) / ROUND_FILE)
        except (FileNotFoundError, NotADirectoryError, InputError):  # none, or not a file
            return ""
        return hashlib.sha256(data).hexdigest()

    def log_closed(
        self, record: Round, text: str, event: str = "", data: dict[str, Any] | None = None
    ) -> None:
        """Append the closed record to runs/closed.log, unless its newest line is this text
        with these files (`data`: round_to_dict of the record, when the caller has it
        already); the anchor moves to it."""
        entry = self.close_entry(record, text, event, data)
        if entry is not None:
            self._begin_log()
            self._append(entry)

    def close_entry(
        self, record: Round, text: str, event: str = "", data: dict[str, Any] | None = None
    ) -> LogEntry | None:
        """The log line a closed record's save appends, None when its newest line is this
        text with these files. The line carries the hashes of the round's notes.md,
        patch.diff, files.txt, ITERATIONS.md row and the torch baseline."""
        known, _problems = self.closed_log.latest()
        sha = sha256_text(text)
        hashes = self.round_hashes(record)
        previous = known.get(record.number)
        if (previous is not None and previous.sha256 == sha and previous.hashes == hashes
                and not previous.suspect):
            return None
        verdict = record.effective_verdict()
        return LogEntry(
            number=record.number,
            event=event or ("amended" if previous is not None and previous.event != "suspect"
                            else "closed"),
            sha256=sha,
            verdict=verdict.value if verdict else ("baseline" if record.is_baseline else ""),
            median_us=record.measurement.median_us,
            record=data if data is not None else round_to_dict(record),
            hashes=hashes,
        )

    def _begin_log(self) -> None:
        if not self.closed_log.exists():
            self.log_marker.parent.mkdir(parents=True, exist_ok=True)
            self.log_marker.write_text("runs/closed.log was begun\n", encoding="utf-8")

    def log_torch(self, torch: dict[str, Any] | None) -> None:
        """Append the torch baseline as set (or as found, when the chain begins)."""
        self._append(LogEntry(-1, TORCH_EVENT, "", "", None, {}, {"torch": torch_hash(torch)}),
                     torch=torch)

    def _append(self, entry: LogEntry, torch: dict[str, Any] | None = None) -> None:
        """One chained line, and the anchor in the pto-tui home moved to it."""
        commit(self.closed_log, self.layout.root, stage(self.closed_log, self.layout.root, entry, torch))

    def round_hashes(self, record: Round) -> dict[str, str]:
        """What a closed round's log line covers beside its round.toml."""
        folder = self.layout.round_dir(record.number)
        hashes = {name: file_hash(folder / name) for name in SIDE_FILES}
        # "": no row covered (a record written without ITERATIONS.md, as a bench does)
        hashes["row"] = row_hash(iterations_row(record)) if self.rows_follow else ""
        hashes["torch"] = torch_hash(self.torch_state())
        return hashes

    def torch_state(self) -> dict[str, Any] | None:
        """The torch baseline as project.toml's state holds it (the campaign sets a cheaper
        source: its own project file)."""
        if self.torch_source is not None:
            return self.torch_source()
        try:
            data = tomllib.loads(read_utf8(self.layout.project_file))
        except (OSError, InputError, tomllib.TOMLDecodeError, ValueError):
            return None
        torch = data.get("state", {}).get("torch_baseline")
        return dict(torch) if isinstance(torch, dict) and torch else None
