"""The plan of a new project: everything `new` decided before anything is written."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pto_tui.core.operators.bench_specs import SpecTolerances
from pto_tui.core.operators.knob_report import Derived, LeftOut
from pto_tui.core.project.config import (
    CaseConfig,
    CostmodelConfig,
    OperatorConfig,
    ResultConfig,
    Target,
    Tunable,
)


@dataclass(frozen=True)
class NewProject:
    operator: OperatorConfig
    source: Path
    case: CaseConfig
    tunables: list[Tunable]
    target: Target
    costmodel: CostmodelConfig
    requirements: str = ""  # extra requirements the user stated
    commands: dict[str, str] = field(default_factory=dict)  # the effective commands
    origins: dict[str, str] = field(default_factory=dict)  # where each command came from
    scope: dict[str, list[str]] = field(default_factory=dict)  # [scope], when not the default
    repository: Path | None = None  # the repository copied into the workspace, if any
    workload: list[Tunable] = field(default_factory=list)  # shape knobs: part of the case
    cases: tuple[str, ...] = ()  # the cases the operator offered, described
    tolerances: SpecTolerances = field(default_factory=SpecTolerances)  # the bench spec's
    derived: tuple[Derived, ...] = ()  # values the source computes from the tunables
    left_out: tuple[LeftOut, ...] = ()  # candidate knobs that are no tunables, with the reason
    result: ResultConfig = ResultConfig()  # how a run's result is read ([result])
    result_origin: str = ""  # where that was seen or declared
    # the shared file the operator's kernel is built in, when not named related (the family's
    # common.py): a round may edit it only when the project names it related
    shared_kernel: str = ""
