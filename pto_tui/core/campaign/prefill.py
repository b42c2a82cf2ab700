"""Pre-Edit answers drafted from an earlier round, for the person to confirm
(`round start --prefill`, `round gates --prefill`, the TUI's Pre-Edit form).

What carries over is what describes the kernel and the measurement, which stay the
same from round to round: the kernel line, the bottleneck class, the evidence for it,
how correctness is assured, and the hardware checklist notes (ticked: asking for the
draft is the confirmation, and every gate still checks them). What is left empty is
what makes a round a new round: the hypothesis and what follows from it (why it helps
on Ascend, the metric it should improve, its main risk, its scope), and the
three-round rule's re-check and new direction. A copied hypothesis would start a
second round of the same idea without anyone stating it; `round rerun` is the honest
way to measure the same change again.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from pto_tui.core.campaign.status import frontier_of
from pto_tui.core.errors import InputError
from pto_tui.core.project.layout import round_name
from pto_tui.core.rounds.records import ChecklistItem, PreEdit, Round
from pto_tui.core.rounds.render_cycles import perf_sim_evidence

# the PreEdit fields a draft fills, in the form's order
PREFILLED = ("kernel", "bottleneck", "evidence", "correctness_plan")
LEFT_FOR_THE_USER = (
    "hypothesis",
    "why_ascend",
    "expected_metric",
    "main_risk",
    "scope",
    "bottleneck_recheck",
    "new_direction",
)


@dataclass
class Prefill:
    source: int  # the round the draft came from
    pre_edit: PreEdit  # the answers given, completed from the draft
    filled: list[str] = field(default_factory=list)  # fields (and "checklist.KEY") taken from it

    def to_json(self) -> dict[str, Any]:
        return {
            "prefilled_from": self.source,
            "filled": list(self.filled),
            "left_for_the_user": list(LEFT_FOR_THE_USER),
            "pre_edit": asdict(self.pre_edit),
        }


def prefill_source(rounds: Sequence[Round], number: int | None = None) -> Round:
    """The round to draft from: `number`, else the last closed round after the baseline."""
    if number is not None:
        chosen = next((r for r in rounds if r.number == number), None)
        if chosen is None:
            raise InputError(f"no round {number} to prefill the Pre-Edit answers from")
        if chosen.is_baseline:
            raise InputError("iter-000 is the baseline: it has no Pre-Edit answers to prefill from")
        return chosen
    closed = [r for r in rounds if r.is_closed and not r.is_baseline]
    if not closed:
        raise InputError("no closed round after the baseline yet: there is nothing to prefill from")
    return max(closed, key=lambda r: r.number)


def draft_answers(source: Round) -> PreEdit:
    """The draft from `source`: the carried-over fields and the checklist notes."""
    pre = source.pre_edit
    draft = PreEdit(**{key: getattr(pre, key) for key in PREFILLED})
    draft.checklist = {
        key: ChecklistItem(ticked=True, note=item.note)
        for key, item in pre.checklist.items()
        if item.note.strip()
    }
    return draft


def fill_missing(given: PreEdit, draft: PreEdit) -> tuple[PreEdit, list[str]]:
    """`given` with its empty carried-over fields and missing checklist items taken from
    `draft`; what was given always stands. Returns the answers and what was filled."""
    merged = copy.deepcopy(given)
    filled: list[str] = []
    for key in PREFILLED:
        if not str(getattr(merged, key)).strip() and str(getattr(draft, key)).strip():
            setattr(merged, key, getattr(draft, key))
            filled.append(key)
    for key, item in draft.checklist.items():
        mine = merged.checklist.get(key)
        if mine is None or not (mine.ticked and mine.note.strip()):
            merged.checklist[key] = copy.deepcopy(item)
            filled.append(f"checklist.{key}")
    return merged, filled


def prefill(rounds: Sequence[Round], given: PreEdit | None = None, number: int | None = None) -> Prefill:
    """The answers `given` (none: an empty form) completed from round `number`'s (default:
    the last closed round after the baseline)."""
    source = prefill_source(rounds, number)
    answers, filled = fill_missing(given or PreEdit(), draft_answers(source))
    return Prefill(source.number, answers, filled)


def perf_sim_evidence_of(rounds: Sequence[Round]) -> str:
    """The bottleneck evidence perf_sim gives for the next round, "" when no closed round
    has a perf_sim run's pipes: the frontier's (what the next round changes), else the
    latest such round's, named, e.g. `iter-002: perf_sim 44619 cycles: Vector 46% busy, MTE2
    25%, Fixpipe 23% → pipeline bubble / poor overlap`."""
    measured = [r for r in rounds if r.is_closed and r.measurement.pipes]
    if not measured:
        return ""
    frontier = frontier_of(list(rounds))
    if frontier is not None and frontier.measurement.pipes:
        chosen = frontier
    else:
        chosen = max(measured, key=lambda r: r.number)
    return f"{round_name(chosen.number)}: {perf_sim_evidence(chosen.measurement)}"
