"""Open a project an agent wrote by hand (Markdown only): import everything it holds.

Reads ITERATIONS.md (the torch_npu section and the round table), TASK_REQUIREMENTS.md
(the case), the workspace (the operator kind and its tunables) and each
runs/iter-XXX/ (notes.md, files.txt, patch.diff); writes round.toml records beside them
and a project.toml when there is none. The hand-written Markdown is never modified;
what could not be read and every conflict between the files are listed by file and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomlkit

from pto_tui.core.atomic import atomic_write_text, synced_once
from pto_tui.core.errors import InputError, read_regular_bytes
from pto_tui.core.operators.kinds.registry import source_kind
from pto_tui.core.operators.scan import classify
from pto_tui.core.project.config import CaseConfig, CostmodelConfig, OperatorConfig, Scalar, Target
from pto_tui.core.project.file import ProjectFile
from pto_tui.core.project.kinds.registry import PROJECT_KINDS, project_kind
from pto_tui.core.project.layout import ProjectLayout
from pto_tui.core.project.lock import ProjectLock
from pto_tui.core.project.sections import MAX_DIMENSION
from pto_tui.core.project.writer import new_project_document
from pto_tui.core.rounds.ledger import Ledger
from pto_tui.core.rounds.markdown_read import (  # noqa: F401 (re-exported for callers and tests)
    TableRow,
    parse_duration_us,
    parse_iterations_table,
    parse_notes,
    parse_torch_section,
)
from pto_tui.core.rounds.markdown_round import contradicted_kept, round_from_markdown
from pto_tui.core.rounds.records import Round
from pto_tui.core.vocabulary import OperatorKind

_SHAPE = re.compile(r"([A-Za-z_]+)\s*=\s*([0-9]+(?:\s*,\s*[0-9]+)*)")
_DTYPE = re.compile(r"\b(bfloat16|float16|float32|fp16|bf16|fp32)\b", re.IGNORECASE)
_CAUSAL = re.compile(r"causal(?:[_ ]mask)?\s*[=:]\s*(true|false|1|0|yes|no)", re.IGNORECASE)
_DTYPES = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32"}
_MAX_DIGITS = len(str(MAX_DIMENSION))


@dataclass
class ImportReport:
    imported: list[int] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)  # already had a round.toml
    problems: list[str] = field(default_factory=list)  # unreadable pieces, by file and line
    conflicts: list[str] = field(default_factory=list)  # notes.md and the table disagree
    created_project_file: bool = False
    kind: str = ""
    case: str = ""
    tunables: list[str] = field(default_factory=list)
    torch_baseline: dict[str, Any] | None = None


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


def case_from_requirements(path: Path) -> tuple[CaseConfig, int | None, str]:
    """The case TASK_REQUIREMENTS.md states ('Case: BNSD=1,16,8192,128, float16'), its
    line, and why a case line could not be taken ("" when it could, or none was found)."""
    if not path.is_file():
        return CaseConfig(), None, ""
    for number, line in enumerate(read_regular_bytes(path).decode("utf-8", errors="replace").splitlines(), 1):
        if not re.search(r"case|算例|shape|形状", line, re.IGNORECASE):
            continue
        shape: dict[str, Scalar] = {}
        for key, values in _SHAPE.findall(line):
            texts = re.split(r"\s*,\s*", values)
            bad = next((t for t in texts if len(t) > _MAX_DIGITS or not 1 <= int(t) <= MAX_DIMENSION), None)
            if bad is not None:  # int() of thousands of digits is refused, and no dimension
                shown = bad if len(bad) <= 20 else f"{bad[:12]}... ({len(bad)} digits)"
                return CaseConfig(), None, (
                    f"{path}:{number}: {key} = {shown} is not a dimension (a whole number 1 to "
                    f"{MAX_DIMENSION}); the case is not read, fill in [case]"
                )
            numbers = [int(t) for t in texts]
            if len(numbers) > 1 and len(key) == len(numbers):
                shape.update({letter.upper(): n for letter, n in zip(key, numbers, strict=True)})
            elif len(numbers) == 1:
                shape[key.upper()] = numbers[0]
        if not shape:
            continue
        dtype = _DTYPE.search(line)
        causal = _CAUSAL.search(line)
        dtype_text = dtype.group(1).lower() if dtype else "float16"
        return (
            CaseConfig(
                shape=shape,
                dtype=_DTYPES.get(dtype_text, dtype_text),
                causal=causal is not None and causal.group(1).lower() in ("true", "1", "yes"),
            ),
            number,
            "",
        )
    return CaseConfig(), None, ""


def _create_project_file(layout: ProjectLayout, kind: OperatorKind | None, report: ImportReport) -> None:
    kind = kind or infer_kind(layout)
    if kind is None:
        folders = " or ".join(f"{spec.workspace_subdir}/" for spec in PROJECT_KINDS.values())
        raise InputError(
            f"cannot tell the operator kind from workspace/ ({folders})",
            file=layout.workspace,
            hint="pass " + " or ".join(f"--kind {k.value}" for k in OperatorKind),
        )
    case, line, unread = case_from_requirements(layout.requirements)
    source = layout.workspace / project_kind(kind).workspace_subdir
    tunables = source_kind(kind).tunables(source) if source.is_dir() else []
    text = new_project_document(
        OperatorConfig(name=layout.root.name, kind=kind, source="(imported hand-written project)"),
        case,
        tunables,
        Target(),
        CostmodelConfig(),
    )
    atomic_write_text(layout.project_file, text)
    report.created_project_file = True
    report.kind, report.case = kind.value, case.describe()
    report.tunables = [t.name for t in tunables]
    if unread:
        report.problems.append(unread)
    elif line is None:
        report.problems.append(
            f"{layout.requirements}: no case found (e.g. 'Case: BNSD=1,16,8192,128'); fill in [case]"
        )
    if not tunables:
        report.problems.append(f"{source}: no tunables found; fill in [tunables]")


def _import_torch(layout: ProjectLayout, report: ImportReport) -> None:
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


def import_project(root: Path, kind: OperatorKind | None = None) -> ImportReport:
    """Read the hand-kept records into round.toml files, holding the project lock like
    every other write (an agent or the terminal application may be writing too)."""
    layout = ProjectLayout(root)
    with ProjectLock(layout.state_dir, command="pto-tui import"), synced_once():
        return _import(layout, kind)


def _import(layout: ProjectLayout, kind: OperatorKind | None) -> ImportReport:
    report = ImportReport()
    rows, problems = parse_iterations_table(layout.iterations)
    report.problems += problems
    if not layout.project_file.exists():
        _create_project_file(layout, kind, report)
    _import_torch(layout, report)
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
    for record in records:
        ledger.save(record)
        report.imported.append(record.number)
    if report.torch_baseline is not None:  # what a later edit of project.toml is compared with
        ledger.log_torch(ledger.torch_state())
    return report
