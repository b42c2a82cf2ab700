"""Step limits ([limits]): a step that hangs is stopped at its limit, its process tree
killed (locally and over the test sshd), and the round fails "timed out after N s"; an
environment round's step likewise. A limit left at 0 is derived from the baseline's own
time, read from its job records."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from pathlib import Path

import pytest

from pto_tui.backends.environment import run_environment
from pto_tui.backends.environment_checks import FULL_BUILD
from pto_tui.backends.loop import run_round, site_for
from pto_tui.backends.step_times import baseline_step_seconds, step_kind
from pto_tui.core.project.config import Target
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.project.limits import FLOORS, LIMIT_FACTOR, step_limit
from pto_tui.core.rounds.records import EnvironmentNotes, Round
from pto_tui.core.vocabulary import Verdict
from pto_tui.jobs.limits import KILL_GRACE, TERM_GRACE
from pto_tui.jobs.model import JobRecord, JobState, save_record
from tests.backends.helpers import DSL_KERNEL, bring_up, demo_project, open_loop, start
from tests.jobs.helpers import live_processes, unique_seconds, wait_until

# a line of the demo kernel's imports, after which the hang goes in
IMPORTS = "import numpy as np\n"


def hang(where: str, marker: str) -> str:
    """Python that hangs the demo kernel in its build (`--output-dir` in argv) or in its
    benchmark (imported by the bench script): a child process that sleeps (the marker in
    the process table) and a loop that never ends, printing nothing."""
    test = '"--output-dir" in sys.argv' if where == "build" else '"--output-dir" not in sys.argv'
    return (
        f"{IMPORTS}import subprocess as _sp, time as _time\n"
        f"if {test}:\n"
        f"    _sp.Popen(['sleep', '{marker}'])\n"
        "    while True:\n"
        "        _time.sleep(0.1)\n"
    )


def set_keys(root: Path, **values: object) -> None:
    project = ProjectFile(root / "project.toml")
    for key, value in values.items():
        project.set(key.replace("__", "."), value)
    project.save()


async def seen(marker: str) -> bool:
    """Whether a process with the marker ran (polled until it does; cancelled otherwise)."""
    return await wait_until(lambda: bool(live_processes(marker)), 600)


async def while_seen(marker: str, run: Awaitable[object]) -> tuple[object, bool]:
    """`run`'s result, and whether the hung process tree was seen alive while it ran."""
    watch = asyncio.create_task(seen(marker))
    result = await run
    alive = watch.done() and watch.result()
    watch.cancel()
    return result, alive


STOP_BOUND = TERM_GRACE + KILL_GRACE + 15  # the limit, then TERM, KILL and a loaded machine


@pytest.mark.sshd
@pytest.mark.parametrize("where", ["local", "ssh"])
async def test_a_hung_build_is_stopped_at_its_limit_and_fails_the_round(
    tmp_path: Path, where: str, request: pytest.FixtureRequest
) -> None:
    target: Target | None = request.getfixturevalue("ssh_target").target if where == "ssh" else None
    root = demo_project(tmp_path, "dsl", repeats=2, target=target)
    marker = unique_seconds()
    async with open_loop(root) as (campaign, runner):
        await bring_up(campaign, runner)
        # the baseline's own times are in its job records: what a derived limit multiplies
        seconds = baseline_step_seconds(campaign.layout.jobs_dir)
        assert {"build", "benchmark"} <= set(seconds) and all(s > 0 for s in seconds.values())
        set_keys(root, limits__build=2)
        start(campaign, ["attention_kernel.py"], edit=(DSL_KERNEL, IMPORTS, hang("build", marker)))
        began = time.monotonic()
        failed, alive = await while_seen(marker, run_round(campaign, runner))
        took = time.monotonic() - began
    assert alive and isinstance(failed, Round)
    assert failed.verdict is Verdict.FAILURE
    assert failed.verdict_reason == "build timed out after 2 s"
    assert failed.measurement.build == "failed" and failed.measurement.problem == "build timed out after 2 s"
    assert took < 2 + STOP_BOUND + 20, took  # never the old hour: sync, build, stop, close
    # the whole tree is gone (sshd runs on this machine: its processes are in this /proc)
    assert await wait_until(lambda: not live_processes(marker), 10), live_processes(marker)
    jobs = [r for r in _records(root) if r.name == "iter-001 build"]
    assert [r.state for r in jobs] == [JobState.TIMED_OUT]
    assert jobs[0].timeout == 2 and jobs[0].error == "timed out after 2 s"


async def test_a_hung_benchmark_run_fails_the_round_as_timed_out(tmp_path: Path) -> None:
    root = demo_project(tmp_path, "dsl", repeats=2)
    marker = unique_seconds()
    async with open_loop(root) as (campaign, runner):
        await bring_up(campaign, runner)
        set_keys(root, limits__benchmark=3)
        start(campaign, ["attention_kernel.py"], edit=(DSL_KERNEL, IMPORTS, hang("benchmark", marker)))
        failed, alive = await while_seen(marker, run_round(campaign, runner))
    assert alive and isinstance(failed, Round)
    assert failed.verdict is Verdict.FAILURE
    assert failed.measurement.build == "ok" and not failed.measurement.samples_us
    assert failed.verdict_reason == "invalid round: benchmark run 1: timed out after 3 s"
    assert await wait_until(lambda: not live_processes(marker), 10), live_processes(marker)


async def test_a_hung_correctness_command_fails_the_round_as_timed_out(tmp_path: Path) -> None:
    root = demo_project(tmp_path, "dsl", repeats=2)
    marker = unique_seconds()
    async with open_loop(root) as (campaign, runner):
        await bring_up(campaign, runner)
        set_keys(root, limits__correctness=2, commands__correctness=f"sleep {marker}")
        start(campaign, ["DEMO_ATTN_BLOCK_KV"], {"DEMO_ATTN_BLOCK_KV": 32})
        failed, alive = await while_seen(marker, run_round(campaign, runner))
    assert alive and isinstance(failed, Round)
    assert failed.verdict is Verdict.FAILURE
    assert failed.measurement.correctness == "" and not failed.measurement.samples_us
    assert failed.verdict_reason == "invalid round: correctness timed out after 2 s"
    assert await wait_until(lambda: not live_processes(marker), 10), live_processes(marker)


async def test_the_environment_rounds_hung_build_is_a_failed_check(tmp_path: Path) -> None:
    root = demo_project(tmp_path, "dsl")
    marker = unique_seconds()
    kernel = root / DSL_KERNEL
    kernel.write_text(kernel.read_text().replace(IMPORTS, hang("build", marker), 1))
    set_keys(root, limits__build=2)
    async with open_loop(root) as (campaign, runner):
        notes, alive = await while_seen(marker, run_environment(campaign, runner))
    assert alive and isinstance(notes, EnvironmentNotes)
    assert not notes.passed and notes.probes[FULL_BUILD] is False
    assert notes.build_outcome == "build timed out after 2 s"
    assert "build timed out after 2 s" in notes.problems
    assert await wait_until(lambda: not live_processes(marker), 10), live_processes(marker)


def test_the_rule_of_a_derived_limit() -> None:
    assert step_limit("build", 0, None) == FLOORS["build"] == 1800
    assert step_limit("benchmark", 0, None) == FLOORS["benchmark"]
    assert step_limit("build", 0, 30.0) == 1800  # a quick baseline: the floor
    assert step_limit("build", 0, 400.0) == LIMIT_FACTOR * 400 == 4000
    assert step_limit("build", 5, 400.0) == 5  # a limit set in [limits] is the limit
    assert step_kind("build") == "build" and step_kind("correctness") == "correctness"
    for step in ("benchmark 2/5", "warm-up 1/5", "first result"):
        assert step_kind(step) == "benchmark"
    for step in ("benchmark 1/5: clock", "probe: python", "torch_npu baseline", "frontier build"):
        assert step_kind(step) is None


def _record(log_dir: Path, name: str, seconds: float, *, round_number: int = 0,
            state: JobState = JobState.SUCCEEDED) -> None:
    job_id = f"20250101-000000-{len(list(log_dir.iterdir())) if log_dir.is_dir() else 0:06x}"
    record = JobRecord(id=job_id, command="true", target="local", state=state, name=name,
                       started_at=1000.0, ended_at=1000.0 + seconds, round_number=round_number)
    save_record(log_dir / job_id, record)


async def test_a_limit_left_at_zero_is_ten_times_the_baselines_own_time(tmp_path: Path) -> None:
    root = demo_project(tmp_path, "tile-lib")
    async with open_loop(root) as (campaign, runner):
        before = site_for(campaign, runner)  # no baseline yet: the floors
        assert [await before.limit(kind) for kind in ("build", "correctness", "benchmark")] == [
            1800, 600, 600]
        log_dir = campaign.layout.jobs_dir
        _record(log_dir, "iter-000 environment build", 400)  # the cold build: the longest
        _record(log_dir, "iter-000 build", 300)
        _record(log_dir, "iter-000 benchmark 1/5", 90)
        _record(log_dir, "iter-000 environment first result", 20)
        _record(log_dir, "iter-000 benchmark 2/5: clock", 5000)  # a helper, not a run
        _record(log_dir, "iter-000 build", 9000, state=JobState.FAILED)  # failed: not its time
        _record(log_dir, "iter-001 build", 9000, round_number=1)  # a round's, not the baseline's
        site = site_for(campaign, runner)
        assert await site.limit("build") == 4000
        assert await site.limit("benchmark") == 900
        assert await site.limit("correctness") == 600  # the baseline ran none: the floor
        set_keys(root, limits__build=45.5)
        campaign.project = ProjectFile(root / "project.toml")
        assert await site_for(campaign, runner).limit("build") == 45.5


def _records(root: Path) -> list[JobRecord]:
    from pto_tui.jobs.model import list_records

    return list_records(root / ".pto-tui" / "jobs")
