"""PTO-tile-lib operators in a project: a CMake project whose binary checks and times its
cases (`test success`, report.csv); on a cpu-sim target, pto-isa's CPU-simulation runner; on
a perf-sim target, that runner checks correctness and a perf_sim driver counts the cycles."""

from __future__ import annotations

from pto_tui.core.project.command_table import Commands
from pto_tui.core.project.kinds.spec import COMMON_PROTECTED, KindProject
from pto_tui.core.vocabulary import OperatorKind, TargetMode

_NPU = Commands(
    build=(
        "rm -rf build && mkdir build && cd build"
        " && python3 ../scripts/generate_cases.py --cases {case}"
        " && cmake -DRUN_MODE=npu -DSOC_VERSION={soc} .. && make -j16"
    ),
    correctness="",  # read from the binary's output ("test success")
    benchmark=(
        "cd build && python3 ../scripts/gen_data.py --cases {case}"
        " && ./{binary} --npu={npu} --cases {case}"
    ),
    reference="",
    results="build/report.csv",
)

# pto-isa's CPU simulation (`-DPTO_CPU_SIM_STANDALONE=ON`), with the compiler and flags of
# [target]. The case header is generated before make, so the CMake rule that would
# generate the default cases finds it newer than the script and keeps it.
_CPU_SIM = Commands(
    build=(
        "rm -rf build && mkdir build && cd build"
        " && python3 ../scripts/generate_cases.py --cases {case}"
        " && cmake -DPTO_CPU_SIM_STANDALONE=ON -DCMAKE_CXX_COMPILER={compiler}"
        " -DCMAKE_CXX_FLAGS={cxx_flags} .. && make -j16"
    ),
    correctness="",  # read from the binary's output ("test success")
    benchmark="cd build && python3 ../scripts/gen_data.py --cases {case} && ./{binary} --cases {case}",
    reference="",
    results="build/report.csv",
)

# pto-isa's perf_sim cycle model: the CPU-simulation build (the backend derives the perf_sim
# driver and builds it alongside, in build-perf_sim/), correctness from one run of the
# CPU-simulation binary, and the benchmark the driver's run, which writes perf_sim_output/.
# The driver's run and output folder are also how a round of another mode predicts its cycles
# ([target] predict).
PERF_SIM_RUN = "cd build-perf_sim && rm -rf perf_sim_output && ./perf_sim_driver"
PERF_SIM_OUTPUT = "build-perf_sim/perf_sim_output"
_PERF_SIM = Commands(
    build=_CPU_SIM.build,
    correctness=_CPU_SIM.benchmark,
    benchmark=PERF_SIM_RUN,
    reference="",
    results=PERF_SIM_OUTPUT,
)

PTO_TILE_LIB = KindProject(
    kind=OperatorKind.PTO_TILE_LIB,
    label="PTO-tile-lib",
    workspace_subdir="kernel",
    commands={TargetMode.NPU: _NPU, TargetMode.CPU_SIM: _CPU_SIM, TargetMode.PERF_SIM: _PERF_SIM},
    modes=(TargetMode.NPU, TargetMode.CPU_SIM, TargetMode.PERF_SIM, TargetMode.DEMO),
    protected=(*COMMON_PROTECTED, "**/main.cpp", "**/scripts/**", "**/run.sh", "**/CMakeLists.txt"),
    repository_copy="the folders its CMake reaches are copied; commands run from the operator folder",
)
