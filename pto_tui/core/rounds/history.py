"""The anchor of runs/closed.log's chain, kept outside the project: in the pto-tui home
(`<home>/history/<project id>.json`), one small file per project, moved at every append.

The links of the chain (core/rounds/closed_log.py) show a line changed inside the log; the
anchor shows what links cannot: the chain recomputed from some line on, lines appended with
good links, the log cut short, or deleted. The project id is derived from the project's
folder (its resolved path), so deleting anything inside the project does not lose the
anchor; a project moved or copied elsewhere is a first use there (anchored as found, with a
notice).

It protects against an editor of the project folder only: someone who can also write the
pto-tui home can move the anchor with the chain, and edits made before the first use on a
machine (no anchor yet) cannot be told from pto-tui's own writes.

What pto-tui found wrong when it appended (lines after the anchored head, a rewritten
chain) is kept in the anchor (`foreign`, `rewritten`), so a later append that moves the
head past them does not make them disappear.

An append is told to the anchor first (`pending`: the line about to be written, in full),
then written to the log, then the anchor moves to it: a crash or a full disk between any
two of these leaves a state the next read settles (`settled`; tamper.py completes a close
whose round.toml was written but whose line was not), never a log line the anchor does not
know, which would read as added by hand for ever.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pto_tui.core.atomic import atomic_write_text
from pto_tui.core.errors import DiskFullError
from pto_tui.core.paths import app_home
from pto_tui.core.rounds.closed_log import ClosedLog, Prepared
from pto_tui.core.rounds.log_chain import Chain
from pto_tui.core.rounds.log_lines import LogEntry


@dataclass(frozen=True)
class Pending:
    """The line pto-tui is about to append: its place, hash and text, and the round.toml
    hash it logs (a close whose round.toml was written but not its line is completed)."""

    seq: int
    head: str
    line: str
    round: int = -1
    sha256: str = ""


@dataclass
class Anchor:
    seq: int  # the head's sequence number (-1: anchored before any line)
    head: str  # the head line's SHA-256
    root: str = ""  # the project folder, for a person reading the home
    foreign: list[int] = field(default_factory=list)  # seqs pto-tui did not write
    rewritten: list[str] = field(default_factory=list)  # what was found rewritten or cut
    pending: Pending | None = None  # an append under way (module docstring)


@dataclass
class History:
    """The chain against its anchor: what `status --json` shows as `history`."""

    entries: int
    head_seq: int
    head: str
    anchored: bool  # an anchor exists for this project (after this read)
    problems: list[str] = field(default_factory=list)  # each break, named
    notices: list[str] = field(default_factory=list)  # said once (first anchoring)
    distrusted: frozenset[int] = frozenset()  # seqs not to be used
    rewritten_upto: int = -1  # entries up to this seq cannot be vouched for

    def to_json(self) -> dict[str, Any]:
        return {
            "entries": self.entries,
            "head": {"seq": self.head_seq, "sha256": self.head} if self.head else None,
            "anchored": self.anchored,
            "problems": list(self.problems),
        }


def project_id(root: Path) -> str:
    """Stable for a project folder: nothing inside the project can change it."""
    return hashlib.sha256(str(root.resolve()).encode("utf-8")).hexdigest()[:24]


def anchor_path(root: Path) -> Path:
    return app_home() / "history" / f"{project_id(root)}.json"


def read_anchor(root: Path) -> tuple[Anchor | None, str]:
    """The project's anchor (None when there is none), and why an existing one could not be
    read ("" when it could)."""
    path = anchor_path(root)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        pending = data.get("pending")
        return Anchor(
            seq=int(data["seq"]), head=str(data["head"]), root=str(data.get("root", "")),
            foreign=[int(s) for s in data.get("foreign", [])],
            rewritten=[str(s) for s in data.get("rewritten", [])],
            pending=None if pending is None else Pending(
                int(pending["seq"]), str(pending["head"]), str(pending["line"]),
                int(pending.get("round", -1)), str(pending.get("sha256", ""))),
        ), ""
    except FileNotFoundError:
        return None, ""
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        return None, f"{path}: unreadable anchor ({error})"


def write_anchor(root: Path, anchor: Anchor) -> None:
    anchor.root = str(root.resolve())
    document = {
        "seq": anchor.seq, "head": anchor.head, "root": anchor.root,
        "foreign": sorted(set(anchor.foreign)), "rewritten": list(dict.fromkeys(anchor.rewritten)),
    }
    if anchor.pending is not None:
        p = anchor.pending
        document["pending"] = {"seq": p.seq, "head": p.head, "line": p.line, "round": p.round,
                               "sha256": p.sha256}
    atomic_write_text(anchor_path(root), json.dumps(document, indent=1) + "\n")


def compare(chain: Chain, anchor: Anchor | None, log_exists: bool) -> History:
    """The chain's breaks and its head against the anchor (pure: no file is read).
    `chain.seqs` is needed only when the head is not the anchored one."""
    history = History(chain.entries, chain.head_seq, chain.head, anchor is not None,
                      problems=list(chain.breaks))
    if anchor is None:
        return history
    anchor = settled(anchor, chain)
    history.problems += [f"runs/closed.log: {why}" for why in anchor.rewritten]
    foreign = {s for s in anchor.foreign if s <= chain.head_seq}
    if not log_exists:
        if anchor.seq >= 0:
            history.problems.append(
                f"runs/closed.log is gone: pto-tui wrote {anchor.seq + 1} entries of it "
                "(anchored in the pto-tui home)"
            )
        return history
    if chain.head_seq == anchor.seq and chain.head == anchor.head:
        pass
    elif chain.head_seq < anchor.seq:
        history.problems.append(
            f"runs/closed.log was cut short or rewritten: its chain ends at entry "
            f"{chain.head_seq}, pto-tui wrote up to entry {anchor.seq}"
        )
        history.rewritten_upto = chain.head_seq
    elif chain.seqs.get(anchor.seq) == anchor.head:
        after = set(range(anchor.seq + 1, chain.head_seq + 1))
        foreign |= after
        history.problems.append(
            f"runs/closed.log has {len(after)} entr{'y' if len(after) == 1 else 'ies'} after the "
            f"head pto-tui wrote (entry {anchor.seq}): added by hand, not used"
        )
    else:
        history.problems.append(
            f"runs/closed.log was rewritten: entry {anchor.seq} is not the one pto-tui wrote "
            f"(the chain was recomputed); entries up to it cannot be vouched for"
        )
        history.rewritten_upto = anchor.seq
    if anchor.foreign:
        listed = ", ".join(str(s) for s in sorted(foreign)[:8])
        history.problems.append(f"runs/closed.log entries {listed} were not written by pto-tui")
    history.distrusted = frozenset(foreign)
    return history


def advanced(anchor: Anchor | None, history: History, seq: int, head: str) -> Anchor:
    """The anchor after pto-tui appended entry `seq` (hash `head`) to a chain that compared
    as `history` before: the head moves, and what was wrong stays named."""
    moved = Anchor(seq, head)
    if anchor is not None:
        moved.foreign = sorted(set(anchor.foreign) | set(history.distrusted))
        moved.rewritten = list(anchor.rewritten)
        if history.rewritten_upto >= 0 or (anchor.seq >= 0 and history.head_seq < anchor.seq):
            moved.rewritten.append(
                f"the chain up to entry {max(history.rewritten_upto, history.head_seq)} was found "
                f"rewritten or cut short (pto-tui had written up to entry {anchor.seq})"
            )
    return moved


def settled(anchor: Anchor, chain: Chain) -> Anchor:
    """The anchor as its pending append left it: at the pending line when the log holds it
    (the append happened, the anchor's last move did not), else where it was (pure)."""
    pending = anchor.pending
    if pending is None:
        return anchor
    reached = (chain.head_seq, chain.head) == (pending.seq, pending.head)
    if reached or chain.seqs.get(pending.seq) == pending.head:
        return replace(anchor, seq=pending.seq, head=pending.head, pending=None)
    return replace(anchor, pending=None)


@dataclass(frozen=True)
class Staged:
    """An append told to the anchor: the line, and the anchor once it is written."""

    prepared: Prepared
    moved: Anchor


def stage(log: ClosedLog, root: Path, entry: LogEntry, torch: dict[str, Any] | None = None) -> Staged:
    """The line `entry` makes, told to the anchor as pending before anything is written."""
    anchor, _unreadable = read_anchor(root)
    chain = log.chain()
    base = settled(anchor, chain) if anchor is not None else None
    if (base is not None and not chain.seqs
            and (chain.head_seq, chain.head) != (base.seq, base.head)):
        log.reread()  # the seqs of the chain: which of them pto-tui wrote
        chain = log.chain()
        base = settled(anchor, chain) if anchor is not None else None
    before = compare(chain, base, log.exists())
    prepared = log.prepare(entry, torch)
    moved = advanced(base, before, prepared.seq, prepared.digest)
    held = base or Anchor(chain.head_seq, chain.head)
    write_anchor(root, replace(moved, seq=held.seq, head=held.head, pending=Pending(
        prepared.seq, prepared.digest, prepared.line, entry.number, entry.sha256)))
    return Staged(prepared, moved)


def commit(log: ClosedLog, root: Path, staged: Staged) -> tuple[int, str]:
    """Write a staged line, then move the anchor to it; a full disk at that last step is
    no failure (the pending line names it, the next read settles it)."""
    seq, head = log.write(staged.prepared)
    with contextlib.suppress(DiskFullError):
        write_anchor(root, staged.moved)
    return seq, head
