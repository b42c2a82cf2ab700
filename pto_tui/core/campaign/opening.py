"""Opening rounds: the environment and baseline records on iter-000, the PyTorch
reference, the phase new rounds fall in, and starting a tuning round once its gates
pass."""

from __future__ import annotations

import tomlkit

from pto_tui.core.campaign.checks import current_workload_reads, discipline_in_force, tolerances_in_force
from pto_tui.core.campaign.context import CampaignContext, now_text
from pto_tui.core.campaign.requests import StartRequest
from pto_tui.core.campaign.status import frontier_of
from pto_tui.core.errors import InputError
from pto_tui.core.operators.case_strings import case_text
from pto_tui.core.project.config import Scalar, workload_fingerprint
from pto_tui.core.project.layout import MAX_ROUND, round_name
from pto_tui.core.project.modes import sample_unit_of
from pto_tui.core.rounds.records import CLOSED, EnvironmentNotes, Measurement, Round, TorchBaseline
from pto_tui.core.rules.history import baseline_rewrite_findings, environment_rewrite_findings
from pto_tui.core.rules.measurement import baseline_findings
from pto_tui.core.rules.rule import refuse
from pto_tui.core.rules.scope import protected_hashes
from pto_tui.core.rules.sequence import declared_environment_findings, environment_findings, start_findings
from pto_tui.core.rules.verdict import stability_of
from pto_tui.core.vocabulary import COSTMODEL_PHASE


class RoundOpening:
    def __init__(self, campaign: CampaignContext) -> None:
        self.campaign = campaign

    # -------------------------------------------------------------- iter-000

    def record_environment(self, notes: EnvironmentNotes) -> Round:
        """The environment round's outcome, kept on iter-000 (created open if needed). It
        may be repeated until the baseline closes iter-000; every earlier attempt is kept.
        Probes given by hand pass only when declared with a reason."""
        self.campaign.require_write()
        self.campaign.check_owner(0)
        refuse(declared_environment_findings(notes.declared_by, notes.passed, notes.declared_reason))
        record = self.campaign.baseline_record()
        check_environment_may_run(record)
        record = record or self._new_baseline_round()
        if record.environment is not None:
            record.environment_attempts.append(record.environment)
        notes.at = notes.at or now_text()
        record.environment = notes
        self.campaign.publish(record)
        return record

    def record_baseline(self, measurement: Measurement, analysis: str = "") -> Round:
        """Close iter-000 with the initial PTO measurement (the reference of every speedup)."""
        campaign = self.campaign
        campaign.require_write()
        campaign.check_owner(0)
        record = campaign.baseline_record()
        check_baseline_may_run(record)
        refuse(baseline_findings(measurement))
        record = record or self._new_baseline_round()
        config = campaign.config
        measurement.fingerprint = workload_fingerprint(config)
        measurement.workload_reads = current_workload_reads(campaign)  # what later rounds keep
        measurement.target_mode = config.target.mode.value
        measurement.unit = sample_unit_of(config.target.mode)  # cycles in perf-sim
        record.measurement = measurement
        record.changes.parameter_values = campaign.parameter_values()
        record.pre_edit.kernel = record.pre_edit.kernel or self._kernel_text()
        # honest from the samples: a noisy baseline is recorded (and shown) as noisy
        record.stability, spread = stability_of(measurement.samples_us, config.discipline.max_spread)
        if record.stability == "noisy":
            record.flags = [f"unstable baseline: {spread}"]
        record.discipline = discipline_in_force(campaign)
        record.status = CLOSED
        record.closed_at = now_text()
        record.analysis = analysis or record.analysis
        record.snapshot = campaign.snapshots.take()
        record.protected_hashes = protected_hashes(
            campaign.layout.workspace, config.protected, config.editable
        )
        record.tolerances = tolerances_in_force(campaign)
        campaign.publish(record, diff_text="")
        return record

    def _new_baseline_round(self) -> Round:
        phase = self.campaign.config.phases[0]
        return Round(number=0, phase=phase, opened_at=now_text(), title="baseline")

    def _kernel_text(self) -> str:
        config = self.campaign.config
        return f"{config.operator.name} ({case_text(config.case, config.operator)})"

    def set_torch_baseline(self, baseline: TorchBaseline) -> None:
        campaign = self.campaign
        campaign.require_write()
        table = tomlkit.table()
        for key, value in baseline.__dict__.items():
            if value is not None:
                table.add(key, value)
        campaign.project.set("state.torch_baseline", table)
        campaign.project.save()
        rounds = campaign.current_rounds()  # a project from before the log begins it first
        campaign.ledger.log_torch(campaign.torch_state())  # what a later edit is compared with
        campaign.warnings += campaign.ledger.write_iterations(rounds, baseline)

    # -------------------------------------------------------------- tuning rounds

    def start_round(self, request: StartRequest) -> Round:
        """Open the next round once every gate passes. `restore` resets the workspace
        to the base round's snapshot first (start again from the best); `rerun_of` links
        it to the inconclusive round it measures again (see `rerun`)."""
        campaign = self.campaign
        campaign.require_write()
        campaign.check_owner(None, workspace=True, doing="starting a round")
        campaign.reads.need(request.based_on)  # among the rounds the rules look at
        rounds = campaign.current_rounds()
        refuse(start_findings(request.pre, rounds, request.group))
        if request.phase is not None:
            self._check_phase(request.phase)
        base = _base_round(rounds, request.based_on, campaign.reads.derived(frontier_of))
        if request.restore:
            self._restore(base)
        else:
            self._warn_leftover(base)
        number = self._claim_number()
        record = Round(
            number=number,
            phase=request.phase or self._current_phase(),
            opened_at=now_text(),
            title=request.title,
            pre_edit=request.pre,
            base_snapshot=base.snapshot,
            rerun_of=request.rerun_of,
            group=request.group,
        )
        record.changes.based_on = base.number
        record.changes.parameter_values = dict(base.changes.parameter_values) or campaign.parameter_values()
        campaign.publish(record)
        self._keep_number(number, record.changes.parameter_values)
        return record

    def _restore(self, base: Round) -> None:
        """Reset the workspace and the tunables to the base round's."""
        if not base.snapshot:
            raise InputError(
                f"{round_name(base.number)} has no workspace snapshot (imported from Markdown): "
                "it cannot be restored; start without --restore"
            )
        project = self.campaign.project
        self.campaign.snapshots.restore(base.snapshot)
        for name, value in base.changes.parameter_values.items():
            if name in self.campaign.config.tunables:
                project.set(f"tunables.{name}.value", value)
        project.save()

    def _warn_leftover(self, base: Round) -> None:
        if not base.snapshot:
            return
        leftover = self.campaign.snapshots.changed_files(base.snapshot)
        if leftover:
            self.campaign.warnings.append(
                f"the workspace differs from {round_name(base.number)} (the base) in "
                f"{', '.join(leftover)}: these count as this round's changes; "
                "start with --restore to begin from the base"
            )

    def _claim_number(self) -> int:
        """The next round number, kept in project.toml; a round folder deleted from disk
        stays a gap, never a new round."""
        project = self.campaign.project
        on_disk = self.campaign.reads.numbers()  # as this call's read of the ledger found them
        next_on_disk = (on_disk[-1] + 1) if on_disk else 0
        number = max(next_on_disk, int(project.get_state("last_round", 0)) + 1)
        if number > MAX_ROUND:  # refused before anything is written
            raise InputError(f"round {number} is past the last round number, {MAX_ROUND}")
        return number

    def _keep_number(self, number: int, starts_from: dict[str, Scalar]) -> None:
        """Saved once the round's folder exists: a reader never sees a number claimed
        without its round (a "missing round"). The tunables' values become those the
        round starts from (its base's), not the last round's: `suggest` and the context
        call them current."""
        project = self.campaign.project
        project.set("state.last_round", number)
        self.campaign.note_start_values(starts_from)
        project.save()

    def set_phase(self, phase: str) -> None:
        """The phase new rounds fall in (the chart's background bands)."""
        self.campaign.require_write()
        self._check_phase(phase)
        self.campaign.project.set("phases.current", phase)
        self.campaign.project.save()

    def _check_phase(self, phase: str) -> None:
        phases = self.campaign.config.phases
        if phase not in phases:
            raise InputError(f"unknown phase {phase!r}; phases: {', '.join(phases)}")

    def _current_phase(self) -> str:
        """The project's current phase; tuning rounds never fall in the baseline phase."""
        phases = self.campaign.config.phases
        document = self.campaign.project.document
        current = str(document.get("phases", {}).get("current") or phases[0])
        if current != phases[0] or len(phases) == 1:
            return current
        # the phase after the baseline, past the costmodel's own while it is disabled
        later = [p for p in phases[1:] if p != COSTMODEL_PHASE or self.campaign.config.costmodel.enabled]
        return later[0] if later else phases[1]


def check_environment_passed(baseline: Round | None) -> None:
    """The environment round comes first: no baseline before it has passed."""
    refuse(environment_findings(baseline))


def check_environment_may_run(baseline: Round | None) -> None:
    """What refuses an environment round, checked before any probe runs (and again when
    its notes are recorded)."""
    refuse(environment_rewrite_findings(baseline))


def check_baseline_may_run(baseline: Round | None) -> None:
    """What refuses a baseline, checked before anything is built (and again at record)."""
    refuse(baseline_rewrite_findings(baseline))
    check_environment_passed(baseline)


def _base_round(rounds: list[Round], based_on: int | None, frontier: Round | None) -> Round:
    """The closed round a new round starts from: `based_on`, else the best so far."""
    number = based_on if based_on is not None else (frontier.number if frontier else 0)
    base = next((r for r in rounds if r.number == number), None)
    if base is None or not base.is_closed:
        raise InputError(f"cannot base a round on round {number}: it is not a closed round")
    return base
