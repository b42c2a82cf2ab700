"""TASK_REQUIREMENTS.md of a new project (docs/workflow.md §4): operator, case, tunables,
target and what the user asked for, rendered from the planned project."""

from __future__ import annotations

from pto_tui.core.campaign.plan import NewProject
from pto_tui.core.operators.case_strings import CaseStringError, workload_shape
from pto_tui.core.project.config import OperatorConfig, Scalar
from pto_tui.core.project.kinds.registry import project_kind


def _repository_lines(op: OperatorConfig) -> list[str]:
    if not op.in_repository:
        return []
    copy = project_kind(op.kind).repository_copy
    lines = [f"- **Repository**: {op.repository} ({copy})", f"- **Operator folder**: {op.path}"]
    return lines + ([f"- **Family**: {op.family}"] if op.family else [])


def render_requirements(spec: NewProject) -> str:
    op = spec.operator
    lines = [
        f"# Task requirements: {op.name}",
        "",
        f"- **Operator**: {op.name}",
        f"- **Kind**: {op.kind.value}" + (" (CPU demo operator, not PTO code)" if op.demo else ""),
        f"- **Source**: {op.source}",
        f"- **Workspace copy**: workspace/{project_kind(op.kind).workspace_subdir}/",
    ]
    lines += _repository_lines(op)
    lines += [
        "",
        "## Case",
        "",
        f"- **Shape**: {', '.join(f'{k}={v}' for k, v in _shape(spec).items()) or '-'}",
        f"- **Dtype**: {spec.case.dtype}",
        f"- **Causal mask**: {'yes' if spec.case.causal else 'no'}",
    ]
    if spec.case.spec:
        lines.append(f"- **Case string**: {spec.case.spec}")
    for key, value in spec.case.options.items():
        lines.append(f"- **{key}**: {value}")
    for key, value in spec.case.knobs.items():
        lines.append(f"- **{key}** (shape knob, part of the workload): {value}")
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


def _shape(spec: NewProject) -> dict[str, Scalar]:
    """The case's fields: [case.shape], else the case string's (its format's fields)."""
    try:
        return dict(workload_shape(spec.case, spec.operator))
    except CaseStringError:
        return dict(spec.case.shape)
