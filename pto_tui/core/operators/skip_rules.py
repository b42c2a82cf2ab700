"""Folders and files that are not operators, each rule with the reason it exists.

A folder rule takes the folder's path relative to the scan root (and whether it is a
Python package) and returns why the scan skips it, or None. The scan does not descend
into a skipped folder. A file rule says why a file's kernel definitions do not make its
folder an operator. All rules are pure: the scan gathers the facts they need. Names are
matched as path patterns (pto_tui.core.paths.patterns), like every other path list.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from pto_tui.core.paths.patterns import path_patterns


@dataclass(frozen=True)
class Skipped:
    """A folder the scan left out, and why."""

    path: Path
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"path": str(self.path), "reason": self.reason}


FolderRule = Callable[[PurePosixPath, bool], str | None]


def _folder_matches(rel: PurePosixPath, patterns: tuple[str, ...]) -> bool:
    """Whether the patterns name the folder rel (relative to the scan root); the scan does
    not enter the folders they name, so only rel itself is asked about."""
    return path_patterns(patterns).matches_entry(rel.as_posix() + "/")


def hidden_folder(rel: PurePosixPath, _package: bool) -> str | None:
    # .git, .github, .skills, .agent: tool settings and agent material, not sources
    return "hidden folder: tool settings or agent material" if rel.name.startswith(".") else None


def build_output(rel: PurePosixPath, _package: bool) -> str | None:
    # what a build or a Python install writes; rebuilding makes it again
    patterns = ("build*/", "kernel_meta/", "__pycache__/", "dist/", "*.egg-info/")
    return "build output: made by a build, not written by hand" if _folder_matches(rel, patterns) else None


def bench_results(rel: PurePosixPath, _package: bool) -> str | None:
    # bench/results/<family>/<op>/<ts>/report.json: outputs of benchmark runs
    if _folder_matches(rel, ("**/bench/results*/", "**/bench/generated/", "**/bench/reports/")):
        return "benchmark results: outputs of runs"
    return None


def bench_adapters(rel: PurePosixPath, _package: bool) -> str | None:
    # bench/adapters/<impl>/<family>/<op>.py call an operator for the bench runner
    if _folder_matches(rel, ("**/bench/adapters/", "/adapters/")):
        return "benchmark adapters: they call an operator, they define none"
    return None


def tests_folder(rel: PurePosixPath, _package: bool) -> str | None:
    # tests define small kernels to check the DSL or call the operators: nothing to tune
    return "tests: they check operators, they are none" if _folder_matches(rel, ("tests/", "test/")) else None


def scripts_folder(rel: PurePosixPath, _package: bool) -> str | None:
    # scripts/ hold tooling (tuning drivers, environment checks) that imports the operators
    return "scripts: tooling around the operators" if rel.name == "scripts" else None


def docs_folder(rel: PurePosixPath, _package: bool) -> str | None:
    return "documentation" if _folder_matches(rel, ("docs/", "doc/", "doxygen/")) else None


def vendored_folder(rel: PurePosixPath, _package: bool) -> str | None:
    # other projects' code (a pto-isa checkout, submodules): not this repository's operators
    patterns = ("external/", "third_party/", "3rdparty/", "vendor/")
    return "other projects' code, vendored or fetched" if _folder_matches(rel, patterns) else None


def dsl_library(rel: PurePosixPath, package: bool) -> str | None:
    # pto-dsl's own `ptodsl` package defines @jit/@to_ir_module and library kernels
    if package and rel.name == "ptodsl":
        return "the PTO-DSL package itself: it provides the DSL, operators use it"
    return None


def helper_package(rel: PurePosixPath, _package: bool) -> str | None:
    # pto_kernels/utils (tuning.py defines tuned_int, env, distributed): used by operators
    if _folder_matches(rel, ("utils/", "util/", "helpers/")):
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


_HELPER_MODULES = ("common.py", "utils.py", "util.py", "helpers.py", "*_utils.py", "*_util.py", "*_common.py")


def helper_module(name: str) -> str | None:
    # ops/common.py, ops/<family>/common.py: stages (@jit) built by the operators beside them
    return "a shared helper module" if path_patterns(_HELPER_MODULES).matches_entry(name) else None


def test_module(name: str) -> str | None:
    return "a test" if path_patterns(("test_*.py", "*_test.py", "conftest.py")).matches_entry(name) else None


def file_skip_reason(name: str) -> str | None:
    """Why a Python file's kernel definitions do not count for its folder, or None."""
    return helper_module(name) or test_module(name)
