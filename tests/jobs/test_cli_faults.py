"""Faults through the CLI on a real sshd: an unknown host key says what to do, and exec
does not upload the workspace under another pto-tui that holds the project lock."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pto_tui.cli.main import main
from pto_tui.jobs.loopback_sshd import LoopbackSshd
from tests.jobs.cli_helpers import make_project
from tests.plugins.sshd import SshTestTarget

REPO = Path(__file__).parents[2]
HOLDER = """
import sys, time
from pathlib import Path
from pto_tui.core.project.lock import ProjectLock
lock = ProjectLock(Path(sys.argv[1]), "round run")
lock.acquire()
print("held", flush=True)
time.sleep(60)
"""


def test_env_on_an_unknown_host_says_to_trust_it(
    sshd_server: LoopbackSshd, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = make_project(tmp_path, sshd_server.alias, tmp_path / "work", sshd_server.ssh_config)
    code = main(["--project", str(project), "env"])
    out, err = capsys.readouterr()
    assert code != 0
    assert "unknown host key SHA256:" in out + err
    assert "pto-tui trust-host" in out + err
    assert "exit code None" not in out + err


def test_exec_waits_for_the_project_lock_before_it_syncs(
    ssh_target: SshTestTarget, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = make_project(tmp_path, ssh_target.alias, ssh_target.work_dir, ssh_target.ssh_config)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(project / ".pto-tui")], stdout=subprocess.PIPE, cwd=REPO
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == b"held"
        code = main(["--project", str(project), "exec", "--", "cat data.txt"])
        err = capsys.readouterr().err
        assert code == 1
        assert "locked by another pto-tui" in err and "round run" in err and "--no-sync" in err
        assert not (ssh_target.work_dir / "data.txt").exists()  # nothing was uploaded
        # without a sync it runs on the target's copy as it is
        assert main(["--project", str(project), "exec", "--no-sync", "--", "echo", "ran"]) == 0
        assert capsys.readouterr().out == "ran\n"
    finally:
        holder.kill()
        holder.wait(timeout=10)
    assert main(["--project", str(project), "exec", "--", "cat data.txt"]) == 0
    assert capsys.readouterr().out == "from the workspace\n"
    assert not (project / ".pto-tui" / "lock.json").exists()  # released
