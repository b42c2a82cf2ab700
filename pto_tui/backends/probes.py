"""Probes several operator kinds share: Python, CMake, the C++ toolchain of a build in
pto-isa's CPU simulation (the compiler and flags of [target]) and the compiler of a perf_sim
driver ([target] perf_sim_compiler)."""

from __future__ import annotations

import shlex

from pto_tui.core.project.config import Target
from pto_tui.jobs.probes import Probe

PYTHON = Probe("python", "command -v python3 && python3 --version", "python", version_line=-1,
               checks="python3 is on PATH and runs",
               fix="install Python 3 on the target, or put it on PATH in [target] env_setup")
CMAKE = Probe("cmake", "cmake --version", "cmake", checks="cmake is on PATH and runs",
              fix="install CMake on the target (Debian: apt-get install cmake)")
# the CPU simulation of pto-isa is built with clang and libc++ (its README's flow)
_CPU_SIM_FIX = ("install the compiler ([target] compiler; pto-isa's CPU simulation builds with "
                "clang-16 and libc++-16: apt-get install clang-16 libc++-16-dev libc++abi-16-dev)")
# an NPU host: the CANN toolkit's environment, and the NPUs the driver sees
CANN_FIX = ("source the CANN toolkit's set_env.sh in [target] env_setup (--env-setup at new), "
            "e.g. `source /usr/local/Ascend/ascend-toolkit/set_env.sh`")
CANN = Probe(
    "CANN",
    'home="${ASCEND_TOOLKIT_HOME:-$ASCEND_HOME_PATH}"; test -n "$home" && echo "$home"',
    "CANN",
    checks="$ASCEND_TOOLKIT_HOME or $ASCEND_HOME_PATH is set (the toolkit's set_env.sh sets them)",
    fix=CANN_FIX,
)
NPU_SMI = Probe("ACL runtime / NPU", "npu-smi info", "npu-smi",
                checks="npu-smi (the NPU driver's tool) runs and lists the devices",
                fix="check the NPU driver on the target")
# torch_npu imports and sees a device: an import alone passes on a host without an NPU
TORCH_NPU = Probe(
    "torch_npu (a device available)",
    "python3 -c 'import sys, torch, torch_npu; ok = torch.npu.is_available(); "
    "print(torch.__version__, \"npu available\" if ok else \"no NPU available\"); sys.exit(0 if ok else 1)'",
    "torch",
    checks="torch and torch_npu import, and torch.npu.is_available() is true",
    fix="install torch_npu for the CANN toolkit, and check that the NPU is visible (npu-smi info)",
)

# a C++20 program compiled, linked and run with the build's compiler and flags
_COMPILE = (
    'd=$(mktemp -d) && printf \'#include <cstdio>\\nint main() {{ std::puts("ok"); }}\\n\' > "$d/probe.cpp"'
    ' && {compiler} -std=c++20 {flags} "$d/probe.cpp" -o "$d/probe" && "$d/probe"; s=$?; rm -rf "$d"; exit $s'
)


def cpu_sim_probes(target: Target) -> list[Probe]:
    """The compiler a CPU-simulation build uses, said so in the probe names."""
    compiler = shlex.quote(target.compiler)
    flags = " ".join(shlex.quote(f) for f in shlex.split(target.cxx_flags))
    what = target.compiler + (f" {target.cxx_flags}" if target.cxx_flags else "")
    return [
        Probe(f"{target.compiler} (cpu-sim, instead of Bisheng)", f"{compiler} --version", target.compiler,
              checks=f"{target.compiler} is on PATH and runs", fix=_CPU_SIM_FIX),
        Probe(f"C++20 compile, link, run ({what})", _COMPILE.format(compiler=compiler, flags=flags),
              checks=f"a C++20 program compiles, links and runs with {what}",
              fix=_CPU_SIM_FIX + "; or change [target] cxx_flags"),
        CMAKE,
        PYTHON,
    ]


# a C++23 program compiled, linked and run as a perf_sim driver is (pto-isa's costmodel
# headers are C++23)
_COMPILE_23 = _COMPILE.replace("-std=c++20", "-std=c++23")


def perf_sim_probes(target: Target) -> list[Probe]:
    """A perf-sim target: the CPU-simulation toolchain (correctness), and the compiler of
    the perf_sim driver."""
    return [*cpu_sim_probes(target), *driver_probes(target)]


def driver_probes(target: Target) -> list[Probe]:
    """The compiler of the perf_sim driver (a perf-sim target's, or one that predicts with
    it: [target] predict)."""
    compiler = shlex.quote(target.perf_sim_compiler)
    name = target.perf_sim_compiler
    return [
        Probe(f"{name} (perf_sim driver)", f"{compiler} --version", name,
              checks=f"{name} is on PATH and runs",
              fix="install g++ 12 or newer, or set [target] perf_sim_compiler"),
        Probe(f"C++23 compile, link, run ({name}, perf_sim)",
              _COMPILE_23.format(compiler=compiler, flags=""),
              checks=f"a C++23 program compiles, links and runs with {name} (pto-isa's "
              "costmodel headers are C++23)",
              fix="use a compiler with C++23 (g++ 12 or newer) in [target] perf_sim_compiler"),
    ]
