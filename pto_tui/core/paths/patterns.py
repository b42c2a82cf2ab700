"""Path patterns: the one meaning of every list of paths pto-tui matches.

A round's editable scope and its protected files ([scope] in project.toml, and the scope
a round declares), the workspace excludes (built in, and a repository's .gitignore when
`new` copies it), the operator scan's .gitignore files and its own skip rules, and the
remote sync all match paths here, with git's .gitignore rules (the `pathspec` library's
GitIgnoreSpec): `*` stays within one folder, `**` crosses folders, a pattern without a
`/` (but a trailing one) matches at any depth, a trailing `/` means a folder, `!` takes
back. SYNTAX below says it in full; docs/project-toml.md prints it.

Paths are posix and relative to the folder the patterns are relative to (workspace/, a
repository's root, the folder holding a .gitignore). A folder is asked about with a
trailing `/`, so that a pattern ending in `/` can name it.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

from pto_tui.core.errors import InputError

# The rules, for people (docs/project-toml.md, "Path patterns").
SYNTAX: tuple[str, ...] = (
    "Every list of paths pto-tui matches reads its patterns as git reads a `.gitignore`: "
    "[scope] `protected` and `editable`, the files a round declares in its scope, the "
    "workspace files that are never synced or snapshot (build output, caches, version "
    "control), and a repository's `.gitignore` when `new` copies it or `scan` walks it. "
    "Patterns are relative to the folder the list belongs to: workspace/ for [scope] (a "
    "round's declared scope may also be written from the project root or from the "
    "operator folder).",
    "",
    "- `*` matches any characters but `/`, `?` one character but `/`, `[abc]` one of a set: "
    "`kernel/*.h` names `kernel/a.h`, not `kernel/sub/a.h`.",
    "- `**` crosses folders: `**/bench*.py` names `bench.py` and `a/b/bench_x.py`; "
    "`kernel/**` everything inside `kernel/`; `a/**/b` names `a/b` and `a/x/y/b`.",
    "- a pattern with no `/` (a trailing one aside) matches at any depth: `kernel.h` names "
    "`kernel.h` and `op/kernel.h`. A `/` at the start or in the middle anchors it to the "
    "folder the list belongs to: `/kernel.h` and `op/kernel.h` name one file each.",
    "- a pattern that names a folder names everything inside it; a trailing `/` names "
    "folders only: `build/` names `build/x.o` but not a file called `build`.",
    "- `!pattern` takes back what an earlier pattern named, but never a path inside a folder "
    "that stays named: write `bench/*` then `!bench/keep.py`, not `bench/` then "
    "`!bench/keep.py`.",
    "- blank lines and lines starting with `#` are skipped; `\\#` and `\\!` match a "
    "leading `#` or `!`.",
)


class PathPatterns:
    """A list of path patterns, compiled once. Matching is case-sensitive."""

    def __init__(self, patterns: Iterable[str]) -> None:
        self.patterns = tuple(patterns)
        for pattern in self.patterns:
            problem = pattern_problem(pattern)
            if problem:
                raise InputError(problem)
        self._spec = _spec(self.patterns)
        # only a negation can leave a path unnamed inside a named folder
        self._negates = any(p.startswith("!") for p in self.patterns)

    def __bool__(self) -> bool:
        return any(p.strip() and not p.startswith("#") for p in self.patterns)

    def matches(self, path: str) -> bool:
        """Whether the patterns name path (a file; a folder with a trailing '/'), or a folder
        above it: git never takes back a path inside a folder that stays named."""
        if self._negates:
            parts = path.rstrip("/").split("/")
            for depth in range(1, len(parts)):
                if self._spec.match_file("/".join(parts[:depth]) + "/"):
                    return True
        return self._spec.match_file(path)

    def matches_entry(self, path: str) -> bool:
        """Whether the patterns name path itself: for a walk that does not enter the folders
        they name, so that no folder above path is named."""
        return self._spec.match_file(path)

    def naming(self, path: str) -> str | None:
        """The pattern that names path itself (as matches_entry), for messages (slower:
        the patterns are tried one by one)."""
        result = self._spec.check_file(path)
        if not result.include or result.index is None:
            return None
        return str(self._spec.patterns[result.index].pattern)

    def plain_names(self) -> tuple[str, ...]:
        """Patterns that are a bare name (no '/'), when none takes anything back: those a
        remote `find -name ... -prune` may apply as they are (else none)."""
        if self._negates:
            return ()
        return tuple(p for p in self.patterns if p.strip() and "/" not in p and not p.startswith("#"))


def _spec(patterns: Iterable[str]) -> GitIgnoreSpec:
    # imported on first use: a read command that matches no path does not pay for it
    from pathspec import GitIgnoreSpec

    return GitIgnoreSpec.from_lines(patterns)


@lru_cache(maxsize=256)
def path_patterns(patterns: tuple[str, ...]) -> PathPatterns:
    """PathPatterns, cached: the same lists are matched for every file of every walk."""
    return PathPatterns(patterns)


def matches(path: str, patterns: Iterable[str]) -> bool:
    """Whether any of the patterns names path (see PathPatterns.matches)."""
    return path_patterns(tuple(patterns)).matches(path)


def pattern_problem(pattern: str) -> str | None:
    """Why a pattern cannot be read (None when it can)."""
    try:
        _spec([pattern])
    except ValueError as error:
        return f"not a path pattern: {pattern!r} ({error})"
    return None


def literal(path: str) -> str:
    """A pattern naming exactly the path (relative, posix; a folder with what it holds):
    anchored, with the characters patterns give a meaning to escaped."""
    escaped = "".join("\\" + c if c in "\\*?[" else c for c in path)
    return "/" + (escaped[:-1] + "\\ " if escaped.endswith(" ") else escaped)


def gitignore_patterns(text: str) -> tuple[str, ...]:
    """The pattern lines of a .gitignore, as git reads them: blank lines and comments are
    skipped by the patterns themselves; a line git cannot read either is left out, as
    git leaves it out, rather than refusing the whole repository."""
    return tuple(line for line in text.splitlines() if pattern_problem(line) is None)
