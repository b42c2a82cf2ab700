"""Create projects/<op>/ from the template (WORKFLOW.md step 4).

The project is assembled in a temporary folder beside its final place and renamed
into place at the end, so a failure never leaves half a project behind.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from pto_tui.core.atomic import atomic_write_text
from pto_tui.core.errors import InputError
from pto_tui.core.operators.scan import Candidate, CaseChoice, classify
from pto_tui.core.operators.tunables import discover
from pto_tui.core.project.config import (
    CaseConfig,
    CostmodelConfig,
    OperatorConfig,
    Scalar,
    Target,
    Tunable,
    valid_operator_name,
)
from pto_tui.core.project.layout import ProjectLayout
from pto_tui.core.project.parse import parse_config
from pto_tui.core.project.writer import new_project_document
from pto_tui.core.rounds.ledger import Ledger
from pto_tui.core.vocabulary import OperatorKind
from pto_tui.core.workspace.files import DEFAULT_EXCLUDES, is_excluded


def template_dir() -> Path:
    """The shipped project_template/ (inside the package, a link to the top-level folder)."""
    return Path(str(resources.files("pto_tui") / "project_template"))


@dataclass(frozen=True)
class NewProject:
    operator: OperatorConfig
    source: Path
    case: CaseConfig
    tunables: list[Tunable]
    target: Target
    costmodel: CostmodelConfig
    requirements: str = ""  # extra requirements the user stated
    commands: dict[str, str] = field(default_factory=dict)  # overrides of the per-kind defaults


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


def parse_target(choice: str, work_dir: str = "", env_setup: str = "", npu: int = 0) -> Target:
    """"local", or "ssh:ALIAS" with the remote work directory."""
    if choice in ("", "local"):
        return Target(kind="local", env_setup=env_setup, npu_id=npu)
    if choice.startswith("ssh:") and choice[4:]:
        if not work_dir:
            raise InputError("an ssh target needs the remote work directory (--work-dir)")
        return Target(kind="ssh", host=choice[4:], work_dir=work_dir, env_setup=env_setup, npu_id=npu)
    raise InputError(f"target must be 'local' or 'ssh:ALIAS', got {choice!r}")


@dataclass
class ProjectAnswers:
    """What a person says about a new project (WORKFLOW.md steps 1-3), from flags or a wizard."""

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


def plan_project(answers: ProjectAnswers) -> tuple[NewProject, Candidate | None]:
    """Classify the source, choose the case, discover tunables: the project to create."""
    source = answers.source.expanduser()
    if not source.exists():
        raise InputError(f"operator source not found: {source}")
    candidate = classify(source) if source.is_dir() else None
    kind = answers.kind or (candidate.kind if candidate else None)
    if kind is None:
        evidence = "\n  ".join(candidate.evidence) if candidate else "no PTO evidence found"
        status = candidate.status if candidate else "unclear"
        raise InputError(
            f"cannot classify {source} ({status}):\n  {evidence}",
            hint="choose the kind yourself (--kind pto-dsl or --kind pto-tile-lib)",
        )
    listed = CaseConfig()
    if answers.case_name:
        cases = candidate.cases if candidate else ()
        chosen = next((c for c in cases if c.name == answers.case_name), None)
        if chosen is None:
            names = ", ".join(c.name for c in cases) or "none"
            raise InputError(f"unknown case {answers.case_name!r}; the operator lists: {names}")
        listed = case_from_choice(chosen)
    case = CaseConfig(
        name=listed.name or answers.case_name,
        shape={**listed.shape, **answers.shape},
        dtype=answers.dtype or (listed.dtype if answers.case_name else "") or "float16",
        causal=answers.causal or listed.causal,
        spec=answers.case_spec or listed.spec,
        options=dict(answers.options),
    )
    name = answers.name if answers.name is not None else (candidate.name if candidate else source.stem)
    spec = NewProject(
        operator=OperatorConfig(
            name=name, kind=kind, source=str(source.resolve()), demo=bool(candidate and candidate.demo)
        ),
        source=source,
        case=case,
        tunables=merge_tunables(discover(source) if source.is_dir() else [], candidate),
        target=answers.target,
        costmodel=CostmodelConfig(
            enabled=bool(answers.pto_isa or answers.costmodel_tool),
            engine=answers.engine
            or ("external" if answers.costmodel_tool and not answers.pto_isa else "builtin"),
            pto_isa=answers.pto_isa,
            tool=answers.costmodel_tool,
        ),
        requirements=answers.requirements,
        commands=dict(candidate.commands) if candidate else {},
    )
    return spec, candidate


def render_requirements(spec: NewProject) -> str:
    op = spec.operator
    lines = [
        f"# Task requirements: {op.name}",
        "",
        f"- **Operator**: {op.name}",
        f"- **Kind**: {op.kind.value}" + (" (CPU demo operator, not PTO code)" if op.demo else ""),
        f"- **Source**: {op.source}",
        f"- **Workspace copy**: workspace/{op.kind.workspace_subdir}/",
        "",
        "## Case",
        "",
        f"- **Shape**: {', '.join(f'{k}={v}' for k, v in spec.case.shape.items()) or '-'}",
        f"- **Dtype**: {spec.case.dtype}",
        f"- **Causal mask**: {'yes' if spec.case.causal else 'no'}",
    ]
    if spec.case.spec:
        lines.append(f"- **Case string**: {spec.case.spec}")
    for key, value in spec.case.options.items():
        lines.append(f"- **{key}**: {value}")
    lines += ["", "## Tunable parameters", ""]
    if spec.tunables:
        lines += ["| Name | Kind | Current | Allowed | Found in |", "|---|---|---|---|---|"]
        for t in spec.tunables:
            allowed = ", ".join(str(v) for v in t.allowed) or "-"
            lines.append(f"| {t.name} | {t.kind} | {t.value} | {allowed} | {t.where or '-'} |")
    else:
        lines.append("None found in the source; add them to project.toml [tunables].")
    lines += [
        "",
        "## Target",
        "",
        f"- **Where jobs run**: {spec.target.label}",
    ]
    if spec.target.work_dir:
        lines.append(f"- **Remote work dir**: {spec.target.work_dir}")
    if spec.target.env_setup:
        lines.append(f"- **Environment set-up**: `{spec.target.env_setup}`")
    lines += [
        f"- **Costmodel**: {'used' if spec.costmodel.enabled else 'not used'}",
        "",
        "## Extra requirements",
        "",
        spec.requirements.strip() or "None stated yet.",
        "",
        "## Hints",
        "",
        "Add what you know about the operator's bottlenecks here.",
        "",
    ]
    return "\n".join(lines)


def _ignore_excluded(_dir: str, names: list[str]) -> list[str]:
    return [n for n in names if is_excluded(n, DEFAULT_EXCLUDES)]


def create_project(spec: NewProject, projects_root: Path, *, overwrite: bool = False) -> Path:
    """Scaffold projects_root/<operator>/ and return its path."""
    name = spec.operator.name
    if not valid_operator_name(name):
        raise InputError(
            f"invalid operator name {name!r}: one folder name inside projects/ "
            "(letters, digits, '_', '.', '-'; no '/', no '..', not empty)"
        )
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
        dest = staging / "workspace" / spec.operator.kind.workspace_subdir
        if source.is_dir():
            shutil.copytree(source, dest, ignore=_ignore_excluded, symlinks=True)
        else:
            dest.mkdir(parents=True)
            shutil.copy2(source, dest / source.name)
        text = new_project_document(
            spec.operator, spec.case, spec.tunables, spec.target, spec.costmodel, spec.commands
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
