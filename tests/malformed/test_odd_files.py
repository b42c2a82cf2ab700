"""Files are what they claim: a FIFO, a directory or a device in place of project.toml,
round.toml, closed.log, notes.md or a JSON state file is refused naming the file, without
blocking; JSON state nested without end is refused, never a RecursionError; a symlink out
of the project is not followed; a snapshot id cannot name a path."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from pto_tui.core.errors import PtoError
from pto_tui.core.workspace.snapshots import SnapshotStore, snapshot_id_problem
from tests.core.helpers import cli, ready_project

REPO = Path(__file__).resolve().parents[2]
HANDWRITTEN = REPO / "tests" / "fixtures" / "handwritten" / "flash_attention"
DEEP = "[" * 50_000 + "]" * 50_000


def _pto(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real CLI in a child process, given 60 s: a read that blocks fails the test
    instead of hanging the suite."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "pto_tui.cli.main", "--project", str(root), *args],
        capture_output=True, text=True, env=env, timeout=60, check=False, stdin=subprocess.DEVNULL,
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ready_project(tmp_path_factory.mktemp("odd-files"))


def _swap(path: Path, make: Callable[[Path], None]) -> Callable[[], None]:
    """Put something else in place of `path`; returns how to put the file back."""
    aside = path.with_name(path.name + ".aside")
    os.replace(path, aside)
    make(path)

    def restore() -> None:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
        os.replace(aside, path)

    return restore


MAKERS: dict[str, Callable[[Path], None]] = {
    "fifo": lambda p: os.mkfifo(p),
    "directory": lambda p: p.mkdir(),
}
KIND_TEXT = {"fifo": "a FIFO", "directory": "a directory"}


@pytest.mark.parametrize("kind", list(MAKERS))
@pytest.mark.parametrize("name", ["project.toml", "runs/iter-000/round.toml", "runs/closed.log"])
def test_a_fifo_or_a_directory_in_place_of_a_file_is_refused_naming_it(
    project: Path, name: str, kind: str
) -> None:
    restore = _swap(project / name, MAKERS[kind])
    try:
        for command in (("status",), ("rounds", "--json")):
            done = _pto(project, *command)
            out = done.stdout + done.stderr
            assert "Traceback" not in out, out
            assert KIND_TEXT[kind] in out and Path(name).name in out, out
    finally:
        restore()
    assert _pto(project, "status").returncode == 0


def test_a_device_in_place_of_a_file_is_refused(project: Path) -> None:
    from pto_tui.core.errors import InputError, read_utf8

    with pytest.raises(InputError, match="character device"):
        read_utf8(Path("/dev/zero"))  # would be read for ever


@pytest.mark.parametrize(
    "name", [".pto-tui/rounds-index.json", ".pto-tui/rounds-index/log.json", ".pto-tui/rounds-snapshot.json",
             ".pto-tui/last-write.json", ".pto-tui/measuring/iter-001.json"]
)
def test_deeply_nested_json_state_is_no_recursion_error(project: Path, name: str) -> None:
    path = project / name
    path.parent.mkdir(parents=True, exist_ok=True)
    had = path.read_bytes() if path.exists() else None
    path.write_text(DEEP)
    try:
        for command in (("status",), ("status", "--json"), ("rounds", "--json")):
            done = _pto(project, *command)
            assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr, done.stderr
    finally:
        if had is None:
            path.unlink()
        else:
            path.write_bytes(had)


@pytest.mark.parametrize("line", [DEEP, '{"round": 0, "event": "closed", "sha256": "x", "record": {}}'])
def test_a_broken_closed_log_line_is_no_traceback(project: Path, line: str) -> None:
    log = project / "runs" / "closed.log"
    good = log.read_bytes()
    with log.open("a") as handle:
        handle.write(line + "\n")
    try:
        for command in (("status",), ("rounds", "--json")):
            done = _pto(project, *command)
            assert "Traceback" not in done.stderr, done.stderr
    finally:
        log.write_bytes(good)


def test_a_notes_md_linked_out_of_the_project_is_never_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "flash_attention"
    shutil.copytree(HANDWRITTEN, root)
    secret = tmp_path / "secret.txt"
    secret.write_text("- **Hypothesis**: SECRET-LINE\n")
    notes = root / "runs" / "iter-001" / "notes.md"
    notes.unlink()
    notes.symlink_to(secret)
    capsys.readouterr()
    assert cli("import", root, "--json") == 0
    out, err = capsys.readouterr()
    assert "SECRET-LINE" not in out + err
    assert "leads outside the project" in out, out
    for command in (("show", "1"), ("show", "1", "--json"), ("status",)):
        cli("--project", root, *command)
        out, err = capsys.readouterr()
        assert "SECRET-LINE" not in out + err, command
        assert "Traceback" not in err


@pytest.mark.parametrize(
    "snap_id",
    ["own:../../../../etc/passwd", "own:/etc/passwd", "own:abc", "git:--output=/tmp/x", "git:HEAD", "x", ""],
)
def test_a_snapshot_id_cannot_name_a_path(tmp_path: Path, snap_id: str) -> None:
    store = SnapshotStore(tmp_path)
    (tmp_path / "workspace").mkdir()
    assert snapshot_id_problem(snap_id)
    for use in (store.manifest, store.changed_files, store.diff, store.restore):
        with pytest.raises(PtoError, match="not a snapshot id"):
            use(snap_id)


def test_a_manifest_entry_leaving_the_workspace_is_refused(tmp_path: Path) -> None:
    store = SnapshotStore(tmp_path)
    (tmp_path / "workspace").mkdir()
    store.manifests.mkdir(parents=True)
    (store.manifests / ("a" * 20 + ".json")).write_text('{"../../etc/x": ["' + "0" * 64 + '", 420]}')
    with pytest.raises(PtoError, match="leaves the workspace"):
        store.restore("own:" + "a" * 20)
    assert snapshot_id_problem("own:" + "a" * 20) is None
    assert snapshot_id_problem("git:" + "b" * 40) is None
