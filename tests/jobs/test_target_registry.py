"""The registry of target kinds: every kind has its executor, job control and probes, and
an entry registered here is what the runner uses for a target of its kind, with no other
edit (real jobs on this machine, and on the test sshd for what differs over SSH)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from pto_tui.core.project.config import Target
from pto_tui.core.vocabulary import TargetKind
from pto_tui.jobs.executor import Executor, ExitInfo, Process
from pto_tui.jobs.follow import Ending, Follower
from pto_tui.jobs.local import LocalExecutor
from pto_tui.jobs.model import JobSpec, JobState
from pto_tui.jobs.probes import REACHABLE
from pto_tui.jobs.runner import JobRunner
from pto_tui.jobs.ssh import SshExecutor
from pto_tui.jobs.ssh_pool import SshPool
from pto_tui.jobs.targets import TARGET_KINDS, executor_for
from tests.core.helpers import cli, make_project
from tests.jobs.conftest import Place


@pytest.mark.parametrize("kind", list(TargetKind))
def test_every_target_kind_has_an_executor_job_control_and_probes(kind: TargetKind) -> None:
    spec = TARGET_KINDS[kind]
    assert spec.kind is kind
    target = Target(kind=kind, host="h", work_dir="/w")
    executor = executor_for(target, SshPool())
    assert isinstance(executor, Executor) and executor.target is target
    assert issubclass(spec.follower, Follower)
    assert spec.probes and spec.probes[0] is REACHABLE  # the environment round asks it first


def test_the_executor_says_where_jobs_run_and_keep_their_folder(tmp_path: Path) -> None:
    local = executor_for(Target(kind=TargetKind.LOCAL, work_dir="/w"), SshPool())
    remote = executor_for(Target(kind=TargetKind.SSH, host="h", work_dir="~/w"), SshPool())
    assert isinstance(local, LocalExecutor) and isinstance(remote, SshExecutor)
    assert local.on_this_machine and local.signals_reach_group
    assert not remote.on_this_machine and not remote.signals_reach_group
    assert local.job_dir("j1", str(tmp_path)) == f"{tmp_path}/j1"  # its log folder
    assert remote.job_dir("j1", str(tmp_path)) == "~/w/.pto-tui/jobs/j1"


class _Recorded(LocalExecutor):
    scripts: list[str] = []

    async def start(self, script: str, *, pty: bool = False, line_buffered: bool = False) -> Process:
        _Recorded.scripts.append(script)
        return await super().start(script, pty=pty, line_buffered=line_buffered)


class _Counted(Follower):
    attached = 0

    async def run_attached(self) -> tuple[ExitInfo, Ending]:
        _Counted.attached += 1
        return await super().run_attached()


async def test_a_kind_registered_here_runs_the_jobs_of_its_targets(
    tmp_path: Path, runner: JobRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = Target(kind=TargetKind.LOCAL, work_dir=str(tmp_path))
    _Recorded.scripts, _Counted.attached = [], 0
    entry = replace(
        TARGET_KINDS[TargetKind.LOCAL], executor=lambda t, _pool: _Recorded(t), follower=_Counted
    )
    monkeypatch.setitem(TARGET_KINDS, TargetKind.LOCAL, entry)
    job = await runner.submit(target, JobSpec("echo from-the-registered-kind"))
    lines = [line.text async for line in job.subscribe() if line.stream == "stdout"]
    record = await job.wait()
    assert record.state is JobState.SUCCEEDED and lines == ["from-the-registered-kind"]
    assert _Counted.attached == 1
    assert any("from-the-registered-kind" in script for script in _Recorded.scripts)
    assert isinstance(runner.executor(target), _Recorded)


async def test_an_ssh_job_leaves_no_folder_on_the_target_and_a_local_one_keeps_its_log(
    place: Place, runner: JobRunner
) -> None:
    job = await runner.submit(place.target, JobSpec("echo done"))
    record = await job.wait()
    assert record.state is JobState.SUCCEEDED
    runner.clean_up()
    await runner.upkeep.close()
    folder = Path(record.remote_dir)
    if place.kind == "local":
        assert folder == runner.log_dir / record.id and folder.is_dir()
    else:  # the attached job's folder (its pgid) is removed once it has ended
        assert folder == place.work_dir / ".pto-tui" / "jobs" / record.id and not folder.exists()


def test_only_a_kind_reached_over_ssh_has_a_host_key_to_trust(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a slurm target's login node is reached over SSH when it names a host
    assert [kind for kind, spec in TARGET_KINDS.items() if spec.host_key] == [TargetKind.SSH,
                                                                             TargetKind.SLURM]
    root = make_project(tmp_path)  # `new`'s default target: this machine
    capsys.readouterr()
    assert cli("--project", root, "trust-host", "--yes") == 2
    err = capsys.readouterr().err
    assert "the project's target is local: there is no host key to trust" in err, err
    here = make_project(tmp_path / "cluster", target="slurm")  # its login node is this machine
    capsys.readouterr()
    assert cli("--project", here, "trust-host", "--yes") == 2
    assert "the project's target is slurm: there is no host key to trust" in capsys.readouterr().err
    assert "target.kind" in err, err
