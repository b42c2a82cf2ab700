"""A snapshot (core/campaign/snapshot.py) made from a whole read, taken back as a read,
and kept up to date by the writes made on it: the read model's side of it.

A snapshot is only made of a campaign whose read found nothing wrong with the records
themselves (no unreadable round, no stray folder, runs/closed.log there and its chain
as anchored, no notice): a project with such a problem is read whole by every command,
which names it each time, as before.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from pto_tui.core.campaign.snapshot import (
    Snapshot,
    current_key,
    marks_of,
    reruns_map,
    scan,
    working_set,
)
from pto_tui.core.campaign.status import rows_check
from pto_tui.core.errors import read_text
from pto_tui.core.rounds.closed_log import ClosedLog
from pto_tui.core.rounds.history import History, compare, read_anchor
from pto_tui.core.rounds.ledger import Ledger
from pto_tui.core.rounds.numbering import Stamp
from pto_tui.core.rounds.record_toml import round_from_dict, round_to_dict
from pto_tui.core.rounds.records import Round


@dataclass(frozen=True)
class Base:
    """What a whole read is keyed by, taken before it reads: a file changed meanwhile
    makes the snapshot one no later command takes."""

    key: dict[str, Any]
    numbers: list[int]
    marks: list[int]
    hashes: list[int] | None


def key_of(ledger: Ledger) -> dict[str, Any]:
    layout = ledger.layout
    return current_key(layout.state_dir, layout.root, layout.runs, layout.iterations)


def base_of(ledger: Ledger) -> Base:
    numbers = ledger.round_numbers()
    marks = marks_of(ledger.layout.runs, numbers)
    return Base(key_of(ledger), numbers, marks, scan(ledger.layout.runs, numbers, marks))


def history_json(history: History) -> dict[str, Any]:
    return {"entries": history.entries, "head_seq": history.head_seq, "head": history.head,
            "anchored": history.anchored, "rewritten_upto": history.rewritten_upto}


def history_of(data: dict[str, Any]) -> History:
    return History(int(data["entries"]), int(data["head_seq"]), str(data["head"]),
                   bool(data["anchored"]), rewritten_upto=int(data["rewritten_upto"]))


def _iterations_text(ledger: Ledger) -> str:
    try:
        return read_text(ledger.layout.iterations, errors="replace")
    except FileNotFoundError:
        return ""


def build(
    base: Base, ordered: list[Round], *, unsealed: dict[int, tuple[Stamp, str]],
    counts: dict[str, int], missing: list[int], history: History, ledger: Ledger,
) -> Snapshot | None:
    """The snapshot of a whole read (`ordered`: every round as checked, in order)."""
    if base.hashes is None or history.problems:
        return None
    log = ledger.closed_log
    keep = working_set(ordered)
    logged, _problems = log.latest()
    text = _iterations_text(ledger)
    rows = rows_check(text, ordered, {n for n, e in logged.items() if e.hashes.get("row")})
    summary = log.summary(numbers=keep)
    if summary is None:
        return None
    return Snapshot(
        key=base.key, numbers=base.numbers, marks=base.marks, hashes=base.hashes,
        rounds={r.number: round_to_dict(r) for r in ordered if r.number in keep},
        flags={r.number: [list(r.tampered), r.unlogged, r.unverified] for r in ordered if r.number in keep},
        unsealed={n: [list(stamp), sha] for n, (stamp, sha) in unsealed.items()},
        counts=dict(counts), missing=list(missing), history=history_json(history), log=summary,
        iterations={"owned": ledger.owns_iterations(), **rows}, reruns=reruns_map(ordered),
    )


def checked_rounds(snapshot: Snapshot, numbers: list[int] | None = None) -> dict[int, Round]:
    """The working set as checked when the snapshot was made (marks included); of
    `numbers` only when given."""
    out = {}
    for number in snapshot.rounds if numbers is None else numbers:
        data = snapshot.rounds[number]
        record = round_from_dict(data)
        tampered, unlogged, unverified = snapshot.flags[number]
        record.tampered, record.unlogged, record.unverified = list(tampered), bool(unlogged), bool(unverified)
        out[number] = record
    return out


def as_found(record: Round) -> Round:
    """What the file held of a round whose check only marked it (its marks cleared)."""
    found = copy.deepcopy(record)
    found.tampered, found.unlogged, found.unverified = [], False, False
    return found


def refresh(
    snapshot: Snapshot, ordered: list[Round], written: set[int], *,
    unsealed: dict[int, tuple[Stamp, str]], counts: dict[str, int], missing: list[int],
    ledger: Ledger,
) -> Snapshot | None:
    """The snapshot after this process's writes of the rounds `written` (`ordered`: the
    rounds the writes were made on, in order, the working set among them); None when it
    cannot say (ITERATIONS.md not pto-tui's own, the chain not as anchored)."""
    runs = ledger.layout.runs
    log = ledger.closed_log
    history = _history(log, ledger)
    if history is None or not snapshot.iterations.get("owned") or not ledger.owns_iterations():
        return None
    folders = dict(zip(snapshot.numbers, zip(snapshot.marks, snapshot.hashes, strict=True), strict=True))
    fresh = sorted(written)
    marks = marks_of(runs, fresh)
    hashes = scan(runs, fresh, marks)
    if hashes is None:
        return None
    folders.update(zip(fresh, zip(marks, hashes, strict=True), strict=True))
    numbers = sorted(folders)
    # the snapshot's working set and the rounds written stand for every round (what a
    # command on the snapshot reads): a campaign holding all its rounds need not ask all
    ordered = [r for r in ordered if r.number in snapshot.rounds or r.number in written]
    keep = working_set(ordered)
    summary = log.summary(numbers=keep)
    if summary is None or not keep <= {r.number for r in ordered}:
        return None
    reruns = {n: list(r) for n, r in snapshot.reruns.items()}
    for record in ordered:
        if record.number in written and record.rerun_of is not None:
            known = reruns.setdefault(record.rerun_of, [])
            if record.number not in known:
                known.append(record.number)
                known.sort()
    iterations = {"owned": True,
                  "differing": [n for n in snapshot.iterations["differing"] if n not in written],
                  "missing": [n for n in snapshot.iterations["missing"] if n not in written]}
    return Snapshot(
        key=key_of(ledger), numbers=numbers, marks=[folders[n][0] for n in numbers],
        hashes=[folders[n][1] for n in numbers],
        rounds={r.number: round_to_dict(r) for r in ordered if r.number in keep},
        flags={r.number: [list(r.tampered), r.unlogged, r.unverified] for r in ordered if r.number in keep},
        unsealed={n: [list(stamp), sha] for n, (stamp, sha) in unsealed.items()},
        counts=dict(counts), missing=list(missing), history=history_json(history), log=summary,
        iterations=iterations, reruns=reruns,
    )


def _history(log: ClosedLog, ledger: Ledger) -> History | None:
    """The chain against its anchor after the writes; None when it has a problem (a whole
    read then names it)."""
    anchor, unreadable = read_anchor(ledger.layout.root)
    if unreadable or anchor is None:
        return None
    history = compare(log.chain(), anchor, log.exists())
    return None if history.problems or history.distrusted else history
