"""A project's optimisation campaign: the round life-cycle as core calls.

The CLI and the TUI both drive a campaign through these methods: start a round with
its Pre-Edit answers, record its changes, record its measurements, close it with a
verdict. Every write takes the project lock for itself alone (`_writes`) and is atomic;
rules refuse what the workflow forbids, naming the rule.

`Campaign` only composes the steps, each in its own module: the shared context and the
ledger's read model (`context`, `read_model`), opening rounds (`opening`), recording
changes (`changes`) and measurements (`measuring`), closing with a verdict (`closing`),
and amendments (`amendments`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar, cast

from pto_tui.core.campaign import rows_cache
from pto_tui.core.campaign.context import CampaignContext, now_text
from pto_tui.core.campaign.snapshot_model import StatusParts
from pto_tui.core.campaign.status import (
    CampaignStatus,
    frontier_of,
    last_round_notice,
    rows_check,
    summarize,
    with_missing,
)
from pto_tui.core.project.layout import round_name
from pto_tui.core.rounds.numbering import chosen_rounds
from pto_tui.core.rounds.records import EnvironmentNotes, Measurement, PreEdit, Round, TorchBaseline
from pto_tui.core.rounds.reruns import reruns_of
from pto_tui.core.rules.rule import Finding
from pto_tui.core.rules.sequence import start_findings

if TYPE_CHECKING:
    from pto_tui.core.campaign.changes import ChangeRecorder
    from pto_tui.core.campaign.closing import RoundClosing
    from pto_tui.core.campaign.explore import ExploreRequest, Prepared
    from pto_tui.core.campaign.opening import RoundOpening
    from pto_tui.core.campaign.requests import (
        AmendRequest,
        ChangesRequest,
        CloseRequest,
        RerunRequest,
        StartRequest,
    )
    from pto_tui.core.rules.verdict import VerdictResult

# The steps that write (opening, changes, measuring, closing, amendments, and what they
# use: tunable discovery, the verdict statistics, risk and scope rules) are imported when
# first used: a read command (`status`, `rounds`, `show`) starts without them.

__all__ = ["Campaign", "now_text"]

P = ParamSpec("P")
R = TypeVar("R")


def _writes(
    method: Callable[Concatenate[Campaign, P], R],
) -> Callable[Concatenate[Campaign, P], R]:
    """The method writes: it runs holding the project lock, taken for it alone."""

    @functools.wraps(method)
    def locked(self: Campaign, /, *args: P.args, **kwargs: P.kwargs) -> R:
        with self.writing():
            return method(self, *args, **kwargs)

    return locked


_Call = TypeVar("_Call", bound=Callable[..., Any])


def _operation(*, write: bool) -> Callable[[_Call], _Call]:
    def decorate(method: _Call) -> _Call:
        @functools.wraps(method)
        def wrapper(self: CampaignContext, *args: Any, **kwargs: Any) -> Any:
            with self.reads.operation(write=write):
                return method(self, *args, **kwargs)

        return cast(_Call, wrapper)

    return decorate


# A public call is one operation: the ledger is read from disk once for it. A call that
# shows rounds reads every round.toml (tampered marks); a call that records the open
# round only what its rules can see change (read_model: sealed rounds).
_one_read = _operation(write=False)
_one_write = _operation(write=True)


class Campaign(CampaignContext):
    """One project opened for reading, or for writing under the project lock."""

    def __init__(self, root: Path, *, write: bool = False, command: str = "") -> None:
        super().__init__(root, write=write, command=command)

    @functools.cached_property
    def _opening(self) -> RoundOpening:
        from pto_tui.core.campaign.opening import RoundOpening

        return RoundOpening(self)

    @functools.cached_property
    def _changes(self) -> ChangeRecorder:
        from pto_tui.core.campaign.changes import ChangeRecorder

        return ChangeRecorder(self)

    @functools.cached_property
    def _closing(self) -> RoundClosing:
        from pto_tui.core.campaign.closing import RoundClosing

        return RoundClosing(self)

    def __enter__(self) -> Campaign:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -------------------------------------------------------------- reading

    @_one_read
    def rounds(self) -> list[Round]:
        """Every readable round (copies); `problems` says what could not be read."""
        rounds, self.problems = self.reads.rounds()
        return rounds

    @_one_read
    def round(self, number: int) -> Round:
        return self.reads.round(number)

    frontier_of = staticmethod(frontier_of)

    @_one_read
    def status(self, rounds: list[Round] | None = None) -> CampaignStatus:
        """The campaign at a glance; pass the rounds just read by rounds() to avoid a re-read."""
        return self._status(rounds, self.reads.snapshot_status() if rounds is None else None)

    @_one_read
    def shown_round(self, number: int) -> tuple[Round, list[str], list[int]]:
        """Round `number` (`show N`): its record, its marks (its ITERATIONS.md row's
        included) and the rounds that rerun it."""
        taken = self.reads.snapshot_round(number)
        if taken is not None:
            return taken
        record = self.round(number)
        rounds = self.current_rounds()
        tampered = self.status(rounds).tampered.get(number, record.tampered)
        return record, tampered, reruns_of(rounds, number)

    @_one_read
    def some_rounds(
        self, limit: int | None, since: int | None
    ) -> tuple[list[Round], dict[int, Round], CampaignStatus]:
        """The rounds `choose` picks, each checked, the rounds they were based on (their
        predicted change's reference) and the campaign's status as the last whole read
        found it; every round read only when the snapshot cannot say."""
        taken = self.reads.snapshot_status(scanned=False)
        if taken is not None:
            numbers = self.reads.numbers()
            chosen = self.reads.snapshot_records(chosen_rounds(numbers, limit, since))
            if chosen is not None:
                present = set(numbers)
                wanted = sorted({r.changes.based_on for r in chosen
                                 if r.changes.based_on in present} - {r.number for r in chosen})
                refs = self.reads.snapshot_records(wanted)
                if refs is not None:
                    based = {r.number: r for r in chosen + refs}
                    return chosen, based, self._status(None, taken)
            self.reads.forget_taken()
        rounds = self.current_rounds()
        picked = set(chosen_rounds([r.number for r in rounds], limit, since))
        by_number = {r.number: r for r in rounds}
        return [r for r in rounds if r.number in picked], by_number, self._status(rounds, None)

    @_one_read
    def table_lines(self) -> tuple[Iterator[str], CampaignStatus] | None:
        """The round table's lines (rows_cache: each round's row around the campaign's
        speedups and marks) and the status to fill them with, when every round folder's
        files are as the snapshot says; None otherwise (read every round then). Take the
        lines before the campaign is closed: they are read from the file as they go."""
        taken = self.reads.snapshot_status()
        if taken is None:
            return None
        status = self._status(None, taken)
        token = self.reads.snapshot_token()
        state_dir = self.layout.state_dir
        if token is not None and not rows_cache.in_step(state_dir, token):
            self.reads.forget_taken()
            rows_cache.build(state_dir, self.current_rounds(), token)  # every round, once
            if self.reads.snapshot_token() != token:
                return None  # the read made another snapshot: the rows are not its
        if token is None or rows_cache.predicting(state_dir):
            return None  # a predicted change needs the round each was based on: read them all
        return rows_cache.lines(state_dir), status

    def _status(self, rounds: list[Round] | None, taken: StatusParts | None) -> CampaignStatus:
        counts = rows = None
        if taken is not None:  # the working set stands for every round, the counts kept
            rounds, self.problems, counts, rows = taken
        elif rounds is None:
            rounds = self.current_rounds()
        last = int(self.project.get_state("last_round", 0))
        on_disk = self.reads.numbers()
        self.problems.missing = with_missing(self.problems.missing, on_disk, last)
        status = summarize(self.config, rounds, self.torch_baseline(), self.problems, counts)
        status.problems.notices += [n for n in [last_round_notice(on_disk, last)] if n]
        status.problems.notices += self._iterations_edited(rounds, status.tampered, rows)
        torch = self.torch_changed()
        if torch is not None:
            status.problems.notices.append(torch[1])
        history = self.reads.history
        status.history = history.to_json() if history is not None else None
        return status

    def _iterations_edited(
        self, rounds: list[Round], tampered: dict[int, list[str]], rows: dict[str, list[int]] | None = None
    ) -> list[str]:
        """ITERATIONS.md rows edited or removed by hand: the records overrule them, said
        out loud; a closed round's changed row marks it tampered. `rows`: what rows_check
        found, when a snapshot kept it."""
        try:
            text = self.layout.iterations.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            text = ""
        if rows is None:
            logged, _problems = self.ledger.closed_log.latest()
            rows = rows_check(text, rounds, {n for n, e in logged.items() if e.hashes.get("row")})
        notices = []
        for n in rows["differing"]:
            notices.append(f"ITERATIONS.md row of {round_name(n)} differs from its record "
                           "(edited by hand); the record stands")
            tampered.setdefault(n, []).append("its ITERATIONS.md row was edited by hand")
        for n in rows["missing"]:
            notices.append(f"ITERATIONS.md row of {round_name(n)} is gone (removed by hand); "
                           "the record stands")
            tampered.setdefault(n, []).append("its ITERATIONS.md row was removed by hand")
        torch = self.torch_baseline()
        from pto_tui.core.rounds.markdown_torch import section_holds  # the torch record only

        if torch is not None and not section_holds(text, torch):
            notices.append("ITERATIONS.md's torch_npu baseline section is not the one recorded "
                           "(edited or removed by hand); the recorded one stands")
        return notices

    @_one_read
    def gates(self, pre: PreEdit, rounds: list[Round] | None = None) -> list[Finding]:
        """What still blocks a round with these Pre-Edit answers (empty: may start)."""
        return start_findings(pre, self.current_rounds() if rounds is None else rounds)

    # -------------------------------------------------------------- environment and baseline

    @_writes
    @_one_write
    def record_environment(self, notes: EnvironmentNotes) -> Round:
        return self._opening.record_environment(notes)

    @_writes
    @_one_write
    def record_baseline(self, measurement: Measurement, analysis: str = "") -> Round:
        return self._opening.record_baseline(measurement, analysis)

    @_writes
    @_one_write
    def set_torch_baseline(self, baseline: TorchBaseline) -> None:
        self._opening.set_torch_baseline(baseline)

    # -------------------------------------------------------------- the round

    @_writes
    @_one_write
    def start_round(self, request: StartRequest) -> Round:
        return self._opening.start_round(request)

    @_writes
    def rerun_round(self, request: RerunRequest) -> Round:
        """Open the next round as a rerun of an inconclusive round (see `rerun`); the lock
        is held throughout (the workspace is restored in it)."""
        from pto_tui.core.campaign import rerun

        return rerun.rerun_round(self, request)

    @_one_read
    def explore_drafts(self, request: ExploreRequest) -> Prepared:
        """An explore group's base, name, drafted answers and risks, every gate passed
        (nothing written): what is shown for confirmation before `start_group`."""
        from pto_tui.core.campaign import explore

        return explore.prepared(self, request)

    @_writes
    def start_group(self, request: ExploreRequest) -> list[Round]:
        """Open an explore group's rounds (core/campaign/explore.py): every check first,
        then each round as `round start --restore` opens it on the base, its value set as
        `round changes --set` records it, its workspace kept as its snapshot. The lock is
        held throughout."""
        from pto_tui.core.campaign import explore
        from pto_tui.core.campaign.requests import ChangesRequest, StartRequest

        with self.reads.operation(write=True):
            ready = explore.prepared(self, request)
        ready.check_justified(request.risk_justification)
        started = []
        for (title, pre), value in zip(ready.drafts, request.values, strict=True):
            record = self.start_round(StartRequest(pre, phase=request.phase, based_on=ready.base.number,
                                                   title=title, restore=True, group=ready.group))
            self.record_changes(ChangesRequest(record.number, parameters={request.knob: value},
                                               risk_justification=request.risk_justification))
            started.append(self._keep_snapshot(record.number))
        return started

    @_one_write
    def _keep_snapshot(self, number: int) -> Round:
        """The workspace as it is now, kept as open round `number`'s measured state."""
        record = self.open_record(number)
        record.snapshot = self.snapshots.take()
        self.publish(record)
        return record

    @_writes
    @_one_write
    def close_group_round(self, number: int, measurement: Measurement) -> Round:
        """Record an explore group round's measurement and close it, on its own workspace."""
        from pto_tui.core.campaign import explore

        return explore.close_member(self, number, measurement)

    @_writes
    @_one_write
    def set_phase(self, phase: str) -> None:
        self._opening.set_phase(phase)

    @_one_read
    def open_round(self, number: int | None = None) -> Round:
        """The open round (the newest one when number is None)."""
        return self.open_record(number)

    @_one_write
    def preflight(self, record: Round) -> None:
        from pto_tui.core.campaign import checks

        checks.preflight(self, record)

    @_writes
    @_one_write
    def record_changes(self, request: ChangesRequest) -> Round:
        return self._changes.record_changes(request)

    @_writes
    @_one_write
    def record_measurement(self, measurement: Measurement, number: int | None = None) -> Round:
        from pto_tui.core.campaign import measuring

        return measuring.record_measurement(self, measurement, number)

    @_writes
    @_one_write
    def close_round(self, request: CloseRequest) -> Round:
        return self._closing.close_round(request)

    @_one_read
    def preview(self, number: int | None = None) -> Round:
        return self._closing.preview(number)

    @_one_read
    def judge_measurement(self, number: int, measurement: Measurement) -> VerdictResult:
        """The verdict open round `number` would get with `measurement`, nothing written."""
        return self._closing.judge_measurement(number, measurement)

    # -------------------------------------------------------------- amendments

    @_writes
    @_one_read
    def amend(self, request: AmendRequest) -> Round:
        from pto_tui.core.campaign import amendments

        return amendments.amend(self, request)

    @_writes
    @_one_read
    def confirm_review(self, number: int, reason: str, who: str = "") -> Round:
        from pto_tui.core.campaign import amendments

        return amendments.confirm_review(self, number, reason, who)

    @_writes
    @_one_read
    def delete_round(self, number: int) -> None:
        from pto_tui.core.campaign import amendments

        amendments.delete_round(self, number)
