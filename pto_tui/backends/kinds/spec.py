"""The run-time part of an operator kind: what the loop and the environment round ask."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from pto_tui.backends.kinds.backend import Backend, BenchOutcome
from pto_tui.core.project.config import ProjectConfig, Target
from pto_tui.core.vocabulary import OperatorKind, TargetMode
from pto_tui.jobs.probes import Probe


@dataclass(frozen=True)
class KindRuntime:
    kind: OperatorKind
    backend: type[Backend]  # builds, checks and benchmarks it
    # the environment round's probes of its toolchain, for each target mode it runs in
    probes: Mapping[TargetMode, Callable[[Target], list[Probe]]]
    # a result file given by hand (`--report FILE`), judged as a run's would be: the
    # project, the file's text, its path and the case's FLOPs (None when unknown)
    report_outcome: Callable[[ProjectConfig, str, str, float | None], BenchOutcome]
    # a first valid result must carry the report's own reference timing (the PTO-DSL
    # runner benchmarks a baseline beside the operator)
    needs_reference: bool = False
    # a mode that builds or measures differently has its own backend
    mode_backends: Mapping[TargetMode, type[Backend]] = field(default_factory=dict)

    def backend_class(self, mode: TargetMode) -> type[Backend]:
        return self.mode_backends.get(mode, self.backend)
