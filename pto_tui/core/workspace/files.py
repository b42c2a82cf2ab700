"""Which workspace files count: shared by snapshots (patch.diff) and the remote sync."""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Callable, Iterable, Iterator
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
    "*bench/generated*",  # the runner's copy of its latest results
    "kernel_meta",  # compiler output of PTO kernels
)

# What `new` leaves out when it copies an operator's whole repository into the workspace,
# besides DEFAULT_EXCLUDES: build outputs and results of earlier runs (stale reports must
# never be read as this campaign's), and whatever the repository's own .gitignore
# excludes (see gitignore_patterns for the subset understood).
REPOSITORY_EXCLUDES: tuple[str, ...] = (
    "bench/results*",  # (a pattern with '/' matches the whole path: '*' spans folders)
    "bench/generated*",
    "dist",
    "extra-info",
    "*.whl",
)


def is_excluded(relpath: str, patterns: Iterable[str] = DEFAULT_EXCLUDES) -> bool:
    """True when any component of relpath (posix, relative) matches a pattern,
    or the whole path matches a pattern containing '/'."""
    by_part, by_path = _matchers(patterns if isinstance(patterns, tuple) else tuple(patterns))
    if by_path is not None and by_path.match(relpath):
        return True
    return by_part is not None and any(by_part.match(part) for part in PurePosixPath(relpath).parts)


@functools.lru_cache(maxsize=64)
def _matchers(patterns: tuple[str, ...]) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None]:
    """The patterns as two regular expressions (what fnmatch.fnmatch does on posix, made
    once: this runs for every workspace file at every snapshot): one for the patterns
    matched against each path component, one for those with '/' against the whole path."""

    def joined(group: list[str]) -> re.Pattern[str] | None:
        return re.compile("|".join(fnmatch.translate(p) for p in group)) if group else None

    return (
        joined([p for p in patterns if "/" not in p]),
        joined([p for p in patterns if "/" in p]),
    )


def gitignore_patterns(text: str) -> tuple[str, ...]:
    """A .gitignore as is_excluded patterns, relative to the repository root.

    Understood: blank lines and `#` comments (skipped), a trailing `/` (dropped: files
    and folders alike are left out), a leading `/` or an inner `/` (anchored at the root:
    the path and everything below it), otherwise a name matched against every path
    component. Negations (`!pattern`) cannot re-include anything here and are skipped,
    so a negated file is left out with its folder: copying less is the safe side.
    """
    patterns: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", "!")):
            continue
        line = line.rstrip("/")
        if "/" in line:
            anchored = line.lstrip("/")
            patterns += [anchored, f"{anchored}/*"]
        elif line:
            patterns.append(line)
    return tuple(patterns)


def repository_excludes(root: Path) -> tuple[str, ...]:
    """Everything `new` leaves out of a repository copy: DEFAULT_EXCLUDES,
    REPOSITORY_EXCLUDES and the repository's top-level .gitignore."""
    ignore = root / ".gitignore"
    own = gitignore_patterns(ignore.read_text(encoding="utf-8", errors="replace")) if ignore.is_file() else ()
    return DEFAULT_EXCLUDES + REPOSITORY_EXCLUDES + own


def copy_filter(root: Path, patterns: Iterable[str]) -> Callable[[str, list[str]], list[str]]:
    """An `ignore` callable for shutil.copytree(root, ...): names whose path relative to
    root is excluded by the patterns."""
    pattern_list = tuple(patterns)

    def ignored(folder: str, names: list[str]) -> list[str]:
        base = Path(folder).relative_to(root)
        return [n for n in names if is_excluded((base / n).as_posix(), pattern_list)]

    return ignored


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
