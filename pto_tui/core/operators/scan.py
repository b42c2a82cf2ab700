"""Find the operators in a directory tree and classify them, with the evidence shown.

Each operator kind reads a folder's own files for its evidence (`kinds/<kind>.py`: a
Python file that defines a PTO-DSL kernel; a CMakeLists.txt with PTO C++). A marker file
(pto-operator.toml) in the folder overrides them; a folder showing several kinds is
reported as mixed rather than guessed. Folders that
are not operators (results, tests, scripts, adapters, the DSL library...; skip_rules.py)
are not entered, and every folder left out is listed with the reason.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from pto_tui.core.errors import InputError
from pto_tui.core.operators.candidate import Candidate
from pto_tui.core.operators.kinds.pto_dsl import bench_spec_cases
from pto_tui.core.operators.kinds.registry import SOURCE_KINDS, source_kind
from pto_tui.core.operators.kinds.spec import KindEvidence
from pto_tui.core.operators.marker import (
    MARKER_FILE,
    marker_cases,
    marker_commands,
    marker_perf_sim_driver,
    marker_repository,
    marker_result,
    marker_sources,
    marker_tunables,
    read_marker,
)
from pto_tui.core.operators.nesting import Found, fold_nested
from pto_tui.core.operators.skip_rules import Skipped, folder_skip_reason
from pto_tui.core.paths.patterns import PathPatterns, gitignore_patterns
from pto_tui.core.project.kinds.registry import project_kind
from pto_tui.core.vocabulary import OperatorKind
from pto_tui.core.workspace.files import DEFAULT_EXCLUDES, is_excluded
from pto_tui.core.workspace.secrets import is_secret_folder, refuse_secret


@dataclass
class ScanResult:
    root: Path
    candidates: list[Candidate]
    warnings: list[str]
    skipped: list[Skipped] = field(default_factory=list)


@dataclass
class _Evidence:
    """What a folder's own sources show, read by each kind (in the registry's order)."""

    by_kind: dict[OperatorKind, KindEvidence]

    @property
    def lines(self) -> list[str]:
        return [line for found in self.by_kind.values() for line in found.lines]

    @property
    def files(self) -> tuple[str, ...]:
        return tuple(rel for found in self.by_kind.values() for rel in found.files)

    @property
    def not_counted(self) -> list[str]:
        return [why for found in self.by_kind.values() for why in found.not_counted]

    @property
    def modules(self) -> set[str]:
        return {m for found in self.by_kind.values() for m in found.modules}


def _gather_evidence(folder: Path) -> _Evidence:
    files = _own_files(folder)
    return _Evidence({kind: spec.gather(folder, files) for kind, spec in SOURCE_KINDS.items()})


def classify(folder: Path) -> Candidate | None:
    """Classify one folder; None when it shows no PTO evidence at all."""
    return _classify(folder)[0]


def _classify(folder: Path) -> tuple[Candidate | None, _Evidence]:
    marker_data = read_marker(folder)
    evidence = _gather_evidence(folder)
    if marker_data is not None:
        return _declared_candidate(folder, marker_data, evidence), evidence
    return _detected_candidate(folder, evidence), evidence


def _declared_candidate(folder: Path, marker_data: dict[str, object], found: _Evidence) -> Candidate:
    """A folder with a pto-operator.toml: the marker decides, the sources only add evidence."""
    marker = folder / MARKER_FILE
    marker_perf_sim_driver(marker_data, marker)  # checked with the rest; read when a perf-sim build runs
    kind_text = marker_data.get("kind")
    evidence = [f"{MARKER_FILE}: declares kind = {kind_text}"] if kind_text else []
    evidence += found.lines
    kind = OperatorKind(str(kind_text)) if kind_text else None
    return Candidate(
        path=folder,
        name=str(marker_data.get("name", folder.name)),
        kind=kind,
        status="declared" if kind else "unclear",
        evidence=tuple(evidence),
        files=found.files,
        cases=marker_cases(marker_data, marker) or bench_spec_cases(folder),
        demo=bool(marker_data.get("demo", False)),
        description=str(marker_data.get("description", "")),
        commands=marker_commands(marker_data, marker),
        tunables=marker_tunables(marker_data, marker),
        result=marker_result(marker_data),
        repository=marker_repository(marker_data),
        sources=marker_sources(marker_data),
        generated=marker_sources(marker_data, "generated"),
    )


def _detected_candidate(folder: Path, found: _Evidence) -> Candidate | None:
    """A folder without a marker, classified by its sources alone: one kind's evidence
    decides; several kinds' make it mixed; evidence short of a kind makes it unclear."""
    kinds = [kind for kind, evidence in found.by_kind.items() if evidence.found]
    if len(kinds) > 1:
        labels = " and ".join(project_kind(kind).label for kind in kinds)
        return Candidate(
            path=folder,
            name=folder.name,
            kind=None,
            status="mixed",
            evidence=tuple([f"both {labels} evidence: choose the kind yourself", *found.lines]),
            files=found.files,
        )
    if kinds:
        kind, evidence = kinds[0], found.by_kind[kinds[0]]
        return Candidate(
            path=folder,
            name=folder.name,
            kind=kind,
            status="detected",
            evidence=tuple(evidence.lines),
            files=tuple(evidence.files),
            cases=source_kind(kind).cases(folder),
        )
    partial = next((evidence for evidence in found.by_kind.values() if evidence.unclear), None)
    if partial is not None:
        return Candidate(
            path=folder,
            name=folder.name,
            kind=None,
            status="unclear",
            evidence=tuple([partial.unclear, *partial.lines]),
            files=tuple(partial.files),
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
    """A sub-folder with a marker, or with a kind's project file (a CMakeLists.txt)."""
    if (folder / MARKER_FILE).is_file():
        return True
    return any(spec.project_file and (folder / spec.project_file).is_file() for spec in SOURCE_KINDS.values())


def _checked_root(root: Path) -> Path:
    """root, or an InputError naming why it cannot be scanned."""
    root = root.expanduser()
    refuse_secret(root, "scan folder")
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
    return root


@dataclass
class _Walk:
    """The scan's state while it walks the tree."""

    root: Path
    warnings: list[str] = field(default_factory=list)
    found: list[Found] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    ignores: dict[Path, PathPatterns] = field(default_factory=dict)

    def read_gitignore(self, folder: Path) -> None:
        try:
            text = (folder / ".gitignore").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return
        self.ignores[folder] = PathPatterns(gitignore_patterns(text))

    def skip_reason(self, child: Path) -> str | None:
        if is_secret_folder(child):
            return "a folder of secrets (keys, credentials): never scanned"
        rel = PurePosixPath(child.relative_to(self.root).as_posix())
        reason = folder_skip_reason(rel, (child / "__init__.py").is_file())
        for base, patterns in self.ignores.items():
            if reason is None and child.is_relative_to(base):
                # each .gitignore on its own, relative to its folder; the walk does not
                # enter an ignored folder, so only the child itself is asked about
                pattern = patterns.naming(child.relative_to(base).as_posix() + "/")
                if pattern is not None:
                    reason = f"ignored by .gitignore ({pattern}): generated or local files"
        return reason

    def visit(self, here: Path) -> bool:
        """Classify one folder; True when it owns its sub-folders (no need to walk them)."""
        try:
            candidate, evidence = _classify(here)
        except InputError as error:  # a broken marker file: report it, keep scanning
            self.warnings.append(error.render())
            return False
        if candidate is None:
            if evidence.not_counted:
                self.skipped.append(
                    Skipped(here, "no operator: its kernels are in " + "; ".join(evidence.not_counted))
                )
            return False
        self.found.append(Found(candidate, frozenset(evidence.modules)))
        owned = candidate.kind is not None and source_kind(candidate.kind).owns_subfolders
        return candidate.status in ("declared", "mixed") or owned


def _repository_gitignores(walk: _Walk) -> None:
    """The .gitignore files above the scan root, up to the repository's top (its .git)."""
    for folder in walk.root.parents:
        if (folder / ".gitignore").is_file():
            walk.read_gitignore(folder)
        if (folder / ".git").exists():
            return
    walk.ignores.clear()  # not inside a repository: those files are not its rules


def scan(root: Path, max_depth: int = 8) -> ScanResult:
    """Walk root and list the operators. An empty or unreadable root is an InputError."""
    walk = _Walk(_checked_root(root))
    if not (walk.root / ".git").exists():
        _repository_gitignores(walk)

    def on_error(error: OSError) -> None:
        walk.warnings.append(f"cannot read {error.filename}: {error.strerror}")

    root_depth = len(walk.root.parts)
    for dirpath, dirnames, filenames in os.walk(walk.root, onerror=on_error):
        here = Path(dirpath)
        if ".gitignore" in filenames:
            walk.read_gitignore(here)
        owns_children = os.access(here, os.R_OK) and walk.visit(here)
        if owns_children or len(here.parts) - root_depth >= max_depth:
            dirnames[:] = []
            continue
        kept = []
        for name in sorted(dirnames):
            # a named rule first, so a build output is reported even when the workspace
            # rules (version control, caches, build folders) would drop it silently
            reason = walk.skip_reason(here / name)
            if reason:
                walk.skipped.append(Skipped(here / name, reason))
            elif not is_excluded(name, DEFAULT_EXCLUDES):
                kept.append(name)
        dirnames[:] = kept
    candidates, left_out = fold_nested(walk.found, walk.root)
    return ScanResult(walk.root, candidates, walk.warnings, sorted(walk.skipped + left_out, key=_by_path))


def _by_path(skipped: Skipped) -> str:
    return str(skipped.path)
