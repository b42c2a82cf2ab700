"""What a perf-sim build runs on the target, as commands: the driver, the formula headers,
the compile (pure: the backend runs them, backends/kinds/perf_sim.py).

At every build the driver is derived again from the workspace's sources (perf_sim_driver.py;
an edited wrapper constant or kernel is measured as edited), or the operator marker names a
hand-written one (`perf_sim_driver = "path"`, relative to the operator folder, which wins).
It is written into a folder beside the build folder and compiled there while the
CPU-simulation build compiles (the two are independent but for the generated case header,
which the driver takes once the build has configured). pto-isa's costmodel headers include
formula headers that generators write beside themselves: each generator's folder (less
headers) is copied into an overlay in the driver's folder and run there, and the overlay
comes first on the include path, so the workspace's sources are never written. The
compile uses the flags of pto-isa's perf_sim tests (tests/costmodel/perf_sim_st: C++23,
`-D__COSTMODEL -D__NPU_ARCH__=2201 -DPTO_COMM_NOT_SUPPORTED`, stdint.h and stddef.h forced
in, the costmodel stubs before include/) plus the kernel's core defines, at -Og. The cycles
are the model's, not the host's: they do not depend on -O; the time does. Measured on
pto-isa 9ee25602 (g++ 12, CPU seconds): -O0 compiles flash attention's driver in 6.7 s
instead of -O1's 8.3 s, but runs gemm_performance's (24 blocks) in 37 s instead of 7 s; -Og
compiles flash attention's in 6.5 s instead of -O1's 8.8 s (the compile is most of a
perf-sim round's extra time: its run takes milliseconds), and gemm's in 4.7 s instead of
6.8 s, running it in 4.4 s instead of 3.3 s: the same 37164484 cycles either way.
"""

from __future__ import annotations

import base64
import shlex
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from pto_tui.core.operators.case_strings import case_under_tuning, parsed_cases
from pto_tui.core.operators.kernel_knobs import CPP_SUFFIXES
from pto_tui.core.operators.marker import marker_perf_sim_driver, read_marker
from pto_tui.core.operators.perf_sim_driver import NoDriver, PerfSimDriver, derive_driver, kernel_defines
from pto_tui.core.operators.pto_isa_tree import COSTMODEL_STUBS, GENERATOR_GLOB, INCLUDE_DIR
from pto_tui.core.operators.tilelib_generator import read_generator
from pto_tui.core.project.config import CaseConfig, OperatorConfig

BUILD_DIR = "build"  # where the CPU-simulation build writes, relative to the operator folder
# where the driver is built and run, beside the build folder (which the build command wipes);
# "build-*" folders are never synced nor snapshot (core/workspace/files.py)
OUT_DIR = "build-perf_sim"
DRIVER_MARKER = "==== pto-tui: the perf_sim driver, built alongside ===="
GENERATOR = "generate_cases"  # the case generator the deriver reads (generate_cases*.py)
DRIVER_SOURCE = "perf_sim_driver.cpp"
DRIVER_BINARY = "perf_sim_driver"
OVERLAY_DIR = "perf_sim_include"  # the generated formula headers, inside OUT_DIR
FLAGS = (
    "-std=c++23",
    "-Og",
    "-include",
    "stdint.h",
    "-include",
    "stddef.h",
    "-D__COSTMODEL",
    "-D__NPU_ARCH__=2201",
    "-DPTO_COMM_NOT_SUPPORTED",
    "-Wno-ignored-attributes",
)
# Run on the target with python3: copy each generator's folder (less headers and byte-code)
# into the overlay at its path under include/ and run it there; a failure names the
# generator and its last line of output.
GENERATE_HEADERS = """
import pathlib, shutil, subprocess, sys
include, overlay, pattern = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3]
shutil.rmtree(overlay, ignore_errors=True)
overlay.mkdir(parents=True)
for generator in sorted(include.glob(pattern)):
    folder = generator.parent
    here = overlay / folder.relative_to(include)
    for path in folder.rglob("*"):
        if path.is_file() and path.suffix not in (".h", ".hpp", ".pyc") and "__pycache__" not in path.parts:
            (here / path.relative_to(folder)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, here / path.relative_to(folder))
    done = subprocess.run([sys.executable, generator.name], cwd=here, capture_output=True, text=True)
    said = [line.strip() for line in (done.stderr + done.stdout).splitlines() if line.strip()]
    if done.returncode:
        print(f"formula generator {generator} failed (exit {done.returncode}): {said[-1] if said else ''}")
        sys.exit(1)
    print(f"generated the headers of {generator}")
"""


@dataclass(frozen=True)
class HandWritten:
    """A driver the operator marker names: compiled where it is, its summary CSV found after
    the run."""

    path: str  # relative to the operator folder
    defines: tuple[str, ...]
    defines_reason: str


Driver = PerfSimDriver | HandWritten


def driver_sources(folder: Path) -> dict[str, str]:
    """The files a driver is derived from: the operator folder's C++ sources, its case
    generator and CMakeLists.txt (the build folder left out), by relative path."""
    found: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if not path.is_file() or (rel.parts and rel.parts[0] == BUILD_DIR):
            continue
        generator = path.name.startswith(GENERATOR) and path.suffix == ".py"
        if path.suffix in CPP_SUFFIXES or path.name == "CMakeLists.txt" or generator:
            found[rel.as_posix()] = path.read_text(encoding="utf-8", errors="replace")
    return found


def case_workload(sources: dict[str, str], entry: str) -> dict[str, int]:
    """The workload fields of one case-string entry ("128,128,1024") by the case
    generator's keys ({"head_size": 128, "s0": 128, "s1": 1024}); {} without a generator."""
    generator = next(
        (g for rel, text in sorted(sources.items())
         if PurePosixPath(rel).name.startswith(GENERATOR) and rel.endswith(".py")
         and (g := read_generator(text, rel)) is not None),
        None,
    )
    if generator is None:
        return {}
    parts = [part.strip() for part in entry.split(",") if part.strip()]
    return {
        field.key: int(parts[field.position])
        for field in generator.fields.values()
        if field.position is not None and field.position < len(parts) and parts[field.position].isdigit()
    }


def case_entry(case: CaseConfig, operator: OperatorConfig) -> str:
    """The case-string entry under tuning ("128,128,1024"): the driver runs its row."""
    cases = parsed_cases(case, operator)
    if cases:
        return case_under_tuning(cases, case.name).text
    return case.spec.split(";")[0].strip()


def driver_for(folder: Path, entry: str) -> Driver | NoDriver:
    """The driver of the operator in `folder` for the case-string entry under tuning: the
    marker's hand-written one when it names one, else the one derived from the sources.
    Raises InputError for a marker whose key is wrong (naming the file and key)."""
    sources = driver_sources(folder)
    marker = read_marker(folder)
    named = marker_perf_sim_driver(marker, folder / "pto-operator.toml") if marker is not None else ""
    if named:
        return HandWritten(named, *kernel_defines(sources))
    return derive_driver(sources, case_workload(sources, entry) or None)


def include_dir(operator_path: str) -> str:
    """The repository copy's include/ relative to the operator folder (the operator at
    `operator_path` inside the repository): "../../../../include" for kernels/manual/common/fa."""
    depth = len(PurePosixPath(operator_path).parts)
    return "/".join([".."] * depth + [INCLUDE_DIR])


def build_command(build: str, driver: Driver, operator_path: str, compiler: str) -> str:
    """The project's (rendered) build command, with the perf_sim driver built alongside in
    OUT_DIR, run from the operator folder. The driver starts once the build has configured
    (its CMakeCache.txt and the generated case header newer than the start; a driver that
    includes no generated header starts at once), so the two compile on separate cores. The
    driver's output is kept apart and printed after the build's, below DRIVER_MARKER: a
    build that fails stops the driver and exits with the build's code; otherwise the exit
    code is the driver's."""
    header = driver.generated_header if isinstance(driver, PerfSimDriver) else ""
    wait = ""
    if header:
        started = f"{OUT_DIR}/.started"
        configured = f"[ {BUILD_DIR}/CMakeCache.txt -nt {started} ] && [ {BUILD_DIR}/{header} -nt {started} ]"
        wait = (
            f"until {{ {configured}; }} || [ -e {OUT_DIR}/.build-done ]; do sleep 0.2; done; "
            f"cp {BUILD_DIR}/{header} {OUT_DIR}/ && "
        )
    driver_steps = f"cd {OUT_DIR} && {_headers(operator_path)} && {_compile(driver, operator_path, compiler)}"
    return "\n".join(
        [
            f"rm -rf {OUT_DIR} && mkdir -p {OUT_DIR} && touch {OUT_DIR}/.started || exit 1",
            f"( {wait}{driver_steps} ) > {OUT_DIR}/driver.log 2>&1 &",
            "pto_tui_driver=$!",
            f"( {build} )",
            "pto_tui_build=$?",
            f"touch {OUT_DIR}/.build-done",
            "if [ $pto_tui_build -ne 0 ]; then kill $pto_tui_driver 2>/dev/null; exit $pto_tui_build; fi",
            "wait $pto_tui_driver; pto_tui_rc=$?",
            f"echo {shlex.quote(DRIVER_MARKER)}; cat {OUT_DIR}/driver.log; exit $pto_tui_rc",
        ]
    )


def _headers(operator_path: str, python: str = "python3") -> str:
    """Generate the formula headers into the overlay (run from OUT_DIR)."""
    include = "../" + include_dir(operator_path)
    argv = (python, "-c", GENERATE_HEADERS, include, OVERLAY_DIR, f"pto/costmodel/{GENERATOR_GLOB}")
    return " ".join(shlex.quote(arg) for arg in argv)


def _compile(driver: Driver, operator_path: str, compiler: str) -> str:
    """Write the derived driver into OUT_DIR (a hand-written one is compiled where it is)
    and compile it there (run from OUT_DIR); the last step runs as the subshell itself, so
    stopping the subshell stops the compiler."""
    include = "../" + include_dir(operator_path)
    stubs = "../" + include_dir(operator_path).removesuffix(INCLUDE_DIR) + str(COSTMODEL_STUBS)
    if isinstance(driver, HandWritten):
        source, write = f"../{driver.path}", ""
    else:
        encoded = base64.b64encode(driver.text.encode()).decode()
        source, write = DRIVER_SOURCE, f"printf %s {encoded} | base64 -d > {DRIVER_SOURCE} && "
    argv = [
        compiler, *FLAGS, *driver.defines,
        "-I", OVERLAY_DIR, "-I", stubs, "-I", include, "-I", "..", "-I", ".",
        source, "-o", DRIVER_BINARY, "-lpthread",
    ]
    return f"{write}exec " + " ".join(shlex.quote(arg) for arg in argv)
