"""The checks every measured step repeats: the same workload as the baseline, untouched
protected files, tolerances not loosened, high-risk changes justified. Each gathers what
its rule looks at (hashes, the kernel's reads, the values in force) and refuses with the
findings of the rule's own check in `core/rules`."""

from __future__ import annotations

import os
from dataclasses import asdict
from pathlib import Path

from pto_tui.core.campaign.context import CampaignContext
from pto_tui.core.errors import PtoError, read_utf8
from pto_tui.core.operators.kinds.registry import source_kind
from pto_tui.core.operators.workload_read import WorkloadRead
from pto_tui.core.operators.workload_reads import (
    CPP_SUFFIXES,
    file_reads,
    workload_reads,
)
from pto_tui.core.project.config import ProjectConfig, source_folder, workload_fingerprint
from pto_tui.core.project.kinds.registry import project_kind
from pto_tui.core.project.layout import round_name
from pto_tui.core.rounds.records import CLOSED, Round, newest_reference
from pto_tui.core.rounds.render import render_patch
from pto_tui.core.rules.open_round import changes_recorded_findings, open_record_findings
from pto_tui.core.rules.protected import (
    discipline_changes,
    discipline_findings,
    loosened_tolerances,
    protected_findings,
    tolerance_findings,
)
from pto_tui.core.rules.risk import risk_findings
from pto_tui.core.rules.rule import refuse
from pto_tui.core.rules.scope import changed_protected, protected_hashes
from pto_tui.core.rules.workload import fingerprint_findings, workload_read_findings


def check_workload(campaign: CampaignContext) -> str:
    """The workload fingerprint, refused when it differs from the baseline's (or when the
    kernel no longer reads the workload where the baseline's did)."""
    baseline = campaign.baseline_record()
    fingerprint = workload_fingerprint(campaign.config)
    refuse(fingerprint_findings(baseline.measurement.fingerprint if baseline else "", fingerprint))
    check_workload_reads(campaign)
    return fingerprint


def check_workload_reads(campaign: CampaignContext) -> None:
    """Every read of the workload the baseline's kernel made is still made. Those of a
    baseline recorded before the reads were kept come from its workspace snapshot."""
    baseline = campaign.baseline_record()
    config = campaign.config
    if baseline is None or not baseline.is_closed:
        return
    if not config.case.knobs and not source_kind(config.operator.kind).case_reads_in_source:
        return  # nothing of the workload is read in the source
    recorded = baseline.measurement.workload_reads or snapshot_workload_reads(campaign, baseline.snapshot)
    if recorded:
        folder, _related = _read_places(config)
        refuse(workload_read_findings(recorded, current_workload_reads(campaign), f"workspace/{folder}"))


def current_workload_reads(campaign: CampaignContext) -> list[WorkloadRead]:
    """Where the operator's source in the workspace reads the workload now."""
    return workload_reads_under(campaign.config, campaign.layout.workspace)


def snapshot_workload_reads(campaign: CampaignContext, snapshot: str) -> list[WorkloadRead]:
    """The workload reads of a workspace snapshot (its source files copied out); none when
    the snapshot is gone (imported rounds, a store cleaned by hand)."""
    if not snapshot:
        return []
    import tempfile  # here only: status imports this module and never needs it

    folder, related = _read_places(campaign.config)
    with tempfile.TemporaryDirectory() as tmp:
        try:
            campaign.snapshots.copy_out(snapshot, [folder, *related], Path(tmp), SOURCE_SUFFIXES)
        except (PtoError, OSError, UnicodeDecodeError):
            return []
        return workload_reads_under(campaign.config, Path(tmp))


SOURCE_SUFFIXES = (".py", *CPP_SUFFIXES)


def workload_reads_under(config: ProjectConfig, workspace: Path) -> list[WorkloadRead]:
    """The workload reads of the operator's folder (and its related files) in `workspace`."""
    folder, related = _read_places(config)
    knobs = list(config.case.knobs)
    cpp = source_kind(config.operator.kind).case_reads_in_source
    found = workload_reads(workspace / folder, knobs, list(config.tunables), cpp=cpp)
    for rel in related:  # paths relative to the workspace: prefixed back to the folder's
        found += file_reads(workspace / rel, os.path.relpath(rel, folder), knobs)
    return found


def _read_places(config: ProjectConfig) -> tuple[str, list[str]]:
    """The operator's own folder and its related files, relative to the workspace."""
    operator = config.operator
    subdir = project_kind(operator.kind).workspace_subdir
    return source_folder(config), [f"{subdir}/{r}" for r in operator.related]


def reference_record(campaign: CampaignContext) -> Round | None:
    """The newest closed round that set the protected-file reference (baseline or bug fix)."""
    # asked at every write: kept by the read model until the rounds change
    return campaign.reads.derived(newest_reference)


def check_integrity(campaign: CampaignContext, record: Round) -> None:
    """Protected files (by content hash) and correctness tolerances."""
    config = campaign.config
    reference = reference_record(campaign)
    if reference is not None:
        current = protected_hashes(campaign.layout.workspace, config.protected, config.editable)
        changed = changed_protected(reference.protected_hashes, current)
        refuse(protected_findings(changed, record.changes.bug_fix, shared_kernel_files(campaign)))
    baseline = campaign.baseline_record()
    if baseline is not None:
        loosened = loosened_tolerances(baseline.tolerances, tolerances_in_force(campaign))
        refuse(tolerance_findings(loosened, record.changes.tolerance_approval))
    check_discipline(campaign, record)


def shared_kernel_files(campaign: CampaignContext) -> tuple[str, ...]:
    """The shared file the operator's kernel is built in (the family's common.py), relative
    to the workspace, when the project does not name it related: a change there is kernel
    code, edited in rounds through `new --related`, not a bug fix of a harness file."""
    config = campaign.config
    package = source_kind(config.operator.kind).package_repository
    subdir = project_kind(config.operator.kind).workspace_subdir
    folder = campaign.layout.workspace / source_folder(config)
    repo = package(folder) if config.operator.path and folder.is_dir() else None
    if repo is None or not repo.kernel_home or repo.kernel_home in config.operator.related:
        return ()
    return (f"{subdir}/{repo.kernel_home}",)


def tolerances_in_force(campaign: CampaignContext) -> dict[str, float]:
    """[tolerances], and the bench spec's in the workspace (with the runner's defaults file):
    the runner judges correctness by the spec's, so a value loosened in either place is
    loosened. A bug fix may change the spec (a protected file); only an approval may
    loosen what it judges by."""
    config = campaign.config
    current = dict(config.tolerances)
    bench_spec = str(config.case.options.get("bench_spec", ""))
    read = source_kind(config.operator.kind).runner_tolerances
    if bench_spec and read is not None and config.operator.in_repository:
        root = campaign.layout.workspace / project_kind(config.operator.kind).workspace_subdir
        for key, value in read(root, bench_spec).items():
            current[key] = max(value, current.get(key, value))
    return current


def discipline_in_force(campaign: CampaignContext) -> dict[str, float]:
    return {k: float(v) for k, v in asdict(campaign.config.discipline).items()}


def check_discipline(campaign: CampaignContext, record: Round) -> None:
    """The verdict rules in force are those the newest closed round closed under, unless
    this round justifies the change."""
    rounds = campaign.current_rounds()  # in order: the newest is found from its end
    reference = next((r for r in reversed(rounds) if r.status == CLOSED and r.discipline), None)
    if reference is None or reference.number == record.number:
        return
    changed = discipline_changes(reference.discipline, discipline_in_force(campaign))
    refuse(discipline_findings(changed, reference.number, record.changes.discipline_approval))


def check_risks_justified(record: Round) -> None:
    refuse(risk_findings(record.changes.high_risk, record.changes.risk_justification))


def check_open_record(campaign: CampaignContext, record: Round) -> None:
    """Every gate `round start` and `round changes` applied, applied again to the open
    round's record as it is on disk now: a hand edit of round.toml (an emptied
    hypothesis, an unticked checklist item, scope "**", based_on 99, an unknown knob,
    tflops -1) is refused naming its field, at every later step."""
    if record.is_baseline:
        return
    file = f"runs/{round_name(record.number)}/round.toml"
    config = campaign.config
    files = {p.name: tunable_file(config, p.name) for p in record.changes.parameters
             if p.name in config.tunables and config.tunables[p.name].where}
    refuse(open_record_findings(record, campaign.current_rounds(), config.tunables, file,
                                phases=config.phases, tunable_files=files))


def tunable_file(config: ProjectConfig, name: str) -> str:
    """Where a tunable lives, relative to the project root."""
    where = config.tunables[name].where.split(":")[0]
    return f"workspace/{project_kind(config.operator.kind).workspace_subdir}/{where}"


def check_changes_recorded(campaign: CampaignContext, record: Round) -> None:
    """The workspace holds the changes `round changes` recorded for this open round, and
    no other: an edit made after it (in scope or not), or never recorded, is refused
    until recorded, so the patch, the file list and the snapshot the close takes agree and
    the scope was checked on every change."""
    base = record.base_snapshot
    if record.is_baseline or not base:
        return  # nothing to compare with (rounds from before snapshots)
    folder = campaign.layout.round_dir(record.number)
    try:
        recorded: str | None = read_utf8(folder / "patch.diff")
    except FileNotFoundError:
        recorded = None
    files_now, diff_now = campaign.snapshots.changes(base)
    refuse(changes_recorded_findings(f"runs/{round_name(record.number)}", record.changes.files,
                                     files_now, recorded, render_patch(record, diff_now)))


def preflight(campaign: CampaignContext, record: Round) -> None:
    """Everything that would refuse this round's measurements, checked before spending
    time on a build and a benchmark."""
    check_open_record(campaign, record)
    check_workload(campaign)
    check_integrity(campaign, record)
    check_risks_justified(record)
