"""A round written by hand (runs/iter-XXX/ and its ITERATIONS.md row) as a record.

Used by `pto-tui import` (which then writes round.toml) and by the ledger when a round
folder has no round.toml (a round an agent added by hand after the import): read in
memory, never written, with what could not be read, every conflict between notes.md
and the table, and what the workflow's rules say about it listed by file and line.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from pto_tui.core.errors import inside, read_text
from pto_tui.core.project.config import parse_scalar
from pto_tui.core.project.layout import ProjectLayout, round_name
from pto_tui.core.rounds.markdown_read import (
    Bullet,
    Notes,
    TableRow,
    durations_in,
    parse_duration_us,
    parse_notes,
    tflops_in,
)
from pto_tui.core.rounds.records import CLOSED, Changes, Measurement, ParamChange, PreEdit, Round
from pto_tui.core.rounds.reruns import parse_rerun_title
from pto_tui.core.vocabulary import BOTTLENECK_CLASSES, PRE_EDIT_FIELDS, ChangeKind, Verdict

VERDICT_WORDS = {
    "kept": Verdict.KEPT,
    "neutral": Verdict.NEUTRAL,
    "failure": Verdict.FAILURE,
    "failed": Verdict.FAILURE,
    "inconclusive": Verdict.INCONCLUSIVE,
}
_KINDS = {
    "代码": ChangeKind.CODE,
    "code": ChangeKind.CODE,
    "模板": ChangeKind.TEMPLATE_PARAMETER,
    "template": ChangeKind.TEMPLATE_PARAMETER,
    "环境变量": ChangeKind.ENVIRONMENT_VARIABLE,
    "environment": ChangeKind.ENVIRONMENT_VARIABLE,
    "env": ChangeKind.ENVIRONMENT_VARIABLE,
    "构建": ChangeKind.BUILD_CONFIG,
    "build": ChangeKind.BUILD_CONFIG,
}
_ASSIGN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([^,\s]+)")
_PARAM_LINE = re.compile(r"^([-+])\s+([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
_ARROW = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*:?\s+(\S+)\s*(?:→|->)\s*(\S+)")
NO_FILES = ("", "-", "无", "none", "no")


def _where(path: Path, line: int | None = None) -> str:
    return f"{path}:{line}" if line is not None else str(path)


def round_from_markdown(
    layout: ProjectLayout, number: int, row: TableRow | None, problems: list[str]
) -> Round:
    """The record of a hand-written round; `problems` gets what could not be read."""
    folder = layout.round_dir(number)
    record = Round(number=number, imported=True, status=CLOSED if row else "open")
    if row is None:
        problems.append(
            f"{round_name(number)}: folder exists but ITERATIONS.md has no row for it; read as open"
        )
    notes_path = folder / "notes.md"
    readable = notes_path.is_file() and inside(notes_path, layout.root)
    notes = parse_notes(notes_path) if readable else Notes(notes_path)
    if not notes_path.is_file():
        problems.append(f"{round_name(number)}: no notes.md")
    elif not readable:  # a symlink to /etc/shadow is not the round's notes
        problems.append(f"{notes_path}: leads outside the project; not read")
    record.pre_edit = pre_edit_from(notes)
    record.changes = changes_from(notes, folder, problems)
    record.analysis = notes.text.get("Analysis", "")
    record.next = notes.text.get("Next", "")
    stability = notes.value("Post-Run", "stability")
    record.stability = stability.value.split()[0].lower() if stability and stability.value else ""
    if row is not None:
        record.title = row.hypothesis if row.hypothesis != "-" else ""
        record.rerun_of = parse_rerun_title(record.title)[0]
        record.measurement = measurement_from(row, layout.iterations, problems)
        if number > 0:
            record.verdict = verdict_from(row, layout.iterations, problems)
        if not record.changes.parameters and not record.changes.description and row.changes not in NO_FILES:
            record.changes.description = row.changes
        problems += conflicts(row, notes, layout.iterations)
    _performance_from_notes(record, notes)
    problems += notes_problems(notes_path, notes) if notes_path.is_file() else []
    unmeasured = unmeasured_verdict(record, layout.iterations, row)
    if unmeasured:
        problems.append(unmeasured)
        record.verdict, record.verdict_reason = None, "recorded by hand, unmeasured"
    if not record.pre_edit.hypothesis and record.title:
        record.pre_edit.hypothesis = parse_rerun_title(record.title)[1]
    return record


# a verdict that says something about the numbers: without readable numbers it was not measured
_MEASURED_WORDS = (Verdict.KEPT, Verdict.NEUTRAL)


def unmeasured_verdict(record: Round, iterations: Path, row: TableRow | None) -> str:
    """Why the row's kept or neutral cannot be taken (its PTO time cannot be read, or is
    not a duration): the round is then recorded by hand, unmeasured; "" when it can."""
    if record.verdict not in _MEASURED_WORDS or row is None:
        return ""
    samples = record.measurement.samples_us
    if samples and all(math.isfinite(s) and s > 0 for s in samples):
        return ""
    return (
        f"{iterations}:{row.line}: result {record.verdict.value!r} without a readable PTO time "
        f"({row.pto!r}): recorded by hand, unmeasured (no verdict)"
    )


def contradicted_kept(records: list[Round], iterations: Path) -> list[str]:
    """Kept rounds whose own table numbers are not faster than the best before them (the
    baseline or an earlier kept round): the table's word is not taken, the round is
    recorded by hand with no verdict, and each is listed. `records` in round order."""
    found = []
    best: float | None = None
    for record in records:
        median = record.measurement.median_us
        if record.is_baseline or record.verdict is Verdict.KEPT:
            if record.verdict is Verdict.KEPT and median is not None and best is not None and median >= best:
                found.append(
                    f"{iterations}: {round_name(record.number)} says kept, but its PTO time "
                    f"{median:g} us is not faster than the best before it ({best:g} us): no verdict taken"
                )
                record.verdict, record.verdict_reason = None, "recorded by hand: kept, but not faster"
                continue
            if median is not None:
                best = median if best is None else min(best, median)
    return found


def notes_problems(path: Path, notes: Notes) -> list[str]:
    """A notes.md that holds no round: empty, not text, or without the workflow's sections."""
    data = path.read_bytes()
    if not data.strip():
        return [f"{path}: empty: nothing of the round is recorded in it"]
    if b"\0" in data:
        return [f"{path}: not text (binary data): nothing of it is read"]
    if not {"Pre-Edit", "Post-Run"} & set(notes.sections):
        return [f"{path}: no '## Pre-Edit' or '## Post-Run' section: the round's notes are not read"]
    return []


def pre_edit_from(notes: Notes) -> PreEdit:
    labels = {label.lower(): key for key, label in PRE_EDIT_FIELDS}
    pre = PreEdit()
    for label, bullet in notes.sections.get("Pre-Edit", {}).items():
        key = labels.get(label.lower())
        if key:
            setattr(pre, key, bullet.value)
        elif "correctness" in label.lower():
            pre.correctness_plan = bullet.value
    return pre


def _kind(text: str) -> ChangeKind | None:
    lowered = text.lower()
    return next((kind for word, kind in _KINDS.items() if word in lowered), None)


def changes_from(notes: Notes, folder: Path, problems: list[str]) -> Changes:
    """The Changes section of notes.md, the changed files (files.txt) and the parameter
    changes of a parameter round (patch.diff's block, else the section's 'A old → new')."""
    kind_bullet = notes.value("Changes", "修改类型", "change kind")
    changes = Changes(kind=_kind(kind_bullet.value) if kind_bullet else None)
    if kind_bullet and kind_bullet.value and changes.kind is None:
        problems.append(f"{_where(notes.path, kind_bullet.line)}: unknown change kind {kind_bullet.value!r}")
    concrete = notes.value("Changes", "具体变更", "changes)")
    changes.description = concrete.value if concrete else ""
    based = notes.value("Changes", "基于哪一轮", "based on")
    match = re.search(r"iter-?(\d+)", based.value if based else "")
    changes.based_on = int(match.group(1)) if match else None
    values = notes.value("Changes", "参数快照", "snapshot")
    if values:
        changes.parameter_values = {k: parse_scalar(v) for k, v in _ASSIGN.findall(values.value)}
    changes.files = _files(folder / "files.txt")
    changes.parameters = _param_block(folder / "patch.diff") or _arrows(changes.description)
    if changes.parameters:
        changes.description = ""  # the parameters say it; a hand-written line is kept in notes.md
    return changes


def _files(path: Path) -> list[str]:
    if not path.is_file():
        return []
    if not inside(path, path.parents[2]):  # runs/iter-XXX/files.txt: inside the project
        return []
    lines = read_text(path, errors="replace").splitlines()
    return [
        s for line in lines if (s := line.strip()) and not s.startswith("#") and s.lower() not in NO_FILES
    ]


def _param_block(path: Path) -> list[ParamChange]:
    """The '-  NAME=old / +  NAME=new' lines of a parameter round's patch.diff."""
    if not path.is_file():
        return []
    if not inside(path, path.parents[2]):
        return []
    text = read_text(path, errors="replace")
    if "调参" not in text and "参数变更" not in text:
        return []
    old: dict[str, str] = {}
    changes: list[ParamChange] = []
    for line in text.splitlines():
        match = _PARAM_LINE.match(line.strip() if line.startswith(("-", "+")) else "")
        if match and match.group(1) == "-":
            old[match.group(2)] = match.group(3).strip()
        elif match:
            name, new = match.group(2), match.group(3).strip()
            before = old.get(name)
            changes.append(ParamChange(name, parse_scalar(before) if before else None, parse_scalar(new)))
    return changes


def _arrows(text: str) -> list[ParamChange]:
    return [
        ParamChange(n, parse_scalar(o), parse_scalar(v)) for n, o, v in _ARROW.findall(text) if n.isupper()
    ]


def measurement_from(row: TableRow, iterations: Path, problems: list[str]) -> Measurement:
    """Durations, TFLOPS and correctness from a round's row; unreadable durations are listed."""
    m = Measurement(tflops=tflops_in(row.pto))
    for text, target in ((row.pto, m.samples_us), (row.baseline, m.reference_us)):
        try:
            duration = parse_duration_us(text)
        except ValueError as error:
            problems.append(f"{iterations}:{row.line}: {error}; not imported")
            continue
        if duration is not None:
            target.append(duration)
    m.correctness = correctness_word(row.correct)
    m.build = "ok" if m.correctness or m.samples_us else ""
    return m


def correctness_word(text: str) -> str:
    lowered = text.strip().lower()
    if lowered.startswith(("pass", "yes", "✓", "ok")):
        return "pass"
    return "fail" if lowered.startswith(("fail", "no", "✗")) else ""


def verdict_from(row: TableRow, iterations: Path, problems: list[str]) -> Verdict | None:
    word = row.result.lower().split()[0] if row.result.strip() else ""
    verdict = VERDICT_WORDS.get(word)
    if verdict is None:
        problems.append(f"{iterations}:{row.line}: unknown result {row.result!r}; verdict left empty")
    return verdict


def _performance_from_notes(record: Round, notes: Notes) -> None:
    """TFLOPS written in Post-Run's Performance; the PTO time when the row had none."""
    perf = notes.value("Post-Run", "performance")
    if perf is None:
        return
    if record.measurement.tflops is None:
        record.measurement.tflops = tflops_in(perf.value)
    found = durations_in(perf.value)
    if not record.measurement.samples_us and found and record.status != CLOSED:
        record.measurement.samples_us = [found[-1]]


def conflicts(row: TableRow, notes: Notes, iterations: Path) -> list[str]:
    """Where notes.md and the round's ITERATIONS.md row disagree (the row is used for the
    verdict and the numbers, notes.md for the Pre-Edit answers)."""
    found: list[str] = []

    def differ(what: str, table: str, bullet: Bullet | None, note: str) -> None:
        line = bullet.line if bullet is not None else None
        found.append(
            f"{iterations}:{row.line} and {_where(notes.path, line)}: {what} differs: "
            f"table {table!r}, notes.md {note!r}"
        )

    hypothesis = notes.value("Pre-Edit", "hypothesis")
    titled = row.hypothesis not in ("", "-", "baseline")
    # a rerun's row names the round it reruns first: the rest is the hypothesis
    short = parse_rerun_title(row.hypothesis)[1]
    if hypothesis and titled and not same_hypothesis(short, hypothesis.value):
        differ("hypothesis", row.hypothesis, hypothesis, hypothesis.value)
    result = notes.value("Post-Run", "result")
    if (
        result
        and result.value
        and row.result
        and result.value.lower().split()[0] != row.result.lower().split()[0]
    ):
        differ("result", row.result, result, result.value)
    correct = notes.value("Post-Run", "correctness")
    if correct and correct.value and correctness_word(correct.value) != correctness_word(row.correct):
        differ("correctness", row.correct, correct, correct.value)
    perf = notes.value("Post-Run", "performance")
    table_pto = _safe_duration(row.pto)
    noted = durations_in(perf.value) if perf else []
    # the line may name other times too (before → after, the torch_npu time): it agrees
    # when one of them is the table's
    if table_pto is not None and noted and all(abs(n - table_pto) > 0.005 * table_pto for n in noted):
        differ("PTO time", row.pto, perf, perf.value if perf else "")
    return found


def same_hypothesis(title: str, full: str) -> bool:
    """The table's short hypothesis may abbreviate the notes' one, never contradict it:
    each number the table names is in the notes, and they share a word (or one holds
    the other)."""
    a, b = title.lower(), full.lower()
    if a in b or b in a:
        return True
    if not set(re.findall(r"\d+", a)) <= set(re.findall(r"\d+", b)):
        return False
    words = {w for w in re.findall(r"[a-z_]{4,}", a)}
    return bool(words & set(re.findall(r"[a-z_]{4,}", b))) or not words


def _safe_duration(text: str) -> float | None:
    try:
        return parse_duration_us(text)
    except ValueError:
        return None


def rule_findings(record: Round) -> list[str]:
    """What the workflow's rules say about a round written by hand: pto-tui did not see it
    happen, so only what its files show can be checked."""
    where = f"runs/{round_name(record.number)}"
    found = [f"{where} was written by hand: pto-tui did not run or check it (run `pto-tui import`)"]
    if record.number == 0:
        return found
    pre = record.pre_edit
    missing = [label for key, label in PRE_EDIT_FIELDS if not pre.field_value(key).strip()]
    if missing:
        found.append(f"[pre-edit-complete] {where}/notes.md: Pre-Edit missing {', '.join(missing)}")
    if pre.bottleneck and pre.bottleneck not in BOTTLENECK_CLASSES:
        found.append(f"[bottleneck-class] {where}/notes.md: {pre.bottleneck!r} is not a bottleneck class")
    m = record.measurement
    if record.verdict is Verdict.KEPT and m.correctness != "pass":
        found.append(f"[correctness-before-performance] {where}: kept without a passing correctness check")
    if record.verdict is Verdict.KEPT and len(m.samples_us) < 2:
        found.append(f"[honest-verdict] {where}: kept from {len(m.samples_us)} measurement(s), not repeated")
    return found
