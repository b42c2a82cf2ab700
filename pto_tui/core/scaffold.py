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
from pto_tui.core.layout import ProjectLayout
from pto_tui.core.ledger import Ledger
from pto_tui.core.project import (
    CaseConfig,
    CostmodelConfig,
    OperatorConfig,
    Target,
    Tunable,
    new_project_document,
    parse_config,
    valid_operator_name,
)
from pto_tui.core.scan import Candidate, CaseChoice
from pto_tui.core.workspace import DEFAULT_EXCLUDES, is_excluded


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
