"""Rerunning an inconclusive round: the same change measured again, as a new round
linked to it (`rerun_of`), the history kept.

The rerun goes through `round start`'s own code path (every gate, the phase, the base
round, the number) with the original's Pre-Edit answers, based on the round the
original was based on; then the workspace is put into the original's measured state
(its closing snapshot) and the changes are recorded as `round changes` records them
(scope, protected files, high-risk detection). The original round is not touched.
"""

from __future__ import annotations

import copy
from typing import Protocol

from pto_tui.core.campaign.requests import ChangesRequest, RerunRequest, StartRequest
from pto_tui.core.errors import InputError
from pto_tui.core.project.config import ProjectConfig
from pto_tui.core.project.layout import round_name
from pto_tui.core.rounds.records import Round
from pto_tui.core.rounds.reruns import rerun_title
from pto_tui.core.rules.history import rerun_findings
from pto_tui.core.rules.rule import refuse
from pto_tui.core.workspace.snapshots import SnapshotStore


class Campaign(Protocol):
    """What a rerun needs of `campaign.Campaign` (not imported: that module composes this one)."""

    @property
    def snapshots(self) -> SnapshotStore: ...

    @property
    def config(self) -> ProjectConfig: ...

    def require_write(self) -> None: ...

    def round(self, number: int) -> Round: ...

    def start_round(self, request: StartRequest) -> Round: ...

    def record_changes(self, request: ChangesRequest) -> Round: ...


# tunables that do not live in the workspace's source: the closing snapshot cannot
# bring their values back, so they are set again as `round changes --set` sets them
_NOT_IN_SOURCE = ("env", "case")


def _check_restorable(original: Round) -> int:
    """The base round of `original`; refused when its measured state cannot be rebuilt."""
    name = round_name(original.number)
    if not original.snapshot:
        raise InputError(
            f"{name} has no workspace snapshot (imported from Markdown): its change cannot be "
            "put back; start a round by hand with `pto-tui round start`"
        )
    if original.changes.based_on is None:
        raise InputError(f"{name} does not record the round it was based on: it cannot be rerun")
    return original.changes.based_on


def rerun_round(campaign: Campaign, request: RerunRequest) -> Round:
    """Open the next round as a rerun of the inconclusive round `request.number`: its
    Pre-Edit answers (the three-round rule's answered anew when given), its base, its
    parameter values and its files; returns the open round."""
    campaign.require_write()
    number = request.number
    original = campaign.round(number)
    refuse(rerun_findings(original))
    based_on = _check_restorable(original)
    phase = original.phase if original.phase in campaign.config.phases else None
    pre = copy.deepcopy(original.pre_edit)
    pre.bottleneck_recheck = request.bottleneck_recheck or pre.bottleneck_recheck
    pre.new_direction = request.new_direction or pre.new_direction
    record = campaign.start_round(
        StartRequest(
            pre,
            phase=phase,
            based_on=based_on,
            title=rerun_title(original),
            restore=True,
            rerun_of=number,
        )
    )
    campaign.snapshots.restore(original.snapshot)
    tunables = campaign.config.tunables
    requested = {
        p.name: p.new
        for p in original.changes.parameters
        if p.name in tunables and tunables[p.name].kind in _NOT_IN_SOURCE
    }
    ch = original.changes
    return campaign.record_changes(
        ChangesRequest(
            record.number,
            kind=ch.kind,
            description=ch.description,
            parameters=requested,
            bug_fix=ch.bug_fix,
            risk_justification=ch.risk_justification,
        )
    )
