"""A new project's answers as a front end is given them, and their one mapping to
`ProjectAnswers` (what `plan_project` reads).

`pto-tui new`'s flags, the wizard's fields and the MCP tool `new`'s arguments are the same
answers: each front end parses its own input into `ProjectArguments` and calls
`project_answers`, so an answer (the SSH config file, the target's mode, the user's own
commands) reaches the core the same way from all three.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from pto_tui.core.campaign.new_target import parse_target
from pto_tui.core.campaign.planning import ProjectAnswers
from pto_tui.core.errors import InputError
from pto_tui.core.project.config import Scalar
from pto_tui.core.project.modes import DEFAULT_MODE, chosen_modes
from pto_tui.core.vocabulary import OperatorKind, TargetMode

# the commands a user may give for a new project (`new --command KEY=CMD`)
COMMAND_KEYS = ("build", "correctness", "benchmark", "reference", "results")


@dataclass(frozen=True)
class ProjectArguments:
    """A new project as asked for, before it is planned (docs/workflow.md §1-§4)."""

    source: Path
    kind: OperatorKind | None = None  # None: as the source is classified
    name: str | None = None  # None: the operator's own name
    case: str = ""  # one of the cases the operator lists
    case_spec: str = ""  # the operator's case string
    shape: Mapping[str, Scalar] = field(default_factory=dict)
    dtype: str = ""  # blank: the listed case's, else float16
    causal: bool = False
    options: Mapping[str, Scalar] = field(default_factory=dict)  # other case options
    target: str = "local"  # local | ssh:ALIAS | slurm | slurm:ALIAS
    work_dir: str = ""  # the remote work directory (ssh targets)
    ssh_config: str = ""  # an SSH config file to use instead of ~/.ssh/config
    env_setup: str = ""  # a shell line run before every command
    npu: int = 0  # the NPU device id
    mode: str = DEFAULT_MODE.value  # a TargetMode's value: npu | cpu-sim | ...
    compiler: str = "c++"  # the C++ compiler of a cpu-sim build
    cxx_flags: str = ""  # compile and link flags of a cpu-sim build
    predict: str = ""  # [target] predict: "perf-sim", or "" for none
    engine: str = ""  # the costmodel engine; blank: from pto_isa and costmodel_tool
    pto_isa: str = ""  # a pto-isa checkout (the built-in costmodel engine)
    costmodel_tool: str = ""  # query_pto_cycles.py (the external engine)
    requirements: str = ""  # more requirements for TASK_REQUIREMENTS.md
    commands: Mapping[str, str] = field(default_factory=dict)  # the user's own, by COMMAND_KEYS
    related: tuple[str, ...] = ()  # further editable files, relative to the repository


def project_answers(arguments: ProjectArguments) -> ProjectAnswers:
    """The answers `plan_project` reads; an unknown command key or a target that is not
    `local`, `ssh:ALIAS`, `slurm` or `slurm:ALIAS` (with its work directory) is refused."""
    a = arguments
    unknown = [key for key in a.commands if key not in COMMAND_KEYS]
    if unknown:
        raise InputError(
            f"unknown command {unknown[0]!r}; the commands are {', '.join(COMMAND_KEYS)}", key="commands"
        )
    target = replace(
        parse_target(a.target, a.work_dir, a.env_setup, a.npu),
        ssh_config=a.ssh_config,
        mode=target_mode(a.mode),
        compiler=a.compiler,
        cxx_flags=a.cxx_flags,
        predict=a.predict,
    )
    return ProjectAnswers(
        source=a.source,
        kind=a.kind,
        name=a.name,
        case_name=a.case,
        shape=dict(a.shape),
        dtype=a.dtype,
        causal=a.causal,
        case_spec=a.case_spec,
        options=dict(a.options),
        target=target,
        engine=a.engine,
        pto_isa=a.pto_isa,
        costmodel_tool=a.costmodel_tool,
        requirements=a.requirements,
        commands=dict(a.commands),
        related=list(a.related),
    )


def target_mode(text: str) -> TargetMode:
    """The mode a person named, or an error naming `mode` and the modes there are."""
    try:
        return TargetMode(text)
    except ValueError:
        known = ", ".join(m.value for m in chosen_modes())
        raise InputError(f"unknown mode {text!r}; one of {known}", key="mode") from None
