"""One operator's knobs as the scan and `new` show them: inside a pto-kernels repository the
repository's reading (its imported kernel modules, the workload the adapter sets, what the
runtime sets itself), else the folder's own discovery; the marker's declared tunables win."""

from __future__ import annotations

from pathlib import Path

from pto_tui.core.operators.candidate import Candidate
from pto_tui.core.operators.kinds.registry import source_kind
from pto_tui.core.operators.knob_report import KnobReport
from pto_tui.core.operators.repository import repository_report
from pto_tui.core.operators.tunables import discover_report
from pto_tui.core.project.config import Tunable


def merge_tunables(found: list[Tunable], candidate: Candidate | None) -> list[Tunable]:
    """Tunables declared in the operator's marker win over those discovered in the source."""
    declared = {t.name: t for t in candidate.tunables} if candidate else {}
    return [declared.pop(t.name, t) for t in found] + list(declared.values())


def operator_knobs(candidate: Candidate) -> KnobReport:
    """The candidate's knobs: tunables (the marker's winning), derived values, the candidates
    left out with the reason, and the workload knobs its case sets."""
    path = candidate.path
    if candidate.kind is None or not path.is_dir():
        return KnobReport(tunables=candidate.tunables)
    repo = source_kind(candidate.kind).package_repository(path)
    found = repository_report(repo) if repo is not None else discover_report(path)
    return KnobReport(
        tunables=tuple(merge_tunables(list(found.tunables), candidate)),
        derived=found.derived,
        left_out=found.left_out,
        workload=found.workload,
    )


def source_knobs(path: Path) -> KnobReport:
    """The knobs of a folder that is no candidate (a file given to `new`, a kind chosen by hand)."""
    return discover_report(path) if path.is_dir() else KnobReport()
