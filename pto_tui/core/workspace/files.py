"""Which workspace files count: shared by snapshots (patch.diff) and the remote sync.

Every pattern here is a path pattern (pto_tui.core.paths.patterns: .gitignore's rules),
relative to the folder walked: the workspace, or a repository's root when `new` copies it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from pto_tui.core.paths.patterns import gitignore_patterns, path_patterns

# Build products, VCS data and caches never count as workspace content.
DEFAULT_EXCLUDES: tuple[str, ...] = (
    ".git",
    ".hg",
    ".svn",
    "build",
    "build-*",
    "__pycache__",
    "*.pyc",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    "*.o",
    "*.so",
    "*.egg-info",
    ".venv",
    "node_modules",
    "**/bench/results*",  # benchmark output (pto-kernels runner), never source
    "**/bench/generated*",  # the runner's copy of its latest results
    "kernel_meta",  # compiler output of PTO kernels
)

# What `new` leaves out when it copies an operator's whole repository into the workspace,
# besides DEFAULT_EXCLUDES (which already leave out earlier benchmark results: stale
# reports must never be read as this campaign's) and whatever the repository's own
# .gitignore excludes.
REPOSITORY_EXCLUDES: tuple[str, ...] = (
    "dist",
    "extra-info",
    "*.whl",
)


def is_excluded(relpath: str, patterns: Iterable[str] = DEFAULT_EXCLUDES) -> bool:
    """True when the patterns name relpath (posix, relative; a folder may end in '/') or
    a folder above it."""
    return path_patterns(tuple(patterns)).matches(relpath)


def repository_excludes(root: Path) -> tuple[str, ...]:
    """Everything `new` leaves out of a repository copy: the repository's top-level
    .gitignore, then REPOSITORY_EXCLUDES and DEFAULT_EXCLUDES (last, so that no `!` line
    of the repository's takes them back)."""
    ignore = root / ".gitignore"
    own = gitignore_patterns(ignore.read_text(encoding="utf-8", errors="replace")) if ignore.is_file() else ()
    return own + REPOSITORY_EXCLUDES + DEFAULT_EXCLUDES


def copy_filter(root: Path, patterns: Iterable[str]) -> Callable[[str, list[str]], list[str]]:
    """An `ignore` callable for shutil.copytree(root / sub, ...): names whose path relative
    to root the patterns name (folders asked about as folders, with a trailing '/')."""
    rule = path_patterns(tuple(patterns))

    def ignored(folder: str, names: list[str]) -> list[str]:
        base = Path(folder).relative_to(root).as_posix()
        prefix = "" if base == "." else base + "/"
        return [n for n in names if rule.matches(prefix + n + ("/" if _is_folder(folder, n) else ""))]

    return ignored


def _is_folder(folder: str, name: str) -> bool:
    path = os.path.join(folder, name)
    return os.path.isdir(path) and not os.path.islink(path)


def iter_workspace_files(root: Path, patterns: Iterable[str] = DEFAULT_EXCLUDES) -> Iterator[str]:
    """Relative posix paths of the regular files under root that are not excluded, sorted;
    excluded folders are not entered."""
    rule = path_patterns(tuple(patterns))
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = Path(dirpath).relative_to(root).as_posix()
        prefix = "" if rel_dir == "." else rel_dir + "/"
        dirnames[:] = [d for d in dirnames if not rule.matches_entry(f"{prefix}{d}/")]
        for name in filenames:
            rel = prefix + name
            path = os.path.join(dirpath, name)
            if not rule.matches_entry(rel) and os.path.isfile(path) and not os.path.islink(path):
                found.append(rel)
    yield from sorted(found)
