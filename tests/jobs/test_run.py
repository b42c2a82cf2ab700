"""Behaviour of jobs, the same on the local and the SSH executor (real sshd on loopback)."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from pathlib import Path

from pto_tui.jobs.logfile import read_log, read_log_raw
from pto_tui.jobs.model import JobSpec, JobState, list_records
from pto_tui.jobs.runner import JobRunner
from tests.jobs.conftest import Place
from tests.jobs.helpers import live_processes, unique_seconds, wait_until


async def collect(job) -> list:
    return [line async for line in job.subscribe()]


async def test_streams_stdout_and_stderr_live(place: Place, runner: JobRunner) -> None:
    # sed is a C program: live lines only because the job runs under stdbuf -oL
    command = "(echo first; sleep 1; echo second) | sed s/^/out:/; echo oops >&2"
    job = await runner.submit(place.target, JobSpec(command))
    seen: list[tuple[float, str, str]] = []
    async for line in job.subscribe():
        seen.append((time.monotonic(), line.stream, line.text))
    record = await job.wait()
    ended = time.monotonic()
    assert record.state is JobState.SUCCEEDED and record.exit_code == 0
    output = [(stream, text) for _t, stream, text in seen if stream != "meta"]
    assert output == [("stdout", "out:first"), ("stdout", "out:second"), ("stderr", "oops")]
    first_at = next(t for t, stream, text in seen if text == "out:first")
    assert ended - first_at > 0.7, "the first line must arrive before the command ends"


async def test_python_output_is_live_without_pty(place: Place, runner: JobRunner) -> None:
    command = "python3 -c \"import time; print('a'); time.sleep(1); print('b')\""
    job = await runner.submit(place.target, JobSpec(command))
    times = {}
    async for line in job.subscribe():
        times[line.text] = time.monotonic()
    await job.wait()
    assert times["b"] - times["a"] > 0.7


async def test_exit_codes_and_signals(place: Place, runner: JobRunner) -> None:
    ok = await runner.submit(place.target, JobSpec("true"))
    bad = await runner.submit(place.target, JobSpec("exit 7"))
    killed = await runner.submit(place.target, JobSpec("kill -KILL $$"))
    assert (await ok.wait()).state is JobState.SUCCEEDED
    bad_record = await bad.wait()
    assert bad_record.state is JobState.FAILED and bad_record.exit_code == 7
    killed_record = await killed.wait()
    assert killed_record.state is JobState.FAILED
    assert killed_record.signal == "KILL" and killed_record.exit_code is None


async def test_cwd_env_and_env_setup(place: Place, runner: JobRunner) -> None:
    (place.work_dir / "sub").mkdir()
    target = replace(place.target, env_setup="export FROM_SETUP=yes")
    spec = JobSpec(
        'echo "$PWD|$FROM_SETUP|$TRICKY|$PTO_NPU_ID"',
        cwd="sub",
        env={"TRICKY": "a b'c$HOME"},
    )
    job = await runner.submit(target, spec)
    lines = [line.text for line in await collect(job) if line.stream == "stdout"]
    record = await job.wait()
    assert record.state is JobState.SUCCEEDED
    assert lines == [f"{place.work_dir / 'sub'}|yes|a b'c$HOME|0"]
    assert record.cwd == str(place.work_dir / "sub")
    assert dict(record.env) == {"TRICKY": "a b'c$HOME"}


async def test_failing_env_setup_fails_the_job(place: Place, runner: JobRunner) -> None:
    target = replace(place.target, env_setup="source /nonexistent/set_env.sh")
    job = await runner.submit(target, JobSpec("echo should-not-run"))
    lines = [line.text for line in await collect(job)]
    record = await job.wait()
    assert record.state is JobState.FAILED
    assert "should-not-run" not in lines
    assert any("env_setup failed" in text for text in lines)


async def test_invalid_bytes_are_replaced_and_kept_raw(place: Place, runner: JobRunner) -> None:
    job = await runner.submit(place.target, JobSpec(r"printf 'ok\xff\xfe end\n'; echo after"))
    lines = [line for line in await collect(job) if line.stream == "stdout"]
    assert (await job.wait()).state is JobState.SUCCEEDED
    assert [line.text for line in lines] == ["ok\ufffd\ufffd end", "after"]
    raw = [data for _t, stream, data in read_log_raw(job.job_dir / "output.log")
           if stream == "stdout"]
    assert raw == [b"ok\xff\xfe end", b"after"]
    # the connection survived: another job on the same target still runs
    again = await runner.submit(place.target, JobSpec("echo still-here"))
    assert (await again.wait()).state is JobState.SUCCEEDED
    if place.kind == "ssh":
        assert runner.pool.connects == 1


async def test_log_file_tags_and_timestamps(place: Place, runner: JobRunner) -> None:
    before = time.time()
    job = await runner.submit(place.target, JobSpec("echo one; echo two >&2"))
    record = await job.wait()
    lines = list(read_log(job.job_dir / "output.log"))
    assert ("stdout", "one") in [(line.stream, line.text) for line in lines]
    assert ("stderr", "two") in [(line.stream, line.text) for line in lines]
    assert lines[0].stream == "meta"
    assert all(before - 1 <= line.time <= time.time() + 1 for line in lines)
    # the record on disk is the final one
    assert [r.state for r in list_records(runner.log_dir)] == [record.state]


async def test_pty_gives_a_terminal(place: Place, runner: JobRunner) -> None:
    job = await runner.submit(place.target, JobSpec("[ -t 1 ] && echo is-a-tty", pty=True))
    lines = [line.text for line in await collect(job) if line.stream == "stdout"]
    assert (await job.wait()).state is JobState.SUCCEEDED
    assert lines == ["is-a-tty"]


SILENT_TREE = "(sleep {s} & sleep {s} & wait) & bash -c 'sleep {s}; :' & sleep {s}; wait"


async def test_cancel_kills_the_whole_silent_tree(place: Place, runner: JobRunner) -> None:
    marker = unique_seconds()
    job = await runner.submit(place.target, JobSpec(SILENT_TREE.format(s=marker)))
    assert await wait_until(lambda: len(live_processes(marker)) >= 4, 10)
    started = time.monotonic()
    record = await job.cancel()
    assert time.monotonic() - started < 8
    assert record.state is JobState.CANCELLED
    assert await wait_until(lambda: not live_processes(marker), 5), live_processes(marker)


async def test_timeout_kills_the_tree(place: Place, runner: JobRunner) -> None:
    marker = unique_seconds()
    job = await runner.submit(place.target, JobSpec(SILENT_TREE.format(s=marker), timeout=1.0))
    record = await job.wait()
    assert record.state is JobState.TIMED_OUT
    assert record.duration is not None and record.duration < 8
    assert await wait_until(lambda: not live_processes(marker), 5), live_processes(marker)


async def test_term_ignored_escalates_to_kill(place: Place, runner: JobRunner) -> None:
    marker = unique_seconds()
    command = f"trap '' TERM; bash -c \"trap '' TERM; sleep {marker}\"; :"
    job = await runner.submit(place.target, JobSpec(command))
    assert await wait_until(lambda: len(live_processes(marker)) >= 1, 10)
    await asyncio.sleep(0.2)
    record = await job.cancel()
    assert record.state is JobState.CANCELLED
    assert await wait_until(lambda: not live_processes(marker), 5), live_processes(marker)


async def test_cancel_while_queued(place: Place, runner: JobRunner) -> None:
    job = await runner.submit(place.target, JobSpec("touch never-ran"))
    record = await job.cancel()
    assert record.state is JobState.CANCELLED
    assert record.exit_code is None and record.started_at is None
    await asyncio.sleep(0.5)
    assert not (place.work_dir / "never-ran").exists()  # the command was never started


async def test_cancel_while_syncing_never_starts_the_command(
    place: Place, runner: JobRunner, tmp_path: Path
) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    for index in range(400):  # enough files that the upload takes a while
        (workspace / f"f{index:03d}.bin").write_bytes(bytes([index % 256]) * 20_000)
    job = await runner.submit(place.target, JobSpec("touch never-ran"), sync_from=workspace)
    assert await wait_until(lambda: job.state is not JobState.QUEUED, 20, interval=0.001)
    assert job.state is JobState.SYNCING, job.state
    record = await job.cancel()
    assert record.state is JobState.CANCELLED and record.started_at is None
    await asyncio.sleep(0.5)
    assert not list(place.work_dir.rglob("never-ran"))


async def test_back_pressure_holds_the_writer(place: Place, runner: JobRunner) -> None:
    # 40 MB of output cannot be buffered between the job and a reader that does not read
    command = "head -c 40000000 /dev/zero | tr '\\0' 'x' | fold -w 99"
    job = await runner.submit(place.target, JobSpec(command))
    subscription = job.subscribe(max_batches=2)
    await asyncio.sleep(1.5)
    assert job.state is JobState.RUNNING, "the job must wait for its reader"
    count = 0
    async for line in subscription:
        if line.stream == "stdout":
            count += 1
    record = await job.wait()
    assert record.state is JobState.SUCCEEDED
    assert count == 40000000 // 99 + 1


async def test_closed_subscription_does_not_block_the_job(place: Place, runner: JobRunner) -> None:
    job = await runner.submit(place.target, JobSpec("seq 1 200000"))
    subscription = job.subscribe(max_batches=1)
    async for _line in subscription:
        break
    subscription.close()
    record = await asyncio.wait_for(job.wait(), 20)
    assert record.state is JobState.SUCCEEDED
