"""Closing a round with the verdict its measurements give against the best so far, or
previewing that verdict without writing anything."""

from __future__ import annotations

from dataclasses import replace

from pto_tui.core.campaign.checks import (
    check_changes_recorded,
    check_integrity,
    check_open_record,
    check_risks_justified,
    discipline_in_force,
    tolerances_in_force,
)
from pto_tui.core.campaign.context import CampaignContext, now_text
from pto_tui.core.campaign.requests import CloseRequest
from pto_tui.core.campaign.status import frontier_of
from pto_tui.core.project.limits import timed_out
from pto_tui.core.rounds.interleaved import frontier_runs
from pto_tui.core.rounds.placements import nodes_note
from pto_tui.core.rounds.records import CLOSED, Measurement, Round
from pto_tui.core.rules.measurement import verdict_input_findings
from pto_tui.core.rules.review import claimed_verdict_findings
from pto_tui.core.rules.rule import refuse
from pto_tui.core.rules.scope import protected_hashes
from pto_tui.core.rules.verdict import RULE, VerdictResult, decide
from pto_tui.core.rules.workload import same_fingerprint
from pto_tui.core.vocabulary import Verdict


class RoundClosing:
    def __init__(self, campaign: CampaignContext) -> None:
        self.campaign = campaign

    def close_round(self, request: CloseRequest) -> Round:
        """Decide the verdict from the measurements and close the round for good.

        `claimed` is the verdict the person expects; a claim the numbers do not support
        is refused (the round stays open)."""
        campaign = self.campaign
        campaign.require_write()
        record = campaign.open_record(request.number)
        campaign.check_owner(record.number)
        check_open_record(campaign, record)
        check_integrity(campaign, record)  # a protected file edited is named as such
        check_risks_justified(record)
        check_changes_recorded(campaign, record)
        result = self.decide(record)
        refuse(claimed_verdict_findings(request.claimed, result))
        config = campaign.config
        if record.changes.bug_fix:
            record.protected_hashes = protected_hashes(
                campaign.layout.workspace, config.protected, config.editable
            )
        record.tolerances = tolerances_in_force(campaign)
        record.discipline = discipline_in_force(campaign)
        _fill_verdict(record, result)
        record.verdict_rule = RULE
        record.analysis = request.analysis or record.analysis
        record.next = request.next_step or record.next
        record.status = CLOSED
        record.closed_at = now_text()
        record.snapshot = campaign.snapshots.take()
        campaign.publish(record)
        # the next round starts from the frontier (this round, when kept): so do the values
        frontier = campaign.reads.derived(frontier_of)
        if frontier is not None and campaign.note_start_values(frontier.changes.parameter_values):
            campaign.project.save()
        return record

    def preview(self, number: int | None = None) -> Round:
        """The open round as it would close now: verdict, reason, stability and flags filled
        in, nothing written (so Post-Run can be written before the round closes)."""
        record = self.campaign.open_record(number)
        _fill_verdict(record, self.decide(record))
        return record

    def judge_measurement(self, number: int, measurement: Measurement) -> VerdictResult:
        """The verdict of open round `number` if `measurement` were recorded (the loop asks
        it whether more runs could still decide)."""
        record = self.campaign.open_record(number)
        record.measurement = measurement
        return self.decide(record)

    def decide(self, record: Round) -> VerdictResult:
        """The verdict of an open round from its measurements against the frontier; a round
        of an explore group against the round the group is based on (the frontier when it
        started), whatever an earlier round of the group became."""
        if record.group and record.changes.based_on is not None:
            return self.judge(record, self.campaign.reads.round(record.changes.based_on))
        # the round being decided is open, so never the frontier: the model's own frontier
        return self.judge(record, self.campaign.reads.derived(frontier_of))

    def judge(self, record: Round, frontier: Round | None) -> VerdictResult:
        """The verdict the verdict rule gives `record`'s measurements against `frontier`."""
        m = record.measurement
        refuse(verdict_input_findings(m))
        if m.build == "failed" and timed_out(m.problem):  # the build ran past its limit: say so
            return VerdictResult(Verdict.FAILURE, m.problem, "")
        if m.build == "ok" and m.correctness != "fail" and m.problem and not m.samples_us:
            # the run produced no usable result (missing or malformed report, no
            # "test success" line, blocked benchmark): an invalid round
            return VerdictResult(Verdict.FAILURE, f"invalid round: {m.problem}", "")
        rounds = self.campaign.current_rounds()  # in order: the baseline first
        baseline = rounds[0] if rounds and rounds[0].is_baseline else None
        base_print = baseline.measurement.fingerprint if baseline else ""
        d = self.campaign.config.discipline
        against, interleaved = frontier_runs(m, frontier)
        result = decide(
            build_ok=m.build == "ok",
            correct=m.correctness == "pass",
            same_workload=same_fingerprint(base_print, m.fingerprint),
            samples=m.samples_us,
            frontier=against,
            noise_floor=d.noise_floor,
            max_spread=d.max_spread,
            review_gain=d.review_gain,
            confidence=d.confidence,
        )
        nodes = nodes_note(m, frontier)
        if nodes and result.comparison is not None:  # nodes differ in clocks and cooling: say so
            result = replace(result, reason=f"{result.reason}; {nodes}", flags=(*result.flags, nodes))
        if interleaved and result.comparison is not None:
            result = replace(result, reason=f"{result.reason}; {interleaved}")
        elif frontier is not None and frontier.is_baseline and frontier.stability == "noisy":
            # the comparison is only as good as the baseline it is against: say so
            why = next((f for f in frontier.flags if f.startswith("unstable")), "unstable baseline")
            result = replace(result, reason=f"{result.reason} (against an {why})")
        return result


def _fill_verdict(record: Round, result: VerdictResult) -> None:
    record.verdict = result.verdict
    record.verdict_reason = result.reason
    record.stability = result.stability
    record.flags = list(result.flags)
    record.held_for_review = result.held
