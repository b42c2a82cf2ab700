"""What a whole read of the ledger found, kept for the next command
(`.pto-tui/rounds-snapshot.json`): a campaign of ten thousand rounds is not read again
for `status` or for one round's bookkeeping.

A whole read looks at every round.toml, every closed round's notes.md, patch.diff and
files.txt, runs/closed.log and its anchor, and ITERATIONS.md. The snapshot keeps:

- its key: the stamps of runs/, runs/closed.log, ITERATIONS.md and the anchor's text, and
  per round folder one hash of its files' stamps (`scan`);
- the working set: the few rounds the campaign's rules and its status ask about (the
  baseline, the open rounds, the frontier, the tail since the last kept round, the last
  failures, every tampered or unverified round, ... `working_set`), as checked;
- what is counted over every round (the verdict counts), the problems and the history.

`status` takes it when the scan of every round folder (stat calls, nothing read) gives
the same hashes; a write in a new process takes it when the key files are as it says
(a closed round in runs/closed.log is sealed: a write never looks at its files, see
read_model), and keeps it up to date with its own writes. Anything else is a whole read,
which writes a new one. Like the index, it is never the source of truth: pto-tui's own
cache, in the project's state folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import partial
from operator import attrgetter
from pathlib import Path
from typing import Any

from pto_tui.core.atomic import atomic_write_text
from pto_tui.core.errors import DiskFullError, read_text, strict_json
from pto_tui.core.project.layout import round_name
from pto_tui.core.rounds.closed_log import LOG_NAME
from pto_tui.core.rounds.counts import UNVERIFIED, counted_as
from pto_tui.core.rounds.hashes import SIDE_FILES
from pto_tui.core.rounds.history import anchor_path
from pto_tui.core.rounds.records import CLOSED, Round, newest_reference  # the rules' own
from pto_tui.core.vocabulary import Verdict

SNAPSHOT_FILE = "rounds-snapshot.json"
VERSION = 1
FAILURES_KEPT = 5  # recent failures the status lists
HAND_WRITTEN = 8  # a mark's bit: the folder has no round.toml, its notes.md is the record

_STAMP = attrgetter("st_mtime_ns", "st_size", "st_ino")
_FOLDER = attrgetter("st_mtime_ns", "st_ino")
_PENDING = b'\n "pending": '  # write_anchor's top-level key (indent=1): in no nested text


def _file_stamp(path: Path) -> list[int] | None:
    try:
        return list(_STAMP(os.stat(path)))
    except OSError:
        return None


def current_key(state_dir: Path, root: Path, runs: Path, iterations: Path) -> dict[str, Any]:
    """The stamps of what a whole read reads beside the round folders."""
    try:
        text = anchor_path(root).read_bytes()
    except OSError:
        text = b""
    runs_stamp = _file_stamp(runs)
    return {
        "runs": runs_stamp[0::2] if runs_stamp else None,  # time and inode: as runs_stamp()
        "log": _file_stamp(runs / LOG_NAME),
        "anchor": hashlib.sha256(text).hexdigest() if text else "",
        # an append the anchor was told of and did not see done: a whole read settles it
        # (history.py), so no snapshot is kept under it
        "pending": _PENDING in text,
        "marker": (state_dir / "closed-log-started").exists(),
        "iterations": _file_stamp(iterations),
    }


def marks_of(runs: Path, numbers: Iterable[int]) -> list[int]:
    """Per round folder, which of its files the scan stats: a bit per side file present
    (SIDE_FILES order), HAND_WRITTEN when it has no round.toml."""
    marks = []
    for number in numbers:
        folder = runs / round_name(number)
        mark = sum(1 << i for i, name in enumerate(SIDE_FILES) if (folder / name).exists())
        marks.append(mark | (0 if (folder / "round.toml").exists() else HAND_WRITTEN))
    return marks


def scan(runs: Path, numbers: list[int], marks: list[int]) -> list[int] | None:
    """Per round folder, one hash of the stamps of its record (round.toml, or notes.md for a
    round written by hand), of its side files present and, when one is absent, of the
    folder itself (a file made in it changes the folder); None when a file is gone or
    cannot be stat-ed: something changed. Stat calls only, grouped so the loops run in C."""
    names = [round_name(n) for n in numbers]
    hashes: list[int] = [0] * len(numbers)
    groups: dict[int, list[int]] = {}
    for index, mark in enumerate(marks):
        groups.setdefault(mark, []).append(index)
    try:
        runs_fd = os.open(runs, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return None
    stat = partial(os.stat, dir_fd=runs_fd)
    try:
        for mark, indexes in groups.items():
            record = "notes.md" if mark & HAND_WRITTEN else "round.toml"
            parts: list[list[tuple[int, ...]]] = [
                list(map(_STAMP, map(stat, (f"{names[i]}/{record}" for i in indexes))))]
            for bit, side in enumerate(SIDE_FILES):
                if mark & (1 << bit):
                    parts.append(list(map(_STAMP, map(stat, (f"{names[i]}/{side}" for i in indexes)))))
            if mark & 7 != 7:
                parts.append(list(map(_FOLDER, map(stat, (names[i] for i in indexes)))))
            for index, value in zip(indexes, map(hash, zip(*parts, strict=True)), strict=True):
                hashes[index] = value
    except OSError:
        return None
    finally:
        os.close(runs_fd)
    return hashes


def _tail(rounds: list[Round]) -> list[int]:
    """The closed tuning rounds from the newest back to the newest kept one the history
    vouches for (what rounds_without_gain counts)."""
    out = []
    for record in reversed(rounds):
        if record.number == 0 or record.status != CLOSED:
            continue
        out.append(record.number)
        if record.effective_verdict() is Verdict.KEPT and not record.unverified:
            break
    return out


def working_set(rounds: list[Round]) -> set[int]:
    """The rounds (numbers; `rounds` in order) whose records give every answer the rules
    and the status ask of the whole campaign but the counts: each rule over the working
    set answers as over every round, and a round written after it keeps it so."""
    from pto_tui.core.campaign.status import contenders, frontier_of

    keep = {r.number for r in rounds if r.number == 0 or r.status != CLOSED or r.tampered
            or r.unverified or r.unlogged or r.imported}
    for found in (frontier_of(rounds), newest_reference(rounds),
                  next((r for r in reversed(rounds) if r.status == CLOSED and r.discipline), None)):
        if found is not None:
            keep.add(found.number)
    keep |= {r.number for _median, r in contenders(rounds) if not r.leads}
    keep.update(_tail(rounds))
    failures = [r.number for r in rounds if counted_as(r) == Verdict.FAILURE.value]
    keep.update(failures[-FAILURES_KEPT:])
    # what the open rounds name: their base (open_record_findings) and the round rerun
    keep |= {n for r in rounds if r.status != CLOSED
             for n in (r.changes.based_on, r.rerun_of) if n is not None}
    return keep


def reruns_map(rounds: list[Round]) -> dict[int, list[int]]:
    """Each round's reruns (reruns_of for every round at once)."""
    out: dict[int, list[int]] = {}
    for record in rounds:
        if record.rerun_of is not None:
            out.setdefault(record.rerun_of, []).append(record.number)
    return out


def count_delta(counts: dict[str, int], before: Round | None, after: Round | None) -> None:
    """`counts` (verdict_counts) with `before` replaced by `after`."""
    for record, step in ((before, -1), (after, 1)):
        word = counted_as(record) if record is not None else None
        if word is not None:
            counts[word] = counts.get(word, 0) + step
    if counts.get(UNVERIFIED) == 0:
        del counts[UNVERIFIED]


def ranges(numbers: list[int]) -> list[list[int]]:
    """Ascending numbers as [first, last] runs (a campaign's folders: one or a few runs)."""
    out: list[list[int]] = []
    for number in numbers:
        if out and out[-1][1] == number - 1:
            out[-1][1] = number
        else:
            out.append([number, number])
    return out


def unranged(runs: list[list[int]]) -> list[int]:
    return [n for first, last in runs for n in range(first, last + 1)]


@dataclass
class Snapshot:
    key: dict[str, Any]
    numbers: list[int]
    marks: list[int]
    hashes: list[int]
    rounds: dict[int, dict[str, Any]]  # the working set as checked (round_to_dict)
    flags: dict[int, list[Any]]  # per working-set round: [tampered, unlogged, unverified]
    unsealed: dict[int, list[Any]]  # the rounds a write looks at again: [stamp, sha] as read
    counts: dict[str, int]
    missing: list[int]
    history: dict[str, Any]  # History's fields
    log: dict[str, Any]  # ClosedLog.summary of the working set
    iterations: dict[str, Any]  # ITERATIONS.md as checked: owned, differing, missing
    reruns: dict[int, list[int]] = field(default_factory=dict)
    # names this snapshot among those made: what a cache kept beside it is in step with
    token: str = field(default_factory=lambda: os.urandom(8).hex())

    def to_json(self) -> dict[str, Any]:
        return {
            "version": VERSION, "python": sys.version_info[:2], "key": self.key,
            "numbers": ranges(self.numbers), "marks": "".join(f"{m:x}" for m in self.marks),
            "hashes": self.hashes, "rounds": {str(n): d for n, d in self.rounds.items()},
            "flags": {str(n): f for n, f in self.flags.items()},
            "unsealed": {str(n): u for n, u in self.unsealed.items()},
            "counts": self.counts, "missing": self.missing, "history": self.history,
            "log": self.log, "iterations": self.iterations,
            "reruns": {str(n): r for n, r in self.reruns.items()}, "token": self.token,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> Snapshot:
        if data["version"] != VERSION or list(data["python"]) != list(sys.version_info[:2]):
            raise ValueError("another pto-tui's or Python's snapshot")
        numbers = unranged(data["numbers"])
        marks = [int(c, 16) for c in data["marks"]]
        hashes = [int(h) for h in data["hashes"]]
        if not len(numbers) == len(marks) == len(hashes):
            raise ValueError("numbers, marks and hashes disagree")
        return Snapshot(
            key=dict(data["key"]), numbers=numbers, marks=marks, hashes=hashes,
            rounds={int(n): dict(d) for n, d in data["rounds"].items()},
            flags={int(n): list(f) for n, f in data["flags"].items()},
            unsealed={int(n): [list(u[0]), str(u[1])] for n, u in data["unsealed"].items()},
            counts={str(k): int(v) for k, v in data["counts"].items()},
            missing=[int(n) for n in data["missing"]], history=dict(data["history"]),
            log=dict(data["log"]), iterations=dict(data["iterations"]),
            reruns={int(n): [int(x) for x in r] for n, r in data["reruns"].items()},
            token=str(data["token"]),
        )


def load(state_dir: Path) -> Snapshot | None:
    """The snapshot kept, None when there is none or it cannot be used."""
    try:
        return Snapshot.from_json(strict_json(read_text(state_dir / SNAPSHOT_FILE)))
    except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError):
        return None


def save(state_dir: Path, snapshot: Snapshot | None) -> None:
    """Keep it (None: forget the one kept); a failure to write only costs speed."""
    path = state_dir / SNAPSHOT_FILE
    try:
        if snapshot is None or snapshot.key.get("pending"):
            path.unlink(missing_ok=True)
        elif state_dir.is_dir():
            atomic_write_text(path, json.dumps(snapshot.to_json()))
    except (OSError, DiskFullError):  # a full disk too: a read command still answers
        pass
