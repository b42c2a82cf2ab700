"""Workspace sync (local → target): the target's work dir made to mirror the workspace.

The local workspace is scanned (the same rule as iter_workspace_files) and compared with
the work dir's index by size, mtime (whole seconds) and mode; only what differs is sent:
a few files as parallel SFTP puts with preserve=True, many as one tar stream (about one
round trip plus bandwidth). What sync may write or delete there, and the index itself,
are decided in work_dir.py; the order below keeps the manifest covering every file a sync
may have written when it is interrupted. Numbers behind this: docs/remote.md §8.
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
import tarfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from pto_tui.core.errors import InputError
from pto_tui.core.paths.patterns import path_patterns
from pto_tui.core.workspace.files import DEFAULT_EXCLUDES
from pto_tui.jobs.errors import SyncError
from pto_tui.jobs.executor import Executor
from pto_tui.jobs.shell import join_path, quote_path
from pto_tui.jobs.work_dir import (
    PRIVATE_DIR,
    FileState,
    SyncPlan,
    adopted_listing,
    few,
    nul_list,
    output_text,
    parent_dirs,
    plan_sync,
    read_manifest,
    refuse_foreign,
    write_marker,
)

TAR_THRESHOLD = 24  # more changed files than this go as one tar stream


@dataclass(frozen=True)
class SyncReport:
    target: str
    remote_dir: str
    files: int = 0  # workspace files considered
    uploaded: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    method: str = "none"  # none (nothing changed) | noop (local, same dir) | sftp | tar
    bytes_sent: int = 0
    seconds: float = 0.0
    workspace_hash: str = ""


def scan_local(root: Path, excludes: Iterable[str] = DEFAULT_EXCLUDES) -> dict[str, FileState]:
    """Regular files under root that are not excluded (same rule as iter_workspace_files),
    without walking into excluded directories."""
    rule = path_patterns(tuple(excludes))
    found: dict[str, FileState] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = Path(dirpath).relative_to(root).as_posix()
        prefix = "" if rel_dir == "." else rel_dir + "/"
        dirnames[:] = [d for d in dirnames if not rule.matches_entry(f"{prefix}{d}/")]
        for name in filenames:
            rel = prefix + name
            if rule.matches_entry(rel):
                continue
            st = os.lstat(os.path.join(dirpath, name))
            if stat.S_ISREG(st.st_mode):
                mtime = st.st_mtime_ns // 10**9
                found[rel] = FileState(st.st_size, mtime, stat.S_IMODE(st.st_mode))
    return found


def workspace_hash(files: dict[str, FileState]) -> str:
    """A fingerprint of the workspace state (paths, sizes, mtimes, modes)."""
    digest = hashlib.sha256()
    for rel in sorted(files):
        state = files[rel]
        digest.update(f"{rel}\0{state.size}\0{state.mtime}\0{state.mode:o}\n".encode())
    return digest.hexdigest()[:16]


async def sync_with(
    executor: Executor, local_dir: Path, excludes: Iterable[str] = DEFAULT_EXCLUDES
) -> SyncReport:
    """Make the target's work dir mirror local_dir (minus excludes)."""
    target = executor.target
    started = time.monotonic()
    patterns = (*tuple(excludes), PRIVATE_DIR)
    if not local_dir.is_dir():
        raise SyncError(f"workspace folder not found: {local_dir}")
    local = scan_local(local_dir, patterns)
    fingerprint = workspace_hash(local)
    remote_dir = target.work_dir
    if executor.on_this_machine and (
        not remote_dir or Path(remote_dir).expanduser().resolve() == local_dir.resolve()
    ):
        return SyncReport(target.label, str(local_dir), len(local), method="noop",
                          workspace_hash=fingerprint)
    if not remote_dir:
        raise InputError(f"target {target.label} has no work_dir to sync to", key="target.work_dir")
    remote = await adopted_listing(executor, remote_dir, patterns)
    if remote.foreign:
        raise refuse_foreign(target.label, remote_dir, remote.foreign)
    if remote.marked:
        # the marker's list matters only when a file is to be sent or one not in the
        # workspace is there: a sync that finds the copy as it is costs just the index
        if all(remote.files.get(rel) == state for rel, state in local.items()) and all(
            rel in local for rel in remote.files
        ):
            return SyncReport(target.label, remote_dir, len(local), method="none",
                              seconds=time.monotonic() - started, workspace_hash=fingerprint)
        remote.manifest = await read_manifest(executor, remote_dir)
    plan = plan_sync(local, remote)
    if plan.blocked:
        raise SyncError(
            f"cannot sync to {target.label}:{remote_dir}: {few(plan.blocked)} in the way of "
            "workspace files, and pto-tui did not upload "
            + ("it" if len(plan.blocked) == 1 else "them"),
            hint="move or remove them on the target; sync deletes only files it uploaded",
        )
    # Before uploading, list what is about to be sent: an interrupted sync leaves a
    # manifest that still covers every file it may have written.
    claimed = remote.manifest | set(plan.changed)
    if not remote.marked or claimed != remote.manifest:
        await write_marker(executor, remote_dir, claimed)
    await _delete_stale(executor, remote_dir, plan)
    method, sent = await _upload(executor, local_dir, remote_dir, local, plan.changed)
    if set(local) != claimed:
        await write_marker(executor, remote_dir, set(local))
    return SyncReport(
        target=target.label,
        remote_dir=remote_dir,
        files=len(local),
        uploaded=tuple(plan.changed),
        deleted=tuple(plan.stale),
        method=method,
        bytes_sent=sent,
        seconds=time.monotonic() - started,
        workspace_hash=fingerprint,
    )


async def _delete_stale(executor: Executor, remote_dir: str, plan: SyncPlan) -> None:
    d = quote_path(remote_dir)
    if plan.stale:
        # rm -f, not -rf: only the listed files go, never a folder's contents
        result = await executor.run(f"cd {d} && xargs -0 -r rm -f --", stdin=nul_list(plan.stale))
        if not result.ok:
            raise SyncError(f"cannot delete stale files in {remote_dir}: {output_text(result.stderr)}")
    if plan.stale_dirs:
        # rmdir, not rm -rf: a folder still holding files that are not ours is kept
        await executor.run(f"cd {d} && xargs -0 -r rmdir -- 2>/dev/null; true",
                           stdin=nul_list(plan.stale_dirs))


async def _upload(
    executor: Executor,
    local_dir: Path,
    remote_dir: str,
    local: dict[str, FileState],
    changed: list[str],
) -> tuple[str, int]:
    """Send the changed files: many as one tar stream, a few by SFTP. (method, bytes sent)"""
    d = quote_path(remote_dir)
    if len(changed) > TAR_THRESHOLD:
        stream = _tar_stream(local_dir, changed)
        result = await executor.run(
            f"mkdir -p {d} && tar -xpf - --no-same-owner -C {d}", stdin=stream, timeout=600
        )
        if not result.ok:
            raise SyncError(f"upload to {remote_dir} failed: {output_text(result.stderr)}")
        return "tar", len(stream)
    if not changed:
        return "none", 0
    parents = sorted({p for rel in changed for p in parent_dirs(rel)})
    result = await executor.run(
        f"mkdir -p {d} && cd {d} && xargs -0 -r mkdir -p --", stdin=nul_list(parents)
    )
    if not result.ok:
        raise SyncError(f"cannot create folders in {remote_dir}: {output_text(result.stderr)}")
    await executor.put_files([(local_dir / rel, join_path(remote_dir, rel)) for rel in changed])
    return "sftp", sum(local[rel].size for rel in changed)


def _tar_stream(root: Path, rels: list[str]) -> bytes:
    """A tar of the given files keeping modes and exact mtimes (pax), owned by nobody."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for rel in rels:
            path = root / rel
            info = tar.gettarinfo(str(path), arcname=rel)
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            with path.open("rb") as handle:
                tar.addfile(info, handle)
    return buffer.getvalue()
