"""The fixed words of the workflow: operator kinds, target kinds and modes, verdicts,
bottleneck classes, checklist.

What each kind or mode means lives in its registry (docs/architecture.md §8): operator
kinds in `core/project/kinds/`, `core/operators/kinds/` and `backends/kinds/`; target
kinds in `jobs/targets.py`; target modes in `core/project/modes.py`.
"""

from __future__ import annotations

from enum import StrEnum


class OperatorKind(StrEnum):
    """The PTO flavour an operator is written in ([operator] kind)."""

    PTO_DSL = "pto-dsl"
    PTO_TILE_LIB = "pto-tile-lib"


class TargetKind(StrEnum):
    """How pto-tui reaches the machine jobs run on ([target] kind)."""

    LOCAL = "local"
    SSH = "ssh"
    SLURM = "slurm"  # a Slurm cluster, from its login node (over SSH, or this machine)


class TargetMode(StrEnum):
    """What the target runs: the NPU, pto-isa's CPU simulation, pto-isa's perf_sim cycle
    model, or the CPU demo operators ([target] mode)."""

    NPU = "npu"
    CPU_SIM = "cpu-sim"
    PERF_SIM = "perf-sim"
    DEMO = "demo"


class Verdict(StrEnum):
    KEPT = "kept"
    NEUTRAL = "neutral"
    FAILURE = "failure"
    INCONCLUSIVE = "inconclusive"


class ChangeKind(StrEnum):
    """Kinds of change a round makes (notes.md '修改类型')."""

    CODE = "code"
    TEMPLATE_PARAMETER = "template parameter"
    ENVIRONMENT_VARIABLE = "environment variable"
    BUILD_CONFIG = "build config"

    @property
    def is_parameter(self) -> bool:
        return self in (ChangeKind.TEMPLATE_PARAMETER, ChangeKind.ENVIRONMENT_VARIABLE)


# The bottleneck classes (docs/workflow.md §10.2): the name, and what it means.
BOTTLENECK_CLASSES: dict[str, str] = {
    "GMEM traffic bound": "global memory bandwidth is the limit",
    "UB / tile buffer pressure": "unified buffer / tile buffers are too full",
    "small-transfer inefficiency": "many small copies waste transfer efficiency",
    "compute under-utilization": "cube/vector units are not kept busy",
    "AIC/AIV imbalance": "cube and vector sides carry unequal load",
    "pipeline bubble / poor overlap": "load, compute and store do not overlap enough",
    "barrier / wait / sync overhead": "too many or needless barriers, waits or flags",
    "register pressure / occupancy loss": "live values limit occupancy",
    "bad tile shape": "tile dimensions fill units or transfers poorly",
    "dependency chain too long": "serial dependencies leave units idle",
    "CV FIFO pressure": "the cube-vector FIFO is congested",
    "unknown": "not known yet: inspect code and profiling first",
}

# The hardware checklist (docs/workflow.md §10.3): key, and what to check.
HARDWARE_CHECKLIST: dict[str, str] = {
    "tile_shape": "Tile shape: blocking, unit fill rate, tail cost, UB use",
    "gm_ub_traffic": "GM <-> UB traffic: transfer count, redundant reload/store-back, reuse",
    "small_transfer": "Small-transfer risk: fragmented copies, tiny per-tile outputs",
    "barrier_sync": "Barrier / wait / sync: how many, needless serialisation",
    "ub_pressure": "UB pressure: tile + FIFO + temporary buffers together",
    "pipeline_overlap": "Pipeline overlap: do the stages overlap enough",
    "aic_aiv_balance": "AIC / AIV balance: cube and vector load",
    "bottleneck_shift": "Bottleneck-shift risk: removed, or only moved elsewhere",
}

# The priority order (docs/workflow.md §10.4), highest first: shown as guidance.
OPTIMISATION_PRIORITIES: tuple[str, ...] = (
    "remove needless data movement",
    "fix bad tile shapes",
    "batch small transfers",
    "improve load/compute/store overlap",
    "cut barriers/waits",
    "lower UB/register pressure",
    "reorganise instructions for AIC/AIV balance",
    "micro-tuning last",
)

# The Pre-Edit fields of notes.md, in order: (key, label as written in notes.md).
PRE_EDIT_FIELDS: tuple[tuple[str, str], ...] = (
    ("kernel", "Kernel"),
    ("bottleneck", "Current bottleneck"),
    ("evidence", "Evidence"),
    ("hypothesis", "Hypothesis"),
    ("why_ascend", "Why it should help on Ascend"),
    ("expected_metric", "Expected improved metric"),
    ("main_risk", "Main risk"),
)

COSTMODEL_PHASE = "costmodel-guided"  # a campaign without a costmodel never enters it by itself
DEFAULT_PHASES: tuple[str, ...] = (
    "baseline",
    "costmodel-guided",
    "parameter validation",
    "fine-tune",
)
