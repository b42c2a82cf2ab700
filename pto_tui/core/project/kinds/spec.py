"""The project part of an operator kind: what `new` writes and `project.toml` defaults to."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pto_tui.core.project.command_table import Commands
from pto_tui.core.project.modes import DEFAULT_MODE
from pto_tui.core.vocabulary import OperatorKind, TargetMode

# Files a round may not change unless it is a declared bug fix (docs/workflow.md §11.2),
# whatever the kind: the benchmark and tests, and everything that defines the workload or
# the check (case parsing, the reference, data and case generation, the operator's markers).
COMMON_PROTECTED = (
    "**/bench*.py",
    "**/bench/**",
    "**/test*.py",
    "**/tests/**",
    "**/*.yaml",
    "**/*_case.py",
    "**/*_cases.py",
    "**/reference_*.py",
    "**/reference.py",
    "**/gen_data.py",
    "**/generate_cases.py",
    "**/golden*.py",
    "**/pto-operator.toml",
    "**/pto-tui.toml",
)


@dataclass(frozen=True)
class KindProject:
    kind: OperatorKind
    label: str  # as people write it, e.g. "PTO-DSL"
    workspace_subdir: str  # where the operator's copy lives inside workspace/
    # the default commands of each mode that has its own (docs/workflow.md §12, §13); the
    # other modes it runs in take those of DEFAULT_MODE. Placeholders: `template_values`.
    commands: Mapping[TargetMode, Commands]
    modes: tuple[TargetMode, ...]  # the target modes it runs in; project.toml refuses others
    protected: tuple[str, ...]  # the default [scope] protected patterns
    # an operator inside a repository: its commands run from the copy's root (its runner
    # imports the operator from its package) rather than from the operator folder
    commands_from_root: bool = False
    # files of the operator folder (inside a repository) that define the workload: protected
    workload_files: tuple[str, ...] = ()
    repository_copy: str = ""  # how its repository is copied and run, for TASK_REQUIREMENTS.md

    def commands_for(self, mode: TargetMode = DEFAULT_MODE) -> Commands:
        return self.commands.get(mode, self.commands[DEFAULT_MODE])
