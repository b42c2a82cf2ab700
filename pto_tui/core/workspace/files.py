"""Which workspace files count: shared by snapshots (patch.diff) and the remote sync."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Iterator
from pathlib import Path, PurePosixPath

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
    "*bench/results*",  # benchmark output (pto-kernels runner), never source
)


def is_excluded(relpath: str, patterns: Iterable[str] = DEFAULT_EXCLUDES) -> bool:
    """True when any component of relpath (posix, relative) matches a pattern,
    or the whole path matches a pattern containing '/'."""
    parts = PurePosixPath(relpath).parts
    for pattern in patterns:
        if "/" in pattern:
            if fnmatch.fnmatch(relpath, pattern):
                return True
        elif any(fnmatch.fnmatch(part, pattern) for part in parts):
            return True
    return False


def iter_workspace_files(root: Path, patterns: Iterable[str] = DEFAULT_EXCLUDES) -> Iterator[str]:
    """Relative posix paths of the regular files under root that are not excluded, sorted."""
    pattern_list = tuple(patterns)
    found: list[str] = []
    for path in root.rglob("*"):
        rel = path.relative_to(root).as_posix()
        if is_excluded(rel, pattern_list):
            continue
        if path.is_file() and not path.is_symlink():
            found.append(rel)
    yield from sorted(found)
