"""A round run left with its job kept running goes on when the project opens again: the
kept job is adopted (not run again), the steps after it run, and the round records the
samples as if the app had never left. Real jobs on the demo target; the benchmark command
of this project counts its runs in a file and, while a flag file exists, is slow."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from textual.widgets import DataTable

from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.campaign.demo import create_demo_project
from pto_tui.core.project.config import operator_folder
from pto_tui.core.project.file import ProjectFile
from pto_tui.jobs.model import JobRecord, JobState, list_records
from pto_tui.tui.app import PtoApp
from pto_tui.tui.screens.measure_again import MeasureAgainScreen
from tests.core.helpers import cli_json
from tests.tui.keys import loaded, wait_for
from tests.tui.projects import run
from tests.tui.test_demo_loop import RUN_TIMEOUT, read, run_pane, start_scripted_round, verdict_box
from tests.tui.test_leaving import kill_left_over
from tests.tui.text import static_text

REPEATS = 3


@pytest.fixture(scope="module")
def _counting_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("counting")
    root = create_demo_project("dsl", base / "projects")
    with Campaign(root) as campaign:
        benchmark = campaign.config.commands.benchmark
        # relative to the operator folder the benchmark runs in: each copy counts its own
        up = "../" * (len(Path(operator_folder(campaign.config)).parts) + 1)
    project = ProjectFile(root / "project.toml")
    project.set("commands.benchmark", f"echo run >> {up}bench-runs; "
                f"if [ -f {up}slow ]; then sleep 4; fi; " + benchmark)
    project.set("discipline.repeats", REPEATS)
    project.set("discipline.max_repeats", REPEATS)  # a fixed number of runs
    project.set("discipline.max_spread", 5.0)
    project.set("discipline.review_gain", 100.0)
    project.save()
    for step in ("env", "torch-baseline", "baseline"):
        run("--project", str(root), step)
    return root


@pytest.fixture
def counting_root(_counting_template: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "projects" / _counting_template.name
    shutil.copytree(_counting_template, dest, symlinks=True)
    (dest / ".pto-tui" / "lock.json").unlink(missing_ok=True)
    (dest / "bench-runs").unlink(missing_ok=True)
    return dest


def bench_runs(root: Path) -> int:
    path = root / "bench-runs"
    return len(path.read_text().splitlines()) if path.exists() else 0


def step_jobs(root: Path, name: str) -> list:
    return [r for r in list_records(root / ".pto-tui" / "jobs") if r.name == name]


async def test_a_kept_benchmark_run_is_recorded_into_its_round(counting_root: Path) -> None:
    root = counting_root
    start_scripted_round(root, 0)
    (root / "slow").touch()
    second = f"iter-001 benchmark 2/{REPEATS}"
    try:
        app = PtoApp(root)
        async with app.run_test(size=(80, 24)) as pilot:
            await loaded(pilot)
            await pilot.press("4", "r")
            steps = app.screen.query_one("#run-steps", DataTable)
            await wait_for(pilot, lambda: second.removeprefix("iter-001 ") in
                           [str(k.value) for k in steps.rows]
                           and bench_runs(root) == 2, timeout=RUN_TIMEOUT)
            await pilot.press("q", "k")
            await wait_for(pilot, lambda: not app.is_running)
        [kept] = step_jobs(root, second)
        assert kept.state is JobState.RUNNING and kept.detached
        assert not read(root, 1).measurement.samples_us  # nothing recorded yet
        (root / "slow").unlink()  # the runs after the kept one are quick

        again = PtoApp(root)
        async with again.run_test(size=(80, 24)) as pilot:
            await loaded(pilot)
            await pilot.press("4")
            await wait_for(pilot, lambda: len(read(root, 1).measurement.samples_us) == REPEATS,
                           timeout=RUN_TIMEOUT)
            pane = run_pane(again)
            await wait_for(pilot, lambda: pane.worker is not None and pane.worker.is_finished)
            await pilot.pause()
            shown = verdict_box(again)
            assert "iter-001" in shown and f"{REPEATS} samples" in shown, shown
            assert "Post-Run" in shown  # waits for its Analysis and Next, as after any run
        record = read(root, 1)
        assert record.measurement.build == "ok" and record.measurement.correctness == "pass"
        assert not record.is_closed
        assert bench_runs(root) == REPEATS  # the kept run was adopted, not run again
        [adopted] = step_jobs(root, second)
        assert adopted.id == kept.id and adopted.state is JobState.SUCCEEDED
        assert len(step_jobs(root, "iter-001 build")) == 1  # built once
        assert not (root / ".pto-tui" / "measuring" / "iter-001.json").exists()
    finally:
        kill_left_over(root)


def left_line(app: PtoApp) -> str:
    box = app.screen.query_one("#run-left")
    return "" if box.has_class("hidden") else static_text(box)


async def test_a_lost_kept_job_says_what_is_recorded_and_r_runs_the_rest(
        counting_root: Path) -> None:
    root = counting_root
    start_scripted_round(root, 0)
    (root / "slow").touch()
    second = f"iter-001 benchmark 2/{REPEATS}"
    try:
        app = PtoApp(root)
        async with app.run_test(size=(80, 24)) as pilot:
            await loaded(pilot)
            await pilot.press("4", "r")
            await wait_for(pilot, lambda: bool(step_jobs(root, second)) and bench_runs(root) == 2,
                           timeout=RUN_TIMEOUT)
            await pilot.press("q", "k")
            await wait_for(pilot, lambda: not app.is_running)
        kill_left_over(root)  # the kept job's process is gone (a reboot, an OOM kill...)
        (root / "slow").unlink()

        again = PtoApp(root)
        async with again.run_test(size=(80, 24)) as pilot:
            await loaded(pilot)
            await pilot.press("4")
            pane = run_pane(again)
            await wait_for(pilot, lambda: pane.worker is not None and pane.worker.is_finished,
                           timeout=RUN_TIMEOUT)
            # the job's end reaches the line once the project is read again
            await wait_for(pilot, lambda: "lost: job" in left_line(again))
            line = left_line(again)
            assert f"lost: job {second}" in line, line
            assert f"1 of {REPEATS} samples recorded (journal)" in line
            assert "r runs the rest, d discards them" in line
            assert not read(root, 1).measurement.samples_us

            await pilot.press("r")  # the rest: benchmark 2 and 3, not 1 again
            await wait_for(pilot, lambda: len(read(root, 1).measurement.samples_us) == REPEATS,
                           timeout=RUN_TIMEOUT)
            await wait_for(pilot, lambda: pane.worker is not None and pane.worker.is_finished)
            await pilot.pause()
            assert left_line(again) == ""
        assert bench_runs(root) == 2 + (REPEATS - 1)
        assert len(step_jobs(root, "iter-001 build")) == 1
        assert len(step_jobs(root, f"iter-001 benchmark 1/{REPEATS}")) == 1
    finally:
        kill_left_over(root)


async def test_d_sets_unfinished_samples_aside(counting_root: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    from pto_tui.backends.sample_journal import SampleJournal
    from pto_tui.core.project.layout import ProjectLayout
    from pto_tui.core.rounds.records import Measurement

    start_scripted_round(counting_root, 0)
    layout = ProjectLayout(counting_root)
    journal = SampleJournal.begin(layout, 1, REPEATS)
    journal.write(Measurement(build="ok", correctness="pass", samples_us=[500.0, 510.0]))
    app = PtoApp(counting_root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("4")
        await pilot.pause()
        line = left_line(app)
        assert f"iter-001 its run did not finish; 2 of {REPEATS} samples recorded" in line, line
        await pilot.press("d")
        await wait_for(pilot, lambda: left_line(app) == "")
    assert not journal.path.exists()
    [aside] = (journal.path.parent / "discarded").glob("iter-001.*.json")
    assert "510.0" in aside.read_text()
    headless = cli_json(capsys, "--project", str(counting_root), "status")
    assert isinstance(headless, dict) and headless["unfinished_measurements"] == []


async def leave_keeping_the_second_run(root: Path) -> JobRecord:
    """r in the Run pane, then q and keep running while benchmark run 2 runs (slow)."""
    (root / "slow").touch()
    second = f"iter-001 benchmark 2/{REPEATS}"
    app = PtoApp(root)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("4", "r")
        await wait_for(pilot, lambda: bool(step_jobs(root, second)) and bench_runs(root) == 2,
                       timeout=RUN_TIMEOUT)
        await pilot.press("q", "k")
        await wait_for(pilot, lambda: not app.is_running)
    (root / "slow").unlink()
    [kept] = step_jobs(root, second)
    return kept


async def test_round_run_resume_headless_adopts_the_job_left_running(
        counting_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    start_scripted_round(counting_root, 0)
    try:
        kept = await leave_keeping_the_second_run(counting_root)
        status = cli_json(capsys, "--project", str(counting_root), "status")
        assert isinstance(status, dict)
        [journal] = status["unfinished_measurements"]
        assert journal["round"] == 1 and len(journal["samples_us"]) == 1
        done = await asyncio.to_thread(
            cli_json, capsys, "--project", str(counting_root), "round", "run", "--resume",
            "--no-close", "--quiet")
        assert isinstance(done, dict)
        measured = read(counting_root, 1).measurement
        assert measured.samples_us[0] == journal["samples_us"][0], measured
        assert len(measured.samples_us) == REPEATS, measured
        assert bench_runs(counting_root) == REPEATS  # the kept run adopted, only run 3 ran
        [adopted] = step_jobs(counting_root, kept.name)
        assert adopted.id == kept.id and adopted.state is JobState.SUCCEEDED
        assert len(step_jobs(counting_root, "iter-001 build")) == 1
    finally:
        kill_left_over(counting_root)


async def test_a_kept_run_that_ended_while_closed_is_taken_on_opening(
        counting_root: Path) -> None:
    """The kept run ends while the app is closed and `pto-tui attach` follows it to its end
    (its record: succeeded): opening the project takes its outcome into the round's run,
    as for a job still running; it is not run again."""
    root = counting_root
    start_scripted_round(root, 0)
    try:
        kept = await leave_keeping_the_second_run(root)
        attached = await asyncio.to_thread(
            subprocess.run, [sys.executable, "-m", "pto_tui.cli.main", "--project", str(root),
                             "attach", kept.id], capture_output=True, text=True, timeout=120)
        assert attached.returncode == 0, attached.stderr
        [ended] = step_jobs(root, kept.name)
        assert ended.state is JobState.SUCCEEDED

        again = PtoApp(root)
        async with again.run_test(size=(80, 24)) as pilot:
            await loaded(pilot)
            await pilot.press("4")
            await wait_for(pilot, lambda: len(read(root, 1).measurement.samples_us) == REPEATS,
                           timeout=RUN_TIMEOUT)
            pane = run_pane(again)
            await wait_for(pilot, lambda: pane.worker is not None and pane.worker.is_finished)
        assert bench_runs(root) == REPEATS  # its run taken from its log, not run again
        assert [r.id for r in step_jobs(root, kept.name)] == [kept.id]
        assert not (root / ".pto-tui" / "measuring" / "iter-001.json").exists()
    finally:
        kill_left_over(root)


async def test_r_on_a_round_measured_already_asks_what_it_replaces(counting_root: Path) -> None:
    root = counting_root
    start_scripted_round(root, 0)
    run("--project", str(root), "round", "measure", "--build", "ok", "--correctness", "pass",
        "--samples", "100,101,99")
    app = PtoApp(root)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await loaded(pilot)
            await pilot.press("4", "r")
            await wait_for(pilot, lambda: isinstance(app.screen, MeasureAgainScreen))
            question = static_text(app.screen.query_one("#again-text"))
            assert "iter-001 was measured already: 3 samples, median 100.0 us" in question
            assert "its measurement replaces this one" in question
            await pilot.press("escape")  # kept: nothing runs
            await wait_for(pilot, lambda: not isinstance(app.screen, MeasureAgainScreen))
            await pilot.pause(0.5)
            assert not step_jobs(root, "iter-001 build")
            await pilot.press("r", "y")  # measured again: it starts from the build
            await wait_for(pilot, lambda: bool(step_jobs(root, "iter-001 build")),
                           timeout=RUN_TIMEOUT)
            await pilot.press("x")
            pane = run_pane(app)
            await wait_for(pilot, lambda: pane.worker is not None and pane.worker.is_finished,
                           timeout=RUN_TIMEOUT)
        # replaced only once a run ends: the cancelled one left the measurement as it was
        assert read(root, 1).measurement.samples_us == [100.0, 101.0, 99.0]
    finally:
        kill_left_over(root)
