"""Workspace snapshots, so each round's patch.diff is a real diff against its base.

When the workspace is a git repository, a snapshot is a git tree object written
through a temporary index (the user's index, branches and history are untouched).
Otherwise pto-tui keeps its own content-addressed store in .pto-tui/objects with one
manifest per snapshot. Either way a snapshot id is a string stored in round.toml,
and the workspace can be restored from it.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pto_tui.core.atomic import atomic_write_bytes, atomic_write_text
from pto_tui.core.errors import PtoError, load_json, read_utf8
from pto_tui.core.workspace.files import DEFAULT_EXCLUDES, iter_workspace_files

GIT_PREFIX = "git:"
# A changed file larger than this is listed in patch.diff by name and size, not inlined:
# a 200 MB data file would make the round's record unreadable.
MAX_INLINED_BYTES = 1 << 20
OWN_PREFIX = "own:"


_OWN_ID = re.compile(r"[0-9a-f]{20}")
_GIT_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")  # a tree: sha-1 or sha-256
_SHA256 = re.compile(r"[0-9a-f]{64}")


def snapshot_id_problem(snap_id: str) -> str | None:
    """Why `snap_id` is not a snapshot id pto-tui makes (own: and 20 hex digits, git: and
    a tree id), or None: an id is a file name in the store or a git argument, so
    `own:../../etc/passwd` or `git:--output=x` must never get there."""
    if snap_id.startswith(OWN_PREFIX) and _OWN_ID.fullmatch(snap_id[len(OWN_PREFIX) :]):
        return None
    if snap_id.startswith(GIT_PREFIX) and _GIT_ID.fullmatch(snap_id[len(GIT_PREFIX) :]):
        return None
    return f"{snap_id[:80]!r} is not a snapshot id (own: and 20 hex digits, or git: and a tree id)"


def check_snapshot_id(snap_id: str) -> None:
    problem = snapshot_id_problem(snap_id)
    if problem:
        raise PtoError(problem)


def _entry_problem(rel: object, value: object) -> str | None:
    """Why a manifest entry is not a relative path inside the workspace with a sha and a
    mode, or None."""
    if not isinstance(rel, str) or not rel or rel.startswith("/") or "\\" in rel or "\0" in rel:
        return f"path {rel!r} is not relative"
    if any(part in ("", ".", "..") for part in rel.split("/")):
        return f"path {rel!r} leaves the workspace or is not normal"
    if not (isinstance(value, list) and len(value) == 2 and isinstance(value[0], str)):
        return f"entry of {rel!r} is not [sha, mode]"
    if not _SHA256.fullmatch(value[0]) or isinstance(value[1], bool) or not isinstance(value[1], int):
        return f"entry of {rel!r} has no sha-256 and mode"
    return None


@dataclass(frozen=True)
class FileEntry:
    sha: str
    mode: int


Manifest = dict[str, FileEntry]


class SnapshotStore:
    """Snapshots of one project's workspace/ (paths in diffs are relative to the project)."""

    def __init__(self, project_root: Path, generated: tuple[str, ...] = ()) -> None:
        self.root = project_root
        # [scope] generated: files the build writes into the workspace, never snapshot
        self.excludes = DEFAULT_EXCLUDES + generated
        self.generated = generated
        self.workspace = project_root / "workspace"
        self.objects = project_root / ".pto-tui" / "objects"
        self.manifests = project_root / ".pto-tui" / "snapshots"

    # -------------------------------------------------------------- taking

    def git_dir(self) -> Path | None:
        """The workspace itself as a git work tree (only then git is used)."""
        return self.workspace if (self.workspace / ".git").exists() else None

    def take(self) -> str:
        if self.git_dir() is not None:
            return GIT_PREFIX + self._git_tree()
        manifest: Manifest = {}
        for rel in iter_workspace_files(self.workspace, self.excludes):
            path = self.workspace / rel
            data = path.read_bytes()
            sha = hashlib.sha256(data).hexdigest()
            target = self.objects / sha[:2] / sha
            if not target.exists():
                atomic_write_bytes(target, data)
            manifest[rel] = FileEntry(sha=sha, mode=path.stat().st_mode & 0o777)
        blob = json.dumps({rel: [e.sha, e.mode] for rel, e in manifest.items()}, sort_keys=True).encode()
        snap_id = hashlib.sha256(blob).hexdigest()[:20]
        target = self.manifests / f"{snap_id}.json"
        if not target.exists():
            atomic_write_bytes(target, blob)
        return OWN_PREFIX + snap_id

    def _git(self, *args: str, env: dict[str, str] | None = None) -> str:
        result = subprocess.run(
            ["git", "-C", str(self.workspace), *args],
            capture_output=True,
            text=True,
            env={**os.environ, **(env or {})},
            check=False,
        )
        if result.returncode != 0:
            raise PtoError(f"git {' '.join(args)} failed: {result.stderr.strip()}", file=self.workspace)
        return result.stdout

    def _git_tree(self) -> str:
        with tempfile.TemporaryDirectory() as tmp:
            env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
            self._git(*self._generated_excluded(Path(tmp)), "add", "-A", ".", env=env)
            return self._git("write-tree", env=env).strip()

    def _generated_excluded(self, tmp: Path) -> tuple[str, ...]:
        """git options that leave [scope] generated out as untracked-and-ignored (the
        temporary index tracks nothing, so every file is untracked to it)."""
        if not self.generated:
            return ()
        atomic_write_text(tmp / "generated", "".join(f"{p}\n" for p in self.generated))
        return ("-c", f"core.excludesFile={tmp / 'generated'}")

    # -------------------------------------------------------------- reading

    def manifest(self, snap_id: str) -> Manifest:
        check_snapshot_id(snap_id)
        if not snap_id.startswith(OWN_PREFIX):
            raise PtoError(f"not an own snapshot: {snap_id}")
        path = self.manifests / f"{snap_id[len(OWN_PREFIX) :]}.json"
        try:
            raw = load_json(read_utf8(path), path)
        except FileNotFoundError:
            raise PtoError(f"snapshot {snap_id} is missing from the store", file=path) from None
        if not isinstance(raw, dict):
            raise PtoError("not a snapshot manifest (a JSON object)", file=path)
        for rel, value in raw.items():
            problem = _entry_problem(rel, value)
            if problem:
                raise PtoError(f"not a snapshot manifest: {problem}", file=path)
        return {rel: FileEntry(sha=v[0], mode=int(v[1]) & 0o777) for rel, v in raw.items()}

    def _blob(self, sha: str) -> bytes:
        return (self.objects / sha[:2] / sha).read_bytes()

    def changed_files(self, base: str) -> list[str]:
        """Paths (relative to the project root) that differ between base and the workspace now."""
        check_snapshot_id(base)
        return self._changed(base, self._now(base))

    def diff(self, base: str) -> str:
        """A unified diff (diff -u style, a/ and b/ prefixes) of the workspace against base."""
        check_snapshot_id(base)
        return self._diff(base, self._now(base))

    def changes(self, base: str) -> tuple[list[str], str]:
        """changed_files(base) and diff(base) from one look at the workspace (reading and
        hashing every file of a large workspace is the cost of each)."""
        check_snapshot_id(base)
        now = self._now(base)
        return self._changed(base, now), self._diff(base, now)

    def _now(self, base: str) -> str:
        """The workspace now, in base's kind: a git tree id, or an own snapshot id."""
        return self._git_tree() if base.startswith(GIT_PREFIX) else self.take()

    def _changed(self, base: str, now: str) -> list[str]:
        if base.startswith(GIT_PREFIX):
            out = self._git("diff", "--name-only", base[len(GIT_PREFIX) :], now)
            return [f"workspace/{line}" for line in out.splitlines() if line]
        old, new = self.manifest(base), self.manifest(now)
        changed = sorted(rel for rel in set(old) | set(new) if old.get(rel) != new.get(rel))
        return [f"workspace/{rel}" for rel in changed]

    def _diff(self, base: str, now: str) -> str:
        if base.startswith(GIT_PREFIX):
            return self._git_diff(base[len(GIT_PREFIX) :], now)
        old, new = self.manifest(base), self.manifest(now)
        parts: list[str] = []
        for rel in sorted(set(old) | set(new)):
            before, after = old.get(rel), new.get(rel)
            if before != after:
                parts.append(self._file_diff(f"workspace/{rel}", before, after))
        return "".join(parts)

    def _size(self, entry: FileEntry | None) -> int:
        return (self.objects / entry.sha[:2] / entry.sha).stat().st_size if entry else 0

    def _file_diff(self, name: str, before: FileEntry | None, after: FileEntry | None) -> str:
        if before and after and before.sha == after.sha:
            return f"diff -u a/{name} b/{name}\nold mode {before.mode:o}\nnew mode {after.mode:o}\n"
        sizes = (self._size(before), self._size(after))
        if max(sizes) > MAX_INLINED_BYTES:
            return not_inlined(name, *sizes)
        old_bytes = self._blob(before.sha) if before else b""
        new_bytes = self._blob(after.sha) if after else b""
        if b"\0" in old_bytes or b"\0" in new_bytes:
            return f"Binary files a/{name} and b/{name} differ ({sizes[0]} -> {sizes[1]} bytes)\n"
        old_lines = old_bytes.decode("utf-8", errors="replace").splitlines(keepends=True)
        new_lines = new_bytes.decode("utf-8", errors="replace").splitlines(keepends=True)
        diff_lines = difflib.unified_diff(
            old_lines,
            new_lines,
            fromfile=f"a/{name}" if before else "/dev/null",
            tofile=f"b/{name}" if after else "/dev/null",
        )
        return "".join(
            line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in diff_lines
        )

    def _git_diff(self, base: str, now: str) -> str:
        """git's diff of two trees, with files over MAX_INLINED_BYTES listed, not inlined."""
        sizes = self._git_sizes(base, now)
        large = sorted(rel for rel, pair in sizes.items() if max(pair) > MAX_INLINED_BYTES)
        excluded = [f":(exclude,literal){rel}" for rel in large]
        prefixes = ("--src-prefix=a/workspace/", "--dst-prefix=b/workspace/")
        text = self._git("diff", *prefixes, base, now, "--", ".", *excluded)
        return text + "".join(not_inlined(f"workspace/{rel}", *sizes[rel]) for rel in large)

    def _git_sizes(self, base: str, now: str) -> dict[str, tuple[int, int]]:
        """Changed paths with their old and new sizes in bytes (0: absent)."""
        raw = self._git("diff", "--raw", "-z", "--no-abbrev", "--no-renames", base, now).split("\0")
        changed: dict[str, tuple[str, str]] = {}
        for meta, rel in zip(raw[0::2], raw[1::2], strict=False):
            fields = meta.split()
            if len(fields) >= 4:
                changed[rel] = (fields[2], fields[3])
        shas = sorted({sha for pair in changed.values() for sha in pair if set(sha) != {"0"}})
        known: dict[str, int] = {}
        if shas:
            out = subprocess.run(
                ["git", "-C", str(self.workspace), "cat-file", "--batch-check=%(objectname) %(objectsize)"],
                input="\n".join(shas) + "\n",
                capture_output=True,
                text=True,
                check=False,
            ).stdout
            known = {
                line.split()[0]: int(line.split()[1]) for line in out.splitlines() if len(line.split()) == 2
            }
        return {rel: (known.get(a, 0), known.get(b, 0)) for rel, (a, b) in changed.items()}

    def copy_out(self, snap_id: str, folders: list[str], dest: Path, suffixes: tuple[str, ...]) -> None:
        """Write the snapshot's files under `folders` (relative to the workspace) whose names
        end with one of `suffixes` into `dest`, at the same relative paths (the workspace
        is untouched)."""

        def wanted(rel: str) -> bool:
            inside = any(rel == f or rel.startswith(f.rstrip("/") + "/") for f in folders)
            return inside and rel.endswith(suffixes)

        check_snapshot_id(snap_id)
        if snap_id.startswith(GIT_PREFIX):
            listing = self._git("ls-tree", "-r", "-z", snap_id[len(GIT_PREFIX) :], "--", *folders)
            for item in listing.split("\0"):
                meta, _, rel = item.partition("\t")
                if rel and meta.split()[1:2] == ["blob"] and wanted(rel):
                    data = self._git("cat-file", "blob", meta.split()[2])
                    atomic_write_text(dest / rel, data)
            return
        for rel, entry in self.manifest(snap_id).items():
            if wanted(rel):
                atomic_write_bytes(dest / rel, self._blob(entry.sha))

    def write_copy(self, snap_id: str, dest: Path) -> None:
        """Write every file of the snapshot, with its mode, under `dest` (an empty or new
        folder): a copy of the workspace as it was, the workspace itself untouched.
        Raises PtoError when the snapshot is not in the store."""
        check_snapshot_id(snap_id)
        dest.mkdir(parents=True, exist_ok=True)
        if snap_id.startswith(GIT_PREFIX):
            with tempfile.TemporaryDirectory() as tmp:
                env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
                self._git("read-tree", snap_id[len(GIT_PREFIX) :], env=env)
                self._git("checkout-index", "-a", f"--prefix={dest.resolve()}/", env=env)
            return
        for rel, entry in self.manifest(snap_id).items():
            try:
                data = self._blob(entry.sha)
            except FileNotFoundError:
                raise PtoError(f"snapshot {snap_id}: the content of {rel} is missing from the store",
                               file=self.objects) from None
            atomic_write_bytes(dest / rel, data)
            (dest / rel).chmod(entry.mode)

    # -------------------------------------------------------------- restoring

    def restore(self, snap_id: str) -> None:
        """Make the workspace equal to the snapshot (files not in it are removed)."""
        check_snapshot_id(snap_id)
        if snap_id.startswith(GIT_PREFIX):
            tree = snap_id[len(GIT_PREFIX) :]
            with tempfile.TemporaryDirectory() as tmp:
                env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
                self._git("read-tree", tree, env=env)
                self._git("checkout-index", "-a", "-f", env=env)
                # files present now but absent from the snapshot (ignored files stay)
                extra = self._git(*self._generated_excluded(Path(tmp)), "ls-files", "--others",
                                  "--exclude-standard", env=env)
            for rel in extra.splitlines():
                (self.workspace / rel).unlink(missing_ok=True)
            return
        manifest = self.manifest(snap_id)
        for rel in iter_workspace_files(self.workspace, self.excludes):
            if rel not in manifest:
                (self.workspace / rel).unlink()
        for rel, entry in manifest.items():
            path = self.workspace / rel
            if path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == entry.sha:
                if path.stat().st_mode & 0o777 != entry.mode:
                    path.chmod(entry.mode)
                continue
            atomic_write_bytes(path, self._blob(entry.sha))
            path.chmod(entry.mode)


    def restore_file(self, snap_id: str, rel: str) -> bool:
        """Put one workspace file (rel: relative to workspace/) back as the snapshot has
        it; a file the snapshot does not have is removed. False: it already was."""
        check_snapshot_id(snap_id)
        if any(part in ("", ".", "..") for part in rel.split("/")):
            raise PtoError(f"path {rel!r} leaves the workspace or is not normal")
        path = self.workspace / rel
        kept = self._file_of(snap_id, rel)
        if kept is None:
            if not path.exists():
                return False
            path.unlink()
            return True
        data, mode = kept
        if path.is_file() and path.read_bytes() == data and path.stat().st_mode & 0o777 == mode:
            return False
        atomic_write_bytes(path, data)
        path.chmod(mode)
        return True

    def _file_of(self, snap_id: str, rel: str) -> tuple[bytes, int] | None:
        """(content, mode) of one file in the snapshot, None when it has no such file."""
        if snap_id.startswith(GIT_PREFIX):
            listed = self._git("ls-tree", snap_id[len(GIT_PREFIX) :], "--", rel).split()
            if len(listed) < 3 or listed[1] != "blob":
                return None
            blob = subprocess.run(["git", "-C", str(self.workspace), "cat-file", "blob", listed[2]],
                                  capture_output=True, check=True)
            return blob.stdout, int(listed[0], 8) & 0o777
        entry = self.manifest(snap_id).get(rel)
        return None if entry is None else (self._blob(entry.sha), entry.mode)


def not_inlined(name: str, old_size: int, new_size: int) -> str:
    """patch.diff's line for a file too large to inline (sizes in bytes, 0: absent)."""
    return (
        f"Large file a/{name} and b/{name} differ ({old_size} -> {new_size} bytes); "
        f"not inlined (over {MAX_INLINED_BYTES} bytes)\n"
    )
