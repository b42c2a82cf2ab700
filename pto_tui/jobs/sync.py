"""Workspace sync (local → target) and result fetch (target → local).

Long on purpose: the one place that decides what a sync may write or delete on the
target; the ownership checks (marker, manifest) sit beside the plan and the upload they
guard.

The remote side is indexed in one command (`find -printf`), compared by size, mtime
(whole seconds: SFTP v3 carries no more) and mode, and only what differs is sent:
a few files as parallel SFTP puts with preserve=True, many as one tar stream (about
one round trip plus bandwidth). Excluded paths (path patterns, as .gitignore reads them:
pto_tui.core.paths.patterns) are neither sent nor deleted.

Sync owns only a folder it made: the work dir must be absent, empty, or hold the marker
file MARKER (written before the first upload). The marker lists every file sync uploaded;
a file is deleted only when it is on that list and gone from the workspace, so files
others put there (job outputs, the user's data) are never touched. A non-empty work dir
without the marker is refused, naming a few of its entries. Numbers behind this:
docs/remote.md §8.
"""

from __future__ import annotations

import hashlib
import io
import os
import shlex
import stat
import tarfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from pto_tui.core.errors import InputError
from pto_tui.core.paths.patterns import path_patterns
from pto_tui.core.project.config import Target
from pto_tui.core.workspace.files import DEFAULT_EXCLUDES
from pto_tui.jobs.errors import FetchError, SyncError
from pto_tui.jobs.executor import Executor
from pto_tui.jobs.shell import join_path, quote_path
from pto_tui.jobs.ssh_pool import SshPool
from pto_tui.jobs.targets import executor_for

TAR_THRESHOLD = 24  # more changed files than this go as one tar stream
# pto-tui's own job folders live in the remote work dir: never synced, never deleted
PRIVATE_DIR = ".pto-tui"
# marks a work dir as pto-tui's and lists the files sync uploaded (the only ones it may delete)
MARKER = ".pto-tui-workspace"
MARKER_TMP = MARKER + ".tmp"
MARKER_HEADER = b"# pto-tui workspace: files below were uploaded by pto-tui sync (NUL-separated)\n"
FOREIGN_SHOWN = 5  # entries named when a work dir is refused


@dataclass(frozen=True)
class FileState:
    size: int
    mtime: int  # whole seconds
    mode: int  # permission bits


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


def _index_script(remote_dir: str, excludes: Iterable[str]) -> str:
    """Absent dir: no output. Marked dir: the index, MARKER listed as a file in it. Unmarked
    dir: only its top-level entries as `t<TAB>name` records (never indexed: sync will not
    touch it), and `p<TAB>` when it holds pto-tui's job folder (an older pto-tui synced it).
    The marker's list is read only when a sync needs it (_read_manifest)."""
    # bare names prune the walk on the target; parse_index applies the whole rule after
    names = [*path_patterns(tuple(excludes)).plain_names(), PRIVATE_DIR, MARKER_TMP]
    prune = " -o ".join(f"-name {shlex.quote(p)}" for p in names)
    d = quote_path(remote_dir)
    ours = " ".join(f"! -name {shlex.quote(p)}" for p in (PRIVATE_DIR, MARKER_TMP))
    return (
        f"[ -d {d} ] || exit 0; cd {d} || exit 1; "
        f"if [ -f {MARKER} ]; then "
        f"find . -mindepth 1 \\( {prune} \\) -prune -o -printf '%y\\t%s\\t%T@\\t%m\\t%P\\0'; "
        f"else find . -mindepth 1 -maxdepth 1 {ours} -printf 't\\t%P\\0'; "
        f"if [ -d {PRIVATE_DIR} ]; then printf 'p\\t\\0'; fi; fi"
    )


@dataclass
class RemoteIndex:
    files: dict[str, FileState]
    dirs: set[str]
    others: set[str]  # symlinks, sockets...
    marked: bool = False  # the work dir holds MARKER: pto-tui made it
    manifest: set[str] = field(default_factory=set)  # files sync uploaded (from MARKER)
    foreign: list[str] = field(default_factory=list)  # top-level entries of an unmarked dir
    used_before: bool = False  # unmarked, but holding pto-tui's job folder: an older pto-tui's


def parse_manifest(data: bytes) -> set[str]:
    """MARKER's paths: an optional '#' header line, then NUL-terminated relative paths."""
    if data.startswith(b"#"):
        data = data.split(b"\n", 1)[1] if b"\n" in data else b""
    return {p.decode("utf-8", errors="surrogateescape") for p in data.split(b"\0") if p}


def manifest_bytes(paths: Iterable[str]) -> bytes:
    return MARKER_HEADER + _nul_list(sorted(paths))


def parse_index(data: bytes, excludes: Iterable[str]) -> RemoteIndex:
    rule = path_patterns(tuple(excludes))
    index = RemoteIndex({}, set(), set())
    for entry in data.split(b"\0"):
        if not entry:
            continue
        if entry.startswith(b"t\t"):
            index.foreign.append(entry[2:].decode("utf-8", errors="replace"))
            continue
        if entry == b"p\t":
            index.used_before = True
            continue
        kind, size_text, mtime, mode, rel_bytes = entry.split(b"\t", 4)
        rel = rel_bytes.decode("utf-8", errors="surrogateescape")
        if rel == MARKER:
            index.marked = kind == b"f"
            continue
        # find pruned the excluded bare names already; the other patterns are checked here
        if rel.split("/")[0] in (PRIVATE_DIR, MARKER_TMP) or rule.matches(
            rel + "/" if kind == b"d" else rel
        ):
            continue
        if kind == b"f":
            index.files[rel] = FileState(int(size_text), int(mtime.split(b".")[0]), int(mode, 8))
        elif kind == b"d":
            index.dirs.add(rel)
        else:
            index.others.add(rel)
    return index


def _parents(rel: str) -> list[str]:
    parts = rel.split("/")[:-1]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


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


def _nul_list(items: Iterable[str]) -> bytes:
    return b"".join(item.encode("utf-8", errors="surrogateescape") + b"\0" for item in items)


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
    remote = await _adopted_listing(executor, remote_dir, patterns)
    if remote.foreign:
        raise _refuse_foreign(target.label, remote_dir, remote.foreign)
    if remote.marked:
        # the marker's list matters only when a file is to be sent or one not in the
        # workspace is there: a sync that finds the copy as it is costs just the index
        if all(remote.files.get(rel) == state for rel, state in local.items()) and all(
            rel in local for rel in remote.files
        ):
            return SyncReport(target.label, remote_dir, len(local), method="none",
                              seconds=time.monotonic() - started, workspace_hash=fingerprint)
        remote.manifest = await _read_manifest(executor, remote_dir)
    plan = plan_sync(local, remote)
    if plan.blocked:
        raise SyncError(
            f"cannot sync to {target.label}:{remote_dir}: {_few(plan.blocked)} in the way of "
            "workspace files, and pto-tui did not upload "
            + ("it" if len(plan.blocked) == 1 else "them"),
            hint="move or remove them on the target; sync deletes only files it uploaded",
        )
    # Before uploading, list what is about to be sent: an interrupted sync leaves a
    # manifest that still covers every file it may have written.
    claimed = remote.manifest | set(plan.changed)
    if not remote.marked or claimed != remote.manifest:
        await _write_marker(executor, remote_dir, claimed)
    await _delete_stale(executor, remote_dir, plan)
    method, sent = await _upload(executor, local_dir, remote_dir, local, plan.changed)
    if set(local) != claimed:
        await _write_marker(executor, remote_dir, set(local))
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


async def _adopted_listing(executor: Executor, remote_dir: str, patterns: tuple[str, ...]) -> RemoteIndex:
    """The work dir's index; one an older pto-tui synced (before the marker) is adopted
    first with an empty list, so what is there is overwritten where the workspace has a
    file and never deleted."""
    remote = await _list_remote(executor, remote_dir, patterns)
    if remote.foreign and remote.used_before:
        await _write_marker(executor, remote_dir, set())
        remote = await _list_remote(executor, remote_dir, patterns)
    return remote


def _few(names: list[str]) -> str:
    shown = ", ".join(names[:FOREIGN_SHOWN])
    more = len(names) - FOREIGN_SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


def _refuse_foreign(label: str, remote_dir: str, foreign: list[str]) -> SyncError:
    names = sorted(foreign)
    return SyncError(
        f"refusing to sync into {label}:{remote_dir}: it is not empty and pto-tui did not "
        f"create it (it holds {_few(names)}); sync would mix the workspace with these files",
        hint=(
            "set [target] work_dir to a new or empty folder; or, to let pto-tui sync into "
            f"this one, create an empty {MARKER} in it (sync then writes the workspace's "
            "files there, overwriting same-named ones, and deletes only files it uploaded)"
        ),
    )


async def _read_manifest(executor: Executor, remote_dir: str) -> set[str]:
    result = await executor.run(f"cat {quote_path(join_path(remote_dir, MARKER))}")
    if not result.ok:
        raise SyncError(f"cannot read {MARKER} in {remote_dir}: {_text(result.stderr)}")
    return parse_manifest(result.stdout)


async def _write_marker(executor: Executor, remote_dir: str, paths: set[str]) -> None:
    d = quote_path(remote_dir)
    result = await executor.run(
        f"mkdir -p {d} && cd {d} && cat > {MARKER_TMP} && mv -f {MARKER_TMP} {MARKER}",
        stdin=manifest_bytes(paths),
    )
    if not result.ok:
        raise SyncError(f"cannot write {MARKER} in {remote_dir}: {_text(result.stderr)}")


@dataclass(frozen=True)
class SyncPlan:
    """What a sync changes on the target, each list in the order it is done."""

    changed: list[str]  # files to upload (new or different)
    stale: list[str]  # files sync uploaded earlier that are gone from the workspace
    stale_dirs: list[str]  # their folders, deepest first (removed only if left empty)
    blocked: list[str] = field(default_factory=list)  # not ours, where a workspace file goes


def plan_sync(local: dict[str, FileState], remote: RemoteIndex) -> SyncPlan:
    local_dirs = {parent for rel in local for parent in _parents(rel)}
    changed = sorted(rel for rel, state in local.items() if remote.files.get(rel) != state)
    # only files on the manifest are deleted: those gone from the workspace
    stale = sorted(rel for rel in remote.files if rel in remote.manifest and rel not in local)
    stale_set = set(stale)
    # a folder, link or foreign file where a workspace file or folder must go is not ours
    blocked = sorted(
        {rel for rel in remote.others if rel in local or rel in local_dirs}
        | {rel for rel in remote.files if rel in local_dirs and rel not in stale_set}
        | {d for d in remote.dirs if d in local and _holds_others(d, remote, stale_set)}
    )
    stale_dirs = sorted(
        {p for rel in stale for p in _parents(rel)} - local_dirs,
        key=lambda d: d.count("/"),
        reverse=True,
    )
    return SyncPlan(changed, stale, stale_dirs, blocked)


def _holds_others(folder: str, remote: RemoteIndex, stale: set[str]) -> bool:
    """Whether a remote folder holds anything sync will not delete."""
    prefix = folder + "/"
    return any(rel.startswith(prefix) and rel not in stale for rel in [*remote.files, *remote.others])


async def _list_remote(executor: Executor, remote_dir: str, patterns: Iterable[str]) -> RemoteIndex:
    listing = await executor.run(_index_script(remote_dir, patterns), timeout=120)
    if not listing.ok:
        label = executor.target.label
        raise SyncError(f"cannot list {remote_dir} on {label}: {_text(listing.stderr)}")
    return parse_index(listing.stdout, patterns)


async def _delete_stale(executor: Executor, remote_dir: str, plan: SyncPlan) -> None:
    d = quote_path(remote_dir)
    if plan.stale:
        # rm -f, not -rf: only the listed files go, never a folder's contents
        result = await executor.run(f"cd {d} && xargs -0 -r rm -f --", stdin=_nul_list(plan.stale))
        if not result.ok:
            raise SyncError(f"cannot delete stale files in {remote_dir}: {_text(result.stderr)}")
    if plan.stale_dirs:
        # rmdir, not rm -rf: a folder still holding files that are not ours is kept
        await executor.run(f"cd {d} && xargs -0 -r rmdir -- 2>/dev/null; true",
                           stdin=_nul_list(plan.stale_dirs))


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
            raise SyncError(f"upload to {remote_dir} failed: {_text(result.stderr)}")
        return "tar", len(stream)
    if not changed:
        return "none", 0
    parents = sorted({p for rel in changed for p in _parents(rel)})
    result = await executor.run(
        f"mkdir -p {d} && cd {d} && xargs -0 -r mkdir -p --", stdin=_nul_list(parents)
    )
    if not result.ok:
        raise SyncError(f"cannot create folders in {remote_dir}: {_text(result.stderr)}")
    await executor.put_files([(local_dir / rel, join_path(remote_dir, rel)) for rel in changed])
    return "sftp", sum(local[rel].size for rel in changed)


async def fetch_with(
    executor: Executor, remote_paths: Iterable[str], local_dir: Path, base: str = ""
) -> list[Path]:
    """Copy result files back into local_dir (relative paths keep their sub-folders).

    Relative remote paths are taken from `base`, else the target's work dir. Every
    missing file is named in one FetchError.
    """
    target = executor.target
    base = base or target.work_dir
    wanted = list(remote_paths)
    if not wanted:
        return []
    checks = " ".join(quote_path(join_path(base, p)) for p in wanted)
    script = f'for f in {checks}; do [ -f "$f" ] || printf "%s\\0" "$f"; done'
    result = await executor.run(script)
    missing = [m.decode(errors="replace") for m in result.stdout.split(b"\0") if m]
    if missing:
        raise FetchError(
            f"result file not found on {target.label}: {', '.join(missing)}",
            hint="did the command write it? check the job's log",
        )
    pairs: list[tuple[str, Path]] = []
    for path in wanted:
        relative = not path.startswith(("/", "~"))
        local_rel = Path(path) if relative and ".." not in Path(path).parts else Path(path).name
        pairs.append((join_path(base, path), local_dir / local_rel))
    await executor.get_files(pairs)
    return [dst for _src, dst in pairs]


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace").strip()[-500:] or "(no message)"


async def sync_workspace(
    target: Target,
    local_dir: Path,
    excludes: Iterable[str] = DEFAULT_EXCLUDES,
    *,
    pool: SshPool | None = None,
) -> SyncReport:
    """Upload local_dir to target.work_dir (see sync_with); a pool keeps the connection."""
    own_pool = pool is None
    pool = pool or SshPool()
    try:
        return await sync_with(executor_for(target, pool), local_dir, excludes)
    finally:
        if own_pool:
            await pool.close()


async def fetch(
    target: Target,
    remote_paths: Iterable[str],
    local_dir: Path,
    *,
    base: str = "",
    pool: SshPool | None = None,
) -> list[Path]:
    """Fetch result files back (see fetch_with); FetchError names every missing file."""
    own_pool = pool is None
    pool = pool or SshPool()
    try:
        return await fetch_with(executor_for(target, pool), remote_paths, local_dir, base)
    finally:
        if own_pool:
            await pool.close()
