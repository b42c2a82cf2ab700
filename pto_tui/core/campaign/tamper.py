"""Closed rounds checked against runs/closed.log: a round.toml rewritten, made unreadable
or removed by hand after pto-tui closed it is *tampered*; the campaign then uses the round
as it was closed (the logged record), marked with what differs, so no hand edit changes
the counts, the frontier or the three-round rule. So is a closed round whose notes.md,
patch.diff or files.txt no longer hash as logged, or whose log line the chain does not
vouch for (`history`: the chain against its anchor in the pto-tui home). A round whose
verdict no trusted line backs (none of its lines vouched for, never logged, the log gone,
the chain rewritten) is also `unverified`: counted apart, never the frontier."""

from __future__ import annotations

import contextlib
import copy
from dataclasses import dataclass
from typing import Any

from pto_tui.core.errors import DiskFullError, InputError
from pto_tui.core.project.layout import round_name
from pto_tui.core.rounds.hashes import SIDE_FILES, file_hash, row_hash, torch_hash
from pto_tui.core.rounds.history import Anchor, History, compare, read_anchor, settled, write_anchor
from pto_tui.core.rounds.ledger import Ledger
from pto_tui.core.rounds.log_lines import LogEntry
from pto_tui.core.rounds.record_toml import round_from_dict, round_to_dict
from pto_tui.core.rounds.records import Round, TorchBaseline
from pto_tui.core.rounds.render import iterations_row


@dataclass(frozen=True)
class Found:
    """One round folder as read: its record (or why not) and the hash of its round.toml."""

    record: Round | None
    error: InputError | None
    sha: str  # "" when the folder has no round.toml


def checked(
    number: int, found: Found | None, logged: LogEntry | None, log_lost: bool, rewritten_upto: int = -1
) -> Round | None:
    """The round to use: the record found when it matches its log entry (the model's own
    object, unchanged), else a marked copy or the logged record; None when there is none.
    A log entry the chain does not vouch for is used as logged, marked; a round whose only
    lines are such is a round pto-tui never closed. `rewritten_upto`: entries up to this
    seq may have been rewritten (the chain was recomputed)."""
    if logged is not None and logged.suspect:
        why = [logged.suspect]
        if logged.event == "suspect":  # no line of it the chain vouches for
            record = found.record if found is not None else None
            if record is None or not record.is_closed:
                return record
            marked = _marked(record, why + _found_mark(number, found))
            # never the frontier nor counted as its verdict: nobody can say pto-tui measured it
            marked.unlogged = marked.unverified = True
            return marked
        return _with_marks(_checked(number, found, logged, log_lost), why)
    result = _checked(number, found, logged, log_lost)
    if logged is not None and 0 <= logged.seq <= rewritten_upto:
        return _unverified(_with_marks(result, [
            f"runs/closed.log entry {logged.seq} of this round cannot be vouched for "
            "(the chain was rewritten)"]))
    return result


def _unverified(record: Round | None) -> Round | None:
    """The round (a copy, unless it is one already) marked as one whose verdict no trusted
    log line backs."""
    if record is None or record.unverified:
        return record
    marked = copy.deepcopy(record)
    marked.unverified = True
    return marked


def _found_mark(number: int, found: Found | None) -> list[str]:
    return [f"runs/{round_name(number)}/round.toml says closed, but no line of "
            "runs/closed.log the chain vouches for closed it"] if found is not None and found.sha else []


def _with_marks(record: Round | None, why: list[str]) -> Round | None:
    if record is None:
        return None
    if record.tampered and all(w in record.tampered for w in why):
        return record
    marked = copy.deepcopy(record)
    marked.tampered = [*record.tampered, *[w for w in why if w not in record.tampered]]
    return marked


def side_changes(ledger: Ledger, number: int, logged: LogEntry) -> list[str]:
    """The round's notes.md, patch.diff and files.txt that no longer hash as logged."""
    folder = ledger.layout.round_dir(number)
    out = []
    for name in SIDE_FILES:
        want = logged.hashes.get(name)
        if want is None:  # a line from before the chain: not covered
            continue
        have = file_hash(folder / name)
        if have != want:
            state = "is gone" if not have else ("appeared" if not want else "changed")
            out.append(f"runs/{round_name(number)}/{name} {state} since the round was closed")
    return out


def _checked(number: int, found: Found | None, logged: LogEntry | None, log_lost: bool) -> Round | None:
    where = f"runs/{round_name(number)}/round.toml"
    record = found.record if found is not None else None
    if logged is None:
        if record is not None and record.is_closed and log_lost:
            marked = _marked(record, ["runs/closed.log is gone: this closed round cannot be checked"])
            marked.unverified = True  # its verdict is the file's, which nothing vouches for
            return marked
        if record is not None and record.is_closed and found is not None and found.sha:
            marked = _marked(record, [f"{where} says closed, but pto-tui never closed it"])
            marked.unlogged = marked.unverified = True  # never the frontier: nobody measured it here
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
    ledger.log_torch(ledger.torch_state())
    return (
        f"runs/closed.log begun from the {len(closed)} closed round(s) as found "
        "(a project from before the log): they are taken as they are"
    )


def check_history(ledger: Ledger, records: list[Round]) -> tuple[History, bool, list[str]]:
    """runs/closed.log's chain against its anchor: the history, whether the log is gone
    (closed rounds cannot be checked), and the notices to show once. Begins the log for a
    project from before it, chains a log from before the chain (once, as found), and
    anchors a chain met for the first time on this machine."""
    log = ledger.closed_log
    root = ledger.layout.root
    anchor, unreadable = read_anchor(root)
    if anchor is not None and anchor.pending is not None:
        anchor = complete_pending(ledger, anchor, records)
    notices: list[str] = []
    anchored_before = anchor is not None and anchor.seq >= 0
    log_lost = not log.exists() and (ledger.log_marker.exists() or anchored_before)
    if not log.exists() and not log_lost:
        notice = start_log(ledger, records)
        notices += [notice] if notice else []
        anchor, unreadable = read_anchor(root)
    if anchor is not None:
        log.distrusted = frozenset(anchor.foreign)
    log.latest()
    history = compare(log.chain(), anchor, log.exists())
    chain = log.chain()
    if (anchor is not None and log.exists() and not chain.seqs
            and (chain.head_seq, chain.head) != (anchor.seq, anchor.head)):
        log.reread()  # a summary keeps no seqs: which line is the anchored one
        history = compare(log.chain(), anchor, log.exists())
    if history.distrusted != log.distrusted:
        log.distrusted = history.distrusted
        log.reread()
    chain = log.chain()
    if log.exists() and chain.entries == 0 and chain.unchained > 0:
        notices.append(chain_log(ledger))
        anchor, unreadable = read_anchor(root)
        log.latest()
        history = compare(log.chain(), anchor, True)
    elif log.exists() and anchor is None and chain.entries > 0 and not unreadable:
        write_anchor(root, Anchor(chain.head_seq, chain.head))
        notices.append(
            f"runs/closed.log anchored on this machine for the first time (entry {chain.head_seq}): "
            "edits made before cannot be told from pto-tui's own"
        )
        history = compare(log.chain(), Anchor(chain.head_seq, chain.head), True)
    history.problems += [unreadable] if unreadable else []
    history.notices = notices
    return history, log_lost, notices


def complete_pending(ledger: Ledger, anchor: Anchor, records: list[Round]) -> Anchor:
    """An append the anchor was told of and a crash or a full disk cut short (history.py):
    a close whose round.toml was written but whose line was not gets its line, as pto-tui
    prepared it, and its ITERATIONS.md row; then the anchor is where the log ends (saved
    when the disk lets it)."""
    pending, log = anchor.pending, ledger.closed_log
    if pending is None:
        return anchor
    log.latest()
    chain = log.chain()
    if ((chain.head_seq, chain.head) == (anchor.seq, anchor.head)
            and pending.sha256 and ledger.file_sha(pending.round) == pending.sha256):
        with contextlib.suppress(DiskFullError):  # then the next read completes it
            log.append_line(pending.line)
            log.latest()
            chain = log.chain()
            _complete_row(ledger, pending.round, records)
    ends = {(anchor.seq, anchor.head), (pending.seq, pending.head)}
    if (chain.head_seq, chain.head) not in ends and log.exists():
        return anchor  # lines after it too: compare() settles it against the whole chain
    done = settled(anchor, chain)
    with contextlib.suppress(DiskFullError, OSError):  # a read still answers
        write_anchor(ledger.layout.root, done)
    return done


def _complete_row(ledger: Ledger, number: int, records: list[Round]) -> None:
    """The ITERATIONS.md row of a close completed from the anchor (its close stopped before
    writing it)."""
    record = next((r for r in records if r.number == number and r.is_closed), None)
    state = ledger.torch_state()
    try:
        torch = TorchBaseline(**state) if state else None
    except TypeError:  # a table of other keys, written by hand
        torch = None
    if record is not None:
        ledger.update_iterations(record, lambda: records, torch)


def chain_log(ledger: Ledger) -> str:
    """Chain a runs/closed.log from before the chain: every round's newest line logged
    again as found (event `chained`, its record as logged, its files as they are now) and
    the torch baseline as project.toml has it; returns the notice to show once."""
    log = ledger.closed_log
    log.reread(records=True)
    latest, _problems = log.latest()
    for number in sorted(latest):
        entry = log.full_entry(number) or latest[number]
        if not entry.record:
            continue
        hashes = {name: file_hash(ledger.layout.round_dir(number) / name) for name in SIDE_FILES}
        try:
            hashes["row"] = row_hash(iterations_row(round_from_dict(entry.record)))
        except (KeyError, ValueError, TypeError):
            hashes["row"] = ""
        hashes["torch"] = torch_hash(ledger.torch_state())
        ledger._append(LogEntry(number, "chained", entry.sha256, entry.verdict, entry.median_us,
                                entry.record, hashes))
    ledger.log_torch(ledger.torch_state())
    return (
        f"runs/closed.log chained from the log as found ({len(latest)} round(s); a log from "
        "before the chain): notes.md, patch.diff, files.txt and the torch baseline are taken as they are"
    )


def differences(logged: dict[str, Any], found: dict[str, Any], limit: int = 6) -> list[str]:
    """What differs between the record as logged and as found, key by key (dotted)."""
    out: list[str] = []
    _compare("", logged, found, out)
    return out[:limit] + ([f"and {len(out) - limit} more"] if len(out) > limit else [])


def _compare(prefix: str, old: Any, new: Any, out: list[str]) -> None:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new), key=str):
            _compare(f"{prefix}{key}.", old.get(key), new.get(key), out)
        return
    if old != new:
        out.append(f"{prefix.rstrip('.')}: {_short(old)} as closed, now {_short(new)}")


def _short(value: Any) -> str:
    text = "none" if value is None else repr(value)
    return text if len(text) <= 40 else text[:39] + "…"
