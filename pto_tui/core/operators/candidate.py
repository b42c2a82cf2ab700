"""A candidate operator found by the scan: its folder, kind, evidence and what its marker
declares. Its own module so the scan's helpers (nesting) can name it without a cycle."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pto_tui.core.operators.marker import CaseChoice, DeclaredRepository
from pto_tui.core.project.config import ResultConfig, Tunable
from pto_tui.core.vocabulary import OperatorKind


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
    result: ResultConfig | None = None  # how the marker says a run's result is read
    repository: DeclaredRepository | None = None  # the repository build the marker names
    sources: tuple[str, ...] = ()  # the operator's own files, as the marker lists them
    generated: tuple[str, ...] = ()  # the files its build writes into its folder (marker)

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
