"""Workspace snapshots: real unified diffs against a round's base, and restore."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from pto_tui.core.workspace.snapshots import SnapshotStore


def workspace(tmp_path: Path) -> SnapshotStore:
    ws = tmp_path / "workspace" / "kernel"
    ws.mkdir(parents=True)
    (ws / "a.h").write_text("constexpr int kA = 1;\nint x;\n")
    (ws / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (ws / "run.sh").chmod(0o755)
    (ws / "blob.bin").write_bytes(b"\0\1\2")
    (ws / "build").mkdir()
    (ws / "build" / "out.o").write_text("ignored")
    return SnapshotStore(tmp_path)


def edit(store: SnapshotStore) -> None:
    ws = store.workspace / "kernel"
    (ws / "a.h").write_text("constexpr int kA = 2;\nint x;\n")
    (ws / "blob.bin").write_bytes(b"\0\1\3")
    (ws / "new.cpp").write_text("int y;\n")
    (ws / "run.sh").unlink()
    (ws / "build" / "out.o").write_text("changed but excluded")


def test_own_store_diff_and_restore(tmp_path: Path) -> None:
    store = workspace(tmp_path)
    base = store.take()
    assert base.startswith("own:")
    assert store.take() == base  # same content, same id
    assert store.changed_files(base) == []
    edit(store)
    assert store.changed_files(base) == [
        "workspace/kernel/a.h",
        "workspace/kernel/blob.bin",
        "workspace/kernel/new.cpp",
        "workspace/kernel/run.sh",
    ]
    diff = store.diff(base)
    assert "--- a/workspace/kernel/a.h\n+++ b/workspace/kernel/a.h\n" in diff
    assert "-constexpr int kA = 1;\n+constexpr int kA = 2;\n" in diff
    assert "--- /dev/null\n+++ b/workspace/kernel/new.cpp\n" in diff
    assert "--- a/workspace/kernel/run.sh\n+++ /dev/null\n" in diff
    assert "Binary files a/workspace/kernel/blob.bin and b/workspace/kernel/blob.bin differ" in diff
    assert "out.o" not in diff
    store.restore(base)
    ws = store.workspace / "kernel"
    assert (ws / "a.h").read_text() == "constexpr int kA = 1;\nint x;\n"
    assert not (ws / "new.cpp").exists()
    assert (ws / "run.sh").stat().st_mode & 0o777 == 0o755
    assert store.changed_files(base) == []


def test_diff_is_applicable_with_patch(tmp_path: Path) -> None:
    store = workspace(tmp_path)
    base = store.take()
    (store.workspace / "kernel" / "a.h").write_text("constexpr int kA = 3;\nint x;\nint z;\n")
    diff = store.diff(base)
    store.restore(base)
    result = subprocess.run(
        ["patch", "-p1", "--dry-run"], input=diff, text=True, cwd=tmp_path, capture_output=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_git_workspace_uses_git_trees(tmp_path: Path) -> None:
    store = workspace(tmp_path)
    git = ["git", "-C", str(store.workspace)]
    subprocess.run([*git, "init", "-q"], check=True)
    (store.workspace / ".gitignore").write_text("build/\n")
    base = store.take()
    assert base.startswith("git:")
    edit(store)
    assert "workspace/kernel/a.h" in store.changed_files(base)
    diff = store.diff(base)
    assert "a/workspace/kernel/a.h" in diff and "+constexpr int kA = 2;" in diff
    store.restore(base)
    assert (store.workspace / "kernel" / "a.h").read_text().startswith("constexpr int kA = 1;")
    assert not (store.workspace / "kernel" / "new.cpp").exists()
    # the user's own index and history are untouched
    status = subprocess.run([*git, "status", "--porcelain"], capture_output=True, text=True).stdout
    assert "??" in status  # nothing was staged
    log = subprocess.run([*git, "log"], capture_output=True, text=True)
    assert log.returncode != 0  # still no commits


@pytest.mark.parametrize("git", [False, True], ids=["own store", "git"])
def test_files_the_build_generates_are_never_snapshot(tmp_path: Path, git: bool) -> None:
    workspace(tmp_path)
    store = SnapshotStore(tmp_path, generated=("kernel/*.pto",))
    if git:
        subprocess.run(["git", "-C", str(store.workspace), "init", "-q"], check=True)
    ir = store.workspace / "kernel" / "kernel.pto"
    ir.write_text("// IR of block 64\n")
    base = store.take()
    ir.write_text("// IR of block 128\n")  # the build wrote it again
    (store.workspace / "kernel" / "a.h").write_text("constexpr int kA = 2;\nint x;\n")
    files, diff = store.changes(base)
    assert files == ["workspace/kernel/a.h"]
    assert "kernel.pto" not in diff
    store.restore(base)  # a generated file is neither put back nor removed
    assert ir.read_text() == "// IR of block 128\n"
    assert (store.workspace / "kernel" / "a.h").read_text().startswith("constexpr int kA = 1;")


def test_missing_snapshot_is_named(tmp_path: Path) -> None:
    from pto_tui.core.errors import PtoError

    store = workspace(tmp_path)
    with pytest.raises(PtoError, match="missing from the store"):
        store.diff("own:" + "deadbeef" * 2 + "dead")  # well formed, not in the store


@pytest.mark.parametrize("git", [False, True], ids=["own store", "git"])
def test_a_large_file_is_listed_by_name_and_size_not_inlined(tmp_path: Path, git: bool) -> None:
    store = workspace(tmp_path)
    if git:
        subprocess.run(["git", "-C", str(store.workspace), "init", "-q"], check=True)
        (store.workspace / ".gitignore").write_text("build/\n")
    base = store.take()
    big = store.workspace / "kernel" / "data.txt"
    big.write_text("a line of text\n" * 200_000)  # 3 MB of text: diffable, but too big
    (store.workspace / "kernel" / "a.h").write_text("constexpr int kA = 2;\nint x;\n")
    diff = store.diff(base)
    assert len(diff) < 10_000
    assert (
        "Large file a/workspace/kernel/data.txt and b/workspace/kernel/data.txt differ "
        f"(0 -> {big.stat().st_size} bytes); not inlined" in diff
    )
    assert "+constexpr int kA = 2;" in diff  # the small edit is still inlined
    assert "a line of text" not in diff


@pytest.mark.parametrize("git", [False, True], ids=["own store", "git"])
def test_a_copy_of_a_snapshot_holds_its_files_and_modes_and_leaves_the_workspace(
    tmp_path: Path, git: bool
) -> None:
    store = workspace(tmp_path)
    if git:
        subprocess.run(["git", "-C", str(store.workspace), "init", "-q"], check=True)
        (store.workspace / ".gitignore").write_text("build/\n")
    base = store.take()
    edit(store)
    copy = tmp_path / "copy"
    store.write_copy(base, copy)
    kernel = copy / "kernel"
    assert (kernel / "a.h").read_text() == "constexpr int kA = 1;\nint x;\n"
    assert (kernel / "blob.bin").read_bytes() == b"\0\1\2"
    assert (kernel / "run.sh").stat().st_mode & 0o777 == 0o755
    assert not (kernel / "new.cpp").exists() and not (kernel / "build").exists()
    assert (store.workspace / "kernel" / "new.cpp").exists()  # the workspace as it was


def test_a_copy_of_a_snapshot_gone_from_the_store_is_refused_naming_it(tmp_path: Path) -> None:
    from pto_tui.core.errors import PtoError

    store = workspace(tmp_path)
    base = store.take()
    for blob in (tmp_path / ".pto-tui" / "objects").rglob("*"):
        if blob.is_file() and blob.read_bytes() == b"\0\1\2":
            blob.unlink()
    with pytest.raises(PtoError, match=f"snapshot {base}: the content of kernel/blob.bin is missing"):
        store.write_copy(base, tmp_path / "copy")
