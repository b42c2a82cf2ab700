"""What of a target's work dir is pto-tui's: the one place that decides what a sync may
write or delete there.

Sync owns only a folder it made: the work dir must be absent, empty, or hold the marker
file MARKER (written before the first upload). The marker lists every file sync uploaded
(the manifest); a file is deleted only when it is on that list and gone from the
workspace, so files others put there (job outputs, the user's data) are never touched. A
non-empty work dir without the marker is refused, naming a few of its entries; one an
older pto-tui synced (holding its job folder) is adopted with an empty list.

The remote side is indexed in one command (`find -printf`): size, mtime (whole seconds:
SFTP v3 carries no more) and mode of every file, or only the top-level names of a folder
that is not pto-tui's. Excluded paths (path patterns, as .gitignore reads them:
pto_tui.core.paths.patterns) are neither indexed nor deleted.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field

from pto_tui.core.paths.patterns import path_patterns
from pto_tui.jobs.errors import SyncError
from pto_tui.jobs.executor import Executor
from pto_tui.jobs.shell import join_path, quote_path

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


def index_script(remote_dir: str, excludes: Iterable[str]) -> str:
    """Absent dir: no output. Marked dir: the index, MARKER listed as a file in it. Unmarked
    dir: only its top-level entries as `t<TAB>name` records (never indexed: sync will not
    touch it), and `p<TAB>` when it holds pto-tui's job folder (an older pto-tui synced it).
    The marker's list is read only when a sync needs it (read_manifest)."""
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


async def list_remote(executor: Executor, remote_dir: str, patterns: Iterable[str]) -> RemoteIndex:
    listing = await executor.run(index_script(remote_dir, patterns), timeout=120)
    if not listing.ok:
        label = executor.target.label
        raise SyncError(f"cannot list {remote_dir} on {label}: {output_text(listing.stderr)}")
    return parse_index(listing.stdout, patterns)


def parse_manifest(data: bytes) -> set[str]:
    """MARKER's paths: an optional '#' header line, then NUL-terminated relative paths."""
    if data.startswith(b"#"):
        data = data.split(b"\n", 1)[1] if b"\n" in data else b""
    return {p.decode("utf-8", errors="surrogateescape") for p in data.split(b"\0") if p}


def manifest_bytes(paths: Iterable[str]) -> bytes:
    return MARKER_HEADER + nul_list(sorted(paths))


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


async def adopted_listing(executor: Executor, remote_dir: str, patterns: tuple[str, ...]) -> RemoteIndex:
    """The work dir's index; one an older pto-tui synced (before the marker) is adopted
    first with an empty list, so what is there is overwritten where the workspace has a
    file and never deleted."""
    remote = await list_remote(executor, remote_dir, patterns)
    if remote.foreign and remote.used_before:
        await write_marker(executor, remote_dir, set())
        remote = await list_remote(executor, remote_dir, patterns)
    return remote


def few(names: list[str]) -> str:
    shown = ", ".join(names[:FOREIGN_SHOWN])
    more = len(names) - FOREIGN_SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


def refuse_foreign(label: str, remote_dir: str, foreign: list[str]) -> SyncError:
    names = sorted(foreign)
    return SyncError(
        f"refusing to sync into {label}:{remote_dir}: it is not empty and pto-tui did not "
        f"create it (it holds {few(names)}); sync would mix the workspace with these files",
        hint=(
            "set [target] work_dir to a new or empty folder; or, to let pto-tui sync into "
            f"this one, create an empty {MARKER} in it (sync then writes the workspace's "
            "files there, overwriting same-named ones, and deletes only files it uploaded)"
        ),
    )


async def read_manifest(executor: Executor, remote_dir: str) -> set[str]:
    result = await executor.run(f"cat {quote_path(join_path(remote_dir, MARKER))}")
    if not result.ok:
        raise SyncError(f"cannot read {MARKER} in {remote_dir}: {output_text(result.stderr)}")
    return parse_manifest(result.stdout)


async def write_marker(executor: Executor, remote_dir: str, paths: set[str]) -> None:
    d = quote_path(remote_dir)
    result = await executor.run(
        f"mkdir -p {d} && cd {d} && cat > {MARKER_TMP} && mv -f {MARKER_TMP} {MARKER}",
        stdin=manifest_bytes(paths),
    )
    if not result.ok:
        raise SyncError(f"cannot write {MARKER} in {remote_dir}: {output_text(result.stderr)}")


@dataclass(frozen=True)
class SyncPlan:
    """What a sync changes on the target, each list in the order it is done."""

    changed: list[str]  # files to upload (new or different)
    stale: list[str]  # files sync uploaded earlier that are gone from the workspace
    stale_dirs: list[str]  # their folders, deepest first (removed only if left empty)
    blocked: list[str] = field(default_factory=list)  # not ours, where a workspace file goes


def plan_sync(local: dict[str, FileState], remote: RemoteIndex) -> SyncPlan:
    local_dirs = {parent for rel in local for parent in parent_dirs(rel)}
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
        {p for rel in stale for p in parent_dirs(rel)} - local_dirs,
        key=lambda d: d.count("/"),
        reverse=True,
    )
    return SyncPlan(changed, stale, stale_dirs, blocked)


def _holds_others(folder: str, remote: RemoteIndex, stale: set[str]) -> bool:
    """Whether a remote folder holds anything sync will not delete."""
    prefix = folder + "/"
    return any(rel.startswith(prefix) and rel not in stale for rel in [*remote.files, *remote.others])


def parent_dirs(rel: str) -> list[str]:
    parts = rel.split("/")[:-1]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def nul_list(items: Iterable[str]) -> bytes:
    return b"".join(item.encode("utf-8", errors="surrogateescape") + b"\0" for item in items)


def output_text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace").strip()[-500:] or "(no message)"
