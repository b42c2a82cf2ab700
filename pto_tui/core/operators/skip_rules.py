"""Folders and files that are not operators, each rule with the reason it exists.

A folder rule takes the folder's path relative to the scan root (and whether it is a
Python package) and returns why the scan skips it, or None. The scan does not descend
into a skipped folder. A file rule says why a file's kernel definitions do not make its
folder an operator. All rules are pure: the scan gathers the facts they need.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath


@dataclass(frozen=True)
class Skipped:
    """A folder the scan left out, and why."""

    path: Path
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"path": str(self.path), "reason": self.reason}


FolderRule = Callable[[PurePosixPath, bool], str | None]


def _name_matches(rel: PurePosixPath, patterns: tuple[str, ...]) -> bool:
    return any(fnmatch.fnmatch(rel.name, p) for p in patterns)


def hidden_folder(rel: PurePosixPath, _package: bool) -> str | None:
    # .git, .github, .skills, .agent: tool settings and agent material, not sources
    return "hidden folder: tool settings or agent material" if rel.name.startswith(".") else None


def build_output(rel: PurePosixPath, _package: bool) -> str | None:
    # what a build or a Python install writes; rebuilding makes it again
    patterns = ("build", "build*", "kernel_meta", "__pycache__", "dist", "*.egg-info")
    return "build output: made by a build, not written by hand" if _name_matches(rel, patterns) else None


def bench_results(rel: PurePosixPath, _package: bool) -> str | None:
    # bench/results/<family>/<op>/<ts>/report.json: outputs of benchmark runs
    if rel.parent.name == "bench" and _name_matches(rel, ("results*", "generated", "reports")):
        return "benchmark results: outputs of runs"
    return None


def bench_adapters(rel: PurePosixPath, _package: bool) -> str | None:
    # bench/adapters/<impl>/<family>/<op>.py call an operator for the bench runner
    if "bench/adapters" in rel.as_posix() or rel.as_posix() == "adapters":
        return "benchmark adapters: they call an operator, they define none"
    return None


def tests_folder(rel: PurePosixPath, _package: bool) -> str | None:
    # tests define small kernels to check the DSL or call the operators: nothing to tune
    return "tests: they check operators, they are none" if _name_matches(rel, ("tests", "test")) else None


def scripts_folder(rel: PurePosixPath, _package: bool) -> str | None:
    # scripts/ hold tooling (tuning drivers, environment checks) that imports the operators
    return "scripts: tooling around the operators" if rel.name == "scripts" else None


def docs_folder(rel: PurePosixPath, _package: bool) -> str | None:
    return "documentation" if _name_matches(rel, ("docs", "doc", "doxygen")) else None


def vendored_folder(rel: PurePosixPath, _package: bool) -> str | None:
    # other projects' code (a pto-isa checkout, submodules): not this repository's operators
    patterns = ("external", "third_party", "3rdparty", "vendor")
    return "other projects' code, vendored or fetched" if _name_matches(rel, patterns) else None


def dsl_library(rel: PurePosixPath, package: bool) -> str | None:
    # pto-dsl's own `ptodsl` package defines @jit/@to_ir_module and library kernels
    if package and rel.name == "ptodsl":
        return "the PTO-DSL package itself: it provides the DSL, operators use it"
    return None


def helper_package(rel: PurePosixPath, _package: bool) -> str | None:
    # pto_kernels/utils (tuning.py defines tuned_int, env, distributed): used by operators
    if _name_matches(rel, ("utils", "util", "helpers")):
        return "shared helper modules: used by operators, not one"
    return None


FOLDER_RULES: tuple[FolderRule, ...] = (
    hidden_folder,
    build_output,
    bench_results,
    bench_adapters,
    tests_folder,
    scripts_folder,
    docs_folder,
    vendored_folder,
    dsl_library,
    helper_package,
)


def folder_skip_reason(rel: PurePosixPath, package: bool) -> str | None:
    """Why the scan skips this folder (relative to the scan root), or None."""
    if not rel.parts:
        return None  # the scan root itself is what the user asked about
    for rule in FOLDER_RULES:
        reason = rule(rel, package)
        if reason:
            return reason
    return None


def helper_module(name: str) -> str | None:
    # ops/common.py, ops/<family>/common.py: stages (@jit) built by the operators beside them
    if name in ("common.py", "utils.py", "util.py", "helpers.py") or name.endswith(
        ("_utils.py", "_util.py", "_common.py")
    ):
        return "a shared helper module"
    return None


def test_module(name: str) -> str | None:
    if fnmatch.fnmatch(name, "test_*.py") or name.endswith("_test.py") or name == "conftest.py":
        return "a test"
    return None


def file_skip_reason(name: str) -> str | None:
    """Why a Python file's kernel definitions do not count for its folder, or None."""
    return helper_module(name) or test_module(name)


@dataclass(frozen=True)
class IgnorePattern:
    """One directory-matching line of a .gitignore (negations are not followed)."""

    pattern: str
    anchored: bool  # held a '/' before its end: matched against the path from the .gitignore


def gitignore_patterns(text: str) -> tuple[IgnorePattern, ...]:
    """The patterns of a .gitignore that can name a folder."""
    found = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", "!")):
            continue
        line = line.rstrip("/")
        anchored = "/" in line
        found.append(IgnorePattern(line.lstrip("/").removeprefix("**/"), anchored))
    return tuple(found)


def ignored_folder(rel: PurePosixPath, patterns: tuple[IgnorePattern, ...]) -> str | None:
    """rel is relative to the folder holding the .gitignore."""
    for p in patterns:
        target = rel.as_posix() if p.anchored else rel.name
        if fnmatch.fnmatch(target, p.pattern):
            return f"ignored by .gitignore ({p.pattern}): generated or local files"
    return None
