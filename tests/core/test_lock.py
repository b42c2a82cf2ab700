"""Two pto-tui processes never interleave writes on one project: each write takes the
lock for itself, waits a little for another writer, then refuses naming it."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pto_tui.core.campaign.campaign import Campaign
from pto_tui.core.errors import LockedError
from pto_tui.core.project.lock import WAIT_SECONDS, ProjectLock, last_writer
from tests.core.helpers import cli, make_project, pre_edit_args

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
            ProjectLock(root / ".pto-tui").acquire(wait=0)
        assert f"pid {holder.pid}" in info.value.message and "holder" in info.value.message
        # the CLI waits for the write lock a bounded time, then refuses; reads need no lock
        capsys.readouterr()
        began = time.monotonic()
        assert cli("--project", root, "env", "--declare-environment", "probes given by hand in this test",
            "--probe", "ssh=ok") == 1
        assert time.monotonic() - began >= WAIT_SECONDS
        err = capsys.readouterr().err
        assert "locked by another pto-tui" in err and f"waited {WAIT_SECONDS:g} s" in err
        assert "holder" in err and "since" in err
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


def test_nesting_is_by_owner_not_by_process(tmp_path: Path) -> None:
    outer = ProjectLock(tmp_path, command="exec")
    outer.acquire()
    # another owner in the same process (a second MCP call) is refused like another process
    other = ProjectLock(tmp_path, command="round changes")
    with pytest.raises(LockedError, match=r"locked by another pto-tui: pid \d+ .*\(exec\)"):
        other.acquire(wait=0.2)
    other.release()  # never held: releasing it leaves the owner's lock alone
    assert json.loads((tmp_path / "lock.json").read_text())["owner"] == outer.owner
    # the same owner nests; the inner release keeps the lock
    inner = ProjectLock(tmp_path, owner=outer.owner)
    inner.acquire(wait=0)
    inner.release()
    assert (tmp_path / "lock.json").exists()  # still held by the outer user
    outer.release()
    assert not (tmp_path / "lock.json").exists()
    other.acquire(wait=0)
    other.release()


def test_a_lock_from_another_host_is_never_stale_even_with_a_pid_dead_here(tmp_path: Path) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    (tmp_path / "lock.json").write_text(
        json.dumps({"pid": int(dead.stdout), "host": "elsewhere", "since": 0}))
    with pytest.raises(LockedError, match="on elsewhere"):
        ProjectLock(tmp_path).acquire(wait=0)
    assert json.loads((tmp_path / "lock.json").read_text())["host"] == "elsewhere"


def test_a_lock_from_another_host_with_this_pid_is_not_ours(tmp_path: Path) -> None:
    import os

    (tmp_path / "lock.json").write_text(
        json.dumps({"pid": os.getpid(), "host": "elsewhere", "since": 0, "owner": "x"}))
    with pytest.raises(LockedError, match="on elsewhere"):
        ProjectLock(tmp_path).acquire(wait=0)
    assert json.loads((tmp_path / "lock.json").read_text())["host"] == "elsewhere"


RELEASE_SOON = """
import sys, time
from pathlib import Path
from pto_tui.core.project.lock import ProjectLock
lock = ProjectLock(Path(sys.argv[1]), command="short write")
lock.acquire()
print("held", flush=True)
time.sleep(1.0)
lock.release()
"""


def test_a_write_waits_for_a_short_write_of_another_process(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path)
    holder = subprocess.Popen(
        [sys.executable, "-c", RELEASE_SOON, str(root / ".pto-tui")], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert cli("--project", root, "env", "--declare-environment", "probes given by hand in this test",
            "--probe", "ssh=ok") == 0
    finally:
        holder.wait(timeout=10)
    assert "locked" not in capsys.readouterr().err
    # released by a rename: the last writer stays readable, the lock is free
    assert not (root / ".pto-tui" / "lock.json").exists()
    writer = last_writer(root / ".pto-tui")
    assert writer is not None and writer.command == "pto-tui env"


def test_a_writing_campaign_holds_the_lock_only_while_it_writes(tmp_path: Path) -> None:
    root = make_project(tmp_path)
    with Campaign(root, write=True, command="long session") as campaign:
        assert not (root / ".pto-tui" / "lock.json").exists()  # open, not writing
        seen: list[bool] = []
        campaign.after_write = lambda: seen.append((root / ".pto-tui" / "lock.json").exists())
        campaign.set_phase(campaign.config.phases[0])
        assert seen == [True]  # after_write runs still holding the lock
        assert not (root / ".pto-tui" / "lock.json").exists()
        # another process may write between two of ours
        other = ProjectLock(root / ".pto-tui", command="other")
        other.acquire(wait=0)
        other.release()


def test_a_refused_write_does_not_name_itself_the_last_writer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_project(tmp_path)
    assert cli("--project", root, "env", "--declare-environment", "probes given by hand in this test",
               "--probe", "ssh=ok") == 0
    written = (root / ".pto-tui" / "last-write.json").read_bytes()
    # refused by its rules (no baseline yet), then by its input: neither wrote anything
    assert cli("--project", root, "round", "start", *pre_edit_args("too early")) == 1
    assert cli("--project", root, "amend", "3", "--field", "analysis", "--value", "x", "--why", "y z w") != 0
    assert (root / ".pto-tui" / "last-write.json").read_bytes() == written
    assert not (root / ".pto-tui" / "lock.json").exists()
    writer = last_writer(root / ".pto-tui")
    assert writer is not None and writer.command == "pto-tui env"
