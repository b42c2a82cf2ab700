"""Workspace sync and fetch against a real target (sshd on loopback, or a local folder)."""

from __future__ import annotations

import asyncio
import os
import shutil
import stat
from dataclasses import replace
from pathlib import Path

import pytest

from pto_tui.core.project.config import Target
from pto_tui.core.vocabulary import TargetKind
from pto_tui.core.workspace.files import DEFAULT_EXCLUDES
from pto_tui.jobs.errors import FetchError, SyncError
from pto_tui.jobs.model import JobSpec, JobState
from pto_tui.jobs.runner import JobRunner
from pto_tui.jobs.ssh_pool import SshPool
from pto_tui.jobs.sync import TAR_THRESHOLD, sync_with
from pto_tui.jobs.targets import executor_for
from pto_tui.jobs.work_dir import MARKER, parse_manifest
from tests.jobs.conftest import Place


def make_workspace(root: Path, files: int = 40) -> Path:
    (root / "kernel").mkdir(parents=True)
    for i in range(files):
        (root / "kernel" / f"part{i:03d}.cpp").write_text(f"// part {i}\n" * (i + 1))
    run = root / "run.sh"
    run.write_text("#!/bin/sh\necho run\n")
    run.chmod(0o755)
    (root / "build").mkdir()
    (root / "build" / "kernel.o").write_bytes(b"\0" * 100)
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / "kernel" / "__pycache__").mkdir()
    (root / "kernel" / "__pycache__" / "x.pyc").write_bytes(b"\0")
    os.utime(root / "kernel" / "part000.cpp", (1_600_000_000.25, 1_600_000_000.75))
    return root


def remote_files(root: Path) -> set[str]:
    """The files in a remote work dir, minus sync's own marker."""
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()} - {MARKER}


def manifest(root: Path) -> set[str]:
    return parse_manifest((root / MARKER).read_bytes())


async def test_first_upload_then_no_change(place: Place, runner: JobRunner, tmp_path: Path) -> None:
    local = make_workspace(tmp_path / "ws")
    report = await runner.sync_workspace(place.target, local)
    assert report.method == "tar"  # 42 files: more than TAR_THRESHOLD
    remote = place.work_dir
    assert remote_files(remote) == {f"kernel/part{i:03d}.cpp" for i in range(40)} | {"run.sh"}
    assert stat.S_IMODE((remote / "run.sh").stat().st_mode) == 0o755
    assert stat.S_IMODE((remote / "kernel/part001.cpp").stat().st_mode) == 0o644
    assert (remote / "kernel/part000.cpp").stat().st_mtime == pytest.approx(1_600_000_000.75)
    assert (remote / "kernel/part007.cpp").read_text() == (local / "kernel/part007.cpp").read_text()
    assert manifest(remote) == remote_files(remote)  # the marker lists what was uploaded

    again = await runner.sync_workspace(place.target, local)
    assert again.method == "none" and again.uploaded == () and again.deleted == ()
    assert again.workspace_hash == report.workspace_hash


async def test_small_changes_go_by_file_and_keep_modes(
    place: Place, runner: JobRunner, tmp_path: Path
) -> None:
    local = make_workspace(tmp_path / "ws")
    await runner.sync_workspace(place.target, local)
    (local / "kernel/part003.cpp").write_text("changed\n")
    tool = local / "tools" / "deep" / "gen.py"
    tool.parent.mkdir(parents=True)
    tool.write_text("print('gen')\n")
    tool.chmod(0o750)
    (local / "run.sh").chmod(0o700)  # a mode-only change counts
    report = await runner.sync_workspace(place.target, local)
    assert report.method == "sftp"
    assert sorted(report.uploaded) == ["kernel/part003.cpp", "run.sh", "tools/deep/gen.py"]
    remote = place.work_dir
    assert (remote / "kernel/part003.cpp").read_text() == "changed\n"
    assert stat.S_IMODE((remote / "tools/deep/gen.py").stat().st_mode) == 0o750
    assert stat.S_IMODE((remote / "run.sh").stat().st_mode) == 0o700
    # mtimes were kept too, so nothing is sent a second time
    assert (await runner.sync_workspace(place.target, local)).method == "none"


async def test_only_files_sync_uploaded_are_deleted(
    place: Place, runner: JobRunner, tmp_path: Path
) -> None:
    local = make_workspace(tmp_path / "ws")
    await runner.sync_workspace(place.target, local)
    remote = place.work_dir
    # things others put in pto-tui's work dir: job outputs, the user's data, a link
    (remote / "build").mkdir()
    (remote / "build" / "big.bin").write_bytes(b"keep me")
    (remote / "leftover.txt").write_text("a job's output")
    (remote / "old" / "dir").mkdir(parents=True)
    (remote / "old" / "dir" / "x.cpp").write_text("the user's")
    (remote / "kernel" / "out.csv").write_text("results")
    jobs_dir = remote / ".pto-tui" / "jobs" / "j1"
    jobs_dir.mkdir(parents=True)
    (jobs_dir / "rc").write_text("0\n")
    os.symlink("/etc/hostname", remote / "link")
    (local / "kernel/part010.cpp").unlink()
    (local / "tools").mkdir()
    (local / "tools" / "gen2.py").write_text("print()\n")
    (local / "run.sh").unlink()

    report = await runner.sync_workspace(place.target, local)
    assert sorted(report.deleted) == ["kernel/part010.cpp", "run.sh"]
    assert not (remote / "kernel/part010.cpp").exists() and not (remote / "run.sh").exists()
    assert (remote / "tools" / "gen2.py").exists()
    assert (remote / "leftover.txt").read_text() == "a job's output"
    assert (remote / "old" / "dir" / "x.cpp").read_text() == "the user's"
    assert (remote / "kernel" / "out.csv").read_text() == "results"
    assert (remote / "link").is_symlink()
    assert (remote / "build" / "big.bin").read_bytes() == b"keep me"
    assert (jobs_dir / "rc").exists()
    assert manifest(remote) == {f"kernel/part{i:03d}.cpp" for i in range(40) if i != 10} | {
        "tools/gen2.py"}

    # a folder that only held uploaded files goes with them; one holding others' files stays
    (local / "tools" / "gen2.py").unlink()
    (local / "kernel" / "part011.cpp").unlink()
    report = await runner.sync_workspace(place.target, local)
    assert sorted(report.deleted) == ["kernel/part011.cpp", "tools/gen2.py"]
    assert not (remote / "tools").exists() and (remote / "kernel" / "out.csv").exists()


async def test_excludes_read_as_path_patterns_on_both_sides(
    place: Place, runner: JobRunner, tmp_path: Path
) -> None:
    local = tmp_path / "ws"
    for rel in ("bench/x.py", "bench/sub/x.py", "logs/a.log", "logs/keep.log", "src/k.cpp"):
        (local / rel).parent.mkdir(parents=True, exist_ok=True)
        (local / rel).write_text(rel)
    excludes = (*DEFAULT_EXCLUDES, "bench/*.py", "*.log", "!keep.log")
    await runner.sync_workspace(place.target, local, excludes)
    remote = place.work_dir
    # '*' stays within bench/: bench/sub/x.py is sent; '!keep.log' takes the log back
    assert remote_files(remote) == {"bench/sub/x.py", "logs/keep.log", "src/k.cpp"}
    # excluded files on the target are neither listed as stale nor deleted
    (remote / "bench" / "x.py").write_text("the target's own")
    (remote / "logs" / "a.log").write_text("a job's log")
    again = await runner.sync_workspace(place.target, local, excludes)
    assert again.method == "none" and again.deleted == ()
    assert (remote / "bench" / "x.py").read_text() == "the target's own"
    assert (remote / "logs" / "a.log").read_text() == "a job's log"


async def test_foreign_work_dir_is_refused_and_untouched(
    place: Place, runner: JobRunner, tmp_path: Path
) -> None:
    local = make_workspace(tmp_path / "ws")
    remote = place.work_dir
    (remote / "IMPORTANT.txt").write_text("do not lose")
    (remote / "mydata").mkdir()
    (remote / "mydata" / "table.bin").write_bytes(b"\1\2")
    with pytest.raises(SyncError) as caught:
        await runner.sync_workspace(place.target, local)
    message = str(caught.value)
    assert "IMPORTANT.txt" in message and "mydata" in message and "not empty" in message
    assert MARKER in message  # the hint says how to let pto-tui in
    assert sorted(p.name for p in remote.iterdir()) == ["IMPORTANT.txt", "mydata"]
    assert (remote / "mydata" / "table.bin").read_bytes() == b"\1\2"

    # many entries: a few are named, the rest counted
    for i in range(8):
        (remote / f"f{i}").write_text("")
    with pytest.raises(SyncError, match="and 5 more"):
        await runner.sync_workspace(place.target, local)

    # the user lets pto-tui in by creating the empty marker: nothing of theirs is deleted
    (remote / MARKER).write_bytes(b"")
    report = await runner.sync_workspace(place.target, local)
    assert report.deleted == () and len(report.uploaded) == 41
    assert (remote / "IMPORTANT.txt").read_text() == "do not lose"
    (local / "run.sh").unlink()
    report = await runner.sync_workspace(place.target, local)
    assert report.deleted == ("run.sh",)
    assert (remote / "IMPORTANT.txt").exists() and (remote / "mydata" / "table.bin").exists()


async def test_a_new_or_empty_work_dir_is_claimed(
    place: Place, runner: JobRunner, tmp_path: Path
) -> None:
    local = make_workspace(tmp_path / "ws", files=2)
    nested = replace(place.target, work_dir=str(place.work_dir / "not" / "yet"))
    await runner.sync_workspace(nested, local)
    assert manifest(place.work_dir / "not" / "yet") == {
        "kernel/part000.cpp", "kernel/part001.cpp", "run.sh"}
    # an empty dir holding only pto-tui's job folder (a job ran there unsynced) is claimed too
    (place.work_dir / "jobs-only" / ".pto-tui" / "jobs").mkdir(parents=True)
    jobs_only = replace(place.target, work_dir=str(place.work_dir / "jobs-only"))
    assert len((await runner.sync_workspace(jobs_only, local)).uploaded) == 3


async def test_something_not_ours_in_the_way_is_refused(
    place: Place, runner: JobRunner, tmp_path: Path
) -> None:
    local = make_workspace(tmp_path / "ws", files=2)
    await runner.sync_workspace(place.target, local)
    remote = place.work_dir
    os.symlink("/etc", remote / "tools")  # writing tools/gen.py would land in /etc
    (local / "tools").mkdir()
    (local / "tools" / "gen.py").write_text("print()\n")
    with pytest.raises(SyncError, match="tools in the way"):
        await runner.sync_workspace(place.target, local)
    assert (remote / "tools").is_symlink()
    shutil.rmtree(local / "tools")

    # a folder of uploaded files that became a file: replaced; one holding a job's output: kept
    shutil.rmtree(local / "kernel")
    (local / "kernel").write_text("now a file\n")
    report = await runner.sync_workspace(place.target, local)
    assert sorted(report.deleted) == ["kernel/part000.cpp", "kernel/part001.cpp"]
    assert (remote / "kernel").read_text() == "now a file\n"
    (local / "kernel").unlink()
    (local / "kernel").mkdir()
    (local / "kernel" / "a.cpp").write_text("//\n")
    await runner.sync_workspace(place.target, local)
    (remote / "kernel" / "out.csv").write_text("a job's output")
    shutil.rmtree(local / "kernel")
    (local / "kernel").write_text("a file again\n")
    with pytest.raises(SyncError, match="kernel in the way"):
        await runner.sync_workspace(place.target, local)
    assert (remote / "kernel" / "out.csv").read_text() == "a job's output"


async def test_many_changes_use_one_tar_stream(
    place: Place, runner: JobRunner, tmp_path: Path
) -> None:
    local = make_workspace(tmp_path / "ws", files=TAR_THRESHOLD * 2)
    await runner.sync_workspace(place.target, local)
    for path in list((local / "kernel").glob("*.cpp"))[: TAR_THRESHOLD + 1]:
        path.write_text("new\n")
    report = await runner.sync_workspace(place.target, local)
    assert report.method == "tar" and len(report.uploaded) == TAR_THRESHOLD + 1
    assert (await runner.sync_workspace(place.target, local)).method == "none"


async def test_local_target_in_place_is_a_noop(tmp_path: Path) -> None:
    local = make_workspace(tmp_path / "ws")
    for target in (Target(kind=TargetKind.LOCAL), Target(kind=TargetKind.LOCAL, work_dir=str(local))):
        report = await sync_with(executor_for(target, SshPool()), local)
        assert report.method == "noop" and report.uploaded == ()
        assert report.files == 41


async def test_job_syncs_first_and_records_the_hash(
    place: Place, runner: JobRunner, tmp_path: Path
) -> None:
    local = make_workspace(tmp_path / "ws")
    job = await runner.submit(place.target, JobSpec("./run.sh && ls kernel | wc -l"),
                              sync_from=local)
    lines = [line.text async for line in job.subscribe() if line.stream == "stdout"]
    record = await job.wait()
    assert record.state is JobState.SUCCEEDED, record.error
    assert lines == ["run", "40"]
    assert len(record.workspace_hash) == 16


async def test_fetch_results_and_missing_file(
    place: Place, runner: JobRunner, tmp_path: Path
) -> None:
    (place.work_dir / "out").mkdir()
    (place.work_dir / "out" / "report.json").write_text('{"ok": true}')
    got = await runner.fetch(place.target, ["out/report.json"], tmp_path / "results")
    assert got == [tmp_path / "results" / "out" / "report.json"]
    assert got[0].read_text() == '{"ok": true}'
    with pytest.raises(FetchError) as caught:
        await runner.fetch(place.target, ["out/report.json", "out/report.csv"], tmp_path / "r2")
    assert "out/report.csv" in str(caught.value)
    assert "report.json" not in str(caught.value).split("found on")[1].split(":", 1)[1]


async def test_job_fetches_after_success_and_fails_when_missing(
    place: Place, runner: JobRunner, tmp_path: Path
) -> None:
    job = await runner.submit(
        place.target,
        JobSpec("echo 1,2 > report.csv", fetch=("report.csv",)),
        fetch_to=tmp_path / "fetched",
    )
    record = await job.wait()
    assert record.state is JobState.SUCCEEDED, record.error
    assert (tmp_path / "fetched" / "report.csv").read_text() == "1,2\n"
    assert record.fetched == (str(tmp_path / "fetched" / "report.csv"),)

    missing = await runner.submit(place.target, JobSpec("true", fetch=("report.json",)))
    record = await missing.wait()
    assert record.state is JobState.FAILED
    assert "report.json" in record.error and record.exit_code == 0


async def test_one_top_level_file_change(place: Place, runner: JobRunner, tmp_path: Path) -> None:
    local = make_workspace(tmp_path / "ws")
    await runner.sync_workspace(place.target, local)
    (local / "run.sh").write_text("#!/bin/sh\necho changed\n")
    report = await asyncio.wait_for(runner.sync_workspace(place.target, local), 20)
    assert report.method == "sftp" and report.uploaded == ("run.sh",)
    assert (place.work_dir / "run.sh").read_text().endswith("changed\n")


async def test_a_work_dir_an_older_pto_tui_synced_is_adopted_without_deleting(
    place: Place, runner: JobRunner, tmp_path: Path
) -> None:
    """Before the marker, pto-tui synced into the work dir and kept its job folder there:
    such a dir is adopted with an empty list (nothing in it deleted), not refused."""
    local = make_workspace(tmp_path / "ws")
    remote = place.work_dir
    (remote / ".pto-tui" / "jobs").mkdir(parents=True)
    (remote / "run.sh").write_text("an older upload\n")
    (remote / "IMPORTANT.txt").write_text("do not lose")
    report = await runner.sync_workspace(place.target, local)
    assert report.deleted == () and "run.sh" in report.uploaded
    assert (remote / "run.sh").read_bytes() == (local / "run.sh").read_bytes()
    assert (remote / "IMPORTANT.txt").read_text() == "do not lose"
    assert (remote / MARKER).is_file()
    # from now on only what it uploaded may go
    (local / "run.sh").unlink()
    assert (await runner.sync_workspace(place.target, local)).deleted == ("run.sh",)
    assert (remote / "IMPORTANT.txt").exists()
