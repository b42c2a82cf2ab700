"""A project an agent wrote by hand (Markdown only), read into records.

Reads ITERATIONS.md (the torch_npu section, as a table or prose, and the round table),
TASK_REQUIREMENTS.md (the operator, the case, the tunables) and each runs/iter-XXX/
(notes.md, files.txt, patch.diff), and writes round.toml records beside them. The
hand-written Markdown is never modified; what could not be read and every conflict
between the files are listed by file and line. `core/campaign/importing.py` runs the
whole import (the workspace, the target, project.toml, SKILL.md) around this.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import tomlkit

from pto_tui.core.operators.scan import classify
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.project.kinds.registry import PROJECT_KINDS, project_kind
from pto_tui.core.project.layout import ProjectLayout
from pto_tui.core.rounds.ledger import Ledger
from pto_tui.core.rounds.markdown_checks import contradicted_kept
from pto_tui.core.rounds.markdown_read import (  # noqa: F401 (re-exported for callers and tests)
    TableRow,
    parse_duration_us,
    parse_iterations_table,
)
from pto_tui.core.rounds.markdown_round import round_from_markdown
from pto_tui.core.rounds.markdown_torch import parse_torch_section
from pto_tui.core.rounds.records import Round
from pto_tui.core.vocabulary import OperatorKind


@dataclass
class ImportReport:
    imported: list[int] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)  # already had a round.toml
    problems: list[str] = field(default_factory=list)  # unreadable pieces, by file and line
    conflicts: list[str] = field(default_factory=list)  # notes.md and the table disagree
    flagged: list[str] = field(default_factory=list)  # what the rules say of the imported rounds
    created_project_file: bool = False
    operator: str = ""
    kind: str = ""
    case: str = ""
    tunables: list[str] = field(default_factory=list)
    torch_baseline: dict[str, Any] | None = None
    workspace: str = ""  # the operator source copied into workspace/ ("" when none was)
    target: str = ""  # where jobs run: local, or ssh:ALIAS with its work dir; and the mode
    skill_written: bool = False  # SKILL.md written (a project's own is never replaced)
    next_steps: list[str] = field(default_factory=list)  # what the project still needs

    def to_json(self) -> dict[str, Any]:
        return {"schema_version": 1, **self.__dict__}


def infer_kind(layout: ProjectLayout) -> OperatorKind | None:
    """The kind the workspace shows: its folder (each kind's own, e.g. pto-kernels/ or
    kernel/), else the classification of what the folder holds."""
    folders = {k: (layout.workspace / spec.workspace_subdir).is_dir() for k, spec in PROJECT_KINDS.items()}
    present = [k for k, there in folders.items() if there]
    if len(present) == 1:
        return present[0]
    for kind in present:
        candidate = classify(layout.workspace / project_kind(kind).workspace_subdir)
        if candidate is not None and candidate.kind is not None:
            return candidate.kind
    candidate = classify(layout.workspace) if layout.workspace.is_dir() else None
    return candidate.kind if candidate is not None else None


def import_torch(layout: ProjectLayout, report: ImportReport) -> None:
    baseline, problems = parse_torch_section(layout.iterations)
    report.problems += problems
    project = ProjectFile(layout.project_file)
    if baseline is None or project.get_state("torch_baseline"):
        return
    table = tomlkit.table()
    for key, value in baseline.__dict__.items():
        if value is not None and value != "":
            table.add(key, value)
    project.set("state.torch_baseline", table)
    project.save()
    report.torch_baseline = dict(baseline.__dict__)


def import_rounds(layout: ProjectLayout, report: ImportReport) -> list[Round]:
    """Every hand-written round without a round.toml, read and saved (under the caller's
    project lock); the records saved, in round order."""
    rows, problems = parse_iterations_table(layout.iterations)
    report.problems += problems
    import_torch(layout, report)
    ledger = Ledger(layout)
    by_number = {row.number: row for row in rows}
    records: list[Round] = []
    for number in sorted(set(by_number) | set(ledger.round_numbers())):
        if ledger.has_record(number):
            report.skipped.append(number)
            continue
        found: list[str] = []
        records.append(round_from_markdown(layout, number, by_number.get(number), found))
        report.conflicts += [p for p in found if " differs: " in p]
        report.problems += [p for p in found if " differs: " not in p]
    report.conflicts += contradicted_kept(records, layout.iterations)
    return records


def save_rounds(layout: ProjectLayout, records: list[Round], report: ImportReport) -> None:
    ledger = Ledger(layout)
    for record in records:
        ledger.save(record)
        report.imported.append(record.number)
    if report.torch_baseline is not None:  # what a later edit of project.toml is compared with
        ledger.log_torch(ledger.torch_state())
