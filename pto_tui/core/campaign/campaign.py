"""A project's optimisation campaign: the round life-cycle as core calls.

The CLI and the TUI both drive a campaign through these methods: start a round with
its Pre-Edit answers, record its changes, record its measurements, close it with a
verdict. Every write goes through the project lock and is atomic; rules refuse what
the workflow forbids, naming the rule.
"""

from __future__ import annotations

import getpass
import socket
from datetime import UTC, datetime
from pathlib import Path

import tomlkit

from pto_tui.core.campaign.status import CampaignStatus, frontier_of, summarize
from pto_tui.core.errors import InputError, RuleViolation
from pto_tui.core.operators.tunables import apply_parameter, discover
from pto_tui.core.project.config import ProjectConfig, Scalar, workload_fingerprint
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.project.layout import ProjectLayout
from pto_tui.core.project.lock import ProjectLock
from pto_tui.core.rounds.ledger import Ledger, LedgerProblems
from pto_tui.core.rounds.records import (
    CLOSED,
    Amendment,
    Changes,
    EnvironmentNotes,
    Measurement,
    ParamChange,
    PreEdit,
    Round,
)
from pto_tui.core.rounds.render import TorchBaseline
from pto_tui.core.rules.gates import (
    CORRECTNESS_FIRST,
    HONEST_HISTORY,
    HONEST_VERDICT,
    SAME_WORKLOAD,
    VALID_BASELINE,
    Finding,
    loosened_tolerances,
    measurement_findings,
    protected_findings,
    refuse,
    risk_findings,
    scope_findings,
    start_findings,
    tolerance_findings,
)
from pto_tui.core.rules.risk import diff_risks, parameter_risks
from pto_tui.core.rules.scope import changed_protected, outside_scope, protected_hashes
from pto_tui.core.rules.verdict import VerdictResult, decide, invalid_sample_reason
from pto_tui.core.vocabulary import ChangeKind, Verdict
from pto_tui.core.workspace.snapshots import SnapshotStore


def now_text() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Campaign:
    """One project opened for reading, or for writing under the project lock."""

    def __init__(self, root: Path, *, write: bool = False, command: str = "") -> None:
        self.layout = ProjectLayout(root)
        self.lock = ProjectLock(self.layout.state_dir, command=command)
        if write:
            self.lock.acquire()
        self.writable = write
        self.project = ProjectFile(self.layout.project_file)
        self.ledger = Ledger(self.layout)
        self.snapshots = SnapshotStore(root)
        self.warnings: list[str] = []
        self.problems = LedgerProblems()  # of the last rounds() read

    def close(self) -> None:
        self.lock.release()

    def __enter__(self) -> Campaign:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def config(self) -> ProjectConfig:
        return self.project.config

    def _require_write(self) -> None:
        if not self.writable:
            raise InputError("the project is open read-only (another pto-tui holds the lock)")

    # -------------------------------------------------------------- reading

    def rounds(self) -> list[Round]:
        rounds, problems = self.ledger.load_all()
        self.problems = problems
        return rounds

    def round(self, number: int) -> Round:
        if not self.ledger.has_record(number):
            if self.layout.round_dir(number).is_dir():
                raise InputError(
                    f"round {number} exists on disk but has no round.toml",
                    hint="import the hand-written project with `pto-tui import`",
                )
            raise InputError(f"no round {number} in this project")
        return self.ledger.load(number)

    def torch_baseline(self) -> TorchBaseline | None:
        raw = self.project.get_state("torch_baseline")
        if not raw:
            return None
        return TorchBaseline(
            **{k: (v.unwrap() if hasattr(v, "unwrap") else v) for k, v in raw.items()}
        )

    frontier_of = staticmethod(frontier_of)

    def status(self, rounds: list[Round] | None = None) -> CampaignStatus:
        """The campaign at a glance; pass the rounds just read by rounds() to avoid a re-read."""
        if rounds is None:
            rounds = self.rounds()
        last = int(self.project.get_state("last_round", 0))
        on_disk = set(self.ledger.round_numbers())
        self.problems.missing = sorted(
            set(self.problems.missing) | {n for n in range(last + 1) if n not in on_disk and n > 0}
        )
        return summarize(self.config, rounds, self.torch_baseline(), self.problems)

    def gates(self, pre: PreEdit, rounds: list[Round] | None = None) -> list[Finding]:
        """What still blocks a round with these Pre-Edit answers (empty: may start)."""
        return start_findings(pre, self.rounds() if rounds is None else rounds)

    # -------------------------------------------------------------- writing helpers

    def _publish(self, record: Round, diff_text: str | None = None) -> None:
        """Save the record, render its Markdown and ITERATIONS.md."""
        self.warnings += self.ledger.write_round_files(record, diff_text)
        self.ledger.save(record)
        self.warnings += self.ledger.write_iterations(self.rounds(), self.torch_baseline())

    def _parameter_snapshot(self) -> dict[str, Scalar]:
        return {name: t.value for name, t in self.config.tunables.items()}

    # -------------------------------------------------------------- environment and baseline

    def record_environment(self, notes: EnvironmentNotes) -> Round:
        """The environment round's outcome, kept on iter-000 (created open if needed)."""
        self._require_write()
        record = self.ledger.load(0) if self.ledger.has_record(0) else None
        if record is not None and record.is_closed and record.environment is not None:
            raise RuleViolation(
                HONEST_HISTORY,
                "iter-000 is closed with its environment notes; they are not rewritten "
                "(check a changed environment with `pto-tui exec`)",
            )
        if record is None:
            record = Round(
                number=0, phase=self.config.phases[0], opened_at=now_text(), title="baseline"
            )
        record.environment = notes
        self._publish(record)
        return record

    def record_baseline(self, measurement: Measurement, analysis: str = "") -> Round:
        """Close iter-000 with the initial PTO measurement (the reference of every speedup)."""
        self._require_write()
        record = self.ledger.load(0) if self.ledger.has_record(0) else None
        if record is not None and record.is_closed:
            raise RuleViolation(
                HONEST_HISTORY, "the baseline is already recorded; it cannot be rewritten"
            )
        if measurement.build != "ok" or measurement.correctness != "pass":
            why = f" ({measurement.problem})" if measurement.problem else ""
            raise RuleViolation(
                VALID_BASELINE,
                f"the baseline needs a successful build and a passing correctness check{why}",
            )
        problem = invalid_sample_reason(measurement.samples_us)
        if problem:
            raise RuleViolation(VALID_BASELINE, f"the baseline needs valid samples: {problem}")
        if record is None:
            record = Round(
                number=0, phase=self.config.phases[0], opened_at=now_text(), title="baseline"
            )
        measurement.fingerprint = workload_fingerprint(self.config)
        record.measurement = measurement
        record.changes.snapshot = self._parameter_snapshot()
        record.pre_edit.kernel = record.pre_edit.kernel or self._kernel_text()
        record.stability = "stable"
        record.status = CLOSED
        record.closed_at = now_text()
        record.analysis = analysis or record.analysis
        record.snapshot = self.snapshots.take()
        record.protected_hashes = protected_hashes(self.layout.workspace, self.config.protected)
        record.tolerances = dict(self.config.tolerances)
        self._publish(record, diff_text="")
        return record

    def _kernel_text(self) -> str:
        return f"{self.config.operator.name} ({self.config.case.describe()})"

    def set_torch_baseline(self, baseline: TorchBaseline) -> None:
        self._require_write()
        table = tomlkit.table()
        for key, value in baseline.__dict__.items():
            if value is not None:
                table.add(key, value)
        self.project.set("state.torch_baseline", table)
        self.project.save()
        self.warnings += self.ledger.write_iterations(self.rounds(), baseline)

    # -------------------------------------------------------------- the round

    def start_round(
        self,
        pre: PreEdit,
        *,
        phase: str | None = None,
        based_on: int | None = None,
        title: str = "",
        restore: bool = False,
    ) -> Round:
        """Open the next round once every gate passes. `restore` resets the workspace
        to the base round's snapshot first (start again from the best)."""
        self._require_write()
        rounds = self.rounds()
        refuse(self.gates(pre, rounds))
        if phase is not None and phase not in self.config.phases:
            raise InputError(f"unknown phase {phase!r}; phases: {', '.join(self.config.phases)}")
        frontier = self.frontier_of(rounds)
        base_number = based_on if based_on is not None else (frontier.number if frontier else 0)
        base = next((r for r in rounds if r.number == base_number), None)
        if base is None or not base.is_closed:
            raise InputError(
                f"cannot base a round on round {base_number}: it is not a closed round"
            )
        if restore and not base.snapshot:
            raise InputError(
                f"iter-{base_number:03d} has no workspace snapshot (imported from Markdown): "
                "it cannot be restored; start without --restore"
            )
        if restore:
            self.snapshots.restore(base.snapshot)
            for name, value in base.changes.snapshot.items():
                if name in self.config.tunables:
                    self.project.set(f"tunables.{name}.value", value)
            self.project.save()
        elif base.snapshot:
            leftover = self.snapshots.changed_files(base.snapshot)
            if leftover:
                self.warnings.append(
                    f"the workspace differs from iter-{base_number:03d} (the base) in "
                    f"{', '.join(leftover)}: these count as this round's changes; "
                    "start with --restore to begin from the base"
                )
        # never reuse a number: a round folder deleted from disk stays a gap, not a new round
        number = max(self.ledger.next_number(), int(self.project.get_state("last_round", 0)) + 1)
        self.project.set("state.last_round", number)
        self.project.save()
        record = Round(
            number=number,
            phase=phase or self._current_phase(),
            opened_at=now_text(),
            title=title,
            pre_edit=pre,
            base_snapshot=base.snapshot,
        )
        record.changes.based_on = base_number
        record.changes.snapshot = dict(base.changes.snapshot) or self._parameter_snapshot()
        self._publish(record)
        return record

    def set_phase(self, phase: str) -> None:
        """The phase new rounds fall in (the chart's background bands)."""
        self._require_write()
        if phase not in self.config.phases:
            raise InputError(f"unknown phase {phase!r}; phases: {', '.join(self.config.phases)}")
        self.project.set("phases.current", phase)
        self.project.save()

    def _current_phase(self) -> str:
        """The project's current phase; tuning rounds never fall in the baseline phase."""
        phases = self.config.phases
        current = str(self.project.document.get("phases", {}).get("current") or phases[0])
        if current == phases[0] and len(phases) > 1:
            return phases[1]
        return current

    def open_round(self, number: int | None = None) -> Round:
        """The open round (the newest one when number is None)."""
        return self._open_round(number)

    def preflight(self, record: Round) -> None:
        """Everything that would refuse this round's measurements, checked before spending
        time on a build and a benchmark."""
        self._check_workload()
        self._check_integrity(record)
        refuse(risk_findings(record.changes.high_risk, record.changes.risk_justification))

    def _open_round(self, number: int | None) -> Round:
        rounds = self.rounds()
        if number is None:
            open_rounds = [r for r in rounds if not r.is_closed and not r.is_baseline]
            if not open_rounds:
                raise InputError("no open round: start one with `pto-tui round start`")
            return open_rounds[-1]
        record = self.round(number)
        if record.is_closed:
            raise RuleViolation(
                HONEST_HISTORY,
                f"round {number} is closed; a closed round cannot be changed (use `pto-tui amend`)",
            )
        return record

    def record_changes(
        self,
        number: int | None = None,
        *,
        kind: ChangeKind | None = None,
        description: str = "",
        parameters: dict[str, Scalar] | None = None,
        bug_fix: str = "",
        risk_justification: str = "",
        tolerance_approval: str = "",
    ) -> Round:
        """Detect the files changed against the round's base, apply parameter changes to
        the source and project.toml, check the editable scope, and write files.txt and
        patch.diff. Refusals happen before anything is written."""
        self._require_write()
        record = self._open_round(number)
        changes = record.changes
        changes.bug_fix = bug_fix or changes.bug_fix
        changes.risk_justification = risk_justification or changes.risk_justification
        changes.tolerance_approval = tolerance_approval or changes.tolerance_approval
        source_root = self.layout.workspace / self.config.operator.kind.workspace_subdir
        requested = dict(parameters or {})
        for name, value in requested.items():
            tunable = self.config.tunables.get(name)
            if tunable is None:
                known = ", ".join(self.config.tunables) or "none"
                raise InputError(f"unknown parameter {name!r}; tunables: {known}")
            if tunable.allowed and value not in tunable.allowed:
                raise InputError(
                    f"{name}={value!r} is not allowed; allowed values: "
                    + ", ".join(str(v) for v in tunable.allowed)
                )
        # hand edits so far: protected files and the declared scope are checked first
        self._check_integrity(record)
        hand_files = (
            self.snapshots.changed_files(record.base_snapshot) if record.base_snapshot else []
        )
        edited_params = self._edited_parameters(source_root, changes)
        scope = record.pre_edit.scope
        # a hand-edited constant is covered by its own name or by its file being in scope
        edited_stray = [
            name
            for name in edited_params
            if name not in scope and outside_scope([self._tunable_file(name)], [], scope)
        ]
        stray = outside_scope(
            self._files_not_explained(hand_files, edited_params, scope), list(requested), scope
        )
        refuse(scope_findings([*stray, *edited_stray], scope))
        for name, value in requested.items():
            apply_parameter(source_root, self.config.tunables[name], value)
            self._note_parameter(changes, name, value)
        for name, value in self._edited_parameters(source_root, changes).items():
            self._note_parameter(changes, name, value)
        self.project.save()
        changes.files = (
            self.snapshots.changed_files(record.base_snapshot) if record.base_snapshot else []
        )
        diff_text = self.snapshots.diff(record.base_snapshot) if record.base_snapshot else ""
        if kind is None:
            kinds = {self.config.tunables[p.name].kind for p in changes.parameters}
            if kinds == {"env"} and not changes.files:
                kind = ChangeKind.ENVIRONMENT_VARIABLE
            elif kinds:
                kind = ChangeKind.TEMPLATE_PARAMETER
            elif changes.files:
                kind = ChangeKind.CODE
        changes.kind = kind
        changes.description = description or changes.description
        changes.high_risk = diff_risks(diff_text) + parameter_risks(
            (p.name, p.old, p.new) for p in changes.parameters
        )
        self._publish(record, diff_text=diff_text)
        for finding in risk_findings(changes.high_risk, changes.risk_justification):
            self.warnings.append(finding.render() + " before recording measurements")
        return record

    def _edited_parameters(self, source_root: Path, changes: Changes) -> dict[str, Scalar]:
        """Constants and template arguments whose value in the source differs from the
        round's parameter snapshot (edited by hand, or applied by --set)."""
        edited: dict[str, Scalar] = {}
        if not source_root.is_dir():
            return edited
        for found in discover(source_root):
            known = self.config.tunables.get(found.name)
            if known is None or known.kind != found.kind or found.kind == "env":
                continue
            if changes.snapshot.get(found.name, known.value) != found.value:
                edited[found.name] = found.value
        return edited

    def _tunable_file(self, name: str) -> str:
        """Where a tunable lives, relative to the project root."""
        where = self.config.tunables[name].where.split(":")[0]
        return f"workspace/{self.config.operator.kind.workspace_subdir}/{where}"

    def _files_not_explained(
        self, files: list[str], params: dict[str, Scalar], scope: list[str]
    ) -> list[str]:
        """Changed files, less those whose only change is a parameter in the scope."""
        explained = {
            self._tunable_file(name)
            for name in params
            if name in scope and self.config.tunables[name].where
        }
        return [f for f in files if f not in explained]

    def _check_workload(self) -> str:
        """The workload fingerprint, refused when it differs from the baseline's."""
        baseline = self.ledger.load(0) if self.ledger.has_record(0) else None
        fingerprint = workload_fingerprint(self.config)
        if baseline and baseline.measurement.fingerprint and baseline.measurement.fingerprint != fingerprint:
            raise RuleViolation(
                SAME_WORKLOAD,
                "the workload (case, shapes, benchmark settings) differs from the baseline's: "
                "the comparison is refused",
            )
        return fingerprint

    def _reference_record(self) -> Round | None:
        """The newest closed round that set the protected-file reference (baseline or bug fix)."""
        closed = [r for r in self.rounds() if r.is_closed]
        with_hashes = [r for r in closed if r.protected_hashes or r.is_baseline]
        return max(with_hashes, key=lambda r: r.number, default=None)

    def _check_integrity(self, record: Round) -> None:
        """Protected files (by content hash) and correctness tolerances."""
        reference = self._reference_record()
        if reference is not None:
            current = protected_hashes(self.layout.workspace, self.config.protected)
            changed = changed_protected(reference.protected_hashes, current)
            refuse(protected_findings(changed, record.changes.bug_fix))
        baseline = self.ledger.load(0) if self.ledger.has_record(0) else None
        if baseline is not None:
            loosened = loosened_tolerances(baseline.tolerances, self.config.tolerances)
            refuse(tolerance_findings(loosened, record.changes.tolerance_approval))

    def _note_parameter(self, changes: Changes, name: str, value: Scalar) -> None:
        """Record old -> new against the base snapshot and keep project.toml current."""
        old = changes.snapshot.get(name, self.config.tunables[name].value)
        previous = next((p.old for p in changes.parameters if p.name == name), old)
        changes.parameters = [p for p in changes.parameters if p.name != name]
        if previous != value:
            changes.parameters.append(ParamChange(name=name, old=previous, new=value))
        changes.snapshot[name] = value
        self.project.set(f"tunables.{name}.value", value)

    def record_measurement(self, measurement: Measurement, number: int | None = None) -> Round:
        """Build, correctness and benchmark samples of the open round."""
        self._require_write()
        record = self._open_round(number)
        refuse(
            measurement_findings(measurement.build, measurement.correctness, measurement.samples_us)
        )
        self._check_integrity(record)
        refuse(risk_findings(record.changes.high_risk, record.changes.risk_justification))
        measurement.fingerprint = self._check_workload()
        record.measurement = measurement
        self._publish(record)
        return record

    def close_round(
        self,
        number: int | None = None,
        *,
        analysis: str = "",
        next_step: str = "",
        claimed: Verdict | None = None,
    ) -> Round:
        """Decide the verdict from the measurements and close the round for good.

        `claimed` is the verdict the person expects; a claim the numbers do not support
        is refused (the round stays open)."""
        self._require_write()
        record = self._open_round(number)
        self._check_integrity(record)
        result = self._decide(record)
        if claimed is not None and claimed is not result.verdict:
            raise RuleViolation(
                HONEST_VERDICT,
                f"the measurements give '{result.verdict.value}' ({result.reason}), "
                f"not '{claimed.value}'",
            )
        if record.changes.bug_fix:
            record.protected_hashes = protected_hashes(self.layout.workspace, self.config.protected)
        record.tolerances = dict(self.config.tolerances)
        record.verdict = result.verdict
        record.verdict_reason = result.reason
        record.stability = result.stability
        record.flags = list(result.flags)
        record.analysis = analysis or record.analysis
        record.next = next_step or record.next
        record.status = CLOSED
        record.closed_at = now_text()
        record.snapshot = self.snapshots.take()
        self._publish(record)
        return record

    def preview(self, number: int | None = None) -> Round:
        """The open round as it would close now: verdict, reason, stability and flags filled
        in, nothing written (so Post-Run can be written before the round closes)."""
        record = self._open_round(number)
        result = self._decide(record)
        record.verdict = result.verdict
        record.verdict_reason = result.reason
        record.stability = result.stability
        record.flags = list(result.flags)
        return record

    def _decide(self, record: Round) -> VerdictResult:
        """The verdict of an open round from its measurements against the frontier."""
        m = record.measurement
        if not m.build:
            raise RuleViolation(CORRECTNESS_FIRST, "no build recorded: record the measurement first")
        if m.build == "ok" and not m.correctness and not m.problem:
            raise RuleViolation(
                CORRECTNESS_FIRST, "the build passed but no correctness result is recorded"
            )
        if m.build == "ok" and m.correctness != "fail" and m.problem and not m.samples_us:
            # the run produced no usable result (missing or malformed report, no
            # "test success" line, blocked benchmark): an invalid round
            return VerdictResult(Verdict.FAILURE, f"invalid round: {m.problem}", "")
        rounds = self.rounds()
        frontier = self.frontier_of([r for r in rounds if r.number != record.number])
        baseline = next((r for r in rounds if r.is_baseline), None)
        base_print = baseline.measurement.fingerprint if baseline else ""
        d = self.config.discipline
        return decide(
            build_ok=m.build == "ok",
            correct=m.correctness == "pass",
            same_workload=not (base_print and m.fingerprint and m.fingerprint != base_print),
            samples=m.samples_us,
            frontier=frontier.measurement.samples_us if frontier else [],
            noise_floor=d.noise_floor,
            max_spread=d.max_spread,
            review_gain=d.review_gain,
        )

    def amend(self, number: int, field_name: str, new_value: str, why: str, who: str = "") -> Round:
        """A correction kept beside the original: the original record is never rewritten."""
        self._require_write()
        record = self.round(number)
        if not record.is_closed:
            raise InputError(
                f"round {number} is open: change it directly, amendments are for closed rounds"
            )
        if not why.strip():
            raise InputError("an amendment needs a reason (--why)")
        if field_name == "verdict":
            try:
                Verdict(new_value)
            except ValueError:
                raise InputError(f"unknown verdict {new_value!r}") from None
            old = (record.effective_verdict() or "").__str__()
        elif field_name in ("analysis", "next"):
            old = getattr(record, field_name)
        else:
            raise InputError(f"cannot amend {field_name!r}; amendable: verdict, analysis, next")
        who = who or f"{getpass.getuser()}@{socket.gethostname()}"
        record.amendments.append(
            Amendment(
                who=who, when=now_text(), why=why, field=field_name, old=str(old), new=new_value
            )
        )
        self._publish(record)
        return record

    def delete_round(self, number: int) -> None:
        """Rounds are append-only: deleting a closed round is refused."""
        record = self.round(number)
        if record.is_closed:
            raise RuleViolation(
                HONEST_HISTORY,
                f"round {number} is closed; rounds are never deleted (add an amendment instead)",
            )
        raise RuleViolation(
            HONEST_HISTORY, "rounds are never deleted; close the open round with its result"
        )
