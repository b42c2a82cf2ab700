"""PTO-DSL operators in a project: a Python kernel built by its JIT wrapper and benchmarked
by the pto-kernels runner, whose report.json holds correctness and timings."""

from __future__ import annotations

from pto_tui.core.project.command_table import Commands
from pto_tui.core.project.kinds.spec import COMMON_PROTECTED, KindProject
from pto_tui.core.vocabulary import OperatorKind, TargetMode

_NPU = Commands(
    build="python3 -c 'import kernel; kernel.build_jit_wrapper(output_dir=\"build\")._build()'",
    correctness="",  # read from the benchmark's report.json
    benchmark="python3 -m pto_kernels.bench.runner bench/specs/{family}/{name}.yaml",
    reference="",
    results="bench/results",
)

PTO_DSL = KindProject(
    kind=OperatorKind.PTO_DSL,
    label="PTO-DSL",
    workspace_subdir="pto-kernels",
    commands={TargetMode.NPU: _NPU},
    modes=(TargetMode.NPU, TargetMode.DEMO),
    protected=COMMON_PROTECTED,
    commands_from_root=True,
    workload_files=("runtime.py",),  # a runtime's VARIANTS are the workload
    repository_copy="copied whole; commands run from its root",
)
