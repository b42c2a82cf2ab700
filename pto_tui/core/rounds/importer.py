"""Open a project an agent wrote by hand (Markdown only): import what can be read.

Reads ITERATIONS.md's round table and each runs/iter-XXX/notes.md and files.txt,
writes round.toml records beside them and a project.toml when there is none. The
hand-written Markdown is never modified; what could not be read is listed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from pto_tui.core.atomic import atomic_write_text
from pto_tui.core.errors import InputError
from pto_tui.core.project.config import (
    CaseConfig,
    CostmodelConfig,
    OperatorConfig,
    Target,
)
from pto_tui.core.project.layout import ProjectLayout, round_dir_name
from pto_tui.core.project.writer import new_project_document
from pto_tui.core.rounds.ledger import Ledger
from pto_tui.core.rounds.records import CLOSED, Changes, Measurement, PreEdit, Round
from pto_tui.core.vocabulary import PRE_EDIT_FIELDS, OperatorKind, Verdict

_HEADER = ["iter", "hypothesis", "changes", "baseline", "pto", "correct", "result"]
# a duration, optionally marked as simulated: "12.5 us (sim)"
_DURATION = re.compile(
    r"^\s*([0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)\s*(us|µs|μs|ms|s)?\s*(?:\((?:sim|simulated)\))?\s*$"
)
_BULLET = re.compile(r"^\s*[-*]\s*\*\*(.+?)\*\*\s*[:：]\s*(.*)$")
_SECTION = re.compile(r"^##\s+(.+?)\s*$")
_VERDICT_WORDS = {
    "kept": Verdict.KEPT,
    "neutral": Verdict.NEUTRAL,
    "failure": Verdict.FAILURE,
    "failed": Verdict.FAILURE,
    "inconclusive": Verdict.INCONCLUSIVE,
}


@dataclass
class TableRow:
    line: int
    number: int
    hypothesis: str
    changes: str
    baseline: str
    pto: str
    correct: str
    result: str


@dataclass
class ImportReport:
    imported: list[int] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)  # already had a round.toml
    problems: list[str] = field(default_factory=list)
    created_project_file: bool = False


def parse_duration_us(text: str) -> float | None:
    """'1.234 ms', '812.5 us', '812.5us', '0.9 s' -> microseconds; None for '-' or blank.
    A number without a unit raises ValueError (it would be a guess)."""
    text = text.strip()
    if text in ("", "-", "—", "n/a", "N/A", "NA"):
        return None
    match = _DURATION.match(text)
    if not match:
        raise ValueError(f"not a duration: {text!r}")
    value, unit = float(match.group(1)), match.group(2)
    if unit is None:
        raise ValueError(f"duration {text!r} has no unit (us or ms)")
    return value * {"us": 1.0, "µs": 1.0, "μs": 1.0, "ms": 1000.0, "s": 1e6}[unit]


def parse_iterations_table(path: Path) -> tuple[list[TableRow], list[str]]:
    """Rows of the round table. No table at all is an InputError naming the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("ITERATIONS.md not found", file=path) from None
    except UnicodeDecodeError:
        raise InputError("ITERATIONS.md is not UTF-8 text", file=path) from None
    rows: list[TableRow] = []
    problems: list[str] = []
    header_line = None
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped.startswith("|"):
            continue
        cells = [c.strip() for c in stripped.strip("|").split("|")]
        if header_line is None:
            if [c.lower() for c in cells] == _HEADER:
                header_line = number
            continue
        if set(stripped) <= set("|-: "):
            continue  # the rule under the header
        if not cells or not cells[0]:
            continue
        iter_text = cells[0].lower().removeprefix("iter-").removeprefix("iter")
        if not iter_text.strip().isdigit():
            if cells[0].lower() in ("avg", "iter"):
                continue
            problems.append(
                f"{path}:{number}: row does not start with a round number: {cells[0]!r}"
            )
            continue
        if len(cells) != len(_HEADER):
            problems.append(
                f"{path}:{number}: expected {len(_HEADER)} columns, found {len(cells)}; row skipped"
            )
            continue
        rows.append(TableRow(number, int(iter_text), *cells[1:]))
    if header_line is None:
        raise InputError(
            "no round table found; expected the header "
            "| Iter | Hypothesis | Changes | Baseline | PTO | Correct | Result |",
            file=path,
        )
    return rows, problems


def parse_notes(path: Path) -> dict[str, dict[str, str]]:
    """notes.md -> {section: {bullet label: value}} (continuation lines joined)."""
    sections: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    last_key = ""
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        section = _SECTION.match(line)
        if section:
            current = sections.setdefault(section.group(1).strip(), {})
            last_key = ""
            continue
        if current is None:
            continue
        bullet = _BULLET.match(line)
        if bullet:
            last_key = bullet.group(1).strip()
            current[last_key] = bullet.group(2).strip()
        elif last_key and line.startswith("  ") and line.strip():
            current[last_key] = (current[last_key] + "\n" + line.strip()).strip()
        elif line.strip() and not last_key:
            current["_text"] = (current.get("_text", "") + "\n" + line.strip()).strip()
    return sections


def _guess_kind(layout: ProjectLayout) -> OperatorKind | None:
    kernels = (layout.workspace / "pto-kernels").is_dir()
    kernel = (layout.workspace / "kernel").is_dir()
    if kernels and not kernel:
        return OperatorKind.PTO_DSL
    if kernel and not kernels:
        return OperatorKind.PTO_TILE_LIB
    return None


def import_project(root: Path, kind: OperatorKind | None = None) -> ImportReport:
    layout = ProjectLayout(root)
    report = ImportReport()
    rows, problems = parse_iterations_table(layout.iterations)
    report.problems += problems
    if not layout.project_file.exists():
        kind = kind or _guess_kind(layout)
        if kind is None:
            raise InputError(
                "cannot tell the operator kind from workspace/ (pto-kernels/ or kernel/)",
                file=layout.workspace,
                hint="pass --kind pto-dsl or --kind pto-tile-lib",
            )
        text = new_project_document(
            OperatorConfig(name=root.name, kind=kind, source="(imported hand-written project)"),
            CaseConfig(),
            [],
            Target(),
            CostmodelConfig(),
        )
        atomic_write_text(layout.project_file, text)
        report.created_project_file = True
        report.problems.append(
            "project.toml was created with an empty case and no tunables: fill them in"
        )
    ledger = Ledger(layout)
    by_number = {row.number: row for row in rows}
    numbers = sorted(set(by_number) | set(ledger.round_numbers()))
    for number in numbers:
        if ledger.has_record(number):
            report.skipped.append(number)
            continue
        record = _round_from_markdown(layout, number, by_number.get(number), report.problems)
        ledger.save(record)
        report.imported.append(number)
    return report


def _round_from_markdown(
    layout: ProjectLayout, number: int, row: TableRow | None, problems: list[str]
) -> Round:
    folder = layout.round_dir(number)
    record = Round(number=number, imported=True, status=CLOSED if row else "open")
    where = f"{round_dir_name(number)}"
    if row is None:
        problems.append(
            f"{where}: folder exists but ITERATIONS.md has no row for it; imported as open"
        )
    notes_path = folder / "notes.md"
    notes = parse_notes(notes_path) if notes_path.is_file() else {}
    if not notes_path.is_file():
        problems.append(f"{where}: no notes.md")
    record.pre_edit = _pre_edit_from_notes(notes.get("Pre-Edit", {}))
    record.changes = _changes_from_notes(notes.get("Changes", {}), folder / "files.txt")
    post = notes.get("Post-Run", {})
    record.analysis = notes.get("Analysis", {}).get("_text", "")
    record.next = notes.get("Next", {}).get("_text", "")
    stability = _first_value(post, "stability")
    record.stability = stability.split()[0].lower() if stability else ""
    m = Measurement()
    if row is not None:
        record.title = row.hypothesis if row.hypothesis != "-" else ""
        m = _measurement_from_row(row, layout, problems)
        if number > 0:
            record.verdict = _verdict_from_row(row, layout, problems)
    record.measurement = m
    return record


def _pre_edit_from_notes(section: dict[str, str]) -> PreEdit:
    labels = {label.lower(): key for key, label in PRE_EDIT_FIELDS}
    pre = PreEdit()
    for label, value in section.items():
        key = labels.get(label.lower())
        if key:
            setattr(pre, key, value)
    return pre


def _changes_from_notes(section: dict[str, str], files_path: Path) -> Changes:
    """The Changes section of notes.md, and the changed files from files.txt when it exists."""
    changes = Changes(description=_first_value(section, "具体变更", "changes"))
    based_match = re.search(r"iter-?(\d+)", _first_value(section, "基于哪一轮", "based on"))
    if based_match:
        changes.based_on = int(based_match.group(1))
    if files_path.is_file():
        changes.files = [
            line.strip()
            for line in files_path.read_text(encoding="utf-8", errors="replace").splitlines()
            if line.strip() and not line.startswith("#")
        ]
    return changes


def _measurement_from_row(row: TableRow, layout: ProjectLayout, problems: list[str]) -> Measurement:
    """Durations and correctness from a round's ITERATIONS.md row; unreadable durations are listed."""
    m = Measurement()
    for text, target in ((row.pto, m.samples_us), (row.baseline, m.reference_us)):
        try:
            duration = parse_duration_us(text)
        except ValueError as error:
            problems.append(f"{layout.iterations}:{row.line}: {error}; not imported")
            continue
        if duration is not None:
            target.append(duration)
    correct = row.correct.lower()
    m.correctness = (
        "pass"
        if correct.startswith(("pass", "yes", "✓", "ok"))
        else ("fail" if correct.startswith(("fail", "no", "✗")) else "")
    )
    m.build = "ok" if m.correctness or m.samples_us else ""
    return m


def _verdict_from_row(row: TableRow, layout: ProjectLayout, problems: list[str]) -> Verdict | None:
    word = row.result.lower().split()[0] if row.result.strip() else ""
    verdict = _VERDICT_WORDS.get(word)
    if verdict is None:
        problems.append(
            f"{layout.iterations}:{row.line}: unknown result {row.result!r}; verdict left empty"
        )
    return verdict


def _first_value(section: dict[str, str], *needles: str) -> str:
    for label, value in section.items():
        if any(n.lower() in label.lower() for n in needles):
            return value
    return ""
