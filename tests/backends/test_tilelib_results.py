"""Tile-lib results judged honestly, through the local target and real subprocesses.

A stand-in for pto-isa's flash-attention binary (tests/fixtures/fake_tilelib) prints
`test success`/`test failed` and appends report.csv rows as main.cpp does, and misbehaves on
request: a run that exits 0 after `test failed`, rows for the wrong case or too many, a
separate correctness command. The built-in demo_fa operator (real g++ build) checks the
labels of a failing correctness step end to end."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import tomlkit

from pto_tui.backends.environment import run_environment
from pto_tui.backends.kinds.pto_tile_lib import TileLibBackend
from pto_tui.backends.kinds.registry import backend_for
from pto_tui.backends.loop import case_flops, measure, run_baseline, run_plan, site_for
from pto_tui.backends.site import StepEvent
from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.errors import PtoError
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.rounds.records import Measurement
from pto_tui.jobs.runner import JobRunner
from tests.backends.helpers import FA_KERNEL, demo_project, open_loop
from tests.core.helpers import cli

FAKE = Path(__file__).resolve().parents[1] / "fixtures" / "fake_tilelib" / "fa_performance.py"
NAME = "case_float_H_64_S0_256_S1_1024"
BENCH = "cd build && python3 ../fa_performance.py --npu={npu} --cases {case},{CUBE_S0},{TILE_S1}"


def fake_project(tmp_path: Path, mode: str = "ok", **settings: object) -> Path:
    """The demo_fa project with its binary replaced by the stand-in (no build needed)."""
    root = demo_project(tmp_path, "tile-lib", repeats=3, warmup=0)  # the runs this test counts
    shutil.copy(FAKE, root / "workspace" / "kernel" / "fa_performance.py")
    project = ProjectFile(root / "project.toml")
    project.set("commands.build", "mkdir -p build")
    project.set("commands.benchmark", f"{BENCH} --mode {mode}")
    for key, value in settings.items():
        project.set(key.replace("__", "."), value)
    project.save()
    return root


def without_shape(root: Path) -> None:
    """[case.shape] removed: the case string alone must give the shape."""
    path = root / "project.toml"
    document = tomlkit.parse(path.read_text())
    del document["case"]["shape"]
    path.write_text(tomlkit.dumps(document))


async def measured(root: Path) -> tuple[Measurement, list[StepEvent]]:
    events: list[StepEvent] = []
    with Campaign(root, write=True) as campaign:
        runner = JobRunner(campaign.layout.jobs_dir)
        try:
            site = site_for(campaign, runner, events.append)
            backend = backend_for(site, case_flops(campaign.config.case, campaign.config.operator))
            parameters = {name: t.value for name, t in campaign.config.tunables.items()}
            result = await measure(backend, parameters, run_plan(campaign.config))
        finally:
            await runner.close()
    return result, events


def labels(events: list[StepEvent]) -> dict[str, str]:
    """Step -> the state its 'finished' event shows (what the CLI and the TUI print)."""
    return {e.step: e.record.state.value for e in events if e.kind == "finished" and e.record is not None}


async def test_one_row_per_run_is_the_sample(tmp_path: Path) -> None:
    m, events = await measured(fake_project(tmp_path))
    assert m.build == "ok" and m.correctness == "pass" and m.samples_us == [250.0, 250.0, 250.0]
    # TFLOPS from the case's FLOPs (4 * S0 * S1 * D) and the row's duration
    assert m.tflops is not None and abs(m.tflops - 4.0 * 256 * 1024 * 64 / 250e-6 / 1e12) < 1e-9
    assert labels(events) == {"build": "succeeded", **{f"benchmark {i}/3": "succeeded" for i in (1, 2, 3)}}
    lines = (tmp_path / "projects/demo_fa/workspace/kernel/build/report.csv").read_text().splitlines()
    assert len(lines) == 4  # appended on every run; each run's own row was read


async def test_test_failed_with_exit_0_is_a_failed_step(tmp_path: Path) -> None:
    m, events = await measured(fake_project(tmp_path, "fail"))
    assert m.correctness == "fail" and m.samples_us == [] and "test failed (max diff 3.25)" in m.problem
    assert labels(events)["benchmark 1/3"] == "failed"  # not "succeeded", though it exited 0
    finished = [e for e in events if e.kind == "finished" and e.step == "benchmark 1/3"]
    assert finished[0].record is not None and finished[0].record.exit_code == 0
    assert "test failed" in finished[0].record.error
    assert "benchmark 2/3" not in labels(events)  # stops at the first failure


async def test_rows_for_another_case_are_invalid(tmp_path: Path) -> None:
    m, events = await measured(fake_project(tmp_path, "wrong-name"))
    assert m.samples_us == [] and m.correctness != "pass"
    assert "wrote 1 row(s) (case_float_H_64_S0_512_S1_1024); expected 1" in m.problem
    assert f"({NAME})" in m.problem and "build/report.csv" in m.problem
    assert labels(events)["benchmark 1/3"] == "failed"


async def test_too_many_or_no_rows_are_invalid(tmp_path: Path) -> None:
    extra, _ = await measured(fake_project(tmp_path / "extra", "extra-row"))
    assert extra.samples_us == [] and f"wrote 2 row(s) ({NAME}, {NAME}); expected 1" in extra.problem
    none, _ = await measured(fake_project(tmp_path / "none", "no-row"))
    assert none.samples_us == [] and "this run wrote 0 row(s) (none); expected 1" in none.problem
    timing, _ = await measured(fake_project(tmp_path / "timing", "no-timing"))
    assert timing.samples_us == [] and f"duration_us of {NAME} is 0.0: no valid timing" in timing.problem


async def test_no_verdict_or_crash_is_no_result(tmp_path: Path) -> None:
    silent, events = await measured(fake_project(tmp_path / "silent", "no-verdict"))
    assert silent.samples_us == [] and "no 'test success' or 'test failed' line" in silent.problem
    assert labels(events)["benchmark 1/3"] == "failed"
    crash, events = await measured(fake_project(tmp_path / "crash", "crash"))
    assert crash.samples_us == [] and "printed 'test success' but failed: exit code 139" in crash.problem


async def test_separate_correctness_is_read_from_the_output(tmp_path: Path) -> None:
    """A correctness command that exits 0 after `test failed` fails; nothing is benchmarked."""
    root = fake_project(tmp_path / "fails", commands__correctness=f"{BENCH} --mode fail")
    m, events = await measured(root)
    assert m.correctness == "fail" and "correctness check failed: test failed" in m.problem
    assert labels(events) == {"build": "succeeded", "correctness": "failed"}
    crashed = fake_project(tmp_path / "crash", commands__correctness=f"{BENCH} --mode crash")
    m, events = await measured(crashed)
    assert m.correctness == "fail" and "exit code 139" in m.problem
    assert labels(events)["correctness"] == "failed"
    passing = fake_project(tmp_path / "passes", commands__correctness=f"{BENCH} --mode ok")
    m, events = await measured(passing)
    assert m.correctness == "pass" and len(m.samples_us) == 3 and labels(events)["correctness"] == "succeeded"


async def test_case_string_gives_the_shape_without_case_shape(tmp_path: Path) -> None:
    root = fake_project(tmp_path)
    without_shape(root)
    with Campaign(root) as campaign:
        assert dict(campaign.config.case.shape) == {}
        assert case_flops(campaign.config.case, campaign.config.operator) == 4.0 * 256 * 1024 * 64
    m, _ = await measured(root)
    assert m.tflops is not None and abs(m.tflops - 4.0 * 256 * 1024 * 64 / 250e-6 / 1e12) < 1e-9


async def test_several_cases_sample_the_one_under_tuning(tmp_path: Path) -> None:
    """Both rows are checked; the sample is the named case's (the stand-in's second case takes
    twice as long)."""
    spec = "64,256,1024,2,256;128,128,1024,2,256"
    second = "case_float_H_128_S0_128_S1_1024"
    root = fake_project(
        tmp_path / "two", case__spec=spec, case__name=second,
        commands__benchmark="cd build && python3 ../fa_performance.py --cases {case}",
    )  # fmt: skip
    m, _ = await measured(root)
    assert m.samples_us == [500.0, 500.0, 500.0]
    one_failed = fake_project(
        tmp_path / "nok", case__spec=spec, case__name=second,
        commands__benchmark="cd build && python3 ../fa_performance.py --cases {case} --mode fail-second",
    )  # fmt: skip
    m, _ = await measured(one_failed)
    assert m.correctness == "fail" and m.samples_us == []


async def test_ambiguous_or_bad_case_string_fails_before_the_build(tmp_path: Path) -> None:
    root = fake_project(tmp_path / "ambiguous", case__spec="64,256,1024;128,128,1024", case__name="mine")
    with Campaign(root) as campaign:
        backend = TileLibBackend(site_for(campaign, JobRunner(campaign.layout.jobs_dir)))
        ok, problem = await backend.build({})
    assert not ok and "[case.name] the case string has 2 cases" in problem
    assert "[case] name 'mine' is none of them" in problem
    bad = fake_project(tmp_path / "bad", case__spec="64,x,1024")
    without_shape(bad)
    with Campaign(bad) as campaign:
        backend = TileLibBackend(site_for(campaign, JobRunner(campaign.layout.jobs_dir)))
        ok, problem = await backend.build({})
    assert not ok and problem == "[case.spec] case '64,x,1024': field S0 must be a positive integer, got 'x'"
    assert not (bad / "workspace/kernel/build").exists()  # the build never ran


async def test_demo_fa_failed_correctness_is_labelled_failed(tmp_path: Path) -> None:
    """The real g++-built demo operator with a broken kernel: its correctness command exits 0
    after `test failed`; the baseline is refused and no step claims success."""
    root = demo_project(tmp_path, "tile-lib", repeats=2)
    project = ProjectFile(root / "project.toml")
    project.set("commands.correctness", project.config.commands.benchmark.replace("--repeat 7", "--repeat 1"))
    project.save()
    kernel = root / FA_KERNEL
    kernel.write_text(
        kernel.read_text().replace("RescaleAccumulator<CUBE_S0, HEAD>(acc.data(), correction.data());", "")
    )
    assert cli("--project", root, "env", "--declare-environment", "probes given by hand in this test",
        "--probe", "g++=ok") == 0  # passed by hand: the baseline judges
    events: list[StepEvent] = []
    async with open_loop(root) as (campaign, runner):
        with pytest.raises(PtoError) as refused:  # the baseline refuses an invalid run, naming why
            await run_baseline(campaign, runner, events.append)
    assert "test failed" in refused.value.render()
    assert labels(events)["build"] == "succeeded" and labels(events)["correctness"] == "failed"
    assert not any(step.startswith("benchmark") for step in labels(events))


async def test_environment_first_result_with_test_failed_is_labelled_failed(tmp_path: Path) -> None:
    """The environment round's first run is judged like any benchmark run: exit 0 after
    `test failed` is a failed step and no valid result."""
    events: list[StepEvent] = []
    with Campaign(fake_project(tmp_path, "fail"), write=True) as campaign:
        runner = JobRunner(campaign.layout.jobs_dir)
        try:
            notes = await run_environment(campaign, runner, events.append)
        finally:
            await runner.close()
    assert not notes.passed and notes.probes["one valid result"] is False
    assert labels(events)["first result"] == "failed"
    assert any("test failed" in problem for problem in notes.problems)
