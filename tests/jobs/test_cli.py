"""`pto-tui exec`, `trust-host`, `jobs`, `attach` on a real project and a real sshd."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pto_tui.cli.main import main
from pto_tui.jobs.loopback_sshd import LoopbackSshd
from tests.jobs.cli_helpers import make_project
from tests.jobs.helpers import live_processes, unique_seconds
from tests.plugins.sshd import SshTestTarget

REPO = Path(__file__).parents[2]


@pytest.fixture
def project(ssh_target: SshTestTarget, tmp_path: Path) -> Path:
    return make_project(tmp_path, ssh_target.alias, ssh_target.work_dir, ssh_target.ssh_config)


def test_exec_syncs_streams_and_returns_the_exit_code(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["--project", str(project), "exec", "--", "cat data.txt; echo err >&2; exit 5"])
    out, err = capsys.readouterr()
    assert code == 5
    assert out == "from the workspace\n"
    assert "err\n" in err and "sync: 1 uploaded" in err

    code = main(["--project", str(project), "exec", "--no-sync", "--", "echo", "a b", "$HOME"])
    out, _err = capsys.readouterr()
    assert code == 0 and out == "a b $HOME\n"

    assert main(["--project", str(project), "jobs", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["jobs"]
    assert [job["state"] for job in listed] == ["failed", "succeeded"]
    assert listed[0]["exit_code"] == 5 and listed[0]["target"].startswith("ssh:")


def test_exec_timeout_and_missing_command(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--project", str(project), "exec", "--no-sync", "--timeout", "0.5", "--",
                 "sleep 30"]) == 1
    assert "timed_out" in capsys.readouterr().err
    assert main(["--project", str(project), "exec"]) == 2
    assert "no command given" in capsys.readouterr().err


def test_detach_then_attach(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--project", str(project), "exec", "--no-sync", "--detach", "--",
                 "sleep 1; echo finished; exit 3"])
    out, err = capsys.readouterr()
    assert code == 0 and "runs detached" in err
    job_id = out.strip().splitlines()[-1]
    assert main(["--project", str(project), "attach", job_id]) == 3
    assert "finished" in capsys.readouterr().out


def test_trust_host_then_exec(
    sshd_server: LoopbackSshd, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = make_project(tmp_path, sshd_server.alias, tmp_path / "w", sshd_server.ssh_config)
    assert main(["--project", str(project), "exec", "--", "true"]) == 1
    assert "unknown host key SHA256:" in capsys.readouterr().err
    assert main(["--project", str(project), "trust-host", "--yes"]) == 0
    assert "trusted: stored in" in capsys.readouterr().out
    assert main(["--project", str(project), "trust-host"]) == 0
    assert "already trusted" in capsys.readouterr().out
    assert main(["--project", str(project), "exec", "--", "echo ok"]) == 0


def test_ctrl_c_cancels_the_remote_command(project: Path) -> None:
    marker = unique_seconds()
    process = subprocess.Popen(
        [sys.executable, "-m", "pto_tui.cli.main", "--project", str(project), "exec", "--no-sync",
         "--", f"echo started; sleep {marker}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO, env=dict(os.environ),
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline() == b"started\n"
        deadline = time.monotonic() + 5
        while not live_processes(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert live_processes(marker)
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=15)
    finally:
        process.kill()
    assert code == 130
    deadline = time.monotonic() + 5
    while live_processes(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not live_processes(marker)


def test_exec_runs_in_the_workspace_copy_synced_or_not(
    project: Path, ssh_target: SshTestTarget, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    elsewhere = tmp_path / "caller"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    for flags in ((), ("--no-sync",)):
        assert main(["--project", str(project), "exec", *flags, "--", "pwd"]) == 0
        assert capsys.readouterr().out.strip() == str(ssh_target.work_dir)
    # a local target without a work dir: the workspace itself, never the caller's folder
    local = tmp_path / "local" / "op"
    (local / "workspace").mkdir(parents=True)
    (local / "project.toml").write_text(
        'schema = 1\n[operator]\nname = "op"\nkind = "pto-dsl"\n[target]\nkind = "local"\n'
    )
    for flags in ((), ("--no-sync",)):
        assert main(["--project", str(local), "exec", *flags, "--", "pwd"]) == 0
        assert capsys.readouterr().out.strip() == str((local / "workspace").resolve())


def test_a_work_dir_pto_tui_did_not_make_is_refused_by_name(
    project: Path, ssh_target: SshTestTarget, capsys: pytest.CaptureFixture[str]
) -> None:
    work = ssh_target.work_dir
    work.mkdir(parents=True)
    (work / "IMPORTANT.txt").write_text("mine\n")
    (work / "mydata").mkdir()
    (work / "mydata" / "table.csv").write_text("1,2\n")
    assert main(["--project", str(project), "exec", "--", "true"]) == 1
    err = capsys.readouterr().err
    assert "refusing to sync" in err and "IMPORTANT.txt" in err and "mydata" in err
    assert "Traceback" not in err
    assert sorted(p.name for p in work.iterdir()) == ["IMPORTANT.txt", "mydata"]
    assert (work / "mydata" / "table.csv").read_text() == "1,2\n"
