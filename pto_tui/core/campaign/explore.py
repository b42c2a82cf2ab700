"""Explore: several values of one knob as rounds started together, measured at once on
the target's free NPUs, each closed in order with its own verdict against the same base.

An explore group is N rounds, one knob value each (one hypothesis each), all based on the
same round (the frontier, unless asked otherwise). Their Pre-Edit answers are drafted once
(the knob, the value, and, when the costmodel ranks the knob, the ranking's evidence for
that value) and confirmed once; every gate of `round start` applies to each, the group's
earlier rounds counting as rounds without gain for the three-round rule (their verdicts are
not known when it starts). Each round's changes are recorded on the base's workspace with
its value set, and that workspace is kept as the round's snapshot: its own copy is built
and measured (`backends/explore.py`), and the workspace is put back to it when the round's
measurement is recorded and the round closed. A round of the group is judged against the
group's base, whatever an earlier round of the group became (`closing.py`).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from pto_tui.core.campaign.context import CampaignContext
from pto_tui.core.campaign.requests import CloseRequest
from pto_tui.core.campaign.status import frontier_of
from pto_tui.core.errors import InputError
from pto_tui.core.project.config import Scalar
from pto_tui.core.project.layout import round_name
from pto_tui.core.rounds.records import Measurement, PreEdit, Round
from pto_tui.core.rules.risk import risk_findings
from pto_tui.core.rules.rule import Finding, refuse
from pto_tui.core.rules.sequence import start_findings

MAX_CANDIDATES = 16


@dataclass(frozen=True)
class ExploreRequest:
    """Explore `values` of `knob`: one round each, from the Pre-Edit answers `pre` (shared:
    kernel, bottleneck, why, metric, risk, correctness plan, checklist), each drafted with
    its own hypothesis, evidence and scope."""

    knob: str
    values: tuple[Scalar, ...]
    pre: PreEdit
    based_on: int | None = None  # None: the frontier
    risk_justification: str = ""  # for a value the risk rules call high-risk (a bigger tile)
    evidence: Mapping[str, str] = field(default_factory=dict)  # per value (str): a ranking's words
    phase: str | None = None


def group_name(first: int) -> str:
    """The name of a group whose first round is `first`: "explore-004"."""
    return f"explore-{first:03d}"


def draft(request: ExploreRequest, current: Scalar | None, base: Round) -> list[tuple[str, PreEdit]]:
    """(title, Pre-Edit answers) of each candidate round: the shared answers, with the
    value's own hypothesis, its evidence (the ranking's for it, then the shared evidence)
    and the knob as its scope."""
    drafts = []
    for value in request.values:
        pre = copy.deepcopy(request.pre)
        ranked = request.evidence.get(str(value), "")
        pre.evidence = "\n".join(t for t in (ranked, request.pre.evidence) if t.strip())
        shared = request.pre.hypothesis.strip()
        pre.hypothesis = f"{shared} ({request.knob} = {value})" if shared else (
            f"{request.knob} {current} -> {value} makes the kernel faster than {round_name(base.number)}")
        pre.scope = [request.knob]
        drafts.append((f"{request.knob} {current} -> {value} (explore)", pre))
    return drafts


def check_request(request: ExploreRequest, tunables: Mapping[str, object]) -> None:
    if request.knob not in tunables:
        known = ", ".join(tunables) or "none"
        raise InputError(f"unknown knob {request.knob!r}; tunables: {known}", key="knob")
    if not request.values:
        raise InputError("explore needs at least one value of the knob", key="values")
    if len(set(map(str, request.values))) != len(request.values):
        raise InputError(f"a value is given twice: {', '.join(map(str, request.values))}", key="values")
    if len(request.values) > MAX_CANDIDATES:
        raise InputError(f"at most {MAX_CANDIDATES} values at once, got {len(request.values)}", key="values")


def gate_findings(drafts: Sequence[tuple[str, PreEdit]], rounds: list[Round], group: str) -> list[Finding]:
    """Every gate of `round start`, for each round of the group in turn (as if the ones
    before it were started and open), each finding naming its candidate."""
    problems = []
    ahead: list[Round] = []
    for index, (_title, pre) in enumerate(drafts):
        for finding in start_findings(pre, [*rounds, *ahead], group):
            problems.append(replace(finding, message=f"candidate {index + 1}: {finding.message}"))
        ahead.append(Round(number=10**6 + index, group=group))  # open, of the group
    return problems


@dataclass
class Prepared:
    """An explore group before it starts: what is shown once for confirmation."""

    base: Round
    group: str
    drafts: list[tuple[str, PreEdit]]  # (title, Pre-Edit answers) per value
    risks: list[str]  # what makes some value a high-risk change: a justification is needed

    def check_justified(self, justification: str) -> None:
        refuse(risk_findings(self.risks, justification))


def prepared(campaign: CampaignContext, request: ExploreRequest) -> Prepared:
    """The group's base, name, drafts and risks, every gate passed: refused whole (nothing
    written) when a gate refuses any of its rounds or a value is not allowed."""
    from pto_tui.core.campaign.changes import ChangeRecorder

    config = campaign.config
    check_request(request, config.tunables)
    rounds = campaign.current_rounds()
    base = base_round(rounds, request.based_on, campaign.reads.derived(frontier_of))
    first = max([r.number for r in rounds] + [int(campaign.project.get_state("last_round", 0))]) + 1
    group = group_name(first)
    current = base.changes.parameter_values.get(request.knob, config.tunables[request.knob].value)
    drafts = draft(request, current, base)
    refuse(gate_findings(drafts, rounds, group))  # nothing is written while one would refuse
    risks = ChangeRecorder(campaign).candidate_risks(request.knob, current, request.values)
    return Prepared(base, group, drafts, risks)


def base_round(rounds: list[Round], based_on: int | None, frontier: Round | None) -> Round:
    number = based_on if based_on is not None else (frontier.number if frontier else 0)
    base = next((r for r in rounds if r.number == number), None)
    if base is None or not base.is_closed:
        raise InputError(f"cannot base an explore group on round {number}: it is not a closed round")
    if not base.snapshot:
        raise InputError(f"{round_name(number)} has no workspace snapshot (imported from Markdown): "
                         "an explore group cannot start from it")
    return base


def close_member(campaign: CampaignContext, number: int, measurement: Measurement) -> Round:
    """Record a group round's measurement and close it, its workspace put back first (the
    checks at each step look at the workspace the round measured)."""
    from pto_tui.core.campaign import measuring
    from pto_tui.core.campaign.closing import RoundClosing

    record = campaign.open_record(number)
    if not record.group:
        raise InputError(f"{round_name(number)} is not a round of an explore group")
    if record.snapshot:
        campaign.snapshots.restore(record.snapshot)
    measuring.record_measurement(campaign, measurement, number)
    return RoundClosing(campaign).close_round(CloseRequest(number))


def group_rounds(rounds: Sequence[Round], group: str) -> list[Round]:
    """The rounds of a group, in order."""
    return sorted((r for r in rounds if r.group == group), key=lambda r: r.number)
