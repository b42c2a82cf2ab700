"""The wizard's answers as a core NewProject, planned by core.campaign.scaffold.plan_project
exactly as `pto-tui new` plans it from flags."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from pto_tui.core.campaign.scaffold import (
    NewProject,
    ProjectAnswers,
    create_project,
    parse_target,
    plan_project,
)
from pto_tui.core.errors import InputError
from pto_tui.core.operators.candidate import Candidate
from pto_tui.core.operators.marker import CaseChoice
from pto_tui.core.project.config import Scalar, parse_scalar
from pto_tui.core.project.modes import DEFAULT_MODE
from pto_tui.core.vocabulary import OperatorKind, TargetMode


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


@dataclass
class Answers:
    source: Path
    candidate: Candidate | None
    kind: OperatorKind | None
    name: str = ""
    case: CaseChoice | None = None  # one of the operator's listed cases
    case_spec: str = ""
    dtype: str = ""
    causal: bool = False
    shape: dict[str, Scalar] = field(default_factory=dict)
    target: str = "local"  # local | ssh:ALIAS
    work_dir: str = ""
    env_setup: str = ""
    npu: int = 0
    mode: TargetMode = DEFAULT_MODE
    compiler: str = "c++"
    cxx_flags: str = ""
    engine: str = "builtin"
    pto_isa: str = ""
    tool: str = ""
    requirements: str = ""


def build_spec(a: Answers) -> NewProject:
    """The wizard's answers through the same core planning as `pto-tui new`."""
    if a.kind is None:
        raise InputError("choose the operator kind (the classification was unclear)")
    spec, _candidate = plan_project(
        ProjectAnswers(
            source=a.source,
            kind=a.kind,
            name=a.name or None,
            case_name=a.case.name if a.case else "",
            shape=dict(a.shape),
            dtype=a.dtype,
            causal=a.causal,
            case_spec=a.case_spec,
            target=replace(
                parse_target(a.target, a.work_dir, a.env_setup, a.npu),
                mode=a.mode,
                compiler=a.compiler,
                cxx_flags=a.cxx_flags,
            ),
            engine=a.engine,
            pto_isa=a.pto_isa,
            costmodel_tool=a.tool,
            requirements=a.requirements,
        )
    )
    return spec  # an operator that lists cases needs one chosen: the core refuses to guess


def create(a: Answers, projects_root: Path) -> Path:
    return create_project(build_spec(a), projects_root)
