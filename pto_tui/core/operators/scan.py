"""Find candidate operators in a directory tree and classify them, with the evidence shown.

PTO-DSL: Python kernels importing ptodsl / pto_kernels / mlir.dialects.pto.
PTO-tile-lib: a CMakeLists.txt with C++ sources using <pto/pto-inst.hpp>, tile types
and PTO instructions. A marker file (pto-operator.toml) in the folder overrides both;
a folder showing both kinds is reported as mixed rather than guessed.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from pto_tui.core.errors import InputError
from pto_tui.core.project.config import Tunable
from pto_tui.core.vocabulary import OperatorKind
from pto_tui.core.workspace.files import DEFAULT_EXCLUDES, is_excluded

MARKER_FILE = "pto-operator.toml"
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
class CaseChoice:
    """A case the operator offers (WORKFLOW.md step 2)."""

    name: str
    spec: str = ""
    shape: dict[str, int | float | str | bool] = field(default_factory=dict)
    dtype: str = ""
    causal: bool = False


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


def read_marker(folder: Path) -> dict[str, object] | None:
    """The operator's own declaration, or None. Errors name the file and line."""
    marker = folder / MARKER_FILE
    if not marker.is_file():
        return None
    try:
        data = tomllib.loads(marker.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        line = re.search(r"line (\d+)", str(error))
        raise InputError(
            f"invalid TOML: {error}", file=marker, line=int(line.group(1)) if line else None
        ) from None
    kind = data.get("kind")
    if kind is not None:
        try:
            OperatorKind(str(kind))
        except ValueError:
            raise InputError(
                f"unknown kind {kind!r}; expected pto-dsl or pto-tile-lib", file=marker, key="kind"
            ) from None
    return data


def _marker_cases(data: dict[str, object], marker: Path) -> tuple[CaseChoice, ...]:
    raw = data.get("cases", [])
    if not isinstance(raw, list):
        raise InputError("'cases' must be an array of tables", file=marker, key="cases")
    cases = []
    for index, item in enumerate(raw):
        if not isinstance(item, dict) or "name" not in item:
            raise InputError("each case needs a 'name'", file=marker, key=f"cases[{index}]")
        shape = item.get("shape", {})
        cases.append(
            CaseChoice(
                name=str(item["name"]),
                spec=str(item.get("spec", "")),
                shape=dict(shape) if isinstance(shape, dict) else {},
                dtype=str(item.get("dtype", "")),
                causal=bool(item.get("causal", False)),
            )
        )
    return tuple(cases)


_COMMAND_KEYS = ("build", "correctness", "benchmark", "reference", "results")
_TUNABLE_KINDS = ("env", "constexpr", "template", "case")


def _marker_commands(data: dict[str, object], marker: Path) -> dict[str, str]:
    raw = data.get("commands", {})
    if not isinstance(raw, dict):
        raise InputError("'commands' must be a table", file=marker, key="commands")
    for key, value in raw.items():
        if key not in _COMMAND_KEYS or not isinstance(value, str):
            raise InputError(
                f"commands.{key}: expected one of {', '.join(_COMMAND_KEYS)} with a string",
                file=marker,
                key=f"commands.{key}",
            )
    return dict(raw)


def _marker_tunables(data: dict[str, object], marker: Path) -> tuple[Tunable, ...]:
    raw = data.get("tunables", {})
    if not isinstance(raw, dict):
        raise InputError("'tunables' must be a table", file=marker, key="tunables")
    found = []
    for name, entry in raw.items():
        key = f"tunables.{name}"
        if not isinstance(entry, dict) or "value" not in entry:
            raise InputError("a tunable needs at least 'value'", file=marker, key=key)
        kind = str(entry.get("kind", "env"))
        if kind not in _TUNABLE_KINDS:
            raise InputError(f"unknown kind {kind!r}", file=marker, key=f"{key}.kind")
        allowed = entry.get("allowed", [])
        if not isinstance(allowed, list) or (allowed and entry["value"] not in allowed):
            raise InputError("'value' must be one of 'allowed'", file=marker, key=f"{key}.value")
        found.append(
            Tunable(
                name=name,
                value=entry["value"],
                kind=kind,
                default=entry.get("default", entry["value"]),
                allowed=tuple(allowed),
                where=str(entry.get("where", MARKER_FILE)),
            )
        )
    return tuple(found)


def _bench_spec_cases(folder: Path) -> tuple[CaseChoice, ...]:
    """pto-kernels bench specs (bench/specs/<family>/<name>.yaml) are the DSL operator's cases."""
    specs = folder / "bench" / "specs"
    if not specs.is_dir():
        return ()
    return tuple(
        CaseChoice(name=p.stem, spec=p.relative_to(folder).as_posix())
        for p in sorted(specs.rglob("*.yaml"))
    )


def classify(folder: Path) -> Candidate | None:
    """Classify one folder; None when it shows no PTO evidence at all."""
    marker_data = read_marker(folder)
    dsl: list[str] = []
    dsl_files: list[str] = []
    cpp: list[str] = []
    cpp_files: list[str] = []
    has_cmake = (folder / "CMakeLists.txt").is_file()

    for path in _own_files(folder):
        rel = path.relative_to(folder).as_posix()
        if path.suffix in _PY_SUFFIXES and path.parent == folder:  # DSL kernels: own files only
            text = _read_head(path)
            if text and (found := _dsl_evidence(rel, text)):
                dsl.extend(found)
                dsl_files.append(rel)
        elif path.suffix in _CPP_SUFFIXES:
            text = _read_head(path)
            if text and (found := _cpp_evidence(rel, text)):
                cpp.extend(found)
                cpp_files.append(rel)

    tile_lib = has_cmake and bool(cpp)
    if tile_lib:
        cpp.insert(0, "CMakeLists.txt: CMake project")

    if marker_data is not None:
        kind_text = marker_data.get("kind")
        evidence = [f"{MARKER_FILE}: declares kind = {kind_text}"] if kind_text else []
        evidence += dsl + cpp
        kind = OperatorKind(str(kind_text)) if kind_text else None
        return Candidate(
            path=folder,
            name=str(marker_data.get("name", folder.name)),
            kind=kind,
            status="declared" if kind else "unclear",
            evidence=tuple(evidence),
            files=tuple(dsl_files + cpp_files),
            cases=_marker_cases(marker_data, folder / MARKER_FILE) or _bench_spec_cases(folder),
            demo=bool(marker_data.get("demo", False)),
            description=str(marker_data.get("description", "")),
            commands=_marker_commands(marker_data, folder / MARKER_FILE),
            tunables=_marker_tunables(marker_data, folder / MARKER_FILE),
        )

    if dsl and tile_lib:
        return Candidate(
            path=folder,
            name=folder.name,
            kind=None,
            status="mixed",
            evidence=tuple(
                ["both PTO-DSL and PTO-tile-lib evidence: choose the kind yourself"] + dsl + cpp
            ),
            files=tuple(dsl_files + cpp_files),
        )
    if dsl:
        return Candidate(
            path=folder,
            name=folder.name,
            kind=OperatorKind.PTO_DSL,
            status="detected",
            evidence=tuple(dsl),
            files=tuple(dsl_files),
            cases=_bench_spec_cases(folder),
        )
    if tile_lib:
        return Candidate(
            path=folder,
            name=folder.name,
            kind=OperatorKind.PTO_TILE_LIB,
            status="detected",
            evidence=tuple(cpp),
            files=tuple(cpp_files),
        )
    if cpp:  # PTO C++ without a CMake project: say so rather than guess
        return Candidate(
            path=folder,
            name=folder.name,
            kind=None,
            status="unclear",
            evidence=tuple(["PTO C++ sources but no CMakeLists.txt"] + cpp),
            files=tuple(cpp_files),
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
