"""PTO-tile-lib operators in source: a CMakeLists.txt with C++ sources using
<pto/pto-inst.hpp>, tile types and PTO instructions; the folder owns its sub-folders, its
knobs are traced through the generated cases (tilelib_knobs.py), its build may reach
folders of its repository (tilelib_repository.py)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from pto_tui.core.operators.driver_output import KNOWN_VERDICTS, driver_output
from pto_tui.core.operators.evidence import cpp_evidence, read_head
from pto_tui.core.operators.kinds.spec import KindEvidence, KindSource, ResultChoice
from pto_tui.core.operators.marker import MARKER_FILE, marker_repository, read_marker
from pto_tui.core.operators.perf_sim_build import driver_for
from pto_tui.core.operators.perf_sim_driver import NoDriver
from pto_tui.core.operators.pto_isa_tree import INCLUDE_DIR, PERF_SIM_DIR, missing_perf_sim
from pto_tui.core.operators.tilelib_build import tilelib_commands
from pto_tui.core.operators.tilelib_executables import CPU_SIM_OPTION, offers_cpu_sim
from pto_tui.core.operators.tilelib_repository import (
    CMAKE_LISTS,
    TileLibRepository,
    declared_repository,
    find_tilelib_repository,
)
from pto_tui.core.operators.tunables import discover
from pto_tui.core.project.modes import mode_spec
from pto_tui.core.vocabulary import OperatorKind, TargetMode

_CPP_SUFFIXES = {".cpp", ".hpp", ".h", ".cc", ".cxx", ".hh"}


def gather(folder: Path, files: list[Path]) -> KindEvidence:
    """PTO C++ in the folder's sources, and a CMake project that builds it."""
    found = KindEvidence()
    for path in files:
        if path.suffix not in _CPP_SUFFIXES:
            continue
        rel = path.relative_to(folder).as_posix()
        text = read_head(path)
        if text and (lines := cpp_evidence(rel, text)):
            found.lines.extend(lines)
            found.files.append(rel)
    found.found = (folder / CMAKE_LISTS).is_file() and bool(found.lines)
    if found.found:
        found.lines.insert(0, f"{CMAKE_LISTS}: CMake project")
    elif found.lines:  # PTO C++ without a CMake project: say so rather than guess
        found.unclear = f"PTO C++ sources but no {CMAKE_LISTS}"
    return found


def build_repository(source: Path) -> TileLibRepository | None:
    """The repository the operator's build needs: the one its marker declares, else the
    folders its CMakeLists.txt reaches."""
    if not source.is_dir():
        return None
    marker = read_marker(source)
    declared = marker_repository(marker) if marker is not None else None
    if declared is not None:
        return declared_repository(source, declared.root, declared.needs, source / MARKER_FILE)
    return find_tilelib_repository(source)


def found_commands(source: Path, defaults: Mapping[str, str], mode: TargetMode) -> dict[str, tuple[str, str]]:
    """The build and benchmark made for this operator: its generator's arguments, the
    executable its CMake builds for the mode."""
    return tilelib_commands(source, dict(defaults), mode) if source.is_dir() else {}


def mode_problem(source: Path, mode: TargetMode) -> str:
    """A mode run in pto-isa's CPU simulation needs the operator's CMake to offer it (a
    perf-sim target's correctness is that runner's)."""
    if mode_spec(mode).cpu_simulation and not offers_cpu_sim(source):
        if mode_spec(mode).perf_sim:
            return (
                f"{source / CMAKE_LISTS}: no {CPU_SIM_OPTION} option: the {mode.value} mode checks "
                "correctness in pto-isa's CPU simulation, which this operator's build cannot configure"
            )
        return (
            f"{source / CMAKE_LISTS}: no {CPU_SIM_OPTION} option, so the {mode.value} build "
            "(pto-isa's CPU simulation runner) cannot be configured"
        )
    return ""


def perf_sim_problem(source: Path, entry: str) -> str:
    """Why pto-isa's perf_sim cannot count the cycles of this operator's case-string entry:
    its checkout lacks perf_sim (or the workspace would), or no driver can be derived and
    its marker names none. Raises InputError for a marker key that is wrong."""
    repo = find_tilelib_repository(source)
    if repo is None or not any(r == INCLUDE_DIR or INCLUDE_DIR.startswith(f"{r}/") for r in repo.reached):
        return (
            f"{source / CMAKE_LISTS} reaches no include/ folder of a pto-isa checkout: the perf-sim "
            f"mode needs its {PERF_SIM_DIR}"
        )
    missing = missing_perf_sim(repo.root)
    if missing:
        return f"{missing}: the perf-sim mode cannot count cycles with this checkout"
    driver = driver_for(source, entry)
    return driver.reason if isinstance(driver, NoDriver) else ""


def result_for(source: Path, mode: TargetMode) -> ResultChoice:
    """The format its driver prints a run's time and verdict in; a driver that prints none
    pto-tui reads is named (a perf-sim target times with its cycle model: the verdict is
    enough)."""
    if not source.is_dir():
        return ResultChoice()
    driver = driver_output(source)
    origin = f"operator: {driver.timing_at} ({driver.timing})" if driver.timing else ""
    if not driver.verdict_at:
        problem = f"{source}: its driver prints no pass/fail line pto-tui knows ({KNOWN_VERDICTS})"
    elif not driver.timing and not mode_spec(mode).perf_sim:
        driver_file = driver.verdict_at.rsplit(":", 1)[0]
        problem = (
            f"{source}: its driver ({driver_file}) prints its verdict ({driver.verdict_at}) but no "
            "time pto-tui can read (no report.csv, no 'Average time: X ms' or 'avg=X us' line), so "
            "no run of it can be timed"
        )
    else:
        problem = ""
    return ResultChoice(driver.result, origin, problem)


PTO_TILE_LIB = KindSource(
    kind=OperatorKind.PTO_TILE_LIB,
    gather=gather,
    tunables=discover,
    owns_subfolders=True,
    project_file=CMAKE_LISTS,
    case_reads_in_source=True,
    build_repository=build_repository,
    found_commands=found_commands,
    mode_problem=mode_problem,
    perf_sim_problem=perf_sim_problem,
    result_for=result_for,
)
