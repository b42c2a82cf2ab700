"""Recording a round's measurement: build, correctness and benchmark samples, refused
when the workload, the protected files or an unjustified risk would make them unfair."""

from __future__ import annotations

from pto_tui.core.campaign.checks import (
    check_changes_recorded,
    check_integrity,
    check_open_record,
    check_risks_justified,
    check_workload,
)
from pto_tui.core.campaign.context import CampaignContext
from pto_tui.core.project.modes import sample_unit_of
from pto_tui.core.rounds.records import Measurement, Round
from pto_tui.core.rules.measurement import measurement_findings
from pto_tui.core.rules.open_round import measurement_value_findings
from pto_tui.core.rules.rule import refuse


def record_measurement(
    campaign: CampaignContext, measurement: Measurement, number: int | None = None
) -> Round:
    """Build, correctness and benchmark samples of the open round."""
    campaign.require_write()
    record = campaign.open_record(number)
    campaign.check_owner(record.number)
    refuse(measurement_value_findings(measurement))
    refuse(measurement_findings(measurement.build, measurement.correctness, measurement.samples_us))
    check_open_record(campaign, record)
    check_integrity(campaign, record)  # a protected file edited is named as such
    check_risks_justified(record)
    measurement.fingerprint = check_workload(campaign)
    check_changes_recorded(campaign, record)  # last: the checks above name what is wrong
    measurement.target_mode = campaign.config.target.mode.value
    measurement.unit = sample_unit_of(campaign.config.target.mode)  # cycles in perf-sim
    record.measurement = measurement
    campaign.publish(record)
    return record
