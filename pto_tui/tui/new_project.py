"""The wizard's answers planned by core.campaign.scaffold.plan_project, mapped exactly as
`pto-tui new` maps its flags (core.campaign.project_arguments)."""

from __future__ import annotations

from pathlib import Path

from pto_tui.core.campaign.plan import NewProject
from pto_tui.core.campaign.planning import plan_project
from pto_tui.core.campaign.project_arguments import ProjectArguments, project_answers
from pto_tui.core.campaign.scaffold import create_project
from pto_tui.core.errors import InputError
from pto_tui.core.project.config import Scalar, parse_scalar


def parse_pairs(text: str, what: str) -> dict[str, Scalar]:
    """`K=V, K=V` typed in one field."""
    out: dict[str, Scalar] = {}
    for item in text.replace(";", ",").split(","):
        if not item.strip():
            continue
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InputError(f"{what}: expected KEY=VALUE, got {item.strip()!r}")
        out[key.strip()] = parse_scalar(value)
    return out


def build_spec(arguments: ProjectArguments) -> NewProject:
    """The wizard's answers through the same core planning as `pto-tui new`."""
    if arguments.kind is None:
        raise InputError("choose the operator kind (the classification was unclear)")
    spec, _candidate = plan_project(project_answers(arguments))
    return spec  # an operator that lists cases needs one chosen: the core refuses to guess


def create(arguments: ProjectArguments, projects_root: Path) -> Path:
    return create_project(build_spec(arguments), projects_root)
