"""Locks that recover: a stale lock has one taker however many race for it, an empty or
garbled lock does not lock the project for good, and a full disk ends a write in one
error line and leaves the project writable once space returns."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from pto_tui.core.errors import LockedError
from pto_tui.core.project.lock import UNREADABLE_GRACE, ProjectLock
from tests.core.helpers import cli, cli_json, pre_edit_args, ready_project

TAKERS = 4
TRIALS = 1000


def _dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    return int(done.stdout)


def _race(state: Path) -> tuple[list[int], list[ProjectLock]]:
    """TAKERS owners take the lock at once; the indices of those that got it."""
    locks = [ProjectLock(state, command=f"taker {n}") for n in range(TAKERS)]
    start, done = threading.Barrier(TAKERS), threading.Barrier(TAKERS)
    won: list[int] = []

    def take(n: int) -> None:
        start.wait()
        try:
            locks[n].acquire(wait=0)
            won.append(n)
        except LockedError:
            pass
        done.wait()  # every taker has tried while the winner still holds it

    threads = [threading.Thread(target=take, args=(n,)) for n in range(TAKERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return won, locks


def test_a_stale_lock_has_one_taker(tmp_path: Path) -> None:
    dead = _dead_pid()
    stale = json.dumps({"pid": dead, "host": socket.gethostname(), "since": 0, "owner": "dead"})
    for trial in range(TRIALS):
        state = tmp_path / f"t{trial}"
        state.mkdir()
        (state / "lock.json").write_text(stale)
        won, locks = _race(state)
        assert len(won) == 1, f"trial {trial}: {len(won)} takers hold the lock"
        holder = json.loads((state / "lock.json").read_text())
        assert holder["owner"] == locks[won[0]].owner
        locks[won[0]].release()


def test_an_empty_or_garbled_lock_is_stale_after_a_moment(tmp_path: Path) -> None:
    for text in ("", "{", "\x00\x00", json.dumps([1, 2])):
        path = tmp_path / "lock.json"
        path.write_text(text)
        with pytest.raises(LockedError, match="pid -1"):  # might be a write under way
            ProjectLock(tmp_path).acquire(wait=0)
        old = time.time() - UNREADABLE_GRACE - 1
        os.utime(path, (old, old))
        lock = ProjectLock(tmp_path)
        lock.acquire(wait=0)
        assert json.loads(path.read_text())["owner"] == lock.owner
        lock.release()


@pytest.fixture
def small_disk(tmp_path: Path):
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(disk)],
                             capture_output=True, text=True)
    assert mounted.returncode == 0, (
        f"the full-disk test mounts a tmpfs and needs root: {mounted.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def _fill(disk: Path, leave: int) -> Path:
    """Fill the disk to the last byte, then free `leave` bytes (whole pages of the tmpfs,
    kept aside first); returns the filler file."""
    pads = []
    for n in range(-(-leave // 4096)):
        pad = disk / f"pad{n}"
        pad.write_bytes(b"\0" * 4096)
        pads.append(pad)
    filler = disk / "filler"
    with filler.open("wb", buffering=0) as handle:
        for size in (65536, 4096, 1):
            try:
                while True:
                    handle.write(b"\0" * size)
            except OSError:
                pass
    for pad in pads:
        pad.unlink()
    stats = os.statvfs(disk)
    assert stats.f_bavail * stats.f_frsize <= max(leave, 4096)
    return filler


def test_a_full_disk_ends_a_write_cleanly_and_the_project_stays_writable(
    small_disk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = ready_project(small_disk)
    p = ("--project", root)
    assert cli(*p, "amend", "0", "--field", "analysis", "--value", "first", "--why", "a fresh analysis") == 0
    filler = _fill(small_disk, leave=1024)
    capsys.readouterr()
    amend = ("amend", "0", "--field", "analysis", "--value", "second", "--why", "while the disk is full")
    for argv in (amend, ("phase", "fine-tune")):
        assert cli(*p, *argv) == 1, argv
        err = capsys.readouterr().err
        assert "Traceback" not in err and "no space left on the disk" in err, err
        assert len(err.strip().splitlines()) == 1, err
    lock = root / ".pto-tui" / "lock.json"
    assert not lock.exists(), lock.read_text() if lock.exists() else ""
    filler.unlink()
    assert cli(*p, "amend", "0", "--field", "analysis", "--value", "third", "--why", "space came back") == 0
    record = cli_json(capsys, *p, "show", "0")
    assert isinstance(record, dict)
    assert [a["new"] for a in record["record"]["amendments"]] == ["first", "third"]


@pytest.mark.parametrize("free_pages", range(4))
def test_a_close_on_a_full_disk_leaves_a_history_that_verifies(
    small_disk: Path, capsys: pytest.CaptureFixture[str], free_pages: int
) -> None:
    """Wherever the disk fills during a close (the lock, notes.md, the anchor told first,
    round.toml, the log line, ITERATIONS.md, project.toml), it ends in one error line, the
    status still answers, and once space returns the history verifies clean and the round
    closes (or is closed) once."""
    root = ready_project(small_disk / "p")
    p = ("--project", root)
    assert cli(*p, "round", "start", *pre_edit_args(scope=("TILE_S1",))) == 0
    justify = "a 128-wide tile halves the unified buffer each stage holds"
    assert cli(*p, "round", "changes", "--set", "TILE_S1=128", "--justify", justify) == 0
    assert cli(*p, "round", "measure", "--build", "ok", "--correctness", "pass", "--samples", "80,81,79") == 0
    filler = _fill(small_disk, leave=4096 * free_pages)
    capsys.readouterr()
    close = ("round", "close", "--analysis", "faster", "--next", "go on")
    code = cli(*p, *close)
    err = capsys.readouterr().err
    assert "Traceback" not in err and (code == 0 or len(err.strip().splitlines()) == 1), err
    assert cli(*p, "status") == 0  # a read answers on a full disk
    filler.unlink()
    status = cli_json(capsys, *p, "status")
    assert isinstance(status, dict) and status["tampered_rounds"] == {}, status
    if status["open_round"] == 1:  # the close did not happen: it does now
        assert cli(*p, *close) == 0
    capsys.readouterr()
    assert cli(*p, "verify") == 0, capsys.readouterr().out
    counts = cli_json(capsys, *p, "status")
    assert isinstance(counts, dict) and counts["counts"]["kept"] == 1 and counts["unverified_rounds"] == []
