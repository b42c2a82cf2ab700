"""`pto-tui import`: a project an agent wrote by hand (Markdown only) made a pto-tui project,
with nothing of its Markdown lost (docs/formats.md §13).

project.toml is written from what the Markdown says (the operator's name, the case, the
tunables of TASK_REQUIREMENTS.md) and, given the operator's source, from the same plan as
`pto-tui new` (its kind, commands and tunables; the source copied into workspace/ unless
the workspace holds files already); the target is the one asked for (local, or an SSH
alias with its work dir, and the mode). The rounds are read into records
(`core/rounds/importer.py`), what the high-risk rule would have asked of each is flagged
(a removed barrier in patch.diff, a bigger tile), and SKILL.md is written when the project
has none. The hand-written Markdown is never modified.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass, replace
from pathlib import Path

import tomlkit

from pto_tui.core.atomic import atomic_write_text, synced_once
from pto_tui.core.campaign.demo import DEMO_DISCIPLINE
from pto_tui.core.campaign.new_target import parse_target
from pto_tui.core.campaign.plan import NewProject
from pto_tui.core.campaign.planning import ProjectAnswers, plan_project
from pto_tui.core.campaign.project_arguments import target_mode
from pto_tui.core.campaign.scaffold import check_case_spec, copy_source, template_dir
from pto_tui.core.errors import InputError, read_text
from pto_tui.core.operators.kinds.registry import source_kind
from pto_tui.core.operators.scan import classify
from pto_tui.core.project.config import CaseConfig, CostmodelConfig, OperatorConfig, Target, Tunable
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.project.kinds.registry import PROJECT_KINDS, project_kind
from pto_tui.core.project.layout import ProjectLayout, round_name
from pto_tui.core.project.lock import ProjectLock
from pto_tui.core.project.parse import parse_config
from pto_tui.core.project.writer import new_project_document
from pto_tui.core.rounds.importer import ImportReport, import_rounds, infer_kind, save_rounds
from pto_tui.core.rounds.ledger import Ledger
from pto_tui.core.rounds.markdown_requirements import Requirements, read_requirements
from pto_tui.core.rounds.records import Round
from pto_tui.core.rules.risk import diff_risks, parameter_risks
from pto_tui.core.rules.scope import protected_hashes
from pto_tui.core.vocabulary import OperatorKind

IMPORTED_SOURCE = "(imported hand-written project)"  # [operator] source without an operator source
_KIND_WORDS = ((OperatorKind.PTO_TILE_LIB, re.compile(r"tile-?lib", re.I)),
               (OperatorKind.PTO_DSL, re.compile(r"pto-?dsl", re.I)))


@dataclass(frozen=True)
class ImportOptions:
    """What the import is told beyond the Markdown: the operator kind, the operator's source
    (copied into workspace/), a case the source lists, and the target."""

    kind: OperatorKind | None = None
    source: Path | None = None
    case: str = ""
    target: str = ""  # local | ssh:ALIAS ("": local)
    work_dir: str = ""
    env_setup: str = ""
    npu: int = 0
    mode: str = ""  # a TargetMode's value ("": npu; a demo operator: demo)
    ssh_config: str = ""


def import_project(root: Path, options: ImportOptions | None = None) -> ImportReport:
    """Import the hand-written project at root, holding the project lock like every other
    write (an agent or the terminal application may be writing too)."""
    options = options or ImportOptions()
    layout = ProjectLayout(root)
    with ProjectLock(layout.state_dir, command="pto-tui import"), synced_once():
        report = ImportReport()
        if _may_write_project(layout, options):
            _write_project(layout, options, report)
        elif options.target or options.mode:
            _retarget(layout, options)
        records = import_rounds(layout, report)
        _flag_risks(layout, records, report)
        save_rounds(layout, records, report)
        _protect(layout)
        report.skill_written = _write_skill(layout)
        _describe(layout, report)
        return report


def _may_write_project(layout: ProjectLayout, options: ImportOptions) -> bool:
    """A project without project.toml gets one; so does an imported one whose workspace is
    still empty when the operator's source is given now (its [state] kept)."""
    if not layout.project_file.exists():
        return True
    if options.source is None:
        return False
    text = read_text(layout.project_file, errors="replace")
    if IMPORTED_SOURCE not in text or _has_workspace(layout):
        raise InputError(
            "this project has its workspace already: the operator's source is given once",
            file=layout.project_file,
            hint="edit project.toml ([operator], [commands], [target]) to change it",
        )
    return True


def _retarget(layout: ProjectLayout, options: ImportOptions) -> None:
    """A repeated import given the target: project.toml's [target] set to it."""
    target = _target(options, None)
    project = ProjectFile(layout.project_file)
    for key, value in (("kind", target.kind.value), ("host", target.host), ("work_dir", target.work_dir),
                       ("env_setup", target.env_setup), ("npu_id", target.npu_id),
                       ("ssh_config", target.ssh_config), ("mode", target.mode.value)):
        project.set(f"target.{key}", value)
    project.save()


def _has_workspace(layout: ProjectLayout) -> bool:
    return any(
        (layout.workspace / spec.workspace_subdir).is_dir()
        and any((layout.workspace / spec.workspace_subdir).iterdir())
        for spec in PROJECT_KINDS.values()
    )


def _target(options: ImportOptions, text: str | None) -> Target:
    """The target asked for; else the one project.toml has (a repeated import), else local."""
    if not options.target and text is not None:
        return parse_config(Path("project.toml"), text).target
    target = parse_target(options.target, options.work_dir, options.env_setup, options.npu)
    mode = target_mode(options.mode) if options.mode else target.mode
    return replace(target, ssh_config=options.ssh_config, mode=mode)


def _kind(layout: ProjectLayout, options: ImportOptions, requirements: Path) -> OperatorKind:
    kind = options.kind or infer_kind(layout)
    text = read_text(requirements, errors="replace") if requirements.is_file() else ""
    kind = kind or next((k for k, words in _KIND_WORDS if words.search(text)), None)
    if kind is None:
        folders = " or ".join(f"{spec.workspace_subdir}/" for spec in PROJECT_KINDS.values())
        raise InputError(
            f"cannot tell the operator kind: workspace/ has no {folders} and TASK_REQUIREMENTS.md "
            "names no kind",
            file=layout.workspace,
            hint="give the operator's source (--source DIR), or the kind (--kind "
            + " or --kind ".join(k.value for k in OperatorKind) + ")",
        )
    return kind


def _listed_case(source: Path, case: CaseConfig) -> str:
    """The name of the case the source lists that is the Markdown's case ("" when none is)."""
    candidate = classify(source) if source.is_dir() else None
    for choice in candidate.cases if candidate else ():
        if dict(choice.shape) == dict(case.shape) and choice.dtype in ("", case.dtype) and (
            choice.causal == case.causal
        ):
            return choice.name
    return ""


def _planned(
    layout: ProjectLayout, options: ImportOptions, found: Requirements, target: Target
) -> NewProject:
    """The plan of `pto-tui new` for the given source, named and cased as the Markdown says."""
    assert options.source is not None
    source = options.source.expanduser().resolve()
    case_name = options.case or _listed_case(source, found.case)
    answers = ProjectAnswers(
        source=source,
        kind=options.kind,
        name=found.operator or None,
        case_name=case_name,
        shape={} if case_name else dict(found.case.shape),
        dtype="" if case_name else found.case.dtype,
        causal=found.case.causal,
        target=target,
    )
    return plan_project(answers)[0]


def _unplanned(
    layout: ProjectLayout, options: ImportOptions, found: Requirements, target: Target
) -> NewProject:
    """A project without an operator source: what the Markdown says, the kind's defaults."""
    kind = _kind(layout, options, layout.requirements)
    source = layout.workspace / project_kind(kind).workspace_subdir
    return NewProject(
        operator=OperatorConfig(
            name=found.operator or layout.root.name, kind=kind, source=IMPORTED_SOURCE
        ),
        source=source,
        case=found.case,
        tunables=source_kind(kind).tunables(source) if source.is_dir() else [],
        target=target,
        costmodel=CostmodelConfig(),
    )


def _tunables(
    spec: NewProject, found: Requirements, report: ImportReport, requirements: Path
) -> list[Tunable]:
    """The source's tunables, and those TASK_REQUIREMENTS.md names that the source does not
    show (kept as declared there, and listed)."""
    tunables = list(spec.tunables)
    known = {t.name for t in tunables}
    for tunable in found.tunables:
        if tunable.name in known:
            continue
        tunables.append(tunable)
        if spec.operator.source != IMPORTED_SOURCE:
            report.problems.append(
                f"{requirements}:{found.tunable_lines.get(tunable.name)}: tunable {tunable.name} is not "
                "found in the operator's source; kept as TASK_REQUIREMENTS.md declares it"
            )
    return tunables


def _write_project(layout: ProjectLayout, options: ImportOptions, report: ImportReport) -> None:
    found = read_requirements(layout.requirements, layout.iterations)
    old = read_text(layout.project_file, errors="replace") if layout.project_file.exists() else None
    target = _target(options, old)
    spec = (_planned if options.source else _unplanned)(layout, options, found, target)
    check_case_spec(spec)
    tunables = _tunables(spec, found, report, layout.requirements)
    text = new_project_document(
        spec.operator, spec.case, tunables, spec.target, spec.costmodel, spec.commands,
        origins=spec.origins, scope=spec.scope, tolerances=spec.tolerances.values,
        tolerances_from=spec.tolerances.origin,
    )
    parse_config(layout.project_file, text)  # never write a file that could not be read back
    for folder in (layout.root / "context", layout.runs, layout.workspace):
        folder.mkdir(parents=True, exist_ok=True)
    if options.source is not None:
        _copy_workspace(layout, spec, options.source, report)
    atomic_write_text(layout.project_file, _with_state(text, old))
    if spec.operator.demo:  # as `pto-tui demo` makes its projects: CPU timings swing more
        project = ProjectFile(layout.project_file)
        for key, value in DEMO_DISCIPLINE.items():
            project.set(f"discipline.{key}", value)
        project.save()
    report.created_project_file = True
    report.operator, report.kind = spec.operator.name, spec.operator.kind.value
    report.case = spec.case.describe()
    report.tunables = [t.name for t in tunables]
    _report_requirements(layout, found, report, tunables)


def _copy_workspace(layout: ProjectLayout, spec: NewProject, source: Path, report: ImportReport) -> None:
    dest = layout.workspace / project_kind(spec.operator.kind).workspace_subdir
    if dest.is_dir() and any(dest.iterdir()):
        report.problems.append(f"{dest}: holds files already; kept as it is, {source} not copied")
        return
    if dest.is_dir():
        dest.rmdir()
    copy_source(spec, source.expanduser().resolve(), dest, layout.root.parent)
    report.workspace = str(source.expanduser().resolve())


def _with_state(text: str, old: str | None) -> str:
    """The new project.toml with the [state] of the one it replaces (a repeated import)."""
    if old is None:
        return text
    state = tomlkit.parse(old).get("state")
    if state is None:
        return text
    document = tomlkit.parse(text)
    document["state"] = state
    return tomlkit.dumps(document)


def _report_requirements(layout: ProjectLayout, found: Requirements, report: ImportReport,
                         tunables: list[Tunable]) -> None:
    if found.case_problem:
        report.problems.append(f"{layout.requirements}:{found.case_problem.removeprefix('line ')}")
    elif found.case_line is None:
        report.problems.append(
            f"{layout.requirements}: no case found (e.g. 'Case: BNSD=1,16,8192,128'); fill in [case]"
        )
    if not found.operator:
        report.problems.append(
            f"{layout.requirements}: no operator named (e.g. 'Operator: flash_attention_score'); "
            f"named after the folder, {layout.root.name}"
        )
    if not tunables:
        report.problems.append(
            f"{layout.requirements}: no tunables found here or in the workspace; fill in [tunables]"
        )


def _flag_risks(layout: ProjectLayout, records: list[Round], report: ImportReport) -> None:
    """What the high-risk rule would have asked of each round: a justification, which
    rounds written by hand never had. Kept as flags (the round is what it was)."""
    for record in records:
        if record.is_baseline:
            continue
        patch = layout.round_dir(record.number) / "patch.diff"
        text = read_text(patch, errors="replace") if patch.is_file() else ""
        params = [(p.name, p.old, p.new) for p in record.changes.parameters]
        risks = diff_risks(text) + parameter_risks(params)
        if not risks:
            continue
        record.changes.high_risk = risks
        for risk in risks:
            flag = (f"[high-risk-justification] runs/{round_name(record.number)}: {risk}; written by "
                    "hand without a justification")
            record.flags.append(flag)
            report.flagged.append(flag)


def _protect(layout: ProjectLayout) -> None:
    """An imported iter-000 takes the workspace as it is now as its protected-file reference
    (what later rounds' harness, tests and workload are checked against): it was measured
    on the agent's copy, which pto-tui never saw."""
    ledger = Ledger(layout)
    if not _has_workspace(layout) or not ledger.has_record(0):
        return
    baseline = ledger.load(0)
    if not baseline.imported or baseline.protected_hashes:
        return
    config = ProjectFile(layout.project_file).config
    baseline.protected_hashes = protected_hashes(layout.workspace, config.protected, config.editable)
    if baseline.protected_hashes:
        ledger.save(baseline)


def _write_skill(layout: ProjectLayout) -> bool:
    """SKILL.md from the template, when the project has none (its own is kept)."""
    path = layout.root / "SKILL.md"
    if path.exists():
        return False
    shutil.copyfile(template_dir() / "SKILL.md", path)
    return True


def _describe(layout: ProjectLayout, report: ImportReport) -> None:
    """The target, the operator as project.toml now has it, and what the project still needs."""
    config = parse_config(layout.project_file, read_text(layout.project_file))
    target = config.target
    where = f"ssh:{target.host} ({target.work_dir})" if target.host else "local"
    report.target = f"{where}, mode {target.mode.value}"
    report.operator = report.operator or config.operator.name
    report.kind = report.kind or config.operator.kind.value
    steps = report.next_steps
    if not _has_workspace(layout):
        steps.append("no operator source in workspace/: give it (--source DIR) before the environment round")
    if not config.target.host and config.target.mode.value == "npu":
        steps.append("the target is this machine with an NPU (local, mode npu): give the NPU host "
                     "(--target ssh:ALIAS --work-dir DIR) if it is another machine")
    steps.append("run the environment round (env) until it passes: the imported notes are no probe")
    if report.imported:
        steps.append("imported rounds were not measured by pto-tui: none leads until confirmed "
                     "(round confirm N --reason) or measured again in a new round")
