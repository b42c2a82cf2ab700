"""`pto-tui verify`: the whole history checked from the files, trusting no cache.

Reads runs/closed.log line by line (its links), compares its head with the anchor in the
pto-tui home, and hashes every closed round's round.toml, notes.md, patch.diff, files.txt
and ITERATIONS.md row against its newest trusted line, and project.toml's torch baseline
against the one logged. Every break is listed, naming the file (and line). Nothing is
written: a project without an anchor here is reported, not anchored.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from typing import Any

from pto_tui.core.errors import InputError, read_utf8
from pto_tui.core.project.layout import ProjectLayout, round_name
from pto_tui.core.rounds import closed_log
from pto_tui.core.rounds.hashes import SIDE_FILES, file_hash, row_hash, torch_hash
from pto_tui.core.rounds.history import compare, read_anchor
from pto_tui.core.rounds.iterations_table import table_rows
from pto_tui.core.rounds.ledger import ROUND_FILE, Ledger
from pto_tui.core.rounds.log_chain import Chain
from pto_tui.core.rounds.markdown_torch import section_holds
from pto_tui.core.rounds.records import CLOSED, TorchBaseline


@dataclass
class Verification:
    root: str
    entries: int = 0
    head_seq: int = -1
    head: str = ""
    anchored: bool = False
    rounds_checked: int = 0
    breaks: list[str] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not self.breaks

    def to_json(self) -> dict[str, Any]:
        return {
            "project": self.root,
            "clean": self.clean,
            "entries": self.entries,
            "head": {"seq": self.head_seq, "sha256": self.head} if self.head else None,
            "anchored": self.anchored,
            "rounds_checked": self.rounds_checked,
            "breaks": list(self.breaks),
        }


def verify(layout: ProjectLayout) -> Verification:
    """Long on purpose: the checks in the order a reader follows them (the anchor, the
    log, each closed round's files, the ITERATIONS.md rows, the torch baseline), each
    adding its breaks, nothing trusted from a cache."""
    ledger = Ledger(layout)
    result = Verification(str(layout.root))
    anchor, unreadable = read_anchor(layout.root)
    result.breaks += [unreadable] if unreadable else []
    result.anchored = anchor is not None
    log_path = ledger.closed_log.path
    if not log_path.is_file():
        history = compare(Chain(), anchor, False)
        result.breaks += history.problems
        closed = _closed_on_disk(ledger)
        if closed:
            result.breaks.append(
                f"runs/closed.log is missing: {len(closed)} closed round(s) cannot be checked"
            )
        return result
    found = closed_log.read_log(log_path, frozenset(anchor.foreign) if anchor else frozenset())
    history = compare(found.chain, anchor, True)
    if history.distrusted - (set(anchor.foreign) if anchor else set()):
        found = closed_log.read_log(log_path, history.distrusted)
    chain = found.chain
    result.entries, result.head_seq, result.head = chain.entries, chain.head_seq, chain.head
    result.breaks += found.problems + history.problems
    if anchor is None:
        result.breaks.append(
            "runs/closed.log has no anchor on this machine: its history cannot be vouched for "
            "(a status here anchors it as found)"
        )
    if chain.entries == 0 and chain.unchained:
        result.breaks.append("runs/closed.log is from before the chain: a status here chains it")
    pending = anchor.pending if anchor is not None else None
    if (anchor is not None and pending is not None and pending.round >= 0
            and (chain.head_seq, chain.head) == (anchor.seq, anchor.head)
            and file_hash(layout.round_dir(pending.round) / ROUND_FILE) == pending.sha256):
        result.breaks.append(
            f"the close of {round_name(pending.round)} was cut short before its runs/closed.log "
            "line (a crash or a full disk): a status here completes it"
        )
    iterations = _text(layout.iterations)
    rows = table_rows(iterations)
    for number, entry in sorted(found.latest.items()):
        result.rounds_checked += 1
        where = f"runs/{round_name(number)}"
        if entry.suspect:
            result.breaks.append(f"{where}: {entry.suspect}")
        if entry.event == "suspect":
            continue
        if 0 <= entry.seq <= history.rewritten_upto:
            result.breaks.append(f"{where}: its log entry {entry.seq} cannot be vouched for")
        if file_hash(layout.round_dir(number) / ROUND_FILE) != entry.sha256:
            result.breaks.append(f"{where}/{ROUND_FILE} is not the one pto-tui closed")
        for name in SIDE_FILES:
            want = entry.hashes.get(name)
            if want is not None and file_hash(layout.round_dir(number) / name) != want:
                result.breaks.append(f"{where}/{name} is not the one pto-tui closed")
        want_row = entry.hashes.get("row")
        if want_row:
            row = rows.get(number)
            if row is None:
                result.breaks.append(f"ITERATIONS.md: the row of {round_name(number)} is gone")
            elif row_hash(row) != want_row:
                result.breaks.append(
                    f"ITERATIONS.md: the row of {round_name(number)} is not the one pto-tui wrote"
                )
    for number in _closed_on_disk(ledger):
        if number not in found.latest:
            result.breaks.append(f"runs/{round_name(number)}/{ROUND_FILE} says closed, "
                                 "but runs/closed.log never logged it")
    if chain.torch_logged:
        state = ledger.torch_state()
        if torch_hash(state) != torch_hash(chain.torch):
            result.breaks.append("project.toml: state.torch_baseline is not the one pto-tui recorded")
        if chain.torch and chain.torch.get("avg_us") is not None:
            try:
                recorded: TorchBaseline | None = TorchBaseline(**chain.torch)
            except TypeError:
                recorded = None
            if recorded is not None and not section_holds(iterations, recorded):
                result.breaks.append("ITERATIONS.md: the torch_npu baseline section is not the one recorded")
    return result


def _text(path: Any) -> str:
    try:
        return str(path.read_text(encoding="utf-8", errors="replace"))
    except FileNotFoundError:
        return ""


def _closed_on_disk(ledger: Ledger) -> list[int]:
    """Round folders whose round.toml says closed."""
    out = []
    for number in ledger.round_numbers():
        try:
            data = tomllib.loads(read_utf8(ledger.layout.round_dir(number) / ROUND_FILE))
        except (FileNotFoundError, InputError, tomllib.TOMLDecodeError, ValueError):
            continue
        if data.get("status") == CLOSED:
            out.append(number)
    return out
