"""Closed rounds checked against runs/closed.log: a round.toml rewritten, made unreadable
or removed by hand after pto-tui closed it is *tampered*; the campaign then uses the round
as it was closed (the logged record), marked with what differs, so no hand edit changes
the counts, the frontier or the three-round rule."""

from __future__ import annotations

import copy
from dataclasses import dataclass

from pto_tui.core.errors import InputError
from pto_tui.core.project.layout import round_dir_name
from pto_tui.core.rounds.closed_log import LogEntry, differences
from pto_tui.core.rounds.ledger import Ledger
from pto_tui.core.rounds.record_toml import round_from_dict, round_to_dict
from pto_tui.core.rounds.records import Round


@dataclass(frozen=True)
class Found:
    """One round folder as read: its record (or why not) and the hash of its round.toml."""

    record: Round | None
    error: InputError | None
    sha: str  # "" when the folder has no round.toml


def checked(number: int, found: Found | None, logged: LogEntry | None, log_lost: bool) -> Round | None:
    """The round to use: the record found when it matches its log entry (the model's own
    object, unchanged), else a marked copy or the logged record; None when there is none."""
    where = f"runs/{round_dir_name(number)}/round.toml"
    record = found.record if found is not None else None
    if logged is None:
        if record is not None and record.is_closed and log_lost:
            return _marked(record, ["runs/closed.log is gone: this closed round cannot be checked"])
        if record is not None and record.is_closed and found is not None and found.sha:
            marked = _marked(record, [f"{where} says closed, but pto-tui never closed it"])
            marked.unlogged = True  # never the frontier: nobody measured it here
            return marked
        return record
    if found is None or not found.sha:
        return _as_logged(logged, [f"{where} is gone (closed as {logged.verdict or '-'})"])
    if found.error is not None or record is None:
        return _as_logged(logged, [f"{where} no longer reads as a record"])
    if found.sha != logged.sha256:
        changed = differences(logged.record, round_to_dict(record))
        return _as_logged(logged, changed or [f"{where} was rewritten by hand"])
    return record


def _marked(record: Round, why: list[str]) -> Round:
    marked = copy.deepcopy(record)
    marked.tampered = why
    return marked


def _as_logged(logged: LogEntry, why: list[str]) -> Round:
    record = round_from_dict(logged.record)
    record.tampered = why
    return record


def start_log(ledger: Ledger, records: list[Round]) -> str:
    """Begin runs/closed.log from the closed rounds as found (a project from before the
    log); returns the notice to show once."""
    closed = [r for r in records if r.is_closed]
    for record in closed:
        path = ledger.layout.round_dir(record.number) / "round.toml"
        ledger.log_closed(record, path.read_text(encoding="utf-8"), event="started")
    if not closed:
        return ""
    return (
        f"runs/closed.log begun from the {len(closed)} closed round(s) as found "
        "(a project from before the log): they are taken as they are"
    )
