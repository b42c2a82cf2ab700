"""The perf-sim mode's steps on the target (a tile-lib operator; `PerfSimBackend` in
pto_tile_lib.py runs them): the perf_sim driver derived from the workspace's sources as they
are now (core/operators/perf_sim_build.py), then one build step: the CPU-simulation build
with the driver's formula headers and compile alongside, a failure of either quoted by its
compiler's first `error:` line (not make's tail); a benchmark run is one run of the driver,
its sample the printed Total cycles, its per-pipe busy cycles read from the pipeline
summary CSV.
Correctness is the CPU-simulation binary's (`test success`), never assumed: a perf-sim
project without a correctness command fails its correctness step."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

from pto_tui.backends.environment_checks import FIRST_PREDICTION
from pto_tui.backends.kinds.backend import BenchOutcome, ended
from pto_tui.backends.site import OperatorSite, StepOutput
from pto_tui.core.errors import PtoError
from pto_tui.core.operators.perf_sim_build import (
    DRIVER_MARKER,
    Driver,
    HandWritten,
    build_command,
    case_entry,
    driver_for,
)
from pto_tui.core.operators.perf_sim_driver import NoDriver
from pto_tui.core.project.config import Scalar
from pto_tui.core.project.kinds.pto_tile_lib import PERF_SIM_OUTPUT, PERF_SIM_RUN
from pto_tui.core.project.limits import BENCHMARK, BUILD
from pto_tui.core.reports.compiler import error_file, first_compiler_error
from pto_tui.core.reports.perf_sim import parse_perf_sim_run
from pto_tui.core.reports.result import ReportError
from pto_tui.jobs.model import NEEDS_BUILD, NEEDS_NPU

SUMMARY_SUFFIX = "_pipeline_summary.csv"
PTO_HEADERS = "include/pto/"  # an error in a file here is pto-isa's, not the operator's
PERF_SIM_REPORT = (
    "a perf-sim project's samples are perf_sim cycles and its correctness the CPU simulation's: "
    "no result file holds both; give --samples (cycles) with --build and --correctness instead"
)
NO_CORRECTNESS = (
    "the perf-sim mode takes correctness from the CPU simulation: [commands] correctness is "
    "empty (it runs the operator's CPU-simulation binary, which prints 'test success')"
)


@dataclass(frozen=True)
class DriverRun:
    """How the driver runs: its command (from the operator folder), the folder it writes
    its summary CSV in, and what its step needs of a scheduler (JobSpec.needs)."""

    command: str
    output: str
    needs: str = NEEDS_NPU  # a perf-sim project's benchmark: its NPU step, a Slurm job


# the driver's run when it predicts a round's cycles ([target] predict): the perf-sim mode's
# own benchmark command and results folder; a CPU simulation beside the measurement, run where
# the build left it (never a Slurm job of its own)
PREDICTION_RUN = DriverRun(PERF_SIM_RUN, PERF_SIM_OUTPUT, needs="")
PREDICTION_STEP = FIRST_PREDICTION  # its job's step, in the environment round as in a round


def compiler_failure(out: StepOutput) -> str:
    """Why a compile failed: the compiler's first `error:` line, else how the command ended."""
    output = "\n".join(out.stdout + out.stderr)
    return first_compiler_error(output) or ended(out)


def derived_driver(site: OperatorSite) -> tuple[Driver | None, str]:
    """The driver of the workspace's sources as they are now: (driver, "") or (None, why
    not: the deriver's reason, or a marker key that is wrong)."""
    config = site.config
    try:
        driver = driver_for(site.workspace / site.subdir, case_entry(config.case, config.operator))
    except PtoError as error:
        return None, f"perf_sim driver: {error.render()}"
    if isinstance(driver, NoDriver):
        return None, driver.reason
    return driver, ""


async def build_alongside(
    site: OperatorSite, parameters: Mapping[str, Scalar], step: str, driver: Driver
) -> tuple[StepOutput, str]:
    """The project's build command with `driver` built alongside: (the step's output, why
    the driver did not build: "" when it did). A build that failed prints no DRIVER_MARKER
    (`build_failed` says so); a driver that failed is quoted by its compiler's first
    `error:` line, one in pto-isa's own headers said to be the checkout's."""
    config = site.config
    build = site.render(config.commands.build, parameters)
    command = build_command(build, driver, config.operator.path, config.target.perf_sim_compiler)
    out = await site.run(step, command, parameters=parameters, timeout=await site.limit(BUILD),
                         needs=NEEDS_BUILD)
    if build_failed(out) or out.ok:
        return out, ""
    own = out.stdout[out.stdout.index(DRIVER_MARKER) + 1:]  # the driver's build, after the marker
    first = first_compiler_error("\n".join(own))
    if first and PTO_HEADERS in error_file(first):  # the checkout's headers, whatever the round did
        return out, f"perf_sim build failed: pto-isa's costmodel headers do not compile here: {first}"
    return out, "perf_sim build failed: " + (first or ended(out, "\n".join(own)))


def build_failed(out: StepOutput) -> bool:
    """The project's own build failed (the driver's output follows DRIVER_MARKER only after
    a build that succeeded)."""
    return DRIVER_MARKER not in out.stdout


async def perf_sim_build(
    site: OperatorSite, parameters: Mapping[str, Scalar], step: str
) -> tuple[Driver | None, str]:
    """A perf-sim build: the driver of the workspace's sources as they are now, and the
    project's build command (the CPU-simulation build) with the driver built alongside:
    (driver, "") or (None, why not: the driver's reason, or the first compiler error of
    whichever build failed)."""
    driver, why = derived_driver(site)
    if driver is None:
        return None, why
    out, driver_problem = await build_alongside(site, parameters, step, driver)
    if build_failed(out):
        return None, "build failed (CPU simulation): " + compiler_failure(out)
    return (None, driver_problem) if driver_problem else (driver, "")


async def summary_csv(site: OperatorSite, step: str, driver: Driver | None, folder: str) -> str | None:
    """The pipeline summary CSV a run wrote in `folder` (relative to the operator folder):
    the derived driver's by its kernel's name; a hand-written driver's (or one built by a
    run pto-tui left) the one file of that name in the folder."""
    if driver is not None and not isinstance(driver, HandWritten):
        return f"{folder}/{PurePosixPath(driver.summary_csv).name}"
    listing = await site.run(f"{step}: find summary", f"ls -1 {folder} 2>/dev/null; true", quiet=True)
    found = sorted(name for name in listing.stdout if name.endswith(SUMMARY_SUFFIX))
    return f"{folder}/{found[0]}" if len(found) == 1 else None


async def perf_sim_run(
    site: OperatorSite, step: str, parameters: Mapping[str, Scalar], driver: Driver | None,
    run: DriverRun | None = None,
) -> BenchOutcome:
    """One run of the driver: Total cycles as the sample. `run` is the command and its
    output folder; by default the project's benchmark and results (a perf-sim project's)."""
    commands = site.config.commands
    run = run or DriverRun(commands.benchmark, commands.results or PERF_SIM_OUTPUT)
    command = site.render(run.command, parameters)
    out = await site.run(step, command, parameters=parameters, timeout=await site.limit(BENCHMARK),
                         needs=run.needs)
    if not out.ok:
        return BenchOutcome(problem="perf_sim run failed: " + ended(out))
    csv = await summary_csv(site, step, driver, run.output)
    text = await site.read_text(csv, f"{step}: read summary") if csv else None
    try:
        result = parse_perf_sim_run(
            "\n".join(out.stdout), text, "the perf_sim run's output", csv or f"*{SUMMARY_SUFFIX}"
        )
    except ReportError as error:
        return BenchOutcome(problem=error.render(), report=csv or "")
    assert csv is not None  # parse_perf_sim_run refuses a run without its CSV
    return BenchOutcome(correct=True, duration_us=float(result.total_cycles), report=csv, pipes=result.pipes)
