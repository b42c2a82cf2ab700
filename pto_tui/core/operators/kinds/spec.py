"""The source part of an operator kind: what the scan, `new` and the workload checks ask."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pto_tui.core.operators.marker import CaseChoice
from pto_tui.core.operators.repository import OperatorInRepository
from pto_tui.core.operators.tilelib_repository import TileLibRepository
from pto_tui.core.project.config import ResultConfig, Tunable
from pto_tui.core.vocabulary import OperatorKind, TargetMode


@dataclass
class KindEvidence:
    """What one kind's reading of a folder's own files found."""

    lines: list[str] = field(default_factory=list)  # "file:line: what it shows"
    files: list[str] = field(default_factory=list)  # the files that show it
    found: bool = False  # enough to classify the folder as this kind
    unclear: str = ""  # evidence short of a classification, and why
    not_counted: list[str] = field(default_factory=list)  # "common.py: a shared helper module"
    modules: set[str] = field(default_factory=set)  # what its kernel files import from


def no_cases(_folder: Path) -> tuple[CaseChoice, ...]:
    return ()


def no_package(_source: Path) -> OperatorInRepository | None:
    return None


def no_build_repository(_source: Path) -> TileLibRepository | None:
    return None


def no_commands(_source: Path, _defaults: Mapping[str, str], _mode: TargetMode) -> dict[str, tuple[str, str]]:
    return {}


def any_mode(_source: Path, _mode: TargetMode) -> str:
    return ""


def no_perf_sim(_source: Path, _entry: str) -> str:
    return "no perf_sim driver for this kind of operator"


@dataclass(frozen=True)
class ResultChoice:
    """How a new project reads a run's result, where that was seen, and why pto-tui cannot
    time or judge a run of it ("" when it can)."""

    result: ResultConfig = ResultConfig()
    origin: str = ""
    problem: str = ""
    hint: str = ""  # what to declare, when it is not the [result] alone


def own_report(_source: Path, _mode: TargetMode) -> ResultChoice:
    return ResultChoice()


@dataclass(frozen=True)
class KindSource:
    kind: OperatorKind
    # the scan: the evidence of a folder's own files (those of its sub-folders that are not
    # operators of their own included)
    gather: Callable[[Path, list[Path]], KindEvidence]
    tunables: Callable[[Path], list[Tunable]]  # the tunables found in an operator folder
    cases: Callable[[Path], tuple[CaseChoice, ...]] = no_cases  # those listed beside it
    owns_subfolders: bool = False  # its sub-folders are part of it: the scan does not enter them
    project_file: str = ""  # a sub-folder holding this file is an operator of its own
    kernels_imported: bool = False  # a folder whose kernels another one imports is a shared helper
    # the workload reads of its source include the case fields its C++ entry template is
    # instantiated with (besides the shape knobs read from the environment)
    case_reads_in_source: bool = False
    # `new`: the Python package repository the operator is a module of (its runner, bench
    # specs and variants), or the repository whose folders its build reaches (copied with it)
    package_repository: Callable[[Path], OperatorInRepository | None] = no_package
    build_repository: Callable[[Path], TileLibRepository | None] = no_build_repository
    # commands made for this operator folder from its defaults: (command, origin) by key
    found_commands: Callable[[Path, Mapping[str, str], TargetMode], dict[str, tuple[str, str]]] = no_commands
    # why the operator folder cannot be built in a target mode ("" when it can)
    mode_problem: Callable[[Path, TargetMode], str] = any_mode
    # why pto-isa's perf_sim cannot measure the operator folder's case-string entry (its
    # checkout, its driver); "" when it can
    perf_sim_problem: Callable[[Path, str], str] = no_perf_sim
    # how its runs are timed and judged, read from its sources for a mode (its driver's output)
    result_for: Callable[[Path, TargetMode], ResultChoice] = own_report
    # the tolerances its runner judges correctness by, from a bench spec in the workspace copy
    runner_tolerances: Callable[[Path, str], Mapping[str, float]] | None = None
