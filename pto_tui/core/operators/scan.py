"""Find candidate operators in a directory tree and classify them, with the evidence shown.

PTO-DSL: Python kernels importing ptodsl / pto_kernels / mlir.dialects.pto.
PTO-tile-lib: a CMakeLists.txt with C++ sources using <pto/pto-inst.hpp>, tile types
and PTO instructions. A marker file (pto-operator.toml) in the folder overrides both;
a folder showing both kinds is reported as mixed rather than guessed.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from pto_tui.core.errors import InputError
from pto_tui.core.operators.marker import (
    MARKER_FILE,
    CaseChoice,
    marker_cases,
    marker_commands,
    marker_tunables,
    read_marker,
)
from pto_tui.core.project.config import Tunable
from pto_tui.core.vocabulary import OperatorKind
from pto_tui.core.workspace.files import DEFAULT_EXCLUDES, is_excluded

_READ_LIMIT = 512 * 1024  # evidence is near the top of a source file

_DSL_IMPORTS = (
    (re.compile(r"^\s*(from|import)\s+ptodsl\b", re.M), "imports ptodsl"),
    (re.compile(r"^\s*(from|import)\s+pto_kernels\b", re.M), "imports pto_kernels"),
    (
        re.compile(r"^\s*from\s+mlir\.dialects\s+import\s+[^\n]*\bpto\b", re.M),
        "imports mlir.dialects.pto",
    ),
    (re.compile(r"^\s*(from|import)\s+mlir\.dialects\.pto\b", re.M), "imports mlir.dialects.pto"),
)
_DSL_HINTS = (
    (re.compile(r"@jit\s*\("), "uses @jit(...)"),
    (re.compile(r"\btuned_int\s*\("), "reads tuned_int(...) knobs"),
)
_CPP_INCLUDE = re.compile(r"#\s*include\s*[<\"]pto/pto-inst\.hpp[>\"]")
_CPP_TILES = re.compile(r"\b(Tile<\s*TileType::\w+|TileLeft<|TileRight<|TileAcc<)")
_CPP_INSTRUCTIONS = re.compile(
    r"\b(TLOAD|TSTORE|TMATMUL|TEXP|TROWMAX|TROWSUM|TADD|TMUL|TASSIGN|TCVT)\s*\("
)
_PY_SUFFIXES = {".py"}
_CPP_SUFFIXES = {".cpp", ".hpp", ".h", ".cc", ".cxx", ".hh"}


@dataclass(frozen=True)
class Candidate:
    path: Path
    name: str
    kind: OperatorKind | None  # None when mixed or unclear
    status: str  # declared | detected | mixed | unclear
    evidence: tuple[str, ...]
    files: tuple[str, ...]  # the files the evidence was found in, relative to path
    cases: tuple[CaseChoice, ...] = ()
    demo: bool = False
    description: str = ""
    commands: dict[str, str] = field(default_factory=dict)  # declared in the marker
    tunables: tuple[Tunable, ...] = ()  # declared in the marker (win over discovered ones)

    def to_json(self) -> dict[str, object]:
        return {
            "path": str(self.path),
            "name": self.name,
            "kind": self.kind.value if self.kind else None,
            "status": self.status,
            "evidence": list(self.evidence),
            "files": list(self.files),
            "cases": [c.__dict__ for c in self.cases],
            "demo": self.demo,
            "description": self.description,
            "commands": self.commands,
            "tunables": [t.name for t in self.tunables],
        }


@dataclass
class ScanResult:
    root: Path
    candidates: list[Candidate]
    warnings: list[str]


def _read_head(path: Path) -> str | None:
    try:
        with path.open("rb") as handle:
            data = handle.read(_READ_LIMIT)
    except OSError:
        return None
    if b"\0" in data:
        return None
    return data.decode("utf-8", errors="replace")


def _line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def _dsl_evidence(rel: str, text: str) -> list[str]:
    found = []
    for pattern, what in _DSL_IMPORTS:
        match = pattern.search(text)
        if match:
            found.append(f"{rel}:{_line_of(text, match.start())}: {what}")
    if found:
        for pattern, what in _DSL_HINTS:
            match = pattern.search(text)
            if match:
                found.append(f"{rel}:{_line_of(text, match.start())}: {what}")
    return found


def _cpp_evidence(rel: str, text: str) -> list[str]:
    found = []
    match = _CPP_INCLUDE.search(text)
    if match:
        found.append(f"{rel}:{_line_of(text, match.start())}: includes pto/pto-inst.hpp")
    match = _CPP_TILES.search(text)
    if match:
        found.append(
            f"{rel}:{_line_of(text, match.start())}: uses tile type {match.group(1).rstrip('<')}"
        )
    names = sorted(set(_CPP_INSTRUCTIONS.findall(text)))
    if names and found:
        found.append(f"{rel}: PTO instructions {', '.join(names[:6])}")
    return found


def _bench_spec_cases(folder: Path) -> tuple[CaseChoice, ...]:
    """pto-kernels bench specs (bench/specs/<family>/<name>.yaml) are the DSL operator's cases."""
    specs = folder / "bench" / "specs"
    if not specs.is_dir():
        return ()
    return tuple(
        CaseChoice(name=p.stem, spec=p.relative_to(folder).as_posix())
        for p in sorted(specs.rglob("*.yaml"))
    )


@dataclass
class _Evidence:
    """What a folder's own sources show: PTO-DSL kernels, PTO C++ and a CMake project."""

    dsl: list[str] = field(default_factory=list)
    dsl_files: list[str] = field(default_factory=list)
    cpp: list[str] = field(default_factory=list)
    cpp_files: list[str] = field(default_factory=list)
    tile_lib: bool = False

    @property
    def files(self) -> tuple[str, ...]:
        return tuple(self.dsl_files + self.cpp_files)


def _gather_evidence(folder: Path) -> _Evidence:
    found_in = _Evidence()
    has_cmake = (folder / "CMakeLists.txt").is_file()
    for path in _own_files(folder):
        rel = path.relative_to(folder).as_posix()
        if path.suffix in _PY_SUFFIXES and path.parent == folder:  # DSL kernels: own files only
            text = _read_head(path)
            if text and (found := _dsl_evidence(rel, text)):
                found_in.dsl.extend(found)
                found_in.dsl_files.append(rel)
        elif path.suffix in _CPP_SUFFIXES:
            text = _read_head(path)
            if text and (found := _cpp_evidence(rel, text)):
                found_in.cpp.extend(found)
                found_in.cpp_files.append(rel)
    found_in.tile_lib = has_cmake and bool(found_in.cpp)
    if found_in.tile_lib:
        found_in.cpp.insert(0, "CMakeLists.txt: CMake project")
    return found_in


def classify(folder: Path) -> Candidate | None:
    """Classify one folder; None when it shows no PTO evidence at all."""
    marker_data = read_marker(folder)
    evidence = _gather_evidence(folder)
    if marker_data is not None:
        return _declared_candidate(folder, marker_data, evidence)
    return _detected_candidate(folder, evidence)


def _declared_candidate(folder: Path, marker_data: dict[str, object], found: _Evidence) -> Candidate:
    """A folder with a pto-operator.toml: the marker decides, the sources only add evidence."""
    marker = folder / MARKER_FILE
    kind_text = marker_data.get("kind")
    evidence = [f"{MARKER_FILE}: declares kind = {kind_text}"] if kind_text else []
    evidence += found.dsl + found.cpp
    kind = OperatorKind(str(kind_text)) if kind_text else None
    return Candidate(
        path=folder,
        name=str(marker_data.get("name", folder.name)),
        kind=kind,
        status="declared" if kind else "unclear",
        evidence=tuple(evidence),
        files=found.files,
        cases=marker_cases(marker_data, marker) or _bench_spec_cases(folder),
        demo=bool(marker_data.get("demo", False)),
        description=str(marker_data.get("description", "")),
        commands=marker_commands(marker_data, marker),
        tunables=marker_tunables(marker_data, marker),
    )


def _detected_candidate(folder: Path, found: _Evidence) -> Candidate | None:
    """A folder without a marker, classified by its sources alone."""
    dsl, cpp = found.dsl, found.cpp
    if dsl and found.tile_lib:
        mixed = ["both PTO-DSL and PTO-tile-lib evidence: choose the kind yourself"]
        return Candidate(
            path=folder,
            name=folder.name,
            kind=None,
            status="mixed",
            evidence=tuple(mixed + dsl + cpp),
            files=found.files,
        )
    if dsl:
        return Candidate(
            path=folder,
            name=folder.name,
            kind=OperatorKind.PTO_DSL,
            status="detected",
            evidence=tuple(dsl),
            files=tuple(found.dsl_files),
            cases=_bench_spec_cases(folder),
        )
    if found.tile_lib:
        return Candidate(
            path=folder,
            name=folder.name,
            kind=OperatorKind.PTO_TILE_LIB,
            status="detected",
            evidence=tuple(cpp),
            files=tuple(found.cpp_files),
        )
    if cpp:  # PTO C++ without a CMake project: say so rather than guess
        return Candidate(
            path=folder,
            name=folder.name,
            kind=None,
            status="unclear",
            evidence=tuple(["PTO C++ sources but no CMakeLists.txt"] + cpp),
            files=tuple(found.cpp_files),
        )
    return None


def _own_files(folder: Path, depth: int = 2) -> list[Path]:
    """Files of the folder and of its sub-folders that are not operators of their own."""
    out: list[Path] = []
    try:
        entries = sorted(folder.iterdir())
    except OSError:
        return out
    for entry in entries:
        if is_excluded(entry.name, DEFAULT_EXCLUDES):
            continue
        if entry.is_file():
            out.append(entry)
        elif entry.is_dir() and depth > 1 and not _is_own_operator(entry):
            out.extend(_own_files(entry, depth - 1))
    return out


def _is_own_operator(folder: Path) -> bool:
    return (folder / MARKER_FILE).is_file() or (folder / "CMakeLists.txt").is_file()


def scan(root: Path, max_depth: int = 8) -> ScanResult:
    """Walk root and list candidate operators. An empty or unreadable root is an InputError."""
    root = root.expanduser()
    if not root.exists():
        raise InputError(f"no such directory: {root}")
    if not root.is_dir():
        raise InputError(f"not a directory: {root}")
    if not os.access(root, os.R_OK | os.X_OK):
        raise InputError(f"cannot read directory: {root} (permission denied)")
    try:
        if not any(root.iterdir()):
            raise InputError(
                f"directory is empty: {root}",
                hint="point the scan at a folder holding operator sources",
            )
    except PermissionError:
        raise InputError(f"cannot read directory: {root} (permission denied)") from None

    warnings: list[str] = []
    candidates: list[Candidate] = []
    claimed: list[Path] = []  # a classified DSL/tile-lib folder owns its sub-folders

    def on_error(error: OSError) -> None:
        warnings.append(f"cannot read {error.filename}: {error.strerror}")

    root_depth = len(root.parts)
    for dirpath, dirnames, _filenames in os.walk(root, onerror=on_error):
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if not is_excluded(d, DEFAULT_EXCLUDES))
        if len(here.parts) - root_depth >= max_depth:
            dirnames[:] = []
        if any(here.is_relative_to(c) and here != c for c in claimed):
            continue
        if not os.access(here, os.R_OK):
            continue
        try:
            candidate = classify(here)
        except InputError as error:  # a broken marker file: report it, keep scanning
            warnings.append(error.render())
            continue
        if candidate is None:
            continue
        candidates.append(candidate)
        if candidate.status in ("declared", "mixed") or candidate.kind is OperatorKind.PTO_TILE_LIB:
            claimed.append(here)
    return ScanResult(root=root, candidates=candidates, warnings=warnings)
