"""Create projects/<op>/ from the template (docs/workflow.md §4).

The project is assembled in a temporary folder beside its final place and renamed
into place at the end, so a failure never leaves half a project behind.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path

from pto_tui.core.atomic import atomic_write_text
from pto_tui.core.campaign.new_target import answered_target, check_perf_sim
from pto_tui.core.campaign.plan import NewProject
from pto_tui.core.campaign.requirements import render_requirements
from pto_tui.core.errors import InputError
from pto_tui.core.operators.candidate import Candidate
from pto_tui.core.operators.case_strings import parsed_cases
from pto_tui.core.operators.kinds.registry import source_kind
from pto_tui.core.operators.marker import CaseChoice
from pto_tui.core.operators.repository import OperatorInRepository, repository_tunables
from pto_tui.core.operators.repository_choices import (
    case_config,
    effective_commands,
    repository_cases,
    repository_commands,
    repository_tolerances,
)
from pto_tui.core.operators.scan import classify
from pto_tui.core.paths.patterns import literal
from pto_tui.core.project.command_table import command_texts
from pto_tui.core.project.config import (
    MAX_NAME,
    CaseConfig,
    CostmodelConfig,
    OperatorConfig,
    Scalar,
    Target,
    Tunable,
    default_commands,
    default_protected,
    valid_operator_name,
)
from pto_tui.core.project.kinds.registry import project_kind
from pto_tui.core.project.layout import ProjectLayout
from pto_tui.core.project.parse import parse_config
from pto_tui.core.project.writer import new_project_document
from pto_tui.core.rounds.ledger import Ledger
from pto_tui.core.vocabulary import OperatorKind
from pto_tui.core.workspace.files import DEFAULT_EXCLUDES, copy_filter, repository_excludes
from pto_tui.core.workspace.secrets import refuse_secret


def template_dir() -> Path:
    """The shipped project_template/ (inside the package, a link to the top-level folder)."""
    return Path(str(resources.files("pto_tui") / "project_template"))


def merge_tunables(found: list[Tunable], candidate: Candidate | None) -> list[Tunable]:
    """Tunables declared in the operator's marker win over those discovered in the source."""
    declared = {t.name: t for t in candidate.tunables} if candidate else {}
    return [declared.pop(t.name, t) for t in found] + list(declared.values())


def case_from_choice(choice: CaseChoice) -> CaseConfig:
    """One of the cases an operator lists, as the project's case."""
    return CaseConfig(
        name=choice.name,
        shape=dict(choice.shape),
        dtype=choice.dtype or "float16",
        causal=choice.causal,
        spec=choice.spec,
    )


@dataclass
class ProjectAnswers:
    """What a person says about a new project (docs/workflow.md §1-§3), from flags or a wizard."""

    source: Path
    kind: OperatorKind | None = None  # overrides the classification
    name: str | None = None
    case_name: str = ""  # one of the cases the operator lists
    shape: dict[str, Scalar] = field(default_factory=dict)
    dtype: str = ""
    causal: bool = False
    case_spec: str = ""
    options: dict[str, Scalar] = field(default_factory=dict)
    target: Target = field(default_factory=Target)
    engine: str = ""
    pto_isa: str = ""
    costmodel_tool: str = ""
    requirements: str = ""
    commands: dict[str, str] = field(default_factory=dict)  # the user's own commands
    related: list[str] = field(default_factory=list)  # further editable files (repository)


def _classified(answers: ProjectAnswers) -> tuple[Path, Candidate | None, OperatorKind]:
    source = answers.source.expanduser()
    refuse_secret(source, "operator source", copied=True)
    if not source.exists():
        raise InputError(f"operator source not found: {source}")
    candidate = classify(source) if source.is_dir() else None
    kind = answers.kind or (candidate.kind if candidate else None)
    if kind is None:
        evidence = "\n  ".join(candidate.evidence) if candidate else "no PTO evidence found"
        status = candidate.status if candidate else "unclear"
        raise InputError(
            f"cannot classify {source} ({status}):\n  {evidence}",
            hint="choose the kind yourself (" + " or ".join(f"--kind {k.value}" for k in OperatorKind) + ")",
        )
    return source, candidate, kind


def _listed_case(answers: ProjectAnswers, candidate: Candidate | None) -> CaseConfig:
    """The case from the operator's own list (marker, bench specs beside it) and the flags."""
    listed = CaseConfig()
    cases = candidate.cases if candidate else ()
    if cases and not (answers.case_name or answers.shape or answers.case_spec):
        choices = "\n  ".join(f"{c.name}{f' ({c.spec})' if c.spec else ''}" for c in cases)
        raise InputError(
            f"no case chosen; the operator lists:\n  {choices}",
            hint="choose one (new --case NAME; the wizard's case list), or give a shape or case string",
        )
    if answers.case_name:
        cases = candidate.cases if candidate else ()
        chosen = next((c for c in cases if c.name == answers.case_name), None)
        if chosen is None:
            names = ", ".join(c.name for c in cases) or "none"
            raise InputError(f"unknown case {answers.case_name!r}; the operator lists: {names}")
        listed = case_from_choice(chosen)
    return CaseConfig(
        name=listed.name or answers.case_name,
        shape={**listed.shape, **answers.shape},
        dtype=answers.dtype or (listed.dtype if answers.case_name else "") or "float16",
        causal=answers.causal or listed.causal,
        spec=answers.case_spec or listed.spec,
        options=dict(answers.options),
    )


def _repository_case(
    answers: ProjectAnswers, repo: OperatorInRepository, workload: list[Tunable]
) -> CaseConfig:
    """A case the repository lists (a bench spec or a variant), or the user's own one
    (--case NAME with --shape/--case-spec); refused without a case when there are some."""
    cases = repository_cases(repo)
    choices = "\n  ".join(c.describe() for c in cases)
    chosen = next((c for c in cases if c.name == answers.case_name), None)
    own = bool(answers.shape or answers.case_spec)
    if chosen is None and not (answers.case_name and own) and (cases or answers.case_name):
        what = f"unknown case {answers.case_name!r}" if answers.case_name else "no case chosen"
        raise InputError(
            f"{what}; {repo.name} lists these cases (--case NAME):\n  {choices or 'none'}",
            hint="or name your own case: --case NAME with --shape K=V (shape knobs by their name)",
        )
    base = case_config(repo, chosen, workload) if chosen else CaseConfig(
        name=answers.case_name,
        knobs={t.name: t.value for t in workload},
        options={"bench_spec": spec.path} if (spec := repo.spec_for("")) else {},
    )
    shape = {**base.shape, **answers.shape}
    knobs = {**base.knobs, **{k: shape.pop(k) for k in list(shape) if k in base.knobs}}
    return CaseConfig(
        name=base.name,
        shape=shape,
        dtype=answers.dtype or base.dtype,
        causal=answers.causal or base.causal,
        spec=answers.case_spec or base.spec,
        options={**base.options, **answers.options},
        knobs=knobs,
    )


def _repository_scope(
    root: Path, path: str, kind: OperatorKind, related: list[str]
) -> dict[str, list[str]]:
    """The operator folder and the related files are editable; everything else in the
    repository copy is protected (the shared folders a tile-lib CMakeLists.txt reaches), and
    so is a DSL runtime's VARIANTS (the workload)."""
    for rel in related:
        if not (root / rel).is_file():
            raise InputError(f"related file not found in the repository {root}: {rel}")
    spec = project_kind(kind)
    sub = spec.workspace_subdir
    workload = [f"{sub}/{path}/{name}" for name in spec.workload_files]
    return {
        "protected": [*default_protected(kind), *workload],
        "editable": [f"{sub}/{path}/**", *(f"{sub}/{rel}" for rel in related)],
    }


def _under(path: str, tunables: list[Tunable]) -> list[Tunable]:
    """Tunables found in the operator folder, `where` relative to the repository root (the
    workspace copy's root, where rounds apply them)."""
    return [replace(t, where=f"{path}/{t.where}") if t.where else t for t in tunables]


def plan_project(answers: ProjectAnswers) -> tuple[NewProject, Candidate | None]:
    """Classify the source, find its repository, choose the case, discover tunables and
    the commands: the project to create."""
    source, candidate, kind = _classified(answers)
    found_in = source_kind(kind)
    repo = found_in.package_repository(source)
    tile = found_in.build_repository(source)
    workload: list[Tunable] = []
    if repo is not None:
        tuning, workload = repository_tunables(repo)
        case = _repository_case(answers, repo, workload)
        tunables = merge_tunables(tuning, candidate)
        offered = tuple(c.describe() for c in repository_cases(repo))
    else:
        case = _listed_case(answers, candidate)
        tunables = merge_tunables(found_in.tunables(source) if source.is_dir() else [], candidate)
        tunables = _under(tile.path, tunables) if tile else tunables
        offered = tuple(c.name for c in candidate.cases) if candidate else ()
    target = answered_target(answers.target, "build" in answers.commands, kind, candidate, source)
    if repo is not None:
        found = repository_commands(repo, case.name)
    else:
        defaults = command_texts(default_commands(kind, target.mode))
        found = found_in.found_commands(source, defaults, target.mode)
    commands = effective_commands(kind, found, candidate.commands if candidate else {}, answers.commands,
                                  target.mode)
    name = answers.name if answers.name is not None else (candidate.name if candidate else source.stem)
    root, path = (repo.root, repo.path) if repo else (tile.root, tile.path) if tile else (None, "")
    if root is not None:  # the whole repository (or its reached folders) is copied
        refuse_secret(root, "the operator's repository", copied=True)
    spec = NewProject(
        operator=OperatorConfig(
            name=name,
            kind=kind,
            source=str(source.resolve()),
            family=repo.family if repo else "",
            demo=bool(candidate and candidate.demo),
            repository=str(root) if root else "",
            path=path,
            pythonpath=repo.python_path if repo else "",
            related=tuple(answers.related),
        ),
        source=source,
        case=case,
        tunables=tunables,
        target=target,
        costmodel=_costmodel(answers),
        requirements=answers.requirements,
        commands=commands.values,
        origins=commands.origins,
        scope=_repository_scope(root, path, kind, answers.related) if root else {},
        repository=root,
        workload=workload,
        cases=offered,
        tolerances=repository_tolerances(repo, case),
    )
    check_perf_sim(spec)
    return spec, candidate


def _costmodel(answers: ProjectAnswers) -> CostmodelConfig:
    return CostmodelConfig(
        enabled=bool(answers.pto_isa or answers.costmodel_tool),
        engine=answers.engine
        or ("external" if answers.costmodel_tool and not answers.pto_isa else "builtin"),
        pto_isa=answers.pto_isa,
        tool=answers.costmodel_tool,
    )


def copy_source(spec: NewProject, source: Path, dest: Path, projects_root: Path) -> None:
    """The operator folder; or, for an operator inside a repository, the repository with
    the same relative paths (so its runner runs unchanged from the workspace's copy),
    less what `repository_excludes` leaves out, and less the projects folder when it lies
    inside the repository. Of a tile-lib repository only the operator folder and the
    folders its CMakeLists.txt reaches are copied (`tilelib_repository`)."""
    if spec.repository is not None:
        root = spec.repository.resolve()
        excludes = repository_excludes(root)
        projects = projects_root.resolve()
        if projects.is_relative_to(root) and projects != root:
            excludes += (literal(projects.relative_to(root).as_posix()) + "/",)
        tile = source_kind(spec.operator.kind).build_repository(source)
        for rel in tile.copied if tile else (".",):
            shutil.copytree(root / rel, dest / rel, ignore=copy_filter(root, excludes), symlinks=True)
    elif source.is_dir():
        shutil.copytree(source, dest, ignore=copy_filter(source, DEFAULT_EXCLUDES), symlinks=True)
    else:
        dest.mkdir(parents=True)
        shutil.copy2(source, dest / source.name)


def check_case_spec(spec: NewProject) -> None:
    """A case string is checked by the operator's own format when one is known; any case
    string must be one printable line (it is passed to the operator's tools)."""
    text = spec.case.spec
    if any(not ch.isprintable() for ch in text):
        raise InputError(f"case string {text!r} holds control characters or line breaks", key="case.spec")
    parsed_cases(spec.case, spec.operator)


def create_project(spec: NewProject, projects_root: Path, *, overwrite: bool = False) -> Path:
    """Scaffold projects_root/<operator>/ and return its path."""
    name = spec.operator.name
    if not valid_operator_name(name):
        raise InputError(
            f"invalid operator name {name!r}: one folder name inside projects/ "
            f"(letters, digits, '_', '.', '-'; no '/', no '..', not empty, at most {MAX_NAME} characters)"
        )
    check_case_spec(spec)
    source = spec.source.expanduser().resolve()
    if not source.exists():
        raise InputError(f"operator source not found: {source}")
    final = projects_root / name
    if final.resolve().parent != projects_root.resolve():
        raise InputError(f"operator name {name!r} escapes {projects_root}")
    if final.exists() and not overwrite:
        raise InputError(
            f"project already exists: {final}",
            hint="pass --overwrite to replace it (its records are lost)",
        )
    projects_root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}.", dir=projects_root))
    try:
        shutil.copytree(template_dir(), staging, dirs_exist_ok=True)
        for folder in ("context", "runs", "workspace"):
            (staging / folder).mkdir(exist_ok=True)
        subdir = project_kind(spec.operator.kind).workspace_subdir
        copy_source(spec, source, staging / "workspace" / subdir, projects_root)
        text = new_project_document(
            spec.operator,
            spec.case,
            spec.tunables,
            spec.target,
            spec.costmodel,
            spec.commands,
            origins=spec.origins,
            scope=spec.scope,
            tolerances=spec.tolerances.values,
            tolerances_from=spec.tolerances.origin,
        )
        parse_config(final / "project.toml", text)  # never write a file we could not read back
        atomic_write_text(staging / "project.toml", text)
        atomic_write_text(staging / "TASK_REQUIREMENTS.md", render_requirements(spec))
        Ledger(ProjectLayout(staging)).write_iterations([], None, fresh=True)
        if final.exists():
            trash = Path(tempfile.mkdtemp(prefix=f".{name}.old.", dir=projects_root))
            final.rename(trash / name)
            staging.rename(final)
            shutil.rmtree(trash, ignore_errors=True)
        else:
            staging.rename(final)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return final
