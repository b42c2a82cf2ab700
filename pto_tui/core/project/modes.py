"""What each target mode ([target] mode) changes, in one table.

A mode's default commands and its probes depend on the operator kind as well: they live
with each kind (`core/project/kinds/<kind>.py`, `backends/kinds/<kind>.py`), keyed by mode.
Here is what a mode decides by itself: what it means, whether its timings are simulated
(labelled so everywhere and kept apart in the workload fingerprint), whether the
operator runs in pto-isa's CPU simulation, the unit of its samples (microseconds, or the
cycles of pto-isa's perf_sim cycle model) and whether they are deterministic (the same on
every run: a confirmation run is enough, and no warm-up runs).
"""

from __future__ import annotations

from dataclasses import dataclass

from pto_tui.core.vocabulary import TargetMode

# the mode of a target that names none (a demo operator's is DEMO_MODE), and the one whose
# default commands a mode without its own takes
DEFAULT_MODE = TargetMode.NPU
# the mode of the built-in demo operators, and theirs only
DEMO_MODE = TargetMode.DEMO
# a sample's unit as a measurement records it ([measurement] unit; "" is microseconds)
MICROSECONDS = ""
CYCLES = "cycles"
# [target] predict: the one mode whose cycles a round of another mode may record beside its
# measurement, as a prediction of it (never a sample)
PREDICTOR = "perf-sim"


@dataclass(frozen=True)
class ModeSpec:
    mode: TargetMode
    summary: str  # a few words, e.g. "pto-isa's CPU simulation"
    choice: str  # the line a person chooses it by (`new --mode`, the wizard)
    help: str  # what it means for probes, commands and records (`config commands`)
    # timings come from a simulation, not an NPU: labelled so on every screen, record and
    # chart, and part of the workload fingerprint (never compared with NPU timings)
    simulated: bool = False
    timing_note: str = ""  # what a simulated round's timings are, in notes.md
    cpu_simulation: bool = False  # the operator is built for and run in pto-isa's CPU simulation
    # samples are perf_sim's Total cycles of a driver pto-tui derives from the operator's
    # sources (correctness still from the CPU simulation of the same case)
    perf_sim: bool = False
    sample_unit: str = MICROSECONDS  # MICROSECONDS or CYCLES
    # every run gives the same sample: two equal runs settle it, no warm-up runs
    deterministic: bool = False
    # a round may also record perf_sim's cycles of its configuration ([target] predict)
    predictable: bool = False


MODES: dict[TargetMode, ModeSpec] = {
    TargetMode.NPU: ModeSpec(
        TargetMode.NPU,
        summary="Bisheng, CANN and an NPU",
        choice="Bisheng, CANN and an NPU",
        help="an Ascend NPU host: probes Bisheng, CANN and npu-smi (PTO-DSL: the pto dialect, "
        "torch_npu, ptoas); timings are NPU timings",
        predictable=True,
    ),
    TargetMode.CPU_SIM: ModeSpec(
        TargetMode.CPU_SIM,
        summary="pto-isa's CPU simulation",
        choice="pto-isa's CPU simulation (tile-lib; host wall-clock timings, not NPU time)",
        help="pto-isa's CPU simulation (PTO-tile-lib operators whose CMake offers "
        "PTO_CPU_SIM_STANDALONE): builds with [target] compiler and cxx_flags, probes that "
        "toolchain by compiling, linking and running a C++20 program; timings are the host's "
        "wall-clock time of the simulation (noisy, not NPU time, no ranking of variants on the "
        "NPU: the perf-sim mode counts cycles), labelled so on every screen, record and chart, "
        "and never compared with NPU timings",
        simulated=True,
        timing_note="host wall-clock time of pto-isa's CPU simulation (cpu-sim target): noisy, "
        "not NPU time, not a ranking of variants on the NPU",
        cpu_simulation=True,
        predictable=True,
    ),
    TargetMode.PERF_SIM: ModeSpec(
        TargetMode.PERF_SIM,
        summary="pto-isa's perf_sim cycle model",
        choice="pto-isa's perf_sim cycle model (tile-lib; cycles, CPU-sim correctness)",
        help="pto-isa's kernel-level cycle model (include/pto/costmodel/perf_sim; PTO-tile-lib "
        "operators whose CMake offers PTO_CPU_SIM_STANDALONE): correctness from the CPU "
        "simulation of the case (built with [target] compiler and cxx_flags, as cpu-sim), "
        "samples from a perf_sim driver pto-tui derives from the operator's sources at each "
        "build and compiles with [target] perf_sim_compiler; samples are cycles, the same on "
        "every run (two equal runs settle a measurement), never compared with NPU or CPU-sim "
        "timings",
        simulated=True,
        timing_note="cycles of pto-isa's perf_sim cycle model (perf-sim target), not NPU timings",
        cpu_simulation=True,
        perf_sim=True,
        sample_unit=CYCLES,
        deterministic=True,
    ),
    TargetMode.DEMO: ModeSpec(
        TargetMode.DEMO,
        summary="the built-in CPU demo operators",
        choice="the built-in CPU demo operators",
        help="the built-in CPU demo operators: probes g++/numpy; timings are CPU timings",
    ),
}


def mode_spec(mode: TargetMode) -> ModeSpec:
    return MODES[mode]


def recorded_mode(text: str) -> ModeSpec | None:
    """The mode as a record holds it (a round's `target_mode`); None for "" (recorded before
    modes) or a mode this pto-tui does not know."""
    try:
        return MODES[TargetMode(text)]
    except ValueError:
        return None


def simulated_mode(text: str) -> bool:
    """Whether a recorded mode measures simulated timings."""
    spec = recorded_mode(text)
    return spec is not None and spec.simulated


def sample_unit_of(mode: TargetMode) -> str:
    """The unit a measurement on a target of this mode records."""
    return MODES[mode].sample_unit


def chosen_modes() -> list[TargetMode]:
    """The modes a person picks for a new project (demo comes with a demo operator)."""
    return [mode for mode in MODES if mode is not DEMO_MODE]
