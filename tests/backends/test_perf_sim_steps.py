"""The perf-sim mode's steps through the local target and real subprocesses, on the
stand-in pto-isa checkout (tests/fixtures/perf_sim): how many runs a deterministic metric
takes, a run that prints no Total cycles, a project without a correctness command, a
driver the sources no longer give, and a hand-written driver the marker names, built and
run beside the CPU-simulation build."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pto_tui.backends.kinds.perf_sim import NO_CORRECTNESS, perf_sim_run
from pto_tui.backends.kinds.pto_tile_lib import PerfSimBackend
from pto_tui.backends.kinds.registry import backend_for
from pto_tui.backends.loop import run_plan, site_for
from pto_tui.backends.runs import RunPlan, more_runs
from pto_tui.backends.sample_journal import SampleJournal
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.operators.perf_sim_build import OUT_DIR
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.project.layout import ProjectLayout
from pto_tui.core.reports.perf_sim import PipeBusy
from pto_tui.core.rounds.records import Measurement
from pto_tui.jobs.runner import JobRunner
from tests.core.helpers import cli
from tests.core.perf_sim_build import FIXTURE

MATMUL = "kernels/manual/a2a3/matmul_op"
HAND_WRITTEN = """// a hand-written perf_sim driver (test fixture): MatmulOp as LaunchMatmulOp<uint16_t> does
#include <pto/pto-inst.hpp>
#include <pto/common/constants.hpp>
#include <pto/costmodel/perf_sim/launch.hpp>
#include "matmul_op_kernel.cpp"
#define TARGS <uint16_t, 4, 1024, 256, 512, 128, 64, 128>
int main()
{
    LAUNCH_KERNEL(MatmulOp, TARGS, (4, nullptr, nullptr), nullptr, nullptr, nullptr);
    return 0;
}
"""


def _project(tmp_path: Path, files: dict[str, str] | None = None, **settings: str) -> Path:
    """matmul_op's project, with `files` added to the operator folder first; `settings` set
    in its project.toml (a fault a test injects)."""
    source = Path(shutil.copytree(FIXTURE, tmp_path / "pto-isa")) / MATMUL
    for name, text in (files or {}).items():
        (source / name).write_text(text)
    new = ("new", source, "--mode", "perf-sim", "--compiler", "g++")
    assert cli(*new, "--projects-root", tmp_path / "p") == 0
    root = tmp_path / "p" / source.name
    project = ProjectFile(root / "project.toml")
    for key, value in settings.items():
        project.set(key.replace("__", "."), value)
    project.save()
    return root


def test_identical_repeats_stop_after_the_confirmation_run() -> None:
    told: list[str] = []
    plan = RunPlan(5, 20, confirm=2)
    steps = [plan.step(i) for i in (0, 1, 2, 5)]
    assert steps == ["benchmark 1/2", "benchmark 2/2", "benchmark 3/5", "benchmark 6/20"]
    assert more_runs(plan, Measurement(samples_us=[44619.0]), told.append)
    assert not more_runs(plan, Measurement(samples_us=[44619.0, 44619.0]), told.append)
    assert told == ["2 runs: identical (44619 each): a deterministic metric, confirmed"]
    # two that differ are no deterministic metric here: the discipline's runs follow
    assert more_runs(plan, Measurement(samples_us=[44619.0, 44620.0]), told.append)
    assert told[-1] == "2 runs differ (44619, 44620): not deterministic here; measuring 5 at least"
    # without a confirmation rule (any other mode) equal runs do not stop a round early
    assert more_runs(RunPlan(5, 20), Measurement(samples_us=[44619.0, 44619.0]), told.append)


def test_the_plan_of_a_perf_sim_project_has_no_warm_up_and_a_confirmation(tmp_path: Path) -> None:
    with Campaign(_project(tmp_path)) as campaign:
        plan = run_plan(campaign.config)
    assert (plan.repeats, plan.warmup, plan.confirm) == (5, 0, 2)


async def test_a_run_that_prints_no_total_cycles_fails_naming_the_line(tmp_path: Path) -> None:
    root = _project(tmp_path, commands__benchmark="echo 'Cores : 1'")
    with Campaign(root) as campaign:
        runner = JobRunner(campaign.layout.jobs_dir)
        try:
            outcome = await perf_sim_run(site_for(campaign, runner), "benchmark 1/2", {}, None)
        finally:
            await runner.close()
    assert not outcome.valid
    assert outcome.problem == "the perf_sim run's output: the perf_sim run printed no 'Total cycles' line"


async def test_no_correctness_command_is_a_failed_check_never_a_pass(tmp_path: Path) -> None:
    with Campaign(_project(tmp_path, commands__correctness="")) as campaign:
        backend = backend_for(site_for(campaign, JobRunner(campaign.layout.jobs_dir)))
        assert isinstance(backend, PerfSimBackend)
        assert await backend.correctness({}) == (False, NO_CORRECTNESS)


async def test_a_driver_the_sources_no_longer_give_fails_the_build_before_it_runs(tmp_path: Path) -> None:
    root = _project(tmp_path)
    kernel = root / "workspace/kernel" / MATMUL / "matmul_op_kernel.cpp"
    kernel.write_text(kernel.read_text().replace("<<<blockDim, nullptr, stream> > >", ""))
    with Campaign(root) as campaign:
        ok, problem = await backend_for(site_for(campaign, JobRunner(campaign.layout.jobs_dir))).build({})
    assert not ok and problem.startswith("no perf_sim driver derived: no host function launches a kernel")
    assert not (root / "workspace/kernel" / MATMUL / "build").exists()  # the build never ran


@pytest.mark.skipif(not (shutil.which("g++") and shutil.which("cmake")), reason="needs g++ and cmake")
async def test_a_hand_written_driver_named_by_the_marker_is_built_and_run(tmp_path: Path) -> None:
    marker = 'kind = "pto-tile-lib"\nperf_sim_driver = "perf_sim_main.cpp"\n'
    root = _project(tmp_path, {"pto-operator.toml": marker, "perf_sim_main.cpp": HAND_WRITTEN})
    with Campaign(root) as campaign:
        runner = JobRunner(campaign.layout.jobs_dir)
        try:
            backend = backend_for(site_for(campaign, runner))
            ok, problem = await backend.build({})
            assert ok, problem
            outcome = await backend.benchmark("benchmark 1/2", {})
        finally:
            await runner.close()
    assert outcome.valid and outcome.duration_us is not None and outcome.duration_us > 0
    assert outcome.report == f"{OUT_DIR}/perf_sim_output/MatmulOp_pipeline_summary.csv"
    assert {p.name for p in outcome.pipes if p.busy_cycles} == {"Matrix", "MTE2", "MTE1", "Fixpipe", "Scalar"}


@pytest.mark.skipif(not (shutil.which("g++") and shutil.which("cmake")), reason="needs g++ and cmake")
async def test_costmodel_headers_that_do_not_compile_are_named_as_the_checkouts(tmp_path: Path) -> None:
    """As at pto-isa 3186c381, where two headers declare get_coreid() differently under
    -D__COSTMODEL: the CPU-simulation build passes, the driver's fails in the checkout's
    headers, and the failure says so in one line with the compiler's first error."""
    root = _project(tmp_path)
    launch = root / "workspace/kernel/include/pto/costmodel/perf_sim/launch.hpp"
    conflict = "#ifdef __COSTMODEL\nint get_coreid();\nunsigned get_coreid();\n"
    launch.write_text(launch.read_text().replace("#ifdef __COSTMODEL\n", conflict, 1))
    line = launch.read_text().splitlines().index("unsigned get_coreid();") + 1
    with Campaign(root) as campaign:
        runner = JobRunner(campaign.layout.jobs_dir)
        try:
            ok, problem = await backend_for(site_for(campaign, runner)).build({})
        finally:
            await runner.close()
    assert not ok and "\n" not in problem
    assert problem.startswith(
        "perf_sim build failed: pto-isa's costmodel headers do not compile here: "
        f"../../../../../include/pto/costmodel/perf_sim/launch.hpp:{line}:"
    ), problem
    assert "error: ambiguating new declaration" in problem or "error: functions that differ only" in problem


def test_a_perf_sim_runs_pipes_survive_in_the_sample_journal(tmp_path: Path) -> None:
    """A run pto-tui left is resumed from its journal: the pipes come back as records."""
    layout = ProjectLayout(tmp_path)
    pipes = [PipeBusy("Vector", 38008, 0.46), PipeBusy("MTE2", 23850, 0.25)]
    SampleJournal.begin(layout, 1, 2).write(Measurement(build="ok", samples_us=[44619.0], pipes=pipes))
    _journal, kept = SampleJournal.resume(layout, 1, 2)
    assert kept.measurement is not None and kept.measurement.pipes == pipes
