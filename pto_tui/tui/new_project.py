"""The wizard's answers as a core NewProject (the same assembly as `pto-tui new`).

Only core calls: classify, discover, create_project. The CLI's cmd_new does the same
from flags; the lead may lift this into core so both share one function.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pto_tui.core.errors import InputError
from pto_tui.core.project import CaseConfig, CostmodelConfig, OperatorConfig, Scalar, Target
from pto_tui.core.scaffold import NewProject, create_project
from pto_tui.core.scan import Candidate, CaseChoice
from pto_tui.core.tunables import discover
from pto_tui.core.vocabulary import OperatorKind


def parse_value(text: str) -> Scalar:
    lowered = text.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text.strip()


def parse_pairs(text: str, what: str) -> dict[str, Scalar]:
    """`K=V, K=V` typed in one field."""
    out: dict[str, Scalar] = {}
    for item in text.replace(";", ",").split(","):
        if not item.strip():
            continue
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InputError(f"{what}: expected KEY=VALUE, got {item.strip()!r}")
        out[key.strip()] = parse_value(value)
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
    engine: str = "builtin"
    pto_isa: str = ""
    tool: str = ""
    requirements: str = ""


def _target(a: Answers) -> Target:
    if a.target in ("", "local"):
        return Target(kind="local", env_setup=a.env_setup, npu_id=a.npu)
    if a.target.startswith("ssh:") and a.target[4:]:
        if not a.work_dir:
            raise InputError("an ssh target needs the remote work directory")
        return Target(kind="ssh", host=a.target[4:], work_dir=a.work_dir,
                      env_setup=a.env_setup, npu_id=a.npu)
    raise InputError(f"target must be 'local' or 'ssh:ALIAS', got {a.target!r}")


def build_spec(a: Answers) -> NewProject:
    source = a.source.expanduser()
    if not source.exists():
        raise InputError(f"operator source not found: {source}")
    if a.kind is None:
        raise InputError("choose the operator kind (the classification was unclear)")
    chosen = a.case
    case = CaseConfig(
        name=chosen.name if chosen else "",
        shape={**(chosen.shape if chosen else {}), **a.shape},
        dtype=a.dtype or (chosen.dtype if chosen else "") or "float16",
        causal=a.causal or bool(chosen and chosen.causal),
        spec=a.case_spec or (chosen.spec if chosen else ""),
    )
    candidate = a.candidate
    name = a.name or (candidate.name if candidate else source.stem)
    return NewProject(
        operator=OperatorConfig(name=name, kind=a.kind, source=str(source.resolve()),
                                demo=bool(candidate and candidate.demo)),
        source=source,
        case=case,
        tunables=discover(source) if source.is_dir() else [],
        target=_target(a),
        costmodel=CostmodelConfig(
            enabled=bool(a.pto_isa or a.tool),
            engine=a.engine or "builtin",
            pto_isa=a.pto_isa,
            tool=a.tool,
        ),
        requirements=a.requirements,
    )


def create(a: Answers, projects_root: Path) -> Path:
    return create_project(build_spec(a), projects_root)
