"""Plan a new project (docs/workflow.md §4): classify the source, find its repository, choose
the case, discover its knobs and the commands; nothing is written (scaffold.py writes it)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from pto_tui.core.campaign.new_target import answered_target, check_perf_sim
from pto_tui.core.campaign.plan import NewProject
from pto_tui.core.errors import InputError
from pto_tui.core.operators.candidate import Candidate
from pto_tui.core.operators.case_bounds import case_bounded
from pto_tui.core.operators.kinds.registry import source_kind
from pto_tui.core.operators.kinds.spec import ResultChoice
from pto_tui.core.operators.knob_report import KnobReport
from pto_tui.core.operators.marker import CaseChoice
from pto_tui.core.operators.operator_knobs import merge_tunables, source_knobs
from pto_tui.core.operators.repository import OperatorInRepository, repository_report
from pto_tui.core.operators.repository_choices import (
    case_config,
    effective_commands,
    repository_cases,
    repository_commands,
    repository_tolerances,
)
from pto_tui.core.operators.scan import classify
from pto_tui.core.operators.tilelib_repository import TileLibRepository
from pto_tui.core.project.command_table import command_texts
from pto_tui.core.project.config import (
    CaseConfig,
    CostmodelConfig,
    OperatorConfig,
    Scalar,
    Target,
    Tunable,
    default_commands,
    default_protected,
)
from pto_tui.core.project.kinds.registry import project_kind
from pto_tui.core.vocabulary import OperatorKind
from pto_tui.core.workspace.secrets import refuse_secret


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
    root: Path, path: str, kind: OperatorKind, related: list[str], sources: tuple[str, ...] = ()
) -> dict[str, list[str]]:
    """The operator folder (or only its own files, as its marker's `sources` names them) and
    the related files are editable; everything else in the repository copy is protected (the
    shared folders a tile-lib CMakeLists.txt reaches), and so is a DSL runtime's VARIANTS
    (the workload)."""
    for rel in related:
        if not (root / rel).is_file():
            raise InputError(f"related file not found in the repository {root}: {rel}")
    spec = project_kind(kind)
    sub = spec.workspace_subdir
    workload = [f"{sub}/{path}/{name}" for name in spec.workload_files]
    return {
        "protected": [*default_protected(kind), *workload],
        "editable": [
            *(f"{sub}/{path}/{pattern}" for pattern in sources or ("**",)),
            *(f"{sub}/{rel}" for rel in related),
        ],
    }


def _generated_scope(kind: OperatorKind, path: str, candidate: Candidate | None) -> dict[str, list[str]]:
    """[scope] generated: the files the marker says the operator's build writes into its
    folder, relative to workspace/ (the operator folder is its kind's subfolder there, or
    the path below it of a copied repository)."""
    if candidate is None or not candidate.generated:
        return {}
    folder = "/".join(filter(None, (project_kind(kind).workspace_subdir, path)))
    return {"generated": [f"{folder}/{pattern}" for pattern in candidate.generated]}


def _under(path: str, tunables: list[Tunable]) -> list[Tunable]:
    """Tunables found in the operator folder, `where` relative to the repository root (the
    workspace copy's root, where rounds apply them)."""
    return [replace(t, where=f"{path}/{t.where}") if t.where else t for t in tunables]


@dataclass(frozen=True)
class _Chosen:
    """The case and the knobs of a new project."""

    case: CaseConfig
    knobs: KnobReport  # its tunables with the marker's winning
    offered: tuple[str, ...]  # the cases the operator offered, described


def _case_and_knobs(
    answers: ProjectAnswers, source: Path, candidate: Candidate | None, repo: OperatorInRepository | None,
    tile: TileLibRepository | None,
) -> _Chosen:
    if repo is not None:
        found = repository_report(repo)
        case = _repository_case(answers, repo, list(found.workload))
        offered = tuple(c.describe() for c in repository_cases(repo))
        tunables = merge_tunables(list(found.tunables), candidate)
    else:
        found = source_knobs(source)
        case = _listed_case(answers, candidate)
        offered = tuple(c.name for c in candidate.cases) if candidate else ()
        tunables = merge_tunables(list(found.tunables), candidate)
        tunables = _under(tile.path, tunables) if tile else tunables
    return _Chosen(case, replace(found, tunables=tuple(tunables)), offered)


def plan_project(answers: ProjectAnswers) -> tuple[NewProject, Candidate | None]:
    """Classify the source, find its repository, choose the case, discover tunables and
    the commands: the project to create."""
    source, candidate, kind = _classified(answers)
    found_in = source_kind(kind)
    repo = found_in.package_repository(source)
    tile = found_in.build_repository(source)
    chosen = _case_and_knobs(answers, source, candidate, repo, tile)
    case = chosen.case
    target = answered_target(answers.target, "build" in answers.commands, kind, candidate, source)
    if repo is not None:
        found = repository_commands(repo, case.name)
    else:
        defaults = command_texts(default_commands(kind, target.mode))
        found = found_in.found_commands(source, defaults, target.mode)
    commands = effective_commands(kind, found, candidate.commands if candidate else {}, answers.commands,
                                  target.mode)
    result = _result(answers, candidate, source, target, repo is not None)
    if result.result.printed and commands.origins.get("results", "").startswith("kind default"):
        commands.values["results"] = ""  # no report file: the benchmark's output is the result
        commands.origins["results"] = "none: the result is read from the benchmark's output ([result])"
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
        tunables=list(chosen.knobs.tunables),
        target=target,
        costmodel=_costmodel(answers),
        requirements=answers.requirements,
        commands=commands.values,
        origins=commands.origins,
        scope={**(_repository_scope(root, path, kind, answers.related, candidate.sources if candidate else ())
                  if root else {}), **_generated_scope(kind, path if root else "", candidate)},
        repository=root,
        workload=list(chosen.knobs.workload),
        cases=chosen.offered,
        tolerances=repository_tolerances(repo, case),
        derived=chosen.knobs.derived,
        left_out=chosen.knobs.left_out,
        result=result.result,
        result_origin=result.origin,
        shared_kernel=repo.kernel_home if repo and repo.kernel_home not in answers.related else "",
    )
    spec = replace(spec, tunables=case_bounded(spec.tunables, spec.case, spec.operator, source))
    check_perf_sim(spec)
    return spec, candidate


# what `new` says to declare when it cannot time or judge a run of the operator
DECLARE_RESULT = (
    "declare how a run is timed and judged in a pto-operator.toml beside it: [result] format = "
    "\"pattern\" with time = '<a regular expression whose first group is the time>' and unit, "
    "passed / failed lines (docs/pto-operator-toml.md); or give a benchmark that prints a time "
    "(--command benchmark=...) and declare its [result] there"
)


def _result(
    answers: ProjectAnswers, candidate: Candidate | None, source: Path, target: Target, in_package: bool
) -> ResultChoice:
    """How a run's result is read: the marker's [result], else what the operator's driver
    prints; refused when pto-tui could not time or judge a run and nobody declared how."""
    if candidate is not None and candidate.result is not None:
        return ResultChoice(candidate.result, "operator marker (pto-operator.toml [result])")
    if in_package or candidate is None or candidate.kind is None or candidate.demo:
        return ResultChoice()
    choice = source_kind(candidate.kind).result_for(source, target.mode)
    declared = "benchmark" in answers.commands or "benchmark" in candidate.commands
    if choice.problem and not declared:
        raise InputError(choice.problem, hint=choice.hint or DECLARE_RESULT)
    return choice


def _costmodel(answers: ProjectAnswers) -> CostmodelConfig:
    return CostmodelConfig(
        enabled=bool(answers.pto_isa or answers.costmodel_tool),
        engine=answers.engine
        or ("external" if answers.costmodel_tool and not answers.pto_isa else "builtin"),
        pto_isa=answers.pto_isa,
        tool=answers.costmodel_tool,
    )
