"""Two pto-tui processes never interleave writes on one project."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.errors import LockedError
from pto_tui.core.project.lock import ProjectLock
from tests.core.helpers import cli, make_project

HOLD = """
import sys, time
from pathlib import Path
from pto_tui.core.project.lock import ProjectLock
lock = ProjectLock(Path(sys.argv[1]), command="holder")
lock.acquire()
print("held", flush=True)
time.sleep(60)
"""


def test_second_process_is_refused_with_the_holder_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(root / ".pto-tui")], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(LockedError) as info:
            ProjectLock(root / ".pto-tui").acquire()
        assert f"pid {holder.pid}" in info.value.message and "holder" in info.value.message
        # the CLI refuses writes but still reads
        capsys.readouterr()
        assert cli("--project", root, "env", "--probe", "ssh=ok") == 1
        assert "locked by another pto-tui" in capsys.readouterr().err
        assert cli("--project", root, "status") == 0
        # a read-only campaign works while the lock is held
        with Campaign(root, write=False) as campaign:
            assert campaign.status().operator == "fa_tilelib"
    finally:
        holder.kill()
        holder.wait()


def test_stale_lock_from_a_dead_process_is_taken_over(tmp_path: Path) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    state = tmp_path / ".pto-tui"
    state.mkdir()
    (state / "lock.json").write_text(
        json.dumps({"pid": int(dead.stdout), "host": socket.gethostname(), "since": 0})
    )
    lock = ProjectLock(state)
    lock.acquire()
    assert json.loads((state / "lock.json").read_text())["pid"] != int(dead.stdout)
    lock.release()
    assert not (state / "lock.json").exists()


def test_lock_from_another_host_is_not_presumed_stale(tmp_path: Path) -> None:
    state = tmp_path / ".pto-tui"
    state.mkdir()
    (state / "lock.json").write_text(json.dumps({"pid": 1, "host": "elsewhere", "since": 0}))
    with pytest.raises(LockedError, match="on elsewhere"):
        ProjectLock(state).acquire()


def test_nested_acquire_in_one_process(tmp_path: Path) -> None:
    outer = ProjectLock(tmp_path)
    outer.acquire()
    inner = ProjectLock(tmp_path)
    inner.acquire()
    inner.release()
    assert (tmp_path / "lock.json").exists()  # still held by the outer user
    outer.release()
    assert not (tmp_path / "lock.json").exists()
