"""What every step of the round life-cycle shares: the project's files, its writer lock,
the ledger's read model, and the warnings of the last writes.

`Campaign` is this context with the steps (opening, changes, measurement, closing,
amendments) composed onto it; the steps read and write the project through it, so a
caller that swaps `campaign.project` for a fresh `ProjectFile` is seen by every step.
"""

from __future__ import annotations

import functools
import re
import shutil
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pto_tui.core.campaign.read_model import LedgerReadModel
from pto_tui.core.errors import InputError
from pto_tui.core.project.config import ProjectConfig, Scalar
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.project.layout import ProjectLayout
from pto_tui.core.project.lock import ProjectLock
from pto_tui.core.project.run_claim import blocking_claim, drop_claim, take_claim
from pto_tui.core.rounds.hashes import torch_hash
from pto_tui.core.rounds.ledger import ROUND_FILE, Ledger, LedgerProblems
from pto_tui.core.rounds.records import CLOSED, Round, TorchBaseline, copy_record
from pto_tui.core.rules.history import closed_round_findings
from pto_tui.core.rules.ownership import owner_findings
from pto_tui.core.rules.rule import refuse

if TYPE_CHECKING:
    from pto_tui.core.workspace.snapshots import SnapshotStore

# an unreadable round's problem names its round.toml: which round it is
_ROUND_FILE_AT = re.compile(r"iter-(\d+)/" + re.escape(ROUND_FILE))


def now_text() -> str:
    from datetime import UTC, datetime  # only writes stamp times: read commands start without it

    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class CampaignContext:
    """One project opened for reading, or for writing: each write takes the project lock
    for itself only (`writing`), so another process may write between two of ours."""

    def __init__(self, root: Path, *, write: bool = False, command: str = "") -> None:
        self.layout = ProjectLayout(root)
        self.lock = ProjectLock(self.layout.state_dir, command=command)
        self.writable = write
        self.after_write: Callable[[], None] | None = None  # called still holding the lock
        self._writer = threading.RLock()  # the terminal application writes from threads
        self.project = ProjectFile(self.layout.project_file)
        self.ledger = Ledger(self.layout)
        self.ledger.torch_source = self.torch_state
        self.ledger.rows_follow = True  # publish() writes the row of every round it logs
        self.reads = LedgerReadModel(self.ledger)
        self.warnings: list[str] = []
        self.problems = LedgerProblems()  # of the last rounds() read

    @functools.cached_property
    def snapshots(self) -> SnapshotStore:
        """The workspace snapshots (imported when first used: read commands need none)."""
        from pto_tui.core.workspace.snapshots import SnapshotStore

        return SnapshotStore(self.layout.root, self.config.generated)

    def close(self) -> None:
        self.reads.close()
        self.lock.release()

    @property
    def config(self) -> ProjectConfig:
        return self.project.config

    def require_write(self) -> None:
        if not self.writable:
            raise InputError("the project is open read-only")

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Hold the project lock for one write (nested writes share it). project.toml is
        read again first: another process may have written it since."""
        self.require_write()
        with self._writer:
            if self.lock.held:  # a write within a write
                yield
                return
            with self.lock:
                self.refresh_project()
                try:
                    yield
                finally:
                    if self.after_write is not None:
                        self.after_write()

    @property
    def owner(self) -> str:
        """This campaign's owner token: its lock's, and its runs'."""
        return self.lock.owner

    @contextmanager
    def running(self, number: int | None, what: str) -> Iterator[None]:
        """Own the workspace (and round `number`) for a whole run: another owner's run, its
        writes to that round and its builds are refused until the run ends."""
        with self.writing():
            self.check_owner(number, workspace=True, doing=what)
            taken = take_claim(self.layout.state_dir, owner=self.owner,
                               command=self.lock.command, what=what, number=number)
        try:
            yield
        finally:
            if taken:
                drop_claim(self.layout.state_dir, self.owner)

    def check_owner(self, number: int | None, *, workspace: bool = False, doing: str = "") -> None:
        """Refuse a write to round `number` while another owner runs it; with `workspace`,
        while another owner runs anything (the write changes or builds the workspace)."""
        claim = blocking_claim(self.layout.state_dir, self.owner)
        refuse(owner_findings(claim, number, workspace=workspace, doing=doing))

    def refresh_project(self) -> None:
        """Read project.toml again when it changed on disk since it was read."""
        try:
            text = self.layout.project_file.read_text(encoding="utf-8")
        except OSError:
            return  # ProjectFile names the problem at the next full read
        with self._writer:  # not while a write of this process is under way
            if text != self.project.text:
                self.project = ProjectFile(self.layout.project_file)

    # -------------------------------------------------------------- reading

    def current_rounds(self) -> list[Round]:
        """The rounds as the read model holds them (not to be changed); sets `problems`."""
        rounds, self.problems = self.reads.current()
        return rounds

    def baseline_record(self) -> Round | None:
        """iter-000's record, None while it has none."""
        return self.reads.record(0)

    def torch_state(self) -> dict[str, Any] | None:
        """The torch baseline as project.toml's state holds it (plain values)."""
        raw = self.project.get_state("torch_baseline")
        if not raw:
            return None
        return {k: (v.unwrap() if hasattr(v, "unwrap") else v) for k, v in raw.items()}

    def torch_baseline(self) -> TorchBaseline | None:
        """The torch baseline pto-tui recorded: project.toml's, unless runs/closed.log
        recorded another (project.toml edited by hand: `torch_changed` says so)."""
        state = self.torch_state()
        recorded = self.torch_changed()
        if recorded is not None:
            state = recorded[0]
        try:
            return TorchBaseline(**state) if state else None
        except TypeError:  # a table of other keys, written by hand
            return None

    def torch_changed(self) -> tuple[dict[str, Any] | None, str] | None:
        """The torch baseline the log recorded and a notice, when project.toml's differs
        from it; None when they agree (or nothing was recorded to compare with)."""
        log = self.ledger.closed_log
        if not log.exists():
            return None
        self.reads.seed_log()  # the index's summary of the log: not every record decoded
        chain = log.chain()
        if not chain.torch_logged:
            return None
        state = self.torch_state()
        if torch_hash(state) == torch_hash(chain.torch):
            return None
        def avg(t: dict[str, Any] | None) -> str:
            return f"avg {t.get('avg_us')} us" if t else "none"
        return chain.torch, (
            f"project.toml's state.torch_baseline ({avg(state)}) is not the one pto-tui recorded "
            f"({avg(chain.torch)}): edited by hand; the recorded one is used"
        )

    def open_record(self, number: int | None) -> Round:
        """The open round (the newest one when number is None), a copy to change."""
        if number is None:
            rounds, self.problems = self.reads.current()
            # the newest open one, from the newest end (the rounds come in order)
            newest = next((r for r in reversed(rounds) if r.status != CLOSED and r.number != 0), None)
            if newest is None:
                # a round.toml that cannot be read is no open round: say which and why
                newest_read = max((r.number for r in rounds), default=-1)
                unreadable = [p for p in self.problems.unreadable
                              if (m := _ROUND_FILE_AT.search(p)) and int(m.group(1)) > newest_read]
                why = f" ({unreadable[-1]}; restore the field it names)" if unreadable else ""
                raise InputError(f"no open round{why}", hint="start one with `pto-tui round start`")
            return copy_record(newest)
        record = self.reads.round(number)
        refuse(closed_round_findings(record))
        return record

    # -------------------------------------------------------------- writing

    def publish(self, record: Round, diff_text: str | None = None) -> None:
        """Save the record, render its Markdown and ITERATIONS.md. A new round's folder
        is put together aside and appears whole, its notes and its round.toml in it (each
        written once), so a reader never takes it for a hand-written one; so does an open
        round's round.toml in a folder that has none yet."""
        runs_known = self.reads.runs_known()
        folder = self.layout.round_dir(record.number)
        staging = None if folder.is_dir() else self.ledger.staging_dir(record.number)
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)  # what a crashed write left
        elif not record.is_closed and not (folder / ROUND_FILE).exists():
            self.ledger.save(record)  # the read model takes the final one, below
        self.warnings += self.ledger.write_round_files(record, diff_text, staging)
        self.reads.save(record, runs_known, staged=staging is not None)
        self.warnings += self.ledger.update_iterations(
            record, self.current_rounds, self.torch_baseline()
        )

    def note_start_values(self, values: dict[str, Scalar]) -> bool:
        """[tunables] values as the next round starts from `values`; True when one
        changed (call save() then). Only the knobs outside the source (env, case): a
        source knob's value is the workspace's, which a restore or the round's recorded
        changes write back."""
        tunables = self.config.tunables
        changed = False
        for name, value in values.items():
            known = tunables.get(name)
            if known is not None and known.kind in ("env", "case") and known.value != value:
                self.project.set(f"tunables.{name}.value", value)
                changed = True
        return changed

    def parameter_values(self) -> dict[str, Scalar]:
        """Every tunable's value as project.toml holds it now."""
        return {name: t.value for name, t in self.config.tunables.items()}
